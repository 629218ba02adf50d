/**
 * `--allowed-orgs` bounds every lookup, not only the config's `org:` (issue 43, design.md §4
 * "Integration"): a context restriction naming a project of another org is refused at
 * FILE:LINE:COL before any request, so a fork's pull request cannot have the plan look up a
 * project of an org the job was not meant to read and print its id.
 */
import { describe, expect, it } from "vitest";
import type { Seed } from "../../emulator/src/seed.js";
import { useEmulatorSuite } from "../helpers/emulator-suite.js";
import { runInProcess } from "../helpers/in-process.js";

const seed = (): Seed => ({
  orgs: [
    {
      slug: "gh/acme",
      contexts: [{ name: "deploy" }],
      projects: [{ slug: "gh/acme/api" }],
    },
    { slug: "gh/other", projects: [{ slug: "gh/other/app" }] },
  ],
});

const config = `org: gh/acme
contexts:
  deploy:
    restrictions:
      - project: gh/acme/api
      - project: gh/other/app
`;

describe("allowed orgs bound every lookup", () => {
  const suite = useEmulatorSuite(seed, { config: { name: "waybill.yaml", content: config } });
  const env = () => ({
    SERVICE_BASE_URL: suite.emulator.url,
    SERVICE_TOKEN: suite.emulator.token,
  });

  it("a restriction naming a project of another org is refused at FILE:LINE:COL, with no request", async () => {
    const otherId = (await suite.emulator.state()).orgs
      ?.find((o) => o.slug === "gh/other")
      ?.projects?.find((p) => p.slug === "gh/other/app")?.id;
    for (const [args, extra] of [
      [["--allowed-orgs", "gh/acme"], {}],
      [[], { WAYBILL_ALLOWED_ORGS: "gh/acme" }],
    ] as const) {
      for (const command of ["plan", "drift", "apply"]) {
        await suite.emulator.clearRequests();
        const r = await runInProcess(
          [
            command,
            "-c",
            suite.files.config,
            ...args,
            ...(command === "apply" ? ["--auto-approve"] : []),
          ],
          { ...env(), ...extra },
        );
        expect(r.code, r.stderr).toBe(1);
        expect(r.stderr).toContain(`${suite.files.config}:6:9`);
        expect(r.stderr).toContain('"gh/other"');
        expect(r.stderr).toContain("not among the allowed orgs");
        expect(r.stdout).toBe("");
        if (otherId !== undefined) expect(r.stderr).not.toContain(otherId);
        expect(await suite.emulator.requests()).toEqual([]);
      }
    }
    // Allowed, the same config plans (the other org's project is looked up).
    const both = await runInProcess(
      ["plan", "-c", suite.files.config, "--allowed-orgs", "gh/acme,gh/other"],
      env(),
    );
    expect(both.code, both.stderr).toBe(0);
    expect(both.stdout).toContain('restriction["project:gh/other/app"]');
  });

  it("force-unlock takes --allowed-orgs like every command: another --org is refused with no request", async () => {
    await suite.emulator.clearRequests();
    const r = await runInProcess(
      ["force-unlock", "--org", "gh/other", "--allowed-orgs", "gh/acme"],
      env(),
    );
    expect(r.code, r.stderr).toBe(1);
    expect(r.stderr).toContain('"gh/other" is not among the allowed orgs');
    expect(await suite.emulator.requests()).toEqual([]);
    const ok = await runInProcess(["force-unlock", "--org", "gh/acme"], {
      ...env(),
      WAYBILL_ALLOWED_ORGS: "gh/acme",
    });
    expect(ok.code, ok.stderr).toBe(0);
    expect(ok.stdout).toContain("org gh/acme: not locked");
  });
});
