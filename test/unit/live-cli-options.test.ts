/** The shared CLI options of plan/drift (src/cli/common-options.ts): pure parts. */
import { PassThrough } from "node:stream";
import { describe, expect, it } from "vitest";
import {
  collectSecretValues,
  progressReporter,
  resolveCommonOptions,
  resolveConnection,
  secretScrubber,
} from "../../src/cli/common-options.js";
import type { CliIO } from "../../src/cli/io.js";
import { Secret } from "../../src/core/secret.js";
import type { DesiredConfig } from "../../src/model/desired.js";

const source = { file: "w.yaml", line: 1, col: 1 };
const io = (env: Record<string, string> = {}, tty = false): CliIO & { err: () => string } => {
  const stderr = new PassThrough();
  const chunks: Buffer[] = [];
  stderr.on("data", (b: Buffer) => chunks.push(b));
  return {
    stdin: new PassThrough(),
    stdout: Object.assign(new PassThrough(), { isTTY: tty }),
    stderr,
    env,
    err: () => Buffer.concat(chunks).toString("utf8"),
  };
};
const flags = { config: "./waybill.yaml", parallelism: 10, target: [], color: true };

describe("common options", () => {
  it("finds every resolved secret and webhook URL in a loaded config, and none of the other plain values", () => {
    const desired: DesiredConfig = {
      files: ["w.yaml"],
      orgs: [
        {
          slug: "gh/acme",
          source,
          ignore: [],
          contexts: new Map([
            [
              "c",
              {
                name: "c",
                source,
                env: new Map([["A", { name: "A", source, value: new Secret("context-secret-1") }]]),
              },
            ],
          ]),
          projects: new Map([
            [
              "gh/acme/api",
              {
                slug: "gh/acme/api",
                source,
                webhooks: new Map([
                  [
                    "w",
                    {
                      name: "w",
                      source,
                      url: "https://plain.example.com",
                      events: [],
                      signing_secret: new Secret("signing-secret-2"),
                    },
                  ],
                ]),
                env: new Map([["U", { name: "U", source, value: Secret.unresolved("env:U") }]]),
              },
            ],
          ]),
        },
      ],
    };
    // Issue 30: a webhook URL written in clear is a credential too, scrubbed from errors.
    expect(collectSecretValues(desired).sort()).toEqual([
      "context-secret-1",
      "https://plain.example.com",
      "signing-secret-2",
    ]);
  });

  it("scrubs secret values out of texts, longest first", () => {
    const scrub = secretScrubber(["abcdefgh", "abcd", "xy"]);
    expect(scrub("value abcdefgh rejected; abcd; xy")).toBe(
      "value (sensitive) rejected; (sensitive); xy",
    );
  });

  it("collects the secrets only when the first text is scrubbed, then scrubs with them", () => {
    let collected = 0;
    const scrub = secretScrubber(() => {
      collected++;
      return ["abcdefgh-secret"];
    });
    expect(collected).toBe(0);
    expect(scrub("value abcdefgh-secret rejected")).toBe("value (sensitive) rejected");
    expect(scrub("again abcdefgh-secret")).toBe("again (sensitive)");
    expect(collected).toBe(1);
  });

  it("scrubs every form of a secret and of the token: escaped, encoded, cut short (issue 21)", () => {
    const value = 'se"cret\\value/with-sym bols';
    const token = "tok_0123456789abcdefghij";
    const scrub = secretScrubber([value], new Secret(token, "env:SERVICE_TOKEN"));
    const echoed = [
      JSON.stringify({ value }),
      `value=${encodeURIComponent(value)}`,
      Buffer.from(`x:${value}`).toString("base64"),
      `token ${token.slice(0, 14)}… rejected`,
      `value "${value.slice(0, 14)}"`,
    ].join("\n");
    const out = scrub(echoed);
    for (const part of [value.slice(0, 10), token.slice(0, 10), "cmV0XHZhbHVlL3dpdGgtc3lt"])
      expect(out).not.toContain(part);
    expect(out).toContain("rejected");
  });

  it("takes the base URL and token from the environment, never printing the token", async () => {
    const c = await resolveConnection(
      flags,
      io({ SERVICE_BASE_URL: "https://s.example.com", SERVICE_TOKEN: "tok-123456789" }),
    );
    expect(c.baseUrl).toBe("https://s.example.com");
    expect(c.token.reveal()).toBe("tok-123456789");
    expect(String(c.token)).toBe("(sensitive)");
    await expect(resolveConnection(flags, io({ SERVICE_TOKEN: "t" }))).rejects.toThrow(
      /SERVICE_BASE_URL/,
    );
    await expect(resolveConnection(flags, io({ SERVICE_BASE_URL: "https://s" }))).rejects.toThrow(
      /SERVICE_TOKEN or pass --token-file/,
    );
  });

  it("colours only on a TTY, without --no-color and without NO_COLOR", () => {
    expect(resolveCommonOptions(flags, io({}, true)).color).toBe(true);
    expect(resolveCommonOptions(flags, io({}, false)).color).toBe(false);
    expect(resolveCommonOptions({ ...flags, color: false }, io({}, true)).color).toBe(false);
    expect(resolveCommonOptions(flags, io({ NO_COLOR: "1" }, true)).color).toBe(false);
  });

  it("rewrites one progress line on a TTY, and prints two lines off a TTY", () => {
    const ttyIo = io();
    Object.assign(ttyIo.stderr, { isTTY: true });
    const tty = progressReporter(ttyIo, "Reading live state");
    tty.onProgress(0, 1);
    tty.onProgress(1, 2);
    tty.onProgress(2, 2);
    tty.finish();
    expect(ttyIo.err()).toBe(
      "\rReading live state… 0/1\rReading live state… 1/2\rReading live state… 2/2\rReading live state… 2/2 done\n",
    );
    const logIo = io();
    const log = progressReporter(logIo, "Reading live state");
    log.onProgress(0, 1);
    log.onProgress(1, 1);
    log.finish();
    expect(logIo.err()).toBe("Reading live state…\nReading live state: 1 reads done\n");
    const failedIo = io();
    Object.assign(failedIo.stderr, { isTTY: true });
    const failed = progressReporter(failedIo, "Reading live state");
    failed.onProgress(0, 1);
    failed.abort();
    expect(failedIo.err()).not.toMatch(/done/);
  });
});

