/**
 * References are contract data (src/kinds/contract.ts `Reference`, src/kinds/references.ts):
 * a kind that names groups by name, written here as a test-only fixture kind and registered
 * into a copy of the registry, gets resolution (declared first, then live; unknown names
 * with file:line:col and "did you mean"), ordering (the group's create before it, its delete
 * after) and ids mapped back to names (drift's and export's words) with no edit outside its
 * own module — this file.
 */
import { describe, expect, it } from "vitest";
import { call } from "../../src/kinds/calls.js";
import { newComparison } from "../../src/kinds/compare.js";
import type { DocMap } from "../../src/kinds/config-doc.js";
import { cannotRename, type ResourceKind } from "../../src/kinds/contract.js";
import { namedReferences, namesWritten } from "../../src/kinds/references.js";
import { ALL_KINDS } from "../../src/kinds/registry.js";
import { toJson } from "../../src/kinds/values.js";
import type { ResourceType } from "../../src/model/address.js";
import type { DesiredGroup, DesiredOrg } from "../../src/model/desired.js";
import type { LiveGroup, LiveOrg } from "../../src/model/live.js";
import { orderOperations } from "../../src/plan/order.js";
import { planChanges } from "../../src/plan/plan.js";
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
