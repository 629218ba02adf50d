// Types of bench/generate.js, for the TypeScript tests that use it
// (test/integration/perf-requests.test.ts).
import type { Seed } from "../src/emulator/seed.js";

export interface PresetSizes {
  readonly projects: number;
  readonly contexts: number;
  readonly projectEnv: number;
  readonly webhooks: number;
  readonly contextEnv: number;
}

export declare const TOKEN: string;
export declare const ORG_SLUG: string;
export type PresetName = "tiny" | "small" | "large" | "xl" | "large-org";

export declare const PRESETS: Readonly<Record<PresetName, PresetSizes>>;

/** One file of a folder config. */
export interface ConfigFile {
  readonly name: string;
  readonly text: string;
}

export interface GeneratedOrg {
  readonly preset: PresetSizes;
  readonly seed: Seed;
  readonly emptySeed: Seed;
  readonly configYaml: string;
  readonly changedConfigYaml: string;
  readonly configFiles: readonly ConfigFile[];
  readonly changedConfigFiles: readonly ConfigFile[];
  readonly secrets: Readonly<Record<string, string>>;
  readonly counts: Readonly<Record<string, number>>;
  readonly touchedPipelines: number;
}

export declare const generateOrg: (preset: PresetName) => GeneratedOrg;
