/**
 * The emulator's side of the TEST-ONLY runner resource class kind (./runner-class-kind.ts),
 * as a family module (emulator/src/family.ts) served by `startEmulator({ families })` with a
 * copy of the list: `/api/v3/runner/resource-classes` GET (filter[org_id], paged), POST
 * (answered flat, the fixture's decision), POST `:id/update`, DELETE `:id`; an org's seed
 * member `runner_resource_classes` (`{ name, description?, context? }`: a context's name);
 * and the cascade it owns: a context's delete removes the classes that name it.
 */
import { badRequest, notFound } from "../../emulator/src/errors.js";
import type { Family } from "../../emulator/src/family.js";
import { body, created, enveloped, noContent, ok, uuidFilter } from "../../emulator/src/http.js";
import { hashUuid } from "../../emulator/src/ids.js";
import { paginate } from "../../emulator/src/paging.js";
import { enveloped as envelopedSchema, nonEmpty, ref } from "../../emulator/src/schemas.js";
import { nextId, removeWhere, type State } from "../../emulator/src/state.js";
import { s } from "../../emulator/src/validate.js";

interface RunnerClassRow {
  readonly id: string;
  readonly orgId: string;
  readonly name: string;
  description: string;
  contextId: string | null;
}

const rowsOf = (st: State): RunnerClassRow[] =>
  (st as unknown as { runnerClasses: RunnerClassRow[] }).runnerClasses;

const render = (r: RunnerClassRow) => ({
  id: r.id,
  attributes: { name: r.name, description: r.description },
  references: { org: { id: r.orgId }, ...(r.contextId ? { context: { id: r.contextId } } : {}) },
});

const contextIn = (st: State, orgId: string, id: string | undefined): string | null => {
  if (id === undefined) return null;
  if (!st.contexts.some((c) => c.id === id && c.orgId === orgId)) {
    throw badRequest("unknown_reference", `no context ${id}`, "/data/references/context/id");
  }
  return id;
};

const rowOr404 = (st: State, id: string): RunnerClassRow => {
  const row = rowsOf(st).find((r) => r.id === id);
  if (!row) throw notFound("runner resource class", id);
  return row;
};

export const runnerClasses: Family = {
  name: "runner-classes",
  tables: ["runnerClasses" as keyof State & string],
  routes: [
    {
      method: "GET",
      pattern: "/api/v3/runner/resource-classes",
      handler: (ctx) => {
        const orgId = uuidFilter(ctx, "filter[org_id]", true)!;
        return ok(
          paginate(
            ctx,
            rowsOf(ctx.state).filter((r) => r.orgId === orgId),
            render,
          ),
        );
      },
    },
    {
      method: "POST",
      pattern: "/api/v3/runner/resource-classes",
      body: envelopedSchema(
        s.obj({ name: nonEmpty(), description: s.str() }, ["name"]),
        s.obj({ org: ref, context: ref }, ["org"]),
      ),
      handler: (ctx) => {
        const { attributes: a, references: refs } = enveloped(body(ctx));
        const orgId = refs.org!.id;
        if (rowsOf(ctx.state).some((r) => r.orgId === orgId && r.name === a.name)) {
          throw badRequest("already_exists", `a class named ${String(a.name)} exists`);
        }
        const row: RunnerClassRow = {
          id: nextId(ctx.state, "runner-class"),
          orgId,
          name: a.name as string,
          description: (a.description as string | undefined) ?? "",
          contextId: contextIn(ctx.state, orgId, refs.context?.id),
        };
        rowsOf(ctx.state).push(row);
        // The fixture's decision: a flat answer (the kind's call declares `answer: "flat"`).
        return created({ id: row.id, name: row.name, description: row.description });
      },
    },
    {
      method: "POST",
      pattern: "/api/v3/runner/resource-classes/:id/update",
      body: envelopedSchema(s.obj({ description: s.str() }, []), s.obj({ context: ref }, [])),
      handler: (ctx) => {
        const row = rowOr404(ctx.state, ctx.params.id!);
        const { attributes: a, references: refs } = enveloped(body(ctx));
        if (typeof a.description === "string") row.description = a.description;
        if (refs.context) row.contextId = contextIn(ctx.state, row.orgId, refs.context.id);
        return ok({ data: render(row) });
      },
    },
    {
      method: "DELETE",
      pattern: "/api/v3/runner/resource-classes/:id",
      handler: (ctx) => {
        const row = rowOr404(ctx.state, ctx.params.id!);
        removeWhere(rowsOf(ctx.state), (r) => r === row);
        return noContent();
      },
    },
  ],
  seed: [
    {
      in: "org",
      key: "runner_resource_classes",
      // A live item for the tests that need one of every family (drift's unmanaged list).
      sample: [{ name: "sample-class", description: "a sample class" }],
      schema: s.arr(
        s.obj({ name: nonEmpty(), description: s.str(), context: nonEmpty() }, ["name"]),
      ),
      load(l, parent, value, pointer) {
        const orgId = (parent.row as { id: string }).id;
        for (const [i, c] of ((value ?? []) as Record<string, string>[]).entries()) {
          const context = l.st.contexts.find((x) => x.orgId === orgId && x.name === c.context);
          if (c.context !== undefined && !context)
            l.fail(`${pointer}/${i}/context`, "no such context");
          rowsOf(l.st).push({
            id: l.claim(hashUuid("runner-class", orgId, c.name!), `${pointer}/${i}`),
            orgId,
            name: c.name!,
            description: c.description ?? "",
            contextId: context?.id ?? null,
          });
        }
      },
      // Nothing for an org without classes: the dump of every other seed stays as it was.
      dump: (st, org) => {
        const rows = rowsOf(st).filter((r) => r.orgId === (org as { id: string }).id);
        return rows.length === 0
          ? undefined
          : rows.map((r) => ({ name: r.name, description: r.description }));
      },
      pass: 2,
    },
  ],
  // Declared by the family that owns the rows: a deleted context takes the classes naming it.
  onRemove: {
    context: (st, id) => removeWhere(rowsOf(st), (r) => r.contextId === id),
  },
};
