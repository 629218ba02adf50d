/**
 * `validate`'s summary (src/config/summary.ts) counts each kind's declared items from the
 * sizes of its collections: the counts must be the number of items each kind's
 * `desiredItems` walks, for every kind with a summary key, on the examples, the bench's
 * large config and random declared configs.
 */
import { join } from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { generateOrg } from "../../bench/generate.js";
import { loadConfig, summarizeConfig } from "../../src/config/index.js";
import { ALL_KINDS } from "../../src/kinds/registry.js";
import type { DesiredConfig } from "../../src/model/desired.js";
import { desiredConfigArb } from "../helpers/arbitraries.js";
import { makeTempDir, REPO_ROOT } from "../helpers/cli.js";
import { propertyRuns } from "../helpers/property-runs.js";

/** Each summary key's count, by walking every kind's desiredItems. */
const walked = (config: DesiredConfig): Record<string, number> => {
  const counts: Record<string, number> = {};
  for (const org of config.orgs) {
    for (const kind of ALL_KINDS) {
      const key = kind.config.summary?.key;
      if (key === undefined) continue;
      counts[key] ??= 0;
      for (const _ of kind.desiredItems(org)) counts[key] += 1;
    }
  }
  return counts;
};

const agrees = (config: DesiredConfig): void => {
  const summary = summarizeConfig(config);
  for (const [key, n] of Object.entries(walked(config))) expect(summary[key], key).toBe(n);
};

describe("validate's summary counts", () => {
  it("are the items each kind walks, for the examples", async () => {
    for (const path of [
      "full.yaml",
      "access.yaml",
      "small.yaml",
      "demo/waybill.yaml",
      "large-org",
    ]) {
      const r = await loadConfig(join(REPO_ROOT, "examples", path), {
        env: {},
        resolveSecrets: false,
      });
      expect(r.ok, path).toBe(true);
      if (r.ok) agrees(r.config);
    }
  });

  it("are the items each kind walks, for the bench's large config", async () => {
    const tmp = await makeTempDir("waybill-summary-");
    try {
      const { configYaml } = generateOrg("large");
      await tmp.write("waybill.yaml", configYaml);
      const r = await loadConfig(tmp.path("waybill.yaml"), { env: {}, resolveSecrets: false });
      expect(r.ok).toBe(true);
      if (r.ok) {
        agrees(r.config);
        expect(summarizeConfig(r.config).triggers).toBeGreaterThan(0);
      }
    } finally {
      await tmp.remove();
    }
  });

  it("are the items each kind walks, for random declared configs", () => {
    fc.assert(
      fc.property(desiredConfigArb, (config) => {
        agrees(config);
      }),
      { numRuns: propertyRuns(50) },
    );
  });
});
