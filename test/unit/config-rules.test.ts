// biome-ignore-all lint/suspicious/noTemplateCurlyInString: inputs spell ${env:…} references
/** Pure pieces of the config layer: cron, references, ignore globs, suggestions. */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { checkCron } from "../../src/config/cron.js";
import { checkIgnoreGlob } from "../../src/config/ignore-glob.js";
import { parseTemplate, secretFieldAt, unescapeText } from "../../src/config/references.js";
import { closest } from "../../src/config/suggest.js";
import { addr, compileAddressGlob } from "../../src/model/address.js";

describe("checkCron", () => {
  it.each([
    "0 2 * * *",
    "*/15 * * * *",
    "0 9-17/2 * * 1-5",
    "30 6 1,15 * MON",
    "0 0 1 jan-mar sun",
    "5 4 * * 7",
    "0 12 31 12 *",
    "  0  2 * * *  ",
    "10/5 * * * *",
  ])("accepts %s", (cron) => {
    expect(checkCron(cron)).toBeUndefined();
  });

  it.each([
    ["0 2 * *", "must have 5 fields (minute hour day-of-month month day-of-week), found 4"],
    ["0 0 2 * * *", "must have 5 fields (minute hour day-of-month month day-of-week), found 6"],
    ["60 * * * *", 'minute field "60": 60 is outside 0-59'],
    ["0 24 * * *", 'hour field "24": 24 is outside 0-23'],
    ["0 0 0 * *", 'day-of-month field "0": 0 is outside 1-31'],
    ["0 0 * 13 *", 'month field "13": 13 is outside 1-12'],
    ["0 0 * * 8", 'day-of-week field "8": 8 is outside 0-7'],
    ["0 0 ? * *", 'day-of-month field "?": "?" is not a valid value (a number 1-31)'],
    [
      "0 0 * * L",
      'day-of-week field "L": "L" is not a valid value (a number 0-7 or a name such as sun)',
    ],
    ["*/0 * * * *", 'minute field "*/0": step 0 is outside 1-59'],
    ["*/x * * * *", 'minute field "*/x": step "x" is not a number'],
    ["1,,2 * * * *", 'minute field "1,,2": a list item is empty'],
    ["5-1 * * * *", 'minute field "5-1": range 5-1 goes backwards'],
    ["1-2-3 * * * *", 'minute field "1-2-3": "1-2-3" is not a range'],
    ["1/2/3 * * * *", 'minute field "1/2/3": more than one `/` in one item'],
    [
      "0 0 * foo *",
      'month field "foo": "foo" is not a valid value (a number 1-12 or a name such as jan)',
    ],
  ])("refuses %s", (cron, message) => {
    expect(checkCron(cron)).toBe(message);
  });

  it("accepts every expression built from in-range values, ranges and steps", () => {
    const bounds: [number, number][] = [
      [0, 59],
      [0, 23],
      [1, 31],
      [1, 12],
      [0, 7],
    ];
    const field = ([min, max]: [number, number]) =>
      fc.oneof(
        fc.constant("*"),
        fc.integer({ min, max }).map(String),
        fc
          .tuple(fc.integer({ min, max }), fc.integer({ min, max }))
          .map(([a, b]) => `${Math.min(a, b)}-${Math.max(a, b)}`),
        fc.integer({ min: 1, max }).map((s) => `*/${s}`),
      );
    fc.assert(
      fc.property(fc.tuple(...bounds.map(field)), (fields) => {
        expect(checkCron(fields.join(" "))).toBeUndefined();
      }),
    );
  });
});

