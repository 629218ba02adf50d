import type { Attempt } from "./request-call.js";

/**
 * The error codes of Node and undici that mean "the connection failed", and how to say so.
 * `retriable` applies to GET, PUT and DELETE only. Decision: a POST is not retried even on
 * "connection refused", although nothing was sent: the issue allows POST retries only on
 * 429, and apply already recovers an uncertain create by re-listing (design.md §1 Apply).
 */
const NETWORK_REASONS: Readonly<Record<string, { reason: string; retriable: boolean }>> = {
  ECONNREFUSED: { reason: "connection refused", retriable: true },
  ECONNRESET: { reason: "connection reset", retriable: true },
  EPIPE: { reason: "connection closed while sending", retriable: true },
  ETIMEDOUT: { reason: "connection timed out", retriable: true },
  EHOSTUNREACH: { reason: "host unreachable", retriable: true },
  ENETUNREACH: { reason: "network unreachable", retriable: true },
  EAI_AGAIN: { reason: "name lookup failed temporarily", retriable: true },
  // Decision: an unknown host is not retried: it will not appear within a backoff.
  ENOTFOUND: { reason: "host not found", retriable: false },
  UND_ERR_SOCKET: { reason: "connection dropped", retriable: true },
  UND_ERR_CLOSED: { reason: "the client was closed", retriable: false },
  UND_ERR_DESTROYED: { reason: "the client was closed", retriable: false },
  HPE_INVALID_CONSTANT: { reason: "malformed HTTP response", retriable: true },
  // undici refused to send the request (an invalid header value): sending again cannot help.
  UND_ERR_INVALID_ARG: {
    reason: "the request could not be sent (invalid header)",
    retriable: false,
  },
  ERR_INVALID_CHAR: { reason: "the request could not be sent (invalid header)", retriable: false },
  // A TLS failure is not retried (issue 21): a certificate does not become valid within a
  // backoff, and a handshake that fails fails the same way again.
  EPROTO: { reason: "TLS handshake failed: is the base URL's scheme right?", retriable: false },
};

/**
 * TLS failures by Node's (OpenSSL's) code: not retried; the message says what to check.
 * Decision: every certificate verification code and every `ERR_SSL_` / `ERR_TLS_` code is
 * a TLS failure, whether or not it is listed here by name.
 */
const TLS_REASONS: Readonly<Record<string, string>> = {
  DEPTH_ZERO_SELF_SIGNED_CERT: "the server's certificate is self-signed",
  SELF_SIGNED_CERT_IN_CHAIN: "the server's certificate chain has a self-signed certificate",
  UNABLE_TO_VERIFY_LEAF_SIGNATURE: "the server's certificate cannot be verified",
  UNABLE_TO_GET_ISSUER_CERT_LOCALLY: "the server's certificate issuer is not trusted here",
  CERT_HAS_EXPIRED: "the server's certificate has expired",
  CERT_NOT_YET_VALID: "the server's certificate is not valid yet",
  ERR_TLS_CERT_ALTNAME_INVALID: "the server's certificate is for another host name",
  ERR_SSL_WRONG_VERSION_NUMBER: "the server did not answer in TLS (is it http://?)",
};

const tlsReason = (code: string): string | undefined => {
  const known = TLS_REASONS[code];
  if (known !== undefined) return known;
  if (/^(ERR_SSL_|ERR_TLS_)|CERT/.test(code)) return "the TLS connection failed";
  return undefined;
};

const TIMEOUT_CODES = new Set([
  "UND_ERR_HEADERS_TIMEOUT",
  "UND_ERR_BODY_TIMEOUT",
  "UND_ERR_CONNECT_TIMEOUT",
]);

const errorCode = (err: unknown): string | undefined => {
  for (let e: unknown = err, depth = 0; e && depth < 4; depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === "string") return code;
    e = (e as { cause?: unknown }).cause;
  }
  return undefined;
};

/**
 * Codes that mean the connection was never made: the message says the host could not be
 * reached, and where its address comes from.
 */
const UNREACHED = new Set([
  "ECONNREFUSED",
  "ENOTFOUND",
  "EAI_AGAIN",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "ETIMEDOUT",
]);

/**
 * What a transport failure was, in words that name the host (`host:port` of the base URL,
 * which holds no credentials: src/api/base-url.ts refuses them), so a user sees which
 * address failed: `could not reach 127.0.0.1:4010 (connection refused, ECONNREFUSED)`.
 */
export const classifyFailure = (err: unknown, host: string): Attempt => {
  const code = errorCode(err);
  if (code === "UND_ERR_RES_CONTENT_LENGTH_MISMATCH") return { kind: "truncated", cause: err };
  if (code !== undefined && TIMEOUT_CODES.has(code)) return { kind: "timeout" };
  const tls = code !== undefined ? tlsReason(code) : undefined;
  if (tls !== undefined) {
    return {
      kind: "network",
      reason: `TLS failed with ${host}: ${tls} (${code}); check --base-url, or trust the certificate with NODE_EXTRA_CA_CERTS`,
      retriable: false,
      cause: err,
    };
  }
  const known = code !== undefined ? NETWORK_REASONS[code] : undefined;
  if (known && code !== undefined && UNREACHED.has(code)) {
    return {
      kind: "network",
      ...known,
      reason: `could not reach ${host} (${known.reason}, ${code}); check --base-url or SERVICE_BASE_URL, and that the service runs there`,
      cause: err,
    };
  }
  if (known) {
    return {
      kind: "network",
      ...known,
      reason: `${known.reason} (${code}) with ${host}`,
      cause: err,
    };
  }
  if (code?.startsWith("HPE_")) {
    return {
      kind: "network",
      reason: `malformed HTTP response (${code}) from ${host}`,
      retriable: true,
      cause: err,
    };
  }
  // Decision: an unrecognised transport failure is reported as a network error and retried
  // like a reset (for idempotent methods only): it happened below HTTP, so no answer was read.
  return {
    kind: "network",
    reason: `request to ${host} failed${code ? ` (${code})` : ""}`,
    retriable: true,
    cause: err,
  };
};
