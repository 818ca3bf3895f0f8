// console-server (crates/console-server) in front of the file's sandbox: the built console on its
// own origin and every /v1 request forwarded to the one `--upstream`, here the sandbox. Chromium
// only ever talks to console-server, with sign-in's base URL left empty: an API-key sign-in with a
// live run and an async run watched to its end; a session token's key flow (create with the secret
// shown once, revoke); two 20-row bulk batches from the bulk worker, the second reloaded mid-batch
// and resumed, each ending with exactly one run per row at the sandbox; and console-server's
// access log (its stderr) holding no credential. The debug binary, built by
// `cargo build -p console-server --target-dir target` (CONSOLE_SERVER_BIN picks another), serves
// the build the other files serve (CONSOLE_DIST, or dist/); it is started once for the file and
// stopped after it with SIGTERM, which it must obey promptly and cleanly.
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { createInterface } from "node:readline";
import { join, resolve } from "node:path";
import { expect, withSandbox } from "./fixtures.mjs";
import { api, besides, csvLine, go, queueRun, screenshot, signIn, watchRunToCompletion } from "./harness.mjs";

const root = new URL("../..", import.meta.url).pathname;
const dist = resolve(process.env.CONSOLE_DIST ?? join(root, "dist"));
const BIN = process.env.CONSOLE_SERVER_BIN ?? join(root, "target", "debug", "console-server");

let server; // the child process, once started
let log = ""; // everything it wrote on stderr: its start-up lines and the access log
// Every credential the file's browsers and requests carried through console-server, for the
// access log's check (the sandbox's API key and session token, and the key the keys test creates).
const credentials = new Map();

/** Starts console-server in front of `sandbox`; resolves with its start-up line ({ url, upstream }). */
async function startConsoleServer(sandbox) {
  expect(existsSync(BIN), `no ${BIN}: build it with \`cargo build -p console-server --target-dir target\``).toBe(true);
  credentials.set("the API key", sandbox.api_key);
  credentials.set("the session token", sandbox.session_token);
  // Named as a live workspace's would be: the console must say so wherever it is.
  server = spawn(BIN, ["--upstream", sandbox.url, "--addr", "127.0.0.1:0", "--dist", dist, "--environment", "Production"], {
    stdio: ["ignore", "pipe", "pipe"],
  });
  server.stderr.setEncoding("utf8");
  server.stderr.on("data", (chunk) => { log += chunk; });
  const line = await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`console-server did not start within 10 s:\n${log}`)), 10_000);
    server.once("exit", (code, signal) => reject(new Error(`console-server exited (${code ?? signal}):\n${log}`)));
    createInterface({ input: server.stdout }).once("line", (l) => {
      clearTimeout(timer);
      resolve(l);
    });
  });
  const info = JSON.parse(line);
  expect(info.url, line).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
  expect(info.upstream, "the start-up line names the upstream it forwards to").toBe(sandbox.url);
  expect(info.url).not.toBe(sandbox.url);
  return info;
}

/** Stops console-server with SIGTERM; it must exit by itself, with status 0, within 10 s. */
async function stopConsoleServer() {
  if (!server || server.exitCode !== null || server.signalCode !== null) return;
  // "close", not "exit": the process may end before the last of its stderr has been read here.
  const exited = new Promise((resolve) => server.once("close", (code, signal) => resolve({ code, signal })));
  server.kill("SIGTERM");
  let timer;
  const late = new Promise((resolve) => { timer = setTimeout(() => resolve("late"), 10_000); });
  const outcome = await Promise.race([exited, late]);
  clearTimeout(timer);
  if (outcome === "late") {
    server.kill("SIGKILL");
    await exited;
  }
  // Kept for a look after a failure (it holds no credential: checked below).
  mkdirSync(join(root, "target", "playwright"), { recursive: true });
  writeFileSync(join(root, "target", "playwright", "console-server.log"), log);
  expect(outcome, `console-server after SIGTERM:\n${log.split("\n").slice(-20).join("\n")}`).toEqual({ code: 0, signal: null });
  expect(log).toMatch(/INFO stopping; finishing the requests in flight/);
  // Its whole log, shutdown included, holds no credential.
  noCredentialInLog();
}
// Should the runner's worker end without its hooks, console-server must not outlive it.
process.once("exit", () => server?.kill("SIGTERM"));

