/**
 * The grouped kind spec (src/kinds/grouped.ts `defineKind`) flattens to the contract
 * unchanged: every kind moved to it answers exactly what its flat literal answered.
 *
 * The proof is a signature of each kind — its data members (JSON), and what each of its
 * functions answers for the items of `examples/full.yaml` and the live state a service
 * holds right after applying it (plus the org-level kinds that state lacks): keys,
 * addresses, views, comparisons, calls, params, saved-plan keys and fingerprints, drift's
 * lines, places, collections, references, export entries, adopt matches, refusals, notes —
 * checked against `kind-grouped-spec.golden.json`, captured from the flat literals before
 * any kind moved. A kind moved to the groups that answered differently in any of them
 * fails here; so does a default of the groups that differs from what a kind stated.
 *
 * The project (`defineWalkedParent`: the walks plan, read and write it themselves) and the
 * settings singletons are not in the golden (see SIGNED).
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { loadConfigOrThrow } from "../../src/config/index.js";
import { EnvRef } from "../../src/kinds/config-doc.js";
import type { KindEnv, ResourceKind } from "../../src/kinds/contract.js";
import { camelType, defineKind } from "../../src/kinds/grouped.js";
import { KINDS } from "../../src/kinds/registry.js";
import { RESOURCE_TYPES, type ResourceType } from "../../src/model/address.js";
import type { DesiredOrg } from "../../src/model/desired.js";
import type { LiveOrg, LiveProject } from "../../src/model/live.js";
import { liveFromDesired } from "../helpers/live-from-desired.js";

const GOLDEN = "test/unit/kind-grouped-spec.golden.json";
const EXAMPLES = ["examples/full.yaml", "examples/access.yaml", "examples/small.yaml"];
/**
 * Every kind but the project and the settings singletons: a golden naming every kind of the
 * org or of a project would be a file a new kind edits (test/unit/adding-a-kind-doc.test.ts).
 * The settings singletons (both settingsKind) were checked against a golden of their flat
 * form when they moved (commit "kind-grouped-spec golden: the settings singletons too").
 */
const SIGNED = RESOURCE_TYPES.filter(
  (t) => t !== "project" && t !== "org_settings" && t !== "project_settings",
);

const FULL_ENV = {
  PROD_AWS_SECRET: "prod-aws-secret-1111",
  NPM_TOKEN: "npm-token-2222",
  SLACK_SIGNING_SECRET: "slack-signing-3333",
  RELEASE_HOOK_SECRET: "release-hook-4444",
  HONEYCOMB_KEY: "honeycomb-key-5555",
};

const ENV: KindEnv = {
  orgId: "org-1",
  forceSecrets: false,
  projectId: (slug) => `prj:${slug}`,
  refId: (to, name) => `${to}:${name}`,
};

type AnyKind = ResourceKind<unknown, unknown>;
type Parent = {
  desired: unknown;
  live: unknown;
  within: { org: LiveOrg; project?: LiveProject };
  scope: { project?: string; parent?: string };
};

/** The org-level items liveFromDesired does not make, as the service would list them. */
const withOrgKinds = (org: LiveOrg, d: DesiredOrg): LiveOrg => {
  const projects = new Map<string, LiveProject>();
  for (const [slug, p] of org.projects) {
    if (p.status !== "found") continue;
    const keys = (d.projects.get(slug)?.checkout_keys ?? []).map((k, i) => ({
      type: k.type === "user-key" ? "github-user-key" : k.type,
      fingerprint: `SHA256:${slug}/${i}`,
      public_key: i === 0 ? "" : "ssh-ed25519 AAAA",
      preferred: i === 0,
    }));
    projects.set(slug, { ...p, checkout_keys: keys });
  }
  return {
    ...org,
    projects,
    groups: [...(d.groups?.values() ?? [])].map((g) => ({
      id: `grp:${g.name}`,
      name: g.name,
      description: g.description ?? "",
    })),
    otel_exporters: (d.otel_exporters ?? []).map((e, i) => ({
      id: `otel:${i}`,
      org_id: "org-1",
      endpoint: e.endpoint,
      protocol: e.protocol,
      insecure: e.insecure ?? false,
      header_names: Object.keys(e.headers ?? {}).sort(),
    })),
    sso_group_mappings: {
      mappings: (d.sso_group_mappings?.mappings ?? []).map((m) => ({
        idp_group_name: m.idp_group_name,
        group_id: `grp:${m.group}`,
      })),
    } as never,
  };
};

