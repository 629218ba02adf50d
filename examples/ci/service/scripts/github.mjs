// The few GitHub REST calls of the service recipe's scripts (upsert-pr-comment.mjs,
// reviewed-digest.mjs), with the token of GITHUB_TOKEN against GITHUB_API_URL (default
// api.github.com) for GITHUB_REPOSITORY. Node 20, no dependencies.

/** The client, or undefined when GITHUB_TOKEN or GITHUB_REPOSITORY is missing. */
export const githubFromEnv = (env = process.env) => {
  const token = env.GITHUB_TOKEN;
  const repository = env.GITHUB_REPOSITORY;
  if (!token || !repository) return undefined;
  const api = env.GITHUB_API_URL ?? "https://api.github.com";
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
  /**
   * The first comment on the issue or pull request that starts with the marker AND was
   * written by the token's own user (GET /user answers for a user's or a bot account's
   * token): anyone can type the marker into a comment; such a comment is never ours.
   */
  const ownComment = async (number, marker) => {
    const me = await call("GET", "/user");
    const ours = (c) =>
      typeof c.body === "string" &&
      c.body.startsWith(marker) &&
      c.user?.login === me.login &&
      c.user?.type === me.type;
    for (let page = 1; ; page++) {
      const comments = await call(
        "GET",
        `/repos/${repository}/issues/${number}/comments?per_page=100&page=${page}`,
      );
      const found = comments.find(ours);
      if (found || comments.length < 100) return found;
    }
  };
  return { repository, call, ownComment };
};