// Runs that take a few polls; submissions paced by a small rate limit, so a 20-row batch is still
// being sent a few seconds in (and the console must read the 429s' Retry-After through the forward).
const test = withSandbox({
  args: ["--queue-ms", "500", "--process-ms", "1000", "--rate-burst", "5", "--rate-per-sec", "3"],
  seed: startConsoleServer,
});
test.afterAll(stopConsoleServer);

/**
 * Every request the context's pages (and their workers) send to /v1, and every request of any kind
 * to the sandbox's origin; every /v1 answer without a request id.
 */
function watchRequests(context, sandbox) {
  const seen = { api: [], toSandbox: [], withoutRequestId: [], retryAfter: [] };
  const sandboxOrigin = new URL(sandbox.url).origin;
  context.on("request", (r) => {
    const url = new URL(r.url());
    if (url.origin === sandboxOrigin) seen.toSandbox.push(`${r.method()} ${r.url()}`);
    if (url.pathname.startsWith("/v1/")) seen.api.push({ origin: url.origin, call: `${r.method()} ${url.pathname}`, key: r.headers()["idempotency-key"] });
  });
  context.on("response", (r) => {
    if (new URL(r.url()).pathname.startsWith("/v1/") && !/^req_/.test(r.headers()["x-request-id"] ?? "")) {
      seen.withoutRequestId.push(`${r.status()} ${r.request().method()} ${r.url()}`);
    }
    // A 429's Retry-After, which the console's pacing reads.
    if (r.status() === 429) seen.retryAfter.push(r.headers()["retry-after"] ?? null);
  });
  return seen;
}

/** Each /v1 request went to console-server's origin, and none at all to the sandbox's. */
function onlyThroughConsoleServer(seen, origin) {
  expect(seen.api.length).toBeGreaterThan(0);
  expect([...new Set(seen.api.map((c) => c.origin))]).toEqual([origin]);
  expect(seen.toSandbox).toEqual([]);
  expect(seen.withoutRequestId, "every answer forwarded carries the API's x-request-id").toEqual([]);
}

/** A fresh page signed in at console-server with `credential`, then at `path` in the app. */
async function signedInThrough(pages, sandbox, origin, path, credential) {
  const opened = await pages.open();
  const seen = watchRequests(opened.context, sandbox);
  await opened.page.goto(`${origin}/sign-in`);
  // The base URL left empty: the console calls the origin it was loaded from.
  await expect(opened.page.getByLabel("API base URL")).toHaveValue("");
  await signIn(opened.page, credential);
  await expect(opened.page).toHaveURL(`${origin}/workspace`);
  await go(opened.page, path);
  await expect(opened.page).toHaveURL(`${origin}${path}`);
  return { ...opened, seen };
}

/** A form field by its label; optional fields' labels end in "(optional)". */
const field = (page, label) => page.getByLabel(new RegExp(`^${label}( \\(optional\\))?$`));

