/**
 * `waybill emulator`: in-process with an injected stop signal, and once as a real process
 * (bin/waybill.js, built by `npm test`) stopped with SIGTERM.
 */
import { spawn } from "node:child_process";
import { readFile } from "node:fs/promises";
import { PassThrough } from "node:stream";
import { Command } from "commander";
import { describe, expect, it } from "vitest";
import { makeRegisterEmulator } from "../../src/cli/emulator.js";
import type { CliIO } from "../../src/cli/io.js";
import { UsageError } from "../../src/core/errors.js";

/** Collects a stream's text; `until` resolves when it contains a string (event-driven, no polling). */
const collect = (stream: NodeJS.ReadableStream) => {
  let text = "";
  const waiters: { needle: string; resolve: () => void }[] = [];
  stream.on("data", (c: Buffer) => {
    text += c.toString("utf8");
    for (const w of waiters.splice(0)) {
      if (text.includes(w.needle)) w.resolve();
      else waiters.push(w);
    }
  });
  return {
    text: () => text,
    until: (needle: string) =>
      new Promise<void>((resolve) => {
        if (text.includes(needle)) resolve();
        else waiters.push({ needle, resolve });
      }),
  };
};

const capture = () => {
  const stream = new PassThrough();
  return { stream, ...collect(stream) };
};

const run = (args: string[], files: Record<string, string> = {}) => {
  const out = capture();
  const err = capture();
  const io: CliIO = { stdin: new PassThrough(), stdout: out.stream, stderr: err.stream, env: {} };
  let stop: () => void = () => undefined;
  const stopped = new Promise<void>((resolve) => {
    stop = resolve;
  });
  let exit: number | undefined;
  const program = new Command("waybill").exitOverride().configureOutput({
    writeOut: (s) => out.stream.write(s),
    writeErr: (s) => err.stream.write(s),
  });
  makeRegisterEmulator({
    waitForStop: () => stopped,
    readFile: async (p) => {
      const f = files[p];
      if (f === undefined) throw new Error(`ENOENT: ${p}`);
      return f;
    },
  })(program, io, (c) => {
    exit = c;
  });
  const done = program.parseAsync(["node", "waybill", "emulator", ...args]);
  return { out: out.text, err: err.text, until: out.until, stop, done, exit: () => exit };
};

describe("waybill emulator (in-process)", () => {
  it("serves the demo seed, prints the URL and the demo token hint, stops on the signal", async () => {
    const seed = await readFile("examples/demo/seed.json", "utf8");
    const r = run(["--seed", "demo.json"], { "demo.json": seed });
    await r.until("Emulator listening on");
    const url = /Emulator listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(r.out())![1]!;
    expect(r.out()).toContain("demo-token");
    expect(r.out()).not.toContain("demo-read-only-token");
    const res = await fetch(`${url}/api/v3/orgs?filter[slug]=gh/acme`, {
      headers: { Authorization: "Bearer demo-token" },
    });
    expect(res.status).toBe(200);
    // The sparse shapes by default (design.md §5): the look-up answers `{ id }`, no page.
    const body = (await res.json()) as { data: { id: string }[]; page?: unknown };
    expect(body.data).toEqual([{ id: expect.any(String) }]);
    expect(body.page).toBeUndefined();
    const full = run(["--seed", "demo.json", "--shapes", "full"], { "demo.json": seed });
    await full.until("Emulator listening on");
    const fullUrl = /Emulator listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(full.out())![1]!;
    const fullBody = (await (
      await fetch(`${fullUrl}/api/v3/orgs?filter[slug]=gh/acme`, {
        headers: { Authorization: "Bearer demo-token" },
      })
    ).json()) as { data: { attributes: { slug: string } }[]; page: unknown };
    expect(fullBody.data[0]!.attributes.slug).toBe("gh/acme");
    expect(fullBody.page).toEqual({ next: null, prev: null });
    full.stop();
    await full.done;
    // The admin API is off without --admin.
    expect((await fetch(`${url}/__admin/state`)).status).toBe(404);
    // Requests are logged on stderr, without the token.
    expect(r.err()).toContain("GET /api/v3/orgs 200");
    expect(r.err()).not.toContain("demo-token");
    r.stop();
    await r.done;
    expect(r.exit()).toBe(0);
    await expect(fetch(`${url}/api/v3/orgs`)).rejects.toThrow();
  });

  it("a bad seed is the user's error: the emulator's SeedError crosses the seam as a UsageError", async () => {
    // The emulator imports nothing of the product, so its errors are not WaybillErrors; the
    // CLI seam (src/cli/emulator.ts) must turn a bad seed into one, same message, exit 1.
    const r = run(["--seed", "s.json"], { "s.json": JSON.stringify({ orgs: "no" }) });
    const err = await r.done.then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(UsageError);
    expect((err as Error).message).toMatch(/^seed\/orgs/);
  });

  it("--admin, --latency and --faults configure the emulator", async () => {
    const r = run(["--admin", "--latency", "1", "--faults", "f.json"], {
      "f.json": JSON.stringify({ seed: 3, rate_500: 0 }),
    });
    await r.until("Emulator listening on");
    const url = /on (http:\/\/\S+)/.exec(r.out())![1]!;
    const faults = await (await fetch(`${url}/__admin/faults`)).json();
    expect(faults).toEqual({ seed: 3, rate_500: 0, latency_ms: 1 });
    r.stop();
    await r.done;
  });

  it.each([
    [["--port", "abc"], /--port must be an integer/],
    [["--port", "70000"], /--port must be an integer/],
    [["--seed", "missing.json"], /cannot read the file/],
    [["--seed", "bad.json"], /not valid JSON/],
    [["--faults", "f.json"], /--faults/],
    [["--seed", "badseed.json"], /seed\/orgs\/0\/slug/],
  ])("rejects bad input %j", async (args, message) => {
    const r = run(args, {
      "bad.json": "{",
      "f.json": '{"rate_500": 2}',
      "badseed.json": '{"orgs":[{"slug":""}]}',
    });
    await expect(r.done).rejects.toThrow(message);
  });

  it("--help explains the options and shows two examples", async () => {
    const r = run(["--help"]);
    await expect(r.done).rejects.toMatchObject({ exitCode: 0 });
    const help = r.out();
    for (const flag of ["--port", "--seed", "--admin", "--latency", "--faults"])
      expect(help).toContain(flag);
    expect(help.match(/\$ waybill emulator/g)).toHaveLength(2);
  });
});

describe("waybill emulator (real process)", () => {
  it("node bin/waybill.js emulator --seed examples/demo/seed.json serves the seed until SIGTERM", async () => {
    const child = spawn(
      process.execPath,
      ["bin/waybill.js", "emulator", "--seed", "examples/demo/seed.json"],
      {
        stdio: ["ignore", "pipe", "pipe"],
      },
    );
    const stdout = collect(child.stdout);
    const exited = new Promise<number | null>((resolve) =>
      child.on("exit", (code) => resolve(code)),
    );
    try {
      await stdout.until("\n");
      const url = /Emulator listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(stdout.text())![1]!;
      const res = await fetch(`${url}/api/v3/orgs`, {
        headers: { Authorization: "Bearer demo-token" },
      });
      expect(res.status).toBe(200);
      // The caller's orgs (no filter): a last page's cursor is "" in the sparse shapes.
      expect(await res.json()).toMatchObject({
        data: [{ attributes: { slug: "gh/acme" } }],
        page: { next: "" },
      });
    } finally {
      child.kill("SIGTERM");
    }
    expect(await exited).toBe(0);
  });
});
