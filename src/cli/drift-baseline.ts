/**
 * Drift baselines (issue 46; design.md §5 "Drift"): `drift --write-baseline FILE` records
 * today's drift, `drift --baseline FILE` reports the drift it holds as known (exit 0 when
 * nothing else differs) and anything else as new (exit 2), and names the entries that no
 * longer match any drift so they can be removed.
 *
 * What an entry holds: the org, the address, the action and a digest of the difference,
 * never a value. The digest is an HMAC-SHA-256 (full length, keyed by a random salt kept in
 * the file) over the plan's *masked* view of the difference (field paths, and values as the
 * plan shows them: a secret is `(sensitive)`, a credential URL masked), so no secret ever
 * reaches the hash. Decision: a secret that changes again while it drifts keeps its digest
 * (its masked view is the same); the field path is what the baseline knows of it.
 *
 * The file is data another party may have written: it is read with a size bound, checked
 * member by member, and a malformed one is a usage error naming the file (never "no drift").
 */
import { createHmac, randomBytes } from "node:crypto";
import { writePrivateFile } from "../apply/private-file.js";
import { UsageError } from "../core/errors.js";
import { readRegularFile } from "../core/read-regular.js";
import type { Change } from "../plan/types.js";

export const BASELINE_KIND = "waybill-drift-baseline";
const MAX_BASELINE_BYTES = 16 * 1024 * 1024;

export interface BaselineEntry {
  readonly org: string;
  readonly address: string;
  readonly action: Change["action"];
  /** `hmac-sha256:<hex>` of the masked difference, keyed by the file's salt. */
  readonly digest: string;
  /** The day (UTC, YYYY-MM-DD) this difference was first recorded. */
  readonly first_seen: string;
}

export interface Baseline {
  readonly format_version: 1;
  readonly kind: typeof BASELINE_KIND;
  /** Hex, 32 random bytes: keys the digests so equal differences in two files differ. */
  readonly salt: string;
  readonly entries: readonly BaselineEntry[];
}

/** What a drift is, compared with a baseline. */
export interface BaselineVerdict {
  /** Changes the baseline holds with the same digest. */
  readonly known: readonly Change[];
  /** Changes it does not hold, or holds with another digest (`changed`). */
  readonly fresh: readonly { readonly change: Change; readonly changed: boolean }[];
  /** Entries that match no change of this drift. */
  readonly stale: readonly BaselineEntry[];
}

/** The masked difference a digest covers: the action and each field's path and shown values. */
const differenceText = (c: Change): string =>
  JSON.stringify([
    c.action,
    c.fields.map((f) => [f.path, f.before, f.after, f.sensitive === true]),
    c.action === "create" || c.action === "delete" ? null : (c.notes ?? []),
  ]);

export const digestOf = (salt: string, c: Change): string =>
  `hmac-sha256:${createHmac("sha256", Buffer.from(salt, "hex")).update(differenceText(c)).digest("hex")}`;

const keyOf = (org: string, address: string): string => `${org}\u0000${address}`;

/** Compare a drift's changes with a baseline. */
export const compareWithBaseline = (
  baseline: Baseline,
  changes: readonly Change[],
): BaselineVerdict => {
  const byKey = new Map(baseline.entries.map((e) => [keyOf(e.org, e.address), e]));
  const matched = new Set<string>();
  const known: Change[] = [];
  const fresh: { change: Change; changed: boolean }[] = [];
  for (const c of changes) {
    const key = keyOf(c.org, c.address);
    const entry = byKey.get(key);
    if (
      entry !== undefined &&
      entry.action === c.action &&
      entry.digest === digestOf(baseline.salt, c)
    ) {
      matched.add(key);
      known.push(c);
    } else {
      if (entry !== undefined) matched.add(key);
      fresh.push({ change: c, changed: entry !== undefined });
    }
  }
  const stale = baseline.entries.filter((e) => !matched.has(keyOf(e.org, e.address)));
  return { known, fresh, stale };
};

/**
 * Today's drift as a baseline. An entry of `previous` with the same digest keeps its
 * first-seen day (so rewriting a baseline does not make old drift look new); the salt is
 * kept too, so unchanged entries keep their digests.
 */
export const baselineOf = (
  changes: readonly Change[],
  today: string,
  previous?: Baseline,
): Baseline => {
  const salt = previous?.salt ?? randomBytes(32).toString("hex");
  const before = new Map((previous?.entries ?? []).map((e) => [keyOf(e.org, e.address), e]));
  const entries = changes.map((c): BaselineEntry => {
    const digest = digestOf(salt, c);
    const old = before.get(keyOf(c.org, c.address));
    return {
      org: c.org,
      address: c.address,
      action: c.action,
      digest,
      first_seen: old !== undefined && old.digest === digest ? old.first_seen : today,
    };
  });
  return { format_version: 1, kind: BASELINE_KIND, salt, entries };
};

/** Written whole or not at all (a temp file in the same folder, synced, then renamed). */
export const writeBaseline = (path: string, baseline: Baseline): Promise<void> =>
  writePrivateFile(path, `${JSON.stringify(baseline, null, 2)}\n`);

const ACTIONS: readonly string[] = ["create", "update", "replace", "delete"];
const isString = (v: unknown): v is string => typeof v === "string";

/** Read and check a baseline file; every flaw is a UsageError naming the file and the fix. */
export const readBaseline = (path: string): Baseline => {
  const read = readRegularFile(path, MAX_BASELINE_BYTES);
  const bad = (why: string): UsageError =>
    new UsageError(
      `--baseline ${path}: ${why}; write one with \`waybill drift --write-baseline ${path}\``,
    );
  if (!read.ok) throw bad(`cannot read it (${read.reason})`);
  let doc: unknown;
  try {
    doc = JSON.parse(read.bytes.toString("utf8"));
  } catch {
    throw bad("not JSON");
  }
  if (doc === null || typeof doc !== "object" || Array.isArray(doc)) throw bad("not a JSON object");
  const o = doc as Record<string, unknown>;
  if (o.kind !== BASELINE_KIND || o.format_version !== 1) {
    throw bad(`not a drift baseline (kind "${BASELINE_KIND}", format_version 1)`);
  }
  if (!isString(o.salt) || !/^[0-9a-f]{64}$/.test(o.salt))
    throw bad("its salt is not 64 hex digits");
  if (!Array.isArray(o.entries)) throw bad("entries is not a list");
  const entries = o.entries.map((e: unknown, i): BaselineEntry => {
    const x = (e ?? {}) as Record<string, unknown>;
    if (
      !isString(x.org) ||
      !isString(x.address) ||
      !isString(x.action) ||
      !ACTIONS.includes(x.action) ||
      !isString(x.digest) ||
      !/^hmac-sha256:[0-9a-f]{64}$/.test(x.digest) ||
      !isString(x.first_seen) ||
      !/^\d{4}-\d{2}-\d{2}$/.test(x.first_seen)
    ) {
      throw bad(`entries[${i}] is not { org, address, action, digest, first_seen }`);
    }
    return {
      org: x.org,
      address: x.address,
      action: x.action as Change["action"],
      digest: x.digest,
      first_seen: x.first_seen,
    };
  });
  return { format_version: 1, kind: BASELINE_KIND, salt: o.salt, entries };
};
