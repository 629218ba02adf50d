/**
 * The registry of the emulator's families (emulator/src/family.ts; docs/adding-a-kind.md,
 * step 7): a new family is its module, `emulator/src/families/<family>.ts`, and one line
 * here. The generic code walks this list and names no family: the server routes it (each
 * family's `routes` in this order, then every `lastRoutes`), `createState` loads the seed and
 * `dumpState` dumps the state member by member in this order (so the order is the seed's and
 * the dump's key order), `removeWith` cascades a removal through it.
 */

import { checkoutKeys } from "./families/checkout-keys.js";
import { contexts } from "./families/contexts.js";
import { envVars } from "./families/env-vars.js";
import { groups } from "./families/groups.js";
import { orgs } from "./families/orgs.js";
import { otelExporters } from "./families/otel-exporters.js";
import { pipelines } from "./families/pipelines.js";
import { projects } from "./families/projects.js";
import { restrictions } from "./families/restrictions.js";
import { schedules } from "./families/schedules.js";
import { triggers } from "./families/triggers.js";
import { v2 } from "./families/v2.js";
import { webhooks } from "./families/webhooks.js";
import type { Family } from "./family.js";
import type { Route } from "./http.js";

/** Every family, parents before the families whose seed members hang off their items. */
export const FAMILIES: readonly Family[] = [
  orgs,
  groups,
  otelExporters,
  contexts,
  projects,
  envVars,
  restrictions,
  checkoutKeys,
  schedules,
  webhooks,
  pipelines,
  triggers,
  v2,
];

/** The routes of `families`, in match order: each one's `routes`, then every `lastRoutes`. */
export const routesOf = (families: readonly Family[]): readonly Route[] => [
  ...families.flatMap((f) => f.routes),
  ...families.flatMap((f) => f.lastRoutes ?? []),
];

/** Every route of the emulator, in match order (exported for the tests that walk them). */
export const ROUTES: readonly Route[] = routesOf(FAMILIES);
