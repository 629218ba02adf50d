import { defineConfig } from "vitest/config";

/**
 * Files that replace a module with vi.mock: they need a fresh module graph of their own.
 * Every other file shares its worker's loaded modules (isolate: false), so the source tree
 * is transformed and imported once per worker instead of once per file (about a second a
 * file on 2 cores). That is safe because the code has no module-level state (conventions:
 * no singletons) and the test helpers restore what they touch (spies, cwd, listeners).
 */
const OWN_MODULES = ["test/integration/config-lazy-positions.test.ts"];

export default defineConfig({
  test: {
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // Two cores: integration tests start emulators and run the CLI in-process (forks, not
    // threads: the in-process runner changes the working folder, which threads cannot).
    pool: "forks",
    maxWorkers: 2,
    projects: [
      {
        extends: true,
        test: {
          name: "shared",
          include: ["test/**/*.test.ts"],
          exclude: OWN_MODULES,
          isolate: false,
        },
      },
      { extends: true, test: { name: "isolated", include: OWN_MODULES } },
    ],
  },
});
