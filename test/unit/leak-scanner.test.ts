/**
 * Issue 21: the leak scanner that every CLI run of the integration suite goes through
 * (test/helpers/secrets.ts) finds a secret in each form the issue names, so a test that
 * relies on it can fail.
 */
import { describe, expect, it } from "vitest";
import { findLeak, LEAKED_PREFIX_LENGTH } from "../helpers/secrets.js";

const SECRET = 'tok"en\\with\nnewline-and-more-4242';

describe("leak scanner", () => {
  const cases: [string, string][] = [
    ["raw", `error: ${SECRET}`],
    ["JSON-escaped", JSON.stringify({ value: SECRET })],
    ["JSON-escaped twice", JSON.stringify(JSON.stringify({ value: SECRET }))],
    ["URL-encoded", `GET /x?value=${encodeURIComponent(SECRET)}`],
    ["base64", Buffer.from(`{"value":"${SECRET}"}`).toString("base64")],
    ["base64", Buffer.from(`{"v":"${SECRET}"}`).toString("base64url")],
    ["prefix", `detail: value '${SECRET.slice(0, LEAKED_PREFIX_LENGTH)}…' is invalid`],
  ];
  for (const [form, text] of cases) {
    it(`finds the ${form} form`, () => {
      expect(findLeak({ stderr: text }, [SECRET])).toMatch(/secret #1 appears in stderr/);
    });
  }

  it("finds each base64 alignment", () => {
    for (const pad of ["", "a", "ab"]) {
      const text = Buffer.from(`${pad}${SECRET}`).toString("base64");
      expect(findLeak({ out: text }, [SECRET])).toBeDefined();
    }
  });

  it("passes text that holds none of them, including a URL sharing a secret URL's host", () => {
    const secretUrl = "https://hooks.example.com/services/SECRET-T1";
    expect(
      findLeak({ out: "(sensitive) https://hooks.example.com/services/T0 tok***" }, [
        SECRET,
        secretUrl,
      ]),
    ).toBeUndefined();
  });
});
