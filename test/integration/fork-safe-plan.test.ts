/**
 * A plan job on a pull request from a fork (issue 30, design.md §4 "Integration"): the fork
 * writes the config, so it can empty every collection to have the live items printed as
 * deletes, choose another `org:`, and name things with terminal control characters. The plan
 * it gets shows webhook URLs as scheme + host + a masked path, no secret, and only the
 * allowed orgs; a saved plan is shown and applied as its changes say, never as its own
 * summary, reasons or targets claim.
 */
import { readFile, writeFile } from "node:fs/promises";
import { describe, expect, it } from "vitest";
import type { Seed } from "../../emulator/src/seed.js";
import { useEmulatorSuite } from "../helpers/emulator-suite.js";
import { runInProcess } from "../helpers/in-process.js";

const ORG = "gh/acme";
const SLACK_PATH = "/services/T0FORKSAFE/B0FORKSAFE/Slk8vR3kLm9QzXw7TpY2sAbC";
const SLACK = `https://hooks.slack.com${SLACK_PATH}`;
const TEAMS_PATH =
  "/webhookb2/1234abcd-0000-1111-2222-333344445555@tenant/IncomingWebhook/f00dfeedcafe4242/9999";
const TEAMS = `https://acme.webhook.office.com${TEAMS_PATH}`;
const OTHER_PATH = "/hooks/other-org-secret-path-Q1w2E3r4";

/** Every value that must never be printed or saved: secrets, header values, URL paths. */
const NEVER = [
  "ctx-secret-value-AAAA1111",
  "project-npm-token-BBBB2222",
  "webhook-signing-secret-CCCC3333",
  "honeycomb-header-value-DDDD4444",
  SLACK_PATH,
  TEAMS_PATH,
  "Slk8vR3kLm9QzXw7TpY2sAbC",
  "f00dfeedcafe4242",
  OTHER_PATH,
];

/** A webhook name with an ESC sequence (clear screen) and a C1 CSI, as a live name may hold. */
const EVIL = "evil\u001b[2J\u009b31m";

const seed = (): Seed => ({
  orgs: [
    {
      slug: ORG,
      contexts: [{ name: "deploy", env: { TOKEN: "ctx-secret-value-AAAA1111" } }],
      projects: [
        {
          slug: `${ORG}/api`,
          env: { NPM_TOKEN: "project-npm-token-BBBB2222" },
          webhooks: [
            {
              name: "slack",
              url: SLACK,
              events: ["workflow-completed"],
              signing_secret: "webhook-signing-secret-CCCC3333",
            },
            { name: "teams", url: TEAMS, events: ["job-completed"] },
            { name: EVIL, url: `${SLACK}x`, events: ["job-completed"] },
          ],
        },
      ],
      otel_exporters: [
        {
          endpoint: "api.honeycomb.io:443",
          protocol: "grpc",
          headers: { "x-honeycomb-team": "honeycomb-header-value-DDDD4444" },
        },
      ],
    },
    {
      slug: "gh/other",
      projects: [
        {
          slug: "gh/other/app",
          webhooks: [
            { name: "x", url: `https://hooks.slack.com${OTHER_PATH}`, events: ["job-completed"] },
          ],
        },
      ],
    },
  ],
});

/** The fork's config: every collection emptied. */
const forkConfig = `org: ${ORG}
contexts: {}
otel_exporters: []
projects:
  ${ORG}/api:
    env: {}
    webhooks: {}
`;

const otherOrgConfig = `org: gh/other
projects:
  gh/other/app:
    webhooks: {}
`;

const expectClean = (...texts: string[]): void => {
  for (const text of texts) {
    for (const v of NEVER) expect(text).not.toContain(v);
    // No terminal control character but newline and tab.
    expect(text).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/);
  }
};

