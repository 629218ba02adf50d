/**
 * The registry of the emulator's kind families: the one list a new family's route module is
 * added to (docs/adding-a-kind.md, "Emulator"). The server (server.ts) routes exactly these.
 */
import type { Route } from "./http.js";
import { checkoutKeyRoutes } from "./routes/checkout-keys.js";
import { contextRoutes } from "./routes/contexts.js";
import { envVarRoutes } from "./routes/env-vars.js";
import { groupRoutes } from "./routes/groups.js";
import { orgRoutes } from "./routes/orgs.js";
import { otelExporterRoutes } from "./routes/otel-exporters.js";
import { pipelineRoutes } from "./routes/pipelines.js";
import { projectLifecycleRoutes, projectRoutes } from "./routes/projects.js";
import { restrictionRoutes } from "./routes/restrictions.js";
import { scheduleRoutes } from "./routes/schedules.js";
import { triggerRoutes } from "./routes/triggers.js";
import { v2Routes } from "./routes/v2.js";
import { webhookRoutes } from "./routes/webhooks.js";

/** Every route of the emulator, in match order (exported for the tests that walk them). */
export const ROUTES: readonly Route[] = [
  ...orgRoutes,
  ...projectRoutes,
  ...contextRoutes,
  ...restrictionRoutes,
  ...envVarRoutes,
  ...webhookRoutes,
  ...pipelineRoutes,
  ...triggerRoutes,
  ...v2Routes,
  ...checkoutKeyRoutes,
  ...otelExporterRoutes,
  ...groupRoutes,
  ...scheduleRoutes,
  // Last: its `*slug` would take every V2 route under a project.
  ...projectLifecycleRoutes,
];
