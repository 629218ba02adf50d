/**
 * One-pass redaction of secret values in any text (issue 21 "Echoed secrets"; issue 22
 * item 2: the old scrubber split every text once per secret, 27 of 39 s of a 2,000-project
 * plan with 20,000 secrets).
 *
 * Every secret is expanded into the forms it can take in a text a service sends back
 * (`secretForms`): raw, JSON-escaped (once, twice, ASCII-only with `\uXXXX`, with `\/`),
 * HTML-escaped, URL-encoded, and base64 (standard and URL alphabets, at each of the 3 byte
 * alignments it can have inside a longer encoded blob). All forms go into one Aho-Corasick
 * automaton; a text is then read once, and every character that belongs to an occurrence of
 * a form, or of a prefix of a form at least `PREFIX_MIN` characters long (a service that cuts
 * an echoed value short), is replaced; adjacent and overlapping occurrences become one mask.
 *
 * Building is linear in the total size of the forms, redacting linear in the text (the
 * number of automaton moves is at most twice the text's length; a child is found by walking
 * a node's siblings, so a move costs at most the alphabet at that node). The automaton lives
 * in typed arrays: 20,000 secrets take tens of MB, not a Map per node.
 */

import { isCredentialLabel } from "./url-mask.js";

/**
 * Values shorter than this are left alone: they would mangle ordinary words (`true`, `main`)
 * and are not secret in practice.
 */
export const MIN_SECRET_LENGTH = 4;

/**
 * Decision: a prefix of a secret (of any of its forms) is masked from 10 characters on. A
 * service that truncates an echoed value (the issue saw 14 characters of a value and of the
 * token) leaks the start of it; below 10 characters the start of a secret is too often an
 * ordinary word or URL start (`production`, `https://`) that error messages need, and leaks
 * at most ~60 bits of a random token, of which the service already shows the last four
 * characters (spec: api-v3.md "Context environment variable": `truncated_value`). The secret itself is masked at any length
 * from MIN_SECRET_LENGTH on.
 */
export const PREFIX_MIN = 10;

/**
 * Base64 fragments shorter than this are not masked: encoded ids and hashes are common in
 * bodies, and a fragment this short encodes under five bytes of the secret.
 */
const BASE64_MIN = 6;

export const REDACTION = "(sensitive)";

/**
 * Decision (issue 30 "Secrets in echoes"): any run of PARTIAL_MIN characters or more of a
 * secret — a suffix, a middle, in another letter case (ASCII), or of its hex encoding
 * (either case) — is masked like the whole value. A service that quotes "…the value ending
 * in 3kLm9QzX" or lower-cases what it echoes leaks that much of the secret; 8 characters are
 * 48 bits or more of a random token. Below 8 the run is too often an ordinary word shared
 * with a secret (`main`, `true`, the last four characters the spec itself returns). Runs that
 * hold `://` are not used, nor the scheme and host of a URL-valued secret: those are shared
 * with every URL an error cites, and are not the secret part. Only the raw, JSON-escaped, URL-encoded and hex forms take part (the others are
 * masked whole or by prefix, as before): a set of every 8-character window of those forms,
 * looked up once per position of a text.
 */
export const PARTIAL_MIN = 8;

