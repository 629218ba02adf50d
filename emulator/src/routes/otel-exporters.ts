/**
 * OTLP exporters (spec: api-v2-v1.md "Endpoints (V2)"): `GET /otel/exporters?org-id=`
 * ("array of exporters"), `POST /otel/exporters`, `DELETE /otel/exporters/{id}`; at most 5
 * per organization ("Limits"). Errors are V2's `{ message }` (rendered by the server).
 *
 * Decisions where the spec is silent, each the less forgiving reading:
 * - the list is a bare JSON array (as the spec says), not a V2 page;
 * - `org-id` missing or not a UUID is 400; an org that does not exist is 404;
 * - a sixth exporter is 400 (invalid input, as a project at its webhook maximum is in V3);
 * - an unknown `org_id` in the create body is 400; an endpoint with a scheme or without a
 *   port is 400;
 * - two exporters may share protocol and endpoint (no uniqueness rule in the spec);
 * - `headers` are returned with their values as stored: the spec lists `headers` among the
 *   fields and does not say they are masked, so a client that shows them leaks them (our
 *   tests' leak scan then catches it);
 * - `issues` is an empty list (the spec names the field only).
 */
import { badRequest, notFound } from "../errors.js";
import { type Ctx, created, ok, type Route } from "../http.js";
import { isUuid } from "../ids.js";
import { otelExporterCreateSchema } from "../schemas.js";
import {
  checkOtelEndpoint,
  findOrg,
  nextId,
  OTEL_EXPORTERS_PER_ORG,
  type OtelExporterRow,
} from "../store.js";

const render = (e: OtelExporterRow) => ({
  id: e.id,
  org_id: e.orgId,
  endpoint: e.endpoint,
  protocol: e.protocol,
  insecure: e.insecure,
  headers: { ...e.headers },
  issues: [],
});

const exportersOf = (ctx: Ctx, orgId: string): OtelExporterRow[] =>
  ctx.state.otelExporters.filter((e) => e.orgId === orgId);

export const otelExporterRoutes: readonly Route[] = [
  {
    method: "GET",
    pattern: "/api/v2/otel/exporters",
    handler: (ctx) => {
      const orgId = ctx.query.get("org-id");
      if (orgId === null || orgId === "") throw badRequest("missing_filter", "org-id is required");
      if (!isUuid(orgId)) throw badRequest("invalid_filter", "org-id must be a UUID");
      if (!findOrg(ctx.state, orgId)) throw notFound("organization", orgId);
      return ok(exportersOf(ctx, orgId).map(render));
    },
  },
  {
    method: "POST",
    pattern: "/api/v2/otel/exporters",
    body: otelExporterCreateSchema,
    handler: (ctx) => {
      const body = ctx.body as {
        org_id: string;
        endpoint: string;
        protocol: string;
        insecure?: boolean;
        headers?: Record<string, string>;
      };
      if (!isUuid(body.org_id) || !findOrg(ctx.state, body.org_id)) {
        throw badRequest(
          "unknown_reference",
          `/org_id: organization ${body.org_id} does not exist`,
          "/org_id",
        );
      }
      checkOtelEndpoint(body.endpoint, "/endpoint");
      if (exportersOf(ctx, body.org_id).length >= OTEL_EXPORTERS_PER_ORG) {
        throw badRequest(
          "limit_exceeded",
          `the organization already has ${OTEL_EXPORTERS_PER_ORG} OTLP exporters, the maximum`,
        );
      }
      const row: OtelExporterRow = {
        id: nextId(ctx.state, "otel-exporter"),
        orgId: body.org_id,
        endpoint: body.endpoint,
        protocol: body.protocol,
        insecure: body.insecure === true,
        headers: { ...body.headers },
      };
      ctx.state.otelExporters.push(row);
      return created(render(row));
    },
  },
  {
    method: "DELETE",
    pattern: "/api/v2/otel/exporters/:id",
    handler: (ctx) => {
      const i = ctx.state.otelExporters.findIndex((e) => e.id === ctx.params.id);
      if (i < 0) throw notFound("OTLP exporter", ctx.params.id);
      ctx.state.otelExporters.splice(i, 1);
      return ok({ message: "ok" });
    },
  },
];
