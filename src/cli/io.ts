import { createSystemClock } from "../api/clock.js";
import type { Clock } from "../api/types.js";

/**
 * The streams and environment a command runs with, injected so commands can be run
 * in-process by tests (conventions.md §7).
 */
export interface CliIO {
  readonly stdin: NodeJS.ReadableStream & { isTTY?: boolean };
  readonly stdout: NodeJS.WritableStream & { isTTY?: boolean };
  readonly stderr: NodeJS.WritableStream & { isTTY?: boolean };
  readonly env: Readonly<Record<string, string | undefined>>;
  /**
   * The time the waits a command chooses run on (the client's backoff and rate-limit pauses,
   * the org lock's polls and renewals, apply's settle before a re-list); the system clock
   * when absent (bin/waybill.js). Tests inject a faster one so a retry does not really
   * sleep (conventions.md §8). Network timeouts stay real timers (src/api/send.ts).
   */
  readonly clock?: Clock;
  /**
   * Tests only (in-process runs): the most pages the client reads from one collection, so a
   * test of an endless cursor need not read the product's 1,000 (src/api/pagination.ts
   * MAX_PAGES). bin/waybill.js never sets it: the CLI always reads up to MAX_PAGES.
   */
  readonly maxPages?: number;
  /**
   * Off a terminal, inside `withHeartbeat` (heartbeat.ts): where a command says what it is
   * doing, for the line a quiet interval prints. Absent on a terminal.
   */
  readonly heartbeat?: Heartbeat;
}

/** What the run is doing now, for the next quiet interval's line (read when it is due). */
export type RunStatus = () => string;

/** The part of a heartbeat the commands see (CliIO.heartbeat). */
export interface Heartbeat {
  /** Say what the run does from now on. */
  readonly doing: (status: RunStatus) => void;
}

/** The clock a command's waits run on: the injected one, else the system clock. */
export const clockOf = (io: CliIO): Clock => io.clock ?? createSystemClock();

export const write = (stream: NodeJS.WritableStream, text: string): void => {
  stream.write(text);
};

/** Bytes gathered before one write: large enough that a long plan is not a write per line. */
const CHUNK_CHARS = 64 * 1024;

/** Until the stream wants more (`drain`), or is gone (`close`): a closed pipe never drains. */
const drained = (stream: NodeJS.WritableStream): Promise<void> =>
  new Promise<void>((resolve, reject) => {
    const done = (): void => {
      cleanup();
      resolve();
    };
    const failed = (err: unknown): void => {
      cleanup();
      reject(err);
    };
    const cleanup = (): void => {
      stream.off("drain", done);
      stream.off("close", done);
      stream.off("error", failed);
    };
    stream.on("drain", done);
    stream.on("close", done);
    stream.on("error", failed);
  });

/**
 * Write text pieces (a renderer's lines with their newlines) in chunks of about 64 KiB,
 * waiting for `drain` whenever the stream's buffer is full (issue 22: a plan of 2,000
 * projects is ~125,000 lines; it is never held as one array of lines, and never queued
 * in the stream faster than the reader takes it).
 */
export const writeChunks = async (
  stream: NodeJS.WritableStream,
  pieces: Iterable<string>,
): Promise<void> => {
  let chunk = "";
  for (const piece of pieces) {
    chunk += piece;
    if (chunk.length >= CHUNK_CHARS) {
      const ok = stream.write(chunk);
      chunk = "";
      if (!ok) await drained(stream);
    }
  }
  if (chunk !== "" && !stream.write(chunk)) await drained(stream);
};

/** Each line followed by a newline, lazily. */
export function* withNewlines(lines: Iterable<string>): Generator<string> {
  for (const line of lines) yield `${line}\n`;
}
