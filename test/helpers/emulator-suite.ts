/**
 * The set-up most CLI integration suites share: one emulator for the `describe` block, a
 * temp folder holding its config files, and a fresh seed and request log before each test.
 * Call it at the top of a `describe`; read `suite.emulator`, `suite.tmp` and
 * `suite.files.NAME` inside tests (they are set once `beforeAll` has run).
 */
import { afterAll, beforeAll, beforeEach } from "vitest";
import type { Seed } from "../../emulator/src/seed.js";
import { makeTempDir, type TempDir } from "./cli.js";
import { startTestEmulator, type TestEmulator } from "./emulator.js";
import { type InProcessResult, runInProcess } from "./in-process.js";

export interface EmulatorSuite<F extends string> {
  readonly emulator: TestEmulator;
  readonly tmp: TempDir;
  /** Absolute paths of the files written before the suite, by the names given. */
  readonly files: Readonly<Record<F, string>>;
  /**
   * The CLI in this process against the suite's emulator (its URL and token, NO_COLOR), with
   * `env` added (the values of `${env:…}` references).
   */
  run(args: readonly string[], env?: Readonly<Record<string, string>>): Promise<InProcessResult>;
}

export const useEmulatorSuite = <F extends string>(
  seed: () => Seed,
  files: Readonly<Record<F, { readonly name: string; readonly content: string }>>,
): EmulatorSuite<F> => {
  let emulator: TestEmulator | undefined;
  let tmp: TempDir | undefined;
  const paths = {} as Record<F, string>;
  beforeAll(async () => {
    emulator = await startTestEmulator(seed());
    tmp = await makeTempDir();
    for (const [key, file] of Object.entries(files) as [F, { name: string; content: string }][]) {
      paths[key] = await tmp.write(file.name, file.content);
    }
  });
  afterAll(async () => {
    await emulator?.close();
    await tmp?.remove();
  });
  beforeEach(async () => {
    await emulator?.reset(seed());
    await emulator?.clearRequests();
  });
  const started = <T>(value: T | undefined): T => {
    if (value === undefined) throw new Error("useEmulatorSuite: read inside a test, not at import");
    return value;
  };
  return {
    get emulator() {
      return started(emulator);
    },
    get tmp() {
      return started(tmp);
    },
    files: paths,
    run: (args, env = {}) =>
      runInProcess(args, {
        SERVICE_BASE_URL: started(emulator).url,
        SERVICE_TOKEN: started(emulator).token,
        NO_COLOR: "1",
        ...env,
      }),
  };
};
