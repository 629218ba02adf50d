/**
 * A kind's after-create step is data (src/kinds/contract.ts AfterCreateStep): the executor
 * lists the items the step names under the new item with that kind's `list`, and deletes
 * those `matches` picks with that kind's own `deleteCalls`, naming no kind itself. A new
 * context loses the all-members restriction the service added (spec: api-v3.md Contexts),
 * and nothing else; the requests are exactly the create, one listing and one delete.
 */
import { describe, expect, it } from "vitest";
import type { Api } from "../../src/api/types.js";
import type { DesiredIndex } from "../../src/apply/desired-index.js";
import { executeOperation, newIdRegistry } from "../../src/apply/executor.js";
import { KINDS } from "../../src/kinds/registry.js";
import type { Change } from "../../src/plan/types.js";

const ORG_ID = "11111111-1111-4111-8111-111111111111";
const CTX_ID = "22222222-2222-4222-8222-222222222222";

const restriction = (id: string, restriction_type: string, match_pattern: string) => ({
  id,
  type: "context_restriction",
  attributes: { restriction_type, match_pattern },
});

const fakeApi = (sent: string[]): Api =>
  ({
    post: async (api: string, path: string) => {
      sent.push(`POST ${api} ${path}`);
      return { data: { id: CTX_ID } };
    },
    listV3: async (path: string, query: Record<string, string>) => {
      sent.push(`LIST ${path} ${JSON.stringify(query)}`);
      return [
        restriction("r-all", "group", ORG_ID),
        restriction("r-other", "group", "33333333-3333-4333-8333-333333333333"),
        restriction("r-expr", "expression", 'pipeline.git.branch == "main"'),
      ];
    },
    delete: async (api: string, path: string, query: Record<string, string>) => {
      sent.push(`DELETE ${api} ${path} ${JSON.stringify(query)}`);
      return undefined;
    },
  }) as unknown as Api;

const contextCreate: Change = {
  address: 'context["deploy"]',
  resource_type: "context",
  org: "gh/acme",
  collection: "contexts",
  reason: "not in the live state",
  action: "create",
  before: null,
  after: { name: "deploy" },
  fields: [],
  params: { org_id: ORG_ID },
  depends_on: [],
  calls: KINDS.context.createCalls({ name: "deploy" } as never),
};

const desiredWith = (restrictions: unknown[]): DesiredIndex =>
  ({
    get: () => ({
      type: "context",
      item: { name: "deploy", restrictions },
    }),
  }) as unknown as DesiredIndex;

describe("a kind's after-create step, run by the generic executor", () => {
  it("removes only the items the step matches, by the named kind's list and delete calls", async () => {
    const sent: string[] = [];
    const expression = { type: "expression", expression: 'pipeline.git.branch == "main"' };
    const r = await executeOperation(
      { api: fakeApi(sent), desired: desiredWith([expression]), ids: newIdRegistry() },
      contextCreate,
      "create",
    );
    expect(sent).toEqual([
      "POST v3 /contexts",
      `LIST /context-restrictions {"filter[context_id]":"${CTX_ID}"}`,
      `DELETE v3 /context-restrictions/r-all {"filter[context_id]":"${CTX_ID}"}`,
    ]);
    expect(r.verb).toBe("created");
    expect(r.notes).toEqual([
      "removed the all-members restriction the service adds to a new context (the config does not list it)",
    ]);
  });

  it("runs no step when the config keeps the all-members restriction", async () => {
    const sent: string[] = [];
    await executeOperation(
      {
        api: fakeApi(sent),
        desired: desiredWith([{ type: "group", group: "all-members" }]),
        ids: newIdRegistry(),
      },
      contextCreate,
      "create",
    );
    expect(sent).toEqual(["POST v3 /contexts"]);
  });

  it("the context kind's step names its restriction kind and picks the org's group only", () => {
    const step = KINDS.context.afterCreate?.({ name: "x", restrictions: [] } as never, ORG_ID);
    expect(step?.removeAdded.kind).toBe(KINDS.context_restriction.type);
    const live = (restriction_type: "group" | "expression", match_pattern: string) => ({
      id: "r",
      restriction_type,
      match_pattern,
      key_value: match_pattern,
    });
    expect(step?.removeAdded.matches(live("group", ORG_ID) as never)).toBe(true);
    expect(step?.removeAdded.matches(live("group", CTX_ID) as never)).toBe(false);
    expect(step?.removeAdded.matches(live("expression", ORG_ID) as never)).toBe(false);
  });
});
