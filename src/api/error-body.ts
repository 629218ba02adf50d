import type { ErrorBodyFields } from "./errors.js";

/** The longest excerpt of an unrecognised body put into an error message. */
const SNIPPET_MAX = 200;

const clip = (s: string, max = SNIPPET_MAX): string =>
  s.length > max ? `${s.slice(0, max - 1).trimEnd()}…` : s;

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
 * A short readable line from a body that is not the API's JSON: an HTML page's `<title>`
 * (a proxy's "502 Bad Gateway"), else its first text; else the first line of plain text.
 */
export const bodySnippet = (
  text: string,
  scrub: (s: string) => string = (s) => s,
): string | undefined => {
  const t = scrub(text).trim();
  if (t === "") return undefined;
  if (/^<(!doctype|html|head|body|\?xml|[a-z][a-z0-9]*[\s>])/i.test(t)) {
    const title = /<title[^>]*>([\s\S]*?)<\/title>/i.exec(t)?.[1];
    const fromTitle = title !== undefined ? collapse(scrub(decodeEntities(title))) : "";
    if (fromTitle !== "") return clip(fromTitle);
    const visible = t
      .replace(/<(script|style|head)[^>]*>[\s\S]*?<\/\1>/gi, " ")
      .replace(/<[^>]*>/g, " ");
    const words = collapse(scrub(decodeEntities(visible)));
    return words === "" ? undefined : clip(words);
  }
  return clip(collapse(t.split(/\r?\n/).find((line) => line.trim() !== "") ?? t));
};

const str = (v: unknown): string | undefined =>
  typeof v === "string" && v !== "" ? v : typeof v === "number" ? String(v) : undefined;

const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);

/**
 * What an error response says, whichever generation answered: the V3 envelope
 * `{ error: { type, id, title, detail, source: { pointer } } }` (spec: api-v3.md Envelopes;
 * "every member is optional"), a V2 `{ message }` (spec: api-v2-v1.md Errors), or a readable
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
    return {
      type: s(e.type),
      errorId: s(e.id),
      title: s(e.title),
      detail: s(e.detail),
      pointer: s(source?.pointer),
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
    // JSON of another shape: show it compactly rather than nothing.
    return { bodySnippet: clip(scrub(JSON.stringify(parsed))) };
  }
  // Scrubbed before clipping, so a clip can never leave part of a secret behind.
  const snippet = bodySnippet(text, scrub);
  return snippet === undefined ? {} : { bodySnippet: snippet };
};