/** The access log's request lines (`request{method=… path=…}: status=… ms=… request_id=…`). */
const accessLines = () => log.split("\n").filter((l) => /\brequest\{method=/.test(l));

/** Waits until the access log has a line matching `pattern` (a line is written once its answer is). */
const logged = (pattern) =>
  expect.poll(() => accessLines().filter((l) => pattern.test(l)).length, { message: `an access-log line ${pattern}` }).toBeGreaterThan(0);

/**
 * console-server's log so far holds no credential this file used: not whole, not a part of one
 * (a JWT's signature alone would do), nor an Authorization header's name or scheme.
 */
function noCredentialInLog() {
  expect(credentials.size).toBeGreaterThanOrEqual(2);
  for (const [what, secret] of credentials) {
    expect(log.includes(secret), `${what} is in console-server's log`).toBe(false);
    for (const part of secret.split(/[._]/).filter((p) => p.length >= 16)) {
      expect(log.includes(part), `part of ${what} is in console-server's log`).toBe(false);
    }
  }
  expect(log).not.toMatch(/bearer|authorization/i);
}

test("an API key through console-server: a live run with its records, an async run watched to completed", async ({ sandbox, seeded: { url: origin }, pages }) => {
  const { page, problems, seen } = await signedInThrough(pages, sandbox, origin, "/workspace", sandbox.api_key);
  const balance = (await api(sandbox, "GET", "/v1/workspace")).json.credits_balance;
  await expect(page.locator('[data-field="credits_balance"] .stat-value')).toHaveText(balance.toLocaleString("en-US"));
  // The environment console-server was started with, in the header and the tab's title; no
  // sandbox band, whatever is behind it.
  await expect(page.locator('.app-header [data-field="environment"]')).toHaveText("Production");
  await expect(page).toHaveTitle("Production · Extraction Console");
  await expect(page.locator(".sandbox-band")).toHaveCount(0);

  // Live: the submission's answer is the finished run, records and all.
  await go(page, "/actions/premium-search-people");
  await field(page, "Keywords").fill("live through console-server");
  await field(page, "Max results").fill("6");
  await page.getByLabel("Live: wait for the result").check();
  const liveAnswer = page.waitForResponse((r) => r.request().method() === "POST" && new URL(r.url()).pathname === "/v1/actions/premium-search-people/run/live");
  await page.getByRole("button", { name: "Run live" }).click();
  const live = await liveAnswer;
  expect(live.status()).toBe(200);
  expect(new URL(live.url()).origin).toBe(origin);
  const liveRun = await live.json();
  expect(liveRun.status).toBe("completed");
  expect(liveRun.output.length).toBe(6);
  await expect(page).toHaveURL(`${origin}/runs/${liveRun.id}`);
  await expect(page.locator(".run-head [data-status]")).toHaveAttribute("data-status", "completed");
  await expect(page.locator('[data-field="output-table"] tbody tr')).toHaveCount(6);
  await expect(page.locator('[data-field="output-table"] tbody tr').first()).toContainText(liveRun.output[0].name);
  // The run is the sandbox's.
  expect((await api(sandbox, "GET", `/v1/runs/${liveRun.id}`)).json.output).toEqual(liveRun.output);

  // Async: queued, then watched on its run page until it ends.
  await go(page, "/actions/premium-search-people");
  await field(page, "Keywords").fill("async through console-server");
  await field(page, "Max results").fill("4");
  const id = await queueRun(page);
  expect(id).not.toBe(liveRun.id);
  await watchRunToCompletion(page, sandbox, id);
  await screenshot(page, "console-server-run");

  // On a live API a batch whose budget passes 1,000 credits asks first (the default there),
  // naming the environment; Cancel sends nothing. 20 rows of up to 100 results: 2,000 at worst.
  await go(page, "/bulk");
  await page.getByLabel("Action").selectOption("premium-search-people");
  await page.locator("#bulk-text").fill(["keywords", ...Array.from({ length: 20 }, (_, i) => `asked ${i + 1}`)].join("\n"));
  await page.locator('[data-field="start-batch"]').click();
  const asked = page.getByRole("dialog");
  await expect(asked.getByRole("heading")).toHaveText("Spend up to 2,000 credits on Production?");
  await expect(asked).toContainText("Production is live: these are the workspace's real credits.");
  await expect(asked).toContainText("Asked because it is more than 1,000 credits, the default threshold on a live API.");
  await screenshot(page, "console-server-confirm");
  await asked.getByRole("button", { name: "Cancel" }).click();
  await expect(asked).toHaveCount(0);
  await expect(page.locator('[data-field="batch"]')).toHaveCount(0);

  // The request log's ticket text names the environment the request was sent to.
  await go(page, "/log");
  const logEntry = page.locator(".log-table tbody tr").filter({ hasText: "/run/live" }).first();
  await expect(logEntry).toBeVisible({ timeout: 15_000 });
  await logEntry.getByRole("link").click();
  await expect(page.locator('[data-field="ticket-text"]')).toContainText("- Environment: Production (live)\n- API: " + origin);

  // Every API call went to console-server: sign-in's check, both submissions, the polls.
  onlyThroughConsoleServer(seen, origin);
  const calls = seen.api.map((c) => c.call);
  expect(calls).toContain("GET /v1/workspace");
  expect(calls.filter((c) => c === "POST /v1/actions/premium-search-people/run/live")).toHaveLength(1);
  expect(calls.filter((c) => c === "POST /v1/actions/premium-search-people/run/async")).toHaveLength(1);
  expect(calls.filter((c) => c === `GET /v1/runs/${id}`).length).toBeGreaterThanOrEqual(2);
  // The idempotency key crossed: the API made one run per submission, under the key sent.
  for (const { call, key } of seen.api.filter((c) => c.call.startsWith("POST /v1/actions/"))) {
    expect(key, call).toMatch(/^[a-zA-Z0-9_:-]{8,128}$/);
    const again = await api(sandbox, "POST", call.slice("POST ".length), { key, body: { input: { keywords: call.endsWith("live") ? "live through console-server" : "async through console-server" }, max_credits: call.endsWith("live") ? 6 : 4, max_results: call.endsWith("live") ? 6 : 4 } });
    expect(again.json.id, `the sandbox knows ${call}'s key`).toBe(call.endsWith("live") ? liveRun.id : id);
  }
  // Logged: method, path, status and the API's request id; the console's files without one.
  await logged(/method=POST path=\/v1\/actions\/premium-search-people\/run\/live\}: status=200 ms=\d+ request_id=req_\w+$/);
  await logged(new RegExp(`method=GET path=/v1/runs/${id}\\}: status=200 ms=\\d+ request_id=req_\\w+$`));
  await logged(/method=GET path=\/sign-in\}: status=200 ms=\d+ request_id=-$/);
  noCredentialInLog();
  expect(problems).toEqual([]);
});