const URL_HEAD = /^[A-Za-z][A-Za-z0-9+.-]*:\/\/[^/?#\s]*/;

/** ASCII letters lower-cased, every other character kept: the length never changes. */
const asciiLower = (s: string): string => s.replace(/[A-Z]/g, (c) => c.toLowerCase());

const hexOf = (s: string): string =>
  Array.from(new TextEncoder().encode(s), (b) => b.toString(16).padStart(2, "0")).join("");

/** The forms of a secret whose every PARTIAL_MIN-character run is masked (lower-cased). */
export const partialForms = (value: string): string[] => {
  if (value.length < MIN_SECRET_LENGTH) return [];
  // A URL-valued secret's scheme and host are not secret, and every error that cites a URL
  // shares runs with them (`https://`, `.example.`): only what follows the host takes part.
  // Issue 43: but a host label that is itself the credential (a request bin's random host
  // name, src/model/url-mask.ts `isCredentialLabel`) takes part too, on its own.
  const head = URL_HEAD.exec(value)?.[0];
  const labels =
    head === undefined
      ? []
      : head
          .replace(/^[^:]*:\/\//, "")
          .replace(/^[^@]*@/, "")
          .replace(/:\d+$/, "")
          .split(".")
          .filter(isCredentialLabel);
  const forms = new Set<string>();
  for (const secret of [value.replace(URL_HEAD, ""), ...labels]) {
    if (secret.length < PARTIAL_MIN) continue;
    forms.add(secret);
    forms.add(jsonEscape(secret));
    forms.add(hexOf(secret));
    const component = tryEncode(encodeURIComponent, secret);
    if (component !== undefined) forms.add(component);
  }
  return [...forms].map(asciiLower).filter((f) => f.length >= PARTIAL_MIN);
};

/** Every PARTIAL_MIN-character window of the partial forms (none holding `://`). */
const partialWindows = (secrets: Iterable<string>): Set<string> => {
  const out = new Set<string>();
  for (const s of secrets) {
    for (const f of partialForms(s)) {
      for (let i = 0; i + PARTIAL_MIN <= f.length; i++) {
        const w = f.slice(i, i + PARTIAL_MIN);
        if (!w.includes("://")) out.add(w);
      }
    }
  }
  return out;
};

/** [start, end) runs of `text` covered by a window of `windows`, merged, in order. */
const partialRuns = (text: string, windows: ReadonlySet<string>): [number, number][] => {
  const runs: [number, number][] = [];
  if (windows.size === 0 || text.length < PARTIAL_MIN) return runs;
  const lower = asciiLower(text);
  for (let i = 0; i + PARTIAL_MIN <= lower.length; i++) {
    if (!windows.has(lower.slice(i, i + PARTIAL_MIN))) continue;
    const last = runs[runs.length - 1];
    if (last !== undefined && i <= last[1]) last[1] = i + PARTIAL_MIN;
    else runs.push([i, i + PARTIAL_MIN]);
  }
  return runs;
};

const hex4 = (code: number, upper: boolean): string => {
  const h = code.toString(16).padStart(4, "0");
  return upper ? h.toUpperCase() : h;
};

/** JSON string escaping as JSON.stringify does it, without the quotes. */
const jsonEscape = (s: string): string => JSON.stringify(s).slice(1, -1);

/** JSON escaping of everything outside printable ASCII as `\uXXXX` (Python's ensure_ascii). */
const jsonAsciiEscape = (s: string, upper: boolean): string => {
  let out = "";
  for (const ch of jsonEscape(s)) {
    const code = ch.charCodeAt(0);
    if (ch.length === 1 && code >= 0x20 && code < 0x7f) out += ch;
    else for (let i = 0; i < ch.length; i++) out += `\\u${hex4(ch.charCodeAt(i), upper)}`;
  }
  return out;
};

const HTML: Readonly<Record<string, string>> = {
  "&": "&amp;",
  "<": "&lt;",
  ">": "&gt;",
  '"': "&quot;",
  "'": "&#39;",
};
const htmlEscape = (s: string): string => s.replace(/[&<>"']/g, (c) => HTML[c] ?? c);

const tryEncode = (f: (s: string) => string, s: string): string | undefined => {
  try {
    return f(s);
  } catch {
    // A lone surrogate cannot be URL-encoded: no URL can hold this form of it.
    return undefined;
  }
};

const B64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/**
 * The base64 characters that depend only on the secret's bytes when it starts `offset` bytes
 * into a 3-byte group of a longer blob: character i covers bits [6i, 6i+6) of the stream.
 */
const base64Core = (bytes: Uint8Array, offset: number): string => {
  const stream = new Uint8Array(offset + bytes.length + 2);
  stream.set(bytes, offset);
  const first = Math.ceil((8 * offset) / 6);
  const end = Math.floor((8 * (offset + bytes.length)) / 6);
  let out = "";
  for (let i = first; i < end; i++) {
    const bit = 6 * i;
    const byte = bit >> 3;
    const word = (stream[byte] ?? 0) * 256 + (stream[byte + 1] ?? 0);
    out += B64[(word >> (10 - (bit & 7))) & 63];
  }
  return out;
};

/** Every form a secret can take in a text (duplicates removed, too-short forms left out). */
export const secretForms = (secret: string): string[] => {
  if (secret.length < MIN_SECRET_LENGTH) return [];
  const forms = new Set<string>([
    secret,
    jsonEscape(secret),
    jsonEscape(jsonEscape(secret)),
    jsonAsciiEscape(secret, false),
    jsonAsciiEscape(secret, true),
    jsonEscape(secret).replaceAll("/", "\\/"),
    htmlEscape(secret),
  ]);
  const component = tryEncode(encodeURIComponent, secret);
  if (component !== undefined) {
    forms.add(component);
    forms.add(component.replace(/%[0-9A-F]{2}/g, (m) => m.toLowerCase()));
    forms.add(component.replaceAll("%20", "+"));
  }
  const uri = tryEncode(encodeURI, secret);
  if (uri !== undefined) forms.add(uri);
  const bytes = new TextEncoder().encode(secret);
  for (let offset = 0; offset < 3; offset++) {
    const core = base64Core(bytes, offset);
    if (core.length < BASE64_MIN) continue;
    forms.add(core);
    forms.add(core.replaceAll("+", "-").replaceAll("/", "_"));
  }
  return [...forms].filter((f) => f.length >= MIN_SECRET_LENGTH);
};

export interface Redactor {
  /** The text with every occurrence of a secret form, or of a long prefix of one, masked. */
  readonly redact: (text: string) => string;
  /**
   * `redact`, and the number of automaton moves it made (goto and failure steps): the
   * measure of work the complexity tests bound, independent of the machine's speed.
   */
  readonly redactCounted: (text: string) => { readonly text: string; readonly moves: number };
  /** Trie nodes built (the total size of the distinct forms, shared prefixes counted once). */
  readonly size: number;
}

const IDENTITY: Redactor = {
  redact: (text) => text,
  redactCounted: (text) => ({ text, moves: 0 }),
  size: 1,
};

/**
 * Build the redactor for these secrets (pure: the same secrets always give the same masks).
 * `replacement` stands for each masked run of characters.
 */
export const createRedactor = (
  secretValues: Iterable<string>,
  replacement: string = REDACTION,
): Redactor => {
  const secrets = [...secretValues];
  const forms = new Set<string>();
  for (const s of secrets) for (const f of secretForms(s)) forms.add(f);
  if (forms.size === 0) return IDENTITY;
  // Built on the first text redacted: most runs redact nothing (only a service's error
  // texts are scrubbed), and 20,000 secrets take ~1 s and ~40 MB of windows.
  let windows: Set<string> | undefined;
  let capacity = 1;
  for (const f of forms) capacity += f.length;

  // Left-child right-sibling trie in typed arrays; node 0 is the root.
  const firstChild = new Int32Array(capacity).fill(-1);
  const nextSibling = new Int32Array(capacity).fill(-1);
  const label = new Uint16Array(capacity);
  const depth = new Int32Array(capacity);
  const terminal = new Uint8Array(capacity);
  // The root's children by character code, so the most frequent lookup is one array read.
  const rootChild = new Int32Array(0x10000).fill(-1);
  let count = 1;

  const child = (node: number, code: number): number => {
    if (node === 0) return rootChild[code] ?? -1;
    for (let c = firstChild[node] ?? -1; c !== -1; c = nextSibling[c] ?? -1) {
      if (label[c] === code) return c;
    }
    return -1;
  };

  for (const form of forms) {
    let node = 0;
    for (let i = 0; i < form.length; i++) {
      const code = form.charCodeAt(i);
      let next = child(node, code);
      if (next === -1) {
        next = count++;
        label[next] = code;
        depth[next] = i + 1;
        if (node === 0) rootChild[code] = next;
        nextSibling[next] = firstChild[node] ?? -1;
        firstChild[node] = next;
      }
      node = next;
    }
    terminal[node] = 1;
  }

  // Failure links and, per node, the longest maskable suffix of the text read so far that
  // ends there (a whole form, or a form prefix of PREFIX_MIN characters or more), in
  // breadth-first order so a node's failure target is always done before it.
  const fail = new Int32Array(count);
  const maskLength = new Int32Array(count);
  const queue = new Int32Array(count);
  let head = 0;
  let tail = 0;
  queue[tail++] = 0;
  while (head < tail) {
    const node = queue[head++] ?? 0;
    for (let c = firstChild[node] ?? -1; c !== -1; c = nextSibling[c] ?? -1) {
      let f = node === 0 ? 0 : (fail[node] ?? 0);
      const code = label[c] ?? 0;
      if (node !== 0) {
        while (f !== 0 && child(f, code) === -1) f = fail[f] ?? 0;
        const g = child(f, code);
        f = g === -1 ? 0 : g;
      }
      fail[c] = f;
      const d = depth[c] ?? 0;
      maskLength[c] = terminal[c] === 1 || d >= PREFIX_MIN ? d : (maskLength[f] ?? 0);
      queue[tail++] = c;
    }
  }

  const redactCounted = (text: string): { text: string; moves: number } => {
    let moves = 0;
    let state = 0;
    // Masked runs as a stack of [start, end) pairs, merged as they arrive: a later run that
    // reaches back over earlier ones swallows them.
    const starts: number[] = [];
    const ends: number[] = [];
    for (let i = 0; i < text.length; i++) {
      const code = text.charCodeAt(i);
      let next = child(state, code);
      while (next === -1 && state !== 0) {
        state = fail[state] ?? 0;
        moves++;
        next = child(state, code);
      }
      state = next === -1 ? 0 : next;
      moves++;
      const len = maskLength[state] ?? 0;
      if (len === 0) continue;
      let start = i + 1 - len;
      while (starts.length > 0 && start <= (ends[ends.length - 1] ?? 0)) {
        start = Math.min(start, starts.pop() ?? start);
        ends.pop();
      }
      starts.push(start);
      ends.push(i + 1);
    }
    // Issue 30: partial runs (a suffix, a middle, another case, hex) join the masked runs.
    if (text.length >= PARTIAL_MIN) windows ??= partialWindows(secrets);
    const partial = windows === undefined ? [] : partialRuns(text, windows);
    if (partial.length > 0) {
      const all = starts.map((s0, k): [number, number] => [s0, ends[k] ?? s0]).concat(partial);
      all.sort((a, b) => a[0] - b[0]);
      starts.length = 0;
      ends.length = 0;
      for (const [a, b] of all) {
        const e = ends.length > 0 ? (ends[ends.length - 1] ?? 0) : -1;
        if (a <= e) ends[ends.length - 1] = Math.max(e, b);
        else {
          starts.push(a);
          ends.push(b);
        }
      }
    }
    if (starts.length === 0) return { text, moves };
    let out = "";
    let from = 0;
    for (let k = 0; k < starts.length; k++) {
      out += text.slice(from, starts[k]) + replacement;
      from = ends[k] ?? from;
    }
    return { text: out + text.slice(from), moves };
  };

  return {
    redact: (text) => redactCounted(text).text,
    redactCounted,
    size: count,
  };
};
