/**
 * The house's promise, kept by a kind written only against docs/adding-a-kind.md: runner
 * resource classes (test/helpers/runner-class-kind.ts, a TEST-ONLY kind: an org-level
 * collection, two fields, a context named by name) and its emulator family
 * (test/helpers/runner-class-family.ts), registered into copies of the two lists, with no
 * edit anywhere else. Its module stays within 150 lines (the grouped spec's defaults,
 * `defineKind`, state the rest); against the real emulator it is listed, planned (create,
 * update, delete, nothing for a matching config), its unknown context is a "did you mean", its create's flat answer
 * is read where its call declares it (and apply's executor, given the copy of the registry,
 * creates one and keeps its id), its export names the context, and a context's delete takes
 * the classes naming it (the cascade its family declares).
 */
import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FAMILIES } from "../../emulator/src/families.js";
import { executeOperation, newIdRegistry } from "../../src/apply/executor.js";
import { contextKind } from "../../src/kinds/context.js";
import { answerShape, idAt, type ResourceKind } from "../../src/kinds/contract.js";
import { ALL_KINDS, KINDS } from "../../src/kinds/registry.js";
import { RESOURCE_TYPES } from "../../src/model/address.js";
import type { DesiredOrg } from "../../src/model/desired.js";
import type { LiveOrg } from "../../src/model/live.js";
import { planChanges } from "../../src/plan/plan.js";
import { unknownNameDiagnostics } from "../../src/run/unknown-references.js";
import { desired, dOrg, live, lOrg } from "../helpers/builders.js";
import {
  baseSeed,
  type Harness,
  ORG_ID,
  ORG_SLUG,
  startHarness,
} from "../helpers/client-harness.js";
import { runnerClasses } from "../helpers/runner-class-family.js";
import {
  type DesiredRunnerClass,
  type LiveRunnerClass,
  runnerClassKind,
} from "../helpers/runner-class-kind.js";

const KINDS_WITH = [...ALL_KINDS, runnerClassKind as unknown as ResourceKind<unknown, unknown>];
const at = (line: number) => ({ file: "waybill.yaml", line, col: 5 });

let h: Harness;
beforeAll(async () => {
  h = await startHarness(
    baseSeed({
      contexts: [{ name: "deploy" }, { name: "build" }],
      runner_resource_classes: [
        { name: "big", description: "8 cores", context: "deploy" },
        { name: "old" },
      ],
    }),
    {},
    undefined,
    [...FAMILIES, runnerClasses],
  );
});
afterAll(async () => {
  await h.close();
});

const readLive = async (): Promise<LiveOrg> => {
  const contexts = await contextKind.list(h.client, { org_id: ORG_ID });
  const classes = await runnerClassKind.list(h.client, { org_id: ORG_ID });
  return { ...lOrg({ slug: ORG_SLUG, id: ORG_ID, contexts }), runner_resource_classes: classes };
};
const declaring = (classes: readonly DesiredRunnerClass[]): DesiredOrg => ({
  ...dOrg({ slug: ORG_SLUG }),
  runner_resource_classes: new Map(classes.map((c) => [c.name, c])),
});

