/**
 * Five-field cron check (pure): minute hour day-of-month month day-of-week, each field a
 * list of `*`, `N`, `A-B`, with an optional `/STEP`; months and weekdays also by name.
 * Returns a message for the first bad field, or undefined.
 *
 * Decision: the spec only says `cron_expression` (api-v3.md "Trigger"); we accept the
 * classic Vixie-cron grammar (weekday 0-7, 7 = Sunday; names case-insensitive; `N/STEP`
 * means N to the field's maximum) and refuse Quartz extensions (`?`, `L`, `W`, `#`, a 6th
 * seconds field), which a careful user would not expect a 5-field cron to accept.
 */

interface Field {
  readonly name: string;
  readonly min: number;
  readonly max: number;
  readonly names?: readonly string[];
}

const FIELDS: readonly Field[] = [
  { name: "minute", min: 0, max: 59 },
  { name: "hour", min: 0, max: 23 },
  { name: "day-of-month", min: 1, max: 31 },
  {
    name: "month",
    min: 1,
    max: 12,
    names: ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"],
  },
  { name: "day-of-week", min: 0, max: 7, names: ["sun", "mon", "tue", "wed", "thu", "fri", "sat"] },
];

const value = (text: string, field: Field): number | undefined => {
  if (/^\d+$/.test(text)) return Number(text);
  const i = field.names?.indexOf(text.toLowerCase()) ?? -1;
  if (i === -1) return undefined;
  return field.name === "month" ? i + 1 : i;
};

const checkField = (text: string, field: Field): string | undefined => {
  const bad = (why: string): string => `${field.name} field "${text}": ${why}`;
  const range = `${field.min}-${field.max}`;
  for (const item of text.split(",")) {
    if (item === "") return bad("a list item is empty");
    const [base = "", step, extra] = item.split("/");
    if (extra !== undefined) return bad("more than one `/` in one item");
    if (step !== undefined) {
      if (!/^\d+$/.test(step)) return bad(`step "${step}" is not a number`);
      const s = Number(step);
      if (s < 1 || s > field.max) return bad(`step ${s} is outside 1-${field.max}`);
    }
    if (base === "*") continue;
    const [from = "", to, more] = base.split("-");
    if (more !== undefined) return bad(`"${base}" is not a range`);
    const a = value(from, field);
    if (a === undefined) {
      const hint = field.names
        ? ` (a number ${range} or a name such as ${field.names[0]})`
        : ` (a number ${range})`;
      return bad(`"${from}" is not a valid value${hint}`);
    }
    if (a < field.min || a > field.max) return bad(`${a} is outside ${range}`);
    if (to !== undefined) {
      const b = value(to, field);
      if (b === undefined) return bad(`"${to}" is not a valid value (${range})`);
      if (b < field.min || b > field.max) return bad(`${b} is outside ${range}`);
      if (b < a) return bad(`range ${from}-${to} goes backwards`);
    }
  }
  return undefined;
};

export const checkCron = (expression: string): string | undefined => {
  const parts = expression.trim().split(/\s+/);
  if (parts.length !== 5) {
    return `must have 5 fields (minute hour day-of-month month day-of-week), found ${parts.length}`;
  }
  for (const [i, field] of FIELDS.entries()) {
    const problem = checkField(parts[i]!, field);
    if (problem) return problem;
  }
  return undefined;
};
