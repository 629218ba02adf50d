/**
 * Plan-time config errors (issue 17): a reference written by name (a restriction's or an
 * SSO mapping's group) that neither the org's config declares nor the live org has.
 * Reported like validation errors, every one at once, with FILE:LINE:COL and the closest
 * name ("did you mean"), before anything is planned or written. Pure: the referred kinds
 * were read by the live reader. Generic over the registry (src/kinds/references.ts).
 */
import { type ConfigDiagnostic, sortDiagnostics } from "../config/diagnostic.js";
import { closest } from "../config/suggest.js";
import { unknownNameCode } from "../kinds/contract.js";
import { type Kinds, unknownNames } from "../kinds/references.js";
import { ALL_KINDS } from "../kinds/registry.js";
import { makeIgnoreMatcher } from "../live/resolve.js";
import type { DesiredConfig } from "../model/desired.js";
import type { LiveState } from "../model/live.js";
import { UnknownReferenceError } from "./unknown-projects.js";

/** One diagnostic per reference by a name the org does not have. */
export const unknownNameDiagnostics = (
  desired: DesiredConfig,
  live: LiveState,
  kinds: Kinds = ALL_KINDS,
): ConfigDiagnostic[] =>
  unknownNames(desired.orgs, live.orgs, (org) => makeIgnoreMatcher(org.ignore), kinds).map(
    ({ org, reference: ref, written: w, declaredUnder: where, known }) => {
      const guess = closest(
        w.value,
        [...known].filter((k) => k !== w.value),
      );
      return {
        file: w.source.file,
        line: w.source.line,
        col: w.source.col,
        path: w.path,
        code: unknownNameCode(ref.to),
        message: `no ${ref.to} ${JSON.stringify(w.value)} in org ${org} (not declared under ${where}, and the org has none of that name)${
          guess === undefined
            ? `; declare it under ${where}${ref.by.includes("id") ? `, or use the ${ref.to}'s id` : ""}`
            : `; did you mean ${JSON.stringify(guess)}?`
        }`,
      };
    },
  );

/** The config names items (of one kind) the org does not have. Exit 1; nothing was planned. */
export class UnknownNameError extends UnknownReferenceError {
  /** `unknown_<kind>` (`unknown_group`), the diagnostics' code. */
  readonly code: string;

  constructor(diagnostics: readonly ConfigDiagnostic[]) {
    const code = diagnostics[0]?.code ?? "unknown_reference";
    super(code.replace(/^unknown_/, ""), "the org", diagnostics);
    this.code = code;
  }
}

/** Throw UnknownNameError when the config names, by name, an item the org does not have. */
export const checkNamedReferences = (
  desired: DesiredConfig,
  live: LiveState,
  kinds: Kinds = ALL_KINDS,
): void => {
  const found = unknownNameDiagnostics(desired, live, kinds);
  if (found.length > 0) throw new UnknownNameError(sortDiagnostics(found, desired.files));
};
