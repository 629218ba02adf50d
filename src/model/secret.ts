import { inspect } from "node:util";

/**
 * A sensitive value (an env var value, a signing secret, or anything that came from
 * `${env:…}` / `${file:…}`). design.md §1 "Secrets": never printed, logged, saved in a plan
 * file or put in an error message.
 *
 * The value is kept in a private field so that `JSON.stringify`, `String()`, template
 * literals and `util.inspect` (console.log, vitest diffs) all show `(sensitive)`; the only
 * way out is `reveal()`, which the apply executors call when building a request body.
 */
export class Secret {
  readonly #value: string;
  /** Where the value came from, for messages: `env:NAME`, `file:PATH` or `literal`. */
  readonly origin: string;

  constructor(value: string, origin = "literal") {
    this.#value = value;
    this.origin = origin;
    Object.freeze(this);
  }

  reveal(): string {
    return this.#value;
  }

  /**
   * The last four characters, the only part the service ever returns
   * (spec: api-v3.md "Context environment variable": `truncated_value`).
   */
  lastFour(): string {
    return this.#value.slice(-4);
  }

  equals(other: Secret): boolean {
    return this.#value === other.#value;
  }

  toString(): string {
    return "(sensitive)";
  }

  toJSON(): string {
    return "(sensitive)";
  }

  [inspect.custom](): string {
    return "Secret((sensitive))";
  }
}

export const isSecret = (v: unknown): v is Secret => v instanceof Secret;

/** A config value that may or may not be sensitive. */
export type MaybeSecret = string | Secret;

export const revealValue = (v: MaybeSecret): string => (typeof v === "string" ? v : v.reveal());
