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

/**
 * Issue 42: the live state changed under the read and would not settle: a parent listed a
 * moment ago was gone when its collections were read, and again after one more listing.
 * Another run (or a person) is writing the org; nothing was planned from the half-read
 * state. Apply exits 5 (src/cli/apply.ts), like a lock held by another run.
 */
export class ConcurrentChangeError extends WaybillError {
  readonly code = "concurrent_change";

  constructor(detail: string) {
    super(
      `${detail}. Another run (or a person) is changing the org right now; nothing was planned from a state read half before and half after the change. Run again when it is done (apply waits for another Waybill run's lock).`,
    );
  }
}
