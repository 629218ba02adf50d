/**
 * Secret references: `${env:NAME}` and `${file:PATH}` (design.md §1 "Secrets"; issue 3).
 *
 * A string holding a reference is sensitive as a whole and becomes a `Secret`; `$${` is a
 * literal `${`. `${file:PATH}` is relative to the YAML file and its content is used byte
 * for byte (no trimming). Resolution reads the environment and files through injected
 * functions, so this module stays pure; every missing variable and unreadable file is
 * reported in the same run.
 */

import { type MaybeSecret, Secret } from "../core/secret.js";
import type { ResourceKind, SecretField } from "../kinds/contract.js";
import { ALL_KINDS, kindOf } from "../kinds/registry.js";
import type { ResourceType } from "../model/address.js";
import { maskedRenderingIn } from "../model/url-mask.js";
import type { ConfigDiagnostic, DiagnosticCode } from "./diagnostic.js";
import { tokenShapeOf } from "./token-shapes.js";
import {
  type DocPath,
  dottedPath,
  locate,
  type PathSegment,
  type PositionIndex,
  pathKey,
} from "./yaml-doc.js";

export type TemplatePart =
  | { readonly kind: "text"; readonly text: string }
  | { readonly kind: "env"; readonly name: string }
  | { readonly kind: "file"; readonly path: string };

export type ParsedTemplate =
  | { readonly ok: true; readonly parts: readonly TemplatePart[] }
  | { readonly ok: false; readonly message: string };

const HINT = `write \${env:NAME} or \${file:PATH}, or $\${ for a literal \${`;

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** Split a string into text and references. `$${` is a literal `${`. */
export const parseTemplate = (s: string): ParsedTemplate => {
  // Most strings hold no reference (and no `$${`): one part, the text as written.
  if (!s.includes("${")) return { ok: true, parts: [{ kind: "text", text: s }] };
  const parts: TemplatePart[] = [];
  let text = "";
  let i = 0;
  while (i < s.length) {
    if (s.startsWith("$${", i)) {
      text += "${";
      i += 3;
      continue;
    }
    if (s.startsWith("${", i)) {
      const end = s.indexOf("}", i + 2);
      if (end === -1) {
        return {
          ok: false,
          message: `has an unterminated "\${"; ${HINT}`,
        };
      }
      const body = s.slice(i + 2, end);
      if (body.startsWith("env:") && ENV_NAME.test(body.slice(4))) {
        if (text) parts.push({ kind: "text", text });
        text = "";
        parts.push({ kind: "env", name: body.slice(4) });
      } else if (body.startsWith("file:") && body.length > 5) {
        if (text) parts.push({ kind: "text", text });
        text = "";
        parts.push({ kind: "file", path: body.slice(5) });
      } else {
        return {
          ok: false,
          message: `has an invalid reference "\${${body}}"; ${HINT}`,
        };
      }
      i = end + 1;
      continue;
    }
    text += s[i];
    i += 1;
  }
  if (text || parts.length === 0) parts.push({ kind: "text", text });
  return { ok: true, parts };
};

/** The text of a string without references (`$${` unescaped), for non-secret fields. */
export const unescapeText = (s: string): string => s.replaceAll("$${", () => "${");

