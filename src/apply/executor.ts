/**
 * The one generic executor (issue 5): runs one operation of the graph (a change's calls of
 * one phase) from the plan's call data. Kind-specific behaviour is the kind's data
 * (src/kinds/contract.ts): `adopt` (re-list or re-send after an uncertain create, what a
 * refusal means) and `afterCreate` (the default restriction the service adds to a new
 * context).
 */
import { ApiError, NetworkError, TimeoutError } from "../api/errors.js";
import type { Api } from "../api/types.js";
import { WaybillError } from "../core/errors.js";
import {
  type AfterCreateStep,
  type ApiCall,
  answerShape,
  idAt,
  type ResourceKind,
} from "../kinds/contract.js";
import { v2ProjectSlug } from "../kinds/listing.js";
import { type Kinds, kindIn } from "../kinds/references.js";
import { kindOf } from "../kinds/registry.js";
import type { ResourceType } from "../model/address.js";
import type { OperationPhase } from "../plan/order.js";
import type { Change } from "../plan/types.js";
import {
  ApplyBuildError,
  buildBody,
  fillQuery,
  fillRoute,
  type ResolvedParams,
  resolveParams,
} from "./body.js";
import type { DesiredIndex, DesiredItem } from "./desired-index.js";
import { relistCreated, relistFind, stillListed } from "./relist.js";

/**
 * A create whose outcome is not known: it failed in a way that lets the service still
 * process it (a timeout, a connection lost after sending, a gateway's 502/504), and a
 * re-list did not find the item. It is not sent again within this run (a second POST could
 * duplicate it, spec: api-v3.md Limits: Idempotency); the next run's plan reads the live
 * state again and adopts it if it landed.
 */
export class OutcomeUnknownError extends WaybillError {
  readonly code = "outcome_unknown";
}

/** Ids of items created in this apply, by org and address (local to one apply). */
export interface IdRegistry {
  get(org: string, address: string): string | undefined;
  set(org: string, address: string, id: string): void;
}

export const newIdRegistry = (): IdRegistry => {
  const ids = new Map<string, string>();
  const k = (org: string, address: string) => `${org}\u0000${address}`;
  return {
    get: (org, address) => ids.get(k(org, address)),
    set: (org, address, id) => {
      ids.set(k(org, address), id);
    },
  };
};

export interface ExecutorDeps {
  readonly api: Api;
  readonly desired: DesiredIndex;
  readonly ids: IdRegistry;
  /** Wait before re-listing after a timed-out create (injectable: tests never sleep). */
  readonly sleep?: (ms: number) => Promise<void>;
  /** Ids this apply deletes: a re-list never adopts one of them (src/apply/relist.ts). */
  readonly deleting?: ReadonlySet<string>;
  /**
   * The kinds the plan's changes are of (default: the registry's): a test runs a test-only
   * kind's change with a copy of the registry that holds it, as the planner takes `kinds`.
   */
  readonly kinds?: Kinds;
}

/** The kind of `type`, among `deps.kinds` or the registry's. */
const kindFor = (deps: Pick<ExecutorDeps, "kinds">, type: ResourceType) =>
  deps.kinds === undefined ? kindOf(type) : kindIn(deps.kinds, type);

/**
 * Decision: after a create timed out, wait this long before re-listing. A timed-out request
 * may still be running on the service; listing at once could miss an item that appears a
 * moment later, and the re-send would duplicate it. A 5xx or a dropped connection has
 * finished on the service's side, so those re-list at once.
 */
export const TIMEOUT_SETTLE_MS = 2_000;

const defaultSleep = (ms: number): Promise<void> =>
  new Promise((resolve) => {
    setTimeout(resolve, ms);
  });

export type OperationVerb = "created" | "adopted" | "updated" | "deleted" | "already gone";

export interface OperationResult {
  readonly verb: OperationVerb;
  readonly id?: string;
  /** What else happened (a refused POST re-created, a default restriction removed). */
  readonly notes: readonly string[];
}

/**
 * Decision: a create is sent at most 4 times; before every re-send the parent's collection
 * is re-listed and the item adopted when it is there, so a re-send never duplicates. Four
 * keeps an unattended apply converging under heavy fault rates (issue 5: 35% of POSTs
 * failing) while bounding the time spent on a service that is down.
 */
