/**
 * The one contract every resource kind implements (conventions.md §3), registered in one
 * table (src/kinds/registry.ts). The planner (src/plan) only talks to kinds through it.
 *
 * A kind describes, as data, everything the plan must say about an item: its identity
 * (src/plan matches desired and live items by these keys), how it compares (field-level
 * changes, with the spec's rules on what changes in place and what forces replacement)
 * and the API calls each action makes. Calls are data (method, route template, generation,
 * which body fields) so a plan can be rendered, saved and compared; they never hold a
 * secret value. Apply (issue 5) adds executors next to these functions: an executor takes a
 * Change and its `calls`, so adding one is adding a function to the kind's module.
 */
import type { ApiGeneration, ListOptions, ReadOnlyApi } from "../api/types.js";
import type { SourceLocation } from "../core/errors.js";
import type { MaybeSecret, Secret } from "../core/secret.js";
import type { ResourceType } from "../model/address.js";
import type {
  DesiredContext,
  DesiredOrg,
  DesiredPipeline,
  DesiredProject,
} from "../model/desired.js";
import type { LiveContext, LiveOrg, LivePipeline, LiveProject } from "../model/live.js";
import type { ConfigContext, ConfigEntry, ConfigScope } from "./config-doc.js";
import type { SchemaKeys } from "./raw-keys.js";
import type { JsonObject, JsonValue } from "./values.js";

export type CallPhase = "create" | "update" | "delete";
export type HttpMethod = "GET" | "POST" | "PUT" | "PATCH" | "DELETE";

/**
 * One API call of a change. `route` is relative to the generation's root and holds
 * `{placeholders}` (`/webhooks/{id}/update`) filled from `Change.params`; `query` values
 * may hold placeholders too. `body_fields` names the body members (dotted for nested ones);
 * `sensitive_fields` those of them whose values are secrets: the executor takes them from
 * the resolved config, never from the plan.
 */
export interface ApiCall {
  /** Which part of the change the call belongs to; a replace has `delete` and `create` calls. */
  readonly phase: CallPhase;
  readonly method: HttpMethod;
  readonly api: ApiGeneration;
  readonly route: string;
  readonly query?: Readonly<Record<string, string>>;
  /** `envelope`: `{data:{attributes, references}}`; `flat`: a plain object; `none`: no body. */
  readonly body: "envelope" | "flat" | "none";
  /**
   * Where a create's answer holds the new item's id (`createdId`): `envelope`, V3's one
   * resource `{data: {id, …}}` (spec: api-v3.md "Envelopes"); `flat`, a plain `{id, …}` (the
   * V2 creates, spec: api-v2-v1.md). Absent: the generation's (V3 envelope, V2 flat), which
   * every call of the first kinds answers, so their plans never carry it. A call whose
   * answer is not its generation's says so here: an id found only where the call does not
   * declare it is an error, never dropped.
   */
  readonly answer?: AnswerShape;
  readonly body_fields: readonly string[];
  readonly sensitive_fields: readonly string[];
  /**
   * `always`: every call of a change is sent, in order. (Plans of older versions held
   * `if_exists_refused` calls for project env vars; that flow is gone, see
   * src/kinds/project-env-var.ts.)
   */
  readonly when: "always";
  /** Why the call is there, in words, when the route alone does not say. */
  readonly note?: string;
  /**
   * Body fields whose value is one of the change's params (`{ match_pattern: "group_id" }`):
   * an id known only once another item of the same apply is created (a restriction's group,
   * named in the config, created by this plan). Filled at apply from the resolved params.
   */
  readonly param_fields?: Readonly<Record<string, string>>;
}

/** The shape of a create's answer (ApiCall `answer`). */
export type AnswerShape = "envelope" | "flat";

/** The answer shape of `call`: its own, or its generation's (V3 envelope, V2 flat). */
export const answerShape = (call: Pick<ApiCall, "api" | "answer">): AnswerShape =>
  call.answer ?? (call.api === "v2" ? "flat" : "envelope");

/** The id a create's answer holds at `shape`, if it is a non-empty string. */
export const idAt = (shape: AnswerShape, body: unknown): string | undefined => {
  if (body === null || typeof body !== "object") return undefined;
  const holder = shape === "flat" ? body : (body as { data?: unknown }).data;
  if (holder === null || typeof holder !== "object") return undefined;
  const id = (holder as { id?: unknown }).id;
  return typeof id === "string" ? id : undefined;
};

/**
 * How `moved` renames a live item (issue 19). `can: true`: the update call takes the name:
 * `relabel` gives the live item as if it already had the new name (so it matches the
 * declared item), and `field` is the compared path the update call sends it as. `can:
 * false`: the API has no way to rename it; `why` says so in the validation error.
 */
export type RenameRule<L> =
  | {
      readonly can: true;
      field(l: L): string;
      relabel(l: L, name: string): L;
    }
  | { readonly can: false; readonly why: string };

