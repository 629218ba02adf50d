/**
 * The scoped live read (design.md §5 "Scoped plans and the reviewed plan"): the live state
 * of a set of addresses and of the parents and references they need, not of the whole org.
 * Shared by `--changed-since` (the addresses changed since a ref) and apply's re-read under
 * the lock (the addresses its plan touches).
 *
 * What is read: each org (its id), the org-level collections that hold an address in scope
 * (the contexts listing, then only the contexts in scope), the projects in scope (each
 * looked up by its slug) with only their collections that hold one, and the project ids
 * their references name. The config is narrowed to the same (src/plan/scope.ts
 * `narrowDesired`): the planner must plan from the narrowed config, since what it leaves
 * out was not read.
 */
import type { DesiredConfig } from "../model/desired.js";
import { narrowDesired, type ScopedAddress, scopeIndex } from "../plan/scope.js";
import type { ReadLiveOptions } from "./read-live-state.js";

/**
 * The narrowed config and the reader's option that keep the read to the scope: plan and
 * read with both (src/run/plan-run.ts `runPlan`).
 */
export interface ScopedRead {
  readonly desired: DesiredConfig;
  readonly readsUnder: NonNullable<ReadLiveOptions["readsUnder"]>;
}

export const scopedRead = (
  desired: DesiredConfig,
  addresses: readonly ScopedAddress[],
): ScopedRead => {
  const idx = scopeIndex(addresses);
  return { desired: narrowDesired(desired, idx), readsUnder: idx.touches };
};