export const MAX_CREATE_ATTEMPTS = 4;

/**
 * Decision: an update POST (`update`, `update-settings`, `set-enabled`, env var `set`) sets
 * absolute values, so re-sending it after a 5xx, a timeout or a dropped connection cannot
 * do harm; it is sent up to 4 times in all (the same bound as creates).
 */
export const MAX_UPDATE_ATTEMPTS = 4;

/** The request may have been processed: a timeout, a lost connection or a 5xx. */
export const isUncertain = (err: unknown): boolean =>
  err instanceof TimeoutError ||
  err instanceof NetworkError ||
  (err instanceof ApiError && err.status >= 500);

/**
 * A 429 that the client gave up on after its own retries (spec: api-v3.md Limits: a 429 was
 * not processed). Decision: apply sends it again within its attempt bound rather than
 * failing the operation, because nothing happened on the service.
 */
const isThrottled = (err: unknown): boolean =>
  err instanceof ApiError && err.status === 429 && err.retryAfterMs === undefined;

/** Node's codes for a connection that never opened: the request was never sent. */
const NEVER_SENT = new Set([
  "ECONNREFUSED",
  "ENOTFOUND",
  "EAI_AGAIN",
  "EHOSTUNREACH",
  "ENETUNREACH",
]);

const causeCode = (err: unknown): string | undefined => {
  for (let e: unknown = err, depth = 0; e && depth < 5; depth++) {
    const code = (e as { code?: unknown }).code;
    // Our own typed errors carry a `code` of their own (network_error); look beneath.
    if (typeof code === "string" && !(e instanceof WaybillError)) return code;
    e = (e as { cause?: unknown }).cause;
  }
  return undefined;
};

/**
 * Whether an uncertain request can still land on the service (issue 15 item 2).
 * `settled`: the service answered (a 500, 501, 503...: its handling of this request is
 * over) or the request was never sent (the connection was refused or never opened), so a
 * re-list that does not find the item proves it absent and a re-send is safe.
 * `in_flight`: a timeout, a connection lost after the request was sent, or a gateway's
 * 502/504: the service may still be processing it, so no re-list proves anything.
 * Decision: 502 and 504 come from a gateway in front of the service, which may still hand
 * the request on; the spec lists only 500 and 503 (api-v3.md Errors).
 */
export const uncertainty = (err: unknown): "settled" | "in_flight" | undefined => {
  if (err instanceof ApiError && err.status >= 500) {
    return err.status === 502 || err.status === 504 ? "in_flight" : "settled";
  }
  if (err instanceof NetworkError) {
    const code = causeCode(err);
    return code !== undefined && NEVER_SENT.has(code) ? "settled" : "in_flight";
  }
  if (err instanceof TimeoutError) return "in_flight";
  return undefined;
};

/** The service refused because the item exists (design.md §1 "Plans": 400/409). */
const isRefused = (err: unknown): boolean =>
  err instanceof ApiError && (err.status === 400 || err.status === 409);

/**
 * The service refused a POST because the name exists. spec: api-v3.md Errors rule 1: branch
 * on the status, and on `error.type` to tell causes within one status; never on any 400
 * (a 400 may as well refuse the value). Decision: the spec shows no type values, so the
 * token is `already_exists` (what our emulator answers), and a 409 says it by its status.
 */
export const isExistsRefusal = (err: unknown): boolean =>
  err instanceof ApiError &&
  (err.status === 409 || (err.status === 400 && err.type === "already_exists"));

/**
 * A project env var POST the service refused because the name exists. Nothing was deleted:
 * the live variable keeps its value. Waybill never deletes a secret before its replacement
 * is known to be accepted (issue 14), and on such a service that cannot be known, so the
 * operation fails and says so.
 */
export class EnvVarRefusedError extends WaybillError {
  readonly code = "env_var_refused";
}

/**
 * A POST that creates an item (not idempotent, spec: api-v3.md Limits). A kind whose
 * `adopt` is `resend` creates by an idempotent upsert (a context env var `set`: spec "always
 * 200 ... whether or not it existed"; a project env var POST: spec Projects, 201/404 only,
 * it sets the named variable), so re-sending after an uncertain answer duplicates nothing.
 */
