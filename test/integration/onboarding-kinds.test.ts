/**
 * Issue 18: checkout keys and OTLP exporters, planned, applied, drifted and exported
 * against the emulator over loopback; legacy V2 schedules in drift.
 * - checkout keys: identity is the type, and a live `github-user-key` is the declared
 *   `user-key` (spec: api-v2-v1.md "Checkout key": `deploy-key` or a `<vcs>-user-key`), so a
 *   plan right after apply is empty; a new key's fingerprint and public key are printed; a
 *   refused type is said clearly (spec: POST "needs a user token; not for some app-based
 *   providers"); a delete sends the sha256 fingerprint URL-encoded.
 * - exporters: header values never appear in any output or plan file, at `--verbose` and
 *   `WAYBILL_DEBUG` too; they are re-set with `--force-secrets` (a replace: no update route);
 *   the 5-per-org limit is checked offline, before any call.
 */
import { readFile } from "node:fs/promises";
import { describe, expect, it } from "vitest";
import type { Seed } from "../../emulator/src/seed.js";
import { TEST_TOKEN } from "../helpers/emulator.js";
import { useEmulatorSuite } from "../helpers/emulator-suite.js";
import { runInProcess } from "../helpers/in-process.js";

const ORG = "gh/acme";
const HEADER_VALUE = "hny-team-key-SECRET-91f3c2";
const NEW_HEADER_VALUE = "hny-team-key-ROTATED-5d77a0";

const seed = (extra: { exporters?: number; keys?: boolean; userToken?: boolean } = {}): Seed => ({
  tokens: [{ token: TEST_TOKEN, ...(extra.userToken === false ? { user: false } : {}) }],
  orgs: [
    {
      slug: ORG,
      projects: [
        {
          slug: `${ORG}/api`,
          schedules: [{ name: "nightly-legacy" }],
          ...(extra.keys
            ? {
                checkout_keys: [{ type: "deploy-key" as const }, { type: "user-key" as const }],
              }
            : {}),
        },
        { slug: `${ORG}/web` },
      ],
      otel_exporters: Array.from({ length: extra.exporters ?? 0 }, (_, i) => ({
        endpoint: `collector-${i}.example.com:4317`,
        protocol: "grpc" as const,
        headers: { "x-api-key": `seeded-header-value-${i}` },
      })),
    },
    // An app-based provider's project (spec: checkout keys are "not for some app-based providers").
    { slug: "circleci/6f1d", projects: [{ slug: "circleci/6f1d/app" }] },
  ],
});

const keysConfig = (types: string) => `org: ${ORG}
projects:
  ${ORG}/api:
    checkout_keys: [${types}]
`;

const exporterConfig = (opts: { insecure?: boolean; extra?: number } = {}) => `org: ${ORG}
otel_exporters:
  - endpoint: api.honeycomb.io:443
    protocol: grpc${opts.insecure ? "\n    insecure: true" : ""}
    headers:
      x-honeycomb-team: \${env:HONEYCOMB_KEY}
${Array.from(
  { length: opts.extra ?? 0 },
  (_, i) => `  - endpoint: collector-${i}.example.com:4317
    protocol: grpc
    headers:
      x-api-key: \${env:HONEYCOMB_KEY}
`,
).join("")}`;

