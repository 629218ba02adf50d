/**
 * Issue 30 "Saved plans are shown as applied": no string Waybill prints may drive the
 * terminal. A name read from the live state, a service's error title, a string of a plan
 * file or a key of a config file can hold ESC sequences (colours, cursor moves, a title
 * change, an OSC 8 link, a line rewritten with CR) that make a reviewer see something other
 * than what is there.
 *
 * Decision: every C0 control but newline and tab, DEL, and every C1 control (U+0080-U+009F:
 * U+009B is a one-character CSI on some terminals) is replaced by its `\u00XX` escape, so the
 * reader sees that the text held one; Unicode bidi overrides (U+202A-U+202E, U+2066-U+2069)
 * are escaped the same way, since they reorder what a reviewer reads. Pure; idempotent (an
 * escape holds no control character).
 *
 * It lives in src/core (issue 41) so that src/config's diagnostics and src/render's output
 * use this one escaper (src/config may not import src/render: docs/architecture.md).
 */

const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g;
const HAS_CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;

const visible = (c: string): string => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`;

/** The text with every terminal control character (but newline and tab) made visible. */
export const stripControls = (text: string): string =>
  HAS_CONTROL.test(text) ? text.replace(CONTROL, visible) : text;
