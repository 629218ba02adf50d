/**
 * Every example in `waybill <command> --help` runs against a fresh emulator seeded from
 * examples/demo/seed.json, in a temp folder that has the files the examples name, and exits
 * with the code listed below. Every command must show two examples, and this table must
 * list exactly the examples the help shows: a new, changed or removed example fails here
 * until its expected exit code is written down.
 */
import { copyFile, readFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { startEmulator } from "../../emulator/src/index.js";
import { expectNoSecrets, makeTempDir, REPO_ROOT, runCli } from "../helpers/cli.js";
import {
  DEMO_SECRETS,
  DEMO_TOKEN,
  parseWaybillLine,
  prepareDocsDir,
  runWaybillLine,
  startCliEmulator,
} from "./docs-shell.js";

/** Example block (its `$` lines, joined by newlines) -> the exit code of each line. */
const EXPECTED: Readonly<Record<string, readonly number[]>> = {
  "waybill validate": [0],
  "waybill validate -c config/ --format github": [0],
  // The demo config differs from the seed, so there are changes.
  "SERVICE_TOKEN=... waybill plan -c infra/waybill.yaml --detailed-exitcode": [2],
  "waybill plan --target 'project[\"gh/acme/api\"]*' --format markdown --skip-secrets": [0],
  "SERVICE_TOKEN=... waybill apply -c infra/waybill.yaml --auto-approve --lock-timeout 10m": [0],
  "waybill plan -c infra/waybill.yaml --out plan.json\nwaybill apply -c infra/waybill.yaml plan.json":
    [0, 0],
  "SERVICE_TOKEN=... waybill drift -c infra/": [2],
  "waybill drift -c infra/ --write-baseline drift-baseline.json\nwaybill drift -c infra/ --baseline drift-baseline.json --format slack":
    [2, 0],
  // The demo config differs from the seed: pull has something to write.
  "waybill pull --dry-run -c infra/waybill.yaml": [0],
  'waybill pull \'project["gh/acme/api"].webhook["*"]\' -c infra/waybill.yaml': [0],
  "waybill fmt infra/": [0],
  "waybill fmt infra/\nwaybill fmt --check infra/": [0, 0],
  "SERVICE_TOKEN=... waybill export --org gh/acme --project gh/acme/api > waybill.yaml": [0],
  "waybill export --org gh/acme --all-projects -o infra/waybill/\nwaybill plan -c infra/waybill/ --skip-secrets --detailed-exitcode":
    [0, 0],
  // A saved plan, rendered again without a token (show needs none: it reads only the file).
  "waybill plan -c infra/waybill.yaml --out plan.json\nwaybill show plan.json": [0, 0],
  "waybill plan -c infra/waybill.yaml --out plan.json\nwaybill show plan.json --format markdown > plan.md":
    [0, 0],
  "waybill schema > waybill.schema.json": [0],
  "waybill schema plan": [0],
  "waybill completion bash > waybill.bash": [0],
  "waybill completion zsh > _waybill": [0],
  "waybill version": [0],
  "waybill version --format json": [0],
  "waybill force-unlock --org gh/acme": [0],
  "waybill force-unlock --all -c infra/waybill.yaml": [0],
  // `waybill --help`
  "waybill validate -c infra/waybill.yaml\nwaybill plan -c infra/waybill.yaml --detailed-exitcode":
    [0, 2],
  "waybill export --org gh/acme --all-projects -o infra/waybill/": [0],
  // Emulator examples run until stopped: they must start, serve the seed and stop with 0.
  "waybill emulator --seed examples/demo/seed.json --port 8787": [0],
  "waybill emulator --seed seed.json --admin --latency 50 --faults faults.json": [0],
};

/** The example blocks of a help text: runs of `  $ ...` lines. */
const exampleBlocks = (help: string): string[] => {
  const blocks: string[][] = [];
  let current: string[] | undefined;
  for (const line of help.split("\n")) {
    const m = /^\s+\$ (.*)$/.exec(line);
    if (m?.[1] !== undefined) {
      if (!current) {
        current = [];
        blocks.push(current);
      }
      current.push(m[1].replace(/\s+#.*$/, "").trim());
    } else {
      current = undefined;
    }
  }
  return blocks.map((b) => b.join("\n"));
};

const commandNames = (rootHelp: string): string[] => {
  const section = rootHelp.split(/^Commands:$/m)[1] ?? "";
  return [...section.matchAll(/^ {2}([a-z][a-z-]*)\b/gm)]
    .map((m) => m[1] ?? "")
    .filter((name) => name !== "help");
};

const seedText = await readFile(join(REPO_ROOT, "examples", "demo", "seed.json"), "utf8");

/** A temp folder with every file the examples name, and the repository's examples/. */
const exampleDir = async () => {
  const tmp = await makeTempDir("waybill-docs-help-");
  await prepareDocsDir(tmp.dir);
  const demoConfig = join(REPO_ROOT, "examples", "demo", "waybill.yaml");
  await copyFile(demoConfig, tmp.path("waybill.yaml"));
  await tmp.write("config/waybill.yaml", await readFile(demoConfig, "utf8"));
  await tmp.write("infra/waybill.yaml", await readFile(demoConfig, "utf8"));
  await tmp.write("seed.json", seedText);
  await tmp.write("faults.json", JSON.stringify({ seed: 1 }));
  return tmp;
};

describe("--help examples", async () => {
  const root = await runCli(["--help"]);
  const commands = commandNames(root.stdout);
  const helps = new Map<string, string>();
  for (const name of commands) helps.set(name, (await runCli([name, "--help"])).stdout);
  const allBlocks = [root.stdout, ...helps.values()].flatMap(exampleBlocks);

  it("every command, and waybill itself, has a description and two examples", () => {
    expect(exampleBlocks(root.stdout).length).toBe(2);
    expect(commands).toEqual([
      "validate",
      "plan",
      "apply",
      "drift",
      "export",
      "pull",
      "fmt",
      "force-unlock",
      "emulator",
      "show",
      "schema",
      "completion",
      "version",
    ]);
    for (const [name, help] of helps) {
      expect(help, name).toMatch(new RegExp(`^Usage: waybill ${name} `, "m"));
      expect(exampleBlocks(help).length, name).toBe(2);
    }
  });

  it("the table of expected exit codes matches the examples exactly", () => {
    expect(allBlocks.sort()).toEqual(Object.keys(EXPECTED).sort());
  });

  for (const block of allBlocks) {
    it(`runs: ${block.replace(/\n/g, " && ")}`, async () => {
      const tmp = await exampleDir();
      const emulator = await startEmulator({ seed: JSON.parse(seedText) });
      const outputs: Record<string, string> = {};
      try {
        const lines = block.split("\n");
        const expected = EXPECTED[block] ?? [];
        expect(expected.length).toBe(lines.length);
        for (const [i, line] of lines.entries()) {
          const cmd = parseWaybillLine(line, {});
          if (!cmd) throw new Error(`not a waybill command: ${line}`);
          if (cmd.args[0] === "emulator") {
            const emu = await startCliEmulator(cmd.args, tmp.dir);
            const res = await fetch(`${emu.url}/api/v3/orgs`, {
              headers: { authorization: `Bearer ${DEMO_TOKEN}` },
            });
            expect(res.status).toBe(200);
            expect(await emu.stop()).toBe(expected[i]);
            continue;
          }
          const result = await runWaybillLine(cmd, {
            cwd: tmp.dir,
            baseUrl: emulator.url,
            env: DEMO_SECRETS,
          });
          outputs[`${line} (stdout)`] = result.stdout;
          outputs[`${line} (stderr)`] = result.stderr;
          expect(result.code, `${line}\n${result.stderr}`).toBe(expected[i]);
        }
        expectNoSecrets(outputs, Object.values(DEMO_SECRETS));
      } finally {
        await emulator.close();
        await tmp.remove();
      }
    });
  }
});
