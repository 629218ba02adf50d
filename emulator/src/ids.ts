import { createHash } from "node:crypto";

/**
 * Deterministic ids: a v5-style UUID (SHA-1 over a fixed namespace and the parts). Seeded rows
 * without an `id` and rows created at run time get ids that are the same on every run, so
 * tests and demos can be compared across runs.
 */
export const hashUuid = (...parts: readonly string[]): string => {
  const h = createHash("sha1")
    .update(`waybill-emulator\u0000${parts.join("\u0000")}`)
    .digest();
  h[6] = ((h[6] ?? 0) & 0x0f) | 0x50;
  h[8] = ((h[8] ?? 0) & 0x3f) | 0x80;
  const hex = h.subarray(0, 16).toString("hex");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`;
};

/** spec: api-v3.md "Envelopes" rule 1: ids are UUIDs. */
export const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export const isUuid = (v: string): boolean => UUID_RE.test(v);
