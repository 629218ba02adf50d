/** Every config under examples/ validates (issue 3 "Done when"). */
import { readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { formatDiagnostic, loadConfig } from "../../src/config/index.js";

/** Any variable an example references resolves to a recognisable non-empty value. */
const ANY_ENV: Readonly<Record<string, string>> = new Proxy(
  {},
  { get: (_t, name) => `example-${String(name)}` },
);

const examples = [
  ...readdirSync("examples")
    .filter((f) => /\.ya?ml$/.test(f))
    .map((f) => join("examples", f)),
  ...readdirSync("examples")
    .map((f) => join("examples", f))
    // examples/ci holds CI recipes (workflow YAML), not a Waybill config.
    .filter(
      (p) =>
        statSync(p).isDirectory() &&
        p !== join("examples", "secrets") &&
        p !== join("examples", "ci"),
    ),
].sort();

describe("examples", () => {
  it("include small.yaml, full.yaml, the large-org folder and the demo", () => {
    expect(examples).toEqual(
      expect.arrayContaining([
        "examples/small.yaml",
        "examples/full.yaml",
        "examples/large-org",
        "examples/demo",
      ]),
    );
  });

  it.each(examples)("%s validates, with and without secrets", async (path) => {
    for (const options of [{ env: ANY_ENV }, { env: {}, resolveSecrets: false }]) {
      const r = await loadConfig(path, options);
      expect(r.ok ? [] : r.diagnostics.map(formatDiagnostic)).toEqual([]);
    }
  });
});
