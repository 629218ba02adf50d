/**
 * GitHub Actions expressions (`${{ … }}` and bare `if:` conditions), as the runner evaluates
 * them (docs.github.com "Evaluate expressions in workflows and actions"): literals, context
 * property paths (`github.event.pull_request.number`, `steps.plan.outputs.exit-code`,
 * `x['a']`), `!`, `<`, `<=`, `>`, `>=`, `==`, `!=`, `&&`, `||`, parentheses, and the
 * functions the recipes may use. Loose equality as GitHub's: strings compare ignoring case,
 * values of different types compare as numbers. Anything else is an error, so a recipe that
 * uses a construct the harness does not know fails its test instead of being misread.
 */

export type ExprValue =
  | null
  | boolean
  | number
  | string
  | readonly ExprValue[]
  | { readonly [key: string]: ExprValue };

export type JobStatus = "success" | "failure" | "cancelled";

export interface ExprContexts {
  readonly [context: string]: ExprValue;
}

type Token =
  | { readonly kind: "str"; readonly value: string }
  | { readonly kind: "num"; readonly value: number }
  | { readonly kind: "id"; readonly value: string }
  | { readonly kind: "op"; readonly value: string };

const tokenize = (text: string): Token[] => {
  const tokens: Token[] = [];
  let i = 0;
  while (i < text.length) {
    const rest = text.slice(i);
    const space = /^\s+/.exec(rest);
    if (space) {
      i += space[0].length;
      continue;
    }
    if (rest[0] === "'") {
      let value = "";
      let j = i + 1;
      for (;;) {
        if (j >= text.length) throw new Error(`unterminated string in expression: ${text}`);
        if (text[j] === "'") {
          if (text[j + 1] === "'") {
            value += "'";
            j += 2;
            continue;
          }
          break;
        }
        value += text[j];
        j++;
      }
      tokens.push({ kind: "str", value });
      i = j + 1;
      continue;
    }
    const num = /^(?:0x[0-9a-f]+|-?\d+(?:\.\d+)?(?:e[+-]?\d+)?)/i.exec(rest);
    if (num && !/^[A-Za-z_]/.test(rest)) {
      tokens.push({ kind: "num", value: Number(num[0]) });
      i += num[0].length;
      continue;
    }
    const id = /^[A-Za-z_][A-Za-z0-9_-]*/.exec(rest);
    if (id) {
      tokens.push({ kind: "id", value: id[0] });
      i += id[0].length;
      continue;
    }
    const op = /^(==|!=|<=|>=|&&|\|\||[!<>().[\],])/.exec(rest);
    if (!op) throw new Error(`unsupported character ${JSON.stringify(rest[0])} in: ${text}`);
    tokens.push({ kind: "op", value: op[0] });
    i += op[0].length;
  }
  return tokens;
};

type Node =
  | { readonly type: "lit"; readonly value: ExprValue }
  | { readonly type: "ctx"; readonly name: string }
  | { readonly type: "get"; readonly of: Node; readonly key: Node }
  | { readonly type: "call"; readonly name: string; readonly args: readonly Node[] }
  | { readonly type: "not"; readonly of: Node }
  | { readonly type: "bin"; readonly op: string; readonly left: Node; readonly right: Node };

const BINARY: readonly (readonly string[])[] = [
  ["||"],
  ["&&"],
  ["==", "!="],
  ["<", "<=", ">", ">="],
];

