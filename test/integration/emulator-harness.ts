/**
 * Test harness for the emulator's own tests: a seeded emulator on 127.0.0.1 and plain
 * `fetch` calls (never src/api/client: the emulator is tested as the service, from outside).
 */

import {
  type EmulatorOptions,
  type RunningEmulator,
  startEmulator,
} from "../../emulator/src/index.js";
import type { Seed } from "../../emulator/src/seed.js";
import type { V3ErrorBody } from "../../src/core/wire.js";

export const TOKEN = "emu-test-token-rw-5e1d";
export const RO_TOKEN = "emu-test-token-ro-77aa";

const id = (n: number): string => `00000000-0000-4000-8000-${n.toString().padStart(12, "0")}`;
export const ORG = id(1);
export const ORG_NO_DEFAULT = id(2);
export const GROUP = id(3);
export const P_API = id(10);
export const P_WEB = id(11);
export const P_OAUTH = id(12);
export const P_OTHER = id(13);
export const CTX_PROD = id(20);
export const CTX_STAGING = id(21);
export const CTX_LEGACY = id(22);
export const HOOK = id(30);
export const PIPE = id(40);
export const TR_VCS = id(50);
export const TR_SCHED = id(51);
export const TR_HOOK = id(52);
export const MISSING = id(999);

const repo = { provider: "github_app", repo_id: "123", repo_full_name: "acme/api" };

/** A small org with one of everything, plus a second org whose contexts get no default restriction. */
export const baseSeed = (): Seed => ({
  tokens: [{ token: TOKEN }, { token: RO_TOKEN, read_only: true }],
  orgs: [
    {
      id: ORG,
      slug: "gh/acme",
      name: "Acme",
      settings: { enable_private_orbs: true },
      groups: [{ id: GROUP, name: "platform" }],
      contexts: [
        {
          id: CTX_PROD,
          name: "deploy-prod",
          env: { AWS_REGION: "eu-west-1", AWS_SECRET: "super-secret-9876" },
          restrictions: [
            { restriction_type: "project", match_pattern: P_API },
            { restriction_type: "expression", match_pattern: 'pipeline.git.branch == "main"' },
            { restriction_type: "group", match_pattern: GROUP },
            { restriction_type: "group", match_pattern: ORG },
          ],
        },
        {
          id: CTX_STAGING,
          name: "deploy-staging",
          restrictions: [{ restriction_type: "project", match_pattern: P_API }],
        },
        { id: CTX_LEGACY, name: "Legacy-NPM" },
      ],
      projects: [
        {
          id: P_API,
          slug: "api",
          name: "API",
          repo,
          last_active_at: "2026-01-01T00:00:00.000Z",
          env: { NPM_TOKEN: "npm-token-abcd" },
          webhooks: [
            {
              id: HOOK,
              name: "slack",
              url: "https://hooks.example.com/x",
              events: ["workflow-completed"],
              signing_secret: "signing-1111",
            },
          ],
          pipelines: [
            {
              id: PIPE,
              name: "build",
              config: { type: "vcs", file_path: ".service/config.yml", vcs: repo },
              checkout: { vcs: repo },
              triggers: [
                { id: TR_VCS, event: { type: "vcs", vcs: repo, filter: { preset: "all-pushes" } } },
                {
                  id: TR_SCHED,
                  event: {
                    type: "schedule",
                    schedule: { name: "nightly", cron_expression: "0 2 * * *" },
                  },
                  parameters: { deploy: false },
                },
                {
                  id: TR_HOOK,
                  event: { type: "webhook", webhook: { name: "hook", secret: "trigger-secret-1" } },
                },
              ],
            },
          ],
        },
        {
          id: P_WEB,
          slug: "web",
          name: "Web",
          is_followed: false,
          last_active_at: "2026-06-01T00:00:00.000Z",
        },
        { id: P_OAUTH, slug: "legacy", name: "legacy", oauth: true },
      ],
    },
    {
      id: ORG_NO_DEFAULT,
      slug: "gh/other",
      default_context_restriction: false,
      projects: [{ id: P_OTHER, slug: "gh/other/x", name: "x" }],
    },
  ],
});

export interface Res {
  readonly status: number;
  readonly headers: Headers;
  readonly text: string;
  readonly body: unknown;
}

export interface Item {
  readonly id?: string;
  readonly attributes: Record<string, unknown>;
  readonly references?: Record<string, unknown>;
}