describe("parseTemplate", () => {
  it("splits text and references", () => {
    expect(parseTemplate("a${env:X}b${file:k.pem}")).toEqual({
      ok: true,
      parts: [
        { kind: "text", text: "a" },
        { kind: "env", name: "X" },
        { kind: "text", text: "b" },
        { kind: "file", path: "k.pem" },
      ],
    });
    expect(parseTemplate("")).toEqual({ ok: true, parts: [{ kind: "text", text: "" }] });
  });

  it("refuses what is neither a reference nor escaped", () => {
    expect(parseTemplate("${env:1X}").ok).toBe(false);
    expect(parseTemplate("${file:}").ok).toBe(false);
    expect(parseTemplate("${HOME}").ok).toBe(false);
    expect(parseTemplate("x ${env:X").ok).toBe(false);
  });

  it("round-trips any text through the $${ escape (property)", () => {
    fc.assert(
      fc.property(
        fc.string({ unit: fc.constantFrom("$", "{", "}", "e", "n", "v", ":", "a") }),
        (s) => {
          const escaped = s.replaceAll("${", () => "$${");
          expect(parseTemplate(escaped)).toEqual({ ok: true, parts: [{ kind: "text", text: s }] });
          expect(unescapeText(escaped)).toBe(s);
        },
      ),
    );
  });

  it("knows where references are allowed", () => {
    expect(secretFieldAt(["contexts", "c", "env", "K"])).toBe("env");
    expect(secretFieldAt(["projects", "a/b/c", "env", "K"])).toBe("env");
    expect(secretFieldAt(["projects", "a/b/c", "webhooks", "w", "url"])).toBe("url");
    expect(secretFieldAt(["projects", "a/b/c", "webhooks", "w", "signing_secret"])).toBe(
      "signing_secret",
    );
    expect(
      secretFieldAt([
        "projects",
        "a/b/c",
        "pipelines",
        "p",
        "triggers",
        "t",
        "event",
        "webhook",
        "secret",
      ]),
    ).toBe("webhook_secret");
    expect(secretFieldAt(["projects", "a/b/c", "pipelines", "p", "description"])).toBeUndefined();
    expect(secretFieldAt(["org"])).toBeUndefined();
  });
});

describe("checkIgnoreGlob", () => {
  it.each([
    'context["legacy-*"]',
    'context["*"].env["AWS_?"]',
    'context["c"].restriction["project:*"]',
    "org_settings",
    'project["gh/acme/api"].settings',
    'project["gh/acme/api"].webhook["*"]',
    'project["*"].pipeline["build"].trigger["*"]',
  ])("accepts %s", (glob) => {
    expect(checkIgnoreGlob(glob)).toBeUndefined();
  });

  it.each([
    ["*", "may only appear inside the"],
    ['context["a"', "not an address glob"],
    ['context["a"].*', "may only appear inside the"],
    ['context["a"].e?v["K"]', "may only appear inside the"],
    ["context", "context needs a key"],
    ['org_settings["x"]', "org_settings takes no key"],
    ['project["a/b/c"].settings["x"]', "settings takes no key"],
    ['project["a/b/c"].trigger["t"]', '"trigger" cannot appear after project'],
  ])("refuses %s", (glob, fragment) => {
    expect(checkIgnoreGlob(glob)).toContain(fragment);
  });

  it("accepts every address Waybill builds, and the glob matches it (property)", () => {
    const key = fc.string({ minLength: 1, maxLength: 12 });
    const address = fc.oneof(
      key.map((k) => addr.context(k)),
      fc.tuple(key, key).map(([c, n]) => addr.contextEnvVar(c, n)),
      fc.tuple(key, key).map(([s, n]) => addr.webhook(s, n)),
      fc.tuple(key, key, key).map(([s, p, t]) => addr.trigger(s, p, t)),
      key.map((s) => addr.projectSettings(s)),
    );
    fc.assert(
      fc.property(address, (a) => {
        const literal = a.replace(/[*?]/g, "?");
        expect(checkIgnoreGlob(literal)).toBeUndefined();
        expect(compileAddressGlob(literal).test(a)).toBe(true);
      }),
    );
  });
});

describe("closest", () => {
  it("suggests near misses only", () => {
    expect(closest("evnts", ["url", "events", "scope"])).toBe("events");
    expect(closest("Contexts", ["org", "contexts"])).toBe("contexts");
    expect(closest("colour", ["id", "env", "restrictions"])).toBeUndefined();
  });
});
