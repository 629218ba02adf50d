/**
 * docs/adding-a-kind.md's promise, checked the long way (a few minutes: not part of the
 * suite, whose test/unit/adding-a-kind-doc.test.ts checks it statically): in a scratch copy
 * of the committed tree (`git archive HEAD`), the test-only runner class kind
 * (test/helpers/runner-class-kind.ts) and its emulator family (runner-class-family.ts) are
 * registered as a product kind the way the doc says, with an item in examples/full.yaml; the
 * copy is built, type-checked and tested. It prints the files the kind touched and the tests
 * that failed, and exits 1 unless the kind took at most six product files and no test
 * failed but those the doc names: the kind's own unit test (not written here), the
 * docs/spec-notes.md heading of the spec section it cites, and the fixture's own test (which
 * asserts the fixture is in no registry).
 *
 *   node scripts/probe-new-kind.js [--keep]    (--keep: leave the copy, and say where)
 */
import { execFileSync, spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const EXPECTED_FAILURES = [
  "test/unit/kind-unit-tests.test.ts",
  "test/unit/docs-spec-notes.test.ts",
  "test/integration/kind-fixture-runner-class.test.ts",
];

const dir = mkdtempSync(join(tmpdir(), "waybill-new-kind-"));
const at = (path) => join(dir, path);
const edit = (path, change) => {
  const before = readFileSync(at(path), "utf8");
  const after = change(before);
  if (after === before) throw new Error(`${path}: the edit found nothing to change`);
  writeFileSync(at(path), after);
};
const run = (cmd, args) => spawnSync(cmd, args, { cwd: dir, encoding: "utf8", maxBuffer: 1 << 28 });
const git = (...args) => execFileSync("git", args, { cwd: dir, encoding: "utf8" });

try {
  execFileSync("sh", ["-c", `git -C "${ROOT}" archive HEAD | tar -x -C "${dir}"`]);
  symlinkSync(join(ROOT, "node_modules"), at("node_modules"));
  git("init", "-q");
  git("add", "-A");
  git("-c", "user.name=probe", "-c", "user.email=probe@localhost", "commit", "-qm", "base");

  // 1, 5: the kind's module and its family's, their imports moved to where they now live.
  const kind = readFileSync(at("test/helpers/runner-class-kind.ts"), "utf8")
    .replaceAll('"../../src/kinds/', '"./')
    .replaceAll('"../../src/', '"../');
  writeFileSync(at("src/kinds/runner-class.ts"), kind);
  const family = readFileSync(at("test/helpers/runner-class-family.ts"), "utf8")
    .replaceAll('"../../emulator/src/families/', '"./')
    .replaceAll('"../../emulator/src/', '"../');
  writeFileSync(at("emulator/src/families/runner-classes.ts"), family);
  // 2: one registry line, after the kind it names (contexts) and the org's other kinds.
  edit("src/kinds/registry.ts", (t) =>
    t
      .replace(
        'import type { ParentName, ResourceKind } from "./contract.js";\n',
        (m) => `${m}import { runnerClassKind } from "./runner-class.js";\n`,
      )
      .replace(/^( {2}otel_exporter: \w+,\n)/m, "$1  runner_resource_class: runnerClassKind,\n"),
  );
  // 3: the type.
  edit("src/model/address.ts", (t) =>
    t.replace(/^( {2}"otel_exporter",\n)/m, '$1  "runner_resource_class",\n'),
  );
  // 4: the config schema: the org's key and the item's $defs entry.
  edit("schemas/waybill.schema.json", (t) => {
    const schema = JSON.parse(t);
    const root = schema.$defs.root.properties;
    schema.$defs.root.properties = Object.fromEntries(
      Object.entries(root).flatMap(([key, value]) =>
        key === "projects"
          ? [
              [
                "runner_resource_classes",
                {
                  description: "Runner resource classes of the org, by name.",
                  type: "object",
                  propertyNames: { minLength: 1 },
                  additionalProperties: { $ref: "#/$defs/runnerResourceClass" },
                },
              ],
              [key, value],
            ]
          : [[key, value]],
      ),
    );
    schema.$defs.runnerResourceClass = {
      type: "object",
      additionalProperties: false,
      properties: {
        description: { description: "What the class is for.", type: "string" },
        context: { description: "A context, by name.", type: "string", minLength: 1 },
      },
    };
    return `${JSON.stringify(schema, null, 2)}\n`;
  });
  // 6: one family line, after the contexts it names.
  edit("emulator/src/families.ts", (t) =>
    t
      .replace(
        'import type { Family } from "./family.js";\n',
        (m) => `import { runnerClasses } from "./families/runner-classes.js";\n${m}`,
      )
      .replace(/^( {2}contexts,\n)/m, "$1  runnerClasses,\n"),
  );
  // Not a product file: the example that declares an item of every kind.
  edit("examples/full.yaml", (t) =>
    t.replace(
      "\n# Addresses Waybill never touches",
      "\n# Runner resource classes of the org, by name.\nrunner_resource_classes:\n  linux-large:\n    description: Large Linux runners\n    context: deploy-prod\n\n# Addresses Waybill never touches",
    ),
  );
  const regenerated = run("node", ["scripts/build-schema-validator.js"]);
  if (regenerated.status !== 0) throw new Error(regenerated.stderr);

  const touched = git("status", "--porcelain", "--untracked-files=all")
    .split("\n")
    .filter(Boolean)
    .map((line) => line.slice(3));
  const generated = ["src/generated/schema-validator.ts", "schemas/plan.schema.json"];
  const product = touched.filter(
    (f) => /^(src|emulator\/src|schemas)\//.test(f) && !generated.includes(f),
  );
  console.log(`product files touched (${product.length}):\n  ${product.join("\n  ")}`);
  console.log(`besides: ${touched.filter((f) => !product.includes(f)).join(", ")}`);

  const typecheck = run("npm", ["run", "--silent", "typecheck"]);
  const built = run("npm", ["run", "--silent", "build"]);
  if (typecheck.status !== 0 || built.status !== 0)
    throw new Error(
      `the copy does not compile:\n${typecheck.stdout}${built.stdout}${built.stderr}`,
    );
  const tests = run("npx", ["vitest", "run", "--reporter=json", "--outputFile=probe.json"]);
  const report = JSON.parse(readFileSync(at("probe.json"), "utf8"));
  const failed = report.testResults
    .filter((r) => r.status !== "passed")
    .map((r) => r.name.slice(dir.length + 1));
  const unexpected = failed.filter((f) => !EXPECTED_FAILURES.includes(f));
  console.log(`tests failed (${failed.length}): ${failed.join(", ") || "none"}`);
  if (product.length > 6 || unexpected.length > 0 || tests.error) {
    console.log(
      `NOT KEPT: ${product.length} product files (at most 6); tests outside the kind's own that failed: ${unexpected.join(", ") || "none"}`,
    );
    process.exitCode = 1;
  } else {
    console.log("kept: at most six product files, and no test outside the kind's own failed");
  }
} finally {
  if (process.argv.includes("--keep")) console.log(`the copy: ${dir}`);
  else rmSync(dir, { recursive: true, force: true });
}
