/**
 * design.md §5 "Reading the real service": an item Waybill cannot name is never deleted —
 * unless the config names it in `delete_unknown`, by the address and the live id plan lists.
 * Then plan shows a delete of that unknown item, apply deletes it and nothing else, and an
 * entry that names no unknown live item is an error before any write. Runs the CLI
 * in-process against the (sparse) emulator over loopback.
 */
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { Seed } from "../../emulator/src/seed.js";
import { useEmulatorSuite } from "../helpers/emulator-suite.js";
import { commitBase } from "../helpers/git-repo.js";

const ORG = "0a410000-0000-4000-8000-000000000001";
const CTX = "0c410000-0000-4000-8000-000000000001";
const EXPRESSION = 'pipeline.git.branch == "main"';
const seed = (): Seed => ({
  orgs: [
    {
      id: ORG,
      slug: "gh/acme",
      name: "acme",
      contexts: [
        {
          id: CTX,
          name: "deploy",
          restrictions: [
            { restriction_type: "expression", match_pattern: EXPRESSION },
            { restriction_type: "someday", match_pattern: "rule-x" },
            { restriction_type: "someday", match_pattern: "rule-y" },
          ],
        },
      ],
    },
  ],
});
const X = 'context["deploy"].restriction["someday:rule-x"]';
const Y = 'context["deploy"].restriction["someday:rule-y"]';

/** The org's config: the context's restrictions managed, and the given delete_unknown lines. */
const config = (deleteUnknown: string): string =>
  [
    "org: gh/acme",
    "contexts:",
    "  deploy:",
    "    restrictions:",
    `      - expression: '${EXPRESSION}'`,
    deleteUnknown,
    "",
  ].join("\n");

