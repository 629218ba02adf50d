/**
 * Issue 21: YAML aliases checked and expanded in one linear pass over a parsed document.
 *
 * The old check asked `yaml` to resolve each alias, which searches the whole document per
 * alias, and `toJS` does the same when it counts aliases: a 45 KB file of aliases took 15 s
 * and a 183 KB one over two minutes. Here the document is walked once, in document order:
 * an anchor is known from where it is written (an alias names the latest anchor of that name
 * before it), the nodes on the path from the root tell a recursive alias (`&a [*a]`), and the
 * size of each node once its aliases are expanded is computed once and reused. Both bounds
 * hold before anything is expanded: the number of aliases, and the number of nodes they add
 * (a "billion laughs" file adds billions from a few lines; merge keys, `<<: *a`, are aliases
 * like any other here).
 *
 * When the document passes, every alias is replaced in place by the node it names, so the
 * plain value is built without `yaml`'s per-alias searches (the nodes they add are bounded).
 * The document is dropped after that: positions come from a parse of the text as written
 * (yaml-doc.ts).
 */
import type * as Yaml from "yaml";

/**
 * Decision: at most 10,000 aliases per file, adding at most 100,000 nodes in all. A config
 * that uses anchors for shared settings has tens of aliases adding hundreds of nodes; the
 * bounds keep every later walk of the value (schema, rules, build) under a second.
 */
export const DEFAULT_ALIAS_LIMITS = { count: 10_000, nodes: 100_000 } as const;

export interface AliasLimits {
  readonly count: number;
  readonly nodes: number;
}

export type AliasCheck =
  | {
      readonly ok: true;
      readonly aliases: number;
      readonly added: number;
    }
  | {
      readonly ok: false;
      readonly problem: "recursive" | "too_many" | "too_large";
      /** The source offset of the alias at fault. */
      readonly offset: number | undefined;
    };

type YamlApi = Pick<typeof Yaml, "isAlias" | "isMap" | "isPair" | "isScalar" | "isSeq">;

/** A place that holds a node: a pair's key or value, or a sequence item. */
type Slot =
  | { readonly kind: "key" | "value"; readonly pair: Yaml.Pair<unknown, unknown> }
  | { readonly kind: "item"; readonly seq: Yaml.YAMLSeq<unknown>; readonly index: number };

const offsetOf = (node: unknown): number | undefined =>
  (node as { range?: readonly number[] } | null)?.range?.[0];

/**
 * Check the aliases of `doc` against `limits`; when they pass, replace each alias by the node
 * it names (an unknown anchor is left to `yaml`, which reports it).
 */
export const expandAliases = (
  yaml: YamlApi,
  doc: Yaml.Document.Parsed,
  limits: AliasLimits = DEFAULT_ALIAS_LIMITS,
): AliasCheck => {
  const anchors = new Map<string, unknown>();
  const open = new Set<unknown>();
  const sizes = new Map<unknown, number>();
  const replacements: { slot: Slot; target: unknown }[] = [];
  let aliases = 0;
  let added = 0;
  let failure: AliasCheck | undefined;

  const fail = (problem: "recursive" | "too_many" | "too_large", node: unknown): number => {
    failure ??= { ok: false, problem, offset: offsetOf(node) };
    return 0;
  };

  // The size of a node with its aliases expanded; 0 once a failure is recorded (the walk
  // then unwinds without doing more work).
  const size = (node: unknown, slot: Slot | undefined): number => {
    if (failure) return 0;
    if (node === null || node === undefined) return 1;
    if (yaml.isAlias(node)) {
      aliases += 1;
      if (aliases > limits.count) return fail("too_many", node);
      const target = anchors.get(node.source);
      if (target === undefined) return 1;
      if (open.has(target)) return fail("recursive", node);
      const n = sizes.get(target) ?? 1;
      added += n - 1;
      if (added > limits.nodes) return fail("too_large", node);
      if (slot) replacements.push({ slot, target });
      return n;
    }
    const anchor = (node as { anchor?: string }).anchor;
    if (anchor !== undefined) anchors.set(anchor, node);
    let n = 1;
    open.add(node);
    if (yaml.isMap(node)) {
      for (const pair of node.items) {
        if (!yaml.isPair(pair)) continue;
        n += size(pair.key, { kind: "key", pair });
        n += size(pair.value, { kind: "value", pair });
      }
    } else if (yaml.isSeq(node)) {
      node.items.forEach((item, index) => {
        n += size(item, { kind: "item", seq: node, index });
      });
    }
    open.delete(node);
    sizes.set(node, n);
    return n;
  };

  size(doc.contents, undefined);
  if (failure) return failure;
  const fill = (slot: Slot, node: unknown): void => {
    if (slot.kind === "item") slot.seq.items[slot.index] = node;
    else if (slot.kind === "key") slot.pair.key = node;
    else slot.pair.value = node;
  };
  for (const { slot, target } of replacements) fill(slot, target);
  return { ok: true, aliases, added };
};
