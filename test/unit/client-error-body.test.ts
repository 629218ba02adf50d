import { describe, expect, it } from "vitest";
import { bodySnippet, describeErrorBody } from "../../src/api/error-body.js";
import { ApiError, formatApiErrorMessage } from "../../src/api/errors.js";

const id = (s: string): string => s;

describe("error bodies", () => {
  it("read the V3 envelope", () => {
    const body = JSON.stringify({
      error: {
        type: "invalid_url",
        id: "e-123",
        title: "Invalid webhook URL",
        detail: "must be https",
        source: { pointer: "/data/attributes/url" },
      },
    });
    expect(describeErrorBody(body, id)).toEqual({
      type: "invalid_url",
      errorId: "e-123",
      title: "Invalid webhook URL",
      detail: "must be https",
      pointer: "/data/attributes/url",
    });
  });

  it("read a V2 message", () => {
    expect(describeErrorBody('{"message":"Project not found"}', id)).toEqual({
      v2Message: "Project not found",
    });
  });

  it("give the title of an HTML page, or its first text", () => {
    const page =
      "<html><head><title>502 Bad Gateway</title></head><body><center><h1>502 Bad Gateway</h1></center><hr><center>nginx</center></body></html>";
    expect(describeErrorBody(page, id)).toEqual({ bodySnippet: "502 Bad Gateway" });
    expect(
      bodySnippet("<html><body><h1>Upstream &amp; down</h1>\n<p>retry</p></body></html>"),
    ).toMatch(/^\(an HTML page without a usable title, not shown/);
    expect(bodySnippet("plain text failure\nsecond line")).toBe("plain text failure");
    expect(bodySnippet("   ")).toBeUndefined();
  });

  it("clip long bodies", () => {
    const snippet = bodySnippet("x".repeat(5000));
    expect(snippet?.length).toBeLessThanOrEqual(200);
  });

  it("scrub every text before it is kept, even across a clip", () => {
    const secret = "s3cr3t-value-0123456789";
    const scrub = (s: string): string => s.split(secret).join("(redacted)");
    const v3 = describeErrorBody(
      JSON.stringify({ error: { title: `bad ${secret}`, detail: secret } }),
      scrub,
    );
    expect(JSON.stringify(v3)).not.toContain(secret);
    const long = `${"a".repeat(190)}${secret}`;
    expect(describeErrorBody(long, scrub).bodySnippet).not.toContain(secret.slice(0, 8));
  });
});

describe("error bodies that may echo the request are never quoted (issue 21)", () => {
  const secret = "generated-secret-0123456789";
  const scrub = (s: string): string => s; // the service generated it: no scrubber knows it

  it.each<[string, string]>([
    ["JSON of another shape", JSON.stringify({ request: { value: secret } })],
    ["a JSON array", JSON.stringify([{ value: secret }])],
    ["an HTML page whose title echoes", `<html><title>Bad value ${secret}=1</title></html>`],
    ["plain text echoing a form body", `bad request: value=${secret}&x=1`],
    ["a long plain line", `error ${"x ".repeat(60)} ${secret}`],
    [
      "a cut-off create response",
      `{"data":{"id":"t1","attributes":{"event":{"webhook":{"secret":"${secret}"`,
    ],
  ])("%s", (_, body) => {
    const described = describeErrorBody(body, scrub);
    expect(JSON.stringify(described)).not.toContain(secret.slice(0, 8));
    expect(described.bodySnippet).toMatch(/not shown/);
  });

  it("still quote a proxy's own short words", () => {
    expect(describeErrorBody("upstream connect error or disconnect", scrub).bodySnippet).toBe(
      "upstream connect error or disconnect",
    );
    expect(
      describeErrorBody(
        `<html><head><title>502 Bad Gateway</title></head><body>${secret}</body></html>`,
        scrub,
      ).bodySnippet,
    ).toBe("502 Bad Gateway");
  });
});

describe("ApiError message", () => {
  it("follows the conventions' format", () => {
    expect(
      formatApiErrorMessage({
        method: "POST",
        path: "/api/v3/webhooks",
        status: 400,
        type: "invalid_url",
        title: "Invalid URL",
        detail: "must be https",
        pointer: "/data/attributes/url",
      }),
    ).toBe(
      "POST /api/v3/webhooks failed with 400 (invalid_url): Invalid URL — must be https at /data/attributes/url",
    );
  });

  it("leaves out absent parts", () => {
    expect(formatApiErrorMessage({ method: "GET", path: "/api/v3/orgs", status: 500 })).toBe(
      "GET /api/v3/orgs failed with 500",
    );
    expect(
      formatApiErrorMessage({ method: "GET", path: "/api/v3/orgs", status: 404, detail: "gone" }),
    ).toBe("GET /api/v3/orgs failed with 404: gone");
    expect(
      new ApiError({ method: "GET", path: "/x", status: 503, attempts: 5, bodySnippet: "down" })
        .message,
    ).toBe("GET /x failed with 503: down (after 5 attempts)");
  });
});
