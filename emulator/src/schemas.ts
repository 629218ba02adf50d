/**
 * The pieces every family's body and seed schemas are built of, and the seed's schema, put
 * together from the families' seed members (family.ts). Each family's own request bodies are
 * in its module, next to the seed member they share their rules with, so a seed row and a
 * create body of the same entity are checked by the same rules. spec: api-v3.md "Endpoints"
 * (each body shape) and "Resource fields that are given".
 */
import { type Family, isLevelMember, membersAt } from "./family.js";
import { type Schema, s } from "./validate.js";

export const nonEmpty = (): Schema => s.str({ nonEmpty: true });

/** A seeded row's id (checked as a UUID when loaded). */
export const seedId: Schema = s.str({ nonEmpty: true });

export const vcsRepoSchema: Schema = s.obj(
  { provider: nonEmpty(), repo_id: nonEmpty(), repo_full_name: nonEmpty() },
  ["provider", "repo_id", "repo_full_name"],
);

/** `{ id uuid, rel string?, attributes string? }` (spec: Contexts, Context restrictions). */
export const refWithRel: Schema = s.obj({ id: nonEmpty(), rel: s.str(), attributes: s.str() }, [
  "id",
]);
export const ref: Schema = s.obj({ id: nonEmpty() }, ["id"]);

/** A V3 create body: `{ data: { attributes, references } }`. */
export const enveloped = (attributes: Schema, references: Schema): Schema =>
  s.obj({ data: s.obj({ attributes, references }, ["attributes", "references"]) }, ["data"]);

/** The schema of one level's items: their own fields, then their members, in order. */
const itemSchema = (
  families: readonly Family[],
  level: string,
  props: Readonly<Record<string, Schema>>,
  required: readonly string[],
): Schema =>
  s.obj(
    {
      ...props,
      ...Object.fromEntries(
        membersAt(families, level).map((m) => [
          m.key,
          isLevelMember(m) ? s.arr(itemSchema(families, m.level, m.props, m.required)) : m.schema,
        ]),
      ),
    },
    required,
  );

const built = new WeakMap<readonly Family[], Schema>();

/** The seed's schema (docs/emulator.md "Seed"): tokens, then the families' members. */
export const seedSchemaOf = (families: readonly Family[]): Schema => {
  let schema = built.get(families);
  if (!schema) {
    const rights = families.flatMap((f) => f.tokenRights ?? []);
    schema = itemSchema(
      families,
      "",
      {
        $schema: s.str(),
        description: s.str(),
        tokens: s.arr(
          s.obj(
            {
              token: nonEmpty(),
              read_only: s.bool(),
              user: s.bool(),
              ...Object.fromEntries(rights.map((r) => [r.flag, s.bool()])),
            },
            ["token"],
          ),
        ),
      },
      [],
    );
    built.set(families, schema);
  }
  return schema;
};
