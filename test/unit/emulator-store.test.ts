/** Seed loading, its errors, and the seed → state → seed round trip (a fast-check property). */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { SeedError } from "../../emulator/src/errors.js";
import { syntheticPipeline } from "../../emulator/src/families/pipelines.js";
import { restrictionId } from "../../emulator/src/families/restrictions.js";
import { hashUuid } from "../../emulator/src/ids.js";
import type { Seed } from "../../emulator/src/seed.js";
import { createState, dumpState, nextId } from "../../emulator/src/store.js";
import { propertyRuns } from "../helpers/property-runs.js";

const ORG = "00000000-0000-4000-8000-000000000001";

describe("createState", () => {
  it("fills ids deterministically and defaults settings to false", () => {
    const seed: Seed = {
      orgs: [{ slug: "gh/acme", projects: [{ slug: "api" }], contexts: [{ name: "c" }] }],
    };
    const a = createState(seed);
    const b = createState(seed);
    expect(a.orgs[0]!.id).toBe(b.orgs[0]!.id);
    expect(a.projects[0]).toMatchObject({
      slug: "gh/acme/api",
      name: "api",
      // spec: api-v3.md Pipelines: the list "includes the synthetic OAuth pipeline": every
      // project has it unless seeded `oauth: false`.
      oauth: true,
      isFollowed: true,
    });
    expect(Object.values(a.orgs[0]!.settings).every((v) => v === false)).toBe(true);
    expect(a.projects[0]!.settings.pr_only_branch_overrides).toEqual([]);
    expect(a.projects[0]!.repo.repo_full_name).toBe("acme/api");
  });

  it("resolves a project slug and a group name in seeded restrictions", () => {
    const st = createState({
      orgs: [
        {
          id: ORG,
          slug: "gh/acme",
          groups: [{ name: "ops" }],
          projects: [{ slug: "api" }],
          contexts: [
            {
              name: "c",
              restrictions: [
                { restriction_type: "project", match_pattern: "api" },
                { restriction_type: "group", match_pattern: "ops" },
                { restriction_type: "group", match_pattern: "gh/acme" },
              ],
            },
          ],
        },
      ],
    });
    const rs = st.contexts[0]!.restrictions;
    expect(rs[0]!.match_pattern).toBe(st.projects[0]!.id);
    expect(rs[1]!.id).toBe(st.orgs[0]!.groups[0]!.id);
    expect(rs[2]).toMatchObject({ id: ORG, match_pattern: ORG });
  });

  it.each([
    [{ orgs: [{ slug: "a", bogus: 1 }] }, /seed\/orgs\/0\/bogus: unknown member/],
    [{ orgs: [{ slug: "a" }, { slug: "a" }] }, /duplicate org slug/],
    [{ orgs: [{ slug: "a", id: "nope" }] }, /not a UUID/],
    [
      {
        orgs: [
          { id: ORG, slug: "a" },
          { id: ORG, slug: "b" },
        ],
      },
      /duplicate id/,
    ],
    [
      {
        orgs: [
          {
            slug: "a",
            contexts: [
              { name: "c", restrictions: [{ restriction_type: "project", match_pattern: "nope" }] },
            ],
          },
        ],
      },
      /no project a\/nope/,
    ],
    [
      {
        orgs: [
          {
            slug: "a",
            projects: [
              { slug: "p", webhooks: [{ name: "w", url: "http://x", events: ["job-completed"] }] },
            ],
          },
        ],
      },
      /https/,
    ],
    [
      {
        orgs: [
          {
            slug: "a",
            projects: [
              {
                slug: "p",
                pipelines: [
                  {
                    name: "b",
                    config: { type: "vcs", file_path: "x" },
                    triggers: [
                      {
                        event: {
                          type: "vcs",
                          vcs: { provider: "g", repo_id: "1", repo_full_name: "a/b" },
                        },
                        parameters: {},
                      },
                    ],
                  },
                ],
              },
            ],
          },
        ],
      },
      /parameters are accepted only on schedule triggers/,
    ],
    [
      { orgs: [{ slug: "a", contexts: [{ name: "c", env: { "1BAD": "v" } }] }] },
      /not a valid variable name/,
    ],
  ])("rejects a bad seed (%#)", (seed, message) => {
    expect(() => createState(seed as Seed)).toThrow(SeedError);
    expect(() => createState(seed as Seed)).toThrow(message);
  });

  it("a restriction's id: the group id for groups, else shared across contexts", () => {
    expect(restrictionId("group", ORG)).toBe(ORG);
    expect(restrictionId("expression", "x")).toBe(restrictionId("expression", "x"));
    expect(restrictionId("expression", "x")).not.toBe(restrictionId("project", "x"));
  });

  it("the synthetic pipeline id is derived from, and differs from, the project id", () => {
    const st = createState({ orgs: [{ slug: "a", projects: [{ slug: "p", oauth: true }] }] });
    const p = st.projects[0]!;
    expect(syntheticPipeline(p).id).not.toBe(p.id);
    expect(syntheticPipeline(p).id).toBe(syntheticPipeline({ ...p }).id);
    expect(st.pipelines).toEqual([]);
  });
});

