import type { ErrorBodyFields } from "./errors.js";

const collapse = (s: string): string => s.replace(/\s+/g, " ").trim();

const ENTITIES: Readonly<Record<string, string>> = {
  amp: "&",
  lt: "<",
  gt: ">",
  quot: '"',
  apos: "'",
  nbsp: " ",
};

const decodeEntities = (s: string): string =>
  s.replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (whole, name: string) => {
    if (name.startsWith("#x") || name.startsWith("#X"))
      return String.fromCodePoint(Number.parseInt(name.slice(2), 16));
    if (name.startsWith("#")) return String.fromCodePoint(Number.parseInt(name.slice(1), 10));
    return ENTITIES[name.toLowerCase()] ?? whole;
  });

/**
 * The longest line of an unrecognised body that may be quoted: a proxy's status line
 * ("502 Bad Gateway", "upstream connect error") is short; a longer text is more likely to
 * be an echo of what was sent.
 */
const QUOTABLE_MAX = 100;

/**
 * Marks of an echoed request in a line of text: JSON (`{`, `[`, `"`), a query string or
 * form body (`=`, `&`), an authorization header word.
 */
const ECHO_MARKS = /[{}[\]"=&]|\b(bearer|basic|token|authorization|secret|password)\b/i;

/** A line that can be quoted safely, or undefined. */
const quotable = (line: string): string | undefined => {
  const t = collapse(line);
  return t === "" || t.length > QUOTABLE_MAX || ECHO_MARKS.test(t) ? undefined : t;
};

/**
 * A short readable line from a body that is not the API's JSON, or undefined when nothing of
 * it may be shown.
 *
 * Decision (issue 21, "never echo a response body that may contain a request"): only what a
 * proxy or server writes about itself is quoted: an HTML page's `<title>` ("502 Bad
 * Gateway"), or a short first line of plain text, and only when it has none of the marks of
 * an echoed request (JSON, a query string, a credential word). An HTML page's body text, a
 * long line, JSON of any shape other than the API's error envelopes, and JSON cut off
 * mid-way (a 2xx create response may carry a secret the service generated, which no
 * scrubber knows) are never quoted; the message says what kind of body it was instead.
 */
export const bodySnippet = (
  text: string,
  scrub: (s: string) => string = (s) => s,
): string | undefined => {
  const t = text.trim();
  if (t === "") return undefined;
  if (/^[{[]/.test(t)) return `(${t.length} bytes of JSON, not shown: it may echo the request)`;
  if (/^<(!doctype|html|head|body|\?xml|[a-z][a-z0-9]*[\s>])/i.test(t)) {
    const title = /<title[^>]*>([\s\S]*?)<\/title>/i.exec(t)?.[1];
    const fromTitle = title === undefined ? undefined : quotable(decodeEntities(title));
    return fromTitle !== undefined
      ? scrub(fromTitle)
      : "(an HTML page without a usable title, not shown: it may echo the request)";
  }
  const first = t.split(/\r?\n/).find((line) => line.trim() !== "") ?? t;
  const line = quotable(first);
  return line !== undefined
    ? scrub(line)
    : `(${t.length} bytes of text, not shown: it may echo the request)`;
};

const str = (v: unknown): string | undefined =>
  typeof v === "string" && v !== "" ? v : typeof v === "number" ? String(v) : undefined;

const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);

/**
 * What an error response says, whichever generation answered: the V3 envelope
 * `{ error: { type, id, title, detail, source: { pointer, offset, error } } }` (spec:
 * api-v3.md Envelopes; "every member is optional"), a `{ message }` (spec: api-v2-v1.md
 * Errors; the V3 401 answers so too: docs/spec-notes.md "Reading the real service"), or a readable
 * snippet of anything else. `scrub` is applied to every text taken from the body, so a
 * server that echoes a secret back cannot put it into our messages.
 */
export const describeErrorBody = (text: string, scrub: (s: string) => string): ErrorBodyFields => {
  let parsed: unknown;
  try {
    parsed = text.trim() === "" ? undefined : JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  const s = (v: unknown): string | undefined => {
    const raw = str(v);
    return raw === undefined ? undefined : scrub(raw);
  };
  if (isRecord(parsed) && isRecord(parsed.error)) {
    const e = parsed.error;
    const source = isRecord(e.source) ? e.source : undefined;
    const offset = s(source?.offset);
    const sourceError = s(source?.error);
    return {
      type: s(e.type),
      errorId: s(e.id),
      title: s(e.title),
      detail: s(e.detail),
      pointer: s(source?.pointer),
      ...(offset === undefined ? {} : { offset }),
      ...(sourceError === undefined ? {} : { sourceError }),
    };
  }
  // Decision: `{ "error": "text" }` (not the documented envelope) is read as the title
  // rather than dropped: a proxy or an older route may answer that way.
  if (isRecord(parsed) && typeof parsed.error === "string" && parsed.error !== "") {
    return { title: s(parsed.error) };
  }
  if (isRecord(parsed) && typeof parsed.message === "string") {
    return { v2Message: s(parsed.message) };
  }
  if (parsed !== undefined) {
    // JSON of another shape (a proxy's, or an echo of the request): never quoted.
    return {
      bodySnippet:
        "(a JSON body not in the API's error format, not shown: it may echo the request)",
    };
  }
  const snippet = bodySnippet(text, scrub);
  return snippet === undefined ? {} : { bodySnippet: snippet };
};