/** The parents a kind's items hang off, desired and live matched by name. */
const parentsOf = (kind: AnyKind, d: DesiredOrg, l: LiveOrg): Parent[] => {
  const projects = [...d.projects.values()].map((p) => {
    const live = l.projects.get(p.slug);
    const project = live?.status === "found" ? live : undefined;
    return { desired: p, live, within: { org: l, project }, scope: { project: p.slug } };
  });
  switch (kind.parent) {
    case "org":
      return [{ desired: d, live: l, within: { org: l }, scope: {} }];
    case "project":
      return projects;
    case "context":
      return [...(d.contexts?.values() ?? [])].map((c) => ({
        desired: c,
        live: l.contexts?.find((x) => x.name === c.name),
        within: { org: l },
        scope: { parent: c.name },
      }));
    default:
      return projects.flatMap(({ desired, live, within }) =>
        [...(desired.pipelines?.values() ?? [])].map((p) => ({
          desired: p,
          live: (live as LiveProject).pipelines?.find((x) => x.name === p.name),
          within,
          scope: { project: desired.slug, parent: p.name },
        })),
      );
  }
};

const json = (v: unknown): unknown => JSON.parse(JSON.stringify(v ?? null));

const signature = (kind: AnyKind, d: DesiredOrg, l: LiveOrg): unknown => {
  const desired = [...kind.desiredItems(d)];
  const live = [...kind.liveItems(l)];
  const ls = live.map((x) => x.item);
  const ctx = {
    env: (parts: readonly string[], address: string, what: string) =>
      new EnvRef({ parts, address, what }),
  };
  const parents = parentsOf(kind, d, l);
  return json({
    data: kind,
    desired: desired.map(({ address, item }) => {
      const after = kind.desiredView(item, ENV);
      const matching = ls.filter((x) => kind.liveKey(x) === kind.desiredKey(item, ENV));
      return {
        address,
        key: kind.desiredKey(item, ENV),
        addressKey: kind.collection.addressKey(item),
        after,
        create: kind.createCalls(item),
        refParams: kind.refParams?.(item, ENV),
        unresolved: kind.unresolvedSecrets(item),
        pinned: kind.pinnedId(item),
        refusal: [400, 403, 409].map((s) => kind.refusal?.(item, s)),
        afterCreate: kind.afterCreate?.(item, "org-1"),
        adopt: ls.map((x) =>
          kind.adopt.by === "relist"
            ? kind.adopt.matches(item, after, x)
            : kind.adopt.existsRefusal?.sameValue(item, x),
        ),
        tiebreak: kind.tiebreak === undefined ? null : ls.map((x) => kind.tiebreak?.(item, x)),
        // Every live item of the kind, matching or not: the differences too.
        compare: ls.map((x) => kind.compare(item, x, ENV)),
        forced: matching.map((x) => kind.compare(item, x, { ...ENV, forceSecrets: true })),
        refuse: (["create", "update", "replace", "none"] as const).map((action) =>
          kind.collection.refuse?.(
            { desired: item, address, action, after },
            { desired: d, live: l },
          ),
        ),
        fallback: ["checkout", "config"].map((f) => kind.bodyFallback?.(f, after)),
      };
    }),
    live: live.map(({ key, item }) => {
      const before = kind.liveView(item);
      return {
        key,
        liveKey: kind.liveKey(item),
        liveAddressKey: kind.liveAddressKey(item),
        liveId: kind.liveId(item),
        before,
        fingerprint: kind.fingerprint(item),
        unmanaged: kind.unmanaged.listed
          ? [kind.unmanaged.key(item), kind.unmanaged.holdsNothing?.(item)]
          : null,
        unknown: [kind.unknown?.(item), kind.unknownMembers?.(item)],
        rename: kind.rename.can
          ? [kind.rename.field(item), kind.rename.relabel(item, "renamed")]
          : null,
        references: (kind.references ?? []).map((r) => [
          r.liveIds(before),
          r.named(item, (id) => `name-of-${id}`, "org-1"),
        ]),
        announce: kind.announce?.note(item),
        createdValues: kind.createdValues?.fromLive(item),
        deleteNote: kind.collection.deleteNote?.(item),
      };
    }),
    update: kind.updateCalls(
      desired.flatMap(({ item }) =>
        Object.keys(kind.desiredView(item, ENV)).map((path) => ({ path, before: null, after: 1 })),
      ),
    ),
    delete: kind.deleteCalls(),
    parents: parents.map((p) => {
      const desiredIn = kind.collection.desiredIn(p.desired as never);
      const liveIn =
        p.live === undefined ? undefined : kind.collection.liveIn(p.live as never, p.within);
      return {
        readFor: kind.livePlace.readFor(p.desired as never),
        readForNone: kind.livePlace.readFor({} as never),
        store: kind.livePlace.store(ls),
        stored: p.live === undefined ? null : kind.livePlace.stored(p.live as never),
        desiredIn: desiredIn?.map((x) => kind.collection.addressKey(x)),
        liveIn: liveIn?.map((x) => kind.liveKey(x)),
        order: kind.collection.replaceOrderFor?.(desiredIn ?? [], liveIn ?? []),
        synthetic:
          p.live === undefined ? null : kind.collection.synthetic?.of(p.live as never, p.within),
        export: liveIn === undefined ? null : kind.toConfig(liveIn, p.scope, ctx),
      };
    }),
    written: (kind.references ?? []).map((r) => [[...r.written(d)], r.writtenAs("x")]),
    limit: kind.config.limit?.message(7, 2),
    refusePlan: kind.refusePlan?.(d, l, []),
  });
};