describe("checkout keys", () => {
  const suite = useEmulatorSuite(() => seed(), {
    both: { name: "both.yaml", content: keysConfig("deploy-key, user-key") },
    deployOnly: { name: "deploy.yaml", content: keysConfig("deploy-key") },
    none: { name: "none.yaml", content: keysConfig("") },
    app: {
      name: "app.yaml",
      content:
        "org: circleci/6f1d\nprojects:\n  circleci/6f1d/app:\n    checkout_keys: [deploy-key]\n",
    },
  });
  const env = () => ({ SERVICE_BASE_URL: suite.emulator.url, SERVICE_TOKEN: suite.emulator.token });
  const keysOf = async (slug = `${ORG}/api`) =>
    (await suite.emulator.state()).orgs
      ?.flatMap((o) => o.projects ?? [])
      .find((p) => p.slug === slug)?.checkout_keys ?? [];

  it("creates a deploy key and a user key, prints each fingerprint and public key, and the next plan is empty", async () => {
    const plan = await runInProcess(["plan", "-c", suite.files.both, "--format", "json"], env());
    expect(plan.code, plan.stderr).toBe(0);
    const changes = (
      JSON.parse(plan.stdout) as {
        changes: { address: string; resource_type: string; action: string }[];
      }
    ).changes;
    expect(changes.map((c) => [c.address, c.resource_type, c.action])).toEqual([
      [`project["${ORG}/api"].checkout_key["deploy-key"]`, "checkout_key", "create"],
      [`project["${ORG}/api"].checkout_key["user-key"]`, "checkout_key", "create"],
    ]);
    const r = await runInProcess(["apply", "-c", suite.files.both, "--auto-approve"], env());
    expect(r.code, r.stderr + r.stdout).toBe(0);
    const out = r.stdout + r.stderr;
    expect(out).toMatch(
      /deploy-key fingerprint ([0-9a-f]{2}:){15}[0-9a-f]{2}, public key ssh-ed25519 AAAA/,
    );
    expect(out).toMatch(
      /github-user-key fingerprint ([0-9a-f]{2}:){15}[0-9a-f]{2}, public key ssh-ed25519 AAAA/,
    );
    expect(out).not.toMatch(/PRIVATE KEY|private_seed/);
    // The service answers a user key's type as `<vcs>-user-key`: still the declared user-key.
    expect((await keysOf()).map((k) => k.type).sort()).toEqual(["deploy-key", "user-key"]);
    const again = await runInProcess(
      ["plan", "-c", suite.files.both, "--detailed-exitcode"],
      env(),
    );
    expect(again.code, again.stdout).toBe(0);
  });

  it("deletes a key the list leaves out, by its sha256 fingerprint URL-encoded", async () => {
    await suite.emulator.reset(seed({ keys: true }));
    const r = await runInProcess(["apply", "-c", suite.files.deployOnly, "--auto-approve"], env());
    expect(r.code, r.stderr + r.stdout).toBe(0);
    expect((await keysOf()).map((k) => k.type)).toEqual(["deploy-key"]);
    const deletes = (await suite.emulator.requests()).filter(
      (q) => q.method === "DELETE" && q.path.startsWith("/api/v2/"),
    );
    expect(deletes.map((q) => q.path)).toEqual([
      expect.stringMatching(/^\/api\/v2\/project\/gh%2Facme%2Fapi\/checkout-key\/SHA256%3A[^/]+$/),
    ]);
    const again = await runInProcess(
      ["plan", "-c", suite.files.deployOnly, "--detailed-exitcode"],
      env(),
    );
    expect(again.code, again.stdout).toBe(0);
    // `[]` is authoritative: none.
    const none = await runInProcess(["apply", "-c", suite.files.none, "--auto-approve"], env());
    expect(none.code, none.stderr).toBe(0);
    expect(await keysOf()).toEqual([]);
  });

  it("says clearly when the service refuses a user key (not a user token); the deploy key is still made", async () => {
    await suite.emulator.reset(seed({ userToken: false }));
    const r = await runInProcess(["apply", "-c", suite.files.both, "--auto-approve"], env());
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(
      /checkout_key\["user-key"\]: POST \S+ failed with 403: a user key needs a user token\. The service refused a user-key checkout key\. A user key needs a user token/,
    );
    expect((await keysOf()).map((k) => k.type)).toEqual(["deploy-key"]);
  });

  it("says clearly when the project's provider has no checkout keys (app-based)", async () => {
    const r = await runInProcess(["apply", "-c", suite.files.app, "--auto-approve"], env());
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(
      /failed with 400: project circleci\/6f1d\/app is on an app-based provider.*Some app-based providers have no checkout keys/,
    );
    expect(await keysOf("circleci/6f1d/app")).toEqual([]);
  });

  it("an uncertain create (committed, then a 500) is adopted, not duplicated, and announced", async () => {
    await suite.emulator.script([
      { method: "POST", path: "/api/v2/project/*/checkout-key", commit: true, status: 500 },
    ]);
    const r = await runInProcess(["apply", "-c", suite.files.deployOnly, "--auto-approve"], env());
    expect(r.code, r.stderr + r.stdout).toBe(0);
    expect(r.stdout + r.stderr).toMatch(/adopted/);
    expect(r.stdout + r.stderr).toMatch(/deploy-key fingerprint SHA256:/);
    expect((await keysOf()).map((k) => k.type)).toEqual(["deploy-key"]);
    const posts = (await suite.emulator.requests()).filter(
      (q) => q.method === "POST" && q.path.startsWith("/api/v2/"),
    );
    expect(posts).toHaveLength(1);
  });
});

