import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // Two cores: integration tests start emulators and spawn the CLI.
    pool: "forks",
    maxWorkers: 2,
  },
});
