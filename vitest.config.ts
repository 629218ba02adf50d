import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";
import { LongFirstSequencer } from "./test/helpers/long-first-sequencer.js";

export default defineConfig({
  // The product reaches the emulator only through `#emulator` (package.json "imports", built
  // to dist/emulator); tests run it from its sources, as they do the product.
  resolve: {
    alias: { "#emulator": fileURLToPath(new URL("./emulator/src/index.ts", import.meta.url)) },
  },
  test: {
    // A hang guard, not a bound: on the shared 2-core machine at load 30+ a file's CPU-bound
    // case (the 20,000-secret redactor, the golden dump, a spawned demo) took past 30 s, and
    // a timeout must not fail a correct run (issue 43). Performance is measured in bench/.
    testTimeout: 120_000,
    hookTimeout: 120_000,
    // Forks, not threads: the in-process runner changes the working folder, which threads
    // cannot. Four on two cores: many files wait (a lock's lease to lapse, a killed child
    // process, a CLI process or an emulator answering), and with one worker per core the
    // core sat idle while its file waited. Quiet 2-core VM, whole suite: 2 workers 48.3 s,
    // 3 workers 45.1 s, 4 workers 39.0-42.8 s (three runs), for the same ~75 s of CPU.
    pool: "forks",
    maxWorkers: 4,
    include: ["test/**/*.test.ts"],
    // Every file shares its worker's loaded modules, so the source tree is transformed and
    // imported once per worker instead of once per file (about a second a file on 2 cores).
    // That is safe because the code has no module-level state (conventions: no singletons),
    // the test helpers restore what they touch (spies, cwd, listeners), and no test replaces
    // a module (vi.mock), which would need a fresh module graph of its own.
    isolate: false,
    // The files that take longest start first, with or without Vitest's cache of durations
    // (test/helpers/long-first-sequencer.ts): a long file started last is the run's tail.
    sequence: { sequencer: LongFirstSequencer },
    // Vitest's main process transforms every source and test file for the workers (~6 s of
    // CPU a whole run, on the same two cores the tests need). Kept on disk
    // (node_modules/.experimental-vitest-cache), keyed by the file's content, the Vite config
    // and Vitest's version, a later run reads them back: ~2.5 s of CPU instead (issue 47).
    // The first run after a fresh install, or of a changed file, transforms as before;
    // `npx vitest --clearCache` empties it. The key also holds the text of the config files
    // (this one, or a `-c` file that imports it): an edit here makes every file cold once, and
    // so does each differently written experiment config, so A/B variants of this config
    // compare fairly only from one unchanged file that reads the variant from the environment. Tried once before (ec82191) and dropped after two
    // runs exited 1 with no failing test; with Vitest 4.1.12 every run since exited 0 (three
    // checked by exit status, ten more green): a run that exits 1 with no failing test, try
    // again without this line first.
    experimental: { fsModuleCache: true },
  },
});
