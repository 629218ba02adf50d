/**
 * The plan made safe to print (issue 30): every string through `stripControls`, the one
 * escaper (src/core/controls.ts).
 */
import { stripControls } from "../core/controls.js";
import type { Plan } from "../plan/types.js";

/** A JSON-like value with every string (keys too) passed through `stripControls`. */
const clean = (v: unknown): unknown => {
  if (typeof v === "string") return stripControls(v);
  if (Array.isArray(v)) {
    let out: unknown[] | undefined;
    for (let i = 0; i < v.length; i++) {
      const x = clean(v[i]);
      if (x !== v[i]) {
        out ??= v.slice();
        out[i] = x;
      }
    }
    return out ?? v;
  }
  if (v !== null && typeof v === "object") {
    let out: Record<string, unknown> | undefined;
    for (const [k, x] of Object.entries(v)) {
      const ck = stripControls(k);
      const cx = clean(x);
      if (ck !== k || cx !== x) {
        out ??= { ...(v as Record<string, unknown>) };
        if (ck !== k) delete out[k];
        out[ck] = cx;
      }
    }
    return out ?? v;
  }
  return v;
};

/**
 * The plan with every string made safe to print. The same object when nothing needed it (a
 * plan of 2,000 projects is walked once, not copied).
 */
export const sanitizePlan = (plan: Plan): Plan => clean(plan) as Plan;
