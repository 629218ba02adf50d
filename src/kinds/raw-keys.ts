/**
 * The key lists of the config's raw types, checked at compile time where the types live
 * (issue 31: a new kind's keys come from its own module, not from src/config/raw.ts).
 *
 * A kind's `config.schemaKeys` (src/kinds/contract.ts ConfigPart) names the schema objects
 * its raw types are written as — `$defs` names, or nested paths such as `pipeline/config`
 * — with each one's keys and required keys, made by `keysOf<RawType>()`: a list that
 * misses a key of the type, names one it has not, or a required list that is not exactly
 * the type's non-optional keys, does not compile. src/config/raw.ts assembles them from
 * the registry (adding to a parent's object the `config.yamlKey` of each kind under it),
 * and test/unit/config-schema.test.ts checks the result against schemas/waybill.schema.json,
 * so the chain raw type ⇄ key list ⇄ schema cannot drift.
 */

/** The keys of `T` that are not optional (`undefined` is not among their values). */
export type RequiredKeys<T> = { [K in keyof T]-?: undefined extends T[K] ? never : K }[keyof T];

/**
 * `unknown` when `All` and `Listed` are the same keys; otherwise what is missing and what is
 * extra, which the compile error then shows (`{ missing: "headers"; extra: never }`).
 */
type Same<All, Listed> = [Exclude<All, Listed>, Exclude<Listed, All>] extends [never, never]
  ? unknown
  : { readonly missing: Exclude<All, Listed>; readonly extra: Exclude<Listed, All> };

declare const checked: unique symbol;

/** One schema object's keys and required keys, as its raw type declares them. */
export interface ObjectKeys {
  readonly keys: readonly string[];
  readonly required: readonly string[];
  /** Made by `keysOf` only, so every list in the registry was checked against its type. */
  readonly [checked]: true;
}

/** The schema objects of a kind's raw types, by name relative to `$defs` (`pipeline/config`). */
export type SchemaKeys = Readonly<Record<string, ObjectKeys>>;

/**
 * The key lists of the raw type `T`, checked at compile time: `keysOf<RawWebhook>()(keys,
 * required)` compiles only when `keys` are exactly T's keys and `required` exactly its
 * non-optional ones. Curried so that `T` is given and the lists are inferred.
 */
export const keysOf =
  <T>() =>
  <const K extends readonly string[], const Q extends readonly string[]>(
    keys: K & Same<keyof T, K[number]>,
    required: Q & Same<RequiredKeys<T>, Q[number]>,
  ): ObjectKeys =>
    ({ keys, required }) as unknown as ObjectKeys;
