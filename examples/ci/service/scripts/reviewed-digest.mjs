// Print the digest of the plan that was reviewed on the pull request merged as a commit:
// the pull request whose `merge_commit_sha` is the commit (GET /repos/{repo}/commits/{sha}/pulls;
// a merge commit, a squash, a rebase's last commit), and on it the plan comment that
// upsert-pr-comment.mjs posted with the marker and the token's own user. The digest is read
// only from its fixed place, line 2 (the Markdown plan's first line, `<!-- waybill-plan-digest:
// D -->`): the rest of the comment holds live names, which others can write. Exits 1 with the
// reason when there is no such pull request, comment or line. Node 20, no dependencies.
//
//   GITHUB_TOKEN=... GITHUB_REPOSITORY=acme/platform \
//     node scripts/reviewed-digest.mjs --marker "<!-- waybill-plan -->" --commit SHA > waybill.reviewed-digest
import { parseArgs } from "node:util";
import { githubFromEnv } from "./github.mjs";

const { values } = parseArgs({
  options: { marker: { type: "string" }, commit: { type: "string" } },
});
const github = githubFromEnv();
if (!values.marker || !/^[0-9a-f]{40}$/.test(values.commit ?? "") || !github) {
  console.error(
    "usage: GITHUB_TOKEN=... GITHUB_REPOSITORY=owner/repo reviewed-digest.mjs --marker M --commit SHA",
  );
  process.exit(1);
}
const sha = values.commit;
const pulls = await github.call("GET", `/repos/${github.repository}/commits/${sha}/pulls`);
const merged = pulls.filter((p) => p.merged_at && p.merge_commit_sha === sha);
if (merged.length !== 1) {
  console.error(`${sha} is not the merge of a pull request: nothing reviewed to apply`);
  process.exit(1);
}
const number = merged[0].number;
const comment = await github.ownComment(number, values.marker);
const line = (comment?.body ?? "").split(/\r?\n/)[1] ?? "";
const digest = /^<!-- waybill-plan-digest: ([0-9a-f]{32}) -->$/.exec(line)?.[1];
if (!digest) {
  console.error(
    `pull request #${number} has no plan comment with a plan digest (marker ${values.marker}, by the token's user): nothing reviewed to apply`,
  );
  process.exit(1);
}
console.error(`The plan reviewed on pull request #${number}: digest ${digest}`);
console.log(digest);
