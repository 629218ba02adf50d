/**
 * Contexts (spec: api-v3.md "Contexts"). Identity is the exact name (the API's
 * `filter[name]` is a substring search, so src/live lists and the planner matches exactly).
 * The API has no update for a context, and the name is its identity, so a context is only
 * ever created or deleted. Deleting it deletes its env vars (spec: api-v2-v1.md
 * `DELETE /context/{id}`: "also deletes the context's variables").
 * Decision: the plan shows one context delete with the number of secrets it destroys
 * (design.md §1 "Ownership"), not one delete per env var or restriction.
 */
import type { ContextAttributes, V3Resource } from "../core/wire.js";
import { addr } from "../model/address.js";
import type { DesiredContext, DesiredRestriction } from "../model/desired.js";
import type { LiveContext, LiveRestriction } from "../model/live.js";
import { call } from "./calls.js";
import { newComparison } from "./compare.js";
import { namedEntries } from "./config-doc.js";
import type { AfterCreateStep } from "./contract.js";
import { cannotRename } from "./contract.js";
import { defineKind } from "./grouped.js";
import { pageOptions, requireId, scopeId } from "./listing.js";
import { keysOf } from "./raw-keys.js";
import { lowerUuid } from "./vcs.js";

/**
 * A context as written under `contexts:`, its own keys: its `env` and `restrictions` are its
 * children's (the kinds under `context`, whose `config.yamlKey` src/config/raw.ts adds).
 */
export interface RawContext {
  id?: string;
  /** Issue 19: template names (src/config/templates.ts), merged in order, then own keys. */
  extends?: string[];
}

/** The schema's `context` object, its own keys, checked against RawContext. */
export const CONTEXT_KEYS = { context: keysOf<RawContext>()(["id", "extends"], []) };

const toLiveContext = (c: V3Resource<ContextAttributes>): LiveContext => ({
  id: requireId(c, "context"),
  name: c.attributes.name,
});

/**
 * Whether a context's declared restrictions keep the group restriction for all org members
 * that the service adds to a new context: `group: all-members`, or the org's own id (the
 * same restriction, spelled by its match_pattern; spec: api-v3.md Context restriction).
 */
export const keepsAllMembers = (restrictions: readonly DesiredRestriction[], orgId: string) =>
  restrictions.some((r) => r.type === "group" && (r.group === "all-members" || r.group === orgId));

/**
 * spec: api-v3.md Contexts: creating a context makes the service add a group restriction for
 * every org member (match_pattern = the org id); the config manages the context's
 * restrictions without it, so apply deletes it in the same apply and the next plan is empty
 * (design.md §1 "Apply").
 */
const removeDefaultRestriction = (orgId: string): AfterCreateStep => ({
  note: "the service gives a new context a restriction for all org members; the config declares its restrictions without it, so apply removes it right after creating the context",
  removeAdded: {
    kind: "context_restriction",
    matches: (r: LiveRestriction) => r.restriction_type === "group" && r.match_pattern === orgId,
    done: "removed the all-members restriction the service adds to a new context (the config does not list it)",
  },
});

export const contextKind = defineKind<DesiredContext, LiveContext, "org">({
  identity: {
    type: "context",
    parent: "org",
    desiredKey: (d) => d.name,
    liveKey: (l) => l.name,
    liveId: (l) => l.id,
    pinnedId: (d) => d.id,
    // spec: api-v3.md Contexts: create, get and delete; no route changes a context's name.
    rename: cannotRename(
      "the API has no route that renames a context (create, get and delete only): a new name is a new context, whose env vars must be set again",
    ),
  },
  diff: {
    replaceOrder: "never",
    replaceOrderWhy: "the name is the identity and there is nothing else to change",
    desiredView: (d) => ({ name: d.name }),
    liveView: (l) => ({ name: l.name }),
    compare: () => newComparison(),
    fingerprint: (l) => ({ name: l.name }),
  },
  wire: {
    // spec: api-v3.md Contexts: filter[org_id] is required; filter[name] is a substring
    // search, so callers match exact names on the full list (design.md §1 "Identity"). The
    // org lock's claims are contexts too (src/lock/claim.ts): callers leave them out.
    list: async (api, scope, options) =>
      (
        await api.listV3<ContextAttributes>(
          "/contexts",
          // filter[name] is a substring search (applied before paging): it narrows a re-list
          // of one context to a page; the exact name is matched by the caller.
          {
            "filter[org_id]": scopeId(scope, "org_id"),
            ...(scope.name === undefined ? {} : { "filter[name]": scope.name }),
          },
          pageOptions(options, toLiveContext),
        )
      ).map(toLiveContext),
    createCalls: () => [
      call("create", "POST", "/contexts", {
        body: "envelope",
        body_fields: ["name", "references.org"],
      }),
    ],
    deleteCalls: () => [
      call("delete", "DELETE", "/contexts/{id}", {
        note: "also deletes the context's env vars and restrictions",
      }),
    ],
  },
  // Otherwise an org-level map's place: `context["<name>"]`, removed with the org, kept
  // under the org's `contexts` — the parent the reader walks (src/live/read-live-state.ts):
  // it lists them itself, leaves the lock's claims out and starts each one's reads early.
  place: {
    collection: {
      childParam: "context_id",
      // A context delete destroys its env vars: say how many (design.md §1 "Ownership").
      deleteNote: (l) => {
        const n = l.env?.length ?? null;
        return {
          destroys_secrets: n,
          note: `destroys ${n === null ? "an unknown number of" : n} secret${n === 1 ? "" : "s"} (its env vars)`,
        };
      },
      // spec: api-v3.md Org settings: `is_context_group_restriction_required`. With it on, a
      // context needs a group restriction to be usable; the value declared in this config
      // wins over the live one (it is applied in the same run).
      // Decision: refuse the plan (exit 1) rather than create a context nobody can use: the
      // restriction the service adds on create (all-members) is removed when the config
      // manages restrictions, and a config that leaves them out should say so on purpose.
      refuse: (item, org) => {
        const groupRequired =
          org.desired.settings?.is_context_group_restriction_required ??
          org.live.settings?.is_context_group_restriction_required ??
          false;
        if (!groupRequired || item.action !== "create") return undefined;
        if ((item.desired.restrictions ?? []).some((r) => r.type === "group")) return undefined;
        return "the org setting is_context_group_restriction_required is true, so a new context needs a group restriction to be usable; add one to its restrictions (e.g. - group: all-members, or a group id)";
      },
    },
  },
  config: {
    yamlKey: "contexts",
    summary: { key: "contexts", one: "context" },
    schemaKeys: CONTEXT_KEYS,
    build: (ctx, name, raw: RawContext, path): DesiredContext => ({
      name,
      source: ctx.at(path),
      ...(raw.id !== undefined && { id: lowerUuid(raw.id) }),
    }),
    // A context's own document is empty: export adds its `env` and `restrictions` (its
    // children's collections) to it.
    export: (items) => namedEntries(items, "context", addr.context, () => ({})),
  },
  hooks: {
    // adopt: re-list and adopt the context of the declared name (the default).
    // Decision: only when the config manages the context's `restrictions`; a context whose
    // restrictions are unmanaged keeps what the service added (the next plan does not look).
    afterCreate: (d, orgId) =>
      d.restrictions !== undefined && !keepsAllMembers(d.restrictions, orgId)
        ? removeDefaultRestriction(orgId)
        : undefined,
  },
});
