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
import type { Family } from "../family.js";
import { type Ctx, created, ok, type Route } from "../http.js";
import { hashUuid, isUuid } from "../ids.js";
import { nonEmpty, seedId } from "../schemas.js";
import { nextId } from "../state.js";
import { type Schema, s } from "../validate.js";
import { findOrg, type OrgRow } from "./orgs.js";

/** An OTLP exporter (spec: api-v2-v1.md "OTLP exporter"). */
export interface OtelExporterRow {
  readonly id: string;
  readonly orgId: string;
  readonly endpoint: string;
  readonly protocol: string;
  readonly insecure: boolean;
  readonly headers: Readonly<Record<string, string>>;
}

declare module "../state.js" {
  interface State {
    readonly otelExporters: OtelExporterRow[];
  }
}

export interface SeedOtelExporter {
  readonly id?: string;
  readonly endpoint: string;
  readonly protocol: "grpc" | "http";
  readonly insecure?: boolean;
  readonly headers?: Readonly<Record<string, string>>;
}

declare module "./orgs.js" {
  interface SeedOrg {
    /** OTLP exporters (V2 `/otel/exporters`, at most 5); header values are secrets. */
    readonly otel_exporters?: readonly SeedOtelExporter[];
  }
}

/** spec: api-v2-v1.md "Limits": OTLP exporters, 5 per organization. */
export const OTEL_EXPORTERS_PER_ORG = 5;

/**
 * spec: POST /otel/exporters: "endpoint string (host and port only, no scheme)".
 * Decision: the emulator refuses (400) anything else, a missing port included.
 */
export const checkOtelEndpoint = (endpoint: string, pointer: string): void => {
  if (!/^[A-Za-z0-9._-]+:[0-9]{1,5}$/.test(endpoint)) {
    throw badRequest(
      "invalid_request",
      `${pointer}: endpoint must be host and port only, without a scheme (got ${JSON.stringify(endpoint)})`,
      pointer,
    );
  }
};

const otelExporterProps = {
  endpoint: nonEmpty(),
  protocol: s.str({ oneOf: ["grpc", "http"] }),
  insecure: s.bool(),
  headers: s.record(s.str()),
};

/**
 * spec: POST /otel/exporters `{ org_id uuid, endpoint string (host and port only, no
 * scheme), protocol grpc|http, insecure bool?, headers map? }`.
 */
export const otelExporterCreateSchema: Schema = s.obj(
  { org_id: nonEmpty(), ...otelExporterProps },
  ["org_id", "endpoint", "protocol"],
);

const render = (e: OtelExporterRow) => ({
  id: e.id,
  org_id: e.orgId,
  endpoint: e.endpoint,
  protocol: e.protocol,
  insecure: e.insecure,
  headers: { ...e.headers },
  issues: [],
});

/**
 * What the sparse shapes answer for each exporter header's value (the names are kept): the
 * placeholder CircleCI-Labs/terraform-provider-circleci's otel_test.go records
 * (docs/spec-notes.md "Reading the real service").
 */
const REDACTED_HEADER = "xxxx";

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
    // docs/spec-notes.md "Reading the real service": header values come redacted.
    sparse: (body) =>
      Array.isArray(body)
        ? body.map((e: { headers?: Record<string, string> }) => ({
            ...e,
            headers: Object.fromEntries(
              Object.keys(e.headers ?? {}).map((name) => [name, REDACTED_HEADER]),
            ),
          }))
        : body,
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

export const otelExporters: Family = {
  name: "otel-exporters",
  routes: otelExporterRoutes,
  tables: ["otelExporters"],
  seed: [
    {
      in: "org",
      key: "otel_exporters",
      schema: s.arr(s.obj({ id: seedId, ...otelExporterProps }, ["endpoint", "protocol"])),
      load(l, parent, value, op) {
        const org = parent.row as OrgRow;
        const exporters = (value ?? []) as readonly SeedOtelExporter[];
        if (exporters.length > OTEL_EXPORTERS_PER_ORG)
          l.fail(op, `more than ${OTEL_EXPORTERS_PER_ORG} exporters`);
        exporters.forEach((se, ei) => {
          const ep = `${op}/${ei}`;
          l.asSeed(() => checkOtelEndpoint(se.endpoint, `${ep}/endpoint`));
          l.st.otelExporters.push({
            id: l.claim(se.id ?? hashUuid("otel", org.id, String(ei)), `${ep}/id`),
            orgId: org.id,
            endpoint: se.endpoint,
            protocol: se.protocol,
            insecure: se.insecure === true,
            headers: { ...se.headers },
          });
        });
      },
      dump: (st, row) =>
        st.otelExporters
          .filter((e) => e.orgId === (row as OrgRow).id)
          .map((e) => ({
            id: e.id,
            endpoint: e.endpoint,
            protocol: e.protocol === "http" ? ("http" as const) : ("grpc" as const),
            insecure: e.insecure,
            headers: { ...e.headers },
          })),
    },
  ],
};