describe("--allowed-orgs and --show-urls (design.md §4 Integration)", () => {
  it("parses the flag, else WAYBILL_ALLOWED_ORGS; an empty list is refused", async () => {
    const { allowedOrgsOf, checkAllowedOrgs, parseAllowedOrgs } = await import(
      "../../src/cli/common-options.js"
    );
    expect(parseAllowedOrgs(" gh/a , gh/b,", "--allowed-orgs")).toEqual(["gh/a", "gh/b"]);
    expect(() => parseAllowedOrgs(" , ", "--allowed-orgs")).toThrow(/names no org/);
    const o = resolveCommonOptions(
      { ...flags, allowedOrgs: "gh/a" },
      io({ WAYBILL_ALLOWED_ORGS: "gh/z" }),
    );
    expect(allowedOrgsOf(o, io({ WAYBILL_ALLOWED_ORGS: "gh/z" }))).toEqual(["gh/a"]);
    expect(allowedOrgsOf({}, io({ WAYBILL_ALLOWED_ORGS: "gh/z" }))).toEqual(["gh/z"]);
    expect(allowedOrgsOf({}, io())).toBeUndefined();
    expect(() => checkAllowedOrgs(["gh/a", "gh/c"], ["gh/a"])).toThrow(/"gh\/c" is not among/);
    expect(() => checkAllowedOrgs(["gh/A"], ["gh/a"])).toThrow();
    checkAllowedOrgs(["gh/c"], undefined);
  });

  it("--show-urls holds on a terminal only, with a warning elsewhere", () => {
    const piped = io();
    expect(resolveCommonOptions({ ...flags, showUrls: true }, piped).showUrls).toBe(false);
    expect(piped.err()).toContain("--show-urls is ignored");
    expect(resolveCommonOptions({ ...flags, showUrls: true }, io({}, true)).showUrls).toBe(true);
  });

  it("the scrubber strips terminal control characters from a service's text", () => {
    expect(secretScrubber([])("title \u001b[2J\u009b31m\r done\n")).toBe(
      "title \\u001b[2J\\u009b31m\\u000d done\n",
    );
  });
});
