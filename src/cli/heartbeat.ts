/**
 * Issue 46: off a terminal (a CI log) a long run must never go quiet. `plan`, `drift`,
 * `apply` (and `export`, `pull`, which read the same way) run inside `withHeartbeat`: when
 * nothing was written to stderr for 0.4 of the interval, a line says what the run is doing
 * (`Reading live state: 1,204 of ~12,000 reads done (35 s)`); it looks every tenth of the
 * interval, so two stderr lines are never more than half of it apart while the event loop
 * runs on time, and under the interval (10 s by default) with the other half to spare for
 * a busy machine (a CI runner shared with a build). On a terminal the rewritten `\r` progress line stays as it was.
 *
 * `WAYBILL_PROGRESS_INTERVAL_MS` (undocumented, for tests) sets the interval (50 ms to
 * 10 min); any other value is ignored. The lines hold counts, org slugs and seconds only:
 * no address, value or URL reaches them.
 */
import type { CliIO, Heartbeat, RunStatus } from "./io.js";

/** The default interval: the longest silence the issue allows in a CI log. */
export const DEFAULT_PROGRESS_INTERVAL_MS = 10_000;

export const progressIntervalOf = (env: Readonly<Record<string, string | undefined>>): number => {
  const raw = env.WAYBILL_PROGRESS_INTERVAL_MS;
  const n = raw === undefined || !/^\d+$/.test(raw.trim()) ? Number.NaN : Number(raw);
  return Number.isFinite(n) && n >= 50 && n <= 600_000 ? n : DEFAULT_PROGRESS_INTERVAL_MS;
};

/** 1204 → "1,204" (a CI log is read by people). */
export const count = (n: number): string => n.toLocaleString("en-US");

/**
 * A stream whose `write`s note the time, so the heartbeat speaks only into silence. Every
 * other member is the stream's own (bound to it: events, `isTTY`, `writableLength`).
 */
const noticingWrites = (stream: CliIO["stderr"], noted: () => void): CliIO["stderr"] => {
  const write: (...args: unknown[]) => unknown = (...args) => {
    noted();
    return Reflect.apply(stream.write, stream, args);
  };
  return new Proxy(stream, {
    get: (target, prop) => {
      if (prop === "write") return write;
      const value: unknown = Reflect.get(target, prop, target);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
};

/**
 * Run `command` with a heartbeat on stderr when stderr is not a terminal. The timer is
 * `unref`ed and stopped when the command ends, so it never holds the process open.
 */
export const withHeartbeat = async (
  io: CliIO,
  command: (io: CliIO) => Promise<number>,
  now: () => number = Date.now,
): Promise<number> => {
  if (io.stderr.isTTY === true) return command(io);
  const intervalMs = progressIntervalOf(io.env);
  const started = now();
  let lastLine = started;
  let status: RunStatus = () => "Working";
  const stderr = noticingWrites(io.stderr, () => {
    lastLine = now();
  });
  const timer = setInterval(
    () => {
      const at = now();
      if (at - lastLine < intervalMs * 0.4) return;
      stderr.write(`${status()} (${Math.round((at - started) / 1000)} s)\n`);
    },
    Math.max(5, Math.floor(intervalMs / 10)),
  );
  timer.unref();
  const heartbeat: Heartbeat = {
    doing: (next) => {
      status = next;
    },
  };
  try {
    return await command({ ...io, stderr, heartbeat });
  } finally {
    clearInterval(timer);
  }
};