const hasReference = (s: string): boolean => s.includes("${") && /(^|[^$])\$\{(env|file):/.test(s);

export type { SecretField };

/** A document path pattern (`"*"`: any segment) and what the value there is. */
interface SecretPattern {
  readonly segments: readonly string[];
  readonly field: SecretField;
}

/**
 * Where a kind's items sit in the document: `projects.<slug>` for a project's, the
 * parent item's path and its collection key for a child kind's (a trigger's:
 * `projects.*.pipelines.*.triggers.*`). A singleton has no key segment.
 */
const itemPattern = (kind: ResourceKind<unknown, unknown>): readonly string[] => {
  const key = kind.config.shape === "singleton" ? [] : ["*"];
  const own = [kind.config.yamlKey, ...key];
  if (kind.parent === "org") return own;
  if (kind.parent === "project") return ["projects", "*", ...own];
  return [...itemPattern(kindOf(kind.parent as ResourceType)), ...own];
};

let patterns: readonly SecretPattern[] | undefined;
/** Every kind's secret paths as document patterns (built on first use, from the registry). */
const secretPatterns = (): readonly SecretPattern[] => {
  patterns ??= ALL_KINDS.flatMap((kind) =>
    (kind.config.secretPaths ?? []).map((p) => ({
      segments: [...itemPattern(kind), ...p.at],
      field: p.field,
    })),
  );
  return patterns;
};

/** "env values, a webhook's url and …": the places the kinds allow a reference. */
export const referencePlaces = (): string => {
  const places = [
    ...new Set(ALL_KINDS.flatMap((k) => (k.config.secretPaths ?? []).map((p) => p.where))),
  ];
  return places.length <= 1
    ? (places[0] ?? "no field")
    : `${places.slice(0, -1).join(", ")} and ${places[places.length - 1]}`;
};

/**
 * Which document paths may hold a reference (and what they are): the kinds say, in their
 * `config.secretPaths` (src/kinds/contract.ts), so a new kind's secret needs no edit here.
 *
 * Decision: references are allowed only where the model holds a secret (env values,
 * webhook url and signing_secret, a trigger's event.webhook.secret, an OTLP exporter's
 * header values); elsewhere they are an
 * error, since a description or a ref must not silently become sensitive. `$${` is
 * unescaped in every string. Literal values of secret fields are `Secret`s with origin
 * `literal`; an interpolated string's origin is its template as written (it names
 * references, never values). An environment variable set to "" counts as set, and an
 * empty result is refused in every secret field, not only env values.
 */
export const secretFieldAt = (path: DocPath): SecretField | undefined => {
  let steps: readonly PatternStep[] = [secretPatternTree()];
  for (const segment of path) steps = stepsAfter(steps, String(segment));
  return fieldAt(steps);
};

/**
 * The secret patterns as a tree: one step per document segment, so the walk below follows
 * it as it descends instead of comparing every pattern at every string. Where two patterns
 * match a path, the earlier one's field wins.
 */
interface PatternStep {
  readonly named: Map<string, PatternStep>;
  any?: PatternStep;
  /** The field of the earliest pattern that ends here, and its index. */
  end?: { readonly field: SecretField; readonly index: number };
  /** `[this]`, made once: the walk's usual next steps without an array per node. */
  readonly alone: readonly PatternStep[];
}

const newStep = (): PatternStep => {
  const alone: PatternStep[] = [];
  const step: PatternStep = { named: new Map(), alone };
  alone.push(step);
  return step;
};

let patternTree: PatternStep | undefined;
const secretPatternTree = (): PatternStep => {
  if (patternTree !== undefined) return patternTree;
  const root = newStep();
  secretPatterns().forEach(({ segments, field }, index) => {
    let step = root;
    for (const s of segments) {
      let next = s === "*" ? step.any : step.named.get(s);
      if (next === undefined) {
        next = newStep();
        if (s === "*") step.any = next;
        else step.named.set(s, next);
      }
      step = next;
    }
    if (step.end === undefined || step.end.index > index) step.end = { field, index };
  });
  patternTree = root;
  return root;
};

const NO_STEPS: readonly PatternStep[] = [];

/** The steps reached from `steps` by the segment `key`. */
const stepsAfter = (steps: readonly PatternStep[], key: string): readonly PatternStep[] => {
  if (steps.length === 0) return NO_STEPS;
  if (steps.length === 1) {
    const step = steps[0] as PatternStep;
    const named = step.named.get(key);
    if (named === undefined) return step.any?.alone ?? NO_STEPS;
    if (step.any === undefined) return named.alone;
  }
  const out: PatternStep[] = [];
  for (const step of steps) {
    const named = step.named.get(key);
    if (named !== undefined) out.push(named);
    if (step.any !== undefined) out.push(step.any);
  }
  return out.length === 0 ? NO_STEPS : out;
};

const fieldAt = (steps: readonly PatternStep[]): SecretField | undefined => {
  let best: PatternStep["end"];
  for (const step of steps) {
    if (step.end !== undefined && (best === undefined || step.end.index < best.index)) {
      best = step.end;
    }
  }
  return best?.field;
};

/** What a secret-only field is, for the literal-secret warning. */
const SECRET_ONLY: Readonly<Partial<Record<SecretField, string>>> = {
  signing_secret: "a webhook's signing_secret",
  webhook_secret: "a webhook trigger's secret",
  header: "an exporter header value",
};

/**
 * Issue 43 "Literal secrets" (design.md §5 "Secrets and files"): the warning for a value
 * written in clear where only a secret belongs, or undefined. A secret-only field (a signing
 * secret, a webhook trigger's secret, an exporter header value) warns whatever its value; an
 * env value only when it has the shape of a well-known credential (src/config/token-shapes.ts):
 * env values are often plain settings (`AWS_REGION: eu-west-1`). Decision: a webhook `url`
 * does not warn (the config may write it in clear, design.md §1), and the message never holds
 * the value, not even a part of it.
 */
export const literalSecretWarning = (field: SecretField, value: string): string | undefined => {
  const fix =
    "anyone who can read the repository can read it; write ${env:NAME} (or ${file:PATH}) and keep the value in your CI's secrets";
  const only = SECRET_ONLY[field];
  if (only !== undefined) return `${only} is written in clear: ${fix}`;
  if (field !== "env") return undefined;
  const shape = tokenShapeOf(value);
  return shape === undefined
    ? undefined
    : `this env value looks like ${shape}, written in clear: ${fix}`;
};

export type FileRead =
  | { readonly ok: true; readonly text: string }
  | {
      readonly ok: false;
      readonly reason: string;
      /** Issue 43: a target outside the config folder is refused with a code of its own. */
      readonly code?: "secret_file_outside";
    };

export interface ReferenceSources {
  readonly env: Readonly<Record<string, string | undefined>>;
  /** Read a `${file:}` target; `path` is as written, `from` the YAML file naming it. */
  readonly readFile: (path: string, from: string) => FileRead;
  /**
   * false: references become `Secret.unresolved` and missing ones are not errors;
   * `available` (pull, issue 41): resolved where every variable is set and every file
   * readable, else unresolved, never an error (pull compares a `${env:}` URL it can).
   */
  readonly resolve: boolean | "available";
}

/** Sensitive or plain values for every secret-capable string, by `pathKey`. */
export type ResolvedValues = ReadonlyMap<string, MaybeSecret>;

/**
 * Walk the whole document: resolve references where they are allowed, report them where
 * they are not, and report every missing variable and unreadable file.
 */
export const resolveReferences = (
  file: string,
  value: unknown,
  positions: PositionIndex,
  sources: ReferenceSources,
): {
  readonly values: ResolvedValues;
  readonly diagnostics: ConfigDiagnostic[];
  /** Issue 43: literal secrets (`literalSecretWarning`), never holding the value. */
  readonly warnings: ConfigDiagnostic[];
} => {
  const values = new Map<string, MaybeSecret>();
  const diagnostics: ConfigDiagnostic[] = [];
  const warnings: ConfigDiagnostic[] = [];
  const report = (
    path: DocPath,
    code: DiagnosticCode,
    message: string,
    into: ConfigDiagnostic[] = diagnostics,
  ): void => {
    const pos = locate(positions, path, "value");
    into.push({ file, ...pos, path: dottedPath(path), code, message });
  };

  const resolveString = (path: DocPath, s: string, field: SecretField): void => {
    // Issue 41: a value shaped like Waybill's own rendering is never a real URL or secret:
    // sent to the service, it replaces the real one (which is then lost).
    const masked = maskedRenderingIn(s);
    if (masked !== undefined) {
      report(
        path,
        "masked_value",
        `holds ${masked}, the way Waybill shows a hidden value, not the value itself; write the real value as \${env:NAME} (and set NAME), or remove the field`,
      );
      return;
    }
    const parsed = parseTemplate(s);
    if (!parsed.ok) {
      report(path, "invalid_reference", parsed.message);
      return;
    }
    const refs = parsed.parts.filter((p) => p.kind !== "text");
    const plain = parsed.parts.map((p) => (p.kind === "text" ? p.text : "")).join("");
    if (refs.length === 0) {
      // A literal: env values and secrets are sensitive anyway; a literal URL is not.
      values.set(pathKey(path), field === "url" ? plain : new Secret(plain, "literal"));
      const warning = literalSecretWarning(field, plain);
      if (warning !== undefined) report(path, "literal_secret", warning, warnings);
      return;
    }
    const only = parsed.parts.length === 1 ? parsed.parts[0] : undefined;
    const origin =
      only?.kind === "env" ? `env:${only.name}` : only?.kind === "file" ? `file:${only.path}` : s;
    const settable =
      sources.resolve === "available" &&
      refs.every((p) =>
        p.kind === "env" ? sources.env[p.name] !== undefined : sources.readFile(p.path, file).ok,
      );
    if (!sources.resolve || (sources.resolve === "available" && !settable)) {
      values.set(pathKey(path), Secret.unresolved(origin));
      return;
    }
    let out = "";
    let failed = false;
    for (const part of parsed.parts) {
      if (part.kind === "text") out += part.text;
      else if (part.kind === "env") {
        const v = sources.env[part.name];
        if (v === undefined) {
          failed = true;
          report(
            path,
            "env_missing",
            `environment variable ${part.name} is not set (referenced as \${env:${part.name}})`,
          );
        } else out += v;
      } else {
        const r = sources.readFile(part.path, file);
        if (!r.ok) {
          failed = true;
          report(
            path,
            r.code ?? "secret_file_unreadable",
            r.code === "secret_file_outside"
              ? `\${file:${part.path}} is not read: ${r.reason}`
              : `cannot read ${part.path} (referenced as \${file:${part.path}}): ${r.reason}`,
          );
        } else out += r.text;
      }
    }
    if (failed) return;
    if (out === "") {
      // spec: the service rejects empty env var values; an empty secret is never meant.
      report(
        path,
        "empty_env_value",
        `resolves to an empty value (from ${origin}); the service rejects empty values`,
      );
      return;
    }
    if (field === "url" && !out.startsWith("https://")) {
      report(
        path,
        "not_https",
        `resolves (from ${origin}) to a URL that does not start with https:// (the service delivers webhooks over HTTPS only)`,
      );
      return;
    }
    values.set(pathKey(path), new Secret(out, origin));
  };

  // One path, pushed and popped as the walk goes (copied only where a value or a problem
  // is recorded), and the secret patterns still possible at it (secretPatternTree).
  const path: PathSegment[] = [];
  const walk = (node: unknown, steps: readonly PatternStep[]): void => {
    if (typeof node === "string") {
      const field = fieldAt(steps);
      if (field) resolveString(path.slice(), node, field);
      else if (hasReference(node)) {
        report(
          path.slice(),
          "reference_not_allowed",
          `secret references (\${env:…}, \${file:…}) are only allowed in ${referencePlaces()}; write $\${ for a literal \${`,
        );
      }
      return;
    }
    if (Array.isArray(node)) {
      for (let i = 0; i < node.length; i++) {
        path.push(i);
        walk(node[i], stepsAfter(steps, String(i)));
        path.pop();
      }
    } else if (node !== null && typeof node === "object") {
      for (const k of Object.keys(node)) {
        path.push(k);
        walk((node as Record<string, unknown>)[k], stepsAfter(steps, k));
        path.pop();
      }
    }
  };
  walk(value, [secretPatternTree()]);
  return { values, diagnostics, warnings };
};
