/**
 * Parse a large config's files in worker threads (issue 33).
 *
 * Why: `yaml` builds a document of node objects for every file before its plain value; for
 * the 40,000-item config of bench/README.md that is ~2.5 s of CPU and a heap the main
 * thread then keeps at its high-water mark for the whole run (V8 rarely gives heap back).
 * Parsed in workers, the files are read side by side (one worker per core), the documents
 * live and die in the workers' heaps (freed with them), and the main thread receives only
 * the plain values.
 *
 * When: files the plain-subset reader declines (yaml-plain.ts) that add up to at least
 * PARSE_IN_WORKERS_BYTES, and only where the worker's module exists next to this one (the
 * built package: not the single-file bundle, not the test runner's sources), else in this
 * thread. Either way the results are the same values and diagnostics (yaml-doc.ts
 * `parseYamlDocument` runs in both); only the position index is rebuilt here, on demand
 * (`positionsOf`).
 */
import { existsSync } from "node:fs";
import { availableParallelism } from "node:os";
import { fileURLToPath } from "node:url";
import { Worker } from "node:worker_threads";
import type { ConfigDiagnostic } from "./diagnostic.js";
import type { ParseAnswer, ParseJob } from "./parse-worker.js";
import {
  type ParsedYaml,
  type ParseYamlOptions,
  parseYamlDocument,
  positionsOf,
  readPlainFile,
} from "./yaml-doc.js";

/**
 * Decision: 512 KiB. Below it the whole parse takes a few hundred milliseconds, about what
 * starting two workers (each loading `yaml`) costs.
 */
export const PARSE_IN_WORKERS_BYTES = 512 * 1024;

// The single-file bundle has no module to start a worker from: scripts/release.js rewrites
// this to `undefined`, and the bundle parses in its one thread.
const WORKER_URL: URL | undefined = new URL("./parse-worker.js", import.meta.url);

export interface FileText {
  readonly file: string;
  readonly text: string;
}

/**
 * Each file parsed (in workers when it pays), results in the files' order.
 *
 * A file in the plain subset of YAML (yaml-plain.ts, nearly every config) is read here at
 * once: that is faster than handing its text to a worker. Only the files the subset
 * declines go to `yaml`, in workers when they add up to `minChars`.
 */
export const parseFiles = async (
  files: readonly FileText[],
  options: ParseYamlOptions = {},
  /** From how many characters in all the workers are used (tests lower it). */
  minChars: number = PARSE_IN_WORKERS_BYTES,
): Promise<ParsedYaml[]> => {
  const results: ParsedYaml[] = new Array(files.length);
  const rest: (FileText & { index: number })[] = [];
  files.forEach((f, index) => {
    const plain = readPlainFile(f.file, f.text);
    if (plain === undefined) rest.push({ ...f, index });
    else results[index] = plain;
  });
  const chars = rest.reduce((n, f) => n + f.text.length, 0);
  const url = rest.length === 0 || chars < minChars ? undefined : workerModule();
  if (url === undefined) {
    for (const f of rest) results[f.index] = parseYamlDocument(f.file, f.text, options);
    return results;
  }
  // Largest first, each to the least loaded worker: the workers finish close together.
  const workers = Math.min(rest.length, Math.max(1, availableParallelism()));
  const loads = Array.from({ length: workers }, () => ({ bytes: 0, jobs: [] as ParseJob[] }));
  rest.sort((a, b) => b.text.length - a.text.length);
  for (const job of rest) {
    const least = loads.reduce((a, b) => (b.bytes < a.bytes ? b : a));
    least.bytes += job.text.length;
    least.jobs.push(job);
  }
  await Promise.all(
    loads
      .filter((l) => l.jobs.length > 0)
      .map((l) => runWorker(url, l.jobs, options, files, results)),
  );
  return results;
};

/** The worker's module, when it is next to this one (the built package). */
const workerModule = (): URL | undefined => {
  try {
    return WORKER_URL !== undefined && existsSync(fileURLToPath(WORKER_URL))
      ? WORKER_URL
      : undefined;
  } catch {
    return undefined;
  }
};

/** Whether a large config is parsed in workers here. */
export const workerAvailable = (): boolean => workerModule() !== undefined;

const runWorker = (
  url: URL,
  jobs: readonly ParseJob[],
  options: ParseYamlOptions,
  files: readonly FileText[],
  results: ParsedYaml[],
): Promise<void> =>
  new Promise((resolve) => {
    const worker = new Worker(url, {
      workerData: { jobs, options },
      // Decision: small heaps, collected often: the workers' heaps add to the process's peak
      // RSS while they run (bench/README.md). A file is at most 1 MiB (its document well under
      // this); a worker that still runs out is replaced by this thread (below).
      resourceLimits: { maxOldGenerationSizeMb: 96, maxYoungGenerationSizeMb: 8 },
    });
    worker.on("message", (answer: ParseAnswer) => {
      const f = files[answer.index] as FileText;
      results[answer.index] = answer.ok
        ? { ok: true, value: answer.value, positions: positionsOf(f.file, f.text) }
        : { ok: false, diagnostics: answer.diagnostics as ConfigDiagnostic[] };
    });
    // A worker that fails (cannot start, out of memory, killed) exits: the files it had not
    // answered are parsed here, so the outcome is the same as without workers.
    worker.on("error", () => undefined);
    worker.on("exit", () => {
      for (const job of jobs) {
        if (results[job.index] === undefined) {
          results[job.index] = parseYamlDocument(job.file, job.text, options);
        }
      }
      resolve();
    });
  });
