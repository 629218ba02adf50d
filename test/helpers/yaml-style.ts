/**
 * A random config's flow style (the pull properties): every list, and every map of scalars
 * (`{ cron_expression: …, … }`), written in flow style.
 */
import { type Document, isScalar, visit } from "yaml";

export const flowCollections = (d: Document): void => {
  visit(d, {
    Seq: (_, n) => {
      n.flow = true;
    },
    Map: (_, n) => {
      if (n.items.length > 0 && n.items.every((i) => isScalar(i.value))) n.flow = true;
    },
  });
};
