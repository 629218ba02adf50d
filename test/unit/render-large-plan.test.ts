/**
 * Issue 22 §1: output that scales. A plan of 2,000 projects renders ~125,000 lines; the
 * text renderer once spread them into one `push(...)` call and overflowed the stack. Here a
 * plan of more than 150,000 lines goes through every renderer and through the CLI's
 * streaming writer, which must wait for `drain` instead of queueing the whole plan.
 */
import { Writable } from "node:stream";
import { describe, expect, it } from "vitest";
import type { CommonOptions } from "../../src/cli/common-options.js";
import { writeChunks } from "../../src/cli/io.js";
import { renderPlan } from "../../src/cli/plan.js";
import type { Change, Plan } from "../../src/plan/types.js";
import { MARKDOWN_LIMIT, renderJson, renderMarkdown, renderText } from "../../src/render/index.js";
import { renderChanges } from "../../src/render/text.js";
import { mixedPlan } from "../helpers/plan-fixtures.js";

const TARGET_LINES = 150_000;

/** The mixed plan's changes (every action and kind) repeated under distinct addresses. */
const hugePlan = (): Plan => {
  const base = mixedPlan();
  const perCopy = Array.from(renderChanges(base, false)).length;
  const copies = Math.ceil(TARGET_LINES / perCopy) + 1;
  const changes: Change[] = [];
  for (let i = 0; i < copies; i++) {
    for (const c of base.changes) changes.push({ ...c, address: `${c.address}#${i}` });
  }
  const s = base.summary;
  return {
    ...base,
    changes,
    summary: {
      create: s.create * copies,
      update: s.update * copies,
      replace: s.replace * copies,
      delete: s.delete * copies,
    },
  };
};

const plan = hugePlan();
/** Each renderer runs once directly; the streaming tests compare against these. */
const text = renderText(plan, { color: false });
const markdown = renderMarkdown(plan);
const json = renderJson(plan);

const options = (format: CommonOptions["format"]): Pick<CommonOptions, "format" | "color"> => ({
  format,
  color: false,
});

/** A slow reader: a small buffer, drained on a later turn; records the most ever queued. */
const slowSink = () => {
  let text = "";
  let writes = 0;
  let mostQueued = 0;
  const sink = new Writable({
    highWaterMark: 16 * 1024,
    write(chunk: Buffer, _enc, done) {
      text += chunk.toString();
      writes += 1;
      setImmediate(done);
    },
  });
  const write = sink.write.bind(sink);
  sink.write = ((chunk: string) => {
    const ok = write(chunk);
    mostQueued = Math.max(mostQueued, sink.writableLength);
    return ok;
  }) as typeof sink.write;
  return {
    sink,
    text: () => text,
    writes: () => writes,
    mostQueued: () => mostQueued,
  };
};

describe("a plan of more than 150,000 lines", () => {
  it("renders as text, every change and the summary", () => {
    const lines = text.split("\n");
    expect(lines.length).toBeGreaterThan(TARGET_LINES);
    // Issue 19: the secret-destroying deletes come first, then the changes.
    expect(lines[0]).toMatch(/^Destroys secrets that cannot be recovered: .*, and \d+ more\.$/);
    expect(lines[2]).toBe("Waybill will perform the following actions:");
    expect(text).toContain(`Plan: ${plan.summary.create} to create`);
    const last = plan.changes[plan.changes.length - 1] as Change;
    expect(text).toContain(last.address);
  });

  it("renders as Markdown, cut under the comment limit with the full line count", () => {
    const md = markdown;
    expect(md.length).toBeLessThanOrEqual(MARKDOWN_LIMIT);
    const shown = /: (\d+) of (\d+) lines shown/.exec(md);
    expect(Number(shown?.[2])).toBeGreaterThan(TARGET_LINES);
  });

  it("renders as JSON with every change", () => {
    const parsed = JSON.parse(json) as { changes: unknown[] };
    expect(parsed.changes).toHaveLength(plan.changes.length);
  });

  it("streams the text to a slow reader in bounded chunks, honouring backpressure", async () => {
    const out = slowSink();
    await writeChunks(out.sink, renderPlan(plan, options("text")));
    expect(out.text()).toBe(text);
    // Never a write per line, never the whole plan queued: at most one chunk over the buffer.
    expect(out.writes()).toBeLessThan(TARGET_LINES / 100);
    expect(out.mostQueued()).toBeLessThan(16 * 1024 + 2 * 64 * 1024);
  });

  it("streams Markdown and JSON through the same writer", async () => {
    for (const format of ["markdown", "json"] as const) {
      const out = slowSink();
      await writeChunks(out.sink, renderPlan(plan, options(format)));
      const expected = format === "json" ? json : markdown;
      expect(out.text()).toBe(expected);
    }
  });
});
