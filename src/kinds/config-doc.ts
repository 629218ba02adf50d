/**
 * Config documents as plain data: what a kind's `toConfig` (live → config, for
 * `waybill export`; src/kinds/contract.ts) writes. Here, below src/export, so a kind can
 * build its part of an exported config without importing the export (layers: export →
 * plan → kinds → model). Pure: no I/O; the export (src/export/build.ts) walks the kinds,
 * names the env var placeholders and renders the YAML.
 */
import { RESERVED_KEYS, reservedKeyReason } from "../core/reserved-keys.js";

/** A placeholder asked for by a kind, before collisions are resolved (src/export/env-names.ts). */
export interface EnvNameRequest {
  /** Name parts, each turned into a name token: `["CTX", "deploy-prod", "AWS_REGION"]`. */
  readonly parts: readonly string[];
  /** The address the variable feeds, e.g. `context["deploy-prod"].env["AWS_REGION"]`. */
  readonly address: string;
  /**
   * What the value is, for the stderr list ("env var", "signing_secret", "exporter header"):
   * the kind's own words, so a new kind's secret needs no edit here.
   */
  readonly what: string;
}

/**
 * A `${env:NAME}` placeholder whose variable name is given once every request of the export
 * is known (names depend on the whole export: src/export/env-names.ts).
 */
export class EnvRef {
  constructor(readonly request: EnvNameRequest) {}
}

/** A config document as plain data (maps keep insertion order = output order). */
export type DocValue = string | number | boolean | null | EnvRef | DocValue[] | DocMap;
export interface DocMap {
  [key: string]: DocValue;
}

/**
 * Something live that the config format cannot express: written as an `ignore` entry.
 * Decision: such an item (two live items with one key, a webhook scope other than
 * `project`, vcs triggers of one repo that only
 * differ by id, ...) is not guessed at: its address goes under `ignore`, with the reason as
 * a comment and a warning on stderr, so plan neither deletes it nor reports it, and a human
 * decides (pin one with `id:`, or fix it in the service).
 */
export interface IgnoreEntry {
  /** The address glob (an exact address). */
  readonly glob: string;
  /** Why, as a YAML comment and a warning. */
  readonly reason: string;
  /**
   * An item Waybill cannot name (design.md §5 "Reading the real service"): written as a
   * comment only, not under `ignore`, so plan and drift still list it as unknown (and never
   * change it).
   */
  readonly commentOnly?: true;
}

/** Why one live item cannot be written (it goes under `ignore` with this reason). */
export interface Skip {
  readonly skip: string;
}

export const isSkip = (v: unknown): v is Skip =>
  typeof v === "object" &&
  v !== null &&
  !Array.isArray(v) &&
  !(v instanceof EnvRef) &&
  typeof (v as { skip?: unknown }).skip === "string" &&
  Object.keys(v).length === 1;

/**
 * Where a kind's items are written: the names of their parents in the config. `project`: the
 * project's slug (for project kinds and their descendants); `parent`: the key of the parent
 * item of another kind (a context's name for its env vars and restrictions, a pipeline's name
 * for its triggers).
 */
export interface ConfigScope {
  readonly project?: string;
  readonly parent?: string;
}

/** A scope name a kind's addresses need; missing is a programming error (the walk sets it). */
export const scopeName = (scope: ConfigScope, name: "project" | "parent"): string => {
  const v = scope[name];
  if (v === undefined) throw new Error(`toConfig needs the ${name} name`);
  return v;
};

/** What a kind's `toConfig` may ask of the export. */
export interface ConfigContext {
  /** A `${env:NAME}` placeholder for a secret the service never returns (named later). */
  env(parts: readonly string[], address: string, what: EnvNameRequest["what"]): EnvRef;
  /**
   * `export --inline-urls`: write credential-bearing URLs (a webhook's url) in clear;
   * otherwise they become `${env:NAME}` placeholders like secrets (issue 30).
   */
  readonly inlineUrls?: boolean;
}

/**
 * One outcome of `toConfig`, in output order: an item written under `key` (its document; for
 * a kind that is another kind's parent, a map the export adds the children's collections
 * to), or an address left under `ignore`.
 */
export type ConfigEntry<L> =
  | { readonly written: string; readonly item: L; readonly doc: DocValue }
  | { readonly ignored: IgnoreEntry };

/**
 * The config loader reads `$${` as a literal `${` in every plain string and treats `${env:`
 * / `${file:` as a reference (src/config/references.ts), so a live value that holds `${` is
 * written with it doubled, and reads back as the same text.
 */
// A replacer function: in a replacement string `$$` would mean one `$`.
export const escapeText = (s: string): string => s.replaceAll("${", () => "$${");

/** A name the config format accepts for an env var (the schema's pattern). */
export const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** A project's short name (the part after the org), for variable and file names. */
export const projectShortName = (slug: string): string =>
  slug.split("/").slice(2).join("/") || slug;

