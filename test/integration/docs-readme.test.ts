/**
 * Every command in README.md's fenced `sh` blocks runs, in order, against the emulator the
 * README itself starts (`node bin/waybill.js emulator --seed examples/demo/seed.json ...`), and
 * exits with the code written next to it (`# exit N`; no comment means 0). The two
 * install/test commands are the only lines not run here: `npm run demo` is run by
 * docs-demo.test.ts, and `npm test` is this suite.
 */
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { expectNoSecrets, makeTempDir, REPO_ROOT, type TempDir } from "../helpers/cli.js";
import {
  type CliEmulator,
  DEMO_SECRETS,
  parseWaybillLine,
  prepareDocsDir,
  runWaybillLine,
  shBlockLines,
  splitComment,
  startCliEmulator,
  tokenize,
} from "./docs-shell.js";

/** Lines the README shows that this test deliberately does not run (see the file comment). */
const NOT_RUN_HERE = ["npm ci && npm run demo", "npm test"];

describe("README.md", () => {
  let tmp: TempDir;
  let readme: string;
  beforeAll(async () => {
    readme = await readFile(join(REPO_ROOT, "README.md"), "utf8");
    tmp = await makeTempDir("waybill-docs-readme-");
    await prepareDocsDir(tmp.dir);
  });
  afterAll(async () => {
    await tmp?.remove();
  });

  it("names the two commands of a fresh clone exactly", () => {
    expect(readme).toContain("npm ci && npm run demo");
    expect(readme).toMatch(/^npm test\b/m);
  });

  it("links the schema and shows the yaml-language-server line", () => {
    expect(readme).toContain("schemas/waybill.schema.json");
    expect(readme).toContain("# yaml-language-server: $schema=./schemas/waybill.schema.json");
  });

  it("lists every command and exit code of design.md §1", () => {
    // Table rows as cells, so the formatter's column padding does not matter.
    const rows = new Map(
      readme
        .split("\n")
        .filter((l) => l.startsWith("| `waybill "))
        .map((l) => l.split("|").map((c) => c.trim()))
        .map((cells) => [cells[1], cells[3]] as const),
    );
    expect(rows.get("`waybill validate`")).toBe("0 valid, 1 invalid");
    expect(rows.get("`waybill plan`")).toBe(
      "0 (or 2 with `--detailed-exitcode` when there are changes), 1 error",
    );
    expect(rows.get("`waybill apply [PLANFILE]`")).toBe(
      "0 done, 1 error or partial failure, 3 stale plan, 4 blocked by a safety guard, 5 org locked by another run, 130 Ctrl-C, 143 SIGTERM",
    );
    expect(rows.get("`waybill force-unlock [RUN_ID]`")).toMatch(/^0, 1$/);
    expect(rows.get("`waybill drift`")).toBe(
      "0 none (with `--baseline`: none but known), 2 drift, 1 error",
    );
    expect(rows.get("`waybill export --org SLUG [--project SLUG]...`")).toBe("0, 1");
    expect(rows.get("`waybill emulator`")).toBe("runs until stopped");
  });

  it("runs every sh command against the emulator with the documented exit code", async () => {
    const vars: Record<string, string> = { PWD: tmp.dir, HOME: tmp.dir };
    let emulator: CliEmulator | undefined;
    const skipped: string[] = [];
    const ran: string[] = [];
    const outputs: Record<string, string> = {};
    try {
      for (const raw of shBlockLines(readme)) {
        const { code } = splitComment(raw.trim());
        if (code === "") continue;
        if (code.startsWith("npm ")) {
          skipped.push(code.replace(/\s+/g, " "));
          continue;
        }
        if (code.startsWith("export ")) {
          // SERVICE_BASE_URL / SERVICE_TOKEN are the test's (the emulator the README starts
          // and its demo token); other assignments are kept, as a shell would.
          for (const m of code.slice(7).matchAll(/([A-Za-z_]\w*)=("[^"]*"|'[^']*'|\S*)/g)) {
            const [, name, value] = m;
            if (!name || name.startsWith("SERVICE_")) continue;
            const words = tokenize(value ?? "", vars);
            vars[name] = words[0]?.text ?? "";
          }
          continue;
        }
        const cmd = parseWaybillLine(raw, vars);
        if (!cmd)
          throw new Error(`README sh line is neither a waybill command nor known setup: ${raw}`);
        if (cmd.args[0] === "emulator") {
          emulator = await startCliEmulator(cmd.args, tmp.dir);
          ran.push(raw);
          continue;
        }
        if (!emulator) throw new Error(`README runs ${raw} before it starts the emulator`);
        const env = Object.fromEntries(
          Object.entries(vars).filter(([k]) => k !== "PWD" && k !== "HOME"),
        );
        const result = await runWaybillLine(cmd, { cwd: tmp.dir, baseUrl: emulator.url, env });
        outputs[`${raw} (stdout)`] = result.stdout;
        outputs[`${raw} (stderr)`] = result.stderr;
        expect(result.code, `${raw}\n${result.stderr}`).toBe(cmd.expectedExit ?? 0);
        ran.push(raw);
      }
    } finally {
      const stopped = await emulator?.stop();
      expect(stopped).toBe(0);
    }
    expect(skipped).toEqual(NOT_RUN_HERE);
    // The tour's own commands: validate, plan (twice), apply, drift, export; then the
    // real-service section's export and plan.
    expect(ran.length).toBeGreaterThanOrEqual(9);
    // The files the README's commands write hold no secret either ("plan.json has no secret").
    for (const file of ["plan.json", "exported.yaml"]) {
      outputs[file] = await readFile(tmp.path(file), "utf8");
    }
    expectNoSecrets(outputs, Object.values(DEMO_SECRETS));
  });
});
