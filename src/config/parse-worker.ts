/**
 * The worker side of `parseFiles` (parse-workers.ts): parses with `yaml` the files it is given, one
 * at a time, and posts each result (the plain value, or the diagnostics) as it is done.
 * The position index is not sent (it is a function of the text, rebuilt on demand by the
 * main thread, yaml-doc.ts `positionsOf`).
 */
import { parentPort, workerData } from "node:worker_threads";
import { type ParseYamlOptions, parseYamlDocument } from "./yaml-doc.js";

export interface ParseJob {
  readonly index: number;
  readonly file: string;
  readonly text: string;
}

export type ParseAnswer =
  | { readonly index: number; readonly ok: true; readonly value: unknown }
  | { readonly index: number; readonly ok: false; readonly diagnostics: readonly unknown[] };

const { jobs, options } = workerData as {
  jobs: readonly ParseJob[];
  options: ParseYamlOptions;
};
for (const job of jobs) {
  const parsed = parseYamlDocument(job.file, job.text, options);
  const answer: ParseAnswer = parsed.ok
    ? { index: job.index, ok: true, value: parsed.value }
    : { index: job.index, ok: false, diagnostics: parsed.diagnostics };
  parentPort?.postMessage(answer);
}
