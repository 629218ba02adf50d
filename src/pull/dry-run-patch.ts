/**
 * `pull --dry-run`'s output (issue 41 "pull --dry-run shows the file's own lines"): a unified
 * diff that is a patch of the file — its context lines are the file's own text, so `patch`
 * applies it and gives what `pull` would write — and that holds no secret.
 *
 * Before, the whole diff went through the secret redactor, which masks prefixes and runs of
 * 8 characters of every secret: any line sharing `https://hooks.slack.com/` with a webhook
 * URL showed `(sensitive)`, and the diff no longer applied. Now a line is masked only when
 * it holds a secret: a scalar of the file whose value is a secret value (a literal env var
 * value, a webhook URL written in clear, a value the loader read from `${env:}` that also
 * stands written somewhere), or a line that holds such a value verbatim (a comment).
 *
 * Decision: such a line is never printed as context. A hunk is cut where a masked context
 * line stands, and each piece keeps as many context lines before its changes as after (GNU
 * patch, with no fuzz, anchors a hunk whose context is lopsided to the start or end of the
 * file), unless the file's start or end is what cut it. A change right next to a masked
 * line so gets no context at all, which `patch` applies by line number (`git apply` needs
 * `--unidiff-zero` for it). A masked line that pull itself changes (a literal URL replaced
 * by a `${env:}` placeholder) is printed masked: the diff no longer applies there, and the
 * count of such lines is returned so the command can say so. Pure.
 */
import { diffArrays } from "diff";
import { isPair, isScalar, isSeq, parseAllDocuments, visit } from "yaml";
import { stripControls } from "../core/controls.js";
import { lineOf, lineStarts } from "./fmt.js";

/** What a masked value is shown as (the redactor's REDACTION, src/model/redactor.ts). */
const MASK = "(sensitive)";

/**
 * Values this short are too often an ordinary word to mask a whole line for holding them
 * verbatim (a comment saying `main`); a scalar that *is* the value is masked at any length.
 */
const VERBATIM_MIN = 8;

/** Per line (0-based), the column ranges to mask: [from, to) in the line's text. */
type LineMasks = Map<number, [number, number][]>;

const addMask = (masks: LineMasks, line: number, from: number, to: number): void => {
  const list = masks.get(line);
  if (list) list.push([from, to]);
  else masks.set(line, [[from, to]]);
};

/** A place in a YAML document: map keys and list indexes from the root. */
export type YamlPath = readonly (string | number)[];

/** The path of a value node from `visit`'s ancestors; undefined for a map key. */
const pathOf = (ancestors: readonly unknown[], node: unknown): YamlPath | undefined => {
  const chain = [...ancestors, node];
  const out: (string | number)[] = [];
  for (let i = 0; i + 1 < chain.length; i++) {
    const a = chain[i];
    const next = chain[i + 1];
    if (isPair(a)) {
      if (a.value !== next) return undefined;
      out.push(isScalar(a.key) ? String(a.key.value) : "");
    } else if (isSeq(a)) out.push(a.items.indexOf(next as never));
  }
  return out;
};

/** Only `${env:…}`/`${file:…}` references: a placeholder, which names no secret. */
const onlyReferences = (s: string): boolean =>
  s.replace(/\$\{(?:env|file):[^}]*\}/g, "").trim() === "";

/**
 * The lines of `text` that hold a secret, with where on each line: a scalar whose value is
 * one of `secrets`, or a literal in a place `isSecretPath` names (a webhook URL written in a
 * template no item extends is known to no loaded item).
 */
