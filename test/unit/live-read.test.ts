import { describe, expect, it } from "vitest";
import type { Query, ReadOnlyApi } from "../../src/api/types.js";
import { Secret } from "../../src/core/secret.js";
import { OrgNotVisibleError } from "../../src/live/errors.js";
import { readLiveState } from "../../src/live/read-live-state.js";
import type {
  DesiredConfig,
  DesiredContext,
  DesiredOrg,
  DesiredPipeline,
  DesiredProject,
} from "../../src/model/desired.js";
import type { LiveProject } from "../../src/model/live.js";
import { runPlanWith } from "../../src/run/plan-run.js";
import { fakeListV3 } from "../helpers/fake-list.js";

const source = { file: "waybill.yaml", line: 1, col: 1 };
const ORG = "0a000000-0000-4000-8000-000000000001";
const API = "0b000000-0000-4000-8000-000000000001";
const WEB = "0b000000-0000-4000-8000-000000000002";
const OTHER = "0b000000-0000-4000-8000-000000000003";
const CTX_PROD = "0c000000-0000-4000-8000-000000000001";
const CTX_OLD = "0c000000-0000-4000-8000-000000000002";
const CTX_LEGACY = "0c000000-0000-4000-8000-000000000003";

class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

const key = (path: string, query?: Query): string => {
  const q = Object.entries(query ?? {})
    .filter(([, v]) => v !== undefined)
    .map(([k, v]) => `${k}=${String(v)}`)
    .sort()
    .join("&");
  return q ? `${path}?${q}` : path;
};

/** A recording fake of the read-only client over canned answers (no HTTP: pure reader logic). */
const fakeApi = (routes: Record<string, unknown>) => {
  const calls: string[] = [];
  const answer = (k: string): unknown => {
    calls.push(k);
    if (!(k in routes)) throw new HttpError(404, `GET ${k} failed with 404`);
    const v = routes[k];
    if (v instanceof HttpError) throw v;
    return v;
  };
  const api: ReadOnlyApi = {
    get: async <T>(gen: string, path: string, query?: Query): Promise<T> =>
      answer(`${gen}:${key(path, query)}`) as T,
    // Canned lists are one last page, handed to onPage as the real client does.
    listV3: fakeListV3((path, query) => answer(`v3:${key(path, query)}`)),
    listV2: async <T>(path: string, query?: Query) => answer(`v2:${key(path, query)}`) as T[],
  };
  return { api, calls };
};

const env = (name: string, value: string) => ({ name, value: new Secret(value), source });
const ctx = (name: string, extra: Partial<DesiredContext> = {}): DesiredContext => ({
  name,
  source,
  ...extra,
});
const project = (slug: string, extra: Partial<DesiredProject> = {}): DesiredProject => ({
  slug,
  source,
  ...extra,
});
const pipeline = (name: string): DesiredPipeline => ({
  name,
  source,
  config: { type: "hosted", file_path: ".circleci/config.yml" },
});
const config = (org: Partial<DesiredOrg>): DesiredConfig => ({
  files: ["waybill.yaml"],
  orgs: [{ slug: "gh/acme", source, projects: new Map(), ignore: [], ...org }],
});

const baseRoutes: Record<string, unknown> = {
  "v3:/orgs?filter[slug]=gh/acme": [{ id: ORG, attributes: { slug: "gh/acme" } }],
};