/** A kind the API cannot rename, with the reason `moved` reports. */
export const cannotRename = (why: string): { readonly can: false; readonly why: string } => ({
  can: false,
  why,
});

/** One changed attribute. Values are masked: a secret is `(sensitive)`, never its value. */
export interface FieldChange {
  /** Dotted path in the API's attribute names (`config.file_path`, `event.filter`). */
  readonly path: string;
  readonly before: JsonValue;
  readonly after: JsonValue;
  readonly forces_replacement?: true;
  readonly sensitive?: true;
}

/** The result of comparing one desired item with its live match. */
export interface Comparison {
  /** Every field that differs, including those that force replacement. */
  readonly fields: readonly FieldChange[];
  /** Non-empty when the item must be replaced: one sentence per cause. */
  readonly replace_reasons: readonly string[];
  /** Secret fields whose value cannot be verified (same last four, or never returned). */
  readonly unverified: readonly string[];
  /** Secret fields not compared because the value was not resolved (`--skip-secrets`). */
  readonly skipped: readonly string[];
  /**
   * What the plan must say about the live item besides its fields (e.g. the service itself
   * disabled a webhook, and when): added to the change's reason and `notes`.
   */
  readonly notes?: readonly string[];
}

/** How the org's human references resolve to ids (from the live state). */
export interface KindRefs {
  /** Org id (for org-level routes and `all-members` restrictions). */
  readonly orgId: string;
  /** A project slug to its id, when it is known (declared projects, restriction projects). */
  readonly projectId: (slug: string) => string | undefined;
  /**
   * The id of the item of kind `to` that a reference names (issue 17: a group by its name;
   * src/kinds/references.ts): declared first — `{ pending }` with the address of the
   * declared item this plan creates or re-creates — then live; undefined when the org has
   * no such item.
   */
  readonly refId: (
    to: ResourceType,
    name: string,
  ) => string | { readonly pending: string } | undefined;
}

/** How a reference may be written in the config: by name, by slug, or by id. */
export type ReferenceForm = "name" | "slug" | "id";

/** One reference as the config writes it (src/kinds/references.ts checks and resolves it). */
export interface WrittenReference {
  /** The address of the referring item. */
  readonly address: string;
  /** The value as written (a name, or an id). */
  readonly value: string;
  /** How `value` is written: a name is resolved through the referred kind's items. */
  readonly form: ReferenceForm;
  readonly source: SourceLocation;
  /** The value's path in the org's config, for diagnostics (`contexts.x.restrictions.0.group`). */
  readonly path: string;
}

/**
 * A field of a kind that names an item of another kind (issue 31), as data: which kind it
 * points to and how it may be written. One generic module (src/kinds/references.ts)
 * resolves it at plan time (declared items first, then live), reports unknown names with
 * file:line:col and "did you mean", orders the referred item's create before the referrer
 * and its delete after, and maps ids back to names for drift and export.
 *
 * The referred kind's items are named by their key (`desiredKey` / `liveKey`: a group's
 * name), and the id is its `liveId`. A kind calls `env.refId(to, name)` where it needs the
 * id (its views and `refParams`).
 */
export interface Reference<L> {
  /** The field, in the config's words (`group`, `mappings[].group`): for docs and messages. */
  readonly field: string;
  /** The kind the field points to. */
  readonly to: ResourceType;
  /** How it may be written. */
  readonly by: readonly ReferenceForm[];
  /** How a value is written in the config (`- group: x`): for a refusal's advice. */
  writtenAs(value: string): string;
  /** Every value one org declaration writes (each file of an org is walked on its own). */
  written(org: DesiredOrg): Iterable<WrittenReference>;
  /** The ids the live item names, read from a change's masked `before` view (ordering). */
  liveIds(before: JsonObject): readonly string[];
  /** The live item with each id it names given as its name when `nameOf` knows it. */
  named(l: L, nameOf: (id: string) => string | undefined, orgId: string): L;
  /**
   * The service deletes the referring item with the item it names (spec: a restriction
   * goes with its group): a plan that deletes, or re-creates, an item the config's
   * references name is refused, since the config would not converge.
   */
  readonly deletedWithReferred?: true;
  /**
   * `false`: the referred item's delete does not wait for the deletes of its referrers (no
   * destroy edge). A restriction's project: a project is deleted only by `delete: true`, and
   * the spec does not say that a restriction naming it stands in the way, so the order stays
   * what it always was. Absent: it waits (a group's delete after the restrictions naming it).
   */
  readonly ordersDeletes?: false;
}

/** What a plan-wide refusal (`ResourceKind.refusePlan`) sees of one planned change. */
export interface PlannedChangeView {
  readonly org: string;
  readonly resource_type: ResourceType;
  readonly action: "create" | "update" | "replace" | "delete";
  readonly address: string;
  readonly id?: string;
  readonly before: JsonObject | null;
  readonly after: JsonObject | null;
  readonly params: Readonly<Record<string, string | { readonly pending: string }>>;
}

