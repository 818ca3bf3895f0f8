// Runs end to end: a run watched to its end by the polling rules, hidden tabs, cancel and its
// 409, failed-run inspection, inert hostile output and safe CSV, chaining by clicks, and the
// runs list with filters in the URL. Headless Chromium against the sandbox.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { withSandbox } from "./fixtures.mjs";
import { screenshot, signIn, go, trackRequests, controlVisibility, api, besides } from "./harness.mjs";

// Slow enough that a run is seen queued and processing across several polls.
const test = withSandbox({ args: ["--queue-ms", "1200", "--process-ms", "2600"] });

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
let keyCounter = 0;
const newKey = () => `e2e-runs-${Date.now()}-${keyCounter++}`;

/** Signs in on a fresh page (`pages.open(options)`) opened at `path` of `sandbox`. */
async function signedInAt(pages, sandbox, path, options) {
  const opened = await pages.open(options);
  await opened.page.goto(`${sandbox.url}${path}`);
  await signIn(opened.page, sandbox.api_key);
  return opened;
}

/** Fills an action's form by its labels and submits it in the given mode; resolves with the run id. */
async function submitForm(page, fields, { live }) {
  for (const [label, value] of Object.entries(fields)) await page.getByLabel(label, { exact: true }).fill(value);
  await page.getByLabel(live ? "Live: wait for the result" : "Async: queue it and watch the run").check();
  await page.getByRole("button", { name: live ? "Run live" : "Queue run" }).click();
  await page.waitForURL(/\/runs\/[^/]+$/);
  return decodeURIComponent(new URL(page.url()).pathname.split("/").pop());
}

const status = (page) => page.locator(".run-head [data-status]");

test("an async run is watched from queued to completed: one request at a time, none after the end", async ({ sandbox, pages }) => {
  const { page, problems } = await signedInAt(pages, sandbox, "/actions/premium-search-people");
  const runRequests = trackRequests(page, /^\/v1\/runs\/[^/]+$/);
  const id = await submitForm(page, { Keywords: "platform engineer" }, { live: false });
  await status(page).filter({ hasText: /queued|processing/ }).waitFor();
  await screenshot(page, "run-running");
  await page.locator('.run-head [data-status="completed"]').waitFor({ timeout: 15_000 });
  const endedAt = Date.now();
  const run = (await api(sandbox, "GET", `/v1/runs/${id}`)).json;
  assert.equal(run.status, "completed");
  // The output is on screen, one row per record (rows past the first screenful come a frame later).
  await page.locator('[data-field="output-table"] tbody tr').nth(run.output.length - 1).waitFor();
  assert.equal(await page.locator('[data-field="output-table"] tbody tr').count(), run.output.length);
  assert.equal(await page.locator('[data-field="records"]').textContent(), String(run.output.length));
  await screenshot(page, "run-completed-table");
  await page.getByRole("button", { name: "JSON", exact: true }).click();
  const json = JSON.parse(await page.locator('[data-field="output-json"]').textContent());
  assert.deepEqual(json, run.output);
  await screenshot(page, "run-completed-json");
  // Several polls were needed, never two at once, and none after the terminal answer.
  await sleep(4_000);
  assert.ok(runRequests.sent >= 3, `polled ${runRequests.sent} times`);
  assert.equal(runRequests.maxInFlight, 1);
  assert.ok(runRequests.times.every((t) => t <= endedAt), "no request after the run ended");
  // Backoff: the gaps between polls never shrink.
  const gaps = runRequests.times.slice(1).map((t, i) => t - runRequests.times[i]);
  assert.ok(gaps.every((g, i) => i === 0 || g >= gaps[i - 1] - 150), `gaps ${gaps}`);
  assert.deepEqual(problems, []);
});

test("a hidden tab sends no polls, and a shown one resumes at once", async ({ sandbox, pages }) => {
  const { page, problems } = await pages.open();
  const setHidden = await controlVisibility(page);
  await page.goto(`${sandbox.url}/sign-in`);
  await signIn(page, sandbox.api_key);
  const { json: run } = await api(sandbox, "POST", "/v1/actions/network-search-groups/run/async", {
    body: { input: { query: "hidden tab sandbox:slow" }, max_results: 5 }, key: newKey(),
  });
  const polls = trackRequests(page, new RegExp(`^/v1/runs/${run.id}$`));
  await go(page, `/runs/${run.id}`);
  await status(page).waitFor();
  await setHidden(true);
  await sleep(300); // a request already on its way may land
  const sentWhenHidden = polls.sent;
  await sleep(5_000);
  assert.equal(polls.sent, sentWhenHidden, "no request while hidden");
  const shownAt = Date.now();
  await setHidden(false);
  while (polls.sent === sentWhenHidden && Date.now() - shownAt < 3_000) await sleep(50);
  assert.ok(polls.sent > sentWhenHidden, "polling resumed");
  assert.ok(polls.times.at(-1) - shownAt < 1_000, "resumed within a second of being shown");
  assert.equal(polls.maxInFlight, 1);
  await api(sandbox, "POST", `/v1/runs/${run.id}/cancel`);
  assert.deepEqual(problems, []);
});