export const secretLines = (
  text: string,
  secrets: ReadonlySet<string>,
  isSecretPath: (path: YamlPath) => boolean = () => false,
): LineMasks => {
  const masks: LineMasks = new Map();
  const starts = lineStarts(text);
  // A scalar whose value is a secret, however it is written (plain, quoted with escapes,
  // a block over several lines): every line of its source range.
  for (const doc of parseAllDocuments(text)) {
    if (!("contents" in doc)) continue;
    visit(doc, {
      Scalar(_key, node, ancestors) {
        if (!isScalar(node) || typeof node.value !== "string") return;
        const value = node.value;
        const known = secrets.has(value);
        if (!known) {
          if (onlyReferences(value)) return;
          const path = pathOf(ancestors, node);
          if (path === undefined || !isSecretPath(path)) return;
        }
        const range = node.range;
        if (!range) return;
        const [from, to] = [range[0], range[1]];
        const first = lineOf(starts, from);
        const last = lineOf(starts, Math.max(from, to - 1));
        for (let l = first; l <= last; l++) {
          const start = starts[l] ?? 0;
          const end = (starts[l + 1] ?? text.length + 1) - 1;
          addMask(masks, l, Math.max(from, start) - start, Math.min(to, end) - start);
        }
      },
    });
  }
  // A secret written verbatim anywhere else on a line (a comment, a longer value).
  const long = [...secrets].filter((s) => s.length >= VERBATIM_MIN && !s.includes("\n"));
  if (long.length > 0) {
    const lines = text.split("\n");
    lines.forEach((line, l) => {
      for (const s of long) {
        for (let i = line.indexOf(s); i !== -1; i = line.indexOf(s, i + 1)) {
          addMask(masks, l, i, i + s.length);
        }
      }
    });
  }
  return masks;
};

/** The line with its masked ranges replaced by MASK (overlapping ranges become one). */
const maskLine = (line: string, ranges: readonly [number, number][]): string => {
  const sorted = [...ranges].sort((a, b) => a[0] - b[0]);
  let out = "";
  let at = 0;
  for (const [from, to] of sorted) {
    if (to <= at) continue;
    if (from >= at) out += line.slice(at, from) + MASK;
    at = to;
  }
  return out + line.slice(at);
};

/** The lines of a text; the last one is marked when the text does not end with a newline. */
const linesOf = (text: string): { lines: string[]; noFinalNewline: boolean } => {
  if (text === "") return { lines: [], noFinalNewline: false };
  const lines = text.split("\n");
  const noFinalNewline = !text.endsWith("\n");
  if (!noFinalNewline) lines.pop();
  return { lines, noFinalNewline };
};

/** One line of the diff of the whole file: equal (' '), removed ('-') or added ('+'). */
interface Entry {
  readonly op: " " | "-" | "+";
  readonly text: string;
  /** 0-based line in the old file (equal and removed lines), else -1. */
  readonly old: number;
  /** 0-based line in the new file (equal and added lines), else -1. */
  readonly new: number;
  /** Old and new lines before this entry (where a side with no lines in a hunk stands). */
  readonly oldBefore: number;
  readonly newBefore: number;
}

export interface DryRunPatch {
  /** The unified diff (empty when the texts are equal). */
  readonly text: string;
  /** Changed lines printed masked: where the diff is not a patch of the file. */
  readonly maskedChanges: number;
}

/** Context lines around a change, as `diff -u` and git write. */
const CONTEXT = 3;

/** Marks a last line with no newline, so it never equals the same text with one. */
const NO_NEWLINE = "\u0000no-newline";

/**
 * The unified diff of one file (`path` in the headers, labelled "config" and "pulled"),
 * with every line that holds one of `secrets` masked and never used as context.
 */