describe("readLiveState", () => {
  it("reads only the org when nothing else is declared", async () => {
    const { api, calls } = fakeApi(baseRoutes);
    const live = await readLiveState(api, config({}));
    expect(calls).toEqual(["v3:/orgs?filter[slug]=gh/acme"]);
    expect(live.orgs[0]).toMatchObject({ id: ORG, slug: "gh/acme" });
    expect(live.orgs[0]?.contexts).toBeUndefined();
  });

  it("fails with 'absent or not visible' for an unknown org", async () => {
    const { api } = fakeApi({ "v3:/orgs?filter[slug]=gh/acme": [] });
    await expect(readLiveState(api, config({}))).rejects.toThrow(OrgNotVisibleError);
    await expect(readLiveState(api, config({}))).rejects.toThrow(/absent or not visible/);
  });

  it("reads contexts, env of declared and undeclared ones, restrictions, resolving keys", async () => {
    const { api, calls } = fakeApi({
      ...baseRoutes,
      [`v3:/contexts?filter[org_id]=${ORG}`]: [
        { id: CTX_PROD, attributes: { name: "prod" } },
        { id: CTX_OLD, attributes: { name: "old" } },
        { id: CTX_LEGACY, attributes: { name: "legacy-1" } },
      ],
      [`v3:/contexts/${CTX_PROD}/env-vars`]: [
        { attributes: { name: "A", truncated_value: "1234" } },
      ],
      [`v3:/contexts/${CTX_OLD}/env-vars`]: [
        { attributes: { name: "X", truncated_value: "aaaa" } },
        { attributes: { name: "Y", truncated_value: "bbbb" } },
      ],
      [`v3:/context-restrictions?filter[context_id]=${CTX_PROD}`]: [
        { id: "r1", attributes: { restriction_type: "project", match_pattern: API } },
        { id: "r2", attributes: { restriction_type: "project", match_pattern: OTHER } },
        { id: "r3", attributes: { restriction_type: "group", match_pattern: ORG } },
        { id: "r4", attributes: { restriction_type: "expression", match_pattern: "x == 1" } },
      ],
      "v3:/projects?filter[slug]=gh/acme/api": [{ id: API, attributes: { slug: "gh/acme/api" } }],
      [`v3:/projects/${OTHER}`]: { data: { id: OTHER, attributes: { slug: "gh/acme/other" } } },
      // Declared contexts: the org settings are read for is_context_group_restriction_required.
      [`v3:/orgs/${ORG}/settings`]: { data: { attributes: {} } },
    });
    const live = await readLiveState(
      api,
      config({
        ignore: ['context["legacy-*"]'],
        contexts: new Map([
          [
            "prod",
            ctx("prod", {
              env: new Map([["A", env("A", "xx1234")]]),
              restrictions: [{ type: "project", project: "gh/acme/api", source }],
            }),
          ],
        ]),
      }),
    );
    const contexts = live.orgs[0]?.contexts ?? [];
    expect(contexts.map((c) => c.name)).toEqual(["prod", "old", "legacy-1"]);
    expect(contexts[0]?.env).toEqual([{ name: "A", truncated_value: "1234" }]);
    expect(contexts[0]?.restrictions?.map((r) => r.key_value)).toEqual([
      "gh/acme/api",
      "gh/acme/other",
      "all-members",
      "x == 1",
    ]);
    // The undeclared context is deleted by the plan: its secrets are counted.
    expect(contexts[1]?.env).toHaveLength(2);
    expect(contexts[1]?.restrictions).toBeUndefined();
    // The ignored one is not read beyond its listing.
    expect(contexts[2]?.env).toBeUndefined();
    expect(calls).not.toContain(`v3:/contexts/${CTX_LEGACY}/env-vars`);
    expect(live.orgs[0]?.projectIds?.get("gh/acme/api")).toBe(API);
    // No read is repeated.
    expect(new Set(calls).size).toBe(calls.length);
  });

  it("reads a declared project's declared collections and falls back to V2 env values", async () => {
    const { api, calls } = fakeApi({
      ...baseRoutes,
      "v3:/projects?filter[slug]=gh/acme/api": [{ id: API, attributes: { slug: "gh/acme/api" } }],
      [`v3:/projects/${API}/environment-variables`]: [{ attributes: { name: "NPM_TOKEN" } }],
      "v2:/project/gh/acme/api/envvar": [{ name: "NPM_TOKEN", value: "xxxxwxyz" }],
      [`v3:/webhooks?filter[project_id]=${API}`]: [
        {
          id: "w1",
          attributes: {
            name: "slack",
            scope: "project",
            url: "https://h.example.com",
            events: ["workflow-completed"],
            should_verify_tls: true,
            has_signing_secret: false,
            is_enabled: true,
          },
        },
      ],
    });
    const live = await readLiveState(
      api,
      config({
        projects: new Map([
          ["gh/acme/api", project("gh/acme/api", { env: new Map(), webhooks: new Map() })],
        ]),
      }),
    );
    const p = live.orgs[0]?.projects.get("gh/acme/api") as LiveProject;
    expect(p.status).toBe("found");
    expect(p.env).toEqual([{ name: "NPM_TOKEN", truncated_value: "wxyz" }]);
    expect(p.webhooks?.[0]).toMatchObject({ id: "w1", name: "slack" });
    expect(p.settings).toBeUndefined();
    expect(p.pipelines).toBeUndefined();
    expect(calls.some((c) => c.includes("/pipelines"))).toBe(false);
  });

  it("reports a project that is missing or forbidden as not visible", async () => {
    const { api } = fakeApi({
      ...baseRoutes,
      "v3:/projects?filter[slug]=gh/acme/gone": [],
      "v3:/projects?filter[slug]=gh/acme/web": [{ id: WEB, attributes: { slug: "gh/acme/web" } }],
      [`v3:/webhooks?filter[project_id]=${WEB}`]: new HttpError(403, "forbidden"),
    });
    const live = await readLiveState(
      api,
      config({
        projects: new Map([
          ["gh/acme/gone", project("gh/acme/gone", { webhooks: new Map() })],
          ["gh/acme/web", project("gh/acme/web", { webhooks: new Map() })],
        ]),
      }),
    );
    const gone = live.orgs[0]?.projects.get("gh/acme/gone");
    const web = live.orgs[0]?.projects.get("gh/acme/web");
    expect(gone).toMatchObject({ status: "not_visible" });
    expect(gone && "reason" in gone ? gone.reason : "").toMatch(/returned no project/);
    expect(web).toMatchObject({ status: "not_visible" });
    expect(web && "reason" in web ? web.reason : "").toMatch(/403/);
  });

  it("lists the org's projects once when many are declared", async () => {
    const slugs = Array.from({ length: 12 }, (_, i) => `gh/acme/p${i}`);
    const { api, calls } = fakeApi({
      ...baseRoutes,
      [`v3:/projects?filter[org_id]=${ORG}`]: slugs.slice(0, 11).map((slug, i) => ({
        id: `0d000000-0000-4000-8000-0000000000${10 + i}`,
        attributes: { slug },
      })),
    });
    const live = await readLiveState(
      api,
      config({ projects: new Map(slugs.map((s) => [s, project(s)])) }),
    );
    expect(calls.filter((c) => c.startsWith("v3:/projects"))).toHaveLength(1);
    expect(live.orgs[0]?.projects.get("gh/acme/p0")).toMatchObject({ status: "found" });
    expect(live.orgs[0]?.projects.get("gh/acme/p11")).toMatchObject({ status: "not_visible" });
  });

  it("reads nothing of a declared project that ignore excludes", async () => {
    const { api, calls } = fakeApi(baseRoutes);
    const live = await readLiveState(
      api,
      config({
        ignore: ['project["gh/acme/old"]'],
        projects: new Map([["gh/acme/old", project("gh/acme/old", { webhooks: new Map() })]]),
      }),
    );
    expect(calls).toEqual(["v3:/orgs?filter[slug]=gh/acme"]);
    expect(live.orgs[0]?.projects.has("gh/acme/old")).toBe(false);
  });

  it("reads each org once, merging declarations of the same org from several files", async () => {
    const OTHER_ORG = "0a000000-0000-4000-8000-000000000002";
    const { api, calls } = fakeApi({
      ...baseRoutes,
      "v3:/orgs?filter[slug]=gh/other": [{ id: OTHER_ORG, attributes: { slug: "gh/other" } }],
      [`v3:/orgs/${ORG}/settings`]: { data: { attributes: { enable_private_orbs: true } } },
      [`v3:/contexts?filter[org_id]=${ORG}`]: [],
    });
    const org = (extra: Partial<DesiredOrg>): DesiredOrg => ({
      slug: "gh/acme",
      source,
      projects: new Map(),
      ignore: [],
      ...extra,
    });
    const live = await readLiveState(api, {
      files: ["a.yaml", "b.yaml", "c.yaml"],
      orgs: [
        org({ settings: { enable_private_orbs: true, source } }),
        org({ contexts: new Map() }),
        org({ slug: "gh/other" }),
      ],
    });
    expect(live.orgs.map((o) => o.slug)).toEqual(["gh/acme", "gh/other"]);
    expect(live.orgs[0]?.settings).toEqual({ enable_private_orbs: true });
    expect(live.orgs[0]?.contexts).toEqual([]);
    expect(calls.filter((c) => c.startsWith("v3:/orgs?"))).toHaveLength(2);
  });

  it("reports progress as reads start and end", async () => {
    const { api } = fakeApi(baseRoutes);
    const seen: [number, number][] = [];
    await readLiveState(api, config({}), { onProgress: (d, t) => seen.push([d, t]) });
    expect(seen).toEqual([
      [0, 1],
      [1, 1],
    ]);
  });
});

