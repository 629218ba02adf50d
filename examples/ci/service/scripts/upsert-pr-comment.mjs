// Post a file as ONE comment on the open GitHub pull request of a branch, updating the
// previous one in place: the comment is found again by a marker (an HTML comment, which
// GitHub does not show) AND its author, the token's own user (GET /user): a comment
// someone else wrote with the marker is never edited. Node 20, no dependencies.
//
//   GITHUB_TOKEN=... GITHUB_REPOSITORY=acme/platform \
//     node scripts/upsert-pr-comment.mjs --marker "<!-- waybill-plan -->" --branch feature --body plan.md
import { readFileSync } from "node:fs";
import { parseArgs } from "node:util";

const { values } = parseArgs({
  options: {
    marker: { type: "string" },
    branch: { type: "string" },
    body: { type: "string" },
  },
});
const token = process.env.GITHUB_TOKEN;
const repository = process.env.GITHUB_REPOSITORY;
if (!values.marker || !values.branch || !values.body || !token || !repository) {
  console.error(
    "usage: GITHUB_TOKEN=... GITHUB_REPOSITORY=owner/repo upsert-pr-comment.mjs --marker M --branch B --body FILE",
  );
  process.exit(1);
}
const api = process.env.GITHUB_API_URL ?? "https://api.github.com";
const headers = {
  authorization: `Bearer ${token}`,
  accept: "application/vnd.github+json",
  "content-type": "application/json",
};
const call = async (method, path, body) => {
  const res = await fetch(`${api}${path}`, {
    method,
    headers,
    ...(body ? { body: JSON.stringify(body) } : {}),
  });
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status}`);
  return res.json();
};

// The token's identity (a user's or a bot account's token: GET /user answers for both).
const me = await call("GET", "/user");
const ours = (c) =>
  typeof c.body === "string" &&
  c.body.startsWith(values.marker) &&
  c.user?.login === me.login &&
  c.user?.type === me.type;
const [owner] = repository.split("/");
const pulls = await call(
  "GET",
  `/repos/${repository}/pulls?state=open&head=${encodeURIComponent(`${owner}:${values.branch}`)}`,
);
if (pulls.length === 0) {
  console.log(`No open pull request for ${values.branch}; nothing to comment on.`);
  process.exit(0);
}
const number = pulls[0].number;
// GitHub refuses comments over 65,536 characters; Waybill's Markdown plan stays under 65,000.
const text = `${values.marker}\n${readFileSync(values.body, "utf8")}`.slice(0, 65_000);
let previous;
for (let page = 1; !previous; page++) {
  const comments = await call(
    "GET",
    `/repos/${repository}/issues/${number}/comments?per_page=100&page=${page}`,
  );
  previous = comments.find(ours);
  if (comments.length < 100) break;
}
if (previous) {
  await call("PATCH", `/repos/${repository}/issues/comments/${previous.id}`, { body: text });
  console.log(`Updated the plan comment on pull request #${number}.`);
} else {
  await call("POST", `/repos/${repository}/issues/${number}/comments`, { body: text });
  console.log(`Posted the plan comment on pull request #${number}.`);
}