export const dryRunPatch = (
  path: string,
  before: string,
  after: string,
  secrets: Iterable<string>,
  isSecretPath?: (path: YamlPath) => boolean,
): DryRunPatch => {
  const secretSet = new Set([...secrets].filter((s) => s !== ""));
  const oldMasks = secretLines(before, secretSet, isSecretPath);
  const newMasks = secretLines(after, secretSet, isSecretPath);
  const a = linesOf(before);
  const b = linesOf(after);
  const key = (side: typeof a, i: number): string =>
    side.noFinalNewline && i === side.lines.length - 1
      ? `${side.lines[i]}${NO_NEWLINE}`
      : (side.lines[i] ?? "");
  const entries: Entry[] = [];
  let o = 0;
  let n = 0;
  const oldKeys = a.lines.map((_, i) => key(a, i));
  const newKeys = b.lines.map((_, i) => key(b, i));
  for (const part of diffArrays(oldKeys, newKeys)) {
    for (let k = 0; k < part.value.length; k++) {
      const base = { oldBefore: o, newBefore: n };
      if (part.removed)
        entries.push({ ...base, op: "-", text: a.lines[o] ?? "", old: o++, new: -1 });
      else if (part.added)
        entries.push({ ...base, op: "+", text: b.lines[n] ?? "", old: -1, new: n++ });
      else entries.push({ ...base, op: " ", text: a.lines[o] ?? "", old: o++, new: n++ });
    }
  }
  const changed = (e: Entry | undefined): boolean => e !== undefined && e.op !== " ";
  // A context line that holds a secret (on either side) is a barrier: never printed.
  const barrier = (e: Entry): boolean =>
    e.op === " " && (oldMasks.has(e.old) || newMasks.has(e.new));

  // Group the changes into hunks: two changes share one when the equal lines between them
  // are few (2 × CONTEXT at most, as diff -u) and none of them is a barrier.
  const hunks: { first: number; last: number }[] = [];
  for (let i = 0; i < entries.length; i++) {
    if (!changed(entries[i])) continue;
    const prev = hunks[hunks.length - 1];
    if (prev !== undefined) {
      const gap = entries.slice(prev.last + 1, i);
      if (gap.length <= 2 * CONTEXT && !gap.some(barrier)) {
        prev.last = i;
        continue;
      }
    }
    hunks.push({ first: i, last: i });
  }

  let maskedChanges = 0;
  const out: string[] = [];
  for (const h of hunks) {
    // The context each side may take: up to CONTEXT equal lines, stopping at a barrier.
    let lead = 0;
    while (
      lead < CONTEXT &&
      h.first - lead - 1 >= 0 &&
      !barrier(entries[h.first - lead - 1] as Entry)
    )
      lead++;
    let trail = 0;
    while (
      trail < CONTEXT &&
      h.last + trail + 1 < entries.length &&
      !barrier(entries[h.last + trail + 1] as Entry)
    )
      trail++;
    // GNU patch (no fuzz) reads lopsided context as "at the start (end) of the file": so
    // the longer side is cut to the shorter, unless the shorter one is short because the
    // file starts (ends) there.
    const atStart = h.first - lead === 0;
    const atEnd = h.last + trail === entries.length - 1;
    if (lead < trail && !atStart) trail = lead;
    else if (trail < lead && !atEnd) lead = trail;
    const hunk = entries.slice(h.first - lead, h.last + trail + 1);
    const start = hunk[0] as Entry;
    const oldLines = hunk.filter((e) => e.op !== "+").length;
    const newLines = hunk.filter((e) => e.op !== "-").length;
    // Unified diff: a side with no lines names the line before the hunk (GNU diff's rule).
    const oldStart = oldLines === 0 ? start.oldBefore : start.oldBefore + 1;
    const newStart = newLines === 0 ? start.newBefore : start.newBefore + 1;
    out.push(`@@ -${oldStart},${oldLines} +${newStart},${newLines} @@`);
    for (const e of hunk) {
      const masks =
        e.op === "-" ? oldMasks.get(e.old) : e.op === "+" ? newMasks.get(e.new) : undefined;
      if (masks !== undefined) maskedChanges++;
      out.push(`${e.op}${printable(masks === undefined ? e.text : maskLine(e.text, masks))}`);
      const lastOld = e.old !== -1 && a.noFinalNewline && e.old === a.lines.length - 1;
      const lastNew = e.new !== -1 && b.noFinalNewline && e.new === b.lines.length - 1;
      if (lastOld || lastNew) out.push("\\ No newline at end of file");
    }
  }
  if (out.length === 0) return { text: "", maskedChanges: 0 };
  const header = [
    `Index: ${printable(path)}`,
    "===================================================================",
    `--- ${printable(path)}\tconfig`,
    `+++ ${printable(path)}\tpulled`,
  ];
  return { text: `${[...header, ...out].join("\n")}\n`, maskedChanges };
};

/**
 * Issue 30/41: the file's own text may hold a control character (a bidi override in a
 * comment): never printed raw. A line's final CR (a CRLF file) is kept, so the diff of such
 * a file still applies.
 */
const printable = (line: string): string =>
  line.endsWith("\r") ? `${stripControls(line.slice(0, -1))}\r` : stripControls(line);