const parse = (text: string): Node => {
  const tokens = tokenize(text);
  let pos = 0;
  const peek = (): Token | undefined => tokens[pos];
  const isOp = (value: string): boolean => {
    const t = peek();
    return t?.kind === "op" && t.value === value;
  };
  const expect = (value: string): void => {
    if (!isOp(value)) throw new Error(`expected ${value} at token ${pos} of: ${text}`);
    pos++;
  };
  const binary = (level: number): Node => {
    const ops = BINARY[level];
    if (!ops) return unary();
    let left = binary(level + 1);
    for (;;) {
      const t = peek();
      if (t?.kind !== "op" || !ops.includes(t.value)) return left;
      pos++;
      left = { type: "bin", op: t.value, left, right: binary(level + 1) };
    }
  };
  const unary = (): Node => {
    if (isOp("!")) {
      pos++;
      return { type: "not", of: unary() };
    }
    return postfix(primary());
  };
  const primary = (): Node => {
    const t = peek();
    pos++;
    if (!t) throw new Error(`unexpected end of: ${text}`);
    if (t.kind === "str" || t.kind === "num") return { type: "lit", value: t.value };
    if (t.kind === "op" && t.value === "(") {
      const inner = binary(0);
      expect(")");
      return inner;
    }
    if (t.kind !== "id") throw new Error(`unexpected ${t.value} in: ${text}`);
    if (t.value === "true" || t.value === "false")
      return { type: "lit", value: t.value === "true" };
    if (t.value === "null") return { type: "lit", value: null };
    if (isOp("(")) {
      pos++;
      const args: Node[] = [];
      while (!isOp(")")) {
        args.push(binary(0));
        if (!isOp(")")) expect(",");
      }
      pos++;
      return { type: "call", name: t.value.toLowerCase(), args };
    }
    return { type: "ctx", name: t.value };
  };
  const postfix = (start: Node): Node => {
    let node = start;
    for (;;) {
      if (isOp(".")) {
        pos++;
        const t = peek();
        pos++;
        if (t?.kind !== "id") throw new Error(`expected a property name in: ${text}`);
        node = { type: "get", of: node, key: { type: "lit", value: t.value } };
      } else if (isOp("[")) {
        pos++;
        const key = binary(0);
        expect("]");
        node = { type: "get", of: node, key };
      } else return node;
    }
  };
  const root = binary(0);
  if (pos !== tokens.length) throw new Error(`unexpected token ${pos} in: ${text}`);
  return root;
};

export const truthy = (v: ExprValue): boolean =>
  !(v === null || v === false || v === 0 || v === "" || (typeof v === "number" && Number.isNaN(v)));

const toNumber = (v: ExprValue): number => {
  if (v === null) return 0;
  if (typeof v === "boolean") return v ? 1 : 0;
  if (typeof v === "number") return v;
  if (typeof v === "string") return v.trim() === "" ? 0 : Number(v);
  return Number.NaN;
};

/** As GitHub renders a value into a string (`${{ }}` in a `run:` or an `env:` value). */
export const toText = (v: ExprValue): string => {
  if (v === null) return "";
  if (typeof v === "string") return v;
  if (typeof v === "boolean" || typeof v === "number") return String(v);
  return JSON.stringify(v, null, 2);
};

const looseEqual = (a: ExprValue, b: ExprValue): boolean => {
  if (typeof a === "string" && typeof b === "string") return a.toLowerCase() === b.toLowerCase();
  if (typeof a === typeof b && (a === null || typeof a !== "object")) return a === b;
  if (a !== null && b !== null && typeof a === "object" && typeof b === "object") return a === b;
  return toNumber(a) === toNumber(b);
};

const compare = (op: string, a: ExprValue, b: ExprValue): boolean => {
  if (typeof a === "string" && typeof b === "string") {
    const x = a.toLowerCase();
    const y = b.toLowerCase();
    return op === "<" ? x < y : op === "<=" ? x <= y : op === ">" ? x > y : x >= y;
  }
  const x = toNumber(a);
  const y = toNumber(b);
  return op === "<" ? x < y : op === "<=" ? x <= y : op === ">" ? x > y : x >= y;
};

const member = (of: ExprValue, key: ExprValue): ExprValue => {
  if (of === null || typeof of !== "object") return null;
  if (Array.isArray(of)) {
    const i = toNumber(key);
    return Number.isInteger(i) ? ((of as readonly ExprValue[])[i] ?? null) : null;
  }
  // Property names are case-insensitive in GitHub's contexts.
  const want = toText(key).toLowerCase();
  const found = Object.keys(of).find((k) => k.toLowerCase() === want);
  return found === undefined ? null : ((of as Record<string, ExprValue>)[found] ?? null);
};