describe("OTLP exporters", () => {
  const suite = useEmulatorSuite(() => seed(), {
    one: { name: "one.yaml", content: exporterConfig() },
    insecure: { name: "insecure.yaml", content: exporterConfig({ insecure: true }) },
    six: { name: "six.yaml", content: exporterConfig({ extra: 5 }) },
    five: { name: "five.yaml", content: exporterConfig({ extra: 4 }) },
  });
  const env = (value = HEADER_VALUE) => ({
    SERVICE_BASE_URL: suite.emulator.url,
    SERVICE_TOKEN: suite.emulator.token,
    HONEYCOMB_KEY: value,
  });
  const exporters = async () => (await suite.emulator.state()).orgs?.[0]?.otel_exporters ?? [];

  it("creates one, never shows a header value (any output, plan file, --verbose, WAYBILL_DEBUG), and the next plan is empty", async () => {
    const debug = { ...env(), WAYBILL_DEBUG: "1" };
    const outputs: string[] = [];
    const planFile = suite.tmp.path("exporter.plan");
    for (const format of ["text", "json", "markdown"]) {
      const p = await runInProcess(
        ["plan", "-c", suite.files.one, "--verbose", "--format", format],
        debug,
        { secrets: [HEADER_VALUE] },
      );
      expect(p.code, p.stderr).toBe(0);
      outputs.push(p.stdout, p.stderr);
    }
    const saved = await runInProcess(["plan", "-c", suite.files.one, "--out", planFile], debug);
    expect(saved.code, saved.stderr).toBe(0);
    const r = await runInProcess(
      ["apply", planFile, "-c", suite.files.one, "--verbose", "--format", "json"],
      debug,
    );
    expect(r.code, r.stderr + r.stdout).toBe(0);
    outputs.push(saved.stdout, saved.stderr, r.stdout, r.stderr, await readFile(planFile, "utf8"));
    expect(outputs.join("\n")).toContain('otel_exporter[\\"grpc:api.honeycomb.io:443\\"]');
    for (const text of outputs) expect(text).not.toContain(HEADER_VALUE);
    const live = await exporters();
    expect(live.map((e) => [e.endpoint, e.protocol, e.headers])).toEqual([
      ["api.honeycomb.io:443", "grpc", { "x-honeycomb-team": HEADER_VALUE }],
    ]);
    // A drift after apply shows nothing, and reads the exporters (their values never printed).
    const drift = await runInProcess(["drift", "-c", suite.files.one, "--verbose"], debug);
    expect(drift.code, drift.stdout + drift.stderr).toBe(0);
    expect(drift.stdout + drift.stderr).not.toContain(HEADER_VALUE);
    const again = await runInProcess(["plan", "-c", suite.files.one, "--detailed-exitcode"], env());
    expect(again.code, again.stdout).toBe(0);
    // A new value is not seen (values are never read back): unverified, no change.
    const rotated = await runInProcess(
      ["plan", "-c", suite.files.one, "--detailed-exitcode"],
      env(NEW_HEADER_VALUE),
    );
    expect(rotated.code, rotated.stdout).toBe(0);
  });

  it("a refusal that echoes a header value is printed without it", async () => {
    await suite.emulator.script([
      {
        method: "POST",
        path: "/api/v2/otel/exporters",
        status: 400,
        json: { message: `header x-honeycomb-team value ${HEADER_VALUE} is not accepted` },
      },
    ]);
    // runInProcess fails the test if the value (or an encoding of it) reaches any output.
    const r = await runInProcess(["apply", "-c", suite.files.one, "--auto-approve", "--verbose"], {
      ...env(),
      WAYBILL_DEBUG: "1",
    });
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/failed with 400: header x-honeycomb-team value \S+ is not accepted/);
  });

  it("--force-secrets re-sets the headers by a replace: the new one is created first, then the old one deleted", async () => {
    const first = await runInProcess(["apply", "-c", suite.files.one, "--auto-approve"], env());
    expect(first.code, first.stderr).toBe(0);
    const [old] = await exporters();
    await suite.emulator.clearRequests();
    const plan = await runInProcess(
      ["plan", "-c", suite.files.one, "--force-secrets", "--format", "json"],
      env(NEW_HEADER_VALUE),
    );
    const change = (
      JSON.parse(plan.stdout) as {
        changes: { action: string; replace_order?: string; reason: string }[];
      }
    ).changes[0];
    expect(change?.action).toBe("replace");
    expect(change?.replace_order).toBe("create_before_delete");
    expect(change?.reason).toMatch(/no update route/);
    const r = await runInProcess(
      ["apply", "-c", suite.files.one, "--force-secrets", "--auto-approve"],
      env(NEW_HEADER_VALUE),
    );
    expect(r.code, r.stderr + r.stdout).toBe(0);
    const writes = (await suite.emulator.requests()).filter(
      (q) => q.method !== "GET" && q.path.startsWith("/api/v2/"),
    );
    expect(writes.map((q) => `${q.method} ${q.path}`)).toEqual([
      "POST /api/v2/otel/exporters",
      `DELETE /api/v2/otel/exporters/${old?.id}`,
    ]);
    const now = await exporters();
    expect(now.map((e) => e.headers)).toEqual([{ "x-honeycomb-team": NEW_HEADER_VALUE }]);
    expect(now[0]?.id).not.toBe(old?.id);
  });

  it("a changed insecure flag is a replace; at the limit (5 live, 5 declared) the plan refuses it rather than delete first", async () => {
    await suite.emulator.reset({
      ...seed(),
      orgs: [
        {
          slug: ORG,
          otel_exporters: [
            {
              endpoint: "api.honeycomb.io:443",
              protocol: "grpc",
              headers: { "x-honeycomb-team": "v" },
            },
            ...Array.from({ length: 4 }, (_, i) => ({
              endpoint: `collector-${i}.example.com:4317`,
              protocol: "grpc" as const,
              headers: { "x-api-key": "v" },
            })),
          ],
        },
      ],
    });
    const atLimit = exporterConfig({ insecure: true, extra: 4 });
    const file = await suite.tmp.write("limit.yaml", atLimit);
    const r = await runInProcess(["plan", "-c", file], env());
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(
      /otel_exporter\["grpc:api\.honeycomb\.io:443"\].*the org has 5 exporters/s,
    );
    expect(r.stderr).toMatch(/never deletes first/);
    // Below the limit the same change is planned as a create-first replace.
    const below = await runInProcess(
      ["plan", "-c", suite.files.insecure, "--format", "json"],
      env(),
    );
    expect(below.code, below.stderr).toBe(0);
  });

  it("a replace whose create the service refuses (another exporter took the last slot) deletes nothing", async () => {
    const first = await runInProcess(["apply", "-c", suite.files.one, "--auto-approve"], env());
    expect(first.code, first.stderr).toBe(0);
    const [old] = await exporters();
    await suite.emulator.clearRequests();
    await suite.emulator.script([
      {
        method: "POST",
        path: "/api/v2/otel/exporters",
        status: 400,
        json: { message: "the organization already has 5 OTLP exporters, the maximum" },
      },
    ]);
    const r = await runInProcess(["apply", "-c", suite.files.insecure, "--auto-approve"], env());
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(
      /failed with 400: the organization already has 5 OTLP exporters, the maximum\. Nothing was deleted/,
    );
    expect(r.stdout).toMatch(/Skipped:\n {2}otel_exporter\["grpc:api\.honeycomb\.io:443"\]/);
    const writes = (await suite.emulator.requests()).filter(
      (q) => q.method !== "GET" && q.path.startsWith("/api/v2/"),
    );
    expect(writes.map((q) => q.method)).toEqual(["POST"]);
    expect((await exporters()).map((e) => e.id)).toEqual([old?.id]);
  });

  it("more than 5 in the config: a validation error at file:line:col, and no API call", async () => {
    const v = await runInProcess(["validate", "-c", suite.files.six], env());
    expect(v.code).toBe(1);
    expect(v.stdout + v.stderr).toMatch(/six\.yaml:\d+:\d+: .*6 OTLP exporters.*at most 5/);
    await suite.emulator.clearRequests();
    const p = await runInProcess(["plan", "-c", suite.files.six], env());
    expect(p.code).toBe(1);
    expect(p.stderr).toMatch(/too_many_otel_exporters|at most 5/);
    expect(await suite.emulator.requests()).toEqual([]);
    // Five is fine.
    const ok = await runInProcess(["validate", "-c", suite.files.five], env());
    expect(ok.code, ok.stdout + ok.stderr).toBe(0);
  });

  it("an uncertain create (committed, then the connection dropped) is adopted, not duplicated", async () => {
    await suite.emulator.script([
      { method: "POST", path: "/api/v2/otel/exporters", commit: true, status: 502 },
    ]);
    const r = await runInProcess(["apply", "-c", suite.files.one, "--auto-approve"], env());
    // A 502 may still be in flight on the service: the run stops without a re-send ...
    const posts = async () =>
      (await suite.emulator.requests()).filter(
        (q) => q.method === "POST" && q.path.startsWith("/api/v2/"),
      ).length;
    expect(await posts()).toBe(1);
    expect((await exporters()).length).toBe(1);
    if (r.code !== 0) expect(r.stderr).toMatch(/outcome unknown/);
    // ... and the next run adopts it: nothing to do, still one exporter.
    const again = await runInProcess(["plan", "-c", suite.files.one, "--detailed-exitcode"], env());
    expect(again.code, again.stdout).toBe(0);
    await suite.emulator.clearRequests();
    await suite.emulator.script([
      { method: "POST", path: "/api/v2/otel/exporters", commit: true, status: 500 },
    ]);
    const two = await runInProcess(["apply", "-c", suite.files.five, "--auto-approve"], env());
    expect(two.code, two.stderr + two.stdout).toBe(0);
    expect(two.stdout + two.stderr).toMatch(/adopted/);
    expect((await exporters()).length).toBe(5);
    expect(await posts()).toBe(4);
  });
});