test("a session token through console-server: a key created, its secret shown once, then revoked", async ({ sandbox, seeded: { url: origin }, pages }) => {
  const { page, problems, seen } = await signedInThrough(pages, sandbox, origin, "/keys", sandbox.session_token);
  const status = async (base, bearer) => (await fetch(`${base}/v1/workspace`, { headers: { authorization: `Bearer ${bearer}` } })).status;
  await expect(page.locator('[data-field="keys-table"] tbody tr').first()).toBeVisible();
  const name = `console-server key ${Date.now()}`;
  await page.getByLabel("New key's name").fill(name);
  await page.getByRole("button", { name: "Create key" }).click();
  const dialog = page.getByRole("dialog");
  await expect(dialog).toBeVisible();
  await expect(dialog.getByText(/only time the key is shown/)).toBeVisible();
  await expect(dialog.getByText(name)).toBeVisible();
  const secret = (await dialog.locator('[data-field="new-secret"]').textContent()).trim();
  expect(secret).toMatch(/^sk_sandbox_[0-9a-f]+$/);
  credentials.set("the new key's secret", secret);
  // A real key, at the sandbox and through console-server.
  expect(await status(sandbox.url, secret)).toBe(200);
  expect(await status(origin, secret)).toBe(200);
  await dialog.getByRole("button", { name: "I have stored it" }).click();
  await expect(dialog).toHaveCount(0);
  const row = page.locator("tr[data-key]").filter({ hasText: name });
  await expect(row).toHaveAttribute("data-state", "active");
  expect(await page.content()).not.toContain(secret);
  const prefix = (await row.locator('[data-field="key-prefix"]').textContent()).replace("…", "");
  expect(secret.startsWith(prefix)).toBe(true);

  await row.getByRole("button", { name: `Revoke key ${name}` }).click();
  const confirm = page.locator('[data-field="confirm-revoke"]');
  await expect(confirm.getByText(name)).toBeVisible();
  await confirm.getByRole("button", { name: "Revoke key" }).click();
  await expect(row).toHaveAttribute("data-state", "revoked");
  // Refused now, at the sandbox and through console-server (the API's 401 passed back as it came).
  expect(await status(sandbox.url, secret)).toBe(401);
  expect(await status(origin, secret)).toBe(401);
  const listed = (await api(sandbox, "GET", "/v1/keys", { bearer: sandbox.session_token })).json.keys.filter((k) => k.name === name);
  expect(listed).toHaveLength(1);
  expect(listed[0].revoked_at).not.toBeNull();

  onlyThroughConsoleServer(seen, origin);
  const calls = seen.api.map((c) => c.call);
  expect(calls).toContain("GET /v1/keys");
  expect(calls.filter((c) => c === "POST /v1/keys")).toHaveLength(1);
  expect(calls.filter((c) => /^DELETE \/v1\/keys\/[^/]+$/.test(c))).toHaveLength(1);
  await logged(/method=POST path=\/v1\/keys\}: status=200 ms=\d+ request_id=req_\w+$/);
  await logged(new RegExp(`method=DELETE path=/v1/keys/${listed[0].id}\\}: status=204 `));
  // Neither the session token nor the new key's secret (the POST's answer) is in the log.
  noCredentialInLog();
  expect(problems).toEqual([]);
});


