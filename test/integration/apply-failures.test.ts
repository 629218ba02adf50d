/**
 * A failed operation skips its dependents and the rest goes on; the summary lists done,
 * failed (with the API's status, title, detail and pointer) and skipped; exit 1. An
 * uncertain create ("commit then fail") is re-listed and adopted, never re-sent blindly:
 * the request log holds the plan's calls plus that one re-list.
 */
import { describe, expect, it } from "vitest";
import { expectNoSecrets, runCli } from "../helpers/cli.js";
import { useEmulatorSuite } from "../helpers/emulator-suite.js";
import { applyEnv, changeConfig, changeEnv, createConfig, duplicates } from "./apply-fixture.js";
import { ALL_SECRETS, API_ID, baseSeed, DESIRED_SECRETS } from "./plan-fixture.js";

describe("waybill apply: failures", () => {
  const suite = useEmulatorSuite(baseSeed, {
    createPath: { name: "create.yaml", content: createConfig },
  });

  const script = async (responses: unknown[]) => {
    const res = await fetch(`${suite.emulator.url}/__admin/script`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ responses }),
    });
    expect(res.status).toBeLessThan(300);
  };

  const run = (args: string[]) =>
    runCli(args, { baseUrl: suite.emulator.url, token: suite.emulator.token, env: applyEnv });

  it("a refused create fails alone: its triggers are skipped, the rest is done, exit 1", async () => {
    await script([
      {
        method: "POST",
        path: "/api/v3/pipelines",
        status: 400,
        json: {
          error: {
            type: "invalid_request",
            title: "Invalid pipeline",
            detail: "file_path must end in .yml",
            source: { pointer: "/data/attributes/config/file_path" },
          },
        },
      },
    ]);
    const r = await run(["apply", "-c", suite.files.createPath, "--auto-approve"]);
    expect(r.code, r.stderr).toBe(1);
    expect(r.stdout).toMatch(/Apply finished with failures: \d+ done, 1 failed, 3 skipped\./);
    expect(r.stdout).toContain(
      "status 400; title: Invalid pipeline; detail: file_path must end in .yml; pointer: /data/attributes/config/file_path",
    );
    expect(r.stdout).toMatch(
      /trigger\["weekly"\]: project\["gh\/acme\/api"\]\.pipeline\["deploy"\] \(create\) failed/,
    );
    const s = await suite.emulator.state();
    const api = s.orgs?.[0]?.projects?.find((p) => p.slug === "gh/acme/api");
    expect(api?.pipelines?.map((p) => p.name)).toEqual(["build"]);
    // Independent work went on.
    expect(api?.webhooks?.map((w) => w.name)).toContain("deploys");

    // A re-run does what is left.
    const again = await run([
      "apply",
      "-c",
      suite.files.createPath,
      "--auto-approve",
      "--format",
      "json",
    ]);
    expect(again.code, again.stderr).toBe(0);
    const result = JSON.parse(again.stdout) as { summary: { done: number } };
    expect(result.summary.done).toBe(4);
    expect((await run(["plan", "-c", suite.files.createPath, "--detailed-exitcode"])).code).toBe(0);
  });

  it("adopts a webhook whose create committed but answered 500, with one re-list and no re-send", async () => {
    await script([
      { method: "POST", path: "/api/v3/webhooks", commit: true, status: 500, json: { error: {} } },
    ]);
    const r = await run(["apply", "-c", suite.files.createPath, "--auto-approve"]);
    expect(r.code, r.stderr + r.stdout).toBe(0);
    expect(r.stderr).toMatch(/webhook\["deploys"\]: adopted in /);
    const log = await suite.emulator.requests();
    expect(log.filter((q) => q.method === "POST" && q.path === "/api/v3/webhooks")).toHaveLength(1);
    // One read for the plan, one under the org lock (issue 29), one re-list for the
    // uncertain create.
    expect(log.filter((q) => q.method === "GET" && q.path === "/api/v3/webhooks")).toHaveLength(3);
    expect(duplicates(await suite.emulator.state())).toEqual([]);
    expect((await run(["plan", "-c", suite.files.createPath, "--detailed-exitcode"])).code).toBe(0);
  });

  // src/kinds/contract.ts ApiCall `answer`: a V3 create declares the envelope (its
  // generation's); a flat `{id}` answer is an error that names both shapes, after one send,
  // never an id dropped without a word, and a re-run converges.
  it("a create that answers a flat {id} where its call declares the envelope fails loudly, once", async () => {
    await script([
      { method: "POST", path: "/api/v3/webhooks", commit: true, status: 201, json: { id: "w1" } },
    ]);
    const r = await run(["apply", "-c", suite.files.createPath, "--auto-approve"]);
    expect(r.code, r.stderr).toBe(1);
    expect(r.stdout + r.stderr).toContain(
      'webhook["deploys"]: the create answered a flat {id} where its call declares an envelope {data: {id}}',
    );
    const log = await suite.emulator.requests();
    expect(log.filter((q) => q.method === "POST" && q.path === "/api/v3/webhooks")).toHaveLength(1);
    expect((await run(["apply", "-c", suite.files.createPath, "--auto-approve"])).code).toBe(0);
    expect(duplicates(await suite.emulator.state())).toEqual([]);
    expect((await run(["plan", "-c", suite.files.createPath, "--detailed-exitcode"])).code).toBe(0);
  });

  it.each([
    ["a dropped connection", { drop: true }],
    ["a 502", { status: 502, json: { error: {} } }],
  ])("adopts every trigger whose create committed and then failed with %s", async (_, fault) => {
    await script([{ method: "POST", path: "/api/v3/triggers", commit: true, times: 3, ...fault }]);
    const r = await run(["apply", "-c", suite.files.createPath, "--auto-approve"]);
    expect(r.code, r.stderr + r.stdout).toBe(0);
    expect(r.stderr.match(/trigger\["[a-z-]+"\]: adopted in /g)).toHaveLength(3);
    const log = await suite.emulator.requests();
    expect(log.filter((q) => q.method === "POST" && q.path === "/api/v3/triggers")).toHaveLength(3);
    expect(duplicates(await suite.emulator.state())).toEqual([]);
    expect((await run(["plan", "-c", suite.files.createPath, "--detailed-exitcode"])).code).toBe(0);
  });

  // spec: api-v3.md Projects: `POST /projects/:id/environment-variables` answers 201/404: it
  // sets the named variable, so after a 500 the same POST is sent again; the live variable
  // is never deleted (issue 14: never delete before the new value is known accepted).
  it("an env var update whose POST answered 500 is sent again, never deleted", async () => {
    expect((await run(["apply", "-c", suite.files.createPath, "--auto-approve"])).code).toBe(0);
    const changePath = await suite.tmp.write("change.yaml", changeConfig);
    await script([
      { method: "POST", path: "/api/v3/projects/*/environment-variables", status: 500, json: {} },
    ]);
    await suite.emulator.clearRequests();
    const r = await runCli(["apply", "-c", changePath, "--auto-approve"], {
      baseUrl: suite.emulator.url,
      token: suite.emulator.token,
      env: changeEnv,
    });
    expect(r.code, r.stderr + r.stdout).toBe(0);
    const api = (await suite.emulator.state()).orgs?.[0]?.projects?.find(
      (p) => p.slug === "gh/acme/api",
    );
    expect(api?.env?.NPM_TOKEN).toBe(DESIRED_SECRETS.NPM_TOKEN);
    const log = await suite.emulator.requests();
    const deletes = log.filter(
      (q) => q.method === "DELETE" && q.path.endsWith("/environment-variables/NPM_TOKEN"),
    );
    expect(deletes).toHaveLength(0);
    const posts = log.filter(
      (q) => q.method === "POST" && q.path.endsWith(`/projects/${API_ID}/environment-variables`),
    );
    expect(posts.map((q) => q.status)).toEqual([500, 201]);
  });

  it("never prints a secret the service echoes back in an error", async () => {
    const echoed = DESIRED_SECRETS.NEW_SECRET;
    await script([
      {
        method: "POST",
        path: "/api/v3/projects/*/environment-variables",
        status: 400,
        json: { error: { title: "Invalid value", detail: `value ${echoed} is not allowed` } },
      },
    ]);
    const r = await run([
      "apply",
      "-c",
      suite.files.createPath,
      "--auto-approve",
      "--format",
      "json",
    ]);
    expect(r.code).toBe(1);
    expect(r.stdout).toContain("Invalid value");
    expectNoSecrets({ stdout: r.stdout, stderr: r.stderr }, ALL_SECRETS);
  });

  it("does not re-send a create whose connection dropped after sending: outcome unknown, the re-run creates it", async () => {
    await script([{ method: "POST", path: "/api/v3/pipelines", drop: true }]);
    const r = await run(["apply", "-c", suite.files.createPath, "--auto-approve"]);
    expect(r.code, r.stderr + r.stdout).toBe(1);
    expect(r.stdout).toMatch(/pipeline\["deploy"\].*outcome unknown.*the next run adopts it/);
    const posts = async () =>
      (await suite.emulator.requests()).filter(
        (q) => q.method === "POST" && q.path === "/api/v3/pipelines",
      );
    expect(await posts()).toHaveLength(1);
    const again = await run(["apply", "-c", suite.files.createPath, "--auto-approve"]);
    expect(again.code, again.stderr + again.stdout).toBe(0);
    expect(await posts()).toHaveLength(2);
    expect(duplicates(await suite.emulator.state())).toEqual([]);
  });
});
