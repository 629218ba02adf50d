/**
 * Keys JavaScript gives a meaning to on a plain object (issue 28): the config refuses them
 * wherever they are written (src/config/reserved-keys.ts), and export therefore never writes
 * one as a key (src/kinds/config-doc.ts), since `map[name] = …` with `__proto__` sets the
 * map's prototype and the item silently disappears.
 */
export const RESERVED_KEYS: ReadonlySet<string> = new Set([
  "__proto__",
  "constructor",
  "prototype",
]);

/** Why export leaves an item with a reserved name under `ignore`. */
export const reservedKeyReason = (name: string): string =>
  `the config refuses ${JSON.stringify(name)} as a key (JavaScript reserves it); rename the item in the service to manage it`;
