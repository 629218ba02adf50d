/**
 * Issue 43 "Literal secrets": the shapes of well-known credentials, so that `validate` can
 * warn about one written in clear in an env value (design.md §5 "Secrets and files":
 * `validate --strict` refuses literal values in secret-only fields). Each shape is the
 * issuer's documented prefix and length; a value of one is a live credential to whoever
 * reads the repository. Pure.
 *
 * Decision: only prefixed shapes are listed, not "looks random": an env value of random
 * characters is as often an id or a checksum, and a warning that cries wolf is turned off.
 */
const SHAPES: readonly { readonly name: string; readonly re: RegExp }[] = [
  {
    name: "a GitHub token (ghp_…, gho_…, ghu_…, ghs_…, ghr_…)",
    re: /^gh[pousr]_[A-Za-z0-9]{36,}$/,
  },
  { name: "a GitHub fine-grained token (github_pat_…)", re: /^github_pat_[A-Za-z0-9_]{22,}$/ },
  { name: "a GitLab token (glpat-…)", re: /^glpat-[A-Za-z0-9_-]{20,}$/ },
  { name: "an AWS access key id (AKIA…, ASIA…)", re: /^(?:AKIA|ASIA)[A-Z0-9]{16}$/ },
  { name: "a Slack token (xoxb-…, xoxp-…)", re: /^xox[abposr]-[A-Za-z0-9-]{10,}$/ },
  {
    name: "a Slack incoming-webhook URL",
    re: /^https:\/\/hooks\.slack\.com\/(?:services|workflows|triggers)\/\S+$/,
  },
  {
    name: "a Discord webhook URL",
    re: /^https:\/\/(?:\w+\.)?discord(?:app)?\.com\/api\/webhooks\/\S+$/,
  },
  { name: "a Microsoft Teams webhook URL", re: /^https:\/\/[\w.-]+\.webhook\.office\.com\/\S+$/ },
  { name: "an npm token (npm_…)", re: /^npm_[A-Za-z0-9]{36,}$/ },
  { name: "a Stripe secret key (sk_live_…, rk_live_…)", re: /^[sr]k_live_[A-Za-z0-9]{20,}$/ },
  { name: "a Google API key (AIza…)", re: /^AIza[A-Za-z0-9_-]{35}$/ },
  { name: "a CircleCI personal token (CCIPAT_…)", re: /^CCIPAT_[A-Za-z0-9_]{20,}$/ },
  { name: "a private key", re: /-----BEGIN [A-Z ]*PRIVATE KEY-----/ },
  {
    name: "a JSON web token",
    re: /^eyJ[A-Za-z0-9_-]{10,}\.eyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]+$/,
  },
];

/** What well-known credential `value` looks like (for a message), or undefined. */
export const tokenShapeOf = (value: string): string | undefined => {
  const v = value.trim();
  for (const { name, re } of SHAPES) if (re.test(v)) return name;
  return undefined;
};
