/**
 * The service emulator (issue 2 §3; docs/emulator.md). A real HTTP server on 127.0.0.1 that
 * implements the V3 and V2 routes Waybill uses, seeded from JSON, with an optional admin API
 * and reproducible fault injection. Shares only wire types with the rest of src.
 */
import { type EmulatorOptions, type RunningEmulator, startServer } from "./server.js";

export type { RequestLogEntry } from "./admin.js";
export { EmulatorHttpError, SeedError } from "./errors.js";
export { parseFaultOptions } from "./faults.js";
export type { ScriptEntry } from "./script.js";
export type { FaultOptions, Seed } from "./seed.js";
export { DEFAULT_SEED, type EmulatorOptions, type RunningEmulator } from "./server.js";

/**
 * Start an emulator. `url` is the service root (`http://127.0.0.1:PORT`); clients add
 * `/api/v3` and `/api/v2`. `close()` destroys keep-alive sockets, so it never hangs.
 * Rejects with a SeedError when the seed is invalid.
 */
export async function startEmulator(opts: EmulatorOptions = {}): Promise<RunningEmulator> {
  return startServer(opts);
}