describe("a fork's plan (issue 30)", () => {
  const suite = useEmulatorSuite(seed, {
    fork: { name: "fork.yaml", content: forkConfig },
    other: { name: "other.yaml", content: otherOrgConfig },
  });
  const env = () => ({
    SERVICE_BASE_URL: suite.emulator.url,
    SERVICE_TOKEN: suite.emulator.token,
  });

  it("Markdown, text and JSON plans show every delete with the URL's host only, no secret, no control character", async () => {
    for (const format of ["markdown", "text", "json"]) {
      const r = await runInProcess(
        ["plan", "-c", suite.files.fork, "--format", format, "--allowed-orgs", ORG],
        env(),
        { secrets: NEVER },
      );
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toContain("https://hooks.slack.com/…(");
      expect(r.stdout).toContain("https://acme.webhook.office.com/…(");
      expect(r.stdout).toMatch(/evil\\+u001b\[2J\\+u009b31m/);
      expect(r.stdout).not.toContain("gh/other");
      expectClean(r.stdout, r.stderr);
      if (format === "markdown")
        expect(r.stdout).toMatch(
          /^<!-- waybill-plan-digest: [0-9a-f]{32} -->\n\*\*Plan: 0 to create, 0 to update, 0 to replace, 6 to delete/,
        );
    }
  });

  it("drift, and a saved plan file, hold no URL path either", async () => {
    const drift = await runInProcess(
      ["drift", "-c", suite.files.fork, "--format", "markdown"],
      env(),
      {
        secrets: NEVER,
      },
    );
    expect(drift.code, drift.stderr).toBe(2);
    expectClean(drift.stdout, drift.stderr);
    const file = suite.tmp.path("fork-plan.json");
    const r = await runInProcess(["plan", "-c", suite.files.fork, "--out", file], env(), {
      secrets: NEVER,
    });
    expect(r.code, r.stderr).toBe(0);
    expectClean(await readFile(file, "utf8"));
  });

  it("--allowed-orgs and WAYBILL_ALLOWED_ORGS refuse another org before the first request", async () => {
    for (const [args, extra] of [
      [["--allowed-orgs", ORG], {}],
      [[], { WAYBILL_ALLOWED_ORGS: `${ORG}, gh/acme-labs` }],
    ] as const) {
      await suite.emulator.clearRequests();
      const r = await runInProcess(
        ["plan", "-c", suite.files.other, "--format", "markdown", ...args],
        { ...env(), ...extra },
        { secrets: NEVER },
      );
      expect(r.code).toBe(1);
      expect(r.stderr).toContain('"gh/other" is not among the allowed orgs');
      expect(r.stdout).toBe("");
      expect(await suite.emulator.requests()).toEqual([]);
      expectClean(r.stderr);
    }
    // A list that names no org allows none (a guard misconfigured fails closed).
    const empty = await runInProcess(["plan", "-c", suite.files.fork], {
      ...env(),
      WAYBILL_ALLOWED_ORGS: " , ",
    });
    expect(empty.code).toBe(1);
    expect(empty.stderr).toContain("names no org");
    // apply and drift take the flag too.
    for (const command of ["apply", "drift"]) {
      const r = await runInProcess(
        [command, "-c", suite.files.other, "--allowed-orgs", ORG, "--auto-approve"].slice(
          0,
          command === "apply" ? 6 : 5,
        ),
        env(),
      );
      expect(r.code, r.stderr).toBe(1);
      expect(r.stderr).toContain("not among the allowed orgs");
    }
    expect(await suite.emulator.requests()).toEqual([]);
  });

  it("export writes no URL path, no secret and no control character", async () => {
    const r = await runInProcess(["export", "--org", ORG, "--all-projects"], env(), {
      secrets: NEVER,
    });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain("WEBHOOK_API_SLACK_URL");
    expectClean(r.stdout, r.stderr);
  });

  it("--show-urls prints URLs in full on a terminal only; off one it warns and masks", async () => {
    const piped = await runInProcess(["plan", "-c", suite.files.fork, "--show-urls"], env());
    expect(piped.code, piped.stderr).toBe(0);
    expect(piped.stderr).toContain("--show-urls is ignored: stdout is not a terminal");
    expect(piped.stdout).not.toContain(SLACK_PATH);
    const tty = await runInProcess(
      ["plan", "-c", suite.files.fork, "--show-urls", "--no-color"],
      env(),
      {
        tty: { stdout: true },
        secrets: NEVER.filter((v) => !SLACK.includes(v) && !TEAMS.includes(v)),
      },
    );
    expect(tty.code, tty.stderr).toBe(0);
    expect(tty.stdout).toContain(SLACK);
    // Even then a saved plan holds the masked form.
    const file = suite.tmp.path("shown.json");
    const saved = await runInProcess(
      ["plan", "-c", suite.files.fork, "--show-urls", "--out", file],
      env(),
      {
        tty: { stdout: true },
        secrets: NEVER.filter((v) => !SLACK.includes(v) && !TEAMS.includes(v)),
      },
    );
    expect(saved.code, saved.stderr).toBe(0);
    expectClean(await readFile(file, "utf8"));
  });
});

describe("a saved plan is shown and applied as its changes say (issue 30)", () => {
  const suite = useEmulatorSuite(seed, { fork: { name: "fork.yaml", content: forkConfig } });
  const env = () => ({
    SERVICE_BASE_URL: suite.emulator.url,
    SERVICE_TOKEN: suite.emulator.token,
  });

  /** Save the fork's plan, then edit the file with `edit`. */
  const savedAndEdited = async (
    name: string,
    edit: (saved: {
      plan: Record<string, unknown> & { changes: Record<string, unknown>[] };
    }) => void,
  ): Promise<string> => {
    const file = suite.tmp.path(name);
    const r = await runInProcess(["plan", "-c", suite.files.fork, "--out", file], env());
    expect(r.code, r.stderr).toBe(0);
    const saved = JSON.parse(await readFile(file, "utf8"));
    edit(saved);
    await writeFile(file, JSON.stringify(saved));
    return file;
  };

  const writes = async (): Promise<string[]> =>
    (await suite.emulator.requests())
      .filter((q) => q.method !== "GET")
      .map((q) => `${q.method} ${q.path}`);

  it("a file edited to say 'No changes': show counts the changes, apply refuses it and writes nothing", async () => {
    const file = await savedAndEdited("no-changes.json", (s) => {
      s.plan.summary = { create: 0, update: 0, replace: 0, delete: 0 };
    });
    const shown = await runInProcess(["show", file, "--format", "markdown"], {});
    expect(shown.code).toBe(0);
    expect(shown.stdout).not.toContain("No changes");
    expect(shown.stdout).toMatch(
      /^<!-- waybill-plan-digest: [0-9a-f]{32} -->\n\*\*Plan: 0 to create, 0 to update, 0 to replace, 6 to delete/,
    );
    expect(shown.stderr).toContain("Warning: the file was edited: its summary says");
    await suite.emulator.clearRequests();
    const applied = await runInProcess(
      ["apply", file, "-c", suite.files.fork, "--allow-mass-delete", "--no-lock"],
      env(),
    );
    expect(applied.code).toBe(1);
    expect(applied.stderr).toContain("the saved plan disagrees with itself");
    expect(await writes()).toEqual([]);
  });

  it("narrowed targets are refused: the reviewed changes are not applied one of three", async () => {
    const file = await savedAndEdited("narrowed.json", (s) => {
      s.plan.targets = [`project["${ORG}/api"].webhook["slack"]`];
    });
    await suite.emulator.clearRequests();
    const applied = await runInProcess(
      ["apply", file, "-c", suite.files.fork, "--allow-mass-delete", "--no-lock"],
      env(),
    );
    expect(applied.code).toBe(1);
    expect(applied.stderr).toContain("selects 1 of its 6 changes");
    expect(await writes()).toEqual([]);
  });

  it("an edited reason is stale (exit 3); a control sequence in the file never reaches the terminal", async () => {
    const file = await savedAndEdited("reason.json", (s) => {
      const first = s.plan.changes[0] as { reason: string };
      first.reason = "harmless \u001b]0;title\u0007\u001b[2Jrewritten";
      s.plan.warnings = ["\u009b2Jwarning"];
    });
    const shown = await runInProcess(["show", file], {});
    expect(shown.code).toBe(0);
    expect(shown.stdout).toContain("harmless \\u001b]0;title\\u0007\\u001b[2Jrewritten");
    expectClean(shown.stdout, shown.stderr);
    await suite.emulator.clearRequests();
    const applied = await runInProcess(
      ["apply", file, "-c", suite.files.fork, "--allow-mass-delete", "--no-lock"],
      env(),
    );
    expect(applied.code).toBe(3);
    expect(applied.stderr).toContain("its reason");
    expectClean(applied.stderr);
    expect(await writes()).toEqual([]);
  });

  it("an untouched saved plan still applies, taking each URL from the config", async () => {
    const file = await savedAndEdited("untouched.json", () => {});
    const applied = await runInProcess(
      ["apply", file, "-c", suite.files.fork, "--allow-mass-delete", "--no-lock"],
      env(),
      {
        secrets: NEVER,
      },
    );
    expect(applied.code, applied.stderr).toBe(0);
    expectClean(applied.stdout, applied.stderr);
    const after = await runInProcess(
      ["plan", "-c", suite.files.fork, "--detailed-exitcode"],
      env(),
    );
    expect(after.code, after.stdout).toBe(0);
  });
});