/** What a kind may ask the planner while comparing and building calls. */
export interface KindEnv extends KindRefs {
  /** True when `--force-secrets` selects this address. */
  readonly forceSecrets: boolean;
}

/**
 * How a replace runs. `create_before_delete`: the new item is made first and the old one
 * removed after (no gap; needs both to coexist). `delete_before_create`: the old one goes
 * first (same-name items that must not coexist). `never`: the kind is never replaced.
 */
export type ReplaceOrder = "create_before_delete" | "delete_before_create" | "never";

/**
 * The ids a kind's live items hang off, by the names the plan's call params use
 * (`org_id`, `project_id`, `context_id`, `pipeline_id`), so a listing can be made from the
 * live state (src/live) or from a change's resolved params (apply's re-list) alike.
 */
export interface ListScope {
  readonly org_id?: string;
  /** The org's slug, where known: a project listed without a slug gets one built from it. */
  readonly org_slug?: string;
  readonly project_id?: string;
  /** The project's slug, for the V2 routes that take it (project env vars' last four). */
  readonly project_slug?: string;
  /**
   * Whether a secret's last four are looked up when the main listing lacks them (project env
   * vars' V2 listing); default true. Export says false: it never writes values.
   */
  readonly lastFour?: boolean;
  readonly context_id?: string;
  readonly pipeline_id?: string;
  /**
   * The name of the item sought (apply's re-list of one created item): a kind whose route
   * can filter by name narrows the listing with it; callers still match names exactly.
   */
  readonly name?: string;
  /** A project id to its slug, when known (a project restriction's address key). */
  readonly projectSlug?: (projectId: string) => string | undefined;
}

/** How a kind's live items are listed: every page or an error (never a partial list). */
export type ListOptionsOf<L> = Pick<ListOptions<unknown>, "signal"> & {
  /** Called with each page's items as they arrive (issue 8): children's reads start early. */
  readonly onPage?: (items: readonly L[]) => void;
};

/**
 * Where a kind's collection sits in the live tree (src/model/live.ts), so that the live
 * reader (src/live/read-live-state.ts) and drift's unmanaged list (src/live/unmanaged.ts)
 * walk the registry instead of naming kinds:
 * - `under`: the record the items are kept in, and whose ids the listing's scope holds;
 * - `readFor`: whether a declaration of that parent has the reader list the collection
 *   (design.md §1 "Ownership": only what the config declares is read, so an absent key
 *   costs no request);
 * - `store` / `stored`: where the listed items go in the parent's live record, and where
 *   they are found again (drift lists only what the plan's read did not list already).
 *
 * Why not `collection` (the planner's view): the reader's rules differ from "the collection
 * is declared" in three places — org settings are read with `contexts` too (a context may
 * need a group restriction), a context no declaration manages has its env read (the plan
 * says how many secrets its delete destroys), and triggers hang off a pipeline but are
 * listed once per project when `pipelines` is declared (one listing, not one per
 * pipeline). And `stored` is the record as read (the synthetic pipeline included), where
 * `collection.liveIn` is what the planner diffs.
 *
 * Why three fixed parents rather than a generic one: the live tree has exactly these
 * records, and the walk (org → contexts / projects → their collections) owns what is
 * particular to each parent (a context's pinned declaration and `ignore`, a project's "not
 * visible", the early start of children as the parent's pages arrive). A kind under a new
 * parent adds a variant here and a step to the walk. Pure and total (no I/O): the
 * reader's failure semantics are `list`'s.
 *
 * Methods, not function-typed properties, so that a kind's `LivePlace<LiveWebhook>` is a
 * `LivePlace<unknown>` in the registry (method parameters are bivariant).
 */
export type LivePlace<L> = LivePlaces<L>[keyof LivePlaces<L>];

/** The three variants of LivePlace, by the record they keep their items in. */
export interface LivePlaces<L> {
  readonly org: {
    readonly under: "org";
    /** Whether this org declaration (one of the files naming the org) has it read. */
    readFor(org: DesiredOrg): boolean;
    store(items: readonly L[]): Omit<Partial<LiveOrg>, "status" | "id" | "slug">;
    stored(org: LiveOrg): readonly L[] | undefined;
  };
  readonly context: {
    readonly under: "context";
    /**
     * Whether the context's declaration has it read; `undefined`: a live context no
     * declaration manages (it is deleted, and the plan says what that destroys).
     */
    readFor(decl: DesiredContext | undefined): boolean;
    store(items: readonly L[]): Omit<Partial<LiveContext>, "id" | "name">;
    stored(context: LiveContext): readonly L[] | undefined;
  };
  readonly project: {
    readonly under: "project";
    /** Whether the declared project has it read (undeclared projects are never read). */
    readFor(decl: DesiredProject): boolean;
    store(items: readonly L[]): Omit<Partial<LiveProject>, "status" | "id" | "slug">;
    stored(project: LiveProject): readonly L[] | undefined;
  };
}