export const byString =
  <T>(key: (t: T) => string) =>
  (a: T, b: T): number => {
    const ka = key(a);
    const kb = key(b);
    return ka < kb ? -1 : ka > kb ? 1 : 0;
  };

/** The ids of items that share one key, sorted, for messages. */
export const idsOf = (list: readonly { readonly id: string }[]): string =>
  list
    .map((x) => x.id)
    .sort()
    .join(", ");

/** Group items by key, keeping the first-seen order of keys. */
export const groupBy = <T>(items: readonly T[], key: (t: T) => string): Map<string, T[]> => {
  const out = new Map<string, T[]>();
  for (const item of items) {
    const k = key(item);
    const list = out.get(k);
    if (list) list.push(item);
    else out.set(k, [item]);
  }
  return out;
};

/**
 * The entries of a kind whose items are named (contexts, webhooks, pipelines), sorted by
 * name: a name shared by several live items, or an empty one, goes under `ignore` (the config
 * could not say which is meant); every other item is written by `doc`, or ignored with its
 * skip reason.
 */
export const namedEntries = <L extends { readonly id: string; readonly name: string }>(
  items: readonly L[],
  noun: string,
  address: (name: string) => string,
  doc: (l: L) => DocValue | Skip,
): ConfigEntry<L>[] => {
  const out: ConfigEntry<L>[] = [];
  const byName = groupBy(items, (x) => x.name);
  for (const name of [...byName.keys()].sort()) {
    const list = byName.get(name) ?? [];
    if (RESERVED_KEYS.has(name)) {
      out.push({ ignored: { glob: address(name), reason: reservedKeyReason(name) } });
      continue;
    }
    if (list.length > 1 || name === "") {
      out.push({
        ignored: {
          glob: address(name),
          reason:
            name === ""
              ? `the ${noun} has an empty name`
              : `${list.length} live ${noun}s share this name (ids ${idsOf(list)}); to manage one, declare it with id: and remove this entry (plan would then delete the others)`,
        },
      });
      continue;
    }
    const item = list[0]!;
    const d = doc(item);
    out.push(
      isSkip(d)
        ? { ignored: { glob: address(name), reason: d.skip } }
        : { written: name, item, doc: d },
    );
  }
  return out;
};

/**
 * The entries of an env var kind: one placeholder per name, sorted (a name listed twice is
 * one variable); a name the config format cannot hold goes under `ignore`.
 */
export const envVarEntries = <L extends { readonly name: string }>(
  items: readonly L[],
  address: (name: string) => string,
  placeholder: (name: string, address: string) => EnvRef,
): ConfigEntry<L>[] => {
  const out: ConfigEntry<L>[] = [];
  const first = new Map<string, L>();
  for (const l of items) if (!first.has(l.name)) first.set(l.name, l);
  for (const name of [...first.keys()].sort()) {
    const a = address(name);
    if (RESERVED_KEYS.has(name)) {
      out.push({ ignored: { glob: a, reason: reservedKeyReason(name) } });
      continue;
    }
    if (!ENV_NAME.test(name)) {
      out.push({
        ignored: {
          glob: a,
          reason: "the name is not a valid environment variable name in the config format",
        },
      });
      continue;
    }
    out.push({ written: name, item: first.get(name)!, doc: placeholder(name, a) });
  }
  return out;
};

/**
 * Settings as the service returns them, keys in the spec's order. Decision: every setting
 * the service returns is written (there are no documented defaults to leave out), and keys
 * the config format does not know are left out (they stay unmanaged).
 */
export const settingsDoc = (live: object, names: readonly string[]): DocMap => {
  const values = new Map<string, unknown>(Object.entries(live));
  const out: DocMap = {};
  for (const name of names) {
    const v = values.get(name);
    if (typeof v === "boolean") out[name] = v;
    else if (Array.isArray(v) && v.every((x) => typeof x === "string" && x !== "")) {
      out[name] = [...new Set(v as string[])].map(escapeText);
    }
  }
  return out;
};

/** A vcs repo as the config writes it (pipelines' config/checkout, vcs triggers' event). */
export interface VcsLike {
  readonly provider: string;
  readonly repo_id: string;
  readonly repo_full_name: string;
}

export const vcsDoc = (v: VcsLike): DocMap => ({
  provider: escapeText(v.provider),
  repo_id: escapeText(String(v.repo_id)),
  repo_full_name: escapeText(v.repo_full_name),
});

/** Whether a live vcs part has what the config format requires (every field non-empty). */
export const hasVcs = (v: unknown): v is VcsLike =>
  typeof v === "object" &&
  v !== null &&
  ["provider", "repo_id", "repo_full_name"].every((k) => {
    const x = (v as Record<string, unknown>)[k];
    return (typeof x === "string" && x !== "") || typeof x === "number";
  });
