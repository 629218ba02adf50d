/**
 * Credential-bearing URLs by the paths issue 43 found (design.md §4 "Integration", §5
 * "Secrets and files"): a saved plan binds the webhook URL apply sends in full, not by its
 * 4-hex mask; a service error that quotes the live webhook URL is printed redacted; a URL
 * whose host name is the credential (a request bin's random host) is shown without it.
 * Each runs the CLI against the emulator and checks its request log and state.
 */
import { createHash } from "node:crypto";
import { readFile, writeFile } from "node:fs/promises";
import { describe, expect, it } from "vitest";
import type { Seed } from "../../emulator/src/seed.js";
import { useEmulatorSuite } from "../helpers/emulator-suite.js";
import { runInProcess } from "../helpers/in-process.js";

const ORG = "gh/acme";
const PROJECT = `${ORG}/api`;
const LIVE_URL = "https://hooks.slack.com/services/T0LIVE/B0LIVE/LiveTok3nQ8wZ1xY7vU5";
const REVIEWED_URL = "https://hooks.slack.com/services/T0NEW/B0NEW/Rev1ewedTok3nK4mN7pQ";
const BIN_URL = "https://eo9x2k7q4m1n8b3v6c5z.m.pipedream.net/";

/** A URL on the same host whose masked form (`…(xxxx)`) equals `url`'s. */
const sameMask = (url: string): string => {
  const fp = (u: string) => createHash("sha256").update(u).digest("hex").slice(0, 4);
  const want = fp(url);
  for (let i = 0; ; i++) {
    const other = `https://hooks.slack.com/services/T0EVIL/B0EVIL/attacker${i}`;
    if (fp(other) === want) return other;
  }
};

/** One project with one live webhook. */
const seedWith = (name: string, url: string) => (): Seed => ({
  orgs: [
    {
      slug: ORG,
      projects: [{ slug: PROJECT, webhooks: [{ name, url, events: ["workflow-completed"] }] }],
    },
  ],
});
const seed = seedWith("slack", LIVE_URL);

const config = (url: string): string => `org: ${ORG}
projects:
  ${PROJECT}:
    webhooks:
      slack:
        url: ${url}
        events: [workflow-completed]
`;

