/**
 * How many cases a property test tries: the count written beside it, times
 * PROPERTY_RUNS_SCALE (default 1). The written counts were sized (issue 31) for a 45 s
 * `npm test` on two cores, which the suite has since outgrown (~51 s on a quiet 2-core VM,
 * issue 47's note); a longer search of one file, e.g. before a release or after a change to
 * the code a property covers:
 *
 *   PROPERTY_RUNS_SCALE=20 npx vitest run test/unit/plan-property.test.ts
 *
 * A seeded property (`seed:` beside it) tries the same first cases at any scale, then more.
 */
const scale = (): number => {
  const raw = process.env.PROPERTY_RUNS_SCALE;
  if (raw === undefined || raw === "") return 1;
  const n = Number(raw);
  if (!Number.isFinite(n) || n <= 0) {
    throw new Error(`PROPERTY_RUNS_SCALE must be a positive number, got ${JSON.stringify(raw)}`);
  }
  return n;
};

export const propertyRuns = (written: number): number => Math.max(1, Math.round(written * scale()));