test("cancel asks first, then cancels; a cancel after the run finished explains the 409", async ({ sandbox, pages }) => {
  const { page, problems } = await signedInAt(pages, sandbox, "/runs");
  const { json: run } = await api(sandbox, "POST", "/v1/actions/network-search-groups/run/async", {
    body: { input: { query: "to cancel sandbox:slow" }, max_results: 5 }, key: newKey(),
  });
  await go(page, `/runs/${run.id}`);
  await page.getByRole("button", { name: "Cancel run…" }).click();
  await assert.doesNotReject(page.getByText("Cancel this run? Its reservation is released.").waitFor());
  await page.getByRole("button", { name: "Keep it" }).click();
  assert.notEqual((await api(sandbox, "GET", `/v1/runs/${run.id}`)).json.status, "cancelled");
  await page.getByRole("button", { name: "Cancel run…" }).click();
  const workspaceReads = trackRequests(page, /^\/v1\/workspace$/);
  await page.getByRole("button", { name: "Yes, cancel the run" }).click();
  await page.locator('.run-head [data-status="cancelled"]').waitFor();
  await sleep(1_500);
  assert.equal(workspaceReads.sent, 1, "the credits refresh once after a cancel");
  assert.equal(await page.locator('[data-field="credits_reserved"]').textContent(), "0");
  assert.equal((await api(sandbox, "GET", `/v1/runs/${run.id}`)).json.status, "cancelled");

  // A run that finishes while the page still shows it as running: the page's polls are held
  // back (the network answers with the stale run), the run completes, then the person cancels.
  const { json: quick } = await api(sandbox, "POST", "/v1/actions/network-search-groups/run/async", {
    body: { input: { query: "finishes first" }, max_results: 2 }, key: newKey(),
  });
  const pattern = new RegExp(`/v1/runs/${quick.id}$`);
  await page.route(pattern, (route) => route.fulfill({ status: 200, contentType: "application/json", body: JSON.stringify(quick) }));
  await go(page, `/runs/${quick.id}`);
  await page.getByRole("button", { name: "Cancel run…" }).click();
  while ((await api(sandbox, "GET", `/v1/runs/${quick.id}`)).json.status !== "completed") await sleep(200);
  await page.unroute(pattern);
  await page.getByRole("button", { name: "Yes, cancel the run" }).click();
  await assert.doesNotReject(page.getByText("The run had already finished, so it could not be cancelled.").waitFor());
  await page.locator('.run-head [data-status="completed"]').waitFor();
  await assert.doesNotReject(page.locator(".error-panel").getByText("HTTP status").waitFor());
  await screenshot(page, "run-cancel-409");
  assert.deepEqual(besides(problems, 409), []);
});

test("a failed run shows its code, message and the response's request id, for a ticket", async ({ sandbox, pages }) => {
  const { context, page, problems } = await signedInAt(pages, sandbox, "/actions/premium-search-people");
  const ids = [];
  page.on("response", (r) => {
    if (/^\/v1\/runs\/[^/]+$/.test(new URL(r.url()).pathname)) ids.push(r.headers()["x-request-id"]);
  });
  const id = await submitForm(page, { Keywords: "sandbox:fail=upstream_timeout" }, { live: true });
  await page.locator('.run-head [data-status="failed"]').waitFor({ timeout: 15_000 });
  const panel = page.locator('[data-field="run-error"]');
  assert.equal(await panel.locator('[data-field="error-code"]').textContent(), "upstream_timeout");
  const run = (await api(sandbox, "GET", `/v1/runs/${id}`)).json;
  await assert.doesNotReject(panel.getByText(run.error.message).waitFor());
  const shownId = await panel.locator('[data-field="request-id"]').textContent();
  assert.match(shownId, /^req_/);
  assert.ok(ids.includes(shownId), "the request id of a response the page received");
  await context.grantPermissions(["clipboard-read", "clipboard-write"]);
  await panel.getByRole("button", { name: "Copy for a support ticket" }).click();
  const ticket = await page.evaluate(() => navigator.clipboard.readText());
  for (const part of [id, "upstream_timeout", shownId, run.error.message]) assert.ok(ticket.includes(part), ticket);
  await screenshot(page, "run-failed");
  assert.deepEqual(problems, []);
});

