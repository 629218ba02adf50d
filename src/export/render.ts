/**
 * Config documents → YAML text, with the `yaml` package's Document API (stable key order,
 * quoting where needed, comments). Pure: the export time is passed in.
 */
import { Document, isScalar, isSeq } from "yaml";
import { type ExportFileDoc, type ExportResult, projectShortName } from "./build.js";

export interface ExportHeader {
  /** When the live state was read (from the caller's clock). */
  readonly exportedAt: Date;
  /** The service root it was read from. */
  readonly baseUrl: string;
}

export interface RenderedFile {
  /** File name inside the output folder (`org.yaml`, `project-api.yaml`), or `-` for one document. */
  readonly name: string;
  readonly content: string;
}

/**
 * The schema an exported file names: a path relative to the file, so an editor resolves it
 * offline. Decision (issue 30): export writes this file next to what it writes (-o DIR/ or
 * -o FILE); on stdout the header says how to write it (`waybill schema`).
 */
export const SCHEMA_FILE = "waybill.schema.json";

/**
 * Decision: user and password in the base URL are never written into a file (a URL such as
 * https://user:pass@host would otherwise put a credential into Git).
 */
export const displayBaseUrl = (baseUrl: string): string => {
  try {
    const u = new URL(baseUrl);
    u.username = "";
    u.password = "";
    return u.toString().replace(/\/+$/, "");
  } catch {
    return "(unparseable base URL)";
  }
};

const headerComment = (header: ExportHeader, org: string, what: string): string =>
  [
    ` yaml-language-server: $schema=./${SCHEMA_FILE}`,
    ` (the schema: \`waybill schema > ${SCHEMA_FILE}\` next to this file; export -o writes it)`,
    ` Exported by \`waybill export\` at ${header.exportedAt.toISOString()}`,
    ` from ${displayBaseUrl(header.baseUrl)}, org ${org}: ${what}.`,
    ` Secret values are never exported: they are read from the environment variables named in`,
    ` the \${env:…} placeholders (export lists them on stderr).`,
  ].join("\n");

const renderDocument = (
  body: Readonly<Record<string, unknown>>,
  entries: ExportFileDoc["ignore"],
  comment: string,
): string => {
  // design.md §5 "Reading the real service": an item Waybill cannot name is a comment, not
  // config: under `ignore` plan would stop listing it.
  const unknown = entries.filter((i) => i.commentOnly === true);
  const ignore = entries.filter((i) => i.commentOnly !== true);
  // A live value in a comment: one line, whatever it holds.
  const oneLine = (s: string): string => s.replace(/[\u0000-\u001f]/g, " ");
  const value = ignore.length > 0 ? { ...body, ignore: ignore.map((i) => i.glob) } : body;
  const doc = new Document(value);
  doc.commentBefore =
    unknown.length === 0
      ? comment
      : [
          comment,
          " Live items Waybill cannot name (plan and drift list them; nothing changes them):",
          ...unknown.map((u) => `   ${oneLine(u.glob)}: ${oneLine(u.reason)}`),
        ].join("\n");
  const seq = doc.get("ignore", true);
  if (isSeq(seq)) {
    seq.items.forEach((item, i) => {
      const reason = ignore[i]?.reason;
      if (isScalar(item) && reason !== undefined) item.commentBefore = ` not exported: ${reason}`;
    });
    seq.commentBefore = " Live items the config format cannot express; plan leaves them alone.";
  }
  // lineWidth 0: never fold a long value (an expression, a URL) over several lines.
  return escapeC1(doc.toString({ lineWidth: 0 }));
};

/**
 * Issue 30: the `yaml` package double-quotes a string holding DEL or a C1 control (U+009B is
 * a CSI to some terminals) but writes the character raw, so `cat` of an export of a live name
 * holding one would drive the terminal. Written as its `\u` escape inside those double
 * quotes, the value reads back the same (a comment that quotes the name shows the escape).
 */
const escapeC1 = (text: string): string =>
  text.replace(/[\u007f-\u009f]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);

/** Everything in one document (stdout, or `-o FILE`). */
export const renderSingle = (result: ExportResult, header: ExportHeader): string => {
  const projects: Record<string, unknown> = {};
  for (const p of result.projects) {
    Object.assign(projects, (p.body as { projects: Record<string, unknown> }).projects);
  }
  const body =
    result.projects.length > 0 ? { ...result.org.body, projects } : { ...result.org.body };
  const ignore = [...result.org.ignore, ...result.projects.flatMap((p) => p.ignore)];
  const what =
    result.projects.length === 0
      ? "org settings and contexts"
      : `org settings, contexts and ${result.projects.length} project${result.projects.length === 1 ? "" : "s"}`;
  return renderDocument(body, ignore, headerComment(header, result.org.slug, what));
};

/** A project's file name: `project-<name>.yaml`, from the slug's last part. */
const fileStem = (slug: string): string =>
  `project-${projectShortName(slug).replace(/[^A-Za-z0-9._-]+/g, "_")}`;

/**
 * One file for the org and its contexts (`org.yaml`), one per project. Decision: file names
 * are compared case-insensitively (macOS and Windows file systems) and a clash gets `-2`,
 * `-3`, ... in slug order.
 */
export const renderFolder = (result: ExportResult, header: ExportHeader): RenderedFile[] => {
  const files: RenderedFile[] = [
    {
      name: "org.yaml",
      content: renderDocument(
        result.org.body,
        result.org.ignore,
        headerComment(header, result.org.slug, "org settings and contexts"),
      ),
    },
  ];
  const used = new Set(["org"]);
  for (const p of result.projects) {
    const stem = fileStem(p.slug);
    let name = stem;
    for (let n = 2; used.has(name.toLowerCase()); n++) name = `${stem}-${n}`;
    used.add(name.toLowerCase());
    files.push({
      name: `${name}.yaml`,
      content: renderDocument(
        p.body,
        p.ignore,
        headerComment(header, result.org.slug, `project ${p.slug}`),
      ),
    });
  }
  return files;
};