describe("drift and export", () => {
  const suite = useEmulatorSuite(() => seed({ keys: true, exporters: 2 }), {
    bare: { name: "bare.yaml", content: `org: ${ORG}\nprojects:\n  ${ORG}/api:\n    env: {}\n` },
  });
  const env = () => ({ SERVICE_BASE_URL: suite.emulator.url, SERVICE_TOKEN: suite.emulator.token });

  it("drift lists legacy V2 schedules and undeclared checkout keys and exporters as unmanaged", async () => {
    const r = await runInProcess(["drift", "-c", suite.files.bare, "--format", "json"], env());
    expect(r.code, r.stderr).toBe(0);
    const doc = JSON.parse(r.stdout) as {
      unmanaged: { address: string; resource_type: string; why: string }[];
    };
    expect(doc.unmanaged).toEqual(
      expect.arrayContaining([
        {
          address: `project["${ORG}/api"].legacy_schedule["nightly-legacy"]`,
          resource_type: "legacy_schedule",
          why: "legacy",
        },
        {
          address: `project["${ORG}/api"].checkout_key["deploy-key"]`,
          resource_type: "checkout_key",
          why: "unmanaged",
        },
        {
          address: `project["${ORG}/api"].checkout_key["user-key"]`,
          resource_type: "checkout_key",
          why: "unmanaged",
        },
      ]),
    );
    // `ignore` may name one: it is then listed as ignored.
    const ignored = await suite.tmp.write(
      "ignored.yaml",
      `org: ${ORG}\nprojects:\n  ${ORG}/api:\n    env: {}\nignore:\n  - project["${ORG}/api"].legacy_schedule["nightly-*"]\n`,
    );
    const quiet = await runInProcess(["drift", "-c", ignored, "--format", "json"], env());
    expect(quiet.code, quiet.stderr).toBe(0);
    expect((JSON.parse(quiet.stdout) as typeof doc).unmanaged).toContainEqual({
      address: `project["${ORG}/api"].legacy_schedule["nightly-legacy"]`,
      resource_type: "legacy_schedule",
      why: "ignored",
    });
    // A 404 on the schedule listing of a project the V3 listing shows is never "no
    // schedules": drift says the list was not read (information; other errors fail).
    const notFound = {
      method: "GET",
      path: "/api/v2/project/*/schedule",
      status: 404,
      json: { message: "Not found" },
    };
    await suite.emulator.script([notFound]);
    const unread = await runInProcess(["drift", "-c", suite.files.bare, "--format", "json"], env());
    expect(unread.code, unread.stderr).toBe(0);
    const unreadDoc = JSON.parse(unread.stdout) as typeof doc;
    const legacyLines = unreadDoc.unmanaged.filter((u) => u.resource_type === "legacy_schedule");
    expect(legacyLines).toEqual([
      {
        address: `project["${ORG}/api"].legacy_schedule["*"]`,
        resource_type: "legacy_schedule",
        why: "not_read",
        reason: `GET /api/v2/project/${ORG}/api/schedule answered 404`,
      },
    ]);
    await suite.emulator.script([notFound]);
    const unreadText = await runInProcess(["drift", "-c", suite.files.bare], env());
    expect(unreadText.code, unreadText.stderr).toBe(0);
    expect(unreadText.stdout).toContain(
      `project["${ORG}/api"].legacy_schedule["*"] (not read: GET /api/v2/project/${ORG}/api/schedule answered 404; whether legacy V2 schedules still run here is unknown)`,
    );
    await suite.emulator.script([
      { method: "GET", path: "/api/v2/project/*/schedule", status: 400, json: { message: "bad" } },
    ]);
    const bad = await runInProcess(["drift", "-c", suite.files.bare], env());
    expect(bad.code).toBe(1);
    const text = await runInProcess(["drift", "-c", suite.files.bare], env());
    expect(text.stdout).toMatch(
      /legacy_schedule\["nightly-legacy"\] \(legacy V2 schedule: still runs on the old mechanism/,
    );
  });

  it("export writes both kinds, header values as placeholders, and plan on the export is empty", async () => {
    const exported = await runInProcess(["export", "--org", ORG, "--all-projects"], env(), {
      secrets: ["seeded-header-value-0", "seeded-header-value-1"],
    });
    expect(exported.code, exported.stderr).toBe(0);
    expect(exported.stdout).toMatch(
      /otel_exporters:\n {2}- endpoint: collector-0\.example\.com:4317/,
    );
    expect(exported.stdout).toMatch(/x-api-key: \$\{env:[A-Z0-9_]+\}/);
    expect(exported.stdout).toMatch(/checkout_keys:\n {6}- deploy-key\n {6}- user-key/);
    const file = await suite.tmp.write("exported.yaml", exported.stdout);
    const names = [...exported.stdout.matchAll(/\$\{env:([A-Z0-9_]+)\}/g)].map((m) => m[1] ?? "");
    const planEnv = { ...env(), ...Object.fromEntries(names.map((n) => [n, "exported-value"])) };
    const plan = await runInProcess(["plan", "-c", file, "--detailed-exitcode"], planEnv);
    expect(plan.code, plan.stdout + plan.stderr).toBe(0);
  });
});
