import { describe, expect, it } from "vitest";
import type { Query, ReadOnlyApi } from "../../src/api/types.js";
import type { V3Resource } from "../../src/core/wire.js";
import { listUnmanaged, liveTriggerKey } from "../../src/live/unmanaged.js";
import type { DesiredOrg } from "../../src/model/desired.js";
import type { LiveState } from "../../src/model/live.js";

const source = { file: "waybill.yaml", line: 1, col: 1 };
const ORG = "0a000000-0000-4000-8000-000000000001";
const API = "0b000000-0000-4000-8000-000000000001";

/**
 * A recording fake of the read-only client over canned V3 collections. A collection with
 * nothing canned is empty (a kind the config leaves out whose org holds none of its items,
 * a kind added later among them): the items asserted below say what was read.
 */
const fakeApi = (collections: Record<string, unknown[]>) => {
  const calls: string[] = [];
  const list = async <A>(path: string, query?: Query): Promise<V3Resource<A>[]> => {
    const q = Object.entries(query ?? {})
      .map(([k, v]) => `${k}=${String(v)}`)
      .join("&");
    const key = q ? `${path}?${q}` : path;
    calls.push(key);
    return (collections[key] ?? []) as V3Resource<A>[];
  };
  const api: ReadOnlyApi = {
    // The synthetic probe (src/live/synthetic.ts): GET /pipelines/{id} without
    // filter[project_id] is 404 for the synthetic OAuth pipeline ("syn"), 200 otherwise.
    get: async <T>(_gen: string, path: string): Promise<T> => {
      calls.push(path);
      if (path === "/pipelines/syn") throw Object.assign(new Error("404"), { status: 404 });
      if (path.startsWith("/pipelines/")) return { data: {} } as T;
      // The org's SSO mappings (issue 46: org-level kinds are listed too): an empty set.
      if (path.endsWith("/sso-group-mappings"))
        return { data: { attributes: { mappings: [] } } } as T;
      if (path === "/otel/exporters") return [] as T;
      throw new Error(`unexpected get ${path}`);
    },
    listV3: list,
    // V2 lists (checkout keys, legacy schedules) under `v2:` keys.
    listV2: async <T>(path: string, query?: Query): Promise<T[]> =>
      (await list(`v2:${path}`, query)) as T[],
  };
  return { api, calls };
};

const trigger = (id: string, pipeline: string, event: Record<string, unknown>) => ({
  id,
  pipeline_id: pipeline,
  synthetic: false,
  is_disabled: false,
  event: event as never,
});

describe("listUnmanaged", () => {
  it("reads the collections the config leaves out and lists them, and ignored items", async () => {
    const { api, calls } = fakeApi({
      [`/contexts?filter[org_id]=${ORG}`]: [
        { id: "c1", attributes: { name: "prod" } },
        { id: "c2", attributes: { name: "legacy-x" } },
      ],
      [`/projects/${API}/environment-variables`]: [{ attributes: { name: "FOO" } }],
      [`/pipelines?filter[project_id]=${API}`]: [
        { id: "syn", attributes: { name: "OAuth", config: { type: "vcs", file_path: "x" } } },
        { id: "p1", attributes: { name: "build", config: { type: "vcs", file_path: "x" } } },
      ],
      "v2:/project/gh/acme/api/checkout-key?digest=sha256": [
        { type: "github-user-key", fingerprint: "SHA256:abc/def+g", "public-key": "ssh-ed25519 A" },
      ],
      "v2:/project/gh/acme/api/schedule": [{ id: "s1", name: "legacy-nightly" }],
      [`v2:/organizations/${ORG}/groups`]: [{ id: "g1", name: "by-hand" }],
      [`/triggers?filter[project_id]=${API}`]: [
        {
          id: "t0",
          attributes: {
            is_disabled: false,
            event: { type: "vcs", vcs: { repo_full_name: "a/b" } },
          },
          references: { pipeline: { id: "syn" } },
        },
        {
          id: "t1",
          attributes: {
            is_disabled: false,
            event: { type: "schedule", schedule: { name: "nightly" } },
          },
          references: { pipeline: { id: "p1" } },
        },
      ],
    });
    const desired: DesiredOrg = {
      slug: "gh/acme",
      source,
      ignore: ['context["legacy-*"]', 'project["gh/acme/api"].webhook["old"]'],
      projects: new Map([["gh/acme/api", { slug: "gh/acme/api", source, webhooks: new Map() }]]),
    };
    const live: LiveState = {
      orgs: [
        {
          status: "found",
          id: ORG,
          slug: "gh/acme",
          projects: new Map([
            [
              "gh/acme/api",
              {
                status: "found",
                id: API,
                slug: "gh/acme/api",
                webhooks: [
                  {
                    id: "w1",
                    name: "old",
                    scope: "project",
                    url: "https://x.example.com",
                    events: [],
                    should_verify_tls: true,
                    has_signing_secret: false,
                    is_enabled: true,
                  },
                ],
              },
            ],
          ]),
        },
      ],
    };
    const items = await listUnmanaged(api, [desired], live);
    expect(items).toEqual(
      expect.arrayContaining([
        { address: 'context["prod"]', resource_type: "context", why: "unmanaged" },
        { address: 'context["legacy-x"]', resource_type: "context", why: "ignored" },
        {
          address: 'project["gh/acme/api"].checkout_key["user-key"]',
          resource_type: "checkout_key",
          why: "unmanaged",
        },
        {
          address: 'project["gh/acme/api"].legacy_schedule["legacy-nightly"]',
          resource_type: "legacy_schedule",
          why: "legacy",
        },
        {
          address: 'project["gh/acme/api"].env["FOO"]',
          resource_type: "project_env_var",
          why: "unmanaged",
        },
        {
          address: 'project["gh/acme/api"].webhook["old"]',
          resource_type: "webhook",
          why: "ignored",
        },
        {
          address: 'project["gh/acme/api"].pipeline["build"]',
          resource_type: "pipeline",
          why: "unmanaged",
        },
        {
          address: 'project["gh/acme/api"].pipeline["build"].trigger["nightly"]',
          resource_type: "trigger",
          why: "unmanaged",
        },
      ]),
    );
    // The synthetic OAuth pipeline and its trigger can never be managed: not listed
    // (spec: api-v3.md Pipelines: the list "includes the synthetic OAuth pipeline").
    expect(items).toContainEqual({
      address: 'group["by-hand"]',
      resource_type: "group",
      why: "unmanaged",
    });
    expect(items).toHaveLength(9);
    expect(items.some((i) => i.address.includes("OAuth") || i.address.includes("a/b"))).toBe(false);
    // The managed webhooks collection was not read again.
    expect(calls.some((c) => c.startsWith("/webhooks"))).toBe(false);
  });

  it("keys live triggers by their name, or by repo for vcs triggers", () => {
    expect(liveTriggerKey(trigger("t", "p", { type: "schedule", schedule: { name: "n" } }))).toBe(
      "n",
    );
    expect(liveTriggerKey(trigger("t", "p", { type: "webhook", webhook: { name: "w" } }))).toBe(
      "w",
    );
    expect(
      liveTriggerKey(
        trigger("t", "p", {
          type: "vcs",
          vcs: { provider: "github_app", repo_id: "1", repo_full_name: "acme/api" },
        }),
      ),
    ).toBe("vcs:acme/api");
  });
});
