/**
 * A project keyed by name in an org of an app-based provider (a standalone org): its V2
 * routes take the slug `<vcs-slug>/<org id>/<project id>` (spec: api-v2-v1.md "Conventions
 * of V2": for app-based providers the org-name is the organization id and the repo-name the
 * project id), built from the ids, never from the name or the slug V3 lists. And a V2 404
 * for a project the V3 listing still shows is an error, never "already gone".
 */
import { describe, expect, it } from "vitest";
import type { Seed } from "../../emulator/src/seed.js";
import { TEST_TOKEN } from "../helpers/emulator.js";
import { useEmulatorSuite } from "../helpers/emulator-suite.js";
import { runInProcess } from "../helpers/in-process.js";

const ORG_ID = "5a0c8f43-9b1e-4d2a-8c6f-1e2d3c4b5a69";
const ORG = `circleci/${ORG_ID}`;
const PROJECT_ID = "7e1f0c2d-3b4a-4c5d-8e6f-0a1b2c3d4e5f";

// The seed's V3 slug of the project holds its name (`circleci/<org id>/api`): the form the
// spec does not give for V3, and not the one its V2 routes take.
const seed = (): Seed => ({
  tokens: [{ token: TEST_TOKEN }],
  orgs: [
    {
      slug: ORG,
      projects: [{ id: PROJECT_ID, slug: "api", name: "api", env: { KEEP: "kept-value-1234" } }],
    },
  ],
});

describe("an app-based project keyed by name", () => {
  const suite = useEmulatorSuite(seed, {
    remove: { name: "remove.yaml", content: `org: ${ORG}\nprojects:\n  api:\n    delete: true\n` },
  });
  const env = () => ({ SERVICE_BASE_URL: suite.emulator.url, SERVICE_TOKEN: suite.emulator.token });
  const projects = async () =>
    (await suite.emulator.state()).orgs?.find((o) => o.slug === ORG)?.projects ?? [];

  it("is deleted through the V2 slug built from the org and project ids", async () => {
    const r = await runInProcess(
      ["apply", "-c", suite.files.remove, "--auto-approve", "--allow-project-delete"],
      env(),
    );
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(r.stdout + r.stderr).not.toMatch(/already gone/);
    expect(await projects()).toEqual([]);
    const deletes = (await suite.emulator.requests()).filter(
      (q) => q.method === "DELETE" && q.path.startsWith("/api/v2/project/"),
    );
    expect(deletes.map((q) => [decodeURIComponent(q.path), q.status])).toEqual([
      [`/api/v2/project/circleci/${ORG_ID}/${PROJECT_ID}`, 200],
    ]);
  });

  it("the emulator answers 404 to a V2 slug made from the name", async () => {
    const r = await fetch(`${suite.emulator.url}/api/v2/project/${ORG}/api/envvar`, {
      headers: { "Service-Token": suite.emulator.token },
    });
    expect(r.status).toBe(404);
    const ok = await fetch(`${suite.emulator.url}/api/v2/project/${ORG}/${PROJECT_ID}/envvar`, {
      headers: { "Service-Token": suite.emulator.token },
    });
    expect(ok.status).toBe(200);
  });

  it("a V2 404 for a project the V3 listing shows is an error, never 'already gone'", async () => {
    await suite.emulator.script([{ method: "DELETE", path: "/api/v2/project/*", status: 404 }]);
    const r = await runInProcess(
      ["apply", "-c", suite.files.remove, "--auto-approve", "--allow-project-delete"],
      env(),
    );
    expect(r.code, r.stdout + r.stderr).toBe(1);
    expect(r.stdout + r.stderr).not.toMatch(/already gone/);
    expect(r.stdout).toMatch(/project\["api"\]: .*404.*still lists it/);
    expect(r.stdout).not.toContain("converges");
    expect((await projects()).map((p) => p.name)).toEqual(["api"]);
  });
});
