/**
 * Contexts (spec: api-v3.md "Contexts"). Identity is the exact name (the API's
 * `filter[name]` is a substring search, so src/live lists and the planner matches exactly).
 * The API has no update for a context, and the name is its identity, so a context is only
 * ever created or deleted. Deleting it deletes its env vars (spec: api-v2-v1.md
 * `DELETE /context/{id}`: "also deletes the context's variables").
 * Decision: the plan shows one context delete with the number of secrets it destroys
 * (design.md §1 "Ownership"), not one delete per env var or restriction.
 */
import type { DesiredContext } from "../model/desired.js";
import type { LiveContext } from "../model/live.js";
import { call } from "./calls.js";
import { newComparison } from "./compare.js";
import type { ResourceKind } from "./contract.js";

export const contextKind: ResourceKind<DesiredContext, LiveContext> = {
  type: "context",
  parent: "org",
  replaceOrder: "never",
  replaceOrderWhy: "the name is the identity and there is nothing else to change",
  desiredKey: (d) => d.name,
  liveKey: (l) => l.name,
  liveAddressKey: (l) => l.name,
  liveId: (l) => l.id,
  pinnedId: (d) => d.id,
  desiredView: (d) => ({ name: d.name }),
  liveView: (l) => ({ name: l.name }),
  compare: () => newComparison(),
  unresolvedSecrets: () => [],
  createCalls: () => [
    call("create", "POST", "/contexts", {
      body: "envelope",
      body_fields: ["name", "references.org"],
    }),
  ],
  updateCalls: () => [],
  deleteCalls: () => [
    call("delete", "DELETE", "/contexts/{id}", {
      note: "also deletes the context's env vars and restrictions",
    }),
  ],
};
