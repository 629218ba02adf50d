/**
 * Resource types and addresses (design.md §1 "Identity").
 *
 * An address is built from natural keys: `context["deploy-prod"].env["AWS_REGION"]`,
 * `project["gh/acme/api"].pipeline["build"].trigger["nightly"]`. Keys are quoted as JSON
 * strings, so any character can appear in a key and the address stays parseable.
 */

export const RESOURCE_TYPES = [
  "org_settings",
  "group",
  "sso_group_mappings",
  "context",
  "context_env_var",
  "context_restriction",
  "otel_exporter",
  "project",
  "project_settings",
  "project_env_var",
  "checkout_key",
  "webhook",
  "pipeline",
  "trigger",
] as const;

export type ResourceType = (typeof RESOURCE_TYPES)[number];

/** One step of an address: `context["x"]`, or a bare word such as `settings`. */
export interface AddressSegment {
  readonly name: string;
  readonly key?: string;
}

const quote = (key: string): string => JSON.stringify(key);

const step = (s: AddressSegment): string =>
  s.key === undefined ? s.name : `${s.name}[${quote(s.key)}]`;

export const formatAddress = (segments: readonly AddressSegment[]): string =>
  segments.map(step).join(".");

/**
 * The address of one more step under `parent` (an address; `""` is the org): what
 * formatAddress gives for the parent's segments and `segment`, without parsing the parent
 * back into segments (the planner makes one for every item it walks).
 */
export const childAddress = (parent: string, segment: AddressSegment): string =>
  parent === "" ? step(segment) : `${parent}.${step(segment)}`;

/** The restriction key inside a context: `project:gh/acme/api`, `group:all-members`, ... */
export type RestrictionType = "project" | "expression" | "group";
export const restrictionKey = (type: RestrictionType, value: string): string => `${type}:${value}`;

/**
 * A legacy V2 schedule's address step (`project["x"].legacy_schedule["nightly"]`): drift
 * lists them (src/live/legacy-schedules.ts) and `ignore` may name them; never a kind.
 */
export const LEGACY_SCHEDULE_STEP = "legacy_schedule";

export const addr = {
  orgSettings: (): string => "org_settings",
  context: (name: string): string => formatAddress([{ name: "context", key: name }]),
  contextEnvVar: (context: string, name: string): string =>
    formatAddress([
      { name: "context", key: context },
      { name: "env", key: name },
    ]),
  contextRestriction: (context: string, type: RestrictionType, value: string): string =>
    formatAddress([
      { name: "context", key: context },
      { name: "restriction", key: restrictionKey(type, value) },
    ]),
  /** `sso_group_mappings`: the org's one set of IdP group mappings (issue 17). */
  ssoGroupMappings: (): string => "sso_group_mappings",
  /** `group["platform"]`: identity = the group's name (issue 17). */
  group: (name: string): string => formatAddress([{ name: "group", key: name }]),
  /** `otel_exporter["grpc:api.honeycomb.io:443"]`: identity = protocol + endpoint. */
  otelExporter: (key: string): string => formatAddress([{ name: "otel_exporter", key }]),
  project: (slug: string): string => formatAddress([{ name: "project", key: slug }]),
  legacySchedule: (slug: string, name: string): string =>
    formatAddress([
      { name: "project", key: slug },
      { name: LEGACY_SCHEDULE_STEP, key: name },
    ]),
  /** `project["gh/acme/api"].checkout_key["deploy-key"]`: identity = the key's type. */
  checkoutKey: (slug: string, type: string): string =>
    formatAddress([
      { name: "project", key: slug },
      { name: "checkout_key", key: type },
    ]),
  projectSettings: (slug: string): string =>
    formatAddress([{ name: "project", key: slug }, { name: "settings" }]),
  projectEnvVar: (slug: string, name: string): string =>
    formatAddress([
      { name: "project", key: slug },
      { name: "env", key: name },
    ]),
  webhook: (slug: string, name: string): string =>
    formatAddress([
      { name: "project", key: slug },
      { name: "webhook", key: name },
    ]),
  pipeline: (slug: string, name: string): string =>
    formatAddress([
      { name: "project", key: slug },
      { name: "pipeline", key: name },
    ]),
  trigger: (slug: string, pipeline: string, trigger: string): string =>
    formatAddress([
      { name: "project", key: slug },
      { name: "pipeline", key: pipeline },
      { name: "trigger", key: trigger },
    ]),
} as const;

