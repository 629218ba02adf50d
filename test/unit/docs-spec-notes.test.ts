/**
 * Issue 16: comments in src/ cite the spec (`spec: api-v3.md "Triggers"`), and the spec lives
 * outside this repository. docs/spec-notes.md holds the rules the code depends on, under
 * headings named as the citations name them, so a citation resolves for someone who has only
 * the repository. This test fails when a comment cites a section the notes do not have.
 *
 * How a citation is read (docs/spec-notes.md says the same): after `spec: api-v3.md` or
 * `spec: api-v2-v1.md` (and an optional comma) come one or more section names, quoted or
 * bare, separated by `, `, ` and ` or ` — `; a bare name is matched against the notes'
 * headings (the longest that fits), and what follows it (`rule 5`, prose) is not a section.
 * A document's name followed by `:`, `)` or a code span cites the whole document.
 * `design.md §N "Section"` is checked the same way against the notes' design.md part.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";

const NOTES = "docs/spec-notes.md";

const sourceFiles = (dir: string): string[] =>
  readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = join(dir, e.name);
    if (e.isDirectory()) return sourceFiles(p);
    return /\.ts$/.test(e.name) ? [p] : [];
  });

/** Headings (level 3 and deeper) of docs/spec-notes.md, by the document (`## name`) they are under. */
const headingsByDocument = (markdown: string): Map<string, Set<string>> => {
  const out = new Map<string, Set<string>>();
  let current: Set<string> | undefined;
  for (const line of markdown.split("\n")) {
    const doc = /^## (\S+\.md)\s*$/.exec(line);
    if (doc?.[1]) {
      current = new Set();
      out.set(doc[1], current);
      continue;
    }
    if (/^## /.test(line)) current = undefined;
    const heading = /^#{3,6} (.+?)\s*$/.exec(line);
    if (heading?.[1] && current) current.add(heading[1]);
  }
  return out;
};

interface Citation {
  readonly where: string;
  readonly document: string;
  /** The text after `<document>.md`, to the end of the comment line. */
  readonly rest: string;
}

/** Comment text of a source line: the part after `//` or a leading `*`, unescaped. */
const commentText = (line: string): string =>
  line
    .replace(/^\s*(\/\/|\/?\*+)\s?/, "")
    .replace(/\*\/\s*$/, "")
    .replace(/\\"/g, '"');

const citations = (): Citation[] => {
  const out: Citation[] = [];
  for (const file of sourceFiles("src")) {
    const lines = readFileSync(file, "utf8").split("\n");
    lines.forEach((raw, i) => {
      const line = raw.replace(/\\"/g, '"');
      for (const m of line.matchAll(/spec: (api-v3\.md|api-v2-v1\.md)(.*)$/g)) {
        let rest = m[2] ?? "";
        // A citation that ends its line goes on in the next comment line.
        if (rest.replace(/\*\/\s*$/, "").trim() === "")
          rest = ` ${commentText(lines[i + 1] ?? "")}`;
        out.push({ where: `${file}:${i + 1}`, document: m[1] ?? "", rest });
      }
      for (const m of line.matchAll(/design\.md (§\d+)(.*)$/g)) {
        out.push({ where: `${file}:${i + 1}`, document: "design.md", rest: `${m[1]}${m[2]}` });
      }
    });
  }
  return out;
};

/**
 * The sections a citation names, or the reason it names none. `headings` are the notes'
 * headings for its document.
 */
const sectionsOf = (
  c: Citation,
  headings: ReadonlySet<string>,
): { ok: true; sections: string[] } | { ok: false; reason: string } => {
  let rest = c.rest.replace(/^,/, "").trimStart();
  const sections: string[] = [];
  if (c.document === "design.md") {
    const part = /^(§\d+)\s*/.exec(rest);
    const n = part?.[1] ?? "";
    if (![...headings].some((h) => h.startsWith(`${n} `)))
      return { ok: false, reason: `no heading "${n} …"` };
    sections.push(n);
    rest = rest.slice(part?.[0].length ?? 0);
    // `§1 Apply` and `§1 "Ownership"` name a section; `§1, issue 4` does not.
    if (!/^["A-Z]/.test(rest)) return { ok: true, sections };
  }
  for (;;) {
    if (rest.startsWith('"')) {
      const end = rest.indexOf('"', 1);
      const name = rest.slice(1, end);
      if (end < 0 || !headings.has(name)) return { ok: false, reason: `no heading "${name}"` };
      sections.push(name);
      rest = rest.slice(end + 1);
    } else if (/^[A-Z]/.test(rest)) {
      const name = [...headings]
        .filter((h) => rest.startsWith(h) && !/^[A-Za-z0-9]/.test(rest.slice(h.length)))
        .sort((a, b) => b.length - a.length)[0];
      if (name === undefined)
        return { ok: false, reason: `no heading that "${rest.slice(0, 40)}" starts with` };
      sections.push(name);
      rest = rest.slice(name.length);
    } else if (sections.length === 0 && /^[a-z]/.test(rest)) {
      // Prose right after the document's name reads as a section name misspelt.
      return { ok: false, reason: `names no section: "${rest.slice(0, 40)}"` };
    } else {
      // `spec: api-v2-v1.md: …`, `(spec: api-v2-v1.md)`: the whole document.
      return { ok: true, sections };
    }
    const next = /^(, | and | — )(?=["A-Z])/.exec(rest);
    if (!next) return { ok: true, sections };
    rest = rest.slice(next[0].length);
  }
};

describe("docs/spec-notes.md", () => {
  const headings = headingsByDocument(readFileSync(NOTES, "utf8"));

  it("has a part for each document the code cites", () => {
    expect([...headings.keys()].sort()).toEqual(["api-v2-v1.md", "api-v3.md", "design.md"]);
  });

  it("has a heading for every section a comment in src/ cites", () => {
    const all = citations();
    // The code cites the spec a few hundred times; far fewer would mean the scan broke.
    expect(all.length).toBeGreaterThan(150);
    const unresolved = all.flatMap((c) => {
      const r = sectionsOf(c, headings.get(c.document) ?? new Set());
      return r.ok ? [] : [`${c.where}: ${c.document}${c.rest.slice(0, 60)} — ${r.reason}`];
    });
    expect(unresolved).toEqual([]);
  });

  it("reads citations as the notes say (the reader itself)", () => {
    const h = new Set(["Limits", "Caching", "Idempotency", "Errors", "Org settings", "Orgs"]);
    const read = (rest: string) => sectionsOf({ where: "x", document: "api-v3.md", rest }, h);
    expect(read(' "Limits"')).toEqual({ ok: true, sections: ["Limits"] });
    expect(read(" Limits, Idempotency")).toEqual({ ok: true, sections: ["Limits", "Idempotency"] });
    expect(read(' Limits, "Caching"')).toEqual({ ok: true, sections: ["Limits", "Caching"] });
    expect(read(" Errors rule 1")).toEqual({ ok: true, sections: ["Errors"] });
    expect(read(' "Org settings", Orgs')).toEqual({ ok: true, sections: ["Org settings", "Orgs"] });
    expect(read(" Org settings")).toEqual({ ok: true, sections: ["Org settings"] });
    expect(read(' "Webhooks"').ok).toBe(false);
    expect(read(" Limit of pages").ok).toBe(false);
    expect(read(" says nothing").ok).toBe(false);
    expect(read(", `truncated_value`")).toEqual({ ok: true, sections: [] });
    expect(read(": the slug's `/`")).toEqual({ ok: true, sections: [] });
  });
});
