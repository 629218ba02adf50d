import { describe, expect, it } from "vitest";
import { exceedsMassDelete } from "../../src/plan/finish.js";
import { planChanges } from "../../src/plan/plan.js";
import {
  dContext,
  desired,
  dOrg,
  dProject,
  dWebhook,
  lContext,
  lEnv,
  live,
  lOrg,
  lProject,
  lWebhook,
  PROJECT,
} from "../helpers/builders.js";

const contexts = (n: number) => Array.from({ length: n }, (_, i) => lContext(`c${i}`));

describe("mass-delete guard data", () => {
  it.each([
    { deletes: 3, live: 3, exceeds: false }, // not more than 3
    { deletes: 4, live: 16, exceeds: false }, // exactly 25%
    { deletes: 4, live: 15, exceeds: true },
    { deletes: 5, live: 16, exceeds: true },
    { deletes: 10, live: 100, exceeds: false },
  ])("$deletes of $live → exceeds $exceeds", ({ deletes, live: n, exceeds }) => {
    expect(exceedsMassDelete(deletes, n)).toBe(exceeds);
    const keep = contexts(n)
      .slice(deletes)
      .map((c) => dContext(c.name));
    const p = planChanges(desired(dOrg({ contexts: keep })), live(lOrg({ contexts: contexts(n) })));
    expect(p.guards.mass_delete).toEqual([
      { org: "gh/acme", collection: "contexts", live_count: n, delete_count: deletes, exceeds },
    ]);
    expect(p.guards.mass_delete_exceeded).toBe(exceeds);
  });

  it("is per collection: env vars of one project", () => {
    const p = planChanges(
      desired(dOrg({ projects: [dProject(PROJECT, { env: {} })] })),
      live(
        lOrg({
          projects: [lProject(PROJECT, { env: ["A", "B", "C", "D"].map((k) => lEnv(k, "xxxx")) })],
        }),
      ),
    );
    expect(p.guards.mass_delete).toEqual([
      {
        org: "gh/acme",
        collection: 'project["gh/acme/api"].env',
        live_count: 4,
        delete_count: 4,
        exceeds: true,
      },
    ]);
  });

  it("ignored live items are not counted", () => {
    const p = planChanges(
      desired(dOrg({ contexts: [], ignore: ['context["c1*"]'] })),
      live(lOrg({ contexts: contexts(12) })),
    );
    // c1, c10, c11 are ignored: 9 live, 9 deletes.
    expect(p.guards.mass_delete[0]).toMatchObject({
      live_count: 9,
      delete_count: 9,
      exceeds: true,
    });
  });

  it("no deletions, no guard rows", () => {
    const p = planChanges(
      desired(dOrg({ contexts: [dContext("a")] })),
      live(lOrg({ contexts: [] })),
    );
    expect(p.guards).toEqual({ mass_delete: [], mass_delete_exceeded: false });
  });

  it("counts replaces: a replace destroys the live item (id, secrets) as a delete does", () => {
    // Issue 28: re-creating 8 of 8 webhooks (here: each drops its stored signing secret,
    // which only a replace can do) needed no flag.
    const names = Array.from({ length: 8 }, (_, i) => `hook-${i}`);
    const p = planChanges(
      desired(dOrg({ projects: [dProject(PROJECT, { webhooks: names.map((n) => dWebhook(n)) })] })),
      live(
        lOrg({
          projects: [
            lProject(PROJECT, {
              webhooks: names.map((n) => lWebhook(n, { has_signing_secret: true })),
            }),
          ],
        }),
      ),
    );
    expect(p.summary).toMatchObject({ replace: 8, delete: 0 });
    expect(p.guards.mass_delete).toEqual([
      {
        org: "gh/acme",
        collection: 'project["gh/acme/api"].webhooks',
        live_count: 8,
        delete_count: 8,
        replace_count: 8,
        exceeds: true,
      },
    ]);
    expect(p.guards.mass_delete_exceeded).toBe(true);
  });
});