test("hostile output stays inert: no script runs, no unsafe link, and the CSV is safe", async ({ sandbox, pages }) => {
  const { page, problems } = await signedInAt(pages, sandbox, "/actions/network-search-content");
  const dialogs = [];
  page.on("dialog", (d) => { dialogs.push(d.message()); d.dismiss(); });
  await submitForm(page, { Keywords: "hostile" }, { live: true });
  const table = page.locator('[data-field="output-table"]');
  await table.waitFor({ timeout: 15_000 });
  // The markup arrived as text.
  await assert.doesNotReject(table.getByText("<script>alert('xss')</script>").first().waitFor());
  assert.equal(await page.locator("main script, main img, main iframe").count(), 0);
  const hrefs = await table.locator("a[href]").evaluateAll((as) => as.map((a) => [a.getAttribute("href"), a.rel]));
  assert.ok(hrefs.length > 0);
  for (const [href, rel] of hrefs) {
    assert.ok(href.startsWith("https://") || href.startsWith("/actions/"), href);
    if (href.startsWith("https://")) assert.equal(rel, "noopener noreferrer");
  }
  assert.equal(await page.locator('a[href^="javascript:" i], a[href^="data:" i], a[href*="javascript:" i]').count(), 0);
  // Direction overrides are shown, not obeyed; long text is shortened with a way to see it all.
  await assert.doesNotReject(table.getByText("[RLO]gnp.exe").first().waitFor());
  const long = table.locator("details.long").first();
  await assert.doesNotReject(long.getByText("(10000 characters)").waitFor());
  await long.locator("summary").click();
  assert.equal((await long.locator(".full-text").textContent()).length, 10_000);
  await screenshot(page, "run-hostile");
  // CSV: every field that would start a formula starts with a quote instead.
  const [download] = await Promise.all([page.waitForEvent("download"), page.getByRole("button", { name: "Export CSV" }).click()]);
  const csv = readFileSync(await download.path(), "utf8").replace(/^\uFEFF/, "");
  assert.match(download.suggestedFilename(), /^sandbox-run-.+\.csv$/);
  const fields = parseCsv(csv).flat();
  assert.ok(fields.includes("'=HYPERLINK(\"https://evil.example\",\"click\")"));
  assert.ok(fields.includes("'+cmd|' /C calc'!A0"));
  for (const field of fields) assert.ok(!/^[=+\-@\t\r]/.test(field), `unsafe CSV field ${JSON.stringify(field)}`);
  const [jsonDownload] = await Promise.all([page.waitForEvent("download"), page.getByRole("button", { name: "Export JSON", exact: true }).click()]);
  assert.equal(JSON.parse(readFileSync(await jsonDownload.path(), "utf8")).length, 12);
  assert.deepEqual(dialogs, []);
  assert.equal(await page.evaluate(() => window.__xss === undefined), true);
  assert.deepEqual(problems, []);
});

/** RFC 4180 CSV into rows of fields. */
function parseCsv(text) {
  const rows = [[]];
  let field = "", quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') { field += '"'; i++; }
      else if (c === '"') quoted = false;
      else field += c;
    } else if (c === '"') quoted = true;
    else if (c === ",") { rows.at(-1).push(field); field = ""; }
    else if (c === "\r" && text[i + 1] === "\n") { rows.at(-1).push(field); field = ""; rows.push([]); i++; }
    else field += c;
  }
  if (field !== "" || rows.at(-1).length) rows.at(-1).push(field);
  return rows.filter((r) => r.length > 0);
}