const signatures = async (): Promise<Record<string, unknown>> => {
  const orgs: [DesiredOrg, LiveOrg][] = [];
  for (const file of EXAMPLES) {
    const config = await loadConfigOrThrow(file, { env: FULL_ENV });
    const liveState = liveFromDesired(config);
    config.orgs.forEach((d, i) => {
      orgs.push([d, withOrgKinds(liveState.orgs[i] as LiveOrg, d)]);
    });
  }
  const out: Record<string, unknown> = {};
  for (const type of SIGNED) {
    const kind = KINDS[type] as unknown as AnyKind;
    out[type] = orgs.map(([d, l]) => signature(kind, d, l));
  }
  return out;
};

type Thing = {
  readonly name: string;
  readonly size?: string;
  readonly ctx?: string;
  readonly source: typeof at;
};
type LiveThing = {
  readonly id: string;
  readonly name: string;
  readonly size: string;
  readonly ctx_id?: string | null;
  readonly ctx_name?: string;
};
const at = { file: "w.yaml", line: 3, col: 5 };

/** The least a plain collection says: identity, views and rules, calls, its YAML key. */
const things = <P extends "org" | "project" | "context">(parent: P, more = {}) =>
  defineKind({
    identity: {
      type: "thing" as ResourceType,
      parent,
      desiredKey: (d: Thing) => d.name,
      liveKey: (l: LiveThing) => l.name,
      liveId: (l) => l.id,
      rename: { can: false, why: "no" } as const,
    },
    diff: {
      desiredView: (d) => ({ name: d.name, size: d.size ?? "s" }),
      liveView: (l) => ({ name: l.name, size: l.size }),
      fields: [{ path: "size", mode: "update" }],
    },
    wire: {
      list: async () => [],
      createCalls: () => [],
      deleteCalls: () => [],
    },
    config: {
      yamlKey: "things",
      build: (): Thing => ({ name: "x", source: at }),
      export: () => [],
    },
    ...more,
  });