export const list = (r: Res): Item[] => (r.body as { data: Item[] }).data;
export const one = (r: Res): Item => (r.body as { data: Item }).data;
export const pageOf = (r: Res) =>
  (r.body as { page: { next: string | null; prev: string | null } }).page;
export const errorOf = (r: Res) => (r.body as V3ErrorBody).error;

export interface CallOptions {
  /** Bearer token (V3) or Service-Token (V2); `null` sends none. Default TOKEN. */
  readonly token?: string | null;
  readonly headers?: Record<string, string>;
  /** A raw body, sent as is (for malformed JSON). */
  readonly raw?: string;
  /** Give up on the request (a client timeout). */
  readonly signal?: AbortSignal;
}

export interface TestEmu {
  readonly url: string;
  readonly emu: RunningEmulator;
  call(method: string, path: string, opts?: CallOptions & { body?: unknown }): Promise<Res>;
  get(path: string, opts?: CallOptions): Promise<Res>;
  post(path: string, body?: unknown, opts?: CallOptions): Promise<Res>;
  del(path: string, opts?: CallOptions): Promise<Res>;
  /** The admin API (enabled in every harness emulator). */
  admin(method: string, path: string, body?: unknown): Promise<Res>;
  state(): Promise<Seed>;
  close(): Promise<void>;
}

const toRes = async (r: Response): Promise<Res> => {
  const text = await r.text();
  let body: unknown;
  try {
    body = text === "" ? undefined : JSON.parse(text);
  } catch {
    body = undefined;
  }
  return { status: r.status, headers: r.headers, text, body };
};

export const startTestEmu = async (
  seed: Seed = baseSeed(),
  opts: Omit<EmulatorOptions, "seed" | "admin"> = {},
): Promise<TestEmu> => {
  // The emulator's own tests check the spec's full shapes unless a test asks for the sparse
  // ones (docs/emulator.md "Shapes").
  const emu = await startEmulator({ shapes: "full", ...opts, seed, admin: true });
  const call = async (
    method: string,
    path: string,
    o: CallOptions & { body?: unknown } = {},
  ): Promise<Res> => {
    const token = o.token === undefined ? TOKEN : o.token;
    const headers: Record<string, string> = { ...o.headers };
    if (token !== null) {
      if (path.startsWith("/api/v2/")) headers["Service-Token"] = token;
      else headers.Authorization = `Bearer ${token}`;
    }
    const payload = o.raw ?? (o.body === undefined ? undefined : JSON.stringify(o.body));
    if (payload !== undefined) headers["Content-Type"] = "application/json";
    return toRes(
      await fetch(`${emu.url}${path}`, {
        method,
        headers,
        ...(payload !== undefined ? { body: payload } : {}),
        ...(o.signal ? { signal: o.signal } : {}),
      }),
    );
  };
  const admin = async (method: string, path: string, body?: unknown): Promise<Res> =>
    toRes(
      await fetch(`${emu.url}/__admin/${path}`, {
        method,
        ...(body !== undefined
          ? { body: JSON.stringify(body), headers: { "Content-Type": "application/json" } }
          : {}),
      }),
    );
  return {
    url: emu.url,
    emu,
    call,
    get: (path, o) => call("GET", path, o),
    post: (path, body, o) => call("POST", path, { ...o, body }),
    del: (path, o) => call("DELETE", path, o),
    admin,
    state: async () => (await admin("GET", "state")).body as Seed,
    close: () => emu.close(),
  };
};

/** Every item of a V3 collection, following `page.next` (with the same query). */
export const collectAll = async (
  t: TestEmu,
  path: string,
  limit?: number,
): Promise<{ items: Item[]; pages: number }> => {
  const items: Item[] = [];
  let cursor: string | null = null;
  let pages = 0;
  const sep = path.includes("?") ? "&" : "?";
  do {
    const q: string[] = [];
    if (limit !== undefined) q.push(`page[limit]=${limit}`);
    if (cursor !== null) q.push(`page[cursor]=${encodeURIComponent(cursor)}`);
    const r = await t.get(q.length > 0 ? `${path}${sep}${q.join("&")}` : path);
    if (r.status !== 200) throw new Error(`GET ${path} → ${r.status} ${r.text}`);
    items.push(...list(r));
    cursor = pageOf(r).next;
    pages += 1;
  } while (cursor !== null && pages < 100);
  return { items, pages };
};
