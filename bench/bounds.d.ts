// Types of bench/bounds.js, for the TypeScript tests that use it.
import type { PresetSizes } from "./generate.js";

export interface Bound {
  readonly requests: number;
  readonly depth: number;
  readonly explain: string;
}

export declare const PROJECT_PAGE: number;
export declare const DEFAULT_PAGE: number;
export declare const planBound: (preset: PresetSizes, probes: number) => Bound;
export declare const applyBound: (preset: PresetSizes) => Bound;
export declare const timeBound: (
  requests: number,
  depth: number,
  latency: number,
  parallelism: number,
) => number;