describe("defineKind's defaults (src/kinds/grouped.ts)", () => {
  it("fills what a plain collection of the org does the usual way", () => {
    const k = things("org");
    const l: LiveThing = { id: "t1", name: "big", size: "m" };
    const d: Thing = { name: "big", size: "l", source: at };
    expect([k.collection.name, k.collection.segment, k.collection.onParentDelete]).toEqual([
      "things",
      { name: "thing", keyed: true },
      "cascades",
    ]);
    expect([k.config.shape, k.config.declares, k.config.schemaDef]).toEqual([
      "map",
      "key",
      "thing",
    ]);
    expect([k.replaceOrder, k.liveAddressKey(l), k.pinnedId(d), k.unresolvedSecrets(d)]).toEqual([
      "never",
      "big",
      undefined,
      [],
    ]);
    expect(k.updateCalls([])).toEqual([]);
    expect(k.adopt.by === "relist" && k.adopt.matches(d, {}, l)).toBe(true);
    expect(k.unmanaged.listed && k.unmanaged.key(l)).toBe("big");
    expect(k.fingerprint(l)).toEqual(l);
    const org = { things: new Map([["big", d]]) } as never;
    expect([...k.desiredItems(org)].map((x) => x.address)).toEqual(['thing["big"]']);
    expect([...k.liveItems({ things: [l] } as never)].map((x) => x.key)).toEqual(["thing:t1"]);
    expect([k.livePlace.under, k.livePlace.readFor(org), k.livePlace.store([l])]).toEqual([
      "org",
      true,
      { things: [l] },
    ]);
    // `fields`: the comparison of the two views, by the rules (a path the view has).
    expect(k.compare(d, l, ENV).fields).toEqual([{ path: "size", before: "m", after: "l" }]);
    expect(camelType("runner_resource_class")).toBe("runnerResourceClass");
  });

  it("addresses and keys items below a project or a context under their parent", () => {
    const d: Thing = { name: "big", source: at };
    const l: LiveThing = { id: "t1", name: "big", size: "s" };
    const p = things("project");
    const projects = new Map([["gh/a/b", { slug: "gh/a/b", things: new Map([["big", d]]) }]]);
    expect([...p.desiredItems({ projects } as never)].map((x) => x.address)).toEqual([
      'project["gh/a/b"].thing["big"]',
    ]);
    const live = new Map([["gh/a/b", { status: "found", slug: "gh/a/b", things: [l] }]]);
    expect([...p.liveItems({ projects: live } as never)].map((x) => x.key)).toEqual([
      "project:gh/a/b|thing:t1",
    ]);
    expect(p.config.declares).toBeUndefined();
    const c = things("context");
    const contexts = new Map([["ci", { name: "ci", things: new Map([["big", d]]) }]]);
    expect([...c.desiredItems({ contexts } as never)].map((x) => x.address)).toEqual([
      'context["ci"].thing["big"]',
    ]);
    expect(
      [...c.liveItems({ contexts: [{ id: "c1", name: "ci", things: [l] }] } as never)].map(
        (x) => x.key,
      ),
    ).toEqual(["context:c1|thing:t1"]);
  });

  it("does not compile without what no default can say (the type-level half: npm run typecheck)", () => {
    const full = {
      identity: {
        type: "thing" as ResourceType,
        parent: "org" as const,
        desiredKey: (d: Thing) => d.name,
        liveKey: (l: LiveThing) => l.name,
        liveId: (l: LiveThing) => l.id,
        rename: { can: false, why: "no" } as const,
      },
      diff: {
        desiredView: (d: Thing) => ({ name: d.name }),
        liveView: (l: LiveThing) => ({ name: l.name }),
        fields: [{ path: "name", mode: "update" }] as const,
      },
      wire: { list: async () => [], createCalls: () => [], deleteCalls: () => [] },
      config: {
        yamlKey: "things",
        build: (): Thing => ({ name: "x", source: at }),
        export: () => [],
      },
    };
    const { rename: _r, ...noRename } = full.identity;
    // @ts-expect-error identity.rename is required: a kind says whether the API can rename it
    const a = () => defineKind({ ...full, identity: noRename });
    const { list: _l, ...noList } = full.wire;
    // @ts-expect-error wire.list is required: the live reader, drift, export and re-list use it
    const b = () => defineKind({ ...full, wire: noList });
    const typo = { ...full.diff, fields: [{ path: "nme", mode: "update" }] } as const;
    // @ts-expect-error a rule's path is one of the view's (checked at compile time, not at run)
    const c = () => defineKind({ ...full, diff: typo });
    const { export: _e, ...noExport } = full.config;
    // @ts-expect-error config.export is required: export writes every kind
    const d = () => defineKind({ ...full, config: noExport });
    expect(defineKind(full).type).toBe("thing");
    expect([a, b, c, d].every((f) => typeof f === "function")).toBe(true);
  });

  it("keeps every member a group gives", () => {
    const k = things("org", {
      place: { collection: { name: "stuff", serial: true } },
      hooks: { adopt: { by: "resend", why: "an upsert by name" } },
    });
    expect([k.collection.name, k.collection.serial, k.collection.segment.name]).toEqual([
      "stuff",
      true,
      "thing",
    ]);
    expect(k.adopt.by).toBe("resend");
  });

  it("refuses a replace rule without the kind's replace order (never is not a replace)", () => {
    const diff = {
      desiredView: (d: Thing) => ({ name: d.name, size: d.size ?? "s" }),
      liveView: (l: LiveThing) => ({ name: l.name, size: l.size }),
    };
    const rule = { path: "size", mode: "replace" } as const;
    expect(() => things("org", { diff: { ...diff, fields: [rule] } })).toThrow(
      /replace rule needs the kind's replaceOrder/,
    );
    const k = things("org", {
      diff: { ...diff, fields: [rule], replaceOrder: "create_before_delete" },
    });
    const l: LiveThing = { id: "t1", name: "big", size: "m" };
    expect(k.compare({ name: "big", source: at }, l, ENV).replace_reasons).toEqual([
      "size: cannot change in place",
    ]);
  });

  it("flattens a field reference: written at its config path, ids read, names given, params", () => {
    const k = things("org", {
      references: [
        { field: "ctx", to: "context", id: "ctx_id", name: "ctx_name", param: "context_id" },
      ],
    });
    const [ref] = k.references ?? [];
    const org = { things: new Map([["big", { name: "big", ctx: "deploy", source: at }]]) };
    expect([...(ref?.written(org as never) ?? [])]).toEqual([
      {
        address: 'thing["big"]',
        value: "deploy",
        form: "name",
        source: at,
        path: "things.big.ctx",
      },
    ]);
    expect(ref?.writtenAs("deploy")).toBe("ctx: deploy");
    expect(ref?.liveIds({ ctx_id: "c1" })).toEqual(["c1"]);
    const l = { id: "t1", name: "big", size: "s", ctx_id: "c1" };
    expect(ref?.named(l, (id) => (id === "c1" ? "deploy" : undefined), "o")).toEqual({
      ...l,
      ctx_name: "deploy",
    });
    const pending = { pending: 'context["deploy"]' };
    const env = { ...ENV, refId: () => pending };
    expect(k.refParams?.({ name: "big", ctx: "deploy", source: at }, env)).toEqual({
      context_id: pending,
    });
    expect(k.refParams?.({ name: "big", source: at }, env)).toEqual({});
    // Its config path is an org-level map item's: anywhere else it is refused, not guessed.
    const byName = { field: "ctx", to: "context", id: "ctx_id", name: "ctx_name" } as const;
    expect(() => things("project", { references: [byName] })).toThrow(/org-level map/);
  });
});

describe("the grouped kind spec (defineKind)", () => {
  it("flattens every kind to what its flat literal answered (the golden)", async () => {
    const golden = JSON.parse(readFileSync(GOLDEN, "utf8")) as Record<string, unknown>;
    const now = await signatures();
    expect(Object.keys(golden)).toEqual([...SIGNED]);
    for (const type of SIGNED) expect(now[type], type).toEqual(golden[type]);
  });
});
