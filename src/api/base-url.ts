import { InsecureBaseUrlError, InvalidBaseUrlError } from "./errors.js";

/** A base URL that passed validation: where to connect, and the path prefix to keep. */
export interface BaseUrl {
  /** `https://host:port`, for undici's `origin`. */
  readonly origin: string;
  /** The base URL's own path without a trailing slash (`""` for a service root). */
  readonly pathPrefix: string;
}

/** 127.0.0.0/8, ::1 and `localhost` (issue 2 §2: `http://` only for loopback). */
export const isLoopbackHost = (hostname: string): boolean => {
  const host = hostname.toLowerCase().replace(/\.$/, "");
  if (host === "localhost" || host === "[::1]" || host === "::1") return true;
  const m = /^127\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(host);
  if (m === null) return false;
  return m.slice(1).every((part) => Number(part) <= 255);
};

/**
 * Validate the service root (`--base-url` / `SERVICE_BASE_URL`) once, at client creation.
 * Messages name only the scheme and host: a URL might carry credentials.
 */
export const parseBaseUrl = (raw: string): BaseUrl => {
  let url: URL;
  try {
    url = new URL(raw.trim());
  } catch {
    throw new InvalidBaseUrlError(
      "the base URL is not a valid URL (expected e.g. https://service.example.com)",
    );
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") {
    throw new InvalidBaseUrlError(
      `the base URL must start with https:// (got ${url.protocol.replace(/:$/, "")}://)`,
    );
  }
  // Decision: credentials in the base URL are refused rather than stripped: they would be
  // sent as Basic auth by some tools and are easy to leak in logs; the token has its own
  // channel (SERVICE_TOKEN / --token-file).
  if (url.username !== "" || url.password !== "") {
    throw new InvalidBaseUrlError(
      "the base URL must not contain credentials; pass the token with SERVICE_TOKEN or --token-file",
    );
  }
  // Decision: a query string or fragment on the service root is refused: the client builds
  // every query itself, and a stray one would be silently dropped or mangled.
  if (url.search !== "" || url.hash !== "") {
    throw new InvalidBaseUrlError("the base URL must not contain a query string or fragment");
  }
  if (url.protocol === "http:" && !isLoopbackHost(url.hostname)) {
    throw new InsecureBaseUrlError(
      `refusing http:// base URL for ${url.hostname}: the API token would travel unencrypted; use https:// (http:// is allowed only for 127.0.0.1, ::1 and localhost)`,
    );
  }
  const pathPrefix = url.pathname.replace(/\/+$/, "");
  // Decision (design.md §1 Commands: "the service root; the client adds /api/v3, /api/v2";
  // spec: api-v3.md Versioning: V3 is at `{base_url}/api/v3`): a base URL that already ends
  // in an API version's path is refused with the root to use instead, before any request:
  // every request would go to `/api/v3/api/v3/...` and fail with a 404 that names nothing.
  const api = /\/api\/v(?:3|2|1(?:\.1)?)$/i.exec(pathPrefix);
  if (api !== null) {
    // Only the origin is shown (the rest of a path is the user's, and messages name only
    // scheme and host).
    const root = api.index === 0 ? ` (${url.origin})` : "";
    throw new InvalidBaseUrlError(
      `the base URL ends in ${api[0]}, but it is the service root (the client adds /api/v3 and /api/v2 itself): use it without the trailing ${api[0]}${root}`,
    );
  }
  return { origin: url.origin, pathPrefix };
};
