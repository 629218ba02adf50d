import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { assignEnvNames, type EnvNameRequest, nameToken } from "../../src/export/env-names.js";
import { propertyRuns } from "../helpers/property-runs.js";

const req = (parts: string[], address: string): EnvNameRequest => ({
  parts,
  address,
  what: "env var",
});

describe("export env var names", () => {
  it("upper-cases and turns every run of other characters into one _", () => {
    expect(nameToken("deploy-prod")).toBe("DEPLOY_PROD");
    expect(nameToken("a.b  c/d")).toBe("A_B_C_D");
    expect(nameToken("--x--")).toBe("X");
    expect(nameToken("é")).toBe("X");
    expect(nameToken("aws_Region")).toBe("AWS_REGION");
  });

  it("gives CTX_<CONTEXT>_<VAR>, and _2, _3 to later addresses that collide", () => {
    const { needs } = assignEnvNames([
      req(["CTX", "a_b", "X"], 'context["a_b"].env["X"]'),
      req(["CTX", "a-b", "X"], 'context["a-b"].env["X"]'),
      req(["CTX", "a.b", "X"], 'context["a.b"].env["X"]'),
    ]);
    // Address order: "a-b" < "a.b" < "a_b".
    expect(needs.map((n) => [n.address, n.name])).toEqual([
      ['context["a-b"].env["X"]', "CTX_A_B_X"],
      ['context["a.b"].env["X"]', "CTX_A_B_X_2"],
      ['context["a_b"].env["X"]', "CTX_A_B_X_3"],
    ]);
  });

  it("does not depend on the order the requests come in", () => {
    const rs = [
      req(["CTX", "b", "X"], 'context["b"].env["X"]'),
      req(["CTX", "B", "X"], 'context["B"].env["X"]'),
      req(["PROJECT", "api", "X"], 'project["gh/a/api"].env["X"]'),
    ];
    const one = assignEnvNames(rs).needs;
    const two = assignEnvNames([...rs].reverse()).needs;
    expect(two).toEqual(one);
  });

  it("always gives valid, unique names (property)", () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.tuple(fc.string({ maxLength: 6 }), fc.string({ maxLength: 6 })), {
          selector: ([c, v]) => `${c}\u0000${v}`,
          maxLength: 30,
        }),
        (pairs) => {
          const rs = pairs.map(([c, v]) => req(["CTX", c, v], JSON.stringify([c, v])));
          const { needs, nameOf } = assignEnvNames(rs);
          const names = needs.map((n) => n.name);
          expect(new Set(names).size).toBe(names.length);
          for (const n of names) expect(n).toMatch(/^[A-Z_][A-Z0-9_]*$/);
          for (const r of rs) expect(nameOf.get(r)).toBeDefined();
        },
      ),
      { numRuns: propertyRuns(100) },
    );
  });
});
