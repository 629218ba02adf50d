/**
 * Issue 21: a value like `$NAME` or `${NAME}` (a shell habit) is stored as written, not read
 * from the environment. Pure: the warnings for a loaded config, each with the item's place.
 */

import { stripControls } from "../core/controls.js";
import { isSourceLocation, type SourceLocation } from "../core/errors.js";
import { Secret } from "../core/secret.js";
import type { DesiredConfig } from "../model/desired.js";

const SHELL_VAR = /^\$(?:([A-Za-z_][A-Za-z0-9_]*)|\{([A-Za-z_][A-Za-z0-9_]*)\})$/;

/** One warning per literal value that looks like a shell variable, with the fix. */
export const shellVariableWarnings = (desired: DesiredConfig): string[] => {
  const out: string[] = [];
  const seen = new Set<object>();
  const check = (text: string, at: SourceLocation | undefined): void => {
    const m = SHELL_VAR.exec(text);
    if (!m) return;
    const name = m[1] ?? m[2] ?? "";
    const where = at ? stripControls(`${at.file}:${at.line}:${at.col}: `) : "";
    out.push(
      `${where}the value "${text}" is stored as written, not read from the environment; write \${env:${name}} to read it from there`,
    );
  };
  const walk = (v: unknown, at: SourceLocation | undefined): void => {
    if (typeof v === "string") {
      // Only a string starting with `$` can match (the common case is over at once).
      if (v.charCodeAt(0) === 36) check(v, at);
      return;
    }
    if (typeof v !== "object" || v === null) return;
    // Only values written in the config: a value from ${env:}/${file:} is what it is.
    if (v instanceof Secret) {
      if (v.origin === "literal" && v.isResolved) check(v.reveal(), at);
      return;
    }
    if (seen.has(v)) return;
    seen.add(v);
    if (v instanceof Map || Array.isArray(v)) {
      for (const child of v.values()) walk(child, at);
      return;
    }
    if (isSourceLocation(v)) return;
    const own = (v as { source?: unknown }).source;
    const here = isSourceLocation(own) ? own : at;
    for (const k of Object.keys(v)) {
      if (k !== "source" && k !== "files") walk((v as Record<string, unknown>)[k], here);
    }
  };
  walk(desired, undefined);
  return out;
};
