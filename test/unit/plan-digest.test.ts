/**
 * The plan digest (src/plan/digest.ts; design.md §5 "Scoped plans and the reviewed plan"):
 * the same for the same changes and config whatever the declarations' order; different when
 * a change, a live id or the config differs; never fed a secret value.
 */
import { describe, expect, it } from "vitest";
import { Secret } from "../../src/core/secret.js";
import { digestDifference, planConfigDigest } from "../../src/plan/digest.js";
import { selectExcludes } from "../../src/plan/finish.js";
import { globMatcher, planChanges } from "../../src/plan/plan.js";
import type { Change } from "../../src/plan/types.js";
import { dContext, desired, dOrg, lContext, live, lOrg } from "../helpers/builders.js";

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