const count = (page, state) => page.locator(`[data-count="${state}"] dd`);
const counts = async (page) => Object.fromEntries(await page.locator("[data-count]").evaluateAll((els) =>
  els.map((e) => [e.dataset.count, Number(e.querySelector("dd").textContent.replaceAll(",", ""))])));

/** The run ids of the batch's rows as the page lists them (one page of up to 50 rows). */
const rowRunIds = (page) => page.locator('[data-field="batch-rows"] tbody tr a[href^="/runs/"]')
  .evaluateAll((links) => links.map((a) => decodeURIComponent(a.getAttribute("href").slice("/runs/".length))));

/**
 * Every submission the page (its bulk worker) sends: the idempotency keys, and the runs the
 * answers name, by key.
 */
function watchSubmissions(page) {
  const keys = new Set();
  const runByKey = new Map();
  const submission = (r) => r.method() === "POST" && /\/run\/async$/.test(new URL(r.url()).pathname);
  page.on("request", (r) => { if (submission(r)) keys.add(r.headers()["idempotency-key"]); });
  page.on("response", async (r) => {
    if (!submission(r.request()) || ![200, 202].includes(r.status())) return;
    const key = r.request().headers()["idempotency-key"];
    const id = (await r.json().catch(() => ({}))).id;
    if (id) runByKey.set(key, new Set([...(runByKey.get(key) ?? []), id]));
  });
  return { keys, runByKey };
}

/** One run per row at the sandbox: the action's runs are exactly the ones the rows and answers name. */
async function oneRunPerRow(sandbox, page, action, rows, { keys, runByKey }) {
  expect(keys.size, "one key per row").toBe(rows);
  expect([...runByKey.values()].every((ids) => ids.size === 1), "one run per key").toBe(true);
  const atSandbox = (await api(sandbox, "GET", "/v1/runs")).json.runs.filter((r) => r.action === action);
  expect(atSandbox).toHaveLength(rows);
  expect(atSandbox.every((r) => r.status === "completed")).toBe(true);
  const ids = new Set(atSandbox.map((r) => r.id));
  const named = await rowRunIds(page);
  expect(named).toHaveLength(rows);
  expect(new Set(named)).toEqual(ids);
  expect(new Set([...runByKey.values()].flatMap((s) => [...s]))).toEqual(ids);
}