test("a 100-record table shows its first screenful at once, then every row in order, the columns steady", async ({ sandbox, pages }) => {
  const run = (await api(sandbox, "POST", "/v1/actions/premium-search-people/run/live", {
    key: newKey(), body: { input: { keywords: "hundred rows" }, max_results: 100 },
  })).json;
  assert.equal(run.output.length, 100);
  const { page, problems } = await signedInAt(pages, sandbox, "/workspace");
  await page.locator('[data-field="credits_balance"]').waitFor();
  // Watched from inside the page: the rows the table first appeared with, and the header's
  // column widths then (after layout) and once all rows are in.
  const seen = page.evaluate(() => new Promise((resolve) => {
    const seen = {};
    const widths = () => [...document.querySelectorAll('[data-field="output-table"] thead th')].map((th) => th.getBoundingClientRect().width);
    const observer = new MutationObserver(() => {
      const rows = document.querySelectorAll('[data-field="output-table"] tbody tr').length;
      if (rows && seen.first === undefined) { seen.first = rows; seen.firstWidths = widths(); }
      if (rows === 100) { observer.disconnect(); seen.allWidths = widths(); resolve(seen); }
    });
    observer.observe(document.body, { childList: true, subtree: true });
  }));
  await go(page, `/runs/${run.id}`);
  const { first, firstWidths, allWidths } = await seen;
  // 1280 × 860: the rows that can show below the run's summary, not all 100.
  assert.ok(first >= 8 && first < 100, `first slice ${first}`);
  // "#" keeps its width (room for "100" from the start). A later record with a longer value can
  // widen its column a little when the rest arrive; with this data, by under 2 px.
  assert.equal(allWidths[0], firstWidths[0]);
  allWidths.forEach((w, i) => assert.ok(Math.abs(w - firstWidths[i]) < 2, `column ${i}: ${firstWidths[i]} → ${w}`));
  const numbers = await page.locator('[data-field="output-table"] tbody th[scope=row]').allTextContents();
  assert.deepEqual(numbers, Array.from({ length: 100 }, (_, i) => String(i + 1)));
  // Each row is its record: the last row's name is the 100th record's.
  await assert.doesNotReject(page.locator('[data-field="output-table"] tbody tr').nth(99).getByText(run.output[99].name, { exact: true }).waitFor());
  // Switching to JSON at once and back leaves one whole table.
  await page.getByRole("button", { name: "JSON", exact: true }).click();
  await page.getByRole("button", { name: "Table", exact: true }).click();
  await page.locator('[data-field="output-table"] tbody tr').nth(99).waitFor();
  assert.equal(await page.locator('[data-field="output-table"] tbody tr').count(), 100);
  assert.deepEqual(problems, []);
});

