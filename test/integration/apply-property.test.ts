/**
 * Property (issue 5 "Done when"): for random desired states over a seeded org, an apply
 * followed by a plan is empty. Each run applies two random configs in a row, so the second
 * one updates, replaces and deletes what the first created. In-process (runPlan + runApply
 * over a real client on loopback) to keep the runs fast.
 */
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Seed } from "../../emulator/src/seed.js";
import { createApiClient } from "../../src/api/client.js";
import { runApply } from "../../src/apply/run-apply.js";
import type { DesiredConfig } from "../../src/model/desired.js";
import { runPlan } from "../../src/run/plan-run.js";
import { desiredConfigArb } from "../helpers/arbitraries.js";
import { REPO } from "../helpers/builders.js";
import { startTestEmulator, type TestEmulator } from "../helpers/emulator.js";
import { propertyRuns } from "../helpers/property-runs.js";
import { duplicates } from "./apply-fixture.js";

const ORG_ID = "1a7e0000-0000-4000-8000-000000000001";
/** The arbitrary's group id (test/helpers/arbitraries.ts) is this seed's group. */
const GROUP_ID = "0e0e0e0e-1111-4222-8333-944445555666";

/** A restriction's group written `group-1` is this seed's group (the emulator wants a UUID). */
const withSeedGroup = (d: DesiredConfig): DesiredConfig => ({
  ...d,
  orgs: d.orgs.map((o) => ({
    ...o,
    ...(o.contexts === undefined
      ? {}
      : {
          contexts: new Map(
            [...o.contexts].map(([k, c]) => [
              k,
              c.restrictions === undefined
                ? c
                : {
                    ...c,
                    restrictions: c.restrictions.map((r) =>
                      r.type === "group" && r.group === "group-1" ? { ...r, group: GROUP_ID } : r,
                    ),
                  },
            ]),
          ),
        }),
  })),
});

const seed = (): Seed => ({
  orgs: [
    {
      id: ORG_ID,
      slug: "gh/acme",
      groups: [{ id: GROUP_ID, name: "group one" }],
      settings: { enable_private_orbs: true, enable_ai_agents: false },
      contexts: [
        { name: "seeded", env: { A: "seeded-value-AAAA" } },
        {
          name: "fenced",
          restrictions: [{ restriction_type: "expression", match_pattern: "x == 1" }],
        },
      ],
      projects: [
        {
          slug: "gh/acme/api",
          repo: REPO,
          env: { SEEDED: "seeded-project-var-BBBB" },
          webhooks: [
            { name: "seeded-hook", url: "https://h.example.com/s", events: ["job-completed"] },
          ],
          pipelines: [
            {
              name: "seeded-pipe",
              config: { type: "vcs", file_path: ".service/config.yml", vcs: REPO },
              checkout: { vcs: REPO },
              triggers: [
                {
                  event: {
                    type: "schedule",
                    schedule: { name: "s-nightly", cron_expression: "0 2 * * *" },
                  },
                },
              ],
            },
          ],
        },
        { slug: "gh/acme/web", repo: { ...REPO, repo_id: "999", repo_full_name: "acme/web" } },
      ],
    },
  ],
});

describe("waybill apply: property", () => {
  let emulator: TestEmulator;

  beforeAll(async () => {
    emulator = await startTestEmulator(seed());
  });
  afterAll(async () => {
    await emulator?.close();
  });

  it("random desired states apply, then plan empty, with no duplicate", async () => {
    await fc.assert(
      fc.asyncProperty(desiredConfigArb, desiredConfigArb, async (a, b) => {
        const [first, second] = [withSeedGroup(a), withSeedGroup(b)];
        await emulator.reset(seed());
        const api = createApiClient({ baseUrl: emulator.url, token: emulator.token });
        try {
          for (const desired of [first, second]) {
            const { plan } = await runPlan(api.readOnly(), desired, {});
            const result = await runApply(api, plan, desired, { parallelism: 4 });
            const failures = result.outcomes.filter((o) => o.status !== "done");
            expect(failures).toEqual([]);
            const { plan: after } = await runPlan(api.readOnly(), desired, {});
            expect(after.changes.map((c) => `${c.action} ${c.address}: ${c.reason}`)).toEqual([]);
          }
          expect(duplicates(await emulator.state())).toEqual([]);
        } finally {
          await api.close();
        }
      }),
      { numRuns: propertyRuns(8) },
    );
  }, 60_000);
});
