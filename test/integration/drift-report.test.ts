/**
 * What drift reports besides "it differs" (design.md §5 "Drift"): the live items of every
 * kind the config does not manage (walked from the kinds registry), the values of each
 * differing field (`live → config`, masked), the coverage figure, a baseline of known drift,
 * and the Slack and webhook documents. Against the emulator over loopback.
 */
import { readFile, stat } from "node:fs/promises";
import { Ajv2020 } from "ajv/dist/2020.js";
import { describe, expect, it } from "vitest";
import type { Seed } from "../../emulator/src/seed.js";
import { ALL_KINDS } from "../../src/kinds/registry.js";
import { expectNoSecrets, REPO_ROOT, runCli } from "../helpers/cli.js";
import { useEmulatorSuite } from "../helpers/emulator-suite.js";
import { withSamples } from "../helpers/every-kind.js";
import {
  ALL_SECRETS,
  API_ID,
  baseSeed,
  CTX_PROD_ID,
  matchingConfig,
  matchingEnv,
  TRIGGER_NIGHTLY_ID,
  WEBHOOK_SLACK_ID,
} from "./plan-fixture.js";

const GROUP_ID = "1a7e0000-0000-4000-8000-000000000001";
const EXPORTER_HEADER_SECRET = "exporter-header-secret-value-H3131";

/**
 * The plan fixture's org, with a group, an OTLP exporter and an SSO mapping made by hand, and
 * an item of every other family its seed lacks (each family's `sample`: a checkout key on
 * its first project, and a later kind's items), so every kind has live items to report.
 */
const seed = (): Seed => {
  const s = baseSeed();
  const [org, ...rest] = s.orgs ?? [];
  if (org === undefined) throw new Error("the plan fixture has an org");
  return withSamples({
    ...s,
    orgs: [
      {
        ...org,
        groups: [{ id: GROUP_ID, name: "by-hand", description: "made in the UI" }],
        otel_exporters: [
          {
            endpoint: "otel.example.com:4317",
            protocol: "grpc",
            headers: { "x-api-key": EXPORTER_HEADER_SECRET },
          },
        ],
        sso_group_mappings: [{ idp_group_name: "okta-eng", group: GROUP_ID }],
      },
      ...rest,
    ],
  });
};

/** Every parent declared, no collection under it: every listed kind has unmanaged items. */
const bareParents = `org: gh/acme
projects:
  gh/acme/api: {}
`;
/** Contexts managed, one declared bare: its env and restrictions are unmanaged. */
const bareContext = `org: gh/acme
contexts:
  deploy-prod: {}
ignore:
  - context["stale"]
  - context["legacy-*"]
`;

interface Line {
  address: string;
  resource_type: string;
  why: string;
}
interface DriftJson {
  drift: boolean;
  new_drift?: boolean;
  unmanaged: Line[];
  differences: {
    address: string;
    fields: { path: string; live: unknown; config: unknown; sensitive?: true }[];
  }[];
  coverage: {
    managed: number;
    live: number;
    kinds: Record<string, { managed: number; live: number }>;
  };
  baseline?: {
    new: { address: string; changed: boolean }[];
    known: { address: string; first_seen: string }[];
    stale: { address: string }[];
  };
}

