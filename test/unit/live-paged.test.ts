/**
 * Issue 8: collections read page by page (src/live/paged-list.ts), and the reads that hang
 * off a page's items start before the next page is read. Ordering is checked with a gate
 * the test opens itself: no clocks, no sleeping.
 */
import { describe, expect, it } from "vitest";
import type { Query, ReadOnlyApi } from "../../src/api/types.js";
import { LiveReadError } from "../../src/core/errors.js";
import type { V3Resource } from "../../src/core/wire.js";
import { consistentLists, MAX_LIST_READS } from "../../src/live/paged-list.js";
import { readLiveState } from "../../src/live/read-live-state.js";
import type { DesiredConfig, DesiredProject } from "../../src/model/desired.js";
import { fakeListV3 } from "../helpers/fake-list.js";

const source = { file: "waybill.yaml", line: 1, col: 1 };
const ORG = "0a000000-0000-4000-8000-000000000001";
const projectId = (n: number): string => `0b000000-0000-4000-8000-${String(n).padStart(12, "0")}`;
const contextId = (n: number): string => `0c000000-0000-4000-8000-${String(n).padStart(12, "0")}`;

const project = (n: number): V3Resource<{ slug: string }> => ({
  id: projectId(n),
  attributes: { slug: `gh/acme/p${n}` },
});

const notCalled = (): never => {
  throw new Error("not used by this test");
};

/** A fake whose `get` answers from `answer(path, query)`; every call is recorded. */
const fakeApi = (answer: (path: string, query: Query) => Promise<unknown> | unknown) => {
  const calls: { path: string; query: Query }[] = [];
  const api: ReadOnlyApi = {
    get: async <T>(_gen: string, path: string, query?: Query): Promise<T> => {
      calls.push({ path, query: query ?? {} });
      return (await answer(path, query ?? {})) as T;
    },
    listV3: fakeListV3(async (path, query) => {
      calls.push({ path, query });
      return answer(path, query);
    }),
    listV2: notCalled,
  };
  return { api, calls };
};

describe("consistentLists", () => {
  const listed = (
    api: ReadOnlyApi,
    onPage?: (items: readonly V3Resource<{ slug: string }>[]) => void,
  ) =>
    consistentLists(api).listV3<{ slug: string }>(
      "/projects",
      { "filter[org_id]": ORG },
      onPage ? { onPage } : {},
    );

  it("hands each page's items over as the page arrives, and resolves with them all", async () => {
    const pages: Record<string, unknown> = {
      first: { data: [project(1), project(2)], page: { next: "c2" } },
      c2: { data: [project(3)], page: { next: null } },
    };
    const { api, calls } = fakeApi((_path, q) => pages[(q["page[cursor]"] as string) ?? "first"]);
    const seen: number[] = [];
    const all = await listed(api, (items) => seen.push(items.length));
    expect(all.map((p) => p.id)).toEqual([projectId(1), projectId(2), projectId(3)]);
    expect(seen).toEqual([2, 1]);
    // Two pages: read twice, the second read confirming the first.
    expect(calls).toHaveLength(4);
  });

  it("re-reads a listing of several pages ahead of the queue (issue 22: urgent)", async () => {
    const pages: Record<string, unknown> = {
      first: { data: [project(1)], page: { next: "c2" } },
      c2: { data: [project(2)], page: { next: null } },
    };
    const urgent: (boolean | undefined)[] = [];
    const list = fakeListV3((_path, q) => pages[(q["page[cursor]"] as string) ?? "first"]);
    const api: ReadOnlyApi = {
      get: notCalled,
      listV3: (path, query, options) => {
        urgent.push(options?.urgent);
        return list(path, query, options);
      },
      listV2: notCalled,
    };
    await listed(api);
    // The first walk as the caller asked; the confirming walk ahead of queued reads, or it
    // runs alone at the end of a large read, one page per round trip.
    expect(urgent).toEqual([undefined, true]);
  });

  it("reads a one-page listing once: one answer is a snapshot", async () => {
    const { api, calls } = fakeApi(() => ({ data: [project(1)], page: { next: null } }));
    expect((await listed(api)).map((p) => p.id)).toEqual([projectId(1)]);
    expect(calls).toHaveLength(1);
  });

  it("an item deleted between two page reads: read again until two reads agree", async () => {
    // Read 1 meets the deletion of p1 between its pages: p3 moved onto page 1 after page 1
    // was read, so read 1 misses it. Reads 2 and 3 see the listing after the deletion.
    let read = 0;
    const { api } = fakeApi((_path, q) => {
      const cursor = q["page[cursor]"];
      if (cursor === undefined) read += 1;
      if (read === 1)
        return cursor === undefined
          ? { data: [project(1), project(2)], page: { next: "c2" } }
          : { data: [project(4)], page: { next: null } };
      return cursor === undefined
        ? { data: [project(2), project(3)], page: { next: "c2" } }
        : { data: [project(4)], page: { next: null } };
    });
    const seen: string[] = [];
    const all = await listed(api, (items) => seen.push(...items.map((p) => String(p.id))));
    expect(all.map((p) => p.id)).toEqual([projectId(2), projectId(3), projectId(4)]);
    expect(read).toBe(3);
    // onPage met p1 (then deleted) and p3 (found by the second read), each once.
    expect(seen).toEqual([projectId(1), projectId(2), projectId(4), projectId(3)]);
  });

  it("fails when the listing differs on every read", async () => {
    let read = 0;
    const { api } = fakeApi((_path, q) => {
      if (q["page[cursor]"] === undefined) {
        read += 1;
        return { data: [project(read)], page: { next: "c2" } };
      }
      return { data: [project(100)], page: { next: null } };
    });
    const err = await listed(api).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(LiveReadError);
    expect(String((err as Error).message)).toMatch(
      /GET \/api\/v3\/projects\?filter\[org_id\]=.*changed while its pages were read, 4 times in a row/,
    );
    expect(read).toBe(MAX_LIST_READS);
  });

  it("rejects when the client's listing fails, even after pages were handed over", async () => {
    const { api } = fakeApi((_path, q) => {
      if (q["page[cursor]"] === undefined) return { data: [project(1)], page: { next: "c2" } };
      throw new Error("page 2 failed");
    });
    const seen: number[] = [];
    await expect(listed(api, (items) => seen.push(items.length))).rejects.toThrow("page 2 failed");
    expect(seen).toEqual([1]);
  });
});

