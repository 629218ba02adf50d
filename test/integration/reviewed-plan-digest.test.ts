/**
 * The reviewed plan is the applied plan (design.md §5 "Scoped plans and the reviewed plan"):
 * every plan prints a digest; `apply --expect-digest D` applies only a plan whose digest is
 * D, compared before the lock (a mismatch: exit 3, zero writes, the lock included) and again
 * on the re-read under the lock (exit 3 before any change is written). Runs the CLI
 * in-process against the emulator and counts writes in its request log.
 */
import { beforeEach, describe, expect, it } from "vitest";
import type { Seed } from "../../emulator/src/seed.js";
import { useEmulatorSuite } from "../helpers/emulator-suite.js";

const ORG_ID = "0a440000-0000-4000-8000-0000000000aa";
const API_ID = "0b440000-0000-4000-8000-0000000000aa";
const WEB_ID = "0b440000-0000-4000-8000-0000000000bb";
const SLACK_ID = "0c440000-0000-4000-8000-0000000000aa";
const URL_ = "https://hooks.example.com/services/T44/B44/digestSecretPath9";

const seed = (): Seed => ({
  orgs: [
    {
      id: ORG_ID,
      slug: "gh/acme",
      name: "acme",
      contexts: [{ name: "deploy", env: { REGION: "eu-west-1" } }],
      projects: [
        {
          id: API_ID,
          slug: "gh/acme/api",
          webhooks: [{ id: SLACK_ID, name: "slack", url: URL_, events: ["workflow-completed"] }],
        },
        { id: WEB_ID, slug: "gh/acme/web" },
      ],
    },
  ],
});

/** The PR's config: one more event on api's webhook, a new webhook on web. */
const prConfig = (extra = ""): string =>
  [
    "org: gh/acme",
    "projects:",
    "  gh/acme/api:",
    "    webhooks:",
    "      slack:",
    `        url: ${URL_}`,
    "        events: [workflow-completed, job-completed]",
    "  gh/acme/web:",
    "    webhooks:",
    "      audit:",
    `        url: ${URL_}`,
    `        events: [${extra || "workflow-completed"}]`,
    "",
  ].join("\n");

const DIGEST = /Plan digest: ([0-9a-f]{32})/;

