/**
 * Saved plans (src/apply/saved-plan.ts): written 0600 without secrets, read back, refused
 * when not a plan; stale detection compares changes and names what differs; fingerprints
 * never cover a secret part.
 */
import { readFile, stat, writeFile } from "node:fs/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { indexDesired } from "../../src/apply/desired-index.js";
import {
  checkStale,
  checkTarget,
  diffChanges,
  liveFingerprints,
  readSavedPlan,
  savedPlanMeta,
  writeSavedPlan,
} from "../../src/apply/saved-plan.js";
import { configDigest } from "../../src/config/digest.js";
import { StalePlanError, UsageError } from "../../src/core/errors.js";
import { planChanges } from "../../src/plan/plan.js";
import {
  dContext,
  desired,
  dOrg,
  dProject,
  dWebhook,
  lContext,
  live,
  lOrg,
  lProject,
  lWebhook,
  PROJECT,
  secret,
} from "../helpers/builders.js";
import { makeTempDir, type TempDir } from "../helpers/cli.js";

const SECRET = "the-secret-value-0a1b";
const config = desired(
  dOrg({
    contexts: [dContext("deploy", { env: { KEY: secret(SECRET) } })],
    projects: [
      dProject(PROJECT, { webhooks: [dWebhook("slack", { url: "https://a.example.com" })] }),
    ],
  }),
);
const liveState = (url: string) =>
  live(
    lOrg({
      contexts: [lContext("deploy", { env: { KEY: "live-secret-value-zzzz" } })],
      projects: [lProject(PROJECT, { webhooks: [lWebhook("slack", { url })] })],
    }),
  );

describe("saved plans", () => {
  let tmp: TempDir;
  beforeAll(async () => {
    tmp = await makeTempDir();
  });
  afterAll(async () => {
    await tmp.remove();
  });

  it("writes mode 0600, with no secret value or its last four, and reads it back", async () => {
    const state = liveState("https://old.example.com");
    const plan = planChanges(config, state);
    const file = tmp.path("p.json");
    await writeFile(file, "old content", { mode: 0o644 });
    const meta = savedPlanMeta({
      version: "9.9.9",
      baseUrl: "https://svc",
      configDigest: configDigest(config),
      live: state,
      plan,
      desired: indexDesired(config),
    });
    await writeSavedPlan(file, plan, meta);
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    const text = await readFile(file, "utf8");
    expect(text).not.toContain(SECRET);
    expect(text).not.toContain("zzzz");
    const back = await readSavedPlan(file);
    expect(back.plan).toEqual(JSON.parse(JSON.stringify(plan)));
    expect(back.waybill_version).toBe("9.9.9");
    expect(back.config_digest).toMatch(/^[0-9a-f]{64}$/);
  });

  it("refuses a file that is not a saved plan", async () => {
    const file = await tmp.write(
      "not-plan.json",
      JSON.stringify({ format_version: 1, changes: [] }),
    );
    await expect(readSavedPlan(file)).rejects.toThrow(/not a saved plan/);
    await expect(readSavedPlan(tmp.path("missing.json"))).rejects.toThrow(UsageError);
  });

  it("is stale when the changes differ, and names the change", async () => {
    const before = liveState("https://old.example.com");
    const plan = planChanges(config, before);
    const meta = savedPlanMeta({
      version: "1",
      baseUrl: "https://svc",
      configDigest: configDigest(config),
      live: before,
      plan,
      desired: indexDesired(config),
    });
    const file = tmp.path("stale.json");
    await writeSavedPlan(file, plan, meta);
    const saved = await readSavedPlan(file);

    const same = planChanges(config, liveState("https://old.example.com"));
    expect(() =>
      checkStale(
        saved,
        same,
        liveFingerprints(liveState("https://old.example.com")),
        indexDesired(config),
      ),
    ).not.toThrow();

    const movedLive = liveState("https://edited.example.com");
    const moved = planChanges(config, movedLive);
    expect(diffChanges(saved.plan, moved)).toEqual([
      `  ~ project["${PROJECT}"].webhook["slack"]: update differs: fields url`,
    ]);
    expect(() =>
      checkStale(saved, moved, liveFingerprints(movedLive), indexDesired(config)),
    ).toThrow(StalePlanError);
    try {
      checkStale(saved, moved, liveFingerprints(movedLive), indexDesired(config));
    } catch (err) {
      expect((err as Error).message).toMatch(/webhook:wh:slack changed/);
    }

    const fixed = planChanges(config, liveState("https://a.example.com"));
    expect(diffChanges(saved.plan, fixed)).toEqual([
      `  - project["${PROJECT}"].webhook["slack"] (update): in the saved plan, no longer needed`,
    ]);
  });

  it("refuses another base URL or org", async () => {
    const state = liveState("https://old.example.com");
    const plan = planChanges(config, state);
    const file = tmp.path("target.json");
    await writeSavedPlan(
      file,
      plan,
      savedPlanMeta({
        version: "1",
        baseUrl: "https://svc/",
        configDigest: configDigest(config),
        live: state,
        plan,
        desired: indexDesired(config),
      }),
    );
    const saved = await readSavedPlan(file);
    expect(() => checkTarget(saved, "https://svc", plan)).not.toThrow();
    expect(() => checkTarget(saved, "https://other", plan)).toThrow(/not https:\/\/other/);
    const otherOrg = { ...plan, orgs: [{ slug: "gh/acme", id: "another-id" }] };
    expect(() => checkTarget(saved, "https://svc", otherOrg)).toThrow(/org/);
  });

  it("fingerprints ignore env var last fours and change with non-secret attributes", () => {
    const a = liveFingerprints(liveState("https://x"));
    const b = liveFingerprints(
      live(
        lOrg({
          contexts: [lContext("deploy", { env: { KEY: "other-secret-value-yyyy" } })],
          projects: [lProject(PROJECT, { webhooks: [lWebhook("slack", { url: "https://x" })] })],
        }),
      ),
    );
    expect(b).toEqual(a);
    expect(liveFingerprints(liveState("https://y"))).not.toEqual(a);
  });

  it("refuses to save a plan made without secrets", async () => {
    const state = liveState("https://old.example.com");
    const plan = { ...planChanges(config, state), saveable: false };
    await expect(
      writeSavedPlan(
        tmp.path("no.json"),
        plan,
        savedPlanMeta({
          version: "1",
          baseUrl: "https://svc",
          configDigest: configDigest(config),
          live: state,
          plan,
          desired: indexDesired(config),
        }),
      ),
    ).rejects.toThrow(/cannot be saved/);
  });
});
