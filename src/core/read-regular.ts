/**
 * Read a file that must be a regular file, with a size bound (issue 21 "Hangs"): a FIFO
 * given as `--token-file` or as a plan file blocked forever on open, and
 * `/proc/self/pagemap` (a "regular" file whose stat size is 0 and whose content is
 * gigabytes) was read to the end. The file is opened without blocking (a FIFO with no writer
 * would block the open itself), its type is checked on the open descriptor (no window
 * between the check and the read), and at most `maxBytes` plus one chunk is read whatever the
 * size it claims.
 */
import { closeSync, constants, fstatSync, openSync, readSync } from "node:fs";

export type RegularRead =
  | { readonly ok: true; readonly bytes: Buffer }
  | {
      readonly ok: false;
      /** `not_regular`: a folder, FIFO, socket or device; `too_large`: over `maxBytes`. */
      readonly code: "not_regular" | "too_large" | "unreadable";
      /** A clause about the file ("it is a FIFO, not a regular file"), never its content. */
      readonly reason: string;
      /** The errno code, for `unreadable`. */
      readonly errno?: string;
      /** The size, for `too_large` when the file states it. */
      readonly size?: number;
    };

const kindOf = (st: ReturnType<typeof fstatSync>): string =>
  st.isFIFO()
    ? "a FIFO (named pipe)"
    : st.isSocket()
      ? "a socket"
      : st.isCharacterDevice() || st.isBlockDevice()
        ? "a device"
        : "not a regular file";

const CHUNK = 64 * 1024;

export const readRegularFile = (path: string, maxBytes: number): RegularRead => {
  let fd: number;
  try {
    // O_NONBLOCK: opening a FIFO for reading must not wait for a writer.
    fd = openSync(
      path,
      constants.O_RDONLY | (constants.O_NONBLOCK ?? 0) | (constants.O_NOCTTY ?? 0),
    );
  } catch (err) {
    const errno = (err as { code?: string }).code ?? "unreadable";
    if (errno === "EISDIR") {
      return { ok: false, code: "not_regular", reason: "it is a folder, not a file" };
    }
    return { ok: false, code: "unreadable", reason: errno, errno };
  }
  try {
    const st = fstatSync(fd);
    if (st.isDirectory()) {
      return { ok: false, code: "not_regular", reason: "it is a folder, not a file" };
    }
    if (!st.isFile()) {
      const kind = kindOf(st);
      return {
        ok: false,
        code: "not_regular",
        reason: `it is ${kind}${kind.startsWith("not") ? "" : ", not a regular file"}`,
      };
    }
    if (st.size > maxBytes) {
      return { ok: false, code: "too_large", reason: `it is ${st.size} bytes`, size: st.size };
    }
    // The stat size is not trusted (`/proc` files say 0): read until EOF or one byte over.
    const chunks: Buffer[] = [];
    let total = 0;
    for (;;) {
      // Whole chunks: some /proc files refuse reads of odd sizes (pagemap: multiples of 8).
      const buf = Buffer.allocUnsafe(CHUNK);
      const n = readSync(fd, buf, 0, buf.length, null);
      if (n === 0) break;
      chunks.push(buf.subarray(0, n));
      total += n;
      if (total > maxBytes) {
        return { ok: false, code: "too_large", reason: `it is over ${maxBytes} bytes` };
      }
    }
    return { ok: true, bytes: Buffer.concat(chunks, total) };
  } catch (err) {
    const errno = (err as { code?: string }).code ?? "unreadable";
    return { ok: false, code: "unreadable", reason: errno, errno };
  } finally {
    closeSync(fd);
  }
};