describe("delete_unknown: the one way to delete an item Waybill cannot name", () => {
  const suite = useEmulatorSuite(seed, {});
  /** The ids plan lists for the unknown items, by address. */
  const unknownIds = async (): Promise<Map<string, string>> => {
    const file = await suite.tmp.write("plain.yaml", config(""));
    const r = await suite.run(["plan", "-c", file, "--format", "json"]);
    expect(r.code, r.stderr).toBe(0);
    const unknown = JSON.parse(r.stdout).unknown as { address: string; id: string }[];
    return new Map(unknown.map((u) => [u.address, u.id]));
  };
  const writes = async () => (await suite.emulator.requests()).filter((q) => q.method !== "GET");
  const restrictionsLeft = async () =>
    ((await suite.emulator.state()).orgs?.[0]?.contexts?.[0]?.restrictions ?? [])
      .map((r) => `${r.restriction_type}:${r.match_pattern}`)
      .sort();

  it("plan shows the named unknown item as a delete; apply deletes it and nothing else", async () => {
    const ids = await unknownIds();
    const idX = ids.get(X);
    expect(idX).toEqual(expect.any(String));
    expect(ids.get(Y)).toEqual(expect.any(String));
    const file = await suite.tmp.write(
      "named.yaml",
      config(`delete_unknown:\n  - address: '${X}'\n    id: ${idX}`),
    );

    const json = await suite.run(["plan", "-c", file, "--format", "json"]);
    expect(json.code, json.stderr).toBe(0);
    const plan = JSON.parse(json.stdout);
    expect(plan.changes).toEqual([
      expect.objectContaining({
        address: X,
        action: "delete",
        resource_type: "context_restriction",
        id: idX,
        reason: expect.stringMatching(
          /^unknown item, deleted because delete_unknown at .*named\.yaml:7:5 names it/,
        ),
      }),
    ]);
    // The other unknown item is still only listed.
    expect(plan.unknown.map((u: { address: string }) => u.address)).toEqual([Y]);
    const text = await suite.run(["plan", "-c", file]);
    expect(text.stdout).toMatch(/- context\["deploy"\]\.restriction\["someday:rule-x"\]/);
    expect(text.stdout).toContain(`Unknown (left alone): ${Y} (id ${ids.get(Y)})`);

    await suite.emulator.clearRequests();
    const apply = await suite.run(["apply", "-c", file, "--auto-approve"]);
    expect(apply.code, apply.stdout + apply.stderr).toBe(0);
    // Apply's own writes aside (the org lock, src/lock/), one: the named item's delete.
    const sent = (await writes()).filter((q) => !q.path.startsWith("/api/v3/contexts"));
    expect(sent.map((q) => `${q.method} ${q.path}`)).toEqual([
      `DELETE /api/v3/context-restrictions/${idX}`,
    ]);
    expect(await restrictionsLeft()).toEqual([`expression:${EXPRESSION}`, "someday:rule-y"]);

    // The item is gone: a re-run with the entry still there converges (no change, exit 0,
    // nothing written) and says the entry can go, instead of failing every plan after it.
    await suite.emulator.clearRequests();
    const again = await suite.run(["apply", "-c", file, "--auto-approve"]);
    expect(again.code, again.stdout + again.stderr).toBe(0);
    expect(again.stdout + again.stderr).toMatch(
      /named\.yaml:7:5: delete_unknown names .* and no live item read has that id: nothing is deleted \(if the item was deleted, remove the entry/,
    );
    expect((await writes()).filter((q) => !q.path.startsWith("/api/v3/contexts"))).toEqual([]);
  });

  it("a partial plan (--changed-since) plans the delete an entry added since the ref names", async () => {
    const ids = await unknownIds();
    const dir = join(suite.tmp.dir, "repo");
    await mkdir(dir, { recursive: true });
    const file = join(dir, "waybill.yaml");
    await writeFile(file, config(""));
    commitBase(dir);
    await writeFile(file, config(`delete_unknown:\n  - address: '${X}'\n    id: ${ids.get(X)}`));
    const part = await suite.run([
      "plan",
      "-c",
      file,
      "--changed-since",
      "HEAD",
      "--format",
      "json",
    ]);
    expect(part.code, part.stderr).toBe(0);
    const plan = JSON.parse(part.stdout);
    expect(plan.scope).toBeDefined();
    expect(
      plan.changes.map((c: { action: string; address: string }) => `${c.action} ${c.address}`),
    ).toEqual([`delete ${X}`]);
  });

  it("without an entry, apply writes nothing for unknown items", async () => {
    const file = await suite.tmp.write("none.yaml", config(""));
    const apply = await suite.run(["apply", "-c", file, "--auto-approve"]);
    expect(apply.code, apply.stdout + apply.stderr).toBe(0);
    expect((await writes()).filter((q) => !q.path.startsWith("/api/v3/contexts"))).toEqual([]);
    expect(await restrictionsLeft()).toHaveLength(3);
  });

  it("an entry that names no unknown live item is an error at its line, with no write", async () => {
    const ids = await unknownIds();
    // Y's address with X's id: the address and the id must name one item.
    const file = await suite.tmp.write(
      "wrong.yaml",
      config(`delete_unknown:\n  - address: '${Y}'\n    id: ${ids.get(X)}`),
    );
    await suite.emulator.clearRequests();
    for (const args of [
      ["plan", "-c", file],
      ["apply", "-c", file, "--auto-approve"],
    ]) {
      const r = await suite.run(args);
      expect(r.code).toBe(1);
      expect(r.stderr).toMatch(
        /wrong\.yaml:7:5: delete_unknown names context\["deploy"\]\.restriction\["someday:rule-y"\] with id .* but plan lists no unknown live item with that address and id/,
      );
    }
    expect(await writes()).toEqual([]);
    expect(await restrictionsLeft()).toHaveLength(3);
  });

  it("an entry must be an exact address of a kind whose items can be unknown", async () => {
    for (const [entry, message] of [
      [
        `  - address: 'context["deploy"].restriction["*"]'\n    id: abc`,
        /is not an item's address/,
      ],
      [`  - address: 'context["deploy"].env["A"]'\n    id: abc`, /never unknown to Waybill/],
    ] as const) {
      const file = await suite.tmp.write("bad.yaml", config(`delete_unknown:\n${entry}`));
      const r = await suite.run(["validate", "-c", file]);
      expect(r.code).toBe(1);
      expect(r.stderr).toMatch(/bad\.yaml:7:\d+/);
      expect(r.stderr).toMatch(message);
    }
    expect(await writes()).toEqual([]);
  });
});
