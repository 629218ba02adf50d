import { createServer, type IncomingMessage } from "node:http";
import { afterEach, describe, expect, it } from "vitest";
import { createApiClient } from "../../src/api/client.js";
import { ApiError, InsecureBaseUrlError } from "../../src/api/errors.js";
import { Secret } from "../../src/core/secret.js";
import {
  baseSeed,
  type Harness,
  ORG_ID,
  rejectionOf,
  startHarness,
  TOKEN,
} from "../helpers/client-harness.js";

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

describe("API client errors (against the emulator)", () => {
  it("maps a real V3 error envelope (missing scope filter is 400)", async () => {
    h = await startHarness();
    const err = await rejectionOf(h.client.listV3("/contexts"));
    expect(err).toBeInstanceOf(ApiError);
    const e = err as ApiError;
    expect(e.code).toBe("api_error");
    expect(e.status).toBe(400);
    expect(e.method).toBe("GET");
    expect(e.path).toBe("/api/v3/contexts");
    expect(e.message.startsWith("GET /api/v3/contexts failed with 400")).toBe(true);
    expect(e.title ?? e.detail).toBeTruthy();
  });

  it("formats every member of the V3 envelope", async () => {
    h = await startHarness();
    await h.script([
      {
        method: "POST",
        path: "/api/v3/webhooks",
        status: 400,
        json: {
          error: {
            type: "invalid_url",
            id: "err-42",
            title: "Invalid webhook URL",
            detail: "the URL must use https",
            source: { pointer: "/data/attributes/url" },
          },
        },
      },
    ]);
    const err = (await rejectionOf(h.client.post("v3", "/webhooks", { data: {} }))) as ApiError;
    expect(err.message).toBe(
      "POST /api/v3/webhooks failed with 400 (invalid_url): Invalid webhook URL — the URL must use https at /data/attributes/url [error id err-42]",
    );
    expect(err).toMatchObject({
      status: 400,
      type: "invalid_url",
      errorId: "err-42",
      pointer: "/data/attributes/url",
    });
  });

  it("names where a sent text was wrong (source.offset, source.error), and the error id", async () => {
    h = await startHarness();
    await h.script([
      {
        method: "POST",
        path: "/api/v3/context-restrictions",
        status: 400,
        json: {
          error: {
            id: "9f1c",
            title: "Invalid expression",
            source: { offset: 12, error: "unexpected token ==" },
          },
        },
      },
    ]);
    const err = (await rejectionOf(
      h.client.post("v3", "/context-restrictions", { data: {} }),
    )) as ApiError;
    expect(err.message).toBe(
      "POST /api/v3/context-restrictions failed with 400: Invalid expression (at offset 12: unexpected token ==) [error id 9f1c]",
    );
    expect(err).toMatchObject({ offset: "12", sourceError: "unexpected token ==" });
  });

  it("reads a V3 401 answered as { message }", async () => {
    h = await startHarness();
    await h.script([
      {
        method: "GET",
        path: "/api/v3/contexts",
        status: 401,
        json: { message: "You must log in first." },
      },
    ]);
    const err = (await rejectionOf(h.client.get("v3", "/contexts"))) as ApiError;
    expect(err.status).toBe(401);
    expect(err.message).toMatch(
      /^GET \/api\/v3\/contexts failed with 401: You must log in first\./,
    );
  });

  it("maps a V2 { message } body", async () => {
    h = await startHarness();
    await h.script([
      {
        method: "DELETE",
        path: "/api/v2/context/*",
        status: 404,
        json: { message: "Context not found." },
      },
    ]);
    const err = (await rejectionOf(
      h.client.delete("v2", "/context/00000000-0000-4000-8000-000000000009"),
    )) as ApiError;
    expect(err.status).toBe(404);
    expect(err.v2Message).toBe("Context not found.");
    expect(err.message).toBe(
      "DELETE /api/v2/context/00000000-0000-4000-8000-000000000009 failed with 404: Context not found.",
    );
  });

  it("gives a readable error for an HTML 502 page, after the bounded retries", async () => {
    h = await startHarness(baseSeed(), {
      retry: { maxAttempts: 2, baseDelayMs: 1, maxDelayMs: 1 },
    });
    const html =
      "<html>\r\n<head><title>502 Bad Gateway</title></head>\r\n<body>\r\n<center><h1>502 Bad Gateway</h1></center>\r\n<hr><center>nginx</center>\r\n</body>\r\n</html>\r\n";
    await h.script([
      {
        method: "GET",
        path: `/api/v3/orgs/${ORG_ID}`,
        status: 502,
        times: 2,
        headers: { "content-type": "text/html" },
        body: html,
      },
    ]);
    const err = (await rejectionOf(h.client.get("v3", `/orgs/${ORG_ID}`))) as ApiError;
    expect(err).toBeInstanceOf(ApiError);
    expect(err.bodySnippet).toBe("502 Bad Gateway");
    expect(err.message).toBe(
      `GET /api/v3/orgs/${ORG_ID} failed with 502: 502 Bad Gateway (after 2 attempts)`,
    );
  });

  it("keeps the token out of every log line, warning and error message", async () => {
    h = await startHarness(baseSeed(), {
      retry: { maxAttempts: 2, baseDelayMs: 1, maxDelayMs: 1 },
      scrub: (s) => s.split("hunter2-secret-value").join("(sensitive)"),
    });
    await h.script([
      {
        method: "GET",
        path: `/api/v3/orgs/${ORG_ID}`,
        status: 401,
        headers: { deprecation: "true", link: `<https://x.example/${TOKEN}>; rel="deprecation"` },
        json: { error: { title: `token ${TOKEN} is not valid`, detail: "hunter2-secret-value" } },
      },
      {
        method: "GET",
        path: "/api/v2/context/*",
        status: 500,
        times: 2,
        body: `<html><title>oops ${TOKEN}</title></html>`,
      },
      { method: "POST", path: "/api/v3/contexts", status: 400, json: { message: TOKEN } },
    ]);
    const errors = [
      await rejectionOf(h.client.get("v3", `/orgs/${ORG_ID}`)),
      await rejectionOf(h.client.get("v2", "/context/00000000-0000-4000-8000-000000000001")),
      await rejectionOf(
        h.client.post("v3", "/contexts", { name: new Secret("hunter2-secret-value") }),
      ),
      await rejectionOf(h.client.listV3("/contexts")),
    ];
    await h.client.listV3("/projects", { "filter[org_id]": ORG_ID });
    const everything = [
      ...errors.map((e) => `${e.message}\n${JSON.stringify(e)}\n${e.stack ?? ""}`),
      ...h.log.map((e) => JSON.stringify(e)),
      ...h.warnings,
      JSON.stringify(await h.requests()),
    ].join("\n");
    expect(h.log.length).toBeGreaterThanOrEqual(6);
    expect(everything).not.toContain(TOKEN);
    expect(everything).not.toContain("hunter2-secret-value");
    expect(errors[0]?.message).toContain("token (redacted) is not valid");
    expect(errors[0]?.message).toContain("(sensitive)");
  });

  it("reveals a Secret in a request body only on the wire", async () => {
    h = await startHarness(
      baseSeed({ contexts: [{ id: "11111111-2222-4333-8444-555555555555", name: "c" }] }),
    );
    await h.client.post("v3", "/contexts/11111111-2222-4333-8444-555555555555/env-vars/set", {
      name: "AWS_KEY",
      value: new Secret("AKIA-real-value-1234"),
    });
    const vars = await h.client.listV3<{ name: string; truncated_value?: string }>(
      "/contexts/11111111-2222-4333-8444-555555555555/env-vars",
    );
    expect(vars.find((v) => v.attributes.name === "AWS_KEY")?.attributes.truncated_value).toBe(
      "1234",
    );
  });

  it("refuses an http:// base URL that is not loopback, before any request", () => {
    expect(() =>
      createApiClient({ baseUrl: "http://ci.example.com", token: new Secret(TOKEN) }),
    ).toThrow(InsecureBaseUrlError);
    try {
      createApiClient({ baseUrl: "http://10.1.2.3:8080/", token: new Secret(TOKEN) });
    } catch (e) {
      expect((e as InsecureBaseUrlError).code).toBe("insecure_base_url");
      expect((e as Error).message).not.toContain(TOKEN);
    }
  });

  it("does not follow a redirect, so the token never reaches another host", async () => {
    const trapped: IncomingMessage[] = [];
    const trap = createServer((req, res) => {
      trapped.push(req);
      res.end("{}");
    });
    await new Promise<void>((r) => trap.listen(0, "127.0.0.1", r));
    const trapUrl = `http://127.0.0.1:${(trap.address() as { port: number }).port}/steal`;
    try {
      h = await startHarness();
      await h.script([
        {
          method: "GET",
          path: `/api/v3/orgs/${ORG_ID}`,
          status: 302,
          headers: { location: trapUrl },
        },
      ]);
      const err = (await rejectionOf(h.client.get("v3", `/orgs/${ORG_ID}`))) as ApiError;
      expect(err).toBeInstanceOf(ApiError);
      expect(err.status).toBe(302);
      expect(err.location).toBe(trapUrl);
      expect(err.message).toContain(`redirect to ${trapUrl} not followed`);
      expect(trapped).toHaveLength(0);
      // Not retried either: a redirect is an answer, not a transient failure.
      expect((await h.requests()).filter((r) => r.path === `/api/v3/orgs/${ORG_ID}`)).toHaveLength(
        1,
      );
    } finally {
      trap.closeAllConnections();
      await new Promise<void>((r) => trap.close(() => r()));
    }
  });

  it("answers 401 for a wrong token with a typed error", async () => {
    h = await startHarness();
    const other = h.newClient({ token: new Secret("not-the-token") });
    const err = (await rejectionOf(other.get("v3", `/orgs/${ORG_ID}`))) as ApiError;
    expect(err.status).toBe(401);
    expect(err.message).not.toContain("not-the-token");
  });
});