describe("readLiveState overlaps a listing's pages with the reads of their items", () => {
  const desiredWith = (slugs: readonly string[], contexts: boolean): DesiredConfig => ({
    orgs: [
      {
        slug: "gh/acme",
        source,
        ignore: [],
        ...(contexts ? { contexts: new Map() } : {}),
        projects: new Map(
          slugs.map((s): [string, DesiredProject] => [s, { slug: s, source, env: new Map() }]),
        ),
      },
    ],
    files: ["waybill.yaml"],
  });

  it("reads a project of the first page before the org listing's second page answers", async () => {
    // 12 declared projects: more than the slug look-up maximum, so the org is listed.
    const slugs = Array.from({ length: 12 }, (_, i) => `gh/acme/p${i + 1}`);
    let openGate: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => {
      openGate = resolve;
    });
    const order: string[] = [];
    const { api } = fakeApi(async (path, q) => {
      if (path === "/orgs") return [{ id: ORG, attributes: { slug: "gh/acme" } }];
      if (path === "/projects" && q["page[cursor]"] === undefined) {
        order.push("projects page 1");
        return { data: [project(1)], page: { next: "c2" } };
      }
      if (path === "/projects") {
        order.push("projects page 2 asked");
        await gate;
        order.push("projects page 2 answered");
        return { data: Array.from({ length: 11 }, (_, i) => project(i + 2)), page: { next: null } };
      }
      if (path.endsWith("/environment-variables")) {
        order.push(`env ${path}`);
        if (path.includes(projectId(1))) openGate();
        return [];
      }
      throw new Error(`unexpected ${path}`);
    });
    const live = await readLiveState(api, desiredWith(slugs, false));
    expect(order.indexOf(`env /projects/${projectId(1)}/environment-variables`)).toBeLessThan(
      order.indexOf("projects page 2 answered"),
    );
    expect(live.orgs[0]?.projects.get("gh/acme/p12")).toMatchObject({ status: "found" });
    expect(live.orgs[0]?.projectIds?.size).toBe(12);
  });

  it("reads a context of the first page before the contexts listing's second page answers", async () => {
    let openGate: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => {
      openGate = resolve;
    });
    const order: string[] = [];
    const ctx = (n: number) => ({ id: contextId(n), attributes: { name: `c${n}` } });
    const { api } = fakeApi(async (path, q) => {
      if (path === "/orgs") return [{ id: ORG, attributes: { slug: "gh/acme" } }];
      if (path === "/contexts" && q["page[cursor]"] === undefined) {
        return { data: [ctx(1)], page: { next: "c2" } };
      }
      if (path === "/contexts") {
        await gate;
        order.push("contexts page 2 answered");
        return { data: [ctx(2)], page: { next: null } };
      }
      // Declared contexts: the org settings are read (is_context_group_restriction_required).
      if (path.endsWith("/settings")) return { data: { attributes: {} } };
      if (path.endsWith("/env-vars")) {
        order.push(`env ${path}`);
        openGate();
        return [];
      }
      throw new Error(`unexpected ${path}`);
    });
    const live = await readLiveState(api, desiredWith([], true));
    expect(order[0]).toBe(`env /contexts/${contextId(1)}/env-vars`);
    expect(live.orgs[0]?.contexts?.map((c) => c.name)).toEqual(["c1", "c2"]);
  });

  it("a context listed again on a later page is not read again", async () => {
    let envReads = 0;
    const ctx = { id: contextId(1), attributes: { name: "c1" } };
    const { api } = fakeApi(async (path, q) => {
      if (path === "/orgs") return [{ id: ORG, attributes: { slug: "gh/acme" } }];
      if (path === "/contexts") {
        // A broken listing that answers its first page three times, then ends.
        const n = Number((q["page[cursor]"] as string | undefined) ?? "0");
        return { data: [ctx], page: { next: n < 2 ? String(n + 1) : null } };
      }
      // Declared contexts: the org settings are read (is_context_group_restriction_required).
      if (path.endsWith("/settings")) return { data: { attributes: {} } };
      if (path.endsWith("/env-vars")) {
        envReads++;
        return [];
      }
      throw new Error(`unexpected ${path}`);
    });
    await readLiveState(api, desiredWith([], true));
    expect(envReads).toBe(1);
  });

  it("a listing that fails on a later page fails the read (never a partial list)", async () => {
    const slugs = Array.from({ length: 12 }, (_, i) => `gh/acme/p${i + 1}`);
    const { api } = fakeApi(async (path, q) => {
      if (path === "/orgs") return [{ id: ORG, attributes: { slug: "gh/acme" } }];
      if (path === "/projects" && q["page[cursor]"] === undefined) {
        return { data: [project(1)], page: { next: "c2" } };
      }
      if (path === "/projects") throw new Error("page 2 failed");
      if (path.endsWith("/environment-variables")) return [];
      throw new Error(`unexpected ${path}`);
    });
    await expect(readLiveState(api, desiredWith(slugs, false))).rejects.toThrow("page 2 failed");
  });
});
