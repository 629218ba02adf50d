/**
 * Names of the environment variables an exported config reads its secrets from
 * (`${env:NAME}` placeholders; design.md §1 "Secrets"). Pure: the same live state always
 * gives the same names.
 */

/*
 * Decision: the placeholder names are, upper-cased with every run of other characters as `_`:
 *   context env var          CTX_<CONTEXT>_<VAR>
 *   project env var          PROJECT_<PROJECT>_<VAR>            (<PROJECT>: the slug after the org)
 *   webhook signing secret   WEBHOOK_<PROJECT>_<WEBHOOK>_SIGNING_SECRET
 *   trigger webhook secret   TRIGGER_<PROJECT>_<PIPELINE>_<TRIGGER>_SECRET
 * Readable enough to set by hand, and one export never reuses a name (see assignEnvNames).
 */

import type { EnvNameRequest } from "../kinds/config-doc.js";

export type { EnvNameRequest } from "../kinds/config-doc.js";

/** One secret the exported config needs: which placeholder feeds which address. */
export interface EnvVarNeed {
  /** The environment variable name, e.g. `CTX_DEPLOY_PROD_AWS_REGION`. */
  readonly name: string;
  /** The address it feeds, e.g. `context["deploy-prod"].env["AWS_REGION"]`. */
  readonly address: string;
  /** What the value is, for the stderr list: `env var`, `signing_secret`, `webhook secret`. */
  readonly what: EnvNameRequest["what"];
}

/**
 * One part of a name: upper-cased, every run of characters other than A-Z and 0-9 turned
 * into one `_`, no `_` at either end; a part with nothing left becomes `X`.
 */
export const nameToken = (part: string): string => {
  const t = part
    .toUpperCase()
    .replace(/[^A-Z0-9]+/g, "_")
    .replace(/^_+|_+$/g, "");
  return t === "" ? "X" : t;
};

const VALID = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * Assign every request a valid, unique name. Decision: requests are taken in the order of
 * their addresses (then their kind), and a name already given gets `_2`, `_3`, ... — so the
 * names do not depend on the order the service listed things in, and the first item in
 * address order keeps the plain name. The first part is a letter prefix (`CTX`, `PROJECT`,
 * ...), so a name never starts with a digit.
 */
export const assignEnvNames = (
  requests: readonly EnvNameRequest[],
): { readonly needs: EnvVarNeed[]; readonly nameOf: ReadonlyMap<EnvNameRequest, string> } => {
  const sorted = [...requests].sort((a, b) =>
    a.address === b.address
      ? a.what < b.what
        ? -1
        : a.what > b.what
          ? 1
          : 0
      : a.address < b.address
        ? -1
        : 1,
  );
  const used = new Set<string>();
  const out: EnvVarNeed[] = [];
  const nameOf = new Map<EnvNameRequest, string>();
  for (const r of sorted) {
    let base = r.parts.map(nameToken).join("_");
    if (!VALID.test(base)) base = `X_${base}`;
    let name = base;
    for (let n = 2; used.has(name); n++) name = `${base}_${n}`;
    used.add(name);
    out.push({ name, address: r.address, what: r.what });
    nameOf.set(r, name);
  }
  return { needs: out, nameOf };
};
