// `npm run demo`: the main job on the bundled emulator, step by step (issue 9).
// Starts the emulator seeded from examples/demo/seed.json, then runs validate, plan,
// apply, plan again (no changes), changes something directly on the emulator, runs
// drift, and stops the emulator. Every step is printed with a heading; any step whose
// exit code is not the expected one fails the demo.
import { spawn } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, "..", "..");
const emulatorModule = join(root, "dist", "emulator", "index.js");
if (!existsSync(emulatorModule)) {
  // `node examples/demo/run-demo.js` on a clone that was never built: say what to run.
  console.error("demo: dist/ is missing; run `npm run demo` (it builds first) or `npm run build`.");
  process.exit(1);
}
const { startEmulator } = await import(pathToFileURL(emulatorModule).href);
// Decision: a step that hangs must not hang CI: each CLI run is killed after 20 s (the
// whole demo's budget is 30 s; a healthy step takes well under one).
const STEP_TIMEOUT_MS = 20_000;
const seed = JSON.parse(readFileSync(join(here, "seed.json"), "utf8"));
const token = seed.tokens[0].token;

// The demo config reads its secrets from the environment, as a real pipeline would.
const demoSecrets = {
  DEMO_AWS_SECRET_ACCESS_KEY: "demo-aws-secret-0001",
  DEMO_NPM_TOKEN: "demo-npm-token-0002",
  DEMO_SLACK_SIGNING_SECRET: "demo-slack-signing-0003",
  DEMO_DEPLOY_KEY: "demo-deploy-key-0004",
  DEMO_RELEASE_HOOK_SECRET: "demo-release-hook-0005",
};

const bold = (s) => (process.stdout.isTTY ? `\x1b[1m${s}\x1b[0m` : s);

const run = (args, env) =>
  new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [join(root, "bin", "waybill.js"), ...args], {
      cwd: here,
      env: { ...process.env, ...env },
      stdio: ["ignore", "inherit", "inherit"],
    });
    const timer = setTimeout(() => {
      console.error(
        `demo: waybill ${args[0]} still running after ${STEP_TIMEOUT_MS / 1000}s; stopping it`,
      );
      child.kill("SIGKILL");
    }, STEP_TIMEOUT_MS);
    child.on("error", (err) => {
      clearTimeout(timer);
      reject(err);
    });
    child.on("exit", (code) => {
      clearTimeout(timer);
      resolve(code ?? 1);
    });
  });

const started = Date.now();
const emulator = await startEmulator({ seed, admin: true });
const env = { SERVICE_BASE_URL: emulator.url, SERVICE_TOKEN: token, ...demoSecrets };
let failed = false;
// Ctrl-C: stop the emulator rather than leave a listening port behind.
process.once("SIGINT", () => {
  emulator.close().finally(() => process.exit(130));
});

/** GET a V3 list and return its single item, or fail the demo with what went wrong. */
const getOne = async (path, headers) => {
  const res = await fetch(`${emulator.url}/api/v3${path}`, { headers });
  if (!res.ok) throw new Error(`GET /api/v3${path}: ${res.status}`);
  const body = await res.json();
  if (!Array.isArray(body.data) || body.data.length === 0) {
    throw new Error(`GET /api/v3${path}: nothing found (was examples/demo/seed.json changed?)`);
  }
  return body.data[0];
};

const step = async (title, args, expected) => {
  console.log(`\n${bold(`== ${title}`)}\n$ waybill ${args.join(" ")}`);
  const code = await run(args, env);
  if (!expected.includes(code)) {
    console.error(`demo: expected exit ${expected.join(" or ")}, got ${code}`);
    failed = true;
  }
  return code;
};

try {
  console.log(bold(`Emulator listening on ${emulator.url} (seed: examples/demo/seed.json)`));
  await step("1. Validate the config (offline)", ["validate", "-c", "waybill.yaml"], [0]);
  if (!failed) await step("2. Plan", ["plan", "-c", "waybill.yaml"], [0]);
  if (!failed) {
    await step("3. Apply", ["apply", "-c", "waybill.yaml", "--auto-approve"], [0]);
  }
  if (!failed) {
    await step(
      "4. Plan again: nothing left to do",
      ["plan", "-c", "waybill.yaml", "--detailed-exitcode"],
      [0],
    );
  }
  if (!failed) {
    console.log(`\n${bold("== 5. Someone changes a webhook by hand, outside Git")}`);
    const headers = { authorization: `Bearer ${token}`, "content-type": "application/json" };
    // The org look-up answers `{ id }` alone (the emulator's sparse shapes, as the service).
    const org = { slug: "gh/acme", ...(await getOne("/orgs?filter[slug]=gh/acme", headers)) };
    const project = await getOne("/projects?filter[slug]=gh/acme/api", headers);
    const hook = await getOne(`/webhooks?filter[project_id]=${project.id}`, headers);
    const res = await fetch(`${emulator.url}/api/v3/webhooks/${hook.id}/update`, {
      method: "POST",
      headers,
      body: JSON.stringify({ events: ["workflow-completed", "job-completed"] }),
    });
    console.log(
      `POST /api/v3/webhooks/${hook.id}/update (org ${org.slug}, webhook "${hook.attributes.name}", events -> workflow-completed, job-completed): ${res.status}`,
    );
    if (!res.ok) {
      console.error("demo: the direct change on the emulator was refused");
      failed = true;
    }
  }
  if (!failed) {
    await step("6. Drift: the nightly audit finds it", ["drift", "-c", "waybill.yaml"], [2]);
  }
} catch (err) {
  console.error(`demo: ${err instanceof Error ? err.message : String(err)}`);
  failed = true;
} finally {
  await emulator.close();
}
const seconds = ((Date.now() - started) / 1000).toFixed(1);
console.log(`\n${bold(failed ? `Demo FAILED after ${seconds}s` : `Demo finished in ${seconds}s`)}`);
process.exit(failed ? 1 : 0);
