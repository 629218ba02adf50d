/**
 * The operation graph apply runs (design.md §1 "Apply"): parents before children on
 * create and update (a context before its env vars and restrictions, a pipeline before its
 * triggers), children before parents on delete, and a replace split in two operations in
 * the order its kind needs (create-then-delete where the two can coexist, otherwise
 * delete-then-create). Pure; a cycle is a programming error and throws.
 */

import { PlanError } from "../core/errors.js";
import { type Kinds, kindIn, referenceEdges } from "../kinds/references.js";
import { ALL_KINDS } from "../kinds/registry.js";
import { ancestorsOf } from "../model/address.js";
import type { Change, Plan } from "./types.js";

export type OperationPhase = "create" | "update" | "delete";

export interface Operation {
  /** `<org>|<phase>|<address>`: unique in the graph. */
  readonly id: string;
  /** Index of the change in `plan.changes`. */
  readonly change: number;
  readonly phase: OperationPhase;
  readonly org: string;
  readonly address: string;
  /** Operations that must succeed first; when one fails this one is skipped. */
  readonly after: readonly string[];
}

export interface OperationGraph {
  /** Topologically sorted: every operation comes after all of its `after`. */
  readonly operations: readonly Operation[];
}

const opId = (org: string, phase: OperationPhase, address: string): string =>
  `${org}|${phase}|${address}`;

const phasesOf = (c: Change): OperationPhase[] => {
  switch (c.action) {
    case "create":
      return ["create"];
    case "update":
      return ["update"];
    case "delete":
      return ["delete"];
    case "replace":
      return c.replace_order === "create_before_delete"
        ? ["create", "delete"]
        : ["delete", "create"];
  }
};