const createsItem = (kind: ResourceKind<unknown, unknown>, call: ApiCall): boolean =>
  call.method === "POST" && call.phase === "create" && kind.adopt.by === "relist";

/**
 * The created item's id, where the call says its answer holds it (src/kinds/contract.ts
 * ApiCall `answer`: V3's envelope `data.id` or a flat `id`, by default the generation's).
 * An answer that holds an id only in the other shape is a call that misstates its answer:
 * the item exists, but its id would be lost (its children and `afterCreate` need it), so it
 * is an error, thrown after the one send (never retried); a re-plan finds the item.
 */
const idOf = (change: Change, call: ApiCall, body: unknown): string | undefined => {
  const shape = answerShape(call);
  const id = idAt(shape, body);
  if (id !== undefined) return id;
  const other = shape === "flat" ? "envelope" : "flat";
  if (call.phase === "create" && idAt(other, body) !== undefined) {
    throw new ApplyBuildError(
      `${change.address}: the create answered ${other === "flat" ? "a flat {id}" : "an envelope {data: {id}}"} where its call declares ${shape === "flat" ? "a flat {id}" : "an envelope {data: {id}}"} (its kind's \`answer\`): the item was created, but its id was not read; a re-plan finds it`,
    );
  }
  return undefined;
};

interface CallResult {
  readonly id?: string;
  readonly adopted: boolean;
  /** The create's answer, or the live item adopted in its place (for `announce`). */
  readonly created?: { readonly body: unknown } | { readonly live: unknown };
}

/** A DELETE answered 404 for an item the service still lists: it was not deleted. */
export class StillThereError extends WaybillError {
  readonly code = "still_there";
}

/** A planned step with no request in it: nothing would be sent, so it cannot be done. */
export class NothingSentError extends WaybillError {
  readonly code = "nothing_sent";
}

/**
 * A create the service refused (a 4xx other than a throttle), with what the refusal means
 * for the kind (src/kinds/contract.ts `refusal`): a user checkout key without a user token.
 */
export class CreateRefusedError extends WaybillError {
  readonly code = "create_refused";
}

const send = async (
  deps: ExecutorDeps,
  change: Change,
  call: ApiCall,
  params: ResolvedParams,
  desired: DesiredItem | undefined,
): Promise<CallResult> => {
  const { api } = deps;
  const path = fillRoute(call, params);
  const query = fillQuery(call, params);
  if (call.method === "DELETE") {
    await api.delete(call.api, path, query);
    return { adopted: false };
  }
  const body = buildBody(call, change, params, desired);
  const post = async (): Promise<unknown> =>
    call.method === "PUT"
      ? api.put(call.api, path, body, query)
      : api.post(call.api, path, body, query);

  const kind = kindFor(deps, change.resource_type);
  const adopt = kind.adopt;
  if (!createsItem(kind, call)) {
    let uncertainBefore = false;
    for (let attempt = 1; ; attempt++) {
      try {
        return { id: idOf(change, call, await post()), adopted: false };
      } catch (err) {
        const exists = adopt.by === "resend" ? adopt.existsRefusal : undefined;
        if (exists !== undefined && isExistsRefusal(err)) {
          // An earlier attempt of ours may have stored the value before its answer was
          // lost: the live item the kind says holds our value is taken as that one.
          if (uncertainBefore) {
            const found = await relistFind(
              { api, change, params, desired, ...(deps.kinds ? { kinds: deps.kinds } : {}) },
              (kind, d, l) => kind.liveKey(l) === kind.desiredKey(d) && exists.sameValue(d, l),
            );
            if (found.found) return { adopted: true };
          }
          throw new EnvVarRefusedError(
            `${change.address}: ${(err as ApiError).message}. ${exists.message}`,
            { cause: err },
          );
        }
        if (!(isUncertain(err) || isThrottled(err)) || attempt >= MAX_UPDATE_ATTEMPTS) throw err;
        if (isUncertain(err)) uncertainBefore = true;
      }
    }
  }

  const adoptable = async (): Promise<CallResult | undefined> => {
    const found = await relistCreated({
      api,
      change,
      params,
      desired,
      ...(deps.deleting ? { deleting: deps.deleting } : {}),
      ...(deps.kinds ? { kinds: deps.kinds } : {}),
    });
    if (!found.found) return undefined;
    const live = { created: { live: found.live } };
    return found.id === undefined
      ? { adopted: true, ...live }
      : { id: found.id, adopted: true, ...live };
  };

  let last: unknown;
  for (let attempt = 1; attempt <= MAX_CREATE_ATTEMPTS; attempt++) {
    try {
      const answer = await post();
      return { id: idOf(change, call, answer), adopted: false, created: { body: answer } };
    } catch (err) {
      last = err;
      const refusal =
        err instanceof ApiError &&
        err.status >= 400 &&
        err.status < 500 &&
        err.status !== 429 &&
        desired !== undefined
          ? kind.refusal?.(desired?.item, err.status)
          : undefined;
      if (refusal !== undefined && !(adopt.by === "relist" && adopt.adoptOnRefusal === true)) {
        throw new CreateRefusedError(`${(err as ApiError).message}. ${refusal}`, {
          cause: err,
        });
      }
      // Decision: a restriction the context already has (400, e.g. the default group
      // restriction of a new context that the config also declares) is adopted.
      if (adopt.by === "relist" && adopt.adoptOnRefusal === true && isRefused(err)) {
        const got = await adoptable();
        if (got) return got;
        throw err;
      }
      if (isThrottled(err)) continue;
      const how = uncertainty(err);
      if (how === undefined) throw err;
      if (err instanceof TimeoutError) await (deps.sleep ?? defaultSleep)(TIMEOUT_SETTLE_MS);
      const got = await adoptable();
      if (got) return got;
      // (A project env var never gets here: its POST sets the variable, see createsItem.)
      if (how === "in_flight") {
        throw new OutcomeUnknownError(
          `${err instanceof Error ? err.message : String(err)}; outcome unknown: a re-list did not find the item, but the request may still land, so it is not sent again; the next run adopts it`,
          { cause: err },
        );
      }
    }
  }
  throw last;
};