describe("apply --expect-digest: the reviewed plan is the applied plan", () => {
  const suite = useEmulatorSuite(seed, {});
  let config: string;
  beforeEach(async () => {
    config = await suite.tmp.write("waybill.yaml", prConfig());
  });

  const writes = async (): Promise<string[]> =>
    (await suite.emulator.requests()).filter((r) => r.method !== "GET").map((r) => r.route);
  /** The digest the PR's plan printed, as a reviewer (and the Action) reads it. */
  const reviewedDigest = async (): Promise<string> => {
    const r = await suite.run(["plan", "-c", config, "--format", "markdown"]);
    expect(r.code, r.stderr).toBe(0);
    const marker = /^<!-- waybill-plan-digest: ([0-9a-f]{32}) -->\n/.exec(r.stdout)?.[1];
    expect(marker).toBeDefined();
    expect(r.stdout).toContain(`plan digest \`${marker}\``);
    return marker as string;
  };

  it("every format shows the same digest; JSON has `digest`; the file order does not change it", async () => {
    const md = await reviewedDigest();
    const text = await suite.run(["plan", "-c", config]);
    expect(DIGEST.exec(text.stdout)?.[1]).toBe(md);
    const json = await suite.run(["plan", "-c", config, "--format", "json"]);
    expect((JSON.parse(json.stdout) as { digest: string }).digest).toBe(md);
    // The same declarations in two files, given in either order.
    const [head, tail] = prConfig().split("  gh/acme/web:\n");
    const a = await suite.tmp.write("split/a.yaml", head as string);
    const b = await suite.tmp.write(
      "split/b.yaml",
      `org: gh/acme\nprojects:\n  gh/acme/web:\n${tail}`,
    );
    for (const order of [
      [a, b],
      [b, a],
    ]) {
      const r = await suite.run(["plan", "-c", order[0] as string, "-c", order[1] as string]);
      expect(r.code, r.stderr).toBe(0);
      expect(DIGEST.exec(r.stdout)?.[1]).toBe(md);
    }
    // No secret or URL path in the digest's neighbourhood: the URL is never printed.
    expect(text.stdout).not.toContain("digestSecretPath9");
  });

  it("the reviewed digest applies (no --auto-approve: the digest is the approval)", async () => {
    const digest = await reviewedDigest();
    await suite.emulator.clearRequests();
    const r = await suite.run(["apply", "-c", config, "--expect-digest", digest]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain(`Plan digest: ${digest}`);
    expect((await writes()).filter((w) => w.includes("webhooks"))).toHaveLength(2);
    const again = await suite.run(["plan", "-c", config, "--detailed-exitcode"]);
    expect(again.code, again.stdout).toBe(0);
  });

  it("a hand change between the PR's plan and the merge: exit 3, zero writes (no lock either)", async () => {
    const digest = await reviewedDigest();
    // Someone edits the webhook by hand after the review.
    const edit = await suite.emulator.call("POST", `/api/v3/webhooks/${SLACK_ID}/update`, {
      events: ["job-completed"],
    });
    expect(edit.status).toBe(200);
    await suite.emulator.clearRequests();
    const r = await suite.run(["apply", "-c", config, "--expect-digest", digest]);
    expect(r.code, r.stderr).toBe(3);
    expect(r.stderr).toContain(`not ${digest} (--expect-digest)`);
    expect(r.stderr).toContain("the live state moved since the review");
    expect(r.stderr).toContain("Nothing was changed");
    expect(await writes()).toEqual([]);
  });

  it("a config edit after the comment: exit 3, zero writes, and it says the config differs", async () => {
    const digest = await reviewedDigest();
    await suite.tmp.write("waybill.yaml", prConfig("job-completed"));
    await suite.emulator.clearRequests();
    const r = await suite.run(["apply", "-c", config, "--expect-digest", digest]);
    expect(r.code, r.stderr).toBe(3);
    expect(r.stderr).toContain("both the config and the changes differ");
    expect(await writes()).toEqual([]);
  });

  it("a config edit that changes no change still differs: the config half says so", async () => {
    const digest = await reviewedDigest();
    // A context the live state already matches: the same changes, another config.
    await suite.tmp.write(
      "waybill.yaml",
      `${prConfig()}contexts:\n  deploy:\n    env:\n      REGION: eu-west-1\n`,
    );
    const r = await suite.run(["apply", "-c", config, "--expect-digest", digest]);
    expect(r.code, r.stderr).toBe(3);
    expect(r.stderr).toContain("the config differs from the one the reviewed plan was made from");
    expect(await writes()).toEqual([]);
  });

  it("a change that lands under the lock: exit 3 before any change is written", async () => {
    const digest = await reviewedDigest();
    // Another client edits the webhook as the lock's claim is written (after the plan).
    await suite.emulator.script([
      {
        method: "POST",
        path: "/api/v3/contexts",
        after: [
          {
            method: "POST",
            path: `/api/v3/webhooks/${SLACK_ID}/update`,
            json: { events: ["job-completed"] },
          },
        ],
      },
    ]);
    await suite.emulator.clearRequests();
    const r = await suite.run(["apply", "-c", config, "--expect-digest", digest]);
    expect(r.code, r.stderr).toBe(3);
    expect(r.stderr).toContain("made again under the lock");
    // The lock's claim (a context) was written and released; no webhook was (the other
    // client's edit is the emulator's own, not in its request log).
    expect((await writes()).filter((w) => !w.includes("/contexts"))).toEqual([]);
    expect(r.stderr).toContain("the live state moved since the review");
  });

  it("a malformed digest is refused before any request", async () => {
    const r = await suite.run(["apply", "-c", config, "--expect-digest", "abc123"]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("is not a plan digest");
    expect(await suite.emulator.requests()).toEqual([]);
  });
});