/**
 * Which record of the live tree a kind's items are kept in, by the kind's parent: a
 * pipeline's triggers are kept (and listed) per project.
 */
export interface LiveUnder {
  readonly org: "org";
  readonly context: "context";
  readonly project: "project";
  readonly pipeline: "project";
}

/** The place a kind under parent `P` must give: a project kind cannot say `under: "org"`. */
export type LivePlaceUnder<L, P extends ParentName> = LivePlaces<L>[LiveUnder[P]];

/**
 * A kind's line in drift's unmanaged list (src/live/unmanaged.ts): the live items under a
 * declared parent that the config does not manage (design.md §1 "Ownership": a collection
 * key left out is unmanaged) or that `ignore` excludes. `listed`: each item is a line at
 * `segment["key"]` under its parent's address (`context["x"].env["A"]`; the step's name is
 * `collection.segment.name`). Not listed: the kind's items are not separate things a user
 * could have forgotten (settings are managed key by key), with the reason in words.
 */
export type UnmanagedLine<L> =
  | {
      readonly listed: true;
      /**
       * The item's key in its address step (usually `liveAddressKey`); not used for a
       * singleton (`collection.segment.keyed: false`), whose line is the step's name.
       */
      key(l: L): string;
      /** A singleton that holds nothing (an empty set of SSO mappings) is no line. */
      holdsNothing?(l: L): boolean;
    }
  | { readonly listed: false; readonly why: string };

/**
 * What apply does after a create whose outcome is uncertain (a timeout, a lost connection,
 * a 5xx; design.md §1 "Apply"): `relist` lists the parent's items again (`list`) and adopts
 * the one `matches` says this change made; `resend` sends the call again, because it is
 * idempotent (a singleton update, a set-by-name upsert). Required of every kind, so a kind
 * can never be added that silently re-sends a create.
 */
export type AdoptRule<D, L> =
  | {
      readonly by: "relist";
      /**
       * Whether the listed live item is the one this change created: `after` is the plan's
       * masked view of the created item (what the service stores: a restriction's project
       * id, not its slug), `d` the declared item.
       */
      matches(d: D, after: JsonObject, l: L): boolean;
      /**
       * A create refused with a 400 may mean the item exists already (a context's default
       * restriction the config also declares): the match is then adopted, if there is one.
       */
      readonly adoptOnRefusal?: true;
    }
  | {
      readonly by: "resend";
      readonly why: string;
      /**
       * The service refused to overwrite because the name exists (spec silent: 409, or 400
       * with `already_exists`). After an uncertain attempt of ours the live item for which
       * `sameValue` holds is taken as ours (adopted); otherwise apply fails the item with
       * `message`, and nothing is deleted.
       */
      readonly existsRefusal?: {
        sameValue(d: D, l: L): boolean;
        readonly message: string;
      };
    };

/**
 * A step apply runs right after a create, because the service itself adds something the
 * config may not want (spec: api-v3.md Contexts: a new context gets a group restriction
 * for all org members). Data, so `apply` can promise it before it runs, and run exactly
 * what it promised.
 */
export type AfterCreateStep = {
  /** What the apply's output promises before the apply. */
  readonly note: string;
  /**
   * Items the service adds under the new item on its own, which apply deletes right after
   * the create: the live items of the child kind `kind` (a kind whose parent is the created
   * item's kind), listed under the new item (`list`, with the parent's `childParam`), that
   * `matches` picks, each deleted by that kind's own `deleteCalls` (a 404 is "already gone").
   * `done` is what apply's output says for each one deleted.
   */
  readonly removeAdded: {
    readonly kind: ResourceType;
    /** Whether a listed live item of `kind` is one the service added (typed by the kind). */
    matches(l: never): boolean;
    readonly done: string;
  };
};

/**
 * The parents of the planner's walk (src/plan/walk.ts), by name: the org, a project, or a
 * matched item of a kind that has children. `live` is the parent's live item (a parent the
 * plan creates has none: its children are all created).
 */
export interface PlanParents {
  readonly org: { readonly desired: DesiredOrg; readonly live: LiveOrg };
  readonly project: { readonly desired: DesiredProject; readonly live: LiveProject };
  readonly context: { readonly desired: DesiredContext; readonly live: LiveContext };
  readonly pipeline: { readonly desired: DesiredPipeline; readonly live: LivePipeline };
}
export type ParentName = keyof PlanParents;

/** Where the walk is: the org and, below a project, that project (live). */
export interface Within {
  readonly org: LiveOrg;
  readonly project?: LiveProject;
}

/**
 * What a refusal check sees of one planned item: the declared item, what the plan does to
 * it, and (for a create) the plan's masked view of what is created.
 */
