/**
 * Issue 28: keys JavaScript gives a meaning to (`__proto__`, `constructor`, `prototype`) are
 * refused wherever they are written, before templates, `extends` or merge keys see the
 * document (pure).
 *
 * Why: an object literal's `__proto__` sets its prototype. A template merge that copied
 * `__proto__: { delete: true }` onto a project set the project's prototype, and the loader
 * then read `delete: true` through it (the project was planned for deletion); an
 * `env: { __proto__: … }` was dropped silently. `constructor` and `prototype` are refused
 * with it: a lookup on a plain object finds them on Object.prototype, so a config using
 * them would read something nobody wrote.
 *
 * Decision: refused everywhere, env var and header names included (the schema alone allows
 * `constructor` as an env var name): the config never drops or invents, and no real
 * setting needs these names.
 */

import { RESERVED_KEYS } from "../core/reserved-keys.js";
import type { ConfigDiagnostic } from "./diagnostic.js";
import { type DocPath, dottedPath, locate, type PositionIndex } from "./yaml-doc.js";

export { RESERVED_KEYS };

const isMap = (v: unknown): v is Readonly<Record<string, unknown>> =>
  v !== null && typeof v === "object" && !Array.isArray(v);

/**
 * Whether any map in the document has a reserved key: one pass that allocates nothing per
 * node (a config nearly never has one; the located walk below is for the one that does).
 */
const hasReservedKey = (value: unknown): boolean => {
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const v = stack.pop();
    if (Array.isArray(v)) {
      for (const x of v) if (x !== null && typeof x === "object") stack.push(x);
    } else if (isMap(v)) {
      for (const key of Object.keys(v)) {
        if (RESERVED_KEYS.has(key)) return true;
        const x = v[key];
        if (x !== null && typeof x === "object") stack.push(x);
      }
    }
  }
  return false;
};

/** One diagnostic per reserved key anywhere in the document, in document order. */
export const reservedKeyDiagnostics = (
  file: string,
  value: unknown,
  positions: PositionIndex,
): ConfigDiagnostic[] => {
  const out: ConfigDiagnostic[] = [];
  // Issue 33: the walk below made a path and an entry for every node (76 MB of garbage for
  // the 40,000-item config); it runs only where there is something to report.
  if (!hasReservedKey(value)) return out;
  // An explicit stack: a document may nest as deep as the parser allows.
  const stack: { value: unknown; path: DocPath }[] = [{ value, path: [] }];
  while (stack.length > 0) {
    const { value: v, path } = stack.pop() as { value: unknown; path: DocPath };
    const children: { value: unknown; path: DocPath }[] = [];
    if (Array.isArray(v)) {
      v.forEach((x, i) => {
        children.push({ value: x, path: [...path, i] });
      });
    } else if (isMap(v)) {
      // Own keys only: yaml defines `__proto__` as an own property, never a prototype.
      for (const key of Object.keys(v)) {
        const at = [...path, key];
        if (RESERVED_KEYS.has(key)) {
          out.push({
            file,
            ...locate(positions, at, "key"),
            path: dottedPath(at),
            code: "reserved_key",
            message: `"${key}" cannot be a key: JavaScript reserves it (it could change how the rest of the config is read), so Waybill refuses it everywhere, env var and header names included; rename or remove it`,
          });
          continue;
        }
        children.push({ value: v[key], path: at });
      }
    }
    // Reversed, so the stack pops them in document order.
    for (let i = children.length - 1; i >= 0; i--) stack.push(children[i] as (typeof children)[0]);
  }
  return out;
};