describe("credential URLs leave by no path", () => {
  const suite = useEmulatorSuite(seed, {
    config: { name: "waybill.yaml", content: config(REVIEWED_URL) },
  });
  const env = () => ({
    SERVICE_BASE_URL: suite.emulator.url,
    SERVICE_TOKEN: suite.emulator.token,
  });
  const webhookUrls = async (): Promise<string[]> => {
    const state = await suite.emulator.state();
    return (state.orgs?.[0]?.projects?.[0]?.webhooks ?? []).map((w) => w.url);
  };

  it("a saved plan binds the URL apply sends: another URL with the same mask is refused (exit 3), the reviewed one applies", async () => {
    const file = suite.tmp.path("reviewed.json");
    const planned = await runInProcess(["plan", "-c", suite.files.config, "--out", file], env());
    expect(planned.code, planned.stderr).toBe(0);
    const text = await readFile(file, "utf8");
    // Neither the URL nor its path is in the file: only a salted full-length hash of it.
    expect(text).not.toContain("Rev1ewedTok3nK4mN7pQ");
    const saved = JSON.parse(text) as {
      send_bindings: { salt: string; values: Record<string, string> };
    };
    expect(saved.send_bindings.salt).toMatch(/^[0-9a-f]{32}$/);
    expect(Object.keys(saved.send_bindings.values)).toEqual([
      `${ORG}|project["${PROJECT}"].webhook["slack"]|url`,
    ]);
    expect(Object.values(saved.send_bindings.values)[0]).toMatch(/^[0-9a-f]{64}$/);

    // After review, the config is changed to another URL with the very same masked form.
    const evil = sameMask(REVIEWED_URL);
    const edited = suite.tmp.path("edited.yaml");
    await writeFile(edited, config(evil));
    const shown = await runInProcess(["plan", "-c", edited], env(), { secrets: [evil] });
    expect(shown.stdout).toContain(planned.stdout.match(/…\([0-9a-f]{4}\)/)?.[0] ?? "none");
    await suite.emulator.clearRequests();
    const applied = await runInProcess(["apply", file, "-c", edited], env(), {
      secrets: [evil],
    });
    expect(applied.code, applied.stderr).toBe(3);
    expect(applied.stderr).toContain(`project["${PROJECT}"].webhook["slack"]`);
    expect(applied.stderr).toContain("credential URL");
    const writes = (await suite.emulator.requests()).filter((r) => r.method !== "GET");
    expect(writes).toEqual([]);
    expect(await webhookUrls()).toEqual([LIVE_URL]);

    // The config the plan was made from applies.
    const ok = await runInProcess(["apply", file, "-c", suite.files.config], env());
    expect(ok.code, ok.stderr).toBe(0);
    expect(await webhookUrls()).toEqual([REVIEWED_URL]);
  });

  it("a saved plan without its bindings (cut out of the file) is refused when it sends a URL", async () => {
    const file = suite.tmp.path("cut.json");
    const planned = await runInProcess(["plan", "-c", suite.files.config, "--out", file], env());
    expect(planned.code, planned.stderr).toBe(0);
    const saved = JSON.parse(await readFile(file, "utf8")) as Record<string, unknown>;
    delete saved.send_bindings;
    await writeFile(file, JSON.stringify(saved));
    const applied = await runInProcess(["apply", file, "-c", suite.files.config], env());
    expect(applied.code, applied.stderr).toBe(3);
    expect(await webhookUrls()).toEqual([LIVE_URL]);
  });

  it("a service error quoting the live webhook URL, whole or in part, is printed redacted", async () => {
    const quote = (text: string) => ({
      error: { type: "invalid_request", title: "Bad request", detail: text },
    });
    await suite.emulator.script([
      {
        method: "POST",
        path: "/api/v3/webhooks/*/update",
        status: 400,
        json: quote(
          `the webhook ${LIVE_URL} cannot be changed; its token ...${LIVE_URL.slice(-14)} is in use`,
        ),
        times: 5,
      },
    ]);
    const applied = await runInProcess(
      ["apply", "-c", suite.files.config, "--auto-approve"],
      env(),
      {
        secrets: [LIVE_URL, "LiveTok3nQ8wZ1xY7vU5", LIVE_URL.slice(-14)],
      },
    );
    expect(applied.code, applied.stderr).toBe(1);
    const out = `${applied.stdout}${applied.stderr}`;
    expect(out).toContain("cannot be changed");
    expect(out).not.toContain("T0LIVE");
    expect(out).not.toContain(LIVE_URL.slice(-14));
  });
});

describe("a URL whose host name is the credential", () => {
  const binSeed = seedWith("bin", BIN_URL);
  const suite = useEmulatorSuite(binSeed, {
    emptied: {
      name: "waybill.yaml",
      content: `org: ${ORG}\nprojects:\n  ${PROJECT}:\n    webhooks: {}\n`,
    },
  });
  const env = () => ({
    SERVICE_BASE_URL: suite.emulator.url,
    SERVICE_TOKEN: suite.emulator.token,
  });

  it("is shown with its random host label masked in every rendering, drift and a saved plan", async () => {
    const label = "eo9x2k7q4m1n8b3v6c5z";
    const file = suite.tmp.path("bin-plan.json");
    for (const args of [
      ["plan", "--format", "text"],
      ["plan", "--format", "markdown"],
      ["plan", "--format", "json", "--out", file],
      ["drift", "--format", "markdown"],
    ]) {
      const r = await runInProcess([...args, "-c", suite.files.emptied], env(), {
        secrets: [label],
      });
      expect(r.code, r.stderr).toBeLessThan(3);
      if (args[0] === "plan") expect(r.stdout).toContain("https://….m.pipedream.net/…(");
    }
    expect(await readFile(file, "utf8")).not.toContain(label);
  });
});
