/**
 * The order test files start in (vitest.config.ts `sequence.sequencer`). Two workers take
 * files from one queue, so the suite ends when the last file started ends: a long file
 * started last leaves one worker idle while the other finishes it. Vitest's own order puts
 * the files that took longest last time first, but only where its cache (under
 * node_modules/.vite) holds them; without it (a fresh clone, CI) it orders by file size, and
 * several of the longest files are small (the load, lock-crash and release tests, which
 * spend their time in child processes and waits). The files of long-files.ts, each 2 s or
 * more on a quiet 2-core machine, therefore start first, in Vitest's order among themselves;
 * the rest follow in Vitest's order.
 */
import { relative } from "node:path";
import { BaseSequencer, type TestSpecification } from "vitest/node";
import { LONG_FILES } from "./long-files.js";

export class LongFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const isLong = (spec: TestSpecification): boolean =>
      LONG_FILES.has(relative(spec.project.config.root, spec.moduleId).replaceAll("\\", "/"));
    return [...sorted.filter(isLong), ...sorted.filter((spec) => !isLong(spec))];
  }
}