export const orderOperations = (plan: Plan, kinds: Kinds = ALL_KINDS): OperationGraph => {
  interface Node {
    id: string;
    change: number;
    phase: OperationPhase;
    org: string;
    address: string;
    after: Set<string>;
  }
  const nodes: Node[] = [];
  const byId = new Map<string, Node>();
  plan.changes.forEach((c, i) => {
    const phases = phasesOf(c);
    phases.forEach((phase, n) => {
      const node: Node = {
        id: opId(c.org, phase, c.address),
        change: i,
        phase,
        org: c.org,
        address: c.address,
        after: new Set(),
      };
      // The second half of a replace waits for the first.
      if (n === 1) node.after.add(opId(c.org, phases[0] as OperationPhase, c.address));
      nodes.push(node);
      byId.set(node.id, node);
    });
  });

  for (const node of nodes) {
    const ancestors = ancestorsOf(node.address);
    if (node.phase === "create" || node.phase === "update") {
      // Parents first: an ancestor created (or re-created) in this apply.
      for (const a of ancestors) {
        if (byId.has(opId(node.org, "create", a))) node.after.add(opId(node.org, "create", a));
      }
    } else {
      // Children first: this delete waits for nothing; its ancestors' deletes wait for it.
      for (const a of ancestors) {
        const parent = byId.get(opId(node.org, "delete", a));
        if (parent) parent.after.add(node.id);
      }
    }
  }

  // Issue 17: an item that takes another's id (a reference named in the config whose item
  // this plan creates, `depends_on`) is created after it.
  for (const node of nodes) {
    if (node.phase === "delete") continue;
    for (const dep of (plan.changes[node.change] as Change).depends_on) {
      if (byId.has(opId(node.org, "create", dep))) node.after.add(opId(node.org, "create", dep));
    }
  }
  // Destroy edges (src/kinds/references.ts): an item is deleted after what names it by id
  // is gone (its referrers' deletes, and, for a delete rather than a re-create, the updates
  // that stop naming it).
  const edgeNodes = nodes.map((node) => ({
    id: node.id,
    phase: node.phase,
    org: node.org,
    change: plan.changes[node.change] as Change,
  }));
  for (const [first, then] of referenceEdges(edgeNodes, kinds)) byId.get(then)?.after.add(first);

  // Collections whose creates run before their deletes (src/kinds/contract.ts
  // `createsBeforeDeletes`: a context's restrictions, so the context never has fewer
  // restrictions, wider access, than either config allows).
  const firstCreates = new Map<string, string[]>();
  const createsFirst = (c: Change): boolean =>
    kindIn(kinds, c.resource_type).collection.createsBeforeDeletes === true;
  for (const node of nodes) {
    const c = plan.changes[node.change] as Change;
    if (node.phase === "create" && createsFirst(c)) {
      const k = `${node.org}\u0000${c.resource_type}\u0000${c.collection}`;
      // Appended in place: copying the list per node was quadratic in a collection's size.
      const ids = firstCreates.get(k);
      if (ids === undefined) firstCreates.set(k, [node.id]);
      else ids.push(node.id);
    }
  }
  // Except a create that needs the new id of an item this plan re-creates, when that item's
  // delete waits for this delete (a restriction naming a group whose description changed:
  // the old restriction goes before the old group, the new one needs the new group). Both
  // edges made a cycle and apply refused the plan; the context is without that group
  // restriction between the two either way, since the service deletes a group's
  // restrictions with it.
  const needsReCreatedAfter = (create: Node, del: string): boolean =>
    (plan.changes[create.change] as Change).depends_on.some(
      (dep) =>
        byId.has(opId(create.org, "create", dep)) &&
        byId.get(opId(create.org, "delete", dep))?.after.has(del) === true,
    );
  for (const node of nodes) {
    const c = plan.changes[node.change] as Change;
    if (node.phase !== "delete" || !createsFirst(c)) continue;
    for (const id of firstCreates.get(`${node.org}\u0000${c.resource_type}\u0000${c.collection}`) ??
      []) {
      const create = byId.get(id);
      if (create !== undefined && needsReCreatedAfter(create, node.id)) continue;
      node.after.add(id);
    }
  }

  // Serial collections (src/kinds/contract.ts `serial`: a per-parent limit): one operation
  // at a time, removals first, then replaces, then creates, so a slot is freed before one
  // is taken and at most one create-first replace holds an extra slot.
  const serial = new Map<string, Node[]>();
  for (const node of nodes) {
    const c = plan.changes[node.change] as Change;
    if (kindIn(kinds, c.resource_type).collection.serial !== true) continue;
    const k = `${node.org}\u0000${c.collection}`;
    const list = serial.get(k);
    if (list === undefined) serial.set(k, [node]);
    else list.push(node);
  }
  const rank = (n: Node): number => {
    const action = (plan.changes[n.change] as Change).action;
    return action === "delete" ? 0 : action === "replace" ? 1 : 2;
  };
  for (const list of serial.values()) {
    // Stable: a replace's two halves keep their order (the second already waits for the first).
    const ordered = [...list].sort((a, b) => rank(a) - rank(b));
    for (let i = 1; i < ordered.length; i++) {
      const prev = ordered[i - 1] as Node;
      const node = ordered[i] as Node;
      if (!node.after.has(prev.id) && !prev.after.has(node.id)) node.after.add(prev.id);
    }
  }

  // Kahn's algorithm, taking ready nodes in plan order (a min-heap on position) so the
  // result is deterministic and stays O(n log n) for thousands of operations.
  const position = new Map(nodes.map((n, i) => [n.id, i]));
  const indegree = new Map<string, number>();
  const dependents = new Map<string, string[]>();
  for (const node of nodes) {
    indegree.set(node.id, node.after.size);
    for (const a of node.after) {
      const list = dependents.get(a);
      if (list) list.push(node.id);
      else dependents.set(a, [node.id]);
    }
  }
  const heap = new MinHeap<Node>((n) => position.get(n.id) ?? 0);
  for (const n of nodes) if (n.after.size === 0) heap.push(n);
  const out: Operation[] = [];
  for (let n = heap.pop(); n !== undefined; n = heap.pop()) {
    out.push({
      id: n.id,
      change: n.change,
      phase: n.phase,
      org: n.org,
      address: n.address,
      after: [...n.after],
    });
    for (const d of dependents.get(n.id) ?? []) {
      const left = (indegree.get(d) ?? 0) - 1;
      indegree.set(d, left);
      if (left === 0) heap.push(byId.get(d) as Node);
    }
  }
  if (out.length !== nodes.length) {
    throw new PlanError("the plan's operations depend on each other in a cycle");
  }
  return { operations: out };
};

/** A binary min-heap on a numeric rank (local to one orderOperations call). */
class MinHeap<T> {
  readonly #items: T[] = [];
  readonly #rank: (t: T) => number;

  constructor(rank: (t: T) => number) {
    this.#rank = rank;
  }

  push(t: T): void {
    const a = this.#items;
    a.push(t);
    let i = a.length - 1;
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (this.#rank(a[p] as T) <= this.#rank(a[i] as T)) break;
      [a[p], a[i]] = [a[i] as T, a[p] as T];
      i = p;
    }
  }

  pop(): T | undefined {
    const a = this.#items;
    if (a.length === 0) return undefined;
    const top = a[0] as T;
    const last = a.pop() as T;
    if (a.length > 0) {
      a[0] = last;
      let i = 0;
      for (;;) {
        const l = 2 * i + 1;
        const r = l + 1;
        let m = i;
        if (l < a.length && this.#rank(a[l] as T) < this.#rank(a[m] as T)) m = l;
        if (r < a.length && this.#rank(a[r] as T) < this.#rank(a[m] as T)) m = r;
        if (m === i) break;
        [a[m], a[i]] = [a[i] as T, a[m] as T];
        i = m;
      }
    }
    return top;
  }
}