test("bulk through console-server: a 20-row batch completes; another, reloaded mid-batch, resumes to one run per row", async ({ sandbox, seeded: { url: origin }, pages }) => {
  const rows = 20;
  const { page, problems, seen } = await signedInThrough(pages, sandbox, origin, "/bulk", sandbox.api_key);

  // The first batch, to its end.
  const first = watchSubmissions(page);
  const lines = [csvLine(["query", "max_results"])];
  for (let i = 1; i <= rows; i++) lines.push(csvLine([`console-server school ${i}`, 2]));
  await page.getByLabel("Action").selectOption("network-search-schools");
  await page.locator("#bulk-text").fill(lines.join("\n"));
  await expect(page.locator('[data-field="table-summary"]')).toContainText(`${rows} rows`);
  await page.locator('[data-field="start-batch"]').click();
  await expect(page.locator('[data-field="keeping"]')).toContainText("Kept in this browser");
  // The rate limit (5, then 3 a second) paces it, and the page says so: the 429s and their
  // Retry-After came back through console-server.
  await expect(page.locator('[data-field="paced-by"]')).toHaveAttribute("data-paced-by", "rate-limit");
  await screenshot(page, "console-server-bulk-running");
  await expect(page.locator('[data-field="batch"]')).toHaveAttribute("data-phase", "done", { timeout: 60_000 });
  const c1 = await counts(page);
  expect(c1.completed, JSON.stringify(c1)).toBe(rows);
  await screenshot(page, "console-server-bulk");
  await oneRunPerRow(sandbox, page, "network-search-schools", rows, first);
  await page.locator('[data-field="clear-batch"]').click();
  await expect(page.locator('[data-field="start-batch"]')).toBeVisible();

  // The second batch: reloaded while rows are still to be sent.
  const second = watchSubmissions(page);
  const more = [csvLine(["query", "max_results"])];
  for (let i = 1; i <= rows; i++) more.push(csvLine([`console-server group ${i}`, 2]));
  await page.getByLabel("Action").selectOption("network-search-groups");
  await page.locator("#bulk-text").fill(more.join("\n"));
  await page.locator('[data-field="start-batch"]').click();
  await expect(page.locator('[data-field="keeping"]')).toContainText("Kept in this browser");
  await expect.poll(async () => Number(await count(page, "completed").textContent())).toBeGreaterThanOrEqual(1);
  const sentBeforeReload = second.keys.size;
  await page.reload();
  expect(sentBeforeReload, "the reload came while rows were still to be sent").toBeLessThan(rows);

  // The credential was in memory only: sign in again, and Bulk offers the unfinished batch.
  await expect(page).toHaveURL(/\/sign-in\?next=/);
  await expect(page.getByLabel("API base URL")).toHaveValue("");
  await signIn(page, sandbox.api_key);
  await expect(page).toHaveURL(`${origin}/bulk`);
  const saved = page.locator('[data-field="saved-batches"] li[data-state="unfinished"]');
  await expect(saved).toContainText("network-search-groups");
  await saved.locator('[data-field="resume-saved"]').click();
  await expect(page.locator('[data-field="batch"]')).toHaveAttribute("data-phase", "done", { timeout: 60_000 });
  const c2 = await counts(page);
  expect(c2.completed, JSON.stringify(c2)).toBe(rows);
  expect(second.keys.size, "rows were sent after the reload").toBeGreaterThan(sentBeforeReload);
  await screenshot(page, "console-server-bulk-resumed");
  await oneRunPerRow(sandbox, page, "network-search-groups", rows, second);

  // The bulk worker's requests, like the page's, all went to console-server.
  onlyThroughConsoleServer(seen, origin);
  expect(seen.api.filter((c) => c.call.endsWith("/run/async")).length).toBeGreaterThanOrEqual(2 * rows);
  // The rate limit's 429s reached the page with their Retry-After.
  expect(seen.retryAfter.length).toBeGreaterThan(0);
  for (const value of seen.retryAfter) expect(value).toMatch(/^\d+$/);
  // The rate limit's answers are logged as they came; the file's busiest test leaves no credential.
  await logged(/method=POST path=\/v1\/actions\/network-search-(schools|groups)\/run\/async\}: status=429 ms=\d+ request_id=req_\w+$/);
  expect(accessLines().filter((l) => /path=\/v1\/actions\/network-search-groups\/run\/async\}: status=202 /.test(l)).length).toBeGreaterThanOrEqual(rows);
  noCredentialInLog();
  expect(besides(problems, 429)).toEqual([]);
});

test("a credential in a header or a query string stays out of console-server's access log", async ({ sandbox, seeded: { url: origin } }) => {
  // Where a careless log would take one: the Authorization header, and a query string.
  const probe = `probe-${Date.now()}`;
  const workspace = await fetch(`${origin}/v1/workspace?${probe}=1`, { headers: { authorization: `Bearer ${sandbox.api_key}` } });
  expect(workspace.status).toBe(200);
  const keys = await fetch(`${origin}/v1/keys`, { headers: { authorization: `Bearer ${sandbox.session_token}` } });
  expect(keys.status).toBe(200);
  const refused = await fetch(`${origin}/v1/runs?api_key=${sandbox.api_key}&token=${sandbox.session_token}`, { headers: { authorization: "Bearer sk_sandbox_not_a_key" } });
  expect(refused.status).toBe(401);
  // Each is one line, with its path only (never the query) and the request id the answer carried.
  for (const [res, path] of [[workspace, "/v1/workspace"], [keys, "/v1/keys"], [refused, "/v1/runs"]]) {
    const id = res.headers.get("x-request-id");
    expect(id, path).toMatch(/^req_\w+$/);
    await logged(new RegExp(`method=GET path=${path}\\}: status=${res.status} ms=\\d+ request_id=${id}$`));
  }
  expect(log).not.toContain(probe);
  expect(log).not.toContain("sk_sandbox_not_a_key");
  noCredentialInLog();
});
