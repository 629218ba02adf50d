import { describe, expect, it } from "vitest";
import { Secret } from "../../src/core/secret.js";
import { planChanges } from "../../src/plan/plan.js";
import type { PlanOptions } from "../../src/plan/types.js";
import {
  desired,
  dOrg,
  dProject,
  lEnv,
  live,
  lOrg,
  lProject,
  PROJECT,
} from "../helpers/builders.js";

const plan = (
  d: Record<string, string | Secret> | undefined,
  l: Record<string, string>,
  options: PlanOptions = {},
  ignore: string[] = [],
) =>
  planChanges(
    desired(dOrg({ projects: [dProject(PROJECT, d ? { env: d } : {})], ignore })),
    live(
      lOrg({
        projects: [lProject(PROJECT, { env: Object.entries(l).map(([k, v]) => lEnv(k, v)) })],
      }),
    ),
    options,
  );
const brief = (p: ReturnType<typeof plan>) => p.changes.map((c) => `${c.action} ${c.address}`);
const E = (k: string) => `project["gh/acme/api"].env["${k}"]`;

describe("project env var", () => {
  it.each<{
    name: string;
    d: Record<string, string> | undefined;
    l: Record<string, string>;
    want: string[];
  }>([
    { name: "create", d: { K: "v" }, l: {}, want: [`create ${E("K")}`] },
    { name: "delete", d: {}, l: { OLD: "abcd" }, want: [`delete ${E("OLD")}`] },
    { name: "unmanaged", d: undefined, l: { OLD: "abcd" }, want: [] },
    { name: "same last four: unverified", d: { K: "xx1234" }, l: { K: "yy1234" }, want: [] },
    {
      name: "changed last four: update",
      d: { K: "xx9999" },
      l: { K: "yy1234" },
      want: [`update ${E("K")}`],
    },
  ])("$name", ({ d, l, want }) => {
    expect(brief(plan(d, l))).toEqual(want);
  });

  it("create is one POST with a sensitive value", () => {
    const c = plan({ K: "v" }, {}).changes[0];
    expect(c?.calls).toEqual([
      expect.objectContaining({
        method: "POST",
        route: "/projects/{project_id}/environment-variables",
        sensitive_fields: ["value"],
        when: "always",
      }),
    ]);
  });

  // spec: api-v3.md Projects: POST `{name, value}` → 201, 404: it sets the variable, so an
  // update is that one POST; the variable is never deleted to change it (issue 14).
  it("an update is one POST that overwrites the value: no DELETE in the plan", () => {
    const c = plan({ K: "new-9999" }, { K: "old-1234" }).changes[0];
    expect(c?.calls.map((x) => `${x.when} ${x.method} ${x.route}`)).toEqual([
      "always POST /projects/{project_id}/environment-variables",
    ]);
    expect(c?.params.name).toBe("K");
  });

  it("secrets: unverified count, --force-secrets, --skip-secrets", () => {
    expect(plan({ K: "xx1234" }, { K: "yy1234" }).unverified_secrets).toBe(1);
    expect(brief(plan({ K: "xx1234" }, { K: "yy1234" }, { forceSecrets: [E("K")] }))).toEqual([
      `update ${E("K")}`,
    ]);
    const s = plan({ K: Secret.unresolved("env:K") }, { K: "yy1234" }, { skipSecrets: true });
    expect(brief(s)).toEqual([]);
    expect(s.saveable).toBe(false);
  });

  it("ignore", () => {
    expect(brief(plan({}, { OLD: "abcd" }, {}, [E("O*")]))).toEqual([]);
  });

  it("delete goes by name", () => {
    const c = plan({}, { OLD: "abcd" }).changes[0];
    expect(c?.calls[0]).toMatchObject({
      method: "DELETE",
      route: "/projects/{project_id}/environment-variables/{name}",
    });
    expect(c?.params).toMatchObject({ name: "OLD", project_id: "prj-api" });
  });
});
