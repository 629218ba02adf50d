import { WaybillError } from "../core/errors.js";

/**
 * A declared org that the token cannot see (or that does not exist). Nothing can be planned
 * for it: every other read hangs off its id. Exit 1.
 */
export class OrgNotVisibleError extends WaybillError {
  readonly code = "org_not_visible";
  readonly slug: string;

  constructor(slug: string, reason: string) {
    super(`org ${slug} absent or not visible: ${reason}`);
    this.slug = slug;
  }
}
