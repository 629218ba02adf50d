/**
 * References are contract data (src/kinds/contract.ts `Reference`, src/kinds/references.ts):
 * a kind that names groups by name, written here as a test-only fixture kind and registered
 * into a copy of the registry, gets resolution (declared first, then live; unknown names
 * with file:line:col and "did you mean"), ordering (the group's create before it, its delete
 * after) and ids mapped back to names (drift's and export's words) with no edit outside its
 * own module — this file. A second fixture names projects (the walk's parent) by slug or id:
 * its slugs are resolved and checked with the declared ones, and its ids read by the project
 * kind's `nameById`, likewise from its reference's data alone.
 */
import { describe, expect, it } from "vitest";
import { ApiError } from "../../src/api/errors.js";
import type { ReadOnlyApi } from "../../src/api/types.js";
import { call } from "../../src/kinds/calls.js";
import { newComparison } from "../../src/kinds/compare.js";
import type { DocMap } from "../../src/kinds/config-doc.js";
import { cannotRename, type ResourceKind } from "../../src/kinds/contract.js";
import {
  namedReferences,
  namesWritten,
  referenceEdges,
  referencesWritten,
} from "../../src/kinds/references.js";
import { ALL_KINDS } from "../../src/kinds/registry.js";
import { toJson } from "../../src/kinds/values.js";
import { lookUpReferredNames } from "../../src/live/referred-names.js";
import type { ResourceType } from "../../src/model/address.js";
import type { DesiredGroup, DesiredOrg } from "../../src/model/desired.js";
import type { LiveGroup, LiveOrg } from "../../src/model/live.js";
import { orderOperations } from "../../src/plan/order.js";
import { planChanges } from "../../src/plan/plan.js";
import { findUnknownProjects, unknownProjectDiagnostics } from "../../src/run/unknown-projects.js";
import { unknownNameDiagnostics } from "../../src/run/unknown-references.js";
import { desired, dOrg, live, lOrg } from "../helpers/builders.js";

// ---- the fixture kind: an org's notification channels, each sent to one group -------------

interface DesiredChannel {
  readonly name: string;
  /** A group name (declared or live). */
  readonly group: string;
  readonly source: { file: string; line: number; col: number };
}
interface LiveChannel {
  readonly id: string;
  readonly name: string;
  readonly group_id: string;
  /** The group's name, when the org's groups were read (references.ts `named`). */
  readonly group_name?: string;
}
type WithChannels = { readonly channels?: ReadonlyMap<string, DesiredChannel> };
type LiveWithChannels = { readonly channels?: readonly LiveChannel[] };

const channelsOf = (org: DesiredOrg): ReadonlyMap<string, DesiredChannel> | undefined =>
  (org as DesiredOrg & WithChannels).channels;
const liveChannelsOf = (org: LiveOrg): readonly LiveChannel[] | undefined =>
  (org as LiveOrg & LiveWithChannels).channels;

