/**
 * Each entity family's rules over real HTTP (spec: api-v3.md "Endpoints"; api-v2-v1.md).
 * Every test starts from the same seed (reset through the admin API).
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import {
  baseSeed,
  CTX_LEGACY,
  CTX_PROD,
  CTX_STAGING,
  errorOf,
  GROUP,
  HOOK,
  type Item,
  list,
  MISSING,
  ORG,
  ORG_NO_DEFAULT,
  one,
  P_API,
  P_OAUTH,
  P_OTHER,
  P_WEB,
  PIPE,
  startTestEmu,
  type TestEmu,
  TOKEN,
  TR_HOOK,
  TR_SCHED,
  TR_VCS,
} from "./emulator-harness.js";

let t: TestEmu;
beforeAll(async () => {
  t = await startTestEmu();
});
afterAll(() => t.close());
beforeEach(async () => {
  expect((await t.admin("POST", "reset", baseSeed())).status).toBe(204);
});

const repo = { provider: "github_app", repo_id: "123", repo_full_name: "acme/api" };
const ids = (items: Item[]) => items.map((i) => i.id);

describe("orgs", () => {
  it("filter[slug] resolves one org; no match is an empty collection, not 404", async () => {
    const hit = await t.get("/api/v3/orgs?filter[slug]=gh/acme");
    expect(ids(list(hit))).toEqual([ORG]);
    expect(list(hit)[0]!.attributes).toMatchObject({ slug: "gh/acme", name: "Acme" });
    const miss = await t.get("/api/v3/orgs?filter[slug]=gh/nobody");
    expect(miss.status).toBe(200);
    expect(list(miss)).toEqual([]);
    expect(ids(list(await t.get("/api/v3/orgs")))).toEqual([ORG, ORG_NO_DEFAULT]);
  });

  it("GET /orgs/:id and settings; 404 for an unknown org", async () => {
    expect(one(await t.get(`/api/v3/orgs/${ORG}`)).id).toBe(ORG);
    expect((await t.get(`/api/v3/orgs/${MISSING}`)).status).toBe(404);
    expect((await t.get(`/api/v3/orgs/${MISSING}/settings`)).status).toBe(404);
    const s = one(await t.get(`/api/v3/orgs/${ORG}/settings`));
    expect(s.id).toBeUndefined();
    expect(Object.keys(s.attributes)).toHaveLength(18);
    expect(s.attributes).toMatchObject({ enable_private_orbs: true, enable_ai_agents: false });
  });

  it("update-settings changes only the given keys and returns the full set", async () => {
    const r = await t.post(`/api/v3/orgs/${ORG}/update-settings`, { enable_ai_agents: true });
    expect(r.status).toBe(200);
    expect(one(r).attributes).toMatchObject({ enable_ai_agents: true, enable_private_orbs: true });
    const bad = await t.post(`/api/v3/orgs/${ORG}/update-settings`, { enable_ai_agents: "yes" });
    expect(bad.status).toBe(400);
    expect(errorOf(bad).source?.pointer).toBe("/enable_ai_agents");
    expect((await t.post(`/api/v3/orgs/${MISSING}/update-settings`, {})).status).toBe(404);
  });
});

describe("projects: the six filter rules", () => {
  it("rule 1: one of slug, org_id, following is required", async () => {
    const r = await t.get("/api/v3/projects");
    expect(r.status).toBe(400);
    expect((await t.get("/api/v3/projects?filter[name]=api")).status).toBe(400);
  });

  it("rule 2: filter[slug] must be the only filter", async () => {
    expect(ids(list(await t.get("/api/v3/projects?filter[slug]=gh/acme/api")))).toEqual([P_API]);
    expect((await t.get("/api/v3/projects?filter[slug]=gh/acme/api&filter[name]=api")).status).toBe(
      400,
    );
    expect(
      (await t.get(`/api/v3/projects?filter[slug]=gh/acme/api&filter[org_id]=${ORG}`)).status,
    ).toBe(400);
  });

  it("rule 3: org_id and following alone or together; name combines (case-insensitive)", async () => {
    expect(ids(list(await t.get(`/api/v3/projects?filter[org_id]=${ORG}`)))).toEqual([
      P_API,
      P_OAUTH,
      P_WEB,
    ]);
    const followed = await t.get(`/api/v3/projects?filter[org_id]=${ORG}&filter[following]=true`);
    expect(ids(list(followed))).toEqual([P_API, P_OAUTH]);
    expect(ids(list(await t.get("/api/v3/projects?filter[following]=true")))).toEqual([
      P_API,
      P_OAUTH,
      P_OTHER,
    ]);
    expect(
      ids(list(await t.get(`/api/v3/projects?filter[org_id]=${ORG}&filter[name]=WE`))),
    ).toEqual([P_WEB]);
    const p = list(await t.get("/api/v3/projects?filter[slug]=gh/acme/web"))[0]!;
    expect(p.attributes).toMatchObject({ slug: "gh/acme/web", name: "Web", is_followed: false });
    expect(p.references).toEqual({ org: { id: ORG } });
  });

  it("rule 4: filter[following] accepts only true", async () => {
    expect((await t.get("/api/v3/projects?filter[following]=false")).status).toBe(400);
    expect((await t.get("/api/v3/projects?filter[following]=1")).status).toBe(400);
  });

  it("rule 5: order_by name (default) or last_active_at; others 400; ignored with slug", async () => {
    const byActive = await t.get(`/api/v3/projects?filter[org_id]=${ORG}&order_by=last_active_at`);
    expect(ids(list(byActive))).toEqual([P_WEB, P_API, P_OAUTH]);
    expect((await t.get(`/api/v3/projects?filter[org_id]=${ORG}&order_by=created`)).status).toBe(
      400,
    );
    expect((await t.get("/api/v3/projects?filter[slug]=gh/acme/api&order_by=created")).status).toBe(
      200,
    );
  });

  it("GET /projects/:id: the project, or 404", async () => {
    expect(one(await t.get(`/api/v3/projects/${P_API}`))).toMatchObject({
      id: P_API,
      attributes: { slug: "gh/acme/api", name: "API", is_followed: true },
    });
    expect((await t.get(`/api/v3/projects/${MISSING}`)).status).toBe(404);
  });

  it("rule 6: an unknown org is 404; a slug matching nothing is empty", async () => {
    expect((await t.get(`/api/v3/projects?filter[org_id]=${MISSING}`)).status).toBe(404);
    const none = await t.get("/api/v3/projects?filter[slug]=gh/acme/none");
    expect(none.status).toBe(200);
    expect(list(none)).toEqual([]);
  });

  it("project settings: read, update with overrides, reject unknown keys", async () => {
    const s = one(await t.get(`/api/v3/projects/${P_API}/settings`));
    expect(s.attributes).toMatchObject({ is_oss: false, pr_only_branch_overrides: [] });
    const u = await t.post(`/api/v3/projects/${P_API}/update-settings`, {
      is_oss: true,
      pr_only_branch_overrides: ["main"],
    });
    expect(one(u).attributes).toMatchObject({ is_oss: true, pr_only_branch_overrides: ["main"] });
    expect((await t.post(`/api/v3/projects/${P_API}/update-settings`, { oss: true })).status).toBe(
      400,
    );
    expect((await t.get(`/api/v3/projects/${MISSING}/settings`)).status).toBe(404);
  });
});

describe("project env vars", () => {
  const path = `/api/v3/projects/${P_API}/environment-variables`;

  it("lists name and truncated_value, never the value", async () => {
    const r = await t.get(path);
    expect(list(r)[0]!.attributes).toMatchObject({ name: "NPM_TOKEN", truncated_value: "abcd" });
    expect(r.text).not.toContain("npm-token-abcd");
    expect((await t.get(`/api/v3/projects/${MISSING}/environment-variables`)).status).toBe(404);
  });

  // spec: api-v3.md Projects: POST `{name, value}` → 201, 404: it sets the variable.
  it("POST creates (201); POST on an existing name overwrites it (201), or 400 with the fault", async () => {
    const c = await t.post(path, { name: "NEW_VAR", value: "value-5678" });
    expect(c.status).toBe(201);
    expect(c.text).not.toContain("value-5678");
    const again = await t.post(path, { name: "NEW_VAR", value: "other-value-9012" });
    expect(again.status).toBe(201);
    expect(one(again).attributes).toMatchObject({ name: "NEW_VAR", truncated_value: "9012" });
    expect((await t.state()).orgs![0]!.projects![0]!.env).toMatchObject({
      NEW_VAR: "other-value-9012",
    });
    expect(
      (await t.admin("POST", "faults", { refuse_existing_project_env_var: true })).status,
    ).toBe(200);
    const refused = await t.post(path, { name: "NEW_VAR", value: "third-value-3456" });
    expect(refused.status).toBe(400);
    expect(errorOf(refused).type).toBe("already_exists");
    expect((await t.admin("POST", "faults", {})).status).toBe(200);
    expect((await t.state()).orgs![0]!.projects![0]!.env).toMatchObject({
      NEW_VAR: "other-value-9012",
    });
  });

  it("empty value, bad name and unknown members are 400; unknown project 404", async () => {
    expect((await t.post(path, { name: "X", value: "" })).status).toBe(400);
    expect((await t.post(path, { name: "1X", value: "v" })).status).toBe(400);
    expect((await t.post(path, { name: "X", value: "v", extra: 1 })).status).toBe(400);
    expect(
      (await t.post(`/api/v3/projects/${MISSING}/environment-variables`, { name: "X", value: "v" }))
        .status,
    ).toBe(404);
  });

  it("DELETE by name is 204, then 404", async () => {
    expect((await t.del(`${path}/NPM_TOKEN`)).status).toBe(204);
    expect((await t.del(`${path}/NPM_TOKEN`)).status).toBe(404);
    expect(list(await t.get(path))).toEqual([]);
  });
});

describe("contexts", () => {
  it("filter[org_id] is required (400); an unknown org is 404", async () => {
    const r = await t.get("/api/v3/contexts");
    expect(r.status).toBe(400);
    expect(errorOf(r).type).toBe("missing_filter");
    expect((await t.get(`/api/v3/contexts?filter[org_id]=${MISSING}`)).status).toBe(404);
  });

  it("include=restrictions on a list embeds only group restrictions", async () => {
    const r = await t.get(`/api/v3/contexts?filter[org_id]=${ORG}&include=restrictions`);
    const prod = list(r).find((c) => c.id === CTX_PROD)!;
    const embedded = prod.references!["context-restrictions"] as Item[];
    expect(embedded.map((e) => e.attributes.restriction_type)).toEqual(["group", "group"]);
    expect(embedded.map((e) => e.attributes.match_pattern)).toEqual([GROUP, ORG]);
    expect(embedded[0]!.attributes.name).toBe("platform");
    const plain = await t.get(`/api/v3/contexts?filter[org_id]=${ORG}`);
    expect(list(plain)[0]!.references!["context-restrictions"]).toBeUndefined();
  });

  it("include=restrictions on a single read embeds every type, with names", async () => {
    const r = one(await t.get(`/api/v3/contexts/${CTX_PROD}?include=restrictions`));
    const embedded = r.references!["context-restrictions"] as Item[];
    expect(embedded.map((e) => e.attributes.restriction_type)).toEqual([
      "project",
      "expression",
      "group",
      "group",
    ]);
    expect(embedded[0]!.attributes.name).toBe("API");
  });

  it("any other include is 400, on list and read", async () => {
    expect((await t.get(`/api/v3/contexts?filter[org_id]=${ORG}&include=env`)).status).toBe(400);
    const r = await t.get(`/api/v3/contexts/${CTX_PROD}?include=restrictions,env`);
    expect(r.status).toBe(400);
    expect(errorOf(r).type).toBe("invalid_include");
  });

  it("create adds the default all-members group restriction", async () => {
    const c = await t.post("/api/v3/contexts", {
      data: { attributes: { name: "new-ctx" }, references: { org: { id: ORG } } },
    });
    expect(c.status).toBe(201);
    const id = one(c).id!;
    expect(one(c)).toMatchObject({
      attributes: { name: "new-ctx" },
      references: { org: { id: ORG } },
    });
    const rs = list(await t.get(`/api/v3/context-restrictions?filter[context_id]=${id}`));
    expect(rs).toHaveLength(1);
    expect(rs[0]).toMatchObject({
      id: ORG,
      attributes: { restriction_type: "group", match_pattern: ORG },
    });
  });

  it("no default restriction in an org seeded with default_context_restriction: false", async () => {
    const c = await t.post("/api/v3/contexts", {
      data: { attributes: { name: "quiet" }, references: { org: { id: ORG_NO_DEFAULT } } },
    });
    const rs = list(await t.get(`/api/v3/context-restrictions?filter[context_id]=${one(c).id}`));
    expect(rs).toEqual([]);
  });

  // spec: api-v3.md Contexts: POST lists 201, 400: an unknown org is invalid input.
  it("create: unknown org 400, duplicate name 400, rel/attributes accepted on the reference", async () => {
    const body = (org: string, name: string) => ({
      data: { attributes: { name }, references: { org: { id: org, rel: "org" } } },
    });
    const unknown = await t.post("/api/v3/contexts", body(MISSING, "x"));
    expect(unknown.status).toBe(400);
    expect(errorOf(unknown).type).toBe("unknown_reference");
    const dup = await t.post("/api/v3/contexts", body(ORG, "deploy-prod"));
    expect(dup.status).toBe(400);
    expect(errorOf(dup).type).toBe("already_exists");
  });

  it("DELETE is 204, then 404", async () => {
    expect((await t.del(`/api/v3/contexts/${CTX_LEGACY}`)).status).toBe(204);
    expect((await t.get(`/api/v3/contexts/${CTX_LEGACY}`)).status).toBe(404);
    expect((await t.del(`/api/v3/contexts/${CTX_LEGACY}`)).status).toBe(404);
  });
});

describe("context env vars", () => {
  const path = `/api/v3/contexts/${CTX_PROD}/env-vars`;

  it("list: name + truncated_value (last 4), never the value", async () => {
    const r = await t.get(path);
    expect(list(r).map((i) => i.attributes)).toEqual([
      expect.objectContaining({ name: "AWS_REGION", truncated_value: "st-1" }),
      expect.objectContaining({ name: "AWS_SECRET", truncated_value: "9876" }),
    ]);
    expect(list(r)[0]!.id).toBeUndefined();
    expect(r.text).not.toContain("super-secret");
    expect((await t.get(`/api/v3/contexts/${MISSING}/env-vars`)).status).toBe(404);
  });

  it("set upserts, always 200, and the response has no truncated_value", async () => {
    const created = await t.post(`${path}/set`, { name: "NEW", value: "brand-new-1111" });
    expect(created.status).toBe(200);
    expect(one(created).attributes.name).toBe("NEW");
    expect(one(created).attributes).not.toHaveProperty("truncated_value");
    expect(created.text).not.toContain("1111");
    const updated = await t.post(`${path}/set`, { name: "AWS_SECRET", value: "rotated-2222" });
    expect(updated.status).toBe(200);
    const st = await t.state();
    expect(st.orgs![0]!.contexts![0]!.env).toMatchObject({
      NEW: "brand-new-1111",
      AWS_SECRET: "rotated-2222",
    });
  });

  it("set with an empty value, a missing member or an unknown member is 400", async () => {
    expect((await t.post(`${path}/set`, { name: "X", value: "" })).status).toBe(400);
    expect((await t.post(`${path}/set`, { name: "X" })).status).toBe(400);
    expect((await t.post(`${path}/set`, { name: "X", value: "v", secret: true })).status).toBe(400);
    expect(
      (await t.post(`/api/v3/contexts/${MISSING}/env-vars/set`, { name: "X", value: "v" })).status,
    ).toBe(404);
  });

  it("DELETE needs filter[name] (400), unknown name 404, else 204", async () => {
    expect((await t.del(path)).status).toBe(400);
    expect((await t.del(`${path}?filter[name]=NOPE`)).status).toBe(404);
    expect((await t.del(`${path}?filter[name]=AWS_REGION`)).status).toBe(204);
    expect(list(await t.get(path)).map((i) => i.attributes.name)).toEqual(["AWS_SECRET"]);
  });
});

describe("context restrictions", () => {
  const create = (context: string, restriction_type: string, match_pattern: string) =>
    t.post("/api/v3/context-restrictions", {
      data: {
        attributes: { restriction_type, match_pattern },
        references: { context: { id: context } },
      },
    });

  it("list needs filter[context_id] (400); an unknown context is 404; all types with names", async () => {
    expect((await t.get("/api/v3/context-restrictions")).status).toBe(400);
    expect((await t.get(`/api/v3/context-restrictions?filter[context_id]=${MISSING}`)).status).toBe(
      404,
    );
    const rs = list(await t.get(`/api/v3/context-restrictions?filter[context_id]=${CTX_PROD}`));
    expect(rs.map((r) => r.attributes.restriction_type)).toEqual([
      "project",
      "expression",
      "group",
      "group",
    ]);
    expect(rs[0]!.references).toEqual({
      context: { id: CTX_PROD },
      project: { id: P_API, attributes: { name: "API" } },
    });
    expect(rs[1]!.references).toEqual({ context: { id: CTX_PROD } });
    expect(rs[2]!.id).toBe(GROUP);
    expect(rs[3]!.references).toMatchObject({
      group: { id: ORG, attributes: { name: "All members" } },
    });
  });

  it("create: 201 with id-only references; invalid restriction_type is 400", async () => {
    const c = await create(CTX_LEGACY, "project", P_WEB);
    expect(c.status).toBe(201);
    expect(one(c).references).toEqual({ context: { id: CTX_LEGACY }, project: { id: P_WEB } });
    const g = await create(CTX_LEGACY, "group", GROUP);
    expect(one(g).id).toBe(GROUP);
    const bad = await create(CTX_LEGACY, "team", GROUP);
    expect(bad.status).toBe(400);
    expect(errorOf(bad).source?.pointer).toBe("/data/attributes/restriction_type");
    // spec: Context restrictions: POST lists 201, 400: an unknown context is 400.
    expect((await create(MISSING, "expression", "true")).status).toBe(400);
  });

  it("create: a duplicate, a foreign project or an unknown group is 400", async () => {
    expect(errorOf(await create(CTX_PROD, "project", P_API)).type).toBe("already_exists");
    expect((await create(CTX_LEGACY, "project", P_OTHER)).status).toBe(400);
    expect((await create(CTX_LEGACY, "group", MISSING)).status).toBe(400);
  });

  it("DELETE needs filter[context_id]; ids are unique only within a context", async () => {
    const inProd = list(
      await t.get(`/api/v3/context-restrictions?filter[context_id]=${CTX_PROD}`),
    )[0]!;
    const inStaging = list(
      await t.get(`/api/v3/context-restrictions?filter[context_id]=${CTX_STAGING}`),
    )[0]!;
    expect(inStaging.id).toBe(inProd.id);
    expect((await t.del(`/api/v3/context-restrictions/${inProd.id}`)).status).toBe(400);
    expect(
      (await t.del(`/api/v3/context-restrictions/${inProd.id}?filter[context_id]=${CTX_STAGING}`))
        .status,
    ).toBe(204);
    expect(
      list(await t.get(`/api/v3/context-restrictions?filter[context_id]=${CTX_STAGING}`)),
    ).toEqual([]);
    expect(
      list(await t.get(`/api/v3/context-restrictions?filter[context_id]=${CTX_PROD}`)),
    ).toHaveLength(4);
    expect(
      (await t.del(`/api/v3/context-restrictions/${inProd.id}?filter[context_id]=${CTX_STAGING}`))
        .status,
    ).toBe(404);
  });

  it("a group restriction is deleted by the group id; all-members by the org id", async () => {
    expect(
      (await t.del(`/api/v3/context-restrictions/${GROUP}?filter[context_id]=${CTX_PROD}`)).status,
    ).toBe(204);
    expect(
      (await t.del(`/api/v3/context-restrictions/${ORG}?filter[context_id]=${CTX_PROD}`)).status,
    ).toBe(204);
    const left = list(await t.get(`/api/v3/context-restrictions?filter[context_id]=${CTX_PROD}`));
    expect(left.map((r) => r.attributes.restriction_type)).toEqual(["project", "expression"]);
  });
});

describe("webhooks", () => {
  const attrs = (over: Record<string, unknown> = {}) => ({
    name: "n",
    scope: "project",
    url: "https://example.com/hook",
    events: ["job-completed"],
    ...over,
  });
  const create = (over: Record<string, unknown> = {}, project = P_API) =>
    t.post("/api/v3/webhooks", {
      data: { attributes: attrs(over), references: { project: { id: project } } },
    });

  it("list needs filter[project_id] (400); unknown project 404; filter[is_enabled]", async () => {
    expect((await t.get("/api/v3/webhooks")).status).toBe(400);
    expect((await t.get(`/api/v3/webhooks?filter[project_id]=${MISSING}`)).status).toBe(404);
    expect(ids(list(await t.get(`/api/v3/webhooks?filter[project_id]=${P_API}`)))).toEqual([HOOK]);
    expect(
      list(await t.get(`/api/v3/webhooks?filter[project_id]=${P_API}&filter[is_enabled]=false`)),
    ).toEqual([]);
    expect(
      (await t.get(`/api/v3/webhooks?filter[project_id]=${P_API}&filter[is_enabled]=maybe`)).status,
    ).toBe(400);
  });

  it("the signing secret is write-only; has_signing_secret tells; defaults are true", async () => {
    const r = await t.get(`/api/v3/webhooks/${HOOK}`);
    expect(one(r).attributes).toMatchObject({
      has_signing_secret: true,
      should_verify_tls: true,
      is_enabled: true,
    });
    expect(one(r).attributes).not.toHaveProperty("signing_secret");
    expect(r.text).not.toContain("signing-1111");
    const c = await create({ signing_secret: "new-secret-3333" });
    expect(c.status).toBe(201);
    expect(c.text).not.toContain("new-secret-3333");
    expect(one(c).attributes).toMatchObject({
      has_signing_secret: true,
      should_verify_tls: true,
      is_enabled: true,
      scope: "project",
    });
    const plain = await create({ should_verify_tls: false, is_enabled: false });
    expect(one(plain).attributes).toMatchObject({
      has_signing_secret: false,
      should_verify_tls: false,
      is_enabled: false,
    });
  });

  it("only https URLs (400 invalid_url); unknown event 400; unknown project 404", async () => {
    const http = await create({ url: "http://example.com/hook" });
    expect(http.status).toBe(400);
    expect(errorOf(http)).toMatchObject({
      type: "invalid_url",
      source: { pointer: "/data/attributes/url" },
    });
    expect((await create({ url: "not a url" })).status).toBe(400);
    expect((await create({ events: ["push"] })).status).toBe(400);
    expect((await create({ events: [] })).status).toBe(400);
    expect((await create({}, MISSING)).status).toBe(404);
  });

  it("25 per project: the 26th is 400", async () => {
    for (let i = 0; i < 24; i++) expect((await create({ name: `h${i}` })).status).toBe(201);
    const over = await create({ name: "one-too-many" });
    expect(over.status).toBe(400);
    expect(errorOf(over).type).toBe("limit_exceeded");
    expect((await create({ name: "elsewhere" }, P_WEB)).status).toBe(201);
  });

  it("update: only the listed fields; a non-empty secret replaces; an empty one cannot remove", async () => {
    const path = `/api/v3/webhooks/${HOOK}/update`;
    expect(errorOf(await t.post(path, { scope: "org" })).source?.pointer).toBe("/scope");
    expect((await t.post(path, { is_enabled: false })).status).toBe(400);
    expect((await t.post(path, { url: "http://x.example" })).status).toBe(400);
    const u = await t.post(path, {
      events: ["job-completed", "workflow-completed"],
      signing_secret: "",
    });
    expect(u.status).toBe(200);
    expect(one(u).attributes).toMatchObject({
      name: "slack",
      events: ["job-completed", "workflow-completed"],
      has_signing_secret: true,
    });
    let st = await t.state();
    expect(st.orgs![0]!.projects![0]!.webhooks![0]!.signing_secret).toBe("signing-1111");
    await t.post(path, { signing_secret: "rotated-4444" });
    st = await t.state();
    expect(st.orgs![0]!.projects![0]!.webhooks![0]!.signing_secret).toBe("rotated-4444");
    expect((await t.post(`/api/v3/webhooks/${MISSING}/update`, {})).status).toBe(404);
  });

  it("set-enabled needs is_enabled; same value is a no-op; DELETE 204 then 404", async () => {
    const path = `/api/v3/webhooks/${HOOK}/set-enabled`;
    expect((await t.post(path, {})).status).toBe(400);
    expect((await t.post(path, { is_enabled: "no" })).status).toBe(400);
    expect(one(await t.post(path, { is_enabled: false })).attributes.is_enabled).toBe(false);
    expect(one(await t.post(path, { is_enabled: false })).attributes.is_enabled).toBe(false);
    expect(one(await t.post(path, { is_enabled: true })).attributes.is_enabled).toBe(true);
    expect((await t.del(`/api/v3/webhooks/${HOOK}`)).status).toBe(204);
    expect((await t.get(`/api/v3/webhooks/${HOOK}`)).status).toBe(404);
    expect((await t.del(`/api/v3/webhooks/${HOOK}`)).status).toBe(404);
    expect((await t.post(path, { is_enabled: true })).status).toBe(404);
  });
});

describe("pipelines and the synthetic OAuth pipeline", () => {
  const synthetic = async (): Promise<Item> => {
    const r = list(await t.get(`/api/v3/pipelines?filter[project_id]=${P_OAUTH}`));
    expect(r).toHaveLength(1);
    return r[0]!;
  };

  it("list needs filter[project_id] (400); unknown project 404", async () => {
    expect((await t.get("/api/v3/pipelines")).status).toBe(400);
    expect((await t.get(`/api/v3/pipelines?filter[project_id]=${MISSING}`)).status).toBe(404);
    // spec: Pipelines: the list "includes the synthetic OAuth pipeline" (every project has it).
    const listed = list(await t.get(`/api/v3/pipelines?filter[project_id]=${P_API}`));
    expect(listed.map((p) => p.attributes.name)).toEqual(["OAuth", "build"]);
    expect(listed[1]!.id).toBe(PIPE);
  });

  it("the synthetic pipeline is listed, has a derived id (not the project id), carries no marker", async () => {
    const s = await synthetic();
    expect(s.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(s.id).not.toBe(P_OAUTH);
    expect(s.references).toEqual({ project: { id: P_OAUTH } });
    expect(Object.keys(s.attributes).sort()).toEqual([
      "checkout",
      "config",
      "created_at",
      "description",
      "name",
    ]);
    // Same id on another emulator: derived deterministically from the project id.
    const other = await startTestEmu();
    try {
      const again = list(await other.get(`/api/v3/pipelines?filter[project_id]=${P_OAUTH}`))[0]!;
      expect(again.id).toBe(s.id);
    } finally {
      await other.close();
    }
  });

  it("GET/DELETE by id resolve it only with filter[project_id]", async () => {
    const s = await synthetic();
    expect((await t.get(`/api/v3/pipelines/${s.id}`)).status).toBe(404);
    expect(one(await t.get(`/api/v3/pipelines/${s.id}?filter[project_id]=${P_OAUTH}`)).id).toBe(
      s.id,
    );
    expect((await t.del(`/api/v3/pipelines/${s.id}`)).status).toBe(404);
    expect((await t.get(`/api/v3/pipelines/${s.id}?filter[project_id]=${P_API}`)).status).toBe(404);
  });

  it("update and delete of the synthetic pipeline are 400", async () => {
    const s = await synthetic();
    const del = await t.del(`/api/v3/pipelines/${s.id}?filter[project_id]=${P_OAUTH}`);
    expect(del.status).toBe(400);
    expect(errorOf(del).type).toBe("not_updatable");
    const up = await t.post(`/api/v3/pipelines/${s.id}/update?filter[project_id]=${P_OAUTH}`, {
      name: "x",
    });
    expect(up.status).toBe(400);
    expect((await t.post(`/api/v3/pipelines/${s.id}/update`, { name: "x" })).status).toBe(404);
  });

  it("create returns the full entity; unknown members and a vcs config without vcs are 400", async () => {
    const attributes = {
      name: "deploy",
      config: { type: "vcs", file_path: ".service/deploy.yml", vcs: repo },
      checkout: { vcs: repo },
    };
    const c = await t.post("/api/v3/pipelines", {
      data: { attributes, references: { project: { id: P_API } } },
    });
    expect(c.status).toBe(201);
    expect(one(c).attributes).toMatchObject({
      name: "deploy",
      config: { file_path: ".service/deploy.yml" },
    });
    const extra = await t.post("/api/v3/pipelines", {
      data: {
        attributes: { ...attributes, config: { ...attributes.config, branch: "x" } },
        references: { project: { id: P_API } },
      },
    });
    expect(errorOf(extra).source?.pointer).toBe("/data/attributes/config/branch");
    const noVcs = await t.post("/api/v3/pipelines", {
      data: {
        attributes: { ...attributes, config: { type: "vcs", file_path: "x" } },
        references: { project: { id: P_API } },
      },
    });
    expect(noVcs.status).toBe(400);
    const noProject = await t.post("/api/v3/pipelines", {
      data: { attributes, references: { project: { id: MISSING } } },
    });
    // spec: Pipelines: POST lists 201, 400: an unknown project is 400.
    expect(noProject.status).toBe(400);
  });

  it("update changes only name, description, config.file_path, config.file_type", async () => {
    const path = `/api/v3/pipelines/${PIPE}/update`;
    const u = await t.post(path, { description: "new", config: { file_type: "yaml" } });
    expect(u.status).toBe(200);
    expect(one(u).attributes).toMatchObject({
      name: "build",
      description: "new",
      config: { type: "vcs", file_path: ".service/config.yml", file_type: "yaml", vcs: repo },
    });
    expect(errorOf(await t.post(path, { config: { type: "hosted" } })).source?.pointer).toBe(
      "/config/type",
    );
    expect((await t.post(path, { checkout: { vcs: repo } })).status).toBe(400);
    expect((await t.post(`/api/v3/pipelines/${MISSING}/update`, {})).status).toBe(404);
  });

  it("DELETE of a stored pipeline is 204 and takes its triggers with it", async () => {
    expect((await t.del(`/api/v3/pipelines/${PIPE}`)).status).toBe(204);
    expect((await t.get(`/api/v3/triggers/${TR_VCS}`)).status).toBe(404);
    expect((await t.del(`/api/v3/pipelines/${PIPE}`)).status).toBe(404);
  });
});

describe("triggers", () => {
  const create = (attributes: Record<string, unknown>, pipeline = PIPE) =>
    t.post("/api/v3/triggers", {
      data: { attributes, references: { pipeline: { id: pipeline } } },
    });
  const syntheticPipelineId = async () =>
    list(await t.get(`/api/v3/pipelines?filter[project_id]=${P_OAUTH}`))[0]!.id!;

  it("a filter preset outside the spec's event_preset values is 400 (Decision: less forgiving)", async () => {
    const event = (preset: string) => ({
      type: "vcs",
      vcs: repo,
      filter: { preset },
    });
    const bad = await create({ event: event("all-push") });
    expect(bad.status).toBe(400);
    expect(errorOf(bad).source?.pointer).toBe("/data/attributes/event/filter/preset");
    expect((await create({ event: event("only-tags") })).status).toBe(201);
  });

  it("list needs filter[project_id] or filter[pipeline_id] (400)", async () => {
    expect((await t.get("/api/v3/triggers")).status).toBe(400);
    expect(ids(list(await t.get(`/api/v3/triggers?filter[pipeline_id]=${PIPE}`)))).toEqual([
      TR_VCS,
      TR_SCHED,
      TR_HOOK,
    ]);
    // The synthetic OAuth trigger comes first (every project has it).
    expect(ids(list(await t.get(`/api/v3/triggers?filter[project_id]=${P_API}`))).slice(1)).toEqual(
      [TR_VCS, TR_SCHED, TR_HOOK],
    );
    expect((await t.get(`/api/v3/triggers?filter[pipeline_id]=${MISSING}`)).status).toBe(404);
  });

  it("the synthetic trigger: listed by project; pipeline-only for the synthetic pipeline is 404", async () => {
    const pid = await syntheticPipelineId();
    const byProject = list(await t.get(`/api/v3/triggers?filter[project_id]=${P_OAUTH}`));
    expect(byProject).toHaveLength(1);
    expect(byProject[0]!.references).toEqual({ pipeline: { id: pid } });
    expect((await t.get(`/api/v3/triggers?filter[pipeline_id]=${pid}`)).status).toBe(404);
    const both = list(
      await t.get(`/api/v3/triggers?filter[project_id]=${P_OAUTH}&filter[pipeline_id]=${pid}`),
    );
    expect(ids(both)).toEqual(ids(byProject));
    const tid = byProject[0]!.id!;
    expect((await t.get(`/api/v3/triggers/${tid}`)).status).toBe(404);
    expect((await t.get(`/api/v3/triggers/${tid}?filter[project_id]=${P_OAUTH}`)).status).toBe(200);
    expect((await t.del(`/api/v3/triggers/${tid}`)).status).toBe(404);
    expect((await t.del(`/api/v3/triggers/${tid}?filter[project_id]=${P_OAUTH}`)).status).toBe(400);
    expect(
      (
        await t.post(`/api/v3/triggers/${tid}/update?filter[project_id]=${P_OAUTH}`, {
          is_disabled: true,
        })
      ).status,
    ).toBe(400);
  });

  it("the webhook secret is returned once, in the create response", async () => {
    const c = await create({
      event: { type: "webhook", webhook: { name: "deploy-hook", source: "bot" } },
    });
    expect(c.status).toBe(201);
    const secret = (one(c).attributes.event as { webhook: { secret?: string } }).webhook.secret;
    expect(secret).toMatch(/^[0-9a-f]{32}$/);
    const read = await t.get(`/api/v3/triggers/${one(c).id}`);
    expect((one(read).attributes.event as { webhook: object }).webhook).toEqual({
      name: "deploy-hook",
      source: "bot",
    });
    expect(read.text).not.toContain(secret!);
    const listed = await t.get(`/api/v3/triggers?filter[pipeline_id]=${PIPE}`);
    expect(listed.text).not.toContain(secret!);
    expect(listed.text).not.toContain("trigger-secret-1");
    const given = await create({
      event: { type: "webhook", webhook: { name: "h2", secret: "chosen-secret" } },
    });
    expect((one(given).attributes.event as { webhook: { secret: string } }).webhook.secret).toBe(
      "chosen-secret",
    );
  });

  it("parameters only on schedule triggers: 400 on create and update otherwise", async () => {
    const bad = await create({ event: { type: "vcs", vcs: repo }, parameters: { a: 1 } });
    expect(bad.status).toBe(400);
    expect(errorOf(bad).source?.pointer).toBe("/data/attributes/parameters");
    const ok = await create({
      event: { type: "schedule", schedule: { name: "s", cron_expression: "0 0 * * *" } },
      parameters: { a: 1 },
    });
    expect(ok.status).toBe(201);
    expect(
      (await t.post(`/api/v3/triggers/${TR_VCS}/update`, { parameters: { a: 1 } })).status,
    ).toBe(400);
  });

  it("create: bad event type, missing vcs, bad cron, unknown pipeline", async () => {
    expect((await create({ event: { type: "push" } })).status).toBe(400);
    expect((await create({ event: { type: "vcs" } })).status).toBe(400);
    expect(
      (await create({ event: { type: "schedule", schedule: { cron_expression: "daily" } } }))
        .status,
    ).toBe(400);
    // spec: Triggers: POST lists 201, 400: an unknown (or the synthetic) pipeline is 400.
    expect((await create({ event: { type: "vcs", vcs: repo } }, MISSING)).status).toBe(400);
    expect((await create({ event: { type: "vcs", vcs: repo }, color: "red" })).status).toBe(400);
    expect(
      (await create({ event: { type: "vcs", vcs: repo } }, await syntheticPipelineId())).status,
    ).toBe(400);
  });

  it("update: parameters replace wholesale, omitted keeps, {} clears", async () => {
    const path = `/api/v3/triggers/${TR_SCHED}/update`;
    const a = await t.post(path, { parameters: { x: 1 } });
    expect(one(a).attributes.parameters).toEqual({ x: 1 });
    const b = await t.post(path, { is_disabled: true, config: { ref: "release" } });
    expect(one(b).attributes).toMatchObject({
      parameters: { x: 1 },
      is_disabled: true,
      config: { ref: "release" },
    });
    const c = await t.post(path, { parameters: {} });
    expect(one(c).attributes).not.toHaveProperty("parameters");
  });

  it("update: event.schedule/webhook/filter; other event members and mismatched types are 400", async () => {
    const s = await t.post(`/api/v3/triggers/${TR_SCHED}/update`, {
      event: { schedule: { cron_expression: "5 4 * * *" } },
    });
    expect(one(s).attributes.event).toMatchObject({
      type: "schedule",
      schedule: { name: "nightly", cron_expression: "5 4 * * *" },
    });
    expect(
      (await t.post(`/api/v3/triggers/${TR_VCS}/update`, { event: { schedule: { name: "x" } } }))
        .status,
    ).toBe(400);
    expect(
      (await t.post(`/api/v3/triggers/${TR_VCS}/update`, { event: { type: "schedule" } })).status,
    ).toBe(400);
    expect(
      (await t.post(`/api/v3/triggers/${TR_VCS}/update`, { event: { vcs: repo } })).status,
    ).toBe(400);
    const f = await t.post(`/api/v3/triggers/${TR_VCS}/update`, {
      event: { filter: { preset: "only-tags" } },
    });
    expect(one(f).attributes.event).toMatchObject({
      type: "vcs",
      vcs: repo,
      filter: { preset: "only-tags" },
    });
    const h = await t.post(`/api/v3/triggers/${TR_HOOK}/update`, {
      event: { webhook: { source: "bot2" } },
    });
    expect(one(h).attributes.event).toEqual({
      type: "webhook",
      webhook: { name: "hook", source: "bot2" },
    });
    expect((await t.post(`/api/v3/triggers/${MISSING}/update`, {})).status).toBe(404);
  });

  it("DELETE 204 then 404", async () => {
    expect((await t.del(`/api/v3/triggers/${TR_VCS}`)).status).toBe(204);
    expect((await t.del(`/api/v3/triggers/${TR_VCS}`)).status).toBe(404);
  });
});

describe("V2 routes", () => {
  it("groups: {items, next_page_token} with limit and page-token; unknown org 404 {message}", async () => {
    const seed = baseSeed();
    const org = {
      ...seed.orgs![0]!,
      groups: [{ id: GROUP, name: "platform" }, { name: "b" }, { name: "c" }],
    };
    await t.admin("POST", "reset", { ...seed, orgs: [org, seed.orgs![1]!] });
    const p1 = await t.get(`/api/v2/organizations/${ORG}/groups?limit=2`);
    const b1 = p1.body as { items: { id: string; name: string }[]; next_page_token: string | null };
    // Sorted by name (emulator/src/routes/groups.ts).
    expect(b1.items.map((g) => g.name)).toEqual(["b", "c"]);
    expect(b1.next_page_token).not.toBeNull();
    const p2 = await t.get(
      `/api/v2/organizations/${ORG}/groups?limit=2&page-token=${encodeURIComponent(b1.next_page_token!)}`,
    );
    expect(p2.body).toMatchObject({ items: [{ name: "platform" }], next_page_token: null });
    const miss = await t.get(`/api/v2/organizations/${MISSING}/groups`);
    expect(miss.status).toBe(404);
    expect(miss.body).toEqual({ message: expect.any(String) });
    expect((await t.get(`/api/v2/organizations/${ORG}/groups?limit=0`)).status).toBe(400);
  });

  it("project envvar: masked xxxx + last 4; slug escaped or not", async () => {
    const escaped = await t.get("/api/v2/project/gh%2Facme%2Fapi/envvar");
    expect(escaped.status).toBe(200);
    expect(escaped.body).toMatchObject({
      items: [{ name: "NPM_TOKEN", value: "xxxxabcd" }],
      next_page_token: null,
    });
    expect(escaped.text).not.toContain("npm-token");
    const plain = await t.get("/api/v2/project/gh/acme/api/envvar");
    expect(plain.body).toEqual(escaped.body);
    expect((await t.get("/api/v2/project/gh/acme/nope/envvar")).status).toBe(404);
  });

  it("V2 needs the token too", async () => {
    expect((await t.get("/api/v2/project/gh/acme/api/envvar", { token: null })).status).toBe(401);
    expect((await t.get("/api/v2/project/gh/acme/api/envvar", { token: `${TOKEN}x` })).status).toBe(
      401,
    );
  });
});