export interface PlannedItem<D> {
  readonly desired: D;
  readonly address: string;
  readonly action: "create" | "update" | "replace" | "none";
  readonly after?: JsonObject | null;
}

/**
 * A kind's collection under its parent, as the planner walks it (src/plan/walk.ts): where
 * its items are in the desired and live models, how they are addressed, and the few rules
 * that tie it to its parent. The walk is generic: a kind whose parent is `project` is
 * planned under every declared project without a line in src/plan.
 */
export interface Collection<D, L, P extends ParentName> {
  /** The YAML key of the collection, and its name in guards: `contexts`, `env`, `webhooks`. */
  readonly name: string;
  /** An item's address segment: `webhook["name"]`; `keyed: false` for a singleton (`settings`). */
  readonly segment: { readonly name: string; readonly keyed: boolean };
  /**
   * The declared items under the parent; `undefined` when the YAML leaves the collection
   * out, so it is not managed (design.md §1 "Ownership").
   */
  desiredIn(parent: PlanParents[P]["desired"]): readonly D[] | undefined;
  /** The live items under the parent; `undefined` when they were not read. */
  liveIn(parent: PlanParents[P]["live"], within: Within): readonly L[] | undefined;
  /** A declared item's YAML key: its address key. */
  addressKey(d: D): string;
  /** The call param an item's key fills (env vars: `name`). */
  readonly keyParam?: "name";
  /** The call param by which this kind's children name it (`context_id`, `pipeline_id`). */
  readonly childParam?: "context_id" | "pipeline_id";
  /**
   * What deleting the parent does to these items: `cascades` (the spec says they go with
   * it), or `deleted_first` (the spec is silent, so they are deleted explicitly before it,
   * children before parents, design.md §1 "Apply").
   */
  readonly onParentDelete: "cascades" | "deleted_first";
  /** A replace order other than the kind's, for this collection's state (a full project). */
  replaceOrderFor?(desired: readonly D[], live: readonly L[]): "delete_before_create" | undefined;
  /**
   * Live items the service derives and that can never be managed (spec: api-v3.md
   * Pipelines, the synthetic OAuth pipeline): left out of the diff; a declared item that
   * names one (`clash`) is refused with `refusal`.
   */
  readonly synthetic?: {
    of(parent: PlanParents[P]["live"], within: Within): readonly L[];
    clash(d: D, l: L, parent: PlanParents[P]["live"]): boolean;
    refusal(id: string): string;
  };
  /**
   * The collection's operations run one at a time, deletes of removed items first, then
   * replaces, then creates (a per-parent limit: OTLP exporters, 5 per org, spec:
   * api-v2-v1.md "Limits"): a slot is freed before one is taken, and at most one
   * create-first replace holds an extra slot at any moment (src/plan/order.ts).
   */
  readonly serial?: true;
  /**
   * The collection's creates run before its deletes (one parent's items): a context's
   * restrictions, so the context never has fewer (wider access) than either config allows.
   */
  readonly createsBeforeDeletes?: true;
  /** More to say when a live item is deleted (a context: the secrets it destroys). */
  deleteNote?(l: L): { readonly destroys_secrets: number | null; readonly note: string };
  /** Why a planned item cannot be applied (the plan fails with it), or undefined. */
  refuse?(item: PlannedItem<D>, org: PlanParents["org"]): string | undefined;
}

/** A path in a config document: map keys and list indexes from the root. */
export type DocPath = readonly (string | number)[];

/**
 * What a kind's config builder may ask of the loader (src/config/build.ts implements it):
 * where a path was written, the resolved value of a secret-capable path, plain text.
 */
export interface ConfigBuildContext {
  /** Where the node at `path` was written (its key, or its value); looked up on first read. */
  at(path: DocPath, where?: "key" | "value"): SourceLocation;
  /** The resolved value of a path that may hold `${NAME}` (a secret when it references one). */
  value(path: DocPath): MaybeSecret;
  /** The resolved value of a path that is always a secret (env values, signing secrets). */
  secret(path: DocPath): Secret;
  /** A plain string of the document, `$${` unescaped to `${` (src/config/references.ts). */
  text(s: string): string;
}

/** What a secret-capable config value is, for messages and for its rules. */
export type SecretField = "env" | "url" | "signing_secret" | "webhook_secret" | "header";

/** A path inside one config item that may hold a secret reference. */
export interface SecretPath {
  readonly at: readonly string[];
  readonly field: SecretField;
  /** How the reference-not-allowed message names the place ("env values"). */
  readonly where: string;
}

/**
 * A per-parent limit on a kind's items (ConfigPart.limit). Failure semantics: none, it is
 * checked before anything is read or written; the service's own refusal stays the last word
 * (a limit lowered since, items another party added).
 */
