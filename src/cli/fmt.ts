/**
 * `waybill fmt [PATH…] [--check]` (issue 32, design.md §4): one canonical layout for config
 * files (src/pull/fmt.ts), comments kept. Offline. `--check` writes nothing, lists the files
 * that would change and exits 1 when there are some (for CI).
 */
import { readdir, readFile, stat, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { readConfigSchema } from "../config/schema-check.js";
import { UsageError } from "../core/errors.js";
import { EXIT } from "./exit-codes.js";
import type { CliIO } from "./io.js";
import type { RegisterCommand } from "./register-command.js";

const EXAMPLES = `
Examples:
  # Rewrite every *.yaml / *.yml file of the folder (sub-folders too)
  $ waybill fmt infra/

  # CI: list the files that are not formatted, and exit 1 if there are some
  $ waybill fmt infra/
  $ waybill fmt --check infra/

Exit codes: 0 formatted (or already so), 1 --check found files to format, or an error.
`;

const yamlFiles = async (path: string): Promise<string[]> => {
  const s = await stat(path).catch((err: unknown) => {
    throw new UsageError(`fmt: ${path}: ${(err as { code?: string }).code ?? "unreadable"}`);
  });
  if (!s.isDirectory()) return [path];
  const out: string[] = [];
  const entries = (await readdir(path, { withFileTypes: true })).sort((a, b) =>
    a.name < b.name ? -1 : a.name > b.name ? 1 : 0,
  );
  for (const e of entries) {
    const p = join(path, e.name);
    if (e.isDirectory()) out.push(...(await yamlFiles(p)));
    else if (/\.ya?ml$/i.test(e.name)) out.push(p);
  }
  return out;
};

export const registerFmt: RegisterCommand = (program, io, setExit) => {
  program
    .command("fmt")
    .argument("[path...]", "config files or folders (default ./waybill.yaml)")
    .description(
      "Rewrite config files in one canonical layout (indentation, key order by the schema, quoting only where YAML needs it), comments kept.",
    )
    .option("--check", "write nothing; list the files that would change and exit 1 if any")
    .addHelpText("after", EXAMPLES)
    .action(async (paths: string[], flags: { check?: boolean }) => {
      setExit(await fmtCommand(paths.length > 0 ? paths : ["./waybill.yaml"], flags, io));
    });
};

const fmtCommand = async (
  paths: readonly string[],
  flags: { check?: boolean },
  io: CliIO,
): Promise<number> => {
  // Loaded here, not at the top: other commands never pay for it (issue 8).
  const { FormatError, formatYaml } = await import("../pull/fmt.js");
  const schema = readConfigSchema();
  const files = (await Promise.all(paths.map(yamlFiles))).flat();
  const changed: string[] = [];
  let failed = false;
  for (const file of files) {
    const text = await readFile(file, "utf8");
    let out: string;
    try {
      out = formatYaml(text, schema);
    } catch (err) {
      if (!(err instanceof FormatError)) throw err;
      io.stderr.write(`${file}: ${err.message}\n`);
      failed = true;
      continue;
    }
    if (out === text) continue;
    changed.push(file);
    if (!flags.check) await writeFile(file, out, "utf8");
  }
  if (flags.check) {
    for (const f of changed) io.stdout.write(`${f}\n`);
    if (changed.length > 0) {
      io.stderr.write(
        `${changed.length} file${changed.length === 1 ? " is" : "s are"} not formatted; run waybill fmt\n`,
      );
    }
    return failed || changed.length > 0 ? EXIT.error : EXIT.ok;
  }
  for (const f of changed) io.stderr.write(`Formatted ${f}\n`);
  return failed ? EXIT.error : EXIT.ok;
};
