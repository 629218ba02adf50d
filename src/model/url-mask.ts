/**
 * Credential-bearing URLs (design.md §4 "Integration": `--show-urls`). A webhook's URL is a
 * credential (a Slack or Teams incoming-webhook URL posts to the channel for whoever holds
 * it), so every rendering shows it as scheme + host + a masked path, unless `--show-urls`
 * asks for it in full on a terminal. Pure.
 *
 * Decision: the masked form is `https://hooks.slack.com/…(3f9a)`: the scheme and host (with
 * a port, without user info) tell the reviewer where deliveries go; the four hex characters
 * are the start of the URL's SHA-256, so a plan that changes only the path shows two
 * different values (`"…(3f9a)" -> "…(b210)"`) instead of one value twice. Sixteen bits of a
 * hash confirm nothing about a URL whose path holds a random token. A text that is not an
 * absolute URL is masked whole (`(masked url)`).
 *
 * Issue 43: a host name can be the credential itself (a request bin's
 * `https://eo9x2k7q4m1n8b3v6c5z.m.pipedream.net/`: whoever knows the host posts to it). A host
 * label of 16 or more random-looking characters (`isCredentialLabel`) is shown as `…`:
 * `https://….m.pipedream.net/…(3f9a)`; the rest of the host still says where deliveries go.
 *
 * Decision: an OTLP exporter's `endpoint` is not masked: the spec (api-v2-v1.md "OTLP
 * exporter", POST /otel/exporters) makes it "host and port only, no scheme" — there is no
 * path or query to hold a credential, it is the exporter's identity in its address, and its
 * credentials (the header values) are secrets already masked as `(sensitive)`.
 */
import { createHash } from "node:crypto";

/** The secret mask of src/kinds/values.ts (model must not import kinds). */
const SENSITIVE = "(sensitive)";

export const MASKED_URL = "(masked url)";

/** Whether `text` is a masked form this module made (idempotence: never masked twice). */
export const isMaskedUrl = (text: string): boolean =>
  text === MASKED_URL || /^[a-z][a-z0-9+.-]*:\/\/[^/\s]*\/…\([0-9a-f]{4}\)$/.test(text);

/**
 * Decision (issue 43, "a host label of 16+ random-looking characters"): a label is the
 * credential when, without its hyphens, it has 16 characters or more and some hyphen-separated
 * part of it does not read like a word: a word is letters with at most two digits after them
 * (`west1`, `v2`), at least a quarter of its letters vowels and no five consonants in a row,
 * or a number of at most four digits (`eu-west-1`, `prod-2024`). Random tokens (`eo9x2k7q…`,
 * a UUID's parts, hex) fail that at once; `acme-production-notifications` reads as words.
 * Where the rule errs it hides a host a reviewer could have read, never a credential.
 */
export const isCredentialLabel = (label: string): boolean => {
  const lower = label.toLowerCase();
  if (lower.replaceAll("-", "").length < 16) return false;
  return lower.split("-").some((part) => part !== "" && !readsLikeWord(part));
};

const readsLikeWord = (part: string): boolean => {
  if (/^[0-9]{1,4}$/.test(part)) return true;
  const m = /^([a-z]+)[0-9]{0,2}$/.exec(part);
  if (m === null) return false;
  const letters = m[1] ?? "";
  const vowels = letters.replace(/[^aeiouy]/g, "").length;
  return vowels * 4 >= letters.length && !/[^aeiouy]{5}/.test(letters);
};

/** The host with every credential label (`isCredentialLabel`) shown as `…`. */
export const maskHost = (host: string): string =>
  host
    .split(".")
    .map((label) => (isCredentialLabel(label) ? "…" : label))
    .join(".");

/** Whether any label of the URL's host is a credential (`isCredentialLabel`). */
export const hostIsCredential = (host: string): boolean =>
  host.split(".").some((label) => isCredentialLabel(label));

/** `https://hooks.slack.com/services/T0/B0/xyz` → `https://hooks.slack.com/…(3f9a)`. */
export const maskUrl = (url: string): string => {
  // A value already hidden (`(sensitive)`: a URL the config takes from `${env:…}`) stays so.
  if (isMaskedUrl(url) || url === SENSITIVE) return url;
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return MASKED_URL;
  }
  const fp = createHash("sha256").update(url).digest("hex").slice(0, 4);
  // `host` holds the port when there is one; `username:password@` is left out.
  const host = parsed.host;
  if (host === "") return MASKED_URL;
  return `${parsed.protocol}//${maskHost(host)}/…(${fp})`;
};

/**
 * Every occurrence of one of `urls` in `text` replaced by its masked form (a reason or note
 * that quotes a URL). Longer URLs first, so a URL that starts another is not half-masked.
 */
export const maskUrlsIn = (text: string, urls: readonly string[]): string => {
  let out = text;
  for (const u of [...urls].sort((a, b) => b.length - a.length)) {
    if (u.length > 0 && out.includes(u)) out = out.split(u).join(maskUrl(u));
  }
  return out;
};

const RENDERING = /…\([0-9a-f]{4}\)|\(masked url\)|\(sensitive\)/;

/**
 * Issue 41: whether `text` holds one of Waybill's own masked renderings (`…(abcd)`, `(masked
 * url)`, `(sensitive)`). Such a string is never a real value: written into a config (pull did
 * so for a project keyed by name), the next apply sent it to the service in place of the live
 * URL, and the real one was lost. pull never writes one; validate refuses one.
 */
export const hasMaskedRendering = (text: string): boolean => RENDERING.test(text);

/** The masked rendering `text` holds, for a message (undefined when none). */
export const maskedRenderingIn = (text: string): string | undefined => RENDERING.exec(text)?.[0];
