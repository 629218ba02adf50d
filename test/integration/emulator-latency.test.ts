import { readFileSync } from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
import { startEmulator } from "../../emulator/src/index.js";
import type { Seed } from "../../emulator/src/seed.js";

const seed = JSON.parse(readFileSync("examples/demo/seed.json", "utf8")) as Seed;

describe("emulator under injected latency", () => {
  const warnings: Error[] = [];
  const onWarning = (w: Error) => warnings.push(w);
  afterEach(() => {
    process.off("warning", onWarning);
  });

  it("serves many requests waiting at once without a process warning", async () => {
    process.on("warning", onWarning);
    const emulator = await startEmulator({ seed, faults: { latency_ms: 20 } });
    try {
      const answers = await Promise.all(
        Array.from({ length: 40 }, () =>
          fetch(`${emulator.url}/api/v3/orgs`, { headers: { authorization: "Bearer demo-token" } }),
        ),
      );
      expect(answers.every((a) => a.status === 200)).toBe(true);
    } finally {
      await emulator.close();
    }
    // Warnings are emitted on the next tick.
    await new Promise((r) => setImmediate(r));
    expect(warnings.map((w) => w.name)).not.toContain("MaxListenersExceededWarning");
  });
});
