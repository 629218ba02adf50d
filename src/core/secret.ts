import { inspect } from "node:util";
import { isSourceLocation } from "./errors.js";

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
  readonly #value: string | undefined;
  /** Where the value came from, for messages: `env:NAME`, `file:PATH` or `literal`. */
  readonly origin: string;

  constructor(value: string | undefined, origin = "literal") {
    this.#value = value;
    this.origin = origin;
    Object.freeze(this);
  }

  /**
   * A secret whose value is not known in this run (`plan --skip-secrets`, for pull requests
   * from forks): it can be planned around but never sent, and such a plan cannot be saved.
   */
  static unresolved(origin: string): Secret {
    return new Secret(undefined, origin);
  }

  get isResolved(): boolean {
    return this.#value !== undefined;
  }

  /** The value, for a request body. Throws on an unresolved secret (a programming error). */
  reveal(): string {
    if (this.#value === undefined) {
      throw new Error(`secret from ${this.origin} was not resolved (--skip-secrets)`);
    }
    return this.#value;
  }

  /**
   * The last four characters, the only part the service ever returns
   * (spec: api-v3.md "Context environment variable": `truncated_value`).
   * Undefined for an unresolved secret.
   */
  lastFour(): string | undefined {
    return this.#value?.slice(-4);
  }

  /** Equal values; two unresolved secrets are never equal. */
  equals(other: Secret): boolean {
    return this.#value !== undefined && this.#value === other.#value;
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

/** resolvedSecretValues's answers by root object. */
const secretsByRoot = new WeakMap<object, readonly string[]>();

/**
 * Every resolved secret value held anywhere in `root` (a loaded config: env var values,
 * signing secrets, anything from `${env:}`/`${file:}`), found by walking it for Secret
 * instances.
 */
export const resolvedSecretValues = (root: unknown): string[] => {
  // A loaded config is not changed after it is built, and the walk is ~60 ms on a
  // 40,000-item config (issue 22): the CLI's redactor and every planChanges call (the plan,
  // and again after the synthetic probes) ask for the same root.
  const cached = typeof root === "object" && root !== null ? secretsByRoot.get(root) : undefined;
  if (cached) return [...cached];
  const out = new Set<string>();
  const seen = new Set<object>();
  const walk = (v: unknown): void => {
    if (v instanceof Secret) {
      if (v.isResolved) out.add(v.reveal());
      return;
    }
    if (typeof v !== "object" || v === null || seen.has(v)) return;
    seen.add(v);
    if (v instanceof Map || Array.isArray(v)) {
      for (const child of v.values()) walk(child);
      return;
    }
    // A source location holds no secret, and reading its line runs the full YAML parser
    // when the fast one read the file (src/config/build.ts `at`): skipped, as the digest does.
    if (isSourceLocation(v)) return;
    for (const child of Object.values(v)) walk(child);
  };
  walk(root);
  const values = [...out];
  if (typeof root === "object" && root !== null) secretsByRoot.set(root, values);
  return [...values];
};
