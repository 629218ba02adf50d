/**
 * The plan digest (design.md §5 "Scoped plans and the reviewed plan"): a short name for what
 * a plan would do, so a reviewed plan can be bound to the applied one (`apply
 * --expect-digest D`, the Action's PR comment). Pure.
 *
 * It is 32 hex digits, two halves of 16:
 * - the change set: every change's address, org, action, reason, before/after (masked:
 *   `(sensitive)` for a secret, scheme + host + masked path for a URL, as every rendering
 *   shows them), fields, live ids and calls, and the orgs planned, sorted by org and address
 *   so neither the config's file order nor the order of the reads matters;
 * - the config: the canonical config (src/model/config-canonical.ts) of each org, its
 *   declarations merged and the org-level lists (`ignore`, `moved`, `keep_unlisted`, …)
 *   sorted, the orgs sorted by slug, so the file order does not matter.
 * A mismatch can then say which half differs: the config the plan was made from, or what
 * it would do (the live state moved).
 *
 * Decision (secrets and credential URLs): no secret value, nor any hash of one, goes in.
 * A digest is printed in public places (PR comments, CI logs), and a hash of a short secret
 * is reversed by trying every value; a key to salt it with would have to be shared by the
 * pull request's job and the merge's job, and the only such values are the secrets
 * themselves. What binds them instead: a literal URL (a webhook's, the credential-bearing
 * kind) is part of the canonical config, hashed together with everything else the config
 * declares (no short input to try); a secret's *origin* (`env:NAME`, `file:PATH`) is too;
 * and which secrets the plan re-sets (the last-four comparison) is in the change set. A
 * secret value rotated between review and merge with the same last four is therefore not a
 * difference, as no reviewer ever saw a value.
 */
import { createHash } from "node:crypto";
import { canonical, type JsonValue, toJson } from "../kinds/values.js";
import { canonicalConfig } from "../model/config-canonical.js";
import type { DesiredOrg } from "../model/desired.js";
import { maskPlanUrls } from "./mask-urls.js";
import type { PlanScope } from "./scope.js";
import { mergeOrgs } from "./state.js";
import type { Change } from "./types.js";

/** Hex digits of each half. */
const HALF = 16;
export const DIGEST_LENGTH = 2 * HALF;

const sha256 = (text: string): string => createHash("sha256").update(text).digest("hex");

const bySort = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/**
 * The config half's input, whole (sha256 hex): order-free over the files (several
 * declarations of one org merged; lists an org gathers from several files sorted).
 */
export const planConfigDigest = (orgs: readonly DesiredOrg[]): string => {
  const merged = mergeOrgs(orgs).sort((a, b) => bySort(a.slug, b.slug));
  const parts = merged.map((org) => {
    const c = canonicalConfig(org) as Record<string, unknown>;
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(c)) {
      // A top-level list of an org is concatenated from its files in file order
      // (src/kinds/org-merge.ts); its order is not what it declares.
      out[k] = Array.isArray(v) ? v.map((x) => JSON.stringify(x)).sort(bySort) : v;
    }
    return out;
  });
  return sha256(JSON.stringify(parts));
};

/**
 * The change half: sha256 of the orgs and the masked changes, sorted by org and address (then
 * by their text), one change's canonical text a line, then the scope's text.
 *
 * Issue 44 (apply's peak RSS): the text is fed to the hash a change at a time, never joined.
 * At 2,000 projects (38,000 creates) the texts were ~150 MB of heap, all alive at once with
 * their join, at the end of each of apply's two reads (bench/README.md "Apply's peak RSS").
 * The bytes hashed are the joined text's, so the digest is the same: each change's text is
 * made only when it is written, and made twice only for changes sharing an address (sorted
 * among themselves by text, as before).
 */
/**
 * A change's canonical text: everything it says and does (action, reason, fields, values,
 * ids, calls). The digest hashes it (URLs masked); a saved plan and apply's re-plan under
 * the lock compare changes by it (src/apply/saved-plan.ts, src/apply/held-plan.ts).
 */
export const changeText = (c: Change): string => canonical(toJson(c) as JsonValue);

const changeSetHalf = (
  orgs: readonly { readonly slug: string; readonly id: string }[],
  changes: readonly Change[],
  scope: PlanScope | undefined,
): string => {
  const hash = createHash("sha256");
  const orgText = [...orgs]
    .map((o) => canonical({ slug: o.slug, id: o.id }))
    .sort(bySort)
    .join(",");
  hash.update(`[${orgText}]\n`);
  const masked = maskPlanUrls(changes);
  const keyed = masked.map((c) => ({ key: `${c.org}\u0000${c.address}`, change: c }));
  keyed.sort((a, b) => bySort(a.key, b.key));
  let first = true;
  const write = (text: string): void => {
    if (!first) hash.update("\n");
    hash.update(text);
    first = false;
  };
  for (let i = 0; i < keyed.length; ) {
    let end = i + 1;
    while (end < keyed.length && keyed[end]?.key === keyed[i]?.key) end++;
    if (end === i + 1) write(changeText((keyed[i] as (typeof keyed)[number]).change));
    else {
      const texts = keyed.slice(i, end).map((k) => changeText(k.change));
      texts.sort(bySort);
      for (const t of texts) write(t);
    }
    i = end;
  }
  hash.update(scopeText(scope));
  return hash.digest("hex").slice(0, HALF);
};

/** The plan digest: the change set's half, then the config's. */
export const planDigest = (input: {
  readonly orgs: readonly { readonly slug: string; readonly id: string }[];
  readonly changes: readonly Change[];
  /** `planConfigDigest` of the config planned. */
  readonly configDigest: string;
  /**
   * A partial plan's scope (`--changed-since`): its addresses, sorted, are part of the change
   * half, so a partial plan never has a full plan's digest (it checked less). The ref's name
   * is not: the same commit named two ways is the same scope.
   */
  readonly scope?: PlanScope;
}): string =>
  `${changeSetHalf(input.orgs, input.changes, input.scope)}${input.configDigest.slice(0, HALF)}`;

const scopeText = (scope: PlanScope | undefined): string =>
  scope === undefined
    ? ""
    : `\nscope ${scope.total}\n${scope.addresses
        .map((a) => JSON.stringify([a.org, a.address]))
        .sort(bySort)
        .join("\n")}`;

/** What differs between a plan's digest and an expected one, in words (the halves). */
export const digestDifference = (actual: string, expected: string): string => {
  if (actual === expected) return "nothing";
  if (!/^[0-9a-f]{32}$/.test(expected)) {
    return `the expected digest ${JSON.stringify(expected)} is not a plan digest (32 hex digits)`;
  }
  const changes = actual.slice(0, HALF) !== expected.slice(0, HALF);
  const config = actual.slice(HALF) !== expected.slice(HALF);
  if (changes && config) {
    return "both the config and the changes differ from the reviewed plan's";
  }
  if (config) {
    return "the config differs from the one the reviewed plan was made from (the changes are the same)";
  }
  return "the config is the one reviewed, but the changes differ: the live state moved since the review";
};
