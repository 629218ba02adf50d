/**
 * The plan digest (src/plan/digest.ts; design.md §5 "Scoped plans and the reviewed plan"):
 * the same for the same changes and config whatever the declarations' order; different when
 * a change, a live id or the config differs; never fed a secret value.
 */
import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { Secret } from "../../src/core/secret.js";
import { canonical, type JsonValue, toJson } from "../../src/kinds/values.js";
import { digestDifference, planConfigDigest, planDigest } from "../../src/plan/digest.js";
import { selectExcludes } from "../../src/plan/finish.js";
import { maskPlanUrls } from "../../src/plan/mask-urls.js";
import { globMatcher, planChanges } from "../../src/plan/plan.js";
import type { Change } from "../../src/plan/types.js";
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
} from "../helpers/builders.js";

const secretFrom = (value: string): Secret => new Secret(value, "env:DEPLOY_TOKEN");

describe("the plan digest", () => {
  const org = (token: string, region = "eu-west-1", ignore: string[] = []) =>
    dOrg({
      contexts: [
        dContext("deploy", { env: { REGION: region, TOKEN: secretFrom(token) } }),
        dContext("build", { env: { CI: "true" } }),
      ],
      ignore,
    });
  const liveState = () =>
    live(lOrg({ contexts: [lContext("deploy", { env: { REGION: "us-east-1" } })] }));

  it("is 32 hex digits, and the same for the same plan", () => {
    const a = planChanges(desired(org("token-one-AAAA")), liveState());
    const b = planChanges(desired(org("token-one-AAAA")), liveState());
    expect(a.digest).toMatch(/^[0-9a-f]{32}$/);
    expect(b.digest).toBe(a.digest);
  });

  it("does not depend on the order of an org's declarations or of its lists", () => {
    const one = dOrg({
      contexts: [dContext("deploy", { env: { REGION: "eu-west-1" } })],
      ignore: ['context["a"]'],
    });
    const two = dOrg({
      contexts: [dContext("build", { env: { CI: "true" } })],
      ignore: ['context["b"]'],
    });
    const ab = planChanges(desired(one, two), liveState());
    const ba = planChanges(desired(two, one), liveState());
    expect(ab.changes.length).toBeGreaterThan(0);
    expect(ba.digest).toBe(ab.digest);
    expect(planConfigDigest([two, one])).toBe(planConfigDigest([one, two]));
  });

  it("takes no secret value: a value with the same origin gives the same digest", () => {
    // Both values differ from the live one's last four, so both plans set the secret.
    const a = planChanges(desired(org("1234")), liveState());
    const b = planChanges(desired(org("5678")), liveState());
    expect(b.digest).toBe(a.digest);
    expect(planConfigDigest([org("1234")])).toBe(planConfigDigest([org("5678")]));
  });

  it("differs in its change half when the live state differs, in its config half when the config does", () => {
    const base = planChanges(desired(org("x")), liveState());
    const moved = planChanges(
      desired(org("x")),
      live(
        lOrg({
          contexts: [lContext("deploy", { id: "ctx:other-id", env: { REGION: "us-east-1" } })],
        }),
      ),
    );
    expect(moved.digest.slice(16)).toBe(base.digest.slice(16));
    expect(moved.digest.slice(0, 16)).not.toBe(base.digest.slice(0, 16));
    expect(digestDifference(moved.digest, base.digest)).toMatch(/live state moved/);
    const edited = planChanges(desired(org("x", "eu-west-1", ['context["zzz"]'])), liveState());
    expect(edited.digest.slice(0, 16)).toBe(base.digest.slice(0, 16));
    expect(edited.digest.slice(16)).not.toBe(base.digest.slice(16));
    expect(digestDifference(edited.digest, base.digest)).toMatch(/config differs/);
  });
});

describe("the change half's text", () => {
  // The change half is the sha256 of this text (a reviewed plan's digest, in a pull request's
  // comment, must stay valid across versions that hash it another way): the orgs, then one
  // change a line (URLs masked, canonical JSON), sorted by org and address and then by text,
  // then the scope's lines. src/plan/digest.ts feeds it to the hash a change at a time.
  const joinedText = (
    orgs: readonly { slug: string; id: string }[],
    changes: readonly Change[],
    scope: { since: string; total: number; addresses: { org: string; address: string }[] },
  ): string => {
    const sort = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
    const orgText = orgs
      .map((o) => canonical({ slug: o.slug, id: o.id }))
      .sort(sort)
      .join(",");
    const keyed = maskPlanUrls(changes).map((c) => ({
      key: `${c.org}\u0000${c.address}`,
      text: canonical(toJson(c) as JsonValue),
    }));
    keyed.sort((a, b) => sort(a.key, b.key) || sort(a.text, b.text));
    const scopeLines = scope.addresses.map((a) => JSON.stringify([a.org, a.address])).sort(sort);
    return `[${orgText}]\n${keyed.map((k) => k.text).join("\n")}\nscope ${scope.total}\n${scopeLines.join("\n")}`;
  };

  it("is the sorted, masked changes' text, whatever their order, two changes at one address included", () => {
    const plan = planChanges(
      desired(
        dOrg({
          contexts: [dContext("deploy", { env: { REGION: "eu-west-1" } })],
          projects: [
            dProject("p1", {
              env: { A: "1", B: "2" },
              webhooks: [dWebhook("hook", { url: "https://hooks.example.com/secret-path" })],
            }),
          ],
        }),
      ),
      live(lOrg({ contexts: [], projects: [lProject("p1", { env: [], webhooks: [] })] })),
    );
    expect(plan.changes.length).toBeGreaterThan(3);
    // A second change at an address already planned (as a same-key surplus delete is), with
    // a text that sorts before the first one's: the tie is broken by the text.
    const first = plan.changes[0] as Change;
    const twin = { ...first, reason: "" } as Change;
    const scope = {
      since: "main",
      total: 9,
      addresses: [
        { org: first.org, address: 'context["deploy"]' },
        { org: first.org, address: first.address },
      ],
    };
    const changes = [...plan.changes].reverse().concat([twin]);
    const expected = createHash("sha256")
      .update(joinedText(plan.orgs, changes, scope))
      .digest("hex")
      .slice(0, 16);
    const digest = (cs: readonly Change[]) =>
      planDigest({ orgs: plan.orgs, changes: cs, configDigest: "c".repeat(64), scope });
    expect(digest(changes)).toBe(`${expected}${"c".repeat(16)}`);
    expect(digest([twin, ...plan.changes])).toBe(digest(changes));
    // The webhook's URL was masked before hashing (its text is not in what was hashed).
    expect(joinedText(plan.orgs, changes, scope)).not.toContain("secret-path");
  });
});

describe("--exclude's selection", () => {
  const change = (address: string, depends_on: string[] = []) =>
    ({ org: "gh/acme", address, depends_on }) as unknown as Change;
  const changes = [
    change('group["new"]'),
    change('context["deploy"].restriction["group:new"]', ['group["new"]']),
    change('context["other"]'),
  ];
  const match = (globs: string[]) => globMatcher(globs);

  it("leaves out what a glob matches and what needs it first", () => {
    expect(
      selectExcludes(changes, match(['group["new"]']), undefined).map((c) => c.address),
    ).toEqual(['context["other"]']);
  });

  it("a targeted change whose dependency is excluded is an error naming both", () => {
    expect(() =>
      selectExcludes(changes, match(['group["new"]']), match(['context["deploy"]'])),
    ).toThrow(/context\["deploy"\]\.restriction\["group:new"\] is targeted .*group\["new"\]/);
  });
});
