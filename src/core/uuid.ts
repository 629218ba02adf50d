/**
 * Ids are UUIDs (spec: api-v3.md Envelopes rule 1). One pattern for every place that tells an
 * id from a slug or a name: the config (pins, restrictions), the planner, the live reader and
 * the client's route templates.
 */
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export const isUuid = (text: string): boolean => UUID.test(text);
