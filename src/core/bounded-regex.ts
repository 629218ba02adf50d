/**
 * Regular expressions written in a config (a policy's `matches`) and run against live values.
 *
 * Both halves come from other parties: the pattern from whoever opened the pull request, the
 * value from whoever edited the service by hand. A backtracking pattern such as `^(a+)+$`
 * against a crafted value takes exponential time and would hang a PR check or the nightly
 * drift with no message. Two guards, because neither alone is enough:
 *
 * - `regexHazard` refuses, at validation, the shapes known to backtrack without bound: a
 *   repeated group that itself repeats or holds an alternative (`(a+)+`, `(a|aa)*`) and
 *   back-references. A clear message names the shape; the fix is to write it flat.
 * - `boundedMatcher` runs every test under a time limit (node:vm's `timeout`, which V8
 *   honours inside the regexp engine), so what the static check misses (`a*a*a*a*b` is
 *   polynomial) still ends. A test that runs out of time is reported as such: the caller
 *   treats it as not matching (fail closed) and says why.
 */
import vm from "node:vm";

/** Undefined when the pattern has no known unbounded-backtracking shape, else what it has. */
export const regexHazard = (pattern: string): string | undefined => {
  interface Frame {
    repeats: boolean;
    alternates: boolean;
  }
  const stack: Frame[] = [{ repeats: false, alternates: false }];
  /** What the atom just read was: a group (with its frame), or a plain atom. */
  let last: Frame | "atom" | undefined;
  let i = 0;
  const top = (): Frame => stack[stack.length - 1] as Frame;
  while (i < pattern.length) {
    const ch = pattern[i] as string;
    if (ch === "\\") {
      const next = pattern[i + 1] ?? "";
      if (/[1-9]/.test(next) || next === "k") {
        return "a back-reference (\\1, \\k<name>): matching one can take exponential time";
      }
      i += 2;
      last = "atom";
      continue;
    }
    if (ch === "[") {
      // A character class is one atom; `]` first in the class is a literal.
      i += 1;
      if (pattern[i] === "^") i += 1;
      if (pattern[i] === "]") i += 1;
      while (i < pattern.length && pattern[i] !== "]") i += pattern[i] === "\\" ? 2 : 1;
      i += 1;
      last = "atom";
      continue;
    }
    if (ch === "(") {
      stack.push({ repeats: false, alternates: false });
      i += 1;
      // Skip a group's prefix (`?:`, `?=`, `?!`, `?<=`, `?<!`, `?<name>`).
      if (pattern[i] === "?") {
        const m = /^\?(?::|=|!|<=|<!|<[A-Za-z_$][\w$]*>)/.exec(pattern.slice(i));
        i += m === null ? 1 : m[0].length;
      }
      last = undefined;
      continue;
    }
    if (ch === ")") {
      const closed = stack.length > 1 ? (stack.pop() as Frame) : top();
      const parent = top();
      parent.repeats ||= closed.repeats;
      last = closed;
      i += 1;
      continue;
    }
    if (ch === "|") {
      top().alternates = true;
      last = undefined;
      i += 1;
      continue;
    }
    const quantifier = /^(?:\*|\+|\?|\{(\d+)(,(\d*))?\})/.exec(pattern.slice(i));
    if (quantifier !== null && last !== undefined) {
      const [text, , comma, max] = quantifier;
      const repeating =
        text === "*" ||
        text === "+" ||
        (comma !== undefined && (max === "" || max === undefined || Number(max) > 1));
      if (repeating) {
        if (last !== "atom" && (last.repeats || last.alternates)) {
          return `a repeated group that ${last.repeats ? "repeats inside" : "holds alternatives"} (like (a+)+ or (a|b)*): matching it can take exponential time; write it without the nesting`;
        }
        top().repeats = true;
      }
      i += text.length;
      // A lazy or possessive-looking suffix belongs to the quantifier.
      if (pattern[i] === "?") i += 1;
      last = undefined;
      continue;
    }
    last = "atom";
    i += 1;
  }
  return undefined;
};

export type BoundedTest = (value: string) => boolean | "timeout";

/**
 * A test of `pattern` that gives up after `timeoutMs` per value. The pattern must compile
 * (the config check runs first); the value is handed to the context as data, never as code.
 */
export const boundedMatcher = (pattern: string, timeoutMs = 250): BoundedTest => {
  const sandbox: { pattern: string; value: string; result: boolean } = {
    pattern,
    value: "",
    result: false,
  };
  // Made on first use: a rule that selects nothing costs no context.
  let context: vm.Context | undefined;
  const run = new vm.Script("result = re.test(value);");
  return (value) => {
    if (context === undefined) {
      context = vm.createContext(sandbox);
      new vm.Script("globalThis.re = new RegExp(pattern);").runInContext(context);
    }
    sandbox.value = value;
    try {
      run.runInContext(context, { timeout: timeoutMs });
    } catch (err) {
      if ((err as { code?: unknown }).code === "ERR_SCRIPT_EXECUTION_TIMEOUT") return "timeout";
      throw err;
    }
    return sandbox.result === true;
  };
};
