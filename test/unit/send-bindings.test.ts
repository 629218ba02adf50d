/**
 * The saved plan's bindings of the credential URLs apply sends (src/apply/send-bindings.ts,
 * issue 43): a full-length salted SHA-256 per URL sent, keyed by org, address and field;
 * never the URL; another salt gives other hashes; a URL that changed, even to one with the
 * same masked form, breaks its binding; a delete sends no URL and binds none.
 */
import { describe, expect, it } from "vitest";
import { indexDesired } from "../../src/apply/desired-index.js";
import {
  bindingHash,
  brokenBindings,
  credentialUrlsSent,
  sendBindings,
} from "../../src/apply/send-bindings.js";
import { planChanges } from "../../src/plan/plan.js";
import {
  desired,
  dOrg,
  dProject,
  dWebhook,
  live,
  lOrg,
  lProject,
  lWebhook,
} from "../helpers/builders.js";

const PROJECT = "gh/acme/api";
const URL_A = "https://hooks.slack.com/services/T0A/B0A/TokenAaaaaaaaaaaaaaaaaa";
const URL_B = "https://hooks.slack.com/services/T0B/B0B/TokenBbbbbbbbbbbbbbbbbbb";
const KEY = `gh/acme|project["${PROJECT}"].webhook["slack"]|url`;

const config = (url: string) =>
  desired(dOrg({ projects: [dProject(PROJECT, { webhooks: [dWebhook("slack", { url })] })] }));
const liveWith = (url: string) =>
  live(lOrg({ projects: [lProject(PROJECT, { webhooks: [lWebhook("slack", { url })] })] }));

describe("send bindings", () => {
  it("bind each URL a create or update sends, by a salted full-length hash, never the URL", () => {
    const cfg = config(URL_A);
    const plan = planChanges(cfg, liveWith(URL_B));
    expect(credentialUrlsSent(plan, indexDesired(cfg))).toEqual([{ key: KEY, value: URL_A }]);
    const salt = "0123456789abcdef0123456789abcdef";
    const b = sendBindings(plan, indexDesired(cfg), salt);
    expect(b).toEqual({ [KEY]: bindingHash(salt, KEY, URL_A) });
    expect(b[KEY]).toMatch(/^[0-9a-f]{64}$/);
    expect(JSON.stringify(b)).not.toContain("Token");
    expect(sendBindings(plan, indexDesired(cfg), "f".repeat(32))[KEY]).not.toBe(b[KEY]);
    // The config's URL changed since: the binding breaks; the same config keeps it.
    expect(brokenBindings({ salt, values: b }, plan, indexDesired(cfg))).toEqual([]);
    expect(brokenBindings({ salt, values: b }, plan, indexDesired(config(URL_B)))).toEqual([KEY]);
  });

  it("a delete sends no URL and binds none", () => {
    const cfg = desired(dOrg({ projects: [dProject(PROJECT, { webhooks: [] })] }));
    const plan = planChanges(cfg, liveWith(URL_B));
    expect(plan.changes.map((c) => c.action)).toEqual(["delete"]);
    expect(sendBindings(plan, indexDesired(cfg), "0".repeat(32))).toEqual({});
  });
});
