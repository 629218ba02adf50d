/**
 * What a test needs to run an example config (examples/) against the emulator: a value for
 * every variable it references, and a seed holding the orgs, projects and groups it names.
 * Shared by test/integration/examples-walk.test.ts (every example, validate → plan → apply)
 * and test/integration/apply-done-means-2xx.test.ts (every kind the examples declare).
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import type { SeedOrg } from "../../emulator/src/families/orgs.js";
import type { Seed } from "../../emulator/src/seed.js";
import type { DesiredConfig } from "../../src/model/desired.js";
import { REPO_ROOT } from "./cli.js";

/** Every variable an example (a file or folder under the repo) references, with a value of its own (never printed). */
export const exampleEnv = (config: string): Record<string, string> => {
  const names = new Set<string>();
  const walk = (p: string): void => {
    if (statSync(p).isDirectory()) {
      for (const f of readdirSync(p)) walk(join(p, f));
      return;
    }
    if (!/\.ya?ml$/.test(p)) return;
    for (const m of readFileSync(p, "utf8").matchAll(/\$\{env:([A-Za-z_][A-Za-z0-9_]*)\}/g)) {
      if (m[1]) names.add(m[1]);
    }
  };
  walk(join(REPO_ROOT, config));
  return Object.fromEntries([...names].map((n) => [n, `walk-secret-${n}-value`]));
};

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** A seed holding the orgs, projects (declared or named by a restriction) and groups. */
export const exampleSeed = (desired: DesiredConfig): Seed => {
  const orgs = new Map<string, { projects: Set<string>; groups: Set<string> }>();
  for (const org of desired.orgs) {
    const o = orgs.get(org.slug) ?? { projects: new Set<string>(), groups: new Set<string>() };
    orgs.set(org.slug, o);
    for (const slug of org.projects.keys()) o.projects.add(slug);
    for (const c of org.contexts?.values() ?? []) {
      for (const r of c.restrictions ?? []) {
        if (r.type === "project" && !UUID.test(r.project)) o.projects.add(r.project);
        if (r.type === "group" && UUID.test(r.group)) o.groups.add(r.group);
      }
    }
  }
  return {
    orgs: [...orgs].map(
      ([slug, o]): SeedOrg => ({
        slug,
        groups: [...o.groups].map((id, i) => ({ id, name: `group-${i}` })),
        projects: [...o.projects].map((p) => ({ slug: p.split("/").slice(2).join("/") })),
      }),
    ),
  };
};