test("profile → posts → comments by clicks alone, the ids passed exactly as returned", async ({ sandbox, pages }) => {
  const { page, problems } = await signedInAt(pages, sandbox, "/actions/network-extract-people");
  const profileRun = await submitForm(page, { Identifier: "ada-lovelace" }, { live: true });
  await page.locator('.run-head [data-status="completed"]').waitFor({ timeout: 15_000 });
  const profile = (await api(sandbox, "GET", `/v1/runs/${profileRun}`)).json.output[0];
  await page.getByRole("link", { name: "Get profile posts" }).click();
  await page.waitForURL(/\/actions\/network-extract-people-post-activity\?identifier=/);
  assert.equal(await page.getByLabel("Identifier", { exact: true }).inputValue(), profile.network_profile_identifier);
  await page.getByLabel("Live: wait for the result").check();
  await page.getByRole("button", { name: "Run live" }).click();
  await page.waitForURL(/\/runs\//);
  await page.locator('.run-head [data-status="completed"]').waitFor({ timeout: 15_000 });
  const postsRun = decodeURIComponent(new URL(page.url()).pathname.split("/").pop());
  const firstPost = (await api(sandbox, "GET", `/v1/runs/${postsRun}`)).json.output[0];
  await page.getByRole("link", { name: "Get comments" }).first().click();
  await page.waitForURL(/\/actions\/network-extract-post-commenters\?social_id=/);
  assert.equal(await page.getByLabel("Social ID", { exact: true }).inputValue(), firstPost.social_id);
  await page.getByLabel("Live: wait for the result").check();
  await page.getByRole("button", { name: "Run live" }).click();
  await page.waitForURL(/\/runs\//);
  await page.locator('.run-head [data-status="completed"]').waitFor({ timeout: 15_000 });
  assert.ok(await page.locator('[data-field="output-table"] tbody tr').count() > 0);
  // Back to the posts: the reactions link prefills the same id.
  await page.goBack();
  await page.goBack();
  await page.getByRole("link", { name: "Get reactions" }).first().click();
  await page.waitForURL(/\/actions\/network-extract-post-likers\?social_id=/);
  assert.equal(await page.getByLabel("Social ID", { exact: true }).inputValue(), firstPost.social_id);
  assert.deepEqual(problems, []);
});

test("the runs list: filters in the URL, find by id, and refreshing only while runs are active", async ({ sandbox, pages }) => {
  const { page, problems } = await signedInAt(pages, sandbox, "/runs");
  const failed = await api(sandbox, "POST", "/v1/actions/premium-search-people/run/live", {
    body: { input: { keywords: "sandbox:fail=quota_exceeded" } }, key: newKey(),
  });
  assert.equal(failed.json.status, "failed");
  const listPolls = trackRequests(page, /^\/v1\/runs$/);
  const { json: active } = await api(sandbox, "POST", "/v1/actions/network-search-schools/run/async", {
    body: { input: { query: "list refresh" }, max_results: 3 }, key: newKey(),
  });
  await page.getByRole("button", { name: "Refresh" }).click();
  const row = page.locator(`tr[data-run="${active.id}"]`);
  await row.locator('[data-status="completed"]').waitFor({ timeout: 15_000 });
  const endedAt = Date.now();
  assert.ok(listPolls.sent >= 2, "the list refreshed by itself while a run was active");
  await sleep(3_000);
  assert.ok(listPolls.times.every((t) => t <= endedAt), "no refresh once every run is terminal");
  assert.equal(listPolls.maxInFlight, 1);
  const all = (await api(sandbox, "GET", "/v1/runs")).json.runs;
  assert.equal(await page.locator("tr[data-run]").count(), all.length);
  await screenshot(page, "runs-list");
  // Filter by status: the URL holds it, so the view can be shared.
  await page.getByLabel("Status").selectOption("failed");
  await page.waitForURL(/\/runs\?status=failed$/);
  const failedIds = all.filter((r) => r.status === "failed").map((r) => r.id);
  assert.deepEqual(await page.locator("tr[data-run]").evaluateAll((rows) => rows.map((r) => r.dataset.run)), failedIds);
  await assert.doesNotReject(page.locator(`tr[data-run="${failed.json.id}"]`).getByText("quota_exceeded").waitFor());
  // The same URL opened fresh shows the same view.
  const shared = await signedInAt(pages, sandbox, "/runs?status=failed&action=premium-search-people");
  await shared.page.locator("tr[data-run]").first().waitFor();
  const sharedIds = await shared.page.locator("tr[data-run]").evaluateAll((rows) => rows.map((r) => r.dataset.run));
  assert.deepEqual(sharedIds, all.filter((r) => r.status === "failed" && r.action === "premium-search-people").map((r) => r.id));
  assert.equal(await shared.page.getByLabel("Action").inputValue(), "premium-search-people");
  await shared.context.close();
  // The Created column's heading, sorted newest first, turns the order round.
  await page.getByLabel("Status").selectOption("");
  const created = page.locator('th[aria-sort]');
  assert.equal(await created.getAttribute("aria-sort"), "descending");
  await created.getByRole("link", { name: "Created" }).click();
  await page.waitForURL(/order=oldest/);
  assert.equal(await page.locator('th[aria-sort]').getAttribute("aria-sort"), "ascending");
  assert.equal(await page.locator("tr[data-run]").first().getAttribute("data-run"), all.at(-1).id);
  // Find a run by its id.
  await page.getByLabel("Run ID").fill(`  ${active.id} `);
  await page.getByRole("button", { name: "Open" }).click();
  await page.waitForURL(new RegExp(`/runs/${active.id}$`));
  await page.locator('.run-head [data-status="completed"]').waitFor();
  // An unknown id is a not-found page, not an error.
  await go(page, "/runs/00000000-0000-4000-8000-000000000000");
  await assert.doesNotReject(page.getByRole("heading", { name: "Run not found" }).waitFor());
  assert.deepEqual(besides(problems, 404), []);
});

test("a run page opened signed out goes to sign-in and comes back", async ({ sandbox, pages }) => {
  const { json: run } = await api(sandbox, "POST", "/v1/actions/network-search-groups/run/live", {
    body: { input: { query: "come back" }, max_results: 1 }, key: newKey(),
  });
  const { page, problems } = await pages.open();
  await page.goto(`${sandbox.url}/runs/${run.id}`);
  await page.waitForURL(/\/sign-in\?next=/);
  await signIn(page, sandbox.api_key);
  await page.waitForURL(new RegExp(`/runs/${run.id}$`));
  await page.locator('.run-head [data-status="completed"]').waitFor();
  assert.deepEqual(problems, []);
});
