// Post a file as ONE comment on the open GitHub pull request of a branch, updating the
// previous one in place: the comment is found again by a marker (an HTML comment, which
// GitHub does not show) AND its author, the token's own user (GET /user): a comment
// someone else wrote with the marker is never edited. Node 20, no dependencies.
//
//   GITHUB_TOKEN=... GITHUB_REPOSITORY=acme/platform \
//     node scripts/upsert-pr-comment.mjs --marker "<!-- waybill-plan -->" --branch feature --body plan.md
import { readFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { githubFromEnv } from "./github.mjs";

const { values } = parseArgs({
  options: {
    marker: { type: "string" },
    branch: { type: "string" },
    body: { type: "string" },
  },
});
const github = githubFromEnv();
if (!values.marker || !values.branch || !values.body || !github) {
  console.error(
    "usage: GITHUB_TOKEN=... GITHUB_REPOSITORY=owner/repo upsert-pr-comment.mjs --marker M --branch B --body FILE",
  );
  process.exit(1);
}
const { repository, call } = github;
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
const previous = await github.ownComment(number, values.marker);
if (previous) {
  await call("PATCH", `/repos/${repository}/issues/comments/${previous.id}`, { body: text });
  console.log(`Updated the plan comment on pull request #${number}.`);
} else {
  await call("POST", `/repos/${repository}/issues/${number}/comments`, { body: text });
  console.log(`Posted the plan comment on pull request #${number}.`);
}
