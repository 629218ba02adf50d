/**
 * What apply keeps of its first plan while it reads again under the lock (issue 29's re-read;
 * issue 44: apply's peak RSS). The re-plan is compared with the first plan (`diffChanges`,
 * src/apply/saved-plan.ts) only to learn whether the two have the same changes, and when they
 * do the first plan is applied. So the first plan's changes need not stay in memory beside
 * the re-read's state and plan: each change's comparable text is kept as a SHA-256, with the
 * order of the changes and the rest of the plan (its orgs, summary, warnings, guards,
 * policies…), and the first plan is made again from the re-plan's changes, which are then
 * the same (the same canonical JSON, URLs masked). At 2,000 projects (38,000 creates) that
 * is ~6 MB kept instead of ~50 MB (bench/README.md "Apply's peak RSS").
 */
import { createHash } from "node:crypto";
import { maskPlanUrls } from "../plan/mask-urls.js";
import type { Change, Plan } from "../plan/types.js";
import { changeKey, comparable, diffChanges } from "./saved-plan.js";

export interface HeldPlan {
  /** The plan without its changes. */
  readonly rest: Omit<Plan, "changes">;
  /** Each change's key (`changeKey`), in the plan's order. */
  readonly order: readonly string[];
  /** Each change's comparable text (URLs masked), as a SHA-256, by key. */
  readonly texts: ReadonlyMap<string, string>;
}

const fingerprint = (c: Change): string =>
  createHash("sha256").update(comparable(c)).digest("base64");

/**
 * What to keep of `plan`; undefined when two of its changes have one key (no plan Waybill
 * makes has: a saved plan that does is refused as inconsistent), as the plan could not be
 * made again from changes found by key: the caller then keeps the plan itself.
 */
export const holdPlan = (plan: Plan): HeldPlan | undefined => {
  const { changes, ...rest } = plan;
  const texts = new Map<string, string>();
  const order: string[] = [];
  for (const c of maskPlanUrls(changes)) {
    const key = changeKey(c);
    if (texts.has(key)) return undefined;
    texts.set(key, fingerprint(c));
    order.push(key);
  }
  return { rest, order, texts };
};

/**
 * `fresh` has the held plan's changes (what `diffChanges(first, fresh)` being empty says):
 * the first plan made again, its changes in its order and everything else its own; else
 * undefined.
 */
export const heldAgain = (held: HeldPlan, fresh: Plan): Plan | undefined => {
  const masked = maskPlanUrls(fresh.changes);
  // As diffChanges: by key, the last change of a key (none repeats in a plan) counts.
  const byKey = new Map<string, { readonly change: Change; readonly masked: Change }>();
  masked.forEach((m, i) => {
    byKey.set(changeKey(m), { change: fresh.changes[i] as Change, masked: m });
  });
  if (byKey.size !== held.texts.size) return undefined;
  const changes: Change[] = [];
  for (const key of held.order) {
    const found = byKey.get(key);
    if (found === undefined || fingerprint(found.masked) !== held.texts.get(key)) return undefined;
    changes.push(found.change);
  }
  return { ...held.rest, changes };
};

/** The first plan, held (`holdPlan`) or kept whole when it cannot be. */
export type FirstPlan =
  | { readonly held: HeldPlan; readonly plan?: undefined }
  | { readonly held?: undefined; readonly plan: Plan };

export const keepFirst = (plan: Plan): FirstPlan => {
  const held = holdPlan(plan);
  return held === undefined ? { plan } : { held };
};

/** The first plan again when `fresh` has its changes (see heldAgain); else undefined. */
export const sameAsFirst = (first: FirstPlan, fresh: Plan): Plan | undefined =>
  first.held !== undefined
    ? heldAgain(first.held, fresh)
    : diffChanges(first.plan, fresh).length === 0
      ? first.plan
      : undefined;