/**
 * Parse an address back into segments. Returns undefined when the text is not an address.
 * Accepts the same grammar `formatAddress` writes: `name` or `name["json string"]`, joined
 * by dots.
 */
export const parseAddress = (text: string): AddressSegment[] | undefined => {
  const segments: AddressSegment[] = [];
  let i = 0;
  while (i < text.length) {
    // A loop over the characters, not a regex on `text.slice(i)`: that copied the rest of
    // the text at every segment (issue 41: a 150 KB ignore_fields entry took seconds).
    const start = i;
    while (i < text.length && /[a-z_]/.test(text[i] as string)) i++;
    if (i === start) return undefined;
    const name = text.slice(start, i);
    let key: string | undefined;
    if (text[i] === "[") {
      if (text[i + 1] !== '"') return undefined;
      let j = i + 2;
      while (j < text.length && text[j] !== '"') j += text[j] === "\\" ? 2 : 1;
      if (text[j] !== '"' || text[j + 1] !== "]") return undefined;
      try {
        key = JSON.parse(text.slice(i + 1, j + 1)) as string;
      } catch {
        return undefined;
      }
      i = j + 2;
    }
    segments.push(key === undefined ? { name } : { name, key });
    if (i === text.length) break;
    if (text[i] !== ".") return undefined;
    i += 1;
    if (i === text.length) return undefined;
  }
  return segments.length > 0 ? segments : undefined;
};

/** A compiled address glob; `test` answers whether it matches a whole address. */
export interface AddressGlob {
  readonly glob: string;
  test(address: string): boolean;
}

/**
 * Compile an address glob (`--target`, `ignore`, `keep_unlisted`): `*` matches any run of
 * characters, `?` one character; everything else is literal. A glob matches an address, and
 * (for `--target`) an address is also selected when the glob matches one of its parents, which
 * callers handle with `isWithin`.
 *
 * Why not a RegExp: `*` as `.*` backtracks, and a config (a PR's, in a plan job) chooses the
 * glob: a 37-character glob of stars took 51 s against one 32-character name. This matcher
 * keeps only the last `*` it passed (a later star makes earlier choices final), so a match
 * takes at most `glob.length × address.length` steps, whatever the glob.
 */
export const compileAddressGlob = (glob: string): AddressGlob => {
  // Runs of stars are one star; code points, so `?` is one character, not half a surrogate.
  const pattern = Array.from(glob.replace(/\*{2,}/g, "*"));
  return {
    glob,
    test: (address) => matchGlob(pattern, Array.from(address)),
  };
};

const matchGlob = (pattern: readonly string[], text: readonly string[]): boolean => {
  let p = 0;
  let t = 0;
  let starAt = -1; // the pattern index just after the last `*` passed
  let starText = 0; // where in the text that star's run currently ends
  while (t < text.length) {
    const ch = pattern[p];
    if (ch === "*") {
      starAt = ++p;
      starText = t;
    } else if (ch !== undefined && (ch === "?" || ch === text[t])) {
      p++;
      t++;
    } else if (starAt >= 0) {
      // Let the last star take one more character and retry what follows it.
      p = starAt;
      t = ++starText;
    } else {
      return false;
    }
  }
  while (pattern[p] === "*") p++;
  return p === pattern.length;
};

/** An address in its one written form (`moved` entries compare this way); text that is not one stays as it is. */
export const normalAddress = (address: string): string => {
  const segments = parseAddress(address);
  return segments === undefined ? address : formatAddress(segments);
};

/** True when `address` is `parent` or lies inside it (`context["a"].env["B"]` within `context["a"]`). */
export const isWithin = (address: string, parent: string): boolean =>
  address === parent || address.startsWith(`${parent}.`);

/** Every ancestor address of an address, nearest last (`project["x"]`, `project["x"].pipeline["y"]`). */
export const ancestorsOf = (address: string): string[] => {
  const segments = parseAddress(address);
  if (!segments) return [];
  const out: string[] = [];
  for (let n = 1; n < segments.length; n++) out.push(formatAddress(segments.slice(0, n)));
  return out;
};
