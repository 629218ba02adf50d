/**
 * The generic walk: one kind's collection under one parent, then the collections below
 * each of its items, driven by the kinds' `collection` (src/kinds/contract.ts).
 */

/**
 * The generic walk: one kind's collection under one parent, then the collections below
 * each of its items, driven by the kinds' `collection` (src/kinds/contract.ts).
 */

import { PlanError } from "../core/errors.js";
import type { ParentName, PlanParents, Within } from "../kinds/contract.js";
import type { Kinds } from "../kinds/references.js";
import { childKindsIn } from "../kinds/registry.js";
import { childAddress } from "../model/address.js";
import { diffCollection } from "./collection-diff.js";
import {
  type AnyKind,
  type CollectionSpec,
  itemAddress,
  type OrgCtx,
  type WalkNode,
} from "./state.js";
import type { ParamValue } from "./types.js";

/**
 * How much of a live item would be lost by removing it: its live children, of every kind
 * below it (a context's env vars and restrictions, a pipeline's triggers).
 */
export const holdsOf =
  (kinds: Kinds, kind: AnyKind, within: Within) =>
  (l: unknown): number =>
    childKindsIn(kinds, kind.type as ParentName).reduce(
      (n, child) => n + (child.collection.liveIn(l as never, within)?.length ?? 0),
      0,
    );

/**
 * Plan one kind's collection under one parent, then the collections below each of its
 * items: the generic walk, driven by the kinds' `collection` (src/kinds/contract.ts).
 */
export const planCollection = (
  ctx: OrgCtx,
  org: PlanParents["org"],
  within: Within,
  node: WalkNode,
  kind: AnyKind,
): void => {
  const col = kind.collection;
  const parentAddress = node.address;
  const collection = parentAddress === "" ? col.name : `${parentAddress}.${col.name}`;
  const declared = col.desiredIn(node.desired as never);
  const liveAll = node.live === undefined ? [] : col.liveIn(node.live as never, within);
  const address = (k: string) => itemAddress(node, kind, k);
  // One literal of every option, each present (an absent one is `undefined`, which
  // diffCollection reads like a missing one): a base object spread into each call, once
  // per collection, was a tenth of a 40,000-item plan (issue 33).
  const diff = (
    desired: readonly unknown[],
    live: readonly unknown[] | undefined,
    own: Pick<
      CollectionSpec<unknown, unknown>,
      "pendingParent" | "replaceOrder" | "forcedReplace" | "deleteReason"
    >,
  ) =>
    diffCollection(ctx, {
      kind,
      collection,
      address,
      desiredAddressKey: (d: unknown) => col.addressKey(d),
      params: node.params,
      itemParams: col.keyParam ? (k: string) => ({ [col.keyParam as string]: k }) : undefined,
      deleteExtra: col.deleteNote ? (l: unknown) => col.deleteNote?.(l) ?? NO_NOTE : undefined,
      holds: holdsOf(ctx.kinds, kind, within),
      desired,
      live,
      pendingParent: own.pendingParent,
      replaceOrder: own.replaceOrder,
      forcedReplace: own.forcedReplace,
      deleteReason: own.deleteReason,
    });
  if (node.replaced && declared === undefined) {
    // Decision: the collection is not managed here, but its items cannot outlive their
    // parent: they are deleted first (and not re-created), and the plan warns.
    const live = liveAll ?? [];
    if (live.length === 0 && col.onParentDelete === "cascades") return;
    ctx.acc.warnings.push(
      `${parentAddress} is replaced: its ${live.length} live ${col.segment.name}(s) are deleted and not re-created, because the config does not manage its ${col.name}`,
    );
    diff([], live, {
      deleteReason: `forced by the ${node.name}'s replacement (its ${col.name} are not managed, so not re-created)`,
    });
    return;
  }
  if (declared === undefined) return;
  if (node.live !== undefined && col.synthetic !== undefined) {
    const synthetic = col.synthetic.of(node.live as never, within);
    for (const d of declared) {
      const s = synthetic.find((l) => col.synthetic?.clash(d, l, node.live as never));
      if (s !== undefined) {
        throw new PlanError(
          `${address(col.addressKey(d))}: ${col.synthetic.refusal(kind.liveId(s) ?? "?")}`,
        );
      }
    }
  }
  const order = liveAll === undefined ? undefined : col.replaceOrderFor?.(declared, liveAll);
  const res = diff(declared, liveAll, {
    pendingParent: node.pending,
    replaceOrder: order,
    forcedReplace: node.replaced ? `forced by the ${node.name}'s replacement` : undefined,
  });
  const created = new Map(res.created.map((c) => [c.address, c]));
  for (const m of res.matched) {
    const why = col.refuse?.(
      {
        desired: m.desired,
        address: m.address,
        action: m.action,
        ...(created.has(m.address) ? { after: created.get(m.address)?.after ?? null } : {}),
      },
      org,
    );
    if (why !== undefined) throw new PlanError(`${m.address}: ${why}`);
  }
  const children = childKindsIn(ctx.kinds, kind.type as ParentName);
  if (children.length === 0) return;
  for (const m of res.matched) {
    const replaced = m.action === "replace";
    const id = m.live === undefined || replaced ? undefined : kind.liveId(m.live);
    const child: WalkNode = {
      name: kind.type as ParentName,
      desired: m.desired as WalkNode["desired"],
      // A replaced parent's children are the old one's: deleted or replaced with it.
      live: m.action === "create" ? undefined : (m.live as WalkNode["live"]),
      address: m.address,
      params:
        col.childParam === undefined
          ? node.params
          : withParam(node.params, col.childParam, id === undefined ? { pending: m.address } : id),
      pending: m.action === "create" || replaced ? m.address : undefined,
      replaced,
    };
    for (const k of children) planCollection(ctx, org, within, child, k);
  }
  // Children the spec does not say go with their parent are deleted first, explicitly.
  for (const del of res.deleted) {
    for (const k of children) {
      if (k.collection.onParentDelete !== "deleted_first") continue;
      const live = k.collection.liveIn(del.live as never, within) ?? [];
      if (live.length === 0) continue;
      const id = kind.liveId(del.live);
      diffCollection(ctx, {
        kind: k,
        collection: `${del.address}.${k.collection.name}`,
        address: (key) => childAddress(del.address, { name: k.collection.segment.name, key }),
        desiredAddressKey: (d) => k.collection.addressKey(d),
        desired: [],
        live,
        params: {
          ...node.params,
          ...(col.childParam === undefined || id === undefined ? {} : { [col.childParam]: id }),
        },
        deleteReason: `its ${kind.collection.segment.name} ${JSON.stringify(kind.liveAddressKey(del.live))} is deleted`,
      });
    }
  }
};

/** `params` and one more, in one copy (not a spread of a one-key object made for it). */
const withParam = (
  params: Readonly<Record<string, ParamValue>>,
  name: string,
  value: ParamValue,
): Readonly<Record<string, ParamValue>> => {
  const out: Record<string, ParamValue> = { ...params };
  out[name] = value;
  return out;
};

export const NO_NOTE = { destroys_secrets: null, note: "" } as const;