const STATUS_FUNCTIONS = ["success", "failure", "always", "cancelled"];

export interface EvalOptions {
  readonly contexts: ExprContexts;
  /** The job's status so far, for success()/failure()/cancelled(); undefined where GitHub has none. */
  readonly status?: JobStatus;
}

const evaluate = (node: Node, o: EvalOptions): ExprValue => {
  switch (node.type) {
    case "lit":
      return node.value;
    case "ctx": {
      const found = Object.keys(o.contexts).find(
        (k) => k.toLowerCase() === node.name.toLowerCase(),
      );
      if (found === undefined) throw new Error(`the context ${node.name} is not available here`);
      return o.contexts[found] ?? null;
    }
    case "get":
      return member(evaluate(node.of, o), evaluate(node.key, o));
    case "not":
      return !truthy(evaluate(node.of, o));
    case "bin": {
      if (node.op === "&&") {
        const l = evaluate(node.left, o);
        return truthy(l) ? evaluate(node.right, o) : l;
      }
      if (node.op === "||") {
        const l = evaluate(node.left, o);
        return truthy(l) ? l : evaluate(node.right, o);
      }
      const l = evaluate(node.left, o);
      const r = evaluate(node.right, o);
      if (node.op === "==") return looseEqual(l, r);
      if (node.op === "!=") return !looseEqual(l, r);
      return compare(node.op, l, r);
    }
    case "call":
      return call(node.name, node.args, o);
  }
};

const call = (name: string, args: readonly Node[], o: EvalOptions): ExprValue => {
  if (STATUS_FUNCTIONS.includes(name)) {
    if (o.status === undefined) throw new Error(`${name}() is not available here`);
    if (name === "always") return true;
    if (name === "success") return o.status === "success";
    if (name === "failure") return o.status === "failure";
    return o.status === "cancelled";
  }
  const v = args.map((a) => evaluate(a, o));
  const text = (i: number): string => toText(v[i] ?? null).toLowerCase();
  switch (name) {
    case "contains": {
      const hay = v[0] ?? null;
      if (Array.isArray(hay)) return hay.some((x: ExprValue) => looseEqual(x, v[1] ?? null));
      return text(0).includes(text(1));
    }
    case "startswith":
      return text(0).startsWith(text(1));
    case "endswith":
      return text(0).endsWith(text(1));
    case "fromjson":
      return JSON.parse(toText(v[0] ?? null)) as ExprValue;
    case "tojson":
      return JSON.stringify(v[0] ?? null, null, 2);
    case "format":
      return toText(v[0] ?? null).replace(/\{(\d+)\}/g, (_m, i: string) =>
        toText(v[Number(i) + 1] ?? null),
      );
    default:
      throw new Error(`the function ${name}() is not supported by the recipe harness`);
  }
};

/** Evaluate a bare expression (an `if:`), or one `${{ … }}` taken whole. */
export const evaluateExpression = (text: string, o: EvalOptions): ExprValue => {
  const trimmed = text.trim();
  const whole = /^\$\{\{([\s\S]*)\}\}$/.exec(trimmed);
  return evaluate(parse(whole?.[1] ?? trimmed), o);
};

/**
 * An `if:` condition: a job's or step's, with the implied `success() &&` when it calls no
 * status function (GitHub: "a default status check of success() is applied").
 */
export const evaluateCondition = (text: string | undefined, o: EvalOptions): boolean => {
  if (text === undefined || text.trim() === "")
    return o.status === undefined || o.status === "success";
  const value = truthy(evaluateExpression(text, o));
  const callsStatus = new RegExp(`\\b(${STATUS_FUNCTIONS.join("|")})\\s*\\(`, "i").test(text);
  if (callsStatus || o.status === undefined) return value;
  return o.status === "success" && value;
};

/** Replace every `${{ … }}` in a string with its value as text. */
export const interpolate = (text: string, o: EvalOptions): string =>
  text.replace(/\$\{\{([\s\S]*?)\}\}/g, (_m, inner: string) => toText(evaluate(parse(inner), o)));