export interface ItemLimit {
  /** The most items one parent may hold. */
  readonly max: number;
  /**
   * The diagnostic's message, at the first item past the limit: `total` items under the
   * parent, `before` of them declared by the org's earlier files (0 within one file; only
   * a kind under the org is counted across files, since a parent below the org is declared
   * in one file). Says the limit, the spec section and how to fix it.
   */
  message(total: number, before: number): string;
}

/** The diagnostic code of a kind's limit (ItemLimit): `too_many_otel_exporters`. */
export type LimitCode = `too_many_${string}`;

/** The code a kind's items past its `config.limit` are reported with. */
export const limitCode = (yamlKey: string): LimitCode => `too_many_${yamlKey}`;

/**
 * The diagnostic code of a name of kind `to` that a reference writes and the org does not
 * have (`unknown_group`; src/run/unknown-references.ts): made from the type, so a kind that
 * others name by name needs no code listed by hand (src/config/diagnostic.ts derives
 * DIAGNOSTIC_CODES from every kind's `references`).
 */
export type UnknownNameCode = `unknown_${ResourceType}`;

/** The code of an unknown name of kind `to` (UnknownNameCode). */
export const unknownNameCode = (to: ResourceType): UnknownNameCode => `unknown_${to}`;

/**
 * A kind's part of the config: where its items are written and how one item, once the
 * document passed the schema (schemas/waybill.schema.json) and the rules, becomes the
 * desired item. `R` is the raw item as written (its keys are listed in `schemaKeys`, checked
 * against the type where it is declared, and against the schema by the schema test). The
 * loader walks parents generically: a kind's items are built from `parent[yamlKey]` and
 * stored under the same key in the desired parent.
 */
export interface ConfigPart<D, R> {
  /** The key of the collection in its parent's YAML (and in the desired model). */
  readonly yamlKey: string;
  /** `map`: `name: item` entries; `list`: a sequence; `singleton`: one object. */
  readonly shape: "map" | "list" | "singleton";
  /** The schema's `$defs` entry of one item (schemas/waybill.schema.json). */
  readonly schemaDef: string;
  /**
   * Whether the item's address is recorded as declared (two files declaring it is an
   * error naming both places), at its key or at its value (a list item).
   */
  readonly declares?: "key" | "value";
  /**
   * The loader builds these items itself, not the generic walk (issue 18: projects, which
   * templates, `extends` and files split key by key shape), and export writes them itself:
   * both skip the kind.
   */
  readonly builtByLoader?: true;
  /**
   * Where one item may hold a secret reference (`${env:…}`, `${file:…}`): paths inside the
   * item (`[]`: the item itself is the string; `"*"`: any key), each with what it is.
   * A reference anywhere else is refused (src/config/references.ts `secretFieldAt`, which
   * reads these from the registry), so a description or a ref never silently becomes
   * sensitive. A field's value is a `Secret` in the desired item, except a `url` (a webhook
   * url may be written literally, and must resolve to https://).
   */
  readonly secretPaths?: readonly SecretPath[];
  /**
   * How `waybill validate` counts the kind's items (src/config/summary.ts): the summary's
   * JSON field and the words of its line. Kinds that share a `key` are counted together
   * (context and project env vars). Without it the kind is not counted (settings).
   */
  readonly summary?: { readonly key: string; readonly one: string; readonly many?: string };
  /**
   * The schema objects the kind's raw types are written as (src/kinds/raw-keys.ts): its
   * item's object under `schemaDef` and the objects nested in it (`pipeline/config`), each
   * with the keys and required keys of its raw type, made by `keysOf<RawType>()` so that a
   * list and its type cannot differ. The keys of the kinds under this one (a context's `env`
   * and `restrictions`) are theirs, not listed here: src/config/raw.ts adds each child
   * kind's `yamlKey` to the parent's object. test/unit/config-schema.test.ts checks every
   * list against schemas/waybill.schema.json, and fails on a schema object no list names.
   * Absent: the item is not an object with declared keys (a string, a map of env values, a
   * settings block, which the test checks by the model's setting names).
   */
  readonly schemaKeys?: SchemaKeys;
  /**
   * At most `max` items under one parent (the spec's Limits: 5 OTLP exporters per org, 25
   * webhooks per project), checked offline so that a config over it never gets as far as a
   * refused create. src/config/rules.ts reports the first item past it in a file, and
   * `mergeFiles` (src/config/build.ts) the first past it across the files of an org. The
   * diagnostic's code is `too_many_<yamlKey>` (`limitCode`), stable: users' scripts match it.
   */
  readonly limit?: ItemLimit;
  /**
   * One item → the desired item, without its children (the loader adds each child kind's
   * collection under its `yamlKey`). `key` is the map key (`settings` for a singleton, the
   * index for a list item).
   */
  build(ctx: ConfigBuildContext, key: string, raw: R, path: DocPath): D;
}

