/**
 * The order test files start in (vitest.config.ts `sequence.sequencer`). Two workers take
 * files from one queue, so the suite ends when the last file started ends: a long file
 * started last leaves one worker idle while the other finishes it. Vitest's own order puts
 * the files that took longest last time first, but only where its cache (under
 * node_modules/.vite) holds them; without it (a fresh clone, CI) it orders by file size, and
 * several of the longest files are small (the load, lock-crash and release tests, which
 * spend their time in child processes and waits). The files below, each 2 s or more on a
 * quiet 2-core machine, therefore start first, in Vitest's order among themselves; the rest
 * follow in Vitest's order.
 */
import { relative } from "node:path";
import { BaseSequencer, type TestSpecification } from "vitest/node";

/** Files measured at 2 s or more, relative to the repository root. */
export const LONG_FILES: ReadonlySet<string> = new Set(
  [
    "integration/reliability-crash",
    "integration/action",
    "integration/release",
    "integration/reliability-lock-crash",
    "integration/reliability-load",
    "integration/apply-recovery",
    "integration/reliability-lock",
    "integration/apply-faults",
    "integration/lock-hostile",
    "integration/reliability-chaos",
    "integration/docs-demo",
    "integration/export-at-scale",
    "integration/docs-help",
    "unit/pull-property",
    "unit/reliability-config-fuzz",
  ].map((name) => `test/${name}.test.ts`),
);

export class LongFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const isLong = (spec: TestSpecification): boolean =>
      LONG_FILES.has(relative(spec.project.config.root, spec.moduleId).replaceAll("\\", "/"));
    return [...sorted.filter(isLong), ...sorted.filter((spec) => !isLong(spec))];
  }
}
