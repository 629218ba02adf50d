/**
 * How much `extends` may add to a config, counted before anything is expanded.
 *
 * Templates multiply: a template is copied into every item that extends it, so a small file
 * grows without bound (46 KB of `templates`/`extends` expanded to 400,000 env vars; 174 KB
 * reached 4.4 GB before the process was killed). A PR's config is untrusted in a plan job, so
 * the expansion is counted against a bound as YAML aliases are (src/config/yaml-aliases.ts):
 * each template's size is counted once, times the items that use it, and the whole config is
 * refused before the first copy is made.
 *
 * Decision: at most 250,000 values added by templates in the whole config (a value is a
 * scalar, a map or a list, as YAML nodes are counted for aliases). An org of 10,000 projects
 * whose projects each inherit 25 values fits; the bound keeps the later walks of the expanded
 * value (schema, rules, build) linear in the text the user wrote.
 */
import type { ConfigDiagnostic } from "./diagnostic.js";
import { type ParsedFile, TEMPLATE_KINDS, type Templates } from "./templates.js";
import { dottedPath, locate } from "./yaml-doc.js";

export const DEFAULT_TEMPLATE_LIMIT = 250_000;

const isObj = (v: unknown): v is Readonly<Record<string, unknown>> =>
  v !== null && typeof v === "object" && !Array.isArray(v);

/** The number of values in a plain YAML value: itself and everything inside it. */
const sizeOf = (v: unknown): number => {
  let n = 0;
  const stack: unknown[] = [v];
  while (stack.length > 0) {
    const x = stack.pop();
    n += 1;
    if (Array.isArray(x)) for (const y of x) stack.push(y);
    else if (isObj(x)) for (const y of Object.values(x)) stack.push(y);
  }
  return n;
};

/**
 * One diagnostic at the template that adds the most when the templates the files' items
 * extend would add more than `limit` values; none otherwise. Unknown template names are
 * left to expandTemplates, which reports them.
 */
export const checkTemplateExpansion = (
  files: readonly ParsedFile[],
  templates: Templates,
  limit: number = DEFAULT_TEMPLATE_LIMIT,
): ConfigDiagnostic[] => {
  const sizes = new Map<string, number>();
  const uses = new Map<
    string,
    { kind: (typeof TEMPLATE_KINDS)[number]; name: string; count: number }
  >();
  let total = 0;
  for (const { value } of files) {
    if (!isObj(value)) continue;
    for (const kind of TEMPLATE_KINDS) {
      const items = value[kind];
      if (!isObj(items)) continue;
      for (const item of Object.values(items)) {
        if (!isObj(item) || !Array.isArray(item.extends)) continue;
        for (const name of item.extends) {
          if (typeof name !== "string") continue;
          const t = templates[kind].get(name);
          if (t === undefined) continue;
          const id = `${kind}\u0000${name}`;
          let size = sizes.get(id);
          if (size === undefined) {
            size = sizeOf(t.value);
            sizes.set(id, size);
          }
          total += size;
          const u = uses.get(id) ?? { kind, name, count: 0 };
          uses.set(id, { ...u, count: u.count + 1 });
        }
      }
    }
  }
  if (total <= limit) return [];
  let worst: { kind: (typeof TEMPLATE_KINDS)[number]; name: string; count: number } | undefined;
  let worstAdds = -1;
  for (const [id, u] of uses) {
    const adds = (sizes.get(id) ?? 0) * u.count;
    if (adds > worstAdds) {
      worst = u;
      worstAdds = adds;
    }
  }
  if (worst === undefined) return [];
  const t = templates[worst.kind].get(worst.name);
  if (t === undefined) return [];
  const path = ["templates", worst.kind, worst.name];
  const fmt = (n: number): string => n.toLocaleString("en-US");
  return [
    {
      file: t.file,
      ...locate(t.positions, path, "key"),
      path: dottedPath(path),
      code: "template_limit",
      message: `templates would add ${fmt(total)} values to the config, more than the limit of ${fmt(limit)}: template "${worst.name}" holds ${fmt(sizes.get(`${worst.kind}\u0000${worst.name}`) ?? 0)} values and ${fmt(worst.count)} items extend it (${fmt(worstAdds)}); write the shared values once (org settings, a context) or split the template`,
    },
  ];
};