const channelKind: ResourceKind<DesiredChannel, LiveChannel, "org"> = {
  type: "notification_channel" as ResourceType,
  parent: "org",
  desiredKey: (d) => d.name,
  liveKey: (l) => l.name,
  liveAddressKey: (l) => l.name,
  liveId: (l) => l.id,
  pinnedId: () => undefined,
  replaceOrder: "delete_before_create",
  replaceOrderWhy: "a name is unique",
  desiredView: (d, env) => {
    const id = env.refId("group", d.group);
    return { name: d.name, group_id: typeof id === "string" ? id : null };
  },
  liveView: (l) => ({ name: l.name, group_id: l.group_id }),
  compare: (d, l, env) => {
    const acc = newComparison();
    const id = env.refId("group", d.group);
    if (id !== l.group_id) {
      acc.fields.push({
        path: "group_id",
        before: l.group_id,
        after: typeof id === "string" ? id : null,
      });
    }
    return acc;
  },
  unresolvedSecrets: () => [],
  toConfig: (items) =>
    items.map((l) => ({
      written: l.name,
      item: l,
      doc: { group: l.group_name ?? l.group_id } as DocMap,
    })),
  createCalls: () => [
    call("create", "POST", "/channels", {
      body: "flat",
      body_fields: ["name"],
      param_fields: { group_id: "group_id" },
    }),
  ],
  refParams: (d, env): Readonly<Record<string, string | { readonly pending: string }>> => {
    const id = env.refId("group", d.group);
    return id === undefined ? {} : { group_id: id };
  },
  updateCalls: () => [call("update", "PUT", "/channels/{id}", { body: "flat" })],
  deleteCalls: () => [call("delete", "DELETE", "/channels/{id}")],
  list: async () => [],
  livePlace: {
    under: "org",
    readFor: (org) => channelsOf(org) !== undefined,
    store: (items) => ({ channels: items }) as never,
    stored: (org) => liveChannelsOf(org),
  },
  unmanaged: { listed: true, key: (l) => l.name },
  adopt: { by: "relist", matches: (d, _after, l) => l.name === d.name },
  fingerprint: (l) => toJson(l),
  desiredItems: function* (org) {
    for (const c of channelsOf(org)?.values() ?? []) {
      yield { address: `channel["${c.name}"]`, item: c };
    }
  },
  liveItems: function* (org) {
    for (const c of liveChannelsOf(org) ?? []) yield { key: `channel:${c.id}`, item: c };
  },
  rename: cannotRename("fixture"),
  collection: {
    name: "channels",
    segment: { name: "channel", keyed: true },
    desiredIn: (org) =>
      channelsOf(org) === undefined ? undefined : [...channelsOf(org)!.values()],
    liveIn: (org) => liveChannelsOf(org),
    addressKey: (d) => d.name,
    onParentDelete: "cascades",
  },
  config: {
    yamlKey: "channels",
    shape: "map",
    schemaDef: "channel",
    build: () => {
      throw new Error("not loaded from YAML in this test");
    },
  },
  // The one thing the fixture says about its reference: the rest is generic.
  references: [
    {
      field: "group",
      to: "group",
      by: ["name"],
      writtenAs: (name) => `group: ${name}`,
      written: function* (org) {
        for (const c of channelsOf(org)?.values() ?? []) {
          yield {
            address: `channel["${c.name}"]`,
            value: c.group,
            form: "name",
            source: c.source,
            path: `channels.${c.name}.group`,
          };
        }
      },
      liveIds: (before) => (typeof before.group_id === "string" ? [before.group_id] : []),
      named: (l, nameOf) => {
        const name = nameOf(l.group_id);
        return name === undefined ? l : { ...l, group_name: name };
      },
    },
  ],
};

/** A copy of the registry with the fixture kind registered after the real ones. */
const KINDS_WITH_CHANNELS = [
  ...ALL_KINDS,
  channelKind as unknown as ResourceKind<unknown, unknown>,
];

// ---- the org ---------------------------------------------------------------------------

const OPS_ID = "0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d";
const OLD_ID = "1a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d";
const at = (line: number, col: number) => ({ file: "waybill.yaml", line, col });

const withChannels = (
  org: DesiredOrg,
  groups: readonly string[] | undefined,
  channels: readonly [string, string, number][],
): DesiredOrg =>
  ({
    ...org,
    ...(groups === undefined
      ? {}
      : {
          groups: new Map(
            groups.map((g): [string, DesiredGroup] => [g, { name: g, source: at(2, 3) }]),
          ),
          groups_source: at(1, 1),
        }),
    channels: new Map(
      channels.map(([name, group, line]) => [name, { name, group, source: at(line, 12) }]),
    ),
  }) as DesiredOrg;

const liveWith = (groups: LiveGroup[], channels: LiveChannel[]): LiveOrg =>
  ({ ...lOrg(), groups, channels }) as LiveOrg;

