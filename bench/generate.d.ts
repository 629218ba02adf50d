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
export declare const PRESETS: Readonly<Record<"tiny" | "small" | "large" | "xl", PresetSizes>>;

export interface GeneratedOrg {
  readonly preset: PresetSizes;
  readonly seed: Seed;
  readonly emptySeed: Seed;
  readonly configYaml: string;
  readonly changedConfigYaml: string;
  readonly secrets: Readonly<Record<string, string>>;
  readonly counts: Readonly<Record<string, number>>;
  readonly touchedPipelines: number;
}

export declare const generateOrg: (preset: "tiny" | "small" | "large" | "xl") => GeneratedOrg;
