/**
 * Every kind in the registry (src/kinds/registry.ts) has its own focused unit test,
 * `test/unit/kind-<type in kebab case>.test.ts` (issue 31 housekeeping), so a new kind
 * cannot land without one: adding a kind to the registry fails this test until its file
 * exists. Kinds that share one file are listed in SHARED_TEST_FILES, with why.
 */
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { KINDS } from "../../src/kinds/registry.js";
import type { ResourceType } from "../../src/model/address.js";

/**
 * Kinds whose tests live in a file named for their family rather than for the kind. Keep it
 * short: a new kind gets its own file, not an entry here.
 */
const SHARED_TEST_FILES: Partial<Record<ResourceType, { file: string; why: string }>> = {
  org_settings: {
    file: "kind-settings",
    why: "org and project settings share src/kinds/settings-common.ts and one test file",
  },
  project_settings: {
    file: "kind-settings",
    why: "org and project settings share src/kinds/settings-common.ts and one test file",
  },
};

const kebab = (type: string): string => type.replaceAll("_", "-");
const testFileOf = (type: ResourceType): string =>
  `test/unit/${SHARED_TEST_FILES[type]?.file ?? `kind-${kebab(type)}`}.test.ts`;

describe("each kind has its unit test", () => {
  it.each(Object.keys(KINDS) as ResourceType[])("%s", (type) => {
    const file = testFileOf(type);
    const path = fileURLToPath(new URL(`../../${file}`, import.meta.url));
    expect(existsSync(path), `${type} has no ${file}`).toBe(true);
  });

  it("the shared-file table names registered kinds only", () => {
    for (const type of Object.keys(SHARED_TEST_FILES)) expect(Object.keys(KINDS)).toContain(type);
  });

  it("maps a type to its file name", () => {
    expect(testFileOf("context_env_var")).toBe("test/unit/kind-context-env-var.test.ts");
    expect(testFileOf("org_settings")).toBe("test/unit/kind-settings.test.ts");
  });
});
