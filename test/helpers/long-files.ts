/**
 * The test files that take 2 s or more on a quiet 2-core machine, relative to the repository
 * root: long-first-sequencer.ts starts them first. A module of its own, so the unit test that
 * keeps the list to existing files need not load vitest/node.
 */
export const LONG_FILES: ReadonlySet<string> = new Set(
  [
    "integration/ci-recipes-run",
    "integration/progress-off-tty",
    "integration/reliability-crash",
    "integration/action",
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
    "integration/reliability-uncertain-create",
    "integration/pull-emulator-property",
    "integration/plan-changed-since",
    "unit/pull-property",
    "unit/reliability-config-fuzz",
  ].map((name) => `test/${name}.test.ts`),
);
