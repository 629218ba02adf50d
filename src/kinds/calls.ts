import type { ApiCall, CallPhase, HttpMethod } from "./contract.js";

/** An ApiCall with the common defaults (V3, no body, always sent). */
export const call = (
  phase: CallPhase,
  method: HttpMethod,
  route: string,
  rest: Partial<Omit<ApiCall, "phase" | "method" | "route">> = {},
): ApiCall => ({
  phase,
  method,
  api: "v3",
  route,
  body: "none",
  body_fields: [],
  sensitive_fields: [],
  when: "always",
  ...rest,
});