/**
 * Run a kind's after-create step (src/kinds/contract.ts AfterCreateStep), as promised
 * before the apply: the items the service added under the new item on its own (a new
 * context's all-members restriction) are listed by their kind and deleted by its own delete
 * calls, so the next plan is empty (design.md §1 "Apply"). A 404 on such a delete is
 * "already gone". Returns the notes of what was done.
 */
const runAfterCreate = async (
  deps: ExecutorDeps,
  change: Change,
  step: AfterCreateStep,
  createdId: string,
  orgId: string,
): Promise<string[]> => {
  const { kind: type, matches, done } = step.removeAdded;
  const kind = kindFor(deps, type);
  const childParam = kindFor(deps, change.resource_type).collection.childParam;
  if (childParam === undefined || kind.parent !== change.resource_type) {
    throw new ApplyBuildError(
      `${change.address}: its after-create step names ${type}, which is not a child kind of ${change.resource_type}`,
    );
  }
  const parent: ResolvedParams = { org_id: orgId, [childParam]: createdId };
  const notes: string[] = [];
  for (const l of await kind.list(deps.api, parent)) {
    if (!matches(l as never)) continue;
    const id = kind.liveId(l);
    if (id === undefined) continue;
    const params: ResolvedParams = { ...parent, id };
    for (const call of kind.deleteCalls()) {
      if (call.method !== "DELETE") {
        throw new ApplyBuildError(`${type}'s delete calls are not DELETEs: ${call.route}`);
      }
      try {
        await deps.api.delete(call.api, fillRoute(call, params), fillQuery(call, params));
      } catch (err) {
        if (!(err instanceof ApiError && err.status === 404)) throw err;
      }
    }
    notes.push(done);
  }
  return notes;
};

/** What apply prints about a created (or adopted) item, when its kind says (`announce`). */
const announce = (
  kind: ResourceKind<unknown, unknown>,
  created: { readonly body: unknown } | { readonly live: unknown },
): string | undefined => {
  const a = kind.announce;
  if (a === undefined) return undefined;
  const live = "live" in created ? created.live : a.fromResponse(created.body);
  return live === undefined ? undefined : a.note(live);
};