/**
 * A resource kind. `D` is the desired item as the config declares it, `L` the live item
 * as src/live read it.
 *
 * Failure semantics of the steps (what apply may assume when one fails):
 * - `compare`, `desiredView`, `liveView`, the `*Calls` builders are pure and total: they
 *   throw only on a programming error, never for data the service may return.
 * - a failed **create** call left nothing behind, except when it timed out, lost its
 *   connection or got a 5xx: then the item may exist and apply re-lists and adopts it
 *   before sending again (design.md §1 "Apply");
 * - a failed **update** left the item as it was, or (for a multi-call update such as a
 *   webhook's `update` + `set-enabled`) with the earlier calls applied; a re-plan shows the rest;
 * - a failed **delete** means the item still exists; a 404 on delete means it is gone.
 */
export interface ResourceKind<D, L, P extends ParentName = ParentName> {
  readonly type: ResourceType;
  /** The item's parent: the org, a project, or an item of another kind (its dependency). */
  readonly parent: P;
  /**
   * Identity key of a desired item inside its parent (design.md §1 "Identity"). `refs`
   * lets a key be what the service stores (a restriction's project id, not its slug);
   * without it, the key is built from the config's own words.
   */
  desiredKey(d: D, refs?: KindRefs): string;
  /** Identity key of a live item; matched against `desiredKey`. */
  liveKey(l: L): string;
  /** The key a live item that no desired item matched gets in its address. */
  liveAddressKey(l: L): string;
  /** The live id (undefined for kinds without one: env vars, settings). */
  liveId(l: L): string | undefined;
  /** The YAML's `id:` pin, which picks one of several live items sharing a key. */
  pinnedId(d: D): string | undefined;
  /**
   * When several live items share the desired item's key: whether this one is its match
   * (vcs triggers of one repo are told apart by filter). Absent: such a tie is an error.
   */
  tiebreak?(d: D, l: L): boolean;
  readonly replaceOrder: ReplaceOrder;
  /** Why this replace order (shown in docs and tests). */
  readonly replaceOrderWhy: string;
  /** Masked attributes of the desired item in the API's names, defaults filled in (`after`). */
  desiredView(d: D, env: KindEnv): JsonObject;
  /** Masked attributes of the live item in the API's names (`before`). */
  liveView(l: L): JsonObject;
  /** Field-level comparison; see Comparison. */
  compare(d: D, l: L, env: KindEnv): Comparison;
  /** Paths of secrets in the desired item that were not resolved (`--skip-secrets`). */
  unresolvedSecrets(d: D): readonly string[];
  /**
   * Live → config for `waybill export` (issue 6): this kind's live items of one parent (as
   * `collection.liveIn` gives them) in the config's words, in output order; export writes
   * them under `config.yamlKey` in `config.shape` (a map of the written keys, a list of the
   * written documents, or a singleton's one document). Each item is
   * written under its key (its document; a secret as a `${env:…}` placeholder asked of
   * `ctx`, since the service never returns one), or left under `ignore` with why when the
   * config format cannot express it (a name shared by several items, a value the schema does
   * not allow, ...), so plan leaves it alone. What is written must plan with no changes:
   * fields as the service holds them, defaults the planner fills in left out. Pure, total.
   */
  toConfig(items: readonly L[], scope: ConfigScope, ctx: ConfigContext): readonly ConfigEntry<L>[];
  /** Calls that create the item. */
  createCalls(d: D): readonly ApiCall[];
  /**
   * Params a desired item takes from other items (issue 17: a restriction's group named in
   * the config), merged into its change's params; a `{ pending }` value also makes the change
   * wait for that item's create (its `depends_on`), and apply fills it with the new id.
   */
  refParams?(d: D, env: KindRefs): Readonly<Record<string, string | { readonly pending: string }>>;
  /**
   * The value of a call's body member that the plan's `after` view leaves out, filled by apply
   * from other members of `after` (a pipeline's `checkout`: the spec requires it on create,
   * and a config that leaves it out gets `config.vcs`), or undefined to leave it out. Read
   * at apply from the kind, so the plan file holds only `after`. Pure and total.
   */
  bodyFallback?(field: string, after: JsonObject): JsonValue | undefined;
  /** Calls that apply an in-place update with these field changes. */
  updateCalls(fields: readonly FieldChange[]): readonly ApiCall[];
  /** Calls that delete the item. */
  deleteCalls(): readonly ApiCall[];

