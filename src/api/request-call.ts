import type { RawHeaders } from "./headers.js";
import type { Method } from "./retry-policy.js";
import type { ApiGeneration, Query } from "./types.js";

/** What one send produced; classified by the retry loop. */
export type Attempt =
  | {
      readonly kind: "response";
      readonly status: number;
      readonly headers: RawHeaders;
      readonly body: string;
      /** The body already parsed as JSON while deciding whether to cache it (parse once). */
      readonly parsed?: { readonly value: unknown };
    }
  | {
      readonly kind: "network";
      readonly reason: string;
      readonly retriable: boolean;
      readonly cause: unknown;
    }
  | { readonly kind: "truncated"; readonly cause: unknown }
  | { readonly kind: "too_large"; readonly status: number }
  | { readonly kind: "timeout" }
  | { readonly kind: "aborted" };

export interface Success {
  readonly path: string;
  readonly status: number;
  /** Parsed JSON, or undefined for an empty body. */
  readonly body: unknown;
}

export interface Call {
  readonly method: Method;
  readonly api: ApiGeneration;
  readonly path: string;
  readonly query: Query | undefined;
  readonly body: unknown;
  readonly signal: AbortSignal | undefined;
  /** Sent ahead of queued ordinary requests (src/api/send-slots.ts). */
  readonly urgent?: boolean;
  /** A 404 ends the call as an answer with no body (RequestOptions.notFoundIsAnswer). */
  readonly notFoundIsAnswer?: boolean;
}