describe("runPlanWith", () => {
  const PIPE = "0e000000-0000-4000-8000-000000000001";
  const SYN = "0e000000-0000-4000-8000-000000000002";
  const routes = {
    ...baseRoutes,
    "v3:/projects?filter[slug]=gh/acme/api": [{ id: API, attributes: { slug: "gh/acme/api" } }],
    [`v3:/pipelines?filter[project_id]=${API}`]: [
      { id: PIPE, attributes: { name: "build", config: { type: "vcs", file_path: "a" } } },
      { id: SYN, attributes: { name: "oauth", config: { type: "vcs", file_path: "b" } } },
    ],
    [`v3:/triggers?filter[project_id]=${API}`]: [
      {
        id: "t1",
        attributes: { is_disabled: false, event: { type: "vcs" } },
        references: { pipeline: { id: SYN } },
      },
    ],
    [`v3:/pipelines/${PIPE}`]: { data: { id: PIPE } },
    // SYN answers 404 without filter[project_id]: it is the synthetic pipeline.
  };
  const desired = config({
    projects: new Map([["gh/acme/api", project("gh/acme/api", { pipelines: new Map() })]]),
  });
  // Both pipelines declared by name: the reader probes neither.
  const declaredBoth = config({
    projects: new Map([
      [
        "gh/acme/api",
        project("gh/acme/api", {
          pipelines: new Map([
            ["build", pipeline("build")],
            ["oauth", pipeline("oauth")],
          ]),
        }),
      ],
    ]),
  });

  it("the reader probes the undeclared pipelines (a plan deletes them): the first plan sees them marked", async () => {
    const { api, calls } = fakeApi(routes);
    const lives: boolean[][] = [];
    const { plan, live } = await runPlanWith(api, desired, (l) => {
      const p = l.orgs[0]?.projects.get("gh/acme/api") as LiveProject;
      lives.push((p.pipelines ?? []).map((x) => x.synthetic));
      // A toy planner: delete every non-synthetic pipeline (pipelines: {} is authoritative).
      return {
        changes: (p.pipelines ?? [])
          .filter((x) => !x.synthetic)
          .map((x) => ({
            address: `project["gh/acme/api"].pipeline["${x.name}"]`,
            resource_type: "pipeline",
            action: "delete",
          })),
      };
    });
    // Issue 22: one plan, not a plan, a round of probes and a second plan.
    expect(lives).toEqual([[false, true]]);
    expect(plan.changes.map((c) => c.address)).toEqual([
      'project["gh/acme/api"].pipeline["build"]',
    ]);
    const p = live.orgs[0]?.projects.get("gh/acme/api") as LiveProject;
    expect(p.triggers?.[0]?.synthetic).toBe(true);
    // Each probed once.
    expect(calls.filter((c) => /\/pipelines\/[0-9a-f-]+$/.test(c)).sort()).toEqual(
      [`v3:/pipelines/${PIPE}`, `v3:/pipelines/${SYN}`].sort(),
    );
  });

  it("probes a declared pipeline only when the plan touches it, and re-plans with it marked", async () => {
    const { api, calls } = fakeApi(routes);
    const lives: boolean[][] = [];
    await runPlanWith(api, declaredBoth, (l) => {
      const p = l.orgs[0]?.projects.get("gh/acme/api") as LiveProject;
      lives.push((p.pipelines ?? []).map((x) => x.synthetic));
      // A toy planner: update "oauth" until it is known to be synthetic.
      return {
        changes: (p.pipelines ?? [])
          .filter((x) => x.name === "oauth" && !x.synthetic)
          .map((x) => ({
            address: `project["gh/acme/api"].pipeline["${x.name}"]`,
            resource_type: "pipeline",
            action: "update",
            id: x.id,
          })),
      };
    });
    expect(lives).toEqual([
      [false, false],
      [false, true],
    ]);
    expect(calls.filter((c) => /\/pipelines\/[0-9a-f-]+$/.test(c))).toEqual([
      `v3:/pipelines/${SYN}`,
    ]);
  });

  it("probes nothing when no pipeline is undeclared and the plan leaves pipelines alone", async () => {
    const { api, calls } = fakeApi(routes);
    await runPlanWith(api, declaredBoth, () => ({ changes: [] }));
    expect(calls.some((c) => /\/pipelines\/[0-9a-f-]+$/.test(c))).toBe(false);
  });
});
