/**
 * Issue 16: the emulator keeps its own lists of the names the spec defines
 * (emulator/src/spec-names.ts), so a misreading shared by client and emulator cannot pass
 * both. The two sides must still agree: when they diverge this test fails, and the spec is
 * the referee (when the spec documents are at hand, every name is checked against their
 * text too).
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
  EVENT_PRESETS,
  ORG_SETTINGS,
  PROJECT_BOOL_SETTINGS,
  PROJECT_LIST_SETTING,
  RESTRICTION_TYPES,
  TRIGGER_EVENT_TYPES,
  WEBHOOK_EVENT_NAMES,
} from "../../emulator/src/spec-names.js";
import { TRIGGER_EVENT_TYPES as CONFIG_TRIGGER_TYPES } from "../../src/kinds/trigger.js";
import {
  FILTER_PRESETS,
  ORG_SETTING_NAMES,
  PROJECT_SETTING_NAMES,
  WEBHOOK_EVENTS,
} from "../../src/model/desired.js";
import { REPO_ROOT } from "../helpers/cli.js";

const sorted = (names: readonly string[]): string[] => [...names].sort();

interface JsonSchemaNode {
  readonly properties?: Readonly<Record<string, JsonSchemaNode>>;
}
const configSchema = JSON.parse(
  readFileSync(join(REPO_ROOT, "schemas", "waybill.schema.json"), "utf8"),
) as { readonly $defs: Readonly<Record<string, JsonSchemaNode>> };

/** The config's restriction keys are the API's restriction types (design.md §1). */
const configRestrictionTypes = Object.keys(configSchema.$defs.restriction?.properties ?? {});

const pairs: readonly { name: string; emulator: readonly string[]; client: readonly string[] }[] = [
  { name: "org settings", emulator: ORG_SETTINGS, client: ORG_SETTING_NAMES },
  {
    name: "project settings",
    emulator: [...PROJECT_BOOL_SETTINGS, PROJECT_LIST_SETTING],
    client: PROJECT_SETTING_NAMES,
  },
  { name: "webhook events", emulator: WEBHOOK_EVENT_NAMES, client: WEBHOOK_EVENTS },
  { name: "restriction types", emulator: RESTRICTION_TYPES, client: configRestrictionTypes },
  { name: "trigger event types", emulator: TRIGGER_EVENT_TYPES, client: CONFIG_TRIGGER_TYPES },
  { name: "trigger filter presets", emulator: EVENT_PRESETS, client: FILTER_PRESETS },
];

describe("the emulator's names and the client's", () => {
  it.each(pairs)("agree on the $name (as sets, each without repeats)", (p) => {
    expect(new Set(p.emulator).size, "a name twice in the emulator's list").toBe(p.emulator.length);
    expect(new Set(p.client).size, "a name twice in the client's list").toBe(p.client.length);
    expect(sorted(p.emulator)).toEqual(sorted(p.client));
  });

  // The spec documents live beside the repository (BRIEF: /work/shared/spec); where they are
  // present, every name of the emulator's lists must be written in them as code.
  const specDir = process.env.WAYBILL_SPEC_DIR ?? "/work/shared/spec";
  const specFiles = ["api-v3.md", "api-v2-v1.md"].map((f) => join(specDir, f));
  it.skipIf(!specFiles.every((f) => existsSync(f)))("every name is the spec's own word", () => {
    const spec = specFiles.map((f) => readFileSync(f, "utf8")).join("\n");
    const missing = pairs
      .flatMap((p) => p.emulator)
      .filter((name) => !spec.includes(`\`${name}\``));
    expect(missing).toEqual([]);
  });
});
