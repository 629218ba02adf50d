/**
 * Issue 7, secrets: a registry of every secret value a test uses (the API token, the values
 * behind `${env:…}` / `${file:…}`, live secret values in a seed), and checks that fail the
 * test when any of them appears in stdout, stderr, a log, a saved plan, an export or an error
 * message. `runCli` (test/helpers/cli.ts) scans its outputs with it on every run.
 */
import { readdir, readFile, stat } from "node:fs/promises";
import { join } from "node:path";
import { expect } from "vitest";

/**
 * Shorter values would match by chance (`main`, `true`) and make the scan meaningless; the
 * fixtures use long, distinctive secrets.
 */
export const MIN_SECRET_LENGTH = 8;

/** Environment variables whose values are not secrets (they may appear in output). */
export const NOT_SECRET_ENV: ReadonlySet<string> = new Set([
  "SERVICE_BASE_URL",
  "PATH",
  "HOME",
  "NO_COLOR",
  "TERM",
  "CI",
  // The allowed orgs (design.md §4 "Integration") are named in the error that refuses one.
  "WAYBILL_ALLOWED_ORGS",
]);

export interface SecretRegistry {
  /** Register values (too-short ones fail the test: they cannot be scanned for). */
  register(...values: readonly string[]): void;
  readonly values: readonly string[];
  /** Fail the test if a registered value occurs in one of the named texts. */
  expectClean(outputs: Readonly<Record<string, string>>): void;
  /** Fail the test if a registered value occurs in a file, or any file under a folder. */
  expectFilesClean(...paths: readonly string[]): Promise<void>;
  /** Fail the test if a registered value occurs in an error's message, cause chain or fields. */
  expectErrorClean(err: unknown): void;
}

/**
 * The characters of `value`'s base64 encoding that depend on `value` alone, when it starts
 * at byte offset `k` (0, 1, 2) of a longer encoded text: an echoed request body encoded as
 * a whole puts the secret at any alignment.
 */
const base64Cores = (value: string): string[] => {
  const bytes = Buffer.from(value, "utf8");
  const out: string[] = [];
  for (const k of [0, 1, 2]) {
    const b64 = Buffer.concat([Buffer.alloc(k), bytes]).toString("base64");
    const core = b64.slice(Math.ceil((4 * k) / 3), Math.floor((8 * (k + bytes.length)) / 6));
    if (core.length >= MIN_SECRET_LENGTH)
      out.push(core, core.replace(/\+/g, "-").replace(/\//g, "_"));
  }
  return out;
};

/** How many leading characters of a secret count as a leak (issue 21: 14 of a value appeared). */
export const LEAKED_PREFIX_LENGTH = 14;

/**
 * Issue 21: every form a secret can take in text, written here independently of
 * src/model/redactor.ts so a shared misreading cannot pass both: raw, JSON-escaped (once
 * and twice), URL-encoded, base64 at each alignment (standard and URL alphabets), and its
 * first LEAKED_PREFIX_LENGTH characters. The prefix form is left out for a value whose
 * prefix is a URL's scheme and host (`https://hooks.…`): such a prefix is also the prefix of
 * non-secret URLs the plan shows, so it cannot tell a leak from an ordinary line.
 */
export const leakForms = (secret: string): { readonly form: string; readonly text: string }[] => {
  const json = JSON.stringify(secret).slice(1, -1);
  const forms = [
    { form: "raw", text: secret },
    { form: "JSON-escaped", text: json },
    { form: "JSON-escaped twice", text: JSON.stringify(json).slice(1, -1) },
    { form: "URL-encoded", text: encodeURIComponent(secret) },
    ...base64Cores(secret).map((text) => ({ form: "base64", text })),
  ];
  const prefix = secret.slice(0, LEAKED_PREFIX_LENGTH);
  if (secret.length > LEAKED_PREFIX_LENGTH && !prefix.includes("://"))
    forms.push({ form: `first ${LEAKED_PREFIX_LENGTH} characters`, text: prefix });
  return forms.filter((f, i) => forms.findIndex((g) => g.text === f.text) === i);
};

/** Where a secret occurs in a text, or undefined; the message never holds the secret itself. */
export const findLeak = (
  outputs: Readonly<Record<string, string>>,
  secrets: readonly string[],
): string | undefined => {
  const encoded = secrets.map((s) => (s.length > 0 ? leakForms(s) : []));
  for (const [name, text] of Object.entries(outputs)) {
    for (const [i, forms] of encoded.entries()) {
      for (const f of forms)
        if (text.includes(f.text)) return `secret #${i + 1} appears in ${name} (${f.form})`;
    }
  }
  return undefined;
};

/** One-shot form: no secret of `secrets` in any of `outputs`. */
export const expectNoLeaks = (
  outputs: Readonly<Record<string, string>>,
  secrets: readonly string[],
): void => {
  for (const s of secrets)
    expect(s.length, "a secret is too short to scan for").toBeGreaterThanOrEqual(MIN_SECRET_LENGTH);
  expect(findLeak(outputs, secrets)).toBeUndefined();
};

const filesUnder = async (path: string): Promise<string[]> => {
  const st = await stat(path);
  if (!st.isDirectory()) return [path];
  const out: string[] = [];
  for (const entry of await readdir(path)) out.push(...(await filesUnder(join(path, entry))));
  return out;
};

/** Every text an error carries: message, stack, string fields, and its causes. */
const errorTexts = (err: unknown, depth = 0): Record<string, string> => {
  if (depth > 5 || err === null || err === undefined) return {};
  if (typeof err !== "object") return { [`error${depth}`]: String(err) };
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(err))
    if (typeof v === "string") out[`error${depth}.${k}`] = v;
  if (err instanceof Error) {
    out[`error${depth}.message`] = err.message;
    out[`error${depth}.stack`] = err.stack ?? "";
    Object.assign(out, errorTexts(err.cause, depth + 1));
  }
  return out;
};

export const createSecretRegistry = (...initial: readonly string[]): SecretRegistry => {
  const values: string[] = [];
  const registry: SecretRegistry = {
    register(...more) {
      for (const v of more) {
        expect(v.length, "a secret is too short to scan for").toBeGreaterThanOrEqual(
          MIN_SECRET_LENGTH,
        );
        if (!values.includes(v)) values.push(v);
      }
    },
    get values() {
      return [...values];
    },
    expectClean(outputs) {
      expect(findLeak(outputs, values)).toBeUndefined();
    },
    async expectFilesClean(...paths) {
      for (const p of paths) {
        for (const file of await filesUnder(p)) {
          registry.expectClean({ [file]: await readFile(file, "utf8") });
        }
      }
    },
    expectErrorClean(err) {
      registry.expectClean(errorTexts(err));
    },
  };
  registry.register(...initial);
  return registry;
};