describe("a fixture kind that names groups by name", () => {
  it("resolves a declared group this plan creates: a pending id, created after the group", () => {
    const plan = planChanges(
      desired(withChannels(dOrg(), ["ops"], [["alerts", "ops", 9]])),
      live(liveWith([], [])),
      { kinds: KINDS_WITH_CHANNELS },
    );
    const channel = plan.changes.find((c) => c.address === 'channel["alerts"]');
    expect(channel?.action).toBe("create");
    expect(channel?.params.group_id).toEqual({ pending: 'group["ops"]' });
    expect(channel?.depends_on).toContain('group["ops"]');
    const ops = orderOperations(plan, KINDS_WITH_CHANNELS).operations.map((o) => o.address);
    expect(ops.indexOf('group["ops"]')).toBeLessThan(ops.indexOf('channel["alerts"]'));
  });

  it("resolves a live group by name to its id (no change when the live channel has it)", () => {
    const plan = planChanges(
      desired(withChannels(dOrg(), undefined, [["alerts", "ops", 9]])),
      live(
        liveWith(
          [{ id: OPS_ID, name: "ops", description: "" }],
          [{ id: "c1", name: "alerts", group_id: OPS_ID }],
        ),
      ),
      { kinds: KINDS_WITH_CHANNELS },
    );
    expect(plan.changes.filter((c) => c.action !== "update" || c.fields.length > 0)).toEqual([]);
  });

  it("reports an unknown name with file:line:col and did you mean", () => {
    const diagnostics = unknownNameDiagnostics(
      desired(withChannels(dOrg(), undefined, [["alerts", "opps", 9]])),
      live(liveWith([{ id: OPS_ID, name: "ops", description: "" }], [])),
      KINDS_WITH_CHANNELS,
    );
    expect(diagnostics).toEqual([
      {
        file: "waybill.yaml",
        line: 9,
        col: 12,
        path: "channels.alerts.group",
        code: "unknown_group",
        message: `no group "opps" in org ${dOrg().slug} (not declared under groups, and the org has none of that name); did you mean "ops"?`,
      },
    ]);
  });

  it("deletes a group after the channel that names it by id", () => {
    const plan = planChanges(
      desired(withChannels(dOrg(), [], [])),
      live(
        liveWith(
          [{ id: OLD_ID, name: "old", description: "" }],
          [{ id: "c1", name: "alerts", group_id: OLD_ID }],
        ),
      ),
      { kinds: KINDS_WITH_CHANNELS },
    );
    expect(plan.changes.map((c) => `${c.action} ${c.address}`).sort()).toEqual([
      'delete channel["alerts"]',
      'delete group["old"]',
    ]);
    // The group comes first in plan order (registry order): only the destroy edge puts it last.
    const graph = orderOperations(plan, KINDS_WITH_CHANNELS).operations;
    expect(graph.map((o) => o.address)).toEqual(['channel["alerts"]', 'group["old"]']);
    const groupDelete = graph.find((o) => o.address === 'group["old"]');
    expect(groupDelete?.after).toContain(graph[0]?.id);
  });

  it("has the live reader read the groups when it names one by name", () => {
    const org = withChannels(dOrg(), undefined, [["alerts", "ops", 9]]);
    expect(namesWritten(org, "group", KINDS_WITH_CHANNELS)).toBe(true);
    expect(namesWritten(withChannels(dOrg(), undefined, []), "group", KINDS_WITH_CHANNELS)).toBe(
      false,
    );
  });

  it("maps ids back to names for drift and export", () => {
    const read = namedReferences(
      liveWith(
        [{ id: OPS_ID, name: "ops", description: "" }],
        [
          { id: "c1", name: "alerts", group_id: OPS_ID },
          { id: "c2", name: "other", group_id: OLD_ID },
        ],
      ),
      KINDS_WITH_CHANNELS,
    );
    const written = channelKind.toConfig(liveChannelsOf(read) ?? [], {} as never, {} as never);
    expect(written.map((e) => ("written" in e ? e.doc : e))).toEqual([
      { group: "ops" },
      { group: OLD_ID },
    ]);
  });
});

// ---- a second fixture kind: deploy targets, each naming a project by slug or id -----------
// The project is the walk's parent, not a collection: a reference to it is resolved with the
// declared projects' slugs (the reader's look-ups), an unknown slug is a plan-time config
// error with "did you mean", and an id no look-up named is read by the project kind's
// `nameById` — all from the reference's data below, with no edit outside this fixture.

interface DesiredTarget {
  readonly name: string;
  /** A project slug or id. */
  readonly project: string;
  readonly source: { file: string; line: number; col: number };
}
interface LiveTarget {
  readonly id: string;
  readonly name: string;
  readonly project_id: string;
  /** The project's slug, where it is known (references.ts `named`). */
  readonly project_slug?: string;
}
const targetsOf = (org: DesiredOrg): ReadonlyMap<string, DesiredTarget> | undefined =>
  (org as DesiredOrg & { targets?: ReadonlyMap<string, DesiredTarget> }).targets;
const liveTargetsOf = (org: LiveOrg): readonly LiveTarget[] | undefined =>
  (org as LiveOrg & { targets?: readonly LiveTarget[] }).targets;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

const targetKind = {
  ...(channelKind as unknown as ResourceKind<DesiredTarget, LiveTarget, "org">),
  type: "deploy_target" as ResourceType,
  liveView: (l: LiveTarget) => ({ name: l.name, project_id: l.project_id }),
  livePlace: {
    under: "org",
    readFor: (org: DesiredOrg) => targetsOf(org) !== undefined,
    store: (items: readonly LiveTarget[]) => ({ targets: items }) as never,
    stored: (org: LiveOrg) => liveTargetsOf(org),
  },
  desiredItems: function* (org: DesiredOrg) {
    for (const t of targetsOf(org)?.values() ?? []) {
      yield { address: `target["${t.name}"]`, item: t };
    }
  },
  liveItems: function* (org: LiveOrg) {
    for (const t of liveTargetsOf(org) ?? []) yield { key: `target:${t.id}`, item: t };
  },
  references: [
    {
      field: "project",
      to: "project",
      by: ["slug", "id"],
      writtenAs: (slug: string) => `project: ${slug}`,
      written: function* (org: DesiredOrg) {
        for (const t of targetsOf(org)?.values() ?? []) {
          yield {
            address: `target["${t.name}"]`,
            value: t.project,
            form: UUID.test(t.project) ? "id" : "slug",
            source: t.source,
            path: `targets.${t.name}.project`,
          };
        }
      },
      liveIds: (before: { project_id?: unknown }) =>
        typeof before.project_id === "string" ? [before.project_id] : [],
      named: (l: LiveTarget, nameOf: (id: string) => string | undefined) => {
        const slug = nameOf(l.project_id);
        return slug === undefined ? l : { ...l, project_slug: slug };
      },
      ordersDeletes: false,
    },
  ],
} as unknown as ResourceKind<unknown, unknown>;
const KINDS_WITH_TARGETS = [...ALL_KINDS, targetKind];