  /**
   * List the live items of one parent (the spec's route, filters and paging). Used by the
   * live reader, drift's unmanaged list, export and apply's re-list; throws a
   * `LiveReadError` for an item the service returned without what identity needs.
   */
  list(api: ReadOnlyApi, scope: ListScope, options?: ListOptionsOf<L>): Promise<L[]>;
  /**
   * Where `list`'s items sit in the live tree and when the config has them read (see
   * LivePlace). Required, so a new kind is read by the live reader and looked at by drift
   * without editing src/live; a kind that left it out would silently never be read.
   */
  readonly livePlace: LivePlaceUnder<L, P>;
  /**
   * For a kind that references name by id and whose items the live read does not list in
   * full (projects: only the declared ones are read): the name (key) of one item, read by its
   * id (spec: api-v3.md Projects `GET /projects/{id}`), or undefined when the service answers
   * without one. Throws as `list` does; a 403/404 is the caller's "not visible" (the id stays
   * an id). The live reader and export ask it for each id a reference names that neither the
   * read nor the walk's own look-ups named (src/live/referred-names.ts).
   */
  nameById?(api: ReadOnlyApi, id: string): Promise<string | undefined>;
  /** Its line in drift's unmanaged list (see UnmanagedLine). */
  readonly unmanaged: UnmanagedLine<L>;
  /** After an uncertain create: re-list and adopt, or re-send. */
  readonly adopt: AdoptRule<D, L>;
  /** A step apply runs after creating `d` in the org `orgId`, if any. */
  afterCreate?(d: D, orgId: string): AfterCreateStep | undefined;
  /**
   * What apply prints about an item it created or adopted (a checkout key's fingerprint
   * and public key, design.md §3 "More kinds"): `fromResponse` reads the create's answer
   * as a live item (undefined when it cannot), `note` says it in words. Never a secret.
   */
  readonly announce?: {
    fromResponse(body: unknown): L | undefined;
    note(l: L): string;
  };
  /**
   * Values besides the id that other changes of the same apply take from a created (or
   * adopted) item, by name (issue 18: a new project's slug, which its children's V2 routes
   * name): stored as `<address>#<name>` and read by `{ pending: "<address>#<name>" }` params.
   * `fromResponse` reads the create's answer, `fromLive` an adopted live item.
   */
  readonly createdValues?: {
    fromResponse(body: unknown): Readonly<Record<string, string>>;
    fromLive(l: L): Readonly<Record<string, string>>;
  };
  /**
   * What a create the service refused (a 4xx that is not a throttle) means for this kind,
   * added to the error (a user checkout key needs a user token): one sentence, or undefined.
   */
  refusal?(d: D, status: number): string | undefined;
  /**
   * What deleting (or replacing) one item destroys beyond the item itself, in words (a
   * group's members and role grants). The plan says it on every such change and lists the
   * change under `guards.destroys`; apply refuses those changes (exit 4) unless
   * `--allow-mass-delete` (issue 17).
   */
  readonly destroys?: string;
  /**
   * What of a live item a saved plan remembers, to tell that it changed since (exit 3
   * "stale"): its attributes without any secret part (no value, no last four).
   */
  fingerprint(l: L): JsonValue;
  /** Every item of this kind the org declares, with its address (apply's desired index). */
  desiredItems(org: DesiredOrg): Iterable<{ readonly address: string; readonly item: D }>;
  /**
   * Every live item of this kind read for the org, keyed by its parent and its id (or name,
   * for kinds without an id) — unique within the org (saved-plan fingerprints).
   */
  liveItems(org: LiveOrg): Iterable<{ readonly key: string; readonly item: L }>;
  /** The kind's collection under its parent, as the planner walks it. */
  readonly collection: Collection<D, L, P>;
  /**
   * Whether a `moved` entry (issue 19) can rename a live item of this kind in place, through
   * the kind's update call, so it keeps its id (and secrets nobody can read back). Required,
   * so a new kind says whether the API can rename it, and why not.
   */
  readonly rename: RenameRule<L>;
  /** The kind's part of the config: its YAML key, schema entry and builder. */
  readonly config: ConfigPart<D, never>;
  /** Fields that name items of other kinds (see Reference). */
  readonly references?: readonly Reference<L>[];
  /**
   * What the plan of one org refuses because of this kind, seen across its changes (issue
   * 28: the service would undo or refuse it): one message per problem, or none.
   */
  refusePlan?(
    org: DesiredOrg,
    live: LiveOrg,
    changes: readonly PlannedChangeView[],
  ): readonly string[];
  /**
   * Why a live item cannot be named (a restriction of a type the service added after the
   * spec), or undefined when it can. design.md §5 "Reading the real service": such an item
   * is `unknown`: listed by plan and drift, never matched, updated or deleted, exported as
   * a comment. Absent: every item of the kind can be named.
   */
  unknown?(live: L): string | undefined;
  /**
   * The members of a live item the kind does not know (a setting the service returns that
   * the config schema lacks), each with why it is reported.
   * design.md §5 "Reading the real service": reported by plan (`unknown[]`, one entry per member, at `ADDRESS.member`), by
   * drift and as a comment by export; never dropped silently and never written (the item
   * itself is still planned from its known members). Absent: the kind knows every member.
   */
  unknownMembers?(live: L): readonly { readonly member: string; readonly reason: string }[];
}
