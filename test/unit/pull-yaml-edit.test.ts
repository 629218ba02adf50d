/**
 * The text edits behind `waybill pull` (src/pull/yaml-edit.ts): each one rewrites only the
 * touched value's bytes; everything else (comments, anchors, quoting, blank lines, flow or
 * block style) is byte for byte what it was.
 */
import { describe, expect, it } from "vitest";
import { appendIn, deleteIn, setIn, valueAt } from "../../src/pull/yaml-edit.js";

const base = `# head comment
x-common: &common # an anchor
  enable_auto_cancel_redundant_workflows: true
org: 'gh/acme'   # single-quoted on purpose

projects:
  gh/acme/api:
    settings: { <<: *common, is_build_prs_only: false } # flow
    webhooks:
      slack:
        url: "https://hooks.example.com/T0"
        events:
          - workflow-completed   # block list

      # a comment between entries
      audit: { url: https://a.example.com/h, events: [job-completed] }
`;

/** The lines of `after` that are not in `before`, and the reverse. */
const lineDiff = (before: string, after: string) => {
  const a = before.split("\n");
  const b = after.split("\n");
  return { removed: a.filter((l) => !b.includes(l)), added: b.filter((l) => !a.includes(l)) };
};

describe("yaml edits", () => {
  it("quotes a value in a flow map when its characters would end a plain scalar there", () => {
    const ref = (name: string) => `$\{env:${name}}`;
    const path = ["projects", "gh/acme/api", "webhooks", "audit", "url"];
    const after = setIn(base, path, ref("AUDIT_URL"));
    expect(valueAt(after, path)).toBe(ref("AUDIT_URL"));
    expect(lineDiff(base, after)).toEqual({
      removed: ["      audit: { url: https://a.example.com/h, events: [job-completed] }"],
      added: [`      audit: { url: "${ref("AUDIT_URL")}", events: [job-completed] }`],
    });
    // In a block map the same value stays plain.
    const block = setIn(
      base,
      ["projects", "gh/acme/api", "webhooks", "slack", "events", 0],
      ref("E"),
    );
    expect(block).toContain(`          - ${ref("E")}   # block list`);
  });

  it("replaces a scalar in a flow map, keeping the rest of the line and file", () => {
    const out = setIn(base, ["projects", "gh/acme/api", "settings", "is_build_prs_only"], true);
    expect(lineDiff(base, out)).toEqual({
      removed: ["    settings: { <<: *common, is_build_prs_only: false } # flow"],
      added: ["    settings: { <<: *common, is_build_prs_only: true } # flow"],
    });
  });

  it("keeps a replaced string's quotes", () => {
    const out = setIn(
      base,
      ["projects", "gh/acme/api", "webhooks", "slack", "url"],
      "https://b.example.com/T1",
    );
    expect(lineDiff(base, out).added).toEqual(['        url: "https://b.example.com/T1"']);
  });

  it("replaces a block list by a block list at the same indentation", () => {
    const out = setIn(
      base,
      ["projects", "gh/acme/api", "webhooks", "slack", "events"],
      ["workflow-completed", "job-completed"],
    );
    expect(out).toBe(
      base.replace(
        "          - workflow-completed   # block list\n",
        "          - workflow-completed\n          - job-completed\n",
      ),
    );
    expect(valueAt(out, ["x-common"])).toEqual({ enable_auto_cancel_redundant_workflows: true });
  });

  it("adds a key to a block map after its last entry, in fmt's layout", () => {
    const out = setIn(base, ["projects", "gh/acme/api", "env", "NEW"], `\${env:NEW}`);
    expect(lineDiff(base, out)).toEqual({
      removed: [],
      added: ["    env:", `      NEW: \${env:NEW}`],
    });
    expect(out.startsWith(base.trimEnd())).toBe(true);
  });

  it("adds to a flow list and a flow map", () => {
    const a = appendIn(
      base,
      ["projects", "gh/acme/api", "webhooks", "audit", "events"],
      "workflow-completed",
    );
    expect(lineDiff(base, a).added).toEqual([
      "      audit: { url: https://a.example.com/h, events: [job-completed, workflow-completed] }",
    ]);
    const b = setIn(base, ["projects", "gh/acme/api", "webhooks", "audit", "is_enabled"], false);
    expect(lineDiff(base, b).added).toEqual([
      "      audit: { url: https://a.example.com/h, events: [job-completed], is_enabled: false }",
    ]);
  });

  it("removes an entry with its line, and the last one leaves {} so the map stays declared", () => {
    const one = deleteIn(base, ["projects", "gh/acme/api", "webhooks", "audit"]);
    expect(lineDiff(base, one).removed).toEqual([
      "      audit: { url: https://a.example.com/h, events: [job-completed] }",
    ]);
    const none = deleteIn(one, ["projects", "gh/acme/api", "webhooks", "slack"]);
    expect(valueAt(none, ["projects", "gh/acme/api", "webhooks"])).toEqual({});
    expect(none).toContain("# a comment between entries");
  });

  it("turns an empty {} or [] in a block map into a block, keeping its comment", () => {
    const text = "org: gh/acme\ncontexts: {} # none yet\nlist: []\n";
    expect(setIn(text, ["contexts", "deploy", "env"], {})).toBe(
      "org: gh/acme\ncontexts:\n  # none yet\n  deploy:\n    env: {}\nlist: []\n",
    );
    expect(appendIn(text, ["list"], { expression: "a == 1" })).toBe(
      "org: gh/acme\ncontexts: {} # none yet\nlist:\n  - expression: a == 1\n",
    );
  });

  it("a scalar that becomes a map keeps its comment; inside a flow map it stays flow", () => {
    const text = "org: gh/acme\nsettings: ~ # later\nx: { a: 1 }\n";
    expect(setIn(text, ["settings"], { enable_private_orbs: true })).toBe(
      "org: gh/acme\nsettings:\n  # later\n  enable_private_orbs: true\nx: { a: 1 }\n",
    );
    expect(setIn(text, ["x", "a"], { b: [1, 2] })).toBe(
      "org: gh/acme\nsettings: ~ # later\nx: { a: {b: [1, 2]} }\n",
    );
  });

  it("writes into a file whose last line has no newline", () => {
    const text = "org: gh/acme\nsettings:\n  enable_private_orbs: true";
    expect(setIn(text, ["settings", "enable_uncertified_public_orbs"], false)).toBe(
      "org: gh/acme\nsettings:\n  enable_private_orbs: true\n  enable_uncertified_public_orbs: false\n",
    );
  });
});