describe("dumpState", () => {
  const name = fc.stringMatching(/^[a-z][a-z0-9-]{0,8}$/);
  const envName = fc.stringMatching(/^[A-Z_][A-Z0-9_]{0,8}$/);
  const value = fc.string({ minLength: 1, maxLength: 12 });
  const seedArb: fc.Arbitrary<Seed> = fc
    .record({
      tokens: fc.array(
        fc.record({ token: fc.stringMatching(/^[a-z0-9]{4,12}$/), read_only: fc.boolean() }),
        { maxLength: 2 },
      ),
      contexts: fc.uniqueArray(
        fc.record({ name, env: fc.dictionary(envName, value, { maxKeys: 3 }) }),
        {
          selector: (c) => c.name,
          maxLength: 4,
        },
      ),
      projects: fc.uniqueArray(
        fc.record({
          slug: name,
          oauth: fc.boolean(),
          env: fc.dictionary(envName, value, { maxKeys: 3 }),
          webhooks: fc.array(
            fc.record({
              name,
              url: fc.constantFrom("https://a.example/x", "https://b.example/y"),
              events: fc.constantFrom(["job-completed"], ["workflow-completed", "job-completed"]),
              signing_secret: fc.option(value, { nil: undefined }),
              is_enabled: fc.boolean(),
            }),
            { maxLength: 3 },
          ),
        }),
        { selector: (p) => p.slug, maxLength: 3 },
      ),
      settings: fc.record({ enable_ai_agents: fc.boolean(), is_running_disabled: fc.boolean() }),
    })
    .map(({ tokens, contexts, projects, settings }) => ({
      tokens,
      orgs: [{ slug: "gh/acme", settings, contexts, projects }],
    }));

  it("seed → state → seed → state → seed is stable (ids filled once, secrets kept)", () => {
    fc.assert(
      fc.property(seedArb, (seed) => {
        const once = dumpState(createState(seed));
        const twice = dumpState(createState(once));
        expect(twice).toEqual(once);
        const org = once.orgs![0]!;
        for (const c of seed.orgs![0]!.contexts ?? []) {
          expect(org.contexts!.find((x) => x.name === c.name)?.env).toEqual(c.env);
        }
      }),
      { numRuns: propertyRuns(50) },
    );
  });
});

describe("run-time ids after a reset to a saved state", () => {
  it("skip the ids the seed already holds (a state saved from a running emulator)", () => {
    const taken = hashUuid("created", "context", "1");
    const st = createState({
      orgs: [{ slug: "gh/ids", contexts: [{ id: taken, name: "made-at-run-time" }] }],
    });
    const next = nextId(st, "context");
    expect(next).not.toBe(taken);
    expect(next).toBe(hashUuid("created", "context", "2"));
  });
});
