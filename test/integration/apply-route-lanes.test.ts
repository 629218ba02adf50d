/**
 * Issue 22: "a 429 slows that route only; while one route waits, apply runs independent work
 * on routes that have budget". A per-route bucket (the emulator's rate_limit fault, with
 * RateLimit headers) and two routes of 30 writes each: a context's variables (`POST
 * /contexts/{id}/env-vars/set`, ready once the context is created) and a project's variables
 * (`POST /projects/{id}/environment-variables`, ready at once). Apply's operations wait for
 * their route's budget outside the parallelism slots (src/apply/graph-runner.ts lanes), so
 * the context's variables are written while the project's route is held, not after it.
 * Without lanes, the 30 project variables queued first take every slot and hold them while
 * their route refills: the context's first variable comes after about 20 of them.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { makeTempDir, runCli, type TempDir } from "../helpers/cli.js";
import { startTestEmulator, type TestEmulator } from "../helpers/emulator.js";

const ORG_ID = "0a7e0000-0000-4000-8000-0000000000bb";
const PROJECT_ID = "0a7e0000-0000-4000-8000-0000000000bc";
const VARS = 30;

const config = (): string => {
  const lines = ["org: gh/lanes", "contexts:", "  deploy:", "    env:"];
  for (let v = 0; v < VARS; v++) lines.push(`      CTX_${v}: context-value-${v}-lanes`);
  lines.push("projects:", "  gh/lanes/api:", "    env:");
  for (let v = 0; v < VARS; v++) lines.push(`      PRJ_${v}: project-value-${v}-lanes`);
  return `${lines.join("\n")}\n`;
};

describe("apply under a per-route rate limit: a held route does not hold the other routes' work", () => {
  let emulator: TestEmulator;
  let tmp: TempDir;
  let configPath: string;

  beforeAll(async () => {
    emulator = await startTestEmulator(
      {
        orgs: [
          {
            id: ORG_ID,
            slug: "gh/lanes",
            name: "lanes",
            default_context_restriction: false,
            projects: [{ id: PROJECT_ID, slug: "gh/lanes/api" }],
          },
        ],
      },
      // A burst of 4 per route, then 50 a second: each route needs about half a second (at 25
      // a second, twice that; without lanes the context still waits for 21 of the 30).
      {
        faults: {
          rate_limit: { capacity: 4, refill_per_second: 50, precise: true, headers: true },
        },
      },
    );
    tmp = await makeTempDir();
    configPath = await tmp.write("waybill.yaml", config());
  });
  afterAll(async () => {
    await emulator?.close();
    await tmp?.remove();
  });

  it("writes the context's variables while the project's route is held", async () => {
    const r = await runCli(["apply", "-c", configPath, "--auto-approve", "--parallelism", "10"], {
      baseUrl: emulator.url,
      token: emulator.token,
    });
    expect(r.code, r.stderr.slice(-2000)).toBe(0);

    const ok = (e: { status: number }) => e.status >= 200 && e.status < 300;
    const writes = (await emulator.requests()).filter((e) => e.method === "POST" && ok(e));
    const contextSets = writes.filter((e) => e.path.endsWith("/env-vars/set"));
    const projectSets = writes.filter((e) => e.path.endsWith("/environment-variables"));
    expect(contextSets).toHaveLength(VARS);
    expect(projectSets).toHaveLength(VARS);
    // The context's first variable is written before the project's route is half done.
    const firstContextSet = contextSets[0]?.seq ?? Number.POSITIVE_INFINITY;
    const projectBefore = projectSets.filter((e) => e.seq < firstContextSet).length;
    expect(projectBefore, "project variables written before the context's first").toBeLessThan(
      VARS / 2,
    );

    const again = await runCli(["plan", "-c", configPath, "--detailed-exitcode"], {
      baseUrl: emulator.url,
      token: emulator.token,
    });
    expect(again.code, again.stdout).toBe(0);
  });
});