describe("drift reports", () => {
  const suite = useEmulatorSuite(seed, {
    config: { name: "waybill.yaml", content: matchingConfig },
    bareParents: { name: "bare-parents.yaml", content: bareParents },
    bareContext: { name: "bare-context.yaml", content: bareContext },
  });
  const drift = (args: readonly string[], config = suite.files.config) =>
    runCli(["drift", "-c", config, ...args], {
      baseUrl: suite.emulator.url,
      token: suite.emulator.token,
      env: matchingEnv,
      secrets: [...ALL_SECRETS, EXPORTER_HEADER_SECRET],
    });
  const json = async (args: readonly string[], config?: string) => {
    const r = await drift(["--format", "json", ...args], config);
    expect(r.stderr).not.toMatch(/^Error/m);
    return { code: r.code, report: JSON.parse(r.stdout) as DriftJson };
  };

  it("lists a group, an OTLP exporter and an SSO mapping made by hand as unmanaged", async () => {
    const { code, report } = await json([]);
    expect(code).toBe(0);
    expect(report.unmanaged).toEqual(
      expect.arrayContaining([
        { address: 'group["by-hand"]', resource_type: "group", why: "unmanaged" },
        { address: "sso_group_mappings", resource_type: "sso_group_mappings", why: "unmanaged" },
        {
          address: 'otel_exporter["grpc:otel.example.com:4317"]',
          resource_type: "otel_exporter",
          why: "unmanaged",
        },
      ]),
    );
    const text = await drift([]);
    expect(text.stdout).toContain('group["by-hand"] (collection not managed by the config)');
  });

  it("honours ignore and keep_unlisted for the org-level kinds", async () => {
    const config = await suite.tmp.write(
      "org-kinds.yaml",
      `${matchingConfig.replace("ignore:\n", 'ignore:\n  - group["*"]\n')}otel_exporters: []\nkeep_unlisted:\n  - otel_exporter["*"]\n`,
    );
    const { code, report } = await json([], config);
    expect(code).toBe(0);
    expect(report.unmanaged).toContainEqual({
      address: 'group["by-hand"]',
      resource_type: "group",
      why: "ignored",
    });
    const exporter = 'otel_exporter["grpc:otel.example.com:4317"]';
    expect(report.unmanaged.filter((u) => u.address === exporter)).toEqual([
      { address: exporter, resource_type: "otel_exporter", why: "kept" },
    ]);
  });

  it("reports the unmanaged items of every kind the registry lists (a kind drift cannot report fails here)", async () => {
    const seen = new Set<string>();
    for (const config of [suite.files.bareParents, suite.files.bareContext]) {
      const { report } = await json([], config);
      for (const u of report.unmanaged) if (u.why === "unmanaged") seen.add(u.resource_type);
    }
    for (const kind of ALL_KINDS) {
      if (kind.unmanaged.listed)
        expect(seen, `${kind.type} is never listed by drift`).toContain(kind.type);
      else expect(kind.unmanaged.why.length, kind.type).toBeGreaterThan(10);
    }
  });

  it("shows each differing field as live → config, secrets and credential URLs masked", async () => {
    await suite.emulator.call("POST", `/api/v3/triggers/${TRIGGER_NIGHTLY_ID}/update`, {
      event: { schedule: { cron_expression: "0 5 * * *" } },
    });
    await suite.emulator.call("POST", `/api/v3/webhooks/${WEBHOOK_SLACK_ID}/update`, {
      url: "https://evil.example.com/services/T9/B9/secret-path-X7",
    });
    await suite.emulator.call("POST", `/api/v3/contexts/${CTX_PROD_ID}/env-vars/set`, {
      name: "AWS_SECRET_ACCESS_KEY",
      value: "another-live-secret-value-Q5151",
    });
    const r = await drift([]);
    expect(r.code).toBe(2);
    expect(r.stdout).toMatch(/event\.schedule\.cron_expression: "0 5 \* \* \*" → "0 2 \* \* \*"/);
    expect(r.stdout).toMatch(
      /url: "https:\/\/evil\.example\.com\/\S*" → "https:\/\/hooks\.example\.com\/\S*"/,
    );
    expect(r.stdout).not.toContain("secret-path-X7");
    expect(r.stdout).not.toContain("services/T0");
    const md = await drift(["--format", "markdown"]);
    expect(md.stdout).toMatch(
      / {2}- `event\.schedule\.cron_expression: "0 5 \* \* \*" → "0 2 \* \* \*"`/,
    );
    const { report } = await json([]);
    const trigger = report.differences.find((d) => d.address.endsWith('trigger["nightly"]'));
    expect(trigger?.fields).toContainEqual({
      path: "event.schedule.cron_expression",
      live: "0 5 * * *",
      config: "0 2 * * *",
    });
    expectNoSecrets({ stdout: r.stdout + md.stdout, stderr: r.stderr + md.stderr }, [
      ...ALL_SECRETS,
      "another-live-secret-value-Q5151",
      EXPORTER_HEADER_SECRET,
    ]);
  });

  it("gives the share of live items managed, per kind and in all", async () => {
    const { report } = await json([]);
    // matchingConfig manages: 3 contexts (legacy-build ignored: not managed), their env (5)
    // and restrictions (2); 2 projects, api's env (2), webhooks (2), pipeline (1), trigger (1).
    // Unmanaged: the group, the exporter, the SSO set, the checkout key, legacy-build.
    expect(report.coverage.kinds.group).toEqual({ managed: 0, live: 1 });
    expect(report.coverage.kinds.otel_exporter).toEqual({ managed: 0, live: 1 });
    expect(report.coverage.kinds.sso_group_mappings).toEqual({ managed: 0, live: 1 });
    expect(report.coverage.kinds.context).toEqual({ managed: 2, live: 3 });
    expect(report.coverage.kinds.webhook).toEqual({ managed: 2, live: 2 });
    expect(report.coverage.kinds.checkout_key).toEqual({ managed: 0, live: 1 });
    const sum = Object.values(report.coverage.kinds).reduce(
      (a, k) => ({ managed: a.managed + k.managed, live: a.live + k.live }),
      { managed: 0, live: 0 },
    );
    expect({ managed: report.coverage.managed, live: report.coverage.live }).toEqual(sum);
    const text = await drift([]);
    expect(text.stdout).toContain(
      `Coverage: ${sum.managed} of ${sum.live} live items managed by the config (${Math.floor((sum.managed * 100) / sum.live)}%).`,
    );
    // The SSO set declared as it is: that kind is covered.
    const all = await suite.tmp.write(
      "all.yaml",
      `${matchingConfig}sso_group_mappings:\n  - { idp_group_name: okta-eng, group: by-hand }\n`,
    );
    const covered = await json([], all);
    expect(covered.code).toBe(0);
    expect(covered.report.coverage.kinds.sso_group_mappings).toEqual({ managed: 1, live: 1 });
  });

  it("baseline: known drift exits 0, a new difference exits 2, a stale entry is reported", async () => {
    await suite.emulator.call("POST", `/api/v3/webhooks/${WEBHOOK_SLACK_ID}/update`, {
      url: "https://evil.example.com/hook-by-hand",
    });
    const file = suite.tmp.path("baseline.json");
    const written = await drift(["--write-baseline", file]);
    expect(written.code).toBe(2);
    const text = await readFile(file, "utf8");
    // Addresses and digests, never a value.
    expect(text).toContain('project[\\"gh/acme/api\\"].webhook[\\"slack\\"]');
    expect(text).not.toContain("evil.example.com");
    expect(text).not.toContain("hooks.example.com");
    expect(text).toMatch(/"digest": "hmac-sha256:[0-9a-f]{64}"/);
    expect((await stat(file)).mode & 0o777).toBe(0o600);

    // Only known drift: exit 0, reported as known.
    const known = await drift(["--baseline", file]);
    expect(known.code, known.stderr).toBe(0);
    expect(known.stdout).toMatch(/^No new drift: 1 item differs from the config, all known/);
    expect(known.stdout).toMatch(/Known drift \(in .*baseline\.json\): 1 item/);

    // The same item changed again, and a new one: exit 2, both new.
    await suite.emulator.call("POST", `/api/v3/webhooks/${WEBHOOK_SLACK_ID}/update`, {
      url: "https://other.example.com/hook-by-hand",
    });
    await suite.emulator.call("POST", `/api/v3/projects/${API_ID}/update-settings`, {
      enable_auto_cancel_redundant_workflows: true,
    });
    const fresh = await json(["--baseline", file]);
    expect(fresh.code).toBe(2);
    expect(fresh.report.new_drift).toBe(true);
    expect(fresh.report.baseline?.new).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          address: 'project["gh/acme/api"].webhook["slack"]',
          changed: true,
        }),
        expect.objectContaining({ address: 'project["gh/acme/api"].settings', changed: false }),
      ]),
    );

    // Everything put back: the entry is stale, and said so.
    await suite.emulator.reset(seed());
    const stale = await drift(["--baseline", file]);
    expect(stale.code).toBe(0);
    expect(stale.stdout).toMatch(/Baseline entries that no longer match any drift/);
    expect(stale.stdout).toContain('project["gh/acme/api"].webhook["slack"]');
  });

  it("refuses a malformed baseline before any request", async () => {
    const bad = await suite.tmp.write("bad-baseline.json", '{"kind":"something else"}');
    await suite.emulator.clearRequests();
    const r = await drift(["--baseline", bad]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/bad-baseline\.json: not a drift baseline/);
    expect(await suite.emulator.requests()).toEqual([]);
  });

  it("gives a Slack Block Kit message and a webhook document that meets its published schema", async () => {
    await suite.emulator.call("POST", `/api/v3/webhooks/${WEBHOOK_SLACK_ID}/update`, {
      url: "https://evil.example.com/services/T9/B9/secret-path-X7",
    });
    const slack = await drift(["--format", "slack"]);
    expect(slack.code).toBe(2);
    const message = JSON.parse(slack.stdout) as { text: string; blocks: { type: string }[] };
    expect(message.text).toMatch(/^Drift in gh\/acme/);
    expect(message.blocks[0]?.type).toBe("header");
    expect(slack.stdout).toContain('webhook[\\"slack\\"]');
    expect(slack.stdout).not.toContain("secret-path-X7");

    const hook = await drift(["--format", "webhook"]);
    expect(hook.code).toBe(2);
    expect(hook.stdout).not.toContain("secret-path-X7");
    const schema = JSON.parse(
      await readFile(`${REPO_ROOT}/schemas/drift-webhook.schema.json`, "utf8"),
    ) as object;
    const validate = new Ajv2020({ strict: true }).compile(schema);
    const doc = JSON.parse(hook.stdout) as unknown;
    expect(validate(doc), JSON.stringify(validate.errors)).toBe(true);
    expect(validate({ ...(doc as object), surprise: 1 })).toBe(false);
  });
});
