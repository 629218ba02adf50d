import { describe, expect, it } from "vitest";
import { isLoopbackHost, parseBaseUrl } from "../../src/api/base-url.js";
import { InsecureBaseUrlError, InvalidBaseUrlError } from "../../src/api/errors.js";

describe("base URL", () => {
  it("accepts https anywhere and strips a trailing slash", () => {
    expect(parseBaseUrl("https://service.example.com/")).toEqual({
      origin: "https://service.example.com",
      pathPrefix: "",
    });
    expect(parseBaseUrl("https://example.com/ci//")).toEqual({
      origin: "https://example.com",
      pathPrefix: "/ci",
    });
  });

  it("accepts http only for loopback hosts", () => {
    expect(parseBaseUrl("http://127.0.0.1:8080").origin).toBe("http://127.0.0.1:8080");
    expect(parseBaseUrl("http://127.1.2.3").origin).toBe("http://127.1.2.3");
    expect(parseBaseUrl("http://localhost:3000/").pathPrefix).toBe("");
    expect(parseBaseUrl("http://[::1]:3000").origin).toBe("http://[::1]:3000");
  });

  it("refuses http for any other host with insecure_base_url", () => {
    for (const url of [
      "http://example.com",
      "http://10.0.0.1",
      "http://0.0.0.0:80",
      "http://localhost.example.com",
      "http://128.0.0.1",
    ]) {
      const err = (() => {
        try {
          parseBaseUrl(url);
        } catch (e) {
          return e;
        }
        return undefined;
      })();
      expect(err, url).toBeInstanceOf(InsecureBaseUrlError);
      expect((err as InsecureBaseUrlError).code).toBe("insecure_base_url");
    }
  });

  it("refuses non-URLs, other schemes, credentials and queries without echoing them", () => {
    expect(() => parseBaseUrl("not a url")).toThrow(InvalidBaseUrlError);
    expect(() => parseBaseUrl("ftp://example.com")).toThrow(InvalidBaseUrlError);
    expect(() => parseBaseUrl("https://example.com/?x=1")).toThrow(InvalidBaseUrlError);
    try {
      parseBaseUrl("https://me:hunter2secret@example.com");
      expect.unreachable();
    } catch (e) {
      expect(e).toBeInstanceOf(InvalidBaseUrlError);
      expect(String((e as Error).message)).not.toContain("hunter2secret");
    }
  });

  it("refuses a base URL ending in an API version's path, naming the root to use", () => {
    // design.md §1 Commands: the service root; the client adds /api/v3, /api/v2.
    expect(() => parseBaseUrl("https://ci.example.com/api/v3/")).toThrow(
      "the base URL ends in /api/v3, but it is the service root (the client adds /api/v3 and /api/v2 itself): use it without the trailing /api/v3 (https://ci.example.com)",
    );
    expect(() => parseBaseUrl("https://ci.example.com/prefix/api/v2")).toThrow(
      /ends in \/api\/v2, .*without the trailing \/api\/v2$/,
    );
    // A path that only contains it elsewhere is a root like any other.
    expect(parseBaseUrl("https://ci.example.com/api/v3x").pathPrefix).toBe("/api/v3x");
  });

  it("knows loopback", () => {
    expect(isLoopbackHost("127.0.0.1")).toBe(true);
    expect(isLoopbackHost("LOCALHOST")).toBe(true);
    expect(isLoopbackHost("127.0.0.256")).toBe(false);
    expect(isLoopbackHost("example.com")).toBe(false);
  });
});
