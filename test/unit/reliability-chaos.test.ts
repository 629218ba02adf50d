/**
 * Issue 7: the emulator's chaos answers (pure part) against the client's page reader: every
 * hostile shape is refused with a reason, unknown members are ignored, and the draws are
 * reproducible from the seed.
 */
import { describe, expect, it } from "vitest";
import {
  CHAOS_KINDS,
  chaosAnswer,
  drawChaos,
  isChaosCursor,
  nextChaosCursor,
} from "../../emulator/src/chaos.js";
import { parseFaultOptions, prng } from "../../emulator/src/faults.js";
import { readV2Page, readV3Page } from "../../src/api/pagination.js";

const v3Page = JSON.stringify({
  data: [{ id: "a", attributes: { name: "one" }, references: {} }],
  page: { next: null, prev: null },
});
const v2Page = JSON.stringify({ items: [{ name: "A", value: "xxxx1234" }], next_page_token: null });
const opts = { rate: 1, huge_bytes: 1000, slow_ms: 10 };

describe("chaos answers", () => {
  it("invalid_json is never JSON", () => {
    const a = chaosAnswer("invalid_json", v3Page, opts);
    expect(() => JSON.parse(a.body)).toThrow();
  });

  it("missing_data and data_not_list fail the page read with a reason", () => {
    expect(readV3Page(JSON.parse(chaosAnswer("missing_data", v3Page, opts).body))).toEqual({
      ok: false,
      reason: "no `data` member",
    });
    expect(readV3Page(JSON.parse(chaosAnswer("data_not_list", v3Page, opts).body))).toEqual({
      ok: false,
      reason: "`data` is not a list",
    });
    expect(readV2Page(JSON.parse(chaosAnswer("missing_data", v2Page, opts).body)).ok).toBe(false);
    expect(readV2Page(JSON.parse(chaosAnswer("data_not_list", v2Page, opts).body)).ok).toBe(false);
  });

  it("endless cursors count up per chain; repeating ones stay", () => {
    const read = readV3Page(JSON.parse(chaosAnswer("endless_next", v3Page, opts, 42).body));
    expect(read).toMatchObject({ ok: true, next: "chaos~endless~42~1" });
    expect(nextChaosCursor("chaos~endless~42~1")).toBe("chaos~endless~42~2");
    const rep = readV2Page(JSON.parse(chaosAnswer("repeat_cursor", v2Page, opts).body));
    expect(rep.ok && rep.next).toBe("chaos~repeat~0");
    expect(nextChaosCursor("chaos~repeat~0")).toBe("chaos~repeat~0");
    expect(isChaosCursor("chaos~repeat~0")).toBe(true);
    expect(isChaosCursor("eyJvZmZzZXQiOjB9")).toBe(false);
  });

  it("unknown members and padding leave the page readable with the same items", () => {
    for (const kind of ["unknown_fields", "huge"] as const) {
      const body = JSON.parse(chaosAnswer(kind, v3Page, opts).body) as Record<string, unknown>;
      const read = readV3Page(body);
      expect(read.ok).toBe(true);
      expect(read.ok && read.items.length).toBe(1);
    }
    const big = chaosAnswer("huge", v3Page, opts).body;
    expect(big.length).toBeGreaterThan(1000);
    const single = JSON.parse(
      chaosAnswer("endless_next", JSON.stringify({ data: { id: "x", attributes: {} } }), opts).body,
    ) as { data: { attributes: Record<string, unknown> } };
    // A list-only kind on a single resource: unknown members instead.
    expect(single.data.attributes.chaos_unknown_attribute).toBe("ignore me");
  });

  it("truncated and slow keep the body and change the delivery", () => {
    expect(chaosAnswer("truncated", v3Page, opts)).toEqual({
      body: v3Page,
      delivery: { kind: "truncate" },
    });
    expect(chaosAnswer("slow", v3Page, opts).delivery).toEqual({ kind: "slow", ms: 10 });
  });

  it("draws are reproducible, respect the rate and pick only the given kinds", () => {
    const run = (seed: number) => {
      const r = prng(seed);
      return Array.from({ length: 200 }, () =>
        drawChaos({ rate: 0.3, kinds: ["huge", "slow"] }, r),
      );
    };
    expect(run(5)).toEqual(run(5));
    const hits = run(5).filter((k) => k !== undefined);
    expect(hits.length).toBeGreaterThan(20);
    expect(hits.length).toBeLessThan(120);
    expect(new Set(hits)).toEqual(new Set(["huge", "slow"]));
    expect(drawChaos({ rate: 0 }, prng(1))).toBeUndefined();
    const all = new Set(Array.from({ length: 500 }, () => drawChaos({ rate: 1 }, prng(3))));
    expect(all.size).toBe(1);
    const r = prng(9);
    const every = new Set(Array.from({ length: 500 }, () => drawChaos({ rate: 1 }, r)));
    expect(every).toEqual(new Set(CHAOS_KINDS));
  });

  it("fault options check the chaos member", () => {
    expect(parseFaultOptions({ chaos: { rate: 0.5, kinds: ["slow"] } }).chaos?.rate).toBe(0.5);
    expect(() => parseFaultOptions({ chaos: { rate: 1.5 } })).toThrow(/chaos\/rate/);
    expect(() => parseFaultOptions({ chaos: { rate: 0.1, kinds: ["bogus"] } })).toThrow();
    expect(() => parseFaultOptions({ chaos: {} })).toThrow();
  });
});