const API_ID = "2a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d";
const OTHER_ID = "3a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d";
const HIDDEN_ID = "4a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d";

const withTargets = (targets: readonly [string, string, number][]): DesiredOrg =>
  ({
    ...dOrg(),
    targets: new Map(
      targets.map(([name, project, line]) => [name, { name, project, source: at(line, 14) }]),
    ),
  }) as DesiredOrg;

describe("a fixture kind that names projects by slug or id", () => {
  it("has its slugs resolved with the declared projects' (ids are taken as they are)", () => {
    const org = withTargets([
      ["web", "gh/acme/web", 3],
      ["api", API_ID, 4],
    ]);
    const written = [...referencesWritten(org, "project", KINDS_WITH_TARGETS)].map(
      ({ written: w }) => [w.value, w.form],
    );
    expect(written).toEqual([
      ["gh/acme/web", "slug"],
      [API_ID, "id"],
    ]);
  });

  it("reports a slug the org does not have as a config error at file:line:col", () => {
    const refs = findUnknownProjects(
      desired(withTargets([["web", "gh/acme/wbe", 7]])),
      live({ ...lOrg(), projectIds: new Map() } as LiveOrg),
      KINDS_WITH_TARGETS,
    );
    expect(refs.map((r) => [r.slug, r.path, r.source.line, r.source.col])).toEqual([
      ["gh/acme/wbe", "targets.web.project", 7, 14],
    ]);
    const [diagnostic] = unknownProjectDiagnostics(refs, new Map([[dOrg().slug, ["gh/acme/web"]]]));
    expect(diagnostic?.message).toMatch(/did you mean "gh\/acme\/web"\?/);
  });

  it("reads an id no look-up named by the project kind's nameById, and names it", async () => {
    const gets: string[] = [];
    const api = {
      get: async (_gen: string, path: string) => {
        gets.push(path);
        if (path === `/projects/${OTHER_ID}`) {
          return { data: { id: OTHER_ID, attributes: { slug: "gh/acme/other" } } };
        }
        throw new ApiError({ method: "GET", path, status: 404 });
      },
    } as unknown as ReadOnlyApi;
    const org = {
      ...lOrg(),
      targets: [
        { id: "t1", name: "api", project_id: API_ID },
        { id: "t2", name: "other", project_id: OTHER_ID },
        { id: "t3", name: "hidden", project_id: HIDDEN_ID },
      ],
    } as LiveOrg;
    // The walk's own look-ups named API_ID (a slug the config writes): not read again.
    const known = new Map([["project" as ResourceType, new Map([[API_ID, "gh/acme/api"]])]]);
    const names = await lookUpReferredNames(api, org, known, KINDS_WITH_TARGETS);
    expect(gets.sort()).toEqual([`/projects/${OTHER_ID}`, `/projects/${HIDDEN_ID}`]);
    const read = namedReferences(org, KINDS_WITH_TARGETS, names);
    expect(liveTargetsOf(read)?.map((t) => t.project_slug ?? t.project_id)).toEqual([
      "gh/acme/api",
      "gh/acme/other",
      HIDDEN_ID,
    ]);
  });

  it("a restriction's project reference orders no delete (ordersDeletes: false), its group's does", () => {
    const node = (id: string, resource_type: ResourceType, cid: string, before: object) => ({
      id,
      phase: "delete" as const,
      org: "gh/acme",
      change: {
        org: "gh/acme",
        resource_type,
        action: "delete" as const,
        address: id,
        id: cid,
        before: before as never,
        after: null,
        params: {},
      },
    });
    const restriction = (type: string, pattern: string) =>
      node(`r-${type}`, "context_restriction", "r1", {
        restriction_type: type,
        match_pattern: pattern,
      });
    expect(
      referenceEdges([
        node("p", "project", API_ID, { slug: "gh/acme/api" }),
        restriction("project", API_ID),
      ]),
    ).toEqual([]);
    expect(
      referenceEdges([node("g", "group", OPS_ID, { name: "ops" }), restriction("group", OPS_ID)]),
    ).toEqual([["r-group", "g"]]);
  });
});
