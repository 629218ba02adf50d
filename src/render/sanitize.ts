/**
 * Issue 30 "Saved plans are shown as applied": no string Waybill prints may drive the
 * terminal. A name read from the live state, a service's error title or a string of a plan
 * file can hold ESC sequences (colours, cursor moves, a title change, an OSC 8 link, a line
 * rewritten with CR) that make a reviewer see something other than what is there.
 *
 * Decision: every C0 control but newline and tab, DEL, and every C1 control (U+0080-U+009F:
 * U+009B is a one-character CSI on some terminals) is replaced by its `\u00XX` escape, so the
 * reader sees that the text held one; Unicode bidi overrides (U+202A-U+202E, U+2066-U+2069)
 * are escaped the same way, since they reorder what a reviewer reads. Pure.
 */
import type { Plan } from "../plan/types.js";

const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g;
const HAS_CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;

const visible = (c: string): string => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`;

/** The text with every terminal control character (but newline and tab) made visible. */
export const stripControls = (text: string): string =>
  HAS_CONTROL.test(text) ? text.replace(CONTROL, visible) : text;

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
