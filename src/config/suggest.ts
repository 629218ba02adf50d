/** "Did you mean" suggestions for unknown keys and enum values (pure). */

const distance = (a: string, b: string): number => {
  const prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    let diag = prev[0]!;
    prev[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const up = prev[j]!;
      prev[j] = Math.min(up + 1, prev[j - 1]! + 1, diag + (a[i - 1] === b[j - 1] ? 0 : 1));
      diag = up;
    }
  }
  return prev[b.length]!;
};

/**
 * The closest candidate, when it is close enough to be a typo: at most a third of the
 * word's length in edits (at least 2), compared case-insensitively.
 */
export const closest = (word: string, candidates: readonly string[]): string | undefined => {
  const w = word.toLowerCase();
  let best: { c: string; d: number } | undefined;
  for (const c of candidates) {
    const d = distance(w, c.toLowerCase());
    if (!best || d < best.d) best = { c, d };
  }
  const limit = Math.max(2, Math.floor(word.length / 3));
  return best && best.d <= limit ? best.c : undefined;
};