/**
 * The params with `project_slug` as the project's V2 routes take it: built from the org and
 * project ids on an app-based provider, never from the project's name (spec: api-v2-v1.md
 * "Conventions of V2"; src/kinds/listing.ts v2ProjectSlug). The ids are known here even for
 * a project this apply created.
 */
const withV2Slug = (params: ResolvedParams): ResolvedParams => {
  const { project_slug: slug, org_id: orgId, project_id: projectId } = params;
  if (slug === undefined || orgId === undefined || projectId === undefined) return params;
  return { ...params, project_slug: v2ProjectSlug(slug, orgId, projectId) };
};

/** Run the calls of one phase of one change. Throws the first failure. */
export const executeOperation = async (
  deps: ExecutorDeps,
  change: Change,
  phase: OperationPhase,
): Promise<OperationResult> => {
  const kind = kindFor(deps, change.resource_type);
  const params = withV2Slug(resolveParams(change, (a) => deps.ids.get(change.org, a)));
  const desired = deps.desired.get(change.org, change.address);
  const calls = change.calls.filter((c) => c.phase === phase);
  // Issue 28: an item is reported done only when a write for it answered 2xx (or a re-list
  // proved it there). A step with no request would be reported done with nothing sent: it
  // fails and says so instead (a kind's calls are wrong; every planned step sends one).
  if (calls.length === 0) {
    throw new NothingSentError(
      `${change.address}: the plan holds no request for its ${phase}, so nothing was sent and it is not done`,
    );
  }
  const notes: string[] = [];
  let id: string | undefined;
  let adopted = false;
  let gone = false;
  for (const call of calls) {
    try {
      const r = await send(deps, change, call, params, desired);
      if (r.id !== undefined && call.method === "POST" && phase === "create") id = r.id;
      // Issue 18: what other changes take from the new item besides its id (a project's slug).
      const values = kind.createdValues;
      if (phase === "create" && values !== undefined && r.created !== undefined) {
        const got =
          "body" in r.created
            ? values.fromResponse(r.created.body)
            : values.fromLive(r.created.live as never);
        for (const [name, v] of Object.entries(got)) {
          deps.ids.set(change.org, `${change.address}#${name}`, v);
        }
      }
      if (r.adopted) adopted = true;
      const note = r.created === undefined ? undefined : announce(kind, r.created);
      if (note !== undefined) notes.push(note);
    } catch (err) {
      // src/kinds/contract.ts: a 404 on DELETE means the item is gone. Decision: such an
      // operation is done ("already gone"), not failed: what the plan wanted is true.
      // Issue 28: only when a re-list no longer shows it (a V2 404 for a project the V3
      // listing shows is a slug the service does not know, never "already gone").
      if (call.method === "DELETE" && err instanceof ApiError && err.status === 404) {
        if (await stillListed(deps.api, change, params, deps.kinds)) {
          throw new StillThereError(
            `${change.address}: ${err.message}, but the service still lists it (id ${String(change.params.id)}): it was not deleted`,
            { cause: err },
          );
        }
        gone = true;
        continue;
      }
      throw err;
    }
  }
  if (phase === "create") {
    if (id !== undefined) deps.ids.set(change.org, change.address, id);
    else if (kind.adopt.by === "relist") {
      // An envelope answer always holds the id (spec: api-v3.md "Envelopes"); a flat one
      // may not (a V2 checkout key is known by its fingerprint).
      if (calls.some((c) => c.method === "POST" && answerShape(c) === "envelope")) {
        throw new ApplyBuildError(`${change.address}: the create answered without an id`);
      }
    }
    const orgId = params.org_id;
    const step =
      id !== undefined && orgId !== undefined && desired?.type === change.resource_type
        ? kind.afterCreate?.(desired.item, orgId)
        : undefined;
    if (step !== undefined && id !== undefined && orgId !== undefined) {
      for (const n of await runAfterCreate(deps, change, step, id, orgId)) notes.push(n);
    }
    // A singleton (a created project's settings) exists with its parent: its "create" sets
    // the declared keys, so it is said to be updated, not created.
    const singleton = !kind.collection.segment.keyed;
    const verb = adopted ? "adopted" : singleton ? "updated" : "created";
    return { verb, ...(id ? { id } : {}), notes };
  }
  if (phase === "delete") return { verb: gone ? "already gone" : "deleted", notes };
  return { verb: "updated", notes };
};