describe("a test-only kind added by the docs alone (runner resource classes)", () => {
  it("is ≤ 150 lines of kind module, and in neither product registry", () => {
    const lines = readFileSync("test/helpers/runner-class-kind.ts", "utf8").trimEnd().split("\n");
    expect(lines.length).toBeLessThanOrEqual(150);
    expect(Object.keys(KINDS)).not.toContain("runner_resource_class");
    expect(RESOURCE_TYPES).not.toContain("runner_resource_class");
    expect(FAMILIES).not.toContain(runnerClasses);
    // What `defineKind`'s defaults stated for it: the plain collection's usual way.
    const org = declaring([{ name: "big", source: at(3) }]);
    expect([...runnerClassKind.desiredItems(org)].map((x) => x.address)).toEqual([
      'runner_resource_class["big"]',
    ]);
    expect(runnerClassKind.collection.name).toBe("runner_resource_classes");
    expect(runnerClassKind.config).toMatchObject({
      shape: "map",
      declares: "key",
      schemaDef: "runnerResourceClass",
    });
    expect(runnerClassKind.adopt.by).toBe("relist");
  });

  it("plans a create, an update and a delete, and nothing for a config that matches", async () => {
    const org = await readLive();
    const deploy = org.contexts?.find((c) => c.name === "deploy")?.id;
    const build = org.contexts?.find((c) => c.name === "build")?.id;
    expect(org.runner_resource_classes?.map((c) => [c.name, c.context_id])).toEqual([
      ["big", deploy],
      ["old", null],
    ]);
    const plan = planChanges(
      desired(
        declaring([
          { name: "big", description: "16 cores", context: "build", source: at(3) },
          { name: "gpu", context: "deploy", source: at(5) },
        ]),
      ),
      live(org),
      { kinds: KINDS_WITH },
    );
    const mine = plan.changes.filter((c) => c.address.startsWith("runner_resource_class["));
    expect(mine.map((c) => [c.address, c.action])).toEqual([
      ['runner_resource_class["big"]', "update"],
      ['runner_resource_class["gpu"]', "create"],
      ['runner_resource_class["old"]', "delete"],
    ]);
    expect(mine[0]?.fields.map((f) => [f.path, f.after])).toEqual([
      ["description", "16 cores"],
      ["context_id", build],
    ]);
    expect(mine[1]?.params.context_id).toBe(deploy);

    const same = planChanges(
      desired(
        declaring([
          { name: "big", description: "8 cores", context: "deploy", source: at(3) },
          { name: "old", source: at(5) },
        ]),
      ),
      live(org),
      { kinds: KINDS_WITH },
    );
    expect(same.changes).toEqual([]);
  });

  it("reports a misspelt context with FILE:LINE:COL and did you mean (unknown_context)", async () => {
    const found = unknownNameDiagnostics(
      desired(declaring([{ name: "big", context: "deplyo", source: at(3) }])),
      live(await readLive()),
      KINDS_WITH,
    );
    expect(found).toEqual([
      expect.objectContaining({
        line: 3,
        col: 5,
        path: "runner_resource_classes.big.context",
        code: "unknown_context",
        message: expect.stringContaining('did you mean "deploy"?'),
      }),
    ]);
  });

  it("reads its create's id where its call declares the answer (flat), and exports names", async () => {
    const [create] = runnerClassKind.createCalls({ name: "gpu", source: at(1) });
    expect(answerShape(create!)).toBe("flat");
    const answer = await h.client.post("v3", create!.route, {
      data: { attributes: { name: "gpu" }, references: { org: { id: ORG_ID } } },
    });
    const id = idAt(answerShape(create!), answer);
    expect(idAt("envelope", answer)).toBeUndefined();
    const org = await readLive();
    expect(org.runner_resource_classes?.find((c) => c.name === "gpu")?.id).toBe(id);

    const nameOf = (cid: string) => org.contexts?.find((c) => c.id === cid)?.name;
    const named = (org.runner_resource_classes ?? []).map((l) =>
      runnerClassKind.references![0]!.named(l, nameOf, ORG_ID),
    );
    const entries = runnerClassKind.toConfig(named, { org: ORG_SLUG } as never, {} as never);
    expect(entries).toContainEqual({
      written: "big",
      item: expect.anything(),
      doc: { description: "8 cores", context: "deploy" },
    });
  });

  it("is applied by apply's executor: the flat answer's id is kept, never dropped", async () => {
    const org = await readLive();
    const build = org.contexts?.find((c) => c.name === "build")?.id;
    const cheap: DesiredRunnerClass = { name: "cheap", context: "build", source: at(7) };
    const plan = planChanges(desired(declaring([cheap])), live(org), { kinds: KINDS_WITH });
    const change = plan.changes.find((c) => c.address === 'runner_resource_class["cheap"]');
    expect(change?.action).toBe("create");
    const ids = newIdRegistry();
    const deps = {
      api: h.client,
      ids,
      kinds: KINDS_WITH,
      desired: { get: (_o: string, a: string) => (a === change!.address ? cheap : undefined) },
    };
    const result = await executeOperation(
      { ...deps, desired: { get: (o, a) => deps.desired.get(o, a) as never } },
      change!,
      "create",
    );
    expect(result.verb).toBe("created");
    const listed = (await runnerClassKind.list(h.client, { org_id: ORG_ID })).find(
      (c) => c.name === "cheap",
    );
    expect(listed?.context_id).toBe(build);
    expect(ids.get(ORG_SLUG, change!.address)).toBe(listed?.id);
    expect(result.id).toBe(listed?.id);
  });

  it("goes with the context it names: the cascade its family declares", async () => {
    const org = await readLive();
    const deploy = org.contexts?.find((c) => c.name === "deploy")?.id;
    await h.client.delete("v3", `/contexts/${deploy}`);
    const after = await runnerClassKind.list(h.client, { org_id: ORG_ID });
    expect(after.map((c: LiveRunnerClass) => c.name)).not.toContain("big");
    expect(after.map((c) => c.name)).toContain("old");
  });
});
