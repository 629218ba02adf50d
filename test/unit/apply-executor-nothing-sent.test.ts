/**
 * A planned step with no request in it is never reported done (issue 28: "a step that sends
 * nothing says so"): executeOperation fails it, naming the address, and sends nothing.
 */
import { describe, expect, it } from "vitest";
import type { Api } from "../../src/api/types.js";
import type { DesiredIndex } from "../../src/apply/desired-index.js";
import { executeOperation, NothingSentError, newIdRegistry } from "../../src/apply/executor.js";
import type { Change } from "../../src/plan/types.js";

describe("a step with no request", () => {
  it("fails with NothingSentError, and no request is sent", async () => {
    const sent: string[] = [];
    const api = new Proxy(
      {},
      {
        get: (_, name) => () => {
          sent.push(String(name));
          throw new Error("no request expected");
        },
      },
    ) as Api;
    const desired: DesiredIndex = { get: () => undefined } as unknown as DesiredIndex;
    const change: Change = {
      address: 'project["gh/acme/api"].settings',
      resource_type: "project_settings",
      org: "gh/acme",
      collection: 'project["gh/acme/api"].settings',
      reason: "not in the live state",
      action: "create",
      before: null,
      after: { is_oss: true },
      fields: [],
      params: {},
      depends_on: [],
      calls: [],
    };
    await expect(
      executeOperation({ api, desired, ids: newIdRegistry() }, change, "create"),
    ).rejects.toThrow(NothingSentError);
    await expect(
      executeOperation({ api, desired, ids: newIdRegistry() }, change, "create"),
    ).rejects.toThrow(/settings: the plan holds no request for its create, so nothing was sent/);
    expect(sent).toEqual([]);
  });
});
