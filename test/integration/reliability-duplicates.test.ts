/**
 * Same-key live items in a collection the config owns (design.md §1 "Identity", issue 15
 * item 1): the plan keeps the best match, removes the surplus and says why; the org never
 * wedges. Against the emulator over loopback, with the CLI run in-process.
 */
import { describe, expect, it } from "vitest";
import { expectNoSecrets } from "../helpers/cli.js";
import { useEmulatorSuite } from "../helpers/emulator-suite.js";
import { runInProcess } from "../helpers/in-process.js";
import { applyEnv, changeConfig, changeEnv, createConfig, duplicates } from "./apply-fixture.js";
import { ALL_SECRETS, API_ID, baseSeed, WEBHOOK_SLACK_ID } from "./plan-fixture.js";

interface JsonChange {
  readonly address: string;
  readonly action: string;
  readonly reason: string;
  readonly id?: string;
}

describe("same-key live items in an owned collection", () => {
  const suite = useEmulatorSuite(baseSeed, {
    createPath: { name: "create.yaml", content: createConfig },
    changePath: { name: "change.yaml", content: changeConfig },
  });

  const run = async (args: string[], env: Readonly<Record<string, string>>) => {
    const r = await runInProcess(args, {
      SERVICE_BASE_URL: suite.emulator.url,
      SERVICE_TOKEN: suite.emulator.token,
      ...env,
    });
    expectNoSecrets({ stdout: r.stdout, stderr: r.stderr }, [
      ...ALL_SECRETS,
      ...Object.values(env),
      suite.emulator.token,
    ]);
    return r;
  };
  const planJson = async (path: string, env: Readonly<Record<string, string>>) => {
    const r = await run(["plan", "-c", path, "--format", "json"], env);
    expect(r.code, r.stderr).toBe(0);
    return JSON.parse(r.stdout) as { changes: JsonChange[] };
  };
  const post = async (path: string, body: unknown): Promise<string> => {
    const r = await suite.emulator.call<{ data: { id: string } }>("POST", path, body);
    expect(r.status, JSON.stringify(r.body)).toBe(201);
    return r.body.data.id;
  };

  // The emulator refuses a second context of one name (a duplicate context is covered by
  // test/unit/kind-context.test.ts).
  it("a duplicated webhook and pipeline: the best match is kept, the surplus removed, the rest goes on", async () => {
    const created = await run(["apply", "-c", suite.files.createPath, "--auto-approve"], applyEnv);
    expect(created.code, created.stdout + created.stderr).toBe(0);
    // Leftovers as a re-sent create or an interrupted replace leaves them: a webhook of the
    // same name without the signing secret and with another url, a pipeline equal to the
    // declared one but without its triggers.
    const hook = await post("/api/v3/webhooks", {
      data: {
        attributes: {
          name: "deploys",
          scope: "project",
          url: "https://other.example.com/hook",
          events: ["job-completed"],
        },
        references: { project: { id: API_ID } },
      },
    });
    const pipe = await post("/api/v3/pipelines", {
      data: {
        attributes: {
          name: "deploy",
          description: "deploys",
          config: {
            type: "vcs",
            file_path: ".service/deploy.yml",
            vcs: { provider: "github_app", repo_id: "123", repo_full_name: "acme/api" },
          },
          checkout: {
            vcs: { provider: "github_app", repo_id: "123", repo_full_name: "acme/api" },
          },
        },
        references: { project: { id: API_ID } },
      },
    });
    expect(duplicates(await suite.emulator.state())).toHaveLength(2);

    // One more change elsewhere: an ambiguous key must not block it.
    await suite.emulator.call("DELETE", `/api/v3/webhooks/${WEBHOOK_SLACK_ID}`);
    const plan = await planJson(suite.files.createPath, applyEnv);
    const deletes = plan.changes.filter((c) => c.action === "delete");
    expect(deletes.map((c) => c.id).sort()).toEqual([hook, pipe].sort());
    for (const d of deletes) expect(d.reason).toMatch(/^surplus: 2 live items share this key/);
    expect(deletes.find((d) => d.id === hook)?.address).toBe(
      `project["gh/acme/api"].webhook["deploys#${hook}"]`,
    );
    expect(plan.changes.filter((c) => c.action === "create").map((c) => c.address)).toEqual([
      'project["gh/acme/api"].webhook["slack"]',
    ]);

    const applied = await run(["apply", "-c", suite.files.createPath, "--auto-approve"], applyEnv);
    expect(applied.code, applied.stdout + applied.stderr).toBe(0);
    expect(duplicates(await suite.emulator.state())).toEqual([]);
    const again = await run(
      ["plan", "-c", suite.files.createPath, "--detailed-exitcode"],
      applyEnv,
    );
    expect(again.code, again.stdout).toBe(0);
    // The kept items are the originals: the webhook with the secret Waybill set, the
    // context with its env var, the pipeline with its triggers.
    const api = (await suite.emulator.state()).orgs?.[0]?.projects?.find((p) => p.id === API_ID);
    expect(api?.webhooks?.find((w) => w.name === "deploys")?.signing_secret).toBe(
      applyEnv.NEW_SECRET,
    );
    expect(api?.pipelines?.find((p) => p.name === "deploy")?.triggers?.length).toBe(3);
  });

  it("a webhook replace interrupted between its create and its delete converges on the next run", async () => {
    const created = await run(["apply", "-c", suite.files.createPath, "--auto-approve"], applyEnv);
    expect(created.code, created.stdout + created.stderr).toBe(0);
    // `slack` is replaced (create the new one, then delete the old one): the delete fails.
    await suite.emulator.script([
      {
        method: "DELETE",
        path: `/api/v3/webhooks/${WEBHOOK_SLACK_ID}`,
        status: 400,
        json: { error: { title: "cannot delete now" } },
      },
    ]);
    const broken = await run(["apply", "-c", suite.files.changePath, "--auto-approve"], changeEnv);
    expect(broken.code, broken.stdout).toBe(1);
    expect(duplicates(await suite.emulator.state())).toEqual(["gh/acme/api webhooks: slack x2"]);

    // Every later plan works (before the fix: "2 live items share this key" for the org).
    const plan = await planJson(suite.files.changePath, changeEnv);
    expect(plan.changes.map((c) => `${c.action} ${c.id ?? ""}`)).toEqual([
      `delete ${WEBHOOK_SLACK_ID}`,
    ]);
    expect(plan.changes[0]?.reason).toContain("its fields equal the config");
    const fixed = await run(["apply", "-c", suite.files.changePath, "--auto-approve"], changeEnv);
    expect(fixed.code, fixed.stdout + fixed.stderr).toBe(0);
    expect(duplicates(await suite.emulator.state())).toEqual([]);
    const again = await run(
      ["plan", "-c", suite.files.changePath, "--detailed-exitcode"],
      changeEnv,
    );
    expect(again.code, again.stdout).toBe(0);
  });
});
