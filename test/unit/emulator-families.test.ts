/**
 * The emulator's families (emulator/src/family.ts, docs/adding-a-kind.md step 7): each is one
 * module under emulator/src/families/, listed in families.ts, and the generic files name
 * none of them, so a new family is its module and one line. A test-only family, added to a
 * copy of the list, is seeded, dumped, checked by the seed's schema and cascaded with no
 * edit anywhere else.
 */
import { readdirSync, readFileSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { describe, expect, it } from "vitest";
import { SeedError } from "../../emulator/src/errors.js";
import { FAMILIES, ROUTES } from "../../emulator/src/families.js";
import { type Family, isLevelMember } from "../../emulator/src/family.js";
import { hashUuid } from "../../emulator/src/ids.js";
import { startEmulator } from "../../emulator/src/index.js";
import type { Seed } from "../../emulator/src/seed.js";
import { removeWhere, removeWith, type State } from "../../emulator/src/state.js";
import { createState, dumpState } from "../../emulator/src/store.js";
import { s } from "../../emulator/src/validate.js";

const SRC = join(dirname(new URL(import.meta.url).pathname), "..", "..", "emulator", "src");
const FAMILY_DIR = join(SRC, "families");

const isFamily = (v: unknown): v is Family =>
  typeof v === "object" && v !== null && "name" in v && "routes" in v;

describe("the emulator's family registry", () => {
  it("lists every family module, each once, named as its file", async () => {
    const files = readdirSync(FAMILY_DIR).filter((f) => f.endsWith(".ts"));
    expect(files.length).toBe(FAMILIES.length);
    for (const file of files) {
      const mod = (await import(join(FAMILY_DIR, file))) as Record<string, unknown>;
      const exported = Object.values(mod).filter(isFamily);
      expect(exported, `${file} exports one Family`).toHaveLength(1);
      const family = exported[0]!;
      expect(family.name, file).toBe(basename(file, ".ts"));
      expect(
        FAMILIES.filter((f) => f === family),
        `${file} is listed once in families.ts`,
      ).toHaveLength(1);
    }
  });

  it("routes exactly the families' routes, each family's `lastRoutes` after all the others", () => {
    expect(ROUTES).toEqual([
      ...FAMILIES.flatMap((f) => f.routes),
      ...FAMILIES.flatMap((f) => f.lastRoutes ?? []),
    ]);
  });

  it("hangs every seed member off the root or a level a family before it makes", () => {
    const levels = new Set([""]);
    for (const f of FAMILIES) {
      for (const m of f.seed ?? []) {
        expect(levels.has(m.in), `${f.name}: ${m.key} in ${JSON.stringify(m.in)}`).toBe(true);
        if (isLevelMember(m)) levels.add(m.level);
      }
    }
  });

  it("leaves the generic files naming no family, table, seed member or level", () => {
    const words = new Set<string>();
    for (const f of FAMILIES) {
      // `v2` is also the API's generation (`/api/v2/`), which the generic server routes by.
      if (f.name !== "v2") words.add(f.name);
      for (const t of f.tables ?? []) words.add(t);
      for (const r of f.tokenRights ?? []) words.add(r.flag);
      for (const m of f.seed ?? []) {
        words.add(m.key);
        if (isLevelMember(m)) words.add(m.level);
      }
    }
    const generic = readdirSync(SRC).filter(
      // spec-names.ts is the spec's lists of names; families.ts is the registry itself.
      (f) => f.endsWith(".ts") && f !== "families.ts" && f !== "spec-names.ts",
    );
    expect(generic).toEqual(
      expect.arrayContaining(["store.ts", "schemas.ts", "seed.ts", "server.ts"]),
    );
    const found: string[] = [];
    for (const file of generic) {
      const code = readFileSync(join(SRC, file), "utf8")
        .replace(/\/\*[\s\S]*?\*\//g, "")
        .replace(/\/\/.*$/gm, "");
      for (const w of words) {
        if (new RegExp(`(?<![\\w-])${w.replace(/-/g, "\\-")}(?![\\w-])`).test(code))
          found.push(`${file}: ${w}`);
      }
    }
    expect(found).toEqual([]);
  });
});

/** A test-only family: notification channels of an org, each with its subscribers. */
interface ChannelRow {
  readonly id: string;
  readonly orgId: string;
  readonly name: string;
  readonly subscribers: string[];
}
const channelsOf = (st: State): ChannelRow[] =>
  (st as unknown as { channels: ChannelRow[] }).channels;

const channels: Family = {
  name: "channels",
  routes: [],
  tables: ["channels" as keyof State & string],
  seed: [
    {
      in: "org",
      key: "channels",
      level: "channel",
      props: { id: s.str({ nonEmpty: true }), name: s.str({ nonEmpty: true }) },
      required: ["name"],
      loadItem(l, parent, item, pointer) {
        const orgId = (parent.row as { id: string }).id;
        const name = item.name as string;
        const row: ChannelRow = {
          id: l.claim(
            (item.id as string | undefined) ?? hashUuid("channel", orgId, name),
            `${pointer}/id`,
          ),
          orgId,
          name,
          subscribers: [],
        };
        channelsOf(l.st).push(row);
        return row;
      },
      dumpItems: (st, org) =>
        channelsOf(st)
          .filter((c) => c.orgId === (org as { id: string }).id)
          .map((c) => ({ row: c, out: { id: c.id, name: c.name } })),
    },
    {
      in: "channel",
      key: "subscribers",
      schema: s.arr(s.str({ nonEmpty: true })),
      load(l, parent, value, pointer) {
        for (const [i, v] of ((value ?? []) as string[]).entries()) {
          if (!v.includes("@")) l.fail(`${pointer}/${i}`, "not an address");
          (parent.row as ChannelRow).subscribers.push(v);
        }
      },
      dump: (_st, row) => [...(row as ChannelRow).subscribers],
    },
  ],
  onRemove: {
    project: (st, id) => removeWhere(channelsOf(st), (c) => c.name === id),
    // A channel named after a context goes with it: the context's row is still there when
    // its removal cascades, so a family that names contexts by name can look the name up.
    context: (st, id, orgId) => {
      const name = st.contexts.find((c) => c.id === id)?.name;
      removeWhere(channelsOf(st), (c) => c.orgId === orgId && c.name === name);
    },
  },
};

describe("a new family is its module and one line in the list", () => {
  const withChannels = [...FAMILIES, channels];
  const seed = {
    orgs: [
      {
        slug: "gh/acme",
        projects: [{ slug: "api" }],
        channels: [{ name: "alerts", subscribers: ["a@example.com", "b@example.com"] }],
      },
    ],
  } as unknown as Seed;

  it("is seeded and dumped in the org, after the members of the families listed before it", () => {
    const st = createState(seed, withChannels);
    expect(channelsOf(st)).toEqual([
      expect.objectContaining({ name: "alerts", subscribers: ["a@example.com", "b@example.com"] }),
    ]);
    const org = (dumpState(st, withChannels).orgs ?? [])[0] as unknown as Record<string, unknown>;
    expect(Object.keys(org).slice(-2)).toEqual(["projects", "channels"]);
    expect(org.channels).toEqual([
      {
        id: channelsOf(st)[0]!.id,
        name: "alerts",
        subscribers: ["a@example.com", "b@example.com"],
      },
    ]);
    // The dump is a seed: it loads back to the same dump.
    const again = dumpState(st, withChannels);
    expect(dumpState(createState(again, withChannels), withChannels)).toEqual(again);
  });

  it("has its seed checked by its own schema and its loader, with the member's pointer", () => {
    const bad = (channel: unknown) =>
      ({ orgs: [{ slug: "gh/acme", channels: [channel] }] }) as unknown as Seed;
    expect(() => createState(bad({ name: "x", color: "red" }), withChannels)).toThrow(
      new SeedError('seed/orgs/0/channels/0/color: unknown member "color"'),
    );
    expect(() => createState(bad({ name: "x", subscribers: ["nobody"] }), withChannels)).toThrow(
      new SeedError("seed/orgs/0/channels/0/subscribers/0: not an address"),
    );
    // Without the line in the list, the member is unknown to the seed.
    expect(() => createState(seed)).toThrow(
      new SeedError('seed/orgs/0/channels: unknown member "channels"'),
    );
  });

  it("takes part in a removal's cascade", () => {
    const st = createState(
      {
        orgs: [{ slug: "gh/acme", channels: [{ name: "gone" }, { name: "kept" }] }],
      } as unknown as Seed,
      withChannels,
    );
    removeWith(st, "project", "gone");
    expect(channelsOf(st).map((c) => c.name)).toEqual(["kept"]);
  });

  it("is reached by a context's delete (DELETE /api/v3/contexts/:id), served with no other edit", async () => {
    const emu = await startEmulator({
      seed: {
        tokens: [{ token: "t" }],
        orgs: [
          {
            slug: "gh/acme",
            contexts: [{ name: "deploy" }, { name: "other" }],
            channels: [{ name: "deploy" }, { name: "kept" }],
          },
        ],
      } as unknown as Seed,
      admin: true,
      families: withChannels,
    });
    try {
      const dump = async () =>
        ((await (await fetch(`${emu.url}/__admin/state`)).json()) as Seed).orgs?.[0] as unknown as {
          contexts: { id: string; name: string }[];
          channels: { name: string }[];
        };
      const deploy = (await dump()).contexts.find((c) => c.name === "deploy")!;
      const res = await fetch(`${emu.url}/api/v3/contexts/${deploy.id}`, {
        method: "DELETE",
        headers: { Authorization: "Bearer t" },
      });
      expect(res.status).toBe(204);
      const after = await dump();
      expect(after.contexts.map((c) => c.name)).toEqual(["other"]);
      expect(after.channels.map((c) => c.name)).toEqual(["kept"]);
    } finally {
      await emu.close();
    }
  });
});
