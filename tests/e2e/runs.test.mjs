// Runs end to end: a run watched to its end by the polling rules, hidden tabs, cancel and its
// 409, failed-run inspection, inert hostile output and safe CSV, chaining by clicks, and the
// runs list with filters in the URL. Headless Chromium against the sandbox.
import { readFileSync } from "node:fs";
import { expect, withSandbox } from "./fixtures.mjs";
import { screenshot, signIn, signInFromStart, go, trackRequests, controlVisibility, api, besides, parseCsv, scrollThroughRows, focusedCell } from "./harness.mjs";

// Slow enough that a run is seen queued and processing across several polls.
const test = withSandbox({ args: ["--queue-ms", "1200", "--process-ms", "2600"] });

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
  await expect(page).toHaveURL(/\/runs\/[^/]+$/);
  return decodeURIComponent(new URL(page.url()).pathname.split("/").pop());
}

const status = (page) => page.locator(".run-head [data-status]");

test("an async run is watched from queued to completed: one request at a time, none after the end", async ({ sandbox, pages }) => {
  const { page, problems } = await signedInAt(pages, sandbox, "/actions/premium-search-people");
  const runRequests = trackRequests(page, /^\/v1\/runs\/[^/]+$/);
  const id = await submitForm(page, { Keywords: "platform engineer" }, { live: false });
  await expect(status(page).filter({ hasText: /queued|processing/ })).toBeVisible();
  await screenshot(page, "run-running");
  await expect(page.locator('.run-head [data-status="completed"]')).toBeVisible({ timeout: 15_000 });
  const endedAt = Date.now();
  const run = (await api(sandbox, "GET", `/v1/runs/${id}`)).json;
  expect(run.status).toBe("completed");
  // The output is on screen: a table of every record (the rows near the view drawn).
  await expect(page.locator('[data-field="output-table"]')).toHaveAttribute("aria-rowcount", String(run.output.length + 1));
  await expect(page.locator('[data-field="output-table"] tbody tr').first()).toBeVisible();
  await expect(page.locator('[data-field="records"]')).toHaveText(String(run.output.length));
  await screenshot(page, "run-completed-table");
  await page.getByRole("button", { name: "JSON", exact: true }).click();
  const json = JSON.parse(await page.locator('[data-field="output-json"]').textContent());
  expect(json).toEqual(run.output);
  await screenshot(page, "run-completed-json");
  // Several polls were needed, never two at once, and none after the terminal answer.
  // A fixed wait on purpose: the test asserts that no request follows for a while.
  await page.waitForTimeout(4_000);
  expect(runRequests.sent, "polls sent").toBeGreaterThanOrEqual(3);
  expect(runRequests.maxInFlight).toBe(1);
  expect(runRequests.times.filter((t) => t > endedAt), "requests after the run ended").toEqual([]);
  // Backoff: the gaps between polls never shrink.
  const gaps = runRequests.times.slice(1).map((t, i) => t - runRequests.times[i]);
  expect(gaps.filter((g, i) => i > 0 && g < gaps[i - 1] - 150), `gaps shorter than the one before, of ${gaps}`).toEqual([]);
  expect(problems).toEqual([]);
});

test("a hidden tab sends no polls, and a shown one resumes at once", async ({ sandbox, pages }) => {
  const { page, problems } = await pages.open();
  const setHidden = await controlVisibility(page);
  await signInFromStart(page, sandbox);
  const { json: run } = await api(sandbox, "POST", "/v1/actions/network-search-groups/run/async", {
    body: { input: { query: "hidden tab sandbox:slow" }, max_results: 5 }, key: newKey(),
  });
  const polls = trackRequests(page, new RegExp(`^/v1/runs/${run.id}$`));
  await go(page, `/runs/${run.id}`);
  await expect(status(page)).toBeVisible();
  await setHidden(true);
  // Fixed waits on purpose: a request already on its way may land, then the test asserts that
  // none is sent for a while.
  await page.waitForTimeout(300);
  const sentWhenHidden = polls.sent;
  await page.waitForTimeout(5_000);
  expect(polls.sent, "no request while hidden").toBe(sentWhenHidden);
  const shownAt = Date.now();
  await setHidden(false);
  await expect.poll(() => polls.sent, { message: "polling resumed", timeout: 3_000, intervals: [50] }).toBeGreaterThan(sentWhenHidden);
  expect(polls.times.at(-1) - shownAt, "resumed within a second of being shown").toBeLessThan(1_000);
  expect(polls.maxInFlight).toBe(1);
  await api(sandbox, "POST", `/v1/runs/${run.id}/cancel`);
  expect(problems).toEqual([]);
});

test("cancel asks first, then cancels; a cancel after the run finished explains the 409", async ({ sandbox, pages }) => {
  const { page, problems } = await signedInAt(pages, sandbox, "/runs");
  const { json: run } = await api(sandbox, "POST", "/v1/actions/network-search-groups/run/async", {
    body: { input: { query: "to cancel sandbox:slow" }, max_results: 5 }, key: newKey(),
  });
  await go(page, `/runs/${run.id}`);
  await page.getByRole("button", { name: "Cancel run…" }).click();
  await expect(page.getByText("Cancel this run? Its reservation is released.")).toBeVisible();
  await page.getByRole("button", { name: "Keep it" }).click();
  expect((await api(sandbox, "GET", `/v1/runs/${run.id}`)).json.status).not.toBe("cancelled");
  await page.getByRole("button", { name: "Cancel run…" }).click();
  const workspaceReads = trackRequests(page, /^\/v1\/workspace$/);
  await page.getByRole("button", { name: "Yes, cancel the run" }).click();
  await expect(page.locator('.run-head [data-status="cancelled"]')).toBeVisible();
  // A fixed wait on purpose: the test asserts that the credits are read once, and not again.
  await page.waitForTimeout(1_500);
  expect(workspaceReads.sent, "the credits refresh once after a cancel").toBe(1);
  await expect(page.locator('[data-field="credits_reserved"]')).toHaveText("0");
  expect((await api(sandbox, "GET", `/v1/runs/${run.id}`)).json.status).toBe("cancelled");

  // A run that finishes while the page still shows it as running: the page's polls are held
  // back (the network answers with the stale run), the run completes, then the person cancels.
  const { json: quick } = await api(sandbox, "POST", "/v1/actions/network-search-groups/run/async", {
    body: { input: { query: "finishes first" }, max_results: 2 }, key: newKey(),
  });
  const pattern = new RegExp(`/v1/runs/${quick.id}$`);
  await page.route(pattern, (route) => route.fulfill({ status: 200, contentType: "application/json", body: JSON.stringify(quick) }));
  await go(page, `/runs/${quick.id}`);
  await page.getByRole("button", { name: "Cancel run…" }).click();
  await expect.poll(async () => (await api(sandbox, "GET", `/v1/runs/${quick.id}`)).json.status, { intervals: [200] }).toBe("completed");
  await page.unroute(pattern);
  await page.getByRole("button", { name: "Yes, cancel the run" }).click();
  await expect(page.getByText("The run had already finished, so it could not be cancelled.")).toBeVisible();
  await expect(page.locator('.run-head [data-status="completed"]')).toBeVisible();
  await expect(page.locator(".error-panel").getByText("HTTP status")).toBeVisible();
  await screenshot(page, "run-cancel-409");
  expect(besides(problems, 409)).toEqual([]);
});

test("a failed run shows its code, message and the response's request id, for a ticket", async ({ sandbox, pages }) => {
  const { context, page, problems } = await signedInAt(pages, sandbox, "/actions/premium-search-people");
  const ids = [];
  page.on("response", (r) => {
    if (/^\/v1\/runs\/[^/]+$/.test(new URL(r.url()).pathname)) ids.push(r.headers()["x-request-id"]);
  });
  const id = await submitForm(page, { Keywords: "sandbox:fail=upstream_timeout" }, { live: true });
  await expect(page.locator('.run-head [data-status="failed"]')).toBeVisible({ timeout: 15_000 });
  const panel = page.locator('[data-field="run-error"]');
  await expect(panel.locator('[data-field="error-code"]')).toHaveText("upstream_timeout");
  const run = (await api(sandbox, "GET", `/v1/runs/${id}`)).json;
  await expect(panel.getByText(run.error.message)).toBeVisible();
  const shownId = await panel.locator('[data-field="request-id"]').textContent();
  expect(shownId).toMatch(/^req_/);
  expect(ids, "the request id of a response the page received").toContain(shownId);
  await context.grantPermissions(["clipboard-read", "clipboard-write"]);
  await panel.getByRole("button", { name: "Copy for a support ticket" }).click();
  const ticket = await page.evaluate(() => navigator.clipboard.readText());
  for (const part of [id, "upstream_timeout", shownId, run.error.message]) expect(ticket).toContain(part);
  await screenshot(page, "run-failed");
  expect(problems).toEqual([]);
});

test("hostile output stays inert: no script runs, no unsafe link, and the CSV is safe", async ({ sandbox, pages }) => {
  const { page, problems } = await signedInAt(pages, sandbox, "/actions/network-search-content");
  const dialogs = [];
  page.on("dialog", (d) => { dialogs.push(d.message()); d.dismiss(); });
  await submitForm(page, { Keywords: "hostile" }, { live: true });
  const table = page.locator('[data-field="output-table"]');
  await expect(table).toBeVisible({ timeout: 15_000 });
  // The markup arrived as text.
  await expect(table.getByText("<script>alert('xss')</script>").first()).toBeVisible();
  await expect(page.locator("main script, main img, main iframe")).toHaveCount(0);
  const hrefs = await table.locator("a[href]").evaluateAll((as) => as.map((a) => [a.getAttribute("href"), a.rel]));
  expect(hrefs.length).toBeGreaterThan(0);
  for (const [href, rel] of hrefs) {
    expect(href).toMatch(/^(https:\/\/|\/actions\/)/);
    if (href.startsWith("https://")) expect(rel, href).toBe("noopener noreferrer");
  }
  await expect(page.locator('a[href^="javascript:" i], a[href^="data:" i], a[href*="javascript:" i]')).toHaveCount(0);
  // Direction overrides are shown, not obeyed; long text is shortened with a way to see it all.
  await expect(table.getByText("[RLO]gnp.exe").first()).toBeVisible();
  const long = table.locator("details.long").first();
  await expect(long.getByText("(10000 characters)")).toBeVisible();
  await long.locator("summary").click();
  expect((await long.locator(".full-text").textContent()).length).toBe(10_000);
  await screenshot(page, "run-hostile");
  // CSV: every field that would start a formula starts with a quote instead.
  const [download] = await Promise.all([page.waitForEvent("download"), page.getByRole("button", { name: "Export CSV" }).click()]);
  const csv = readFileSync(await download.path(), "utf8").replace(/^\uFEFF/, "");
  expect(download.suggestedFilename()).toMatch(/^sandbox-run-.+\.csv$/);
  const fields = parseCsv(csv).flat();
  expect(fields).toContain("'=HYPERLINK(\"https://evil.example\",\"click\")");
  expect(fields).toContain("'+cmd|' /C calc'!A0");
  expect(fields.filter((field) => /^[=+\-@\t\r]/.test(field)), "unsafe CSV fields").toEqual([]);
  const [jsonDownload] = await Promise.all([page.waitForEvent("download"), page.getByRole("button", { name: "Export JSON", exact: true }).click()]);
  expect(JSON.parse(readFileSync(await jsonDownload.path(), "utf8"))).toHaveLength(12);
  expect(dialogs).toEqual([]);
  expect(await page.evaluate(() => window.__xss === undefined)).toBe(true);
  expect(problems).toEqual([]);
});

test("a 100-record run is one scroll: the rows near the view drawn, every record reached by scrolling and by keys, the columns steady", async ({ sandbox, pages }) => {
  const run = (await api(sandbox, "POST", "/v1/actions/premium-search-people/run/live", {
    key: newKey(), body: { input: { keywords: "hundred rows" }, max_results: 100 },
  })).json;
  expect(run.output).toHaveLength(100);
  const { page, problems, context } = await signedInAt(pages, sandbox, "/workspace");
  await expect(page.locator('[data-field="credits_balance"]')).toBeVisible();
  await go(page, `/runs/${run.id}`);
  const table = page.locator('[data-field="output-table"]');
  const rows = table.locator("tbody tr");
  // Assistive technology hears of 100 rows and a header; the document holds the rows near the view.
  await expect(table).toHaveAttribute("aria-rowcount", "101");
  await expect(table).toHaveAttribute("role", "grid");
  await expect(rows.first()).toHaveAttribute("aria-rowindex", "2");
  const drawn = await rows.count();
  expect(drawn, "rows drawn at first (1280 × 860)").toBeGreaterThanOrEqual(8);
  expect(drawn, "rows drawn at first (1280 × 860)").toBeLessThan(60);
  const widths = () => table.locator("thead th").evaluateAll((ths) => ths.map((th) => th.getBoundingClientRect().width));
  const firstWidths = await widths();
  const heads = (await table.locator("thead th").allTextContents()).map((h) => h.trim());
  const nameColumn = heads.indexOf("name");
  expect(nameColumn).toBeGreaterThan(0);

  // Scrolled from top to end as a person would: every record, in order, each row its record.
  const seen = await scrollThroughRows(table);
  expect(seen.count).toBe(100);
  expect(seen.rows.map((cells) => cells?.[0]), "the # column, 1 to 100").toEqual(Array.from({ length: 100 }, (_, i) => String(i + 1)));
  expect(seen.rows.map((cells) => cells[nameColumn])).toEqual(run.output.map((r) => r.name));
  expect(seen.drawnAtMost, "never the whole table at once").toBeLessThan(100);
  // "#" keeps its width (room for six digits from the start); a record with a longer value can
  // widen its column a little when it comes into view; with this data, by under 2 px.
  const allWidths = await widths();
  expect(allWidths[0]).toBe(firstWidths[0]);
  allWidths.forEach((w, i) => expect(Math.abs(w - firstWidths[i]), `column ${i}: ${firstWidths[i]} → ${w}`).toBeLessThan(2));

  // Keys, from a cell clicked: Ctrl+End brings the last row in and focuses it; the arrows, Home
  // and End move between cells; Ctrl+Home goes back to the first row.
  const focused = () => focusedCell(page);
  await rows.first().locator("th").click();
  expect(await focused()).toEqual({ row: "2", column: 0, text: "1" });
  await page.keyboard.press("Control+End");
  await expect.poll(focused).toEqual({ row: "101", column: 0, text: "100" });
  await expect(table.locator('tbody tr[aria-rowindex="101"]')).toBeInViewport();
  await page.keyboard.press("ArrowUp");
  await page.keyboard.press("ArrowRight");
  await expect.poll(focused).toMatchObject({ row: "100", column: 1 });
  await page.keyboard.press("End");
  await expect.poll(focused).toMatchObject({ row: "100", column: heads.length - 1 });
  await page.keyboard.press("Control+Home");
  await expect.poll(focused).toMatchObject({ row: "2", column: heads.length - 1 });
  await expect(table.locator('tbody tr[aria-rowindex="2"]')).toBeInViewport();
  await page.keyboard.press("PageDown");
  await expect.poll(async () => Number((await focused()).row), "Page Down moves a view's worth of rows").toBeGreaterThan(3);
  await expect(table.locator(`tbody tr[aria-rowindex="${(await focused()).row}"]`)).toBeInViewport();
  await page.keyboard.press("Home");
  await expect.poll(focused).toMatchObject({ column: 0 });
  await screenshot(page, "run-100-keys");

  // A row brought in by the keys: its Copy button copies its record, its chain links go on from it.
  await page.keyboard.press("Control+End");
  const last = table.locator('tbody tr[aria-rowindex="101"]');
  await expect(last).toBeInViewport();
  await context.grantPermissions(["clipboard-read", "clipboard-write"]);
  await last.getByRole("button", { name: "Copy" }).click();
  await expect.poll(() => page.evaluate(() => navigator.clipboard.readText())).toContain(run.output[99].name);
  expect(JSON.parse(await page.evaluate(() => navigator.clipboard.readText()))).toEqual(run.output[99]);
  // Escape from the button goes back to its cell.
  await last.getByRole("button", { name: "Copy" }).focus();
  await page.keyboard.press("Escape");
  await expect.poll(focused).toMatchObject({ row: "101", column: heads.length - 1 });

  // Switching to JSON and back leaves one whole table, from its top.
  await page.getByRole("button", { name: "JSON", exact: true }).click();
  await page.getByRole("button", { name: "Table", exact: true }).click();
  await expect(table).toHaveAttribute("aria-rowcount", "101");
  await expect(rows.first()).toHaveAttribute("aria-rowindex", "2");

  // A post search's last post, brought in by the keys, links to the actions it chains into with
  // its social_id as returned.
  const posts = (await api(sandbox, "POST", "/v1/actions/network-search-content/run/live", {
    key: newKey(), body: { input: { keywords: "hundred posts" }, max_results: 100 },
  })).json;
  expect(posts.output.length).toBeGreaterThan(40);
  await go(page, `/runs/${posts.id}`);
  await expect(table).toHaveAttribute("aria-rowcount", String(posts.output.length + 1));
  await rows.first().locator("th").click();
  await page.keyboard.press("Control+End");
  const lastPost = table.locator(`tbody tr[aria-rowindex="${posts.output.length + 1}"]`);
  await expect(lastPost).toBeInViewport();
  const chained = await lastPost.locator("td.row-actions").getByRole("link").evaluateAll((as) => as.map((a) => a.getAttribute("href")));
  expect(chained.length, "the last post's chained actions").toBeGreaterThan(0);
  for (const href of chained) expect(decodeURIComponent(href)).toContain(posts.output.at(-1).social_id);
  await lastPost.locator("td.row-actions").getByRole("link").first().click();
  await expect(page).toHaveURL(/\/actions\/network-extract-post-/);
  expect(problems).toEqual([]);
});

test("profile → posts → comments by clicks alone, the ids passed exactly as returned", async ({ sandbox, pages }) => {
  const { page, problems } = await signedInAt(pages, sandbox, "/actions/network-extract-people");
  const profileRun = await submitForm(page, { Identifier: "ada-lovelace" }, { live: true });
  await expect(page.locator('.run-head [data-status="completed"]')).toBeVisible({ timeout: 15_000 });
  const profile = (await api(sandbox, "GET", `/v1/runs/${profileRun}`)).json.output[0];
  await page.getByRole("link", { name: "Get profile posts" }).click();
  await expect(page).toHaveURL(/\/actions\/network-extract-people-post-activity\?identifier=/);
  await expect(page.getByLabel("Identifier", { exact: true })).toHaveValue(profile.network_profile_identifier);
  await page.getByLabel("Live: wait for the result").check();
  await page.getByRole("button", { name: "Run live" }).click();
  await expect(page).toHaveURL(/\/runs\//);
  await expect(page.locator('.run-head [data-status="completed"]')).toBeVisible({ timeout: 15_000 });
  const postsRun = decodeURIComponent(new URL(page.url()).pathname.split("/").pop());
  const firstPost = (await api(sandbox, "GET", `/v1/runs/${postsRun}`)).json.output[0];
  await page.getByRole("link", { name: "Get post comments" }).first().click();
  await expect(page).toHaveURL(/\/actions\/network-extract-post-commenters\?social_id=/);
  await expect(page.getByLabel("Social ID", { exact: true })).toHaveValue(firstPost.social_id);
  await page.getByLabel("Live: wait for the result").check();
  await page.getByRole("button", { name: "Run live" }).click();
  await expect(page).toHaveURL(/\/runs\//);
  await expect(page.locator('.run-head [data-status="completed"]')).toBeVisible({ timeout: 15_000 });
  await expect(page.locator('[data-field="output-table"] tbody tr').first()).toBeAttached();
  // Back to the posts: the reactions link prefills the same id.
  await page.goBack();
  await page.goBack();
  await page.getByRole("link", { name: "Get post reactions" }).first().click();
  await expect(page).toHaveURL(/\/actions\/network-extract-post-likers\?social_id=/);
  await expect(page.getByLabel("Social ID", { exact: true })).toHaveValue(firstPost.social_id);
  expect(problems).toEqual([]);
});

test("the runs list: filters in the URL, find by id, and refreshing only while runs are active", async ({ sandbox, pages }) => {
  const { page, problems } = await signedInAt(pages, sandbox, "/runs");
  const failed = await api(sandbox, "POST", "/v1/actions/premium-search-people/run/live", {
    body: { input: { keywords: "sandbox:fail=quota_exceeded" } }, key: newKey(),
  });
  expect(failed.json.status).toBe("failed");
  const listPolls = trackRequests(page, /^\/v1\/runs$/);
  const { json: active } = await api(sandbox, "POST", "/v1/actions/network-search-schools/run/async", {
    body: { input: { query: "list refresh" }, max_results: 3 }, key: newKey(),
  });
  await page.getByRole("button", { name: "Refresh" }).click();
  const row = page.locator(`tr[data-run="${active.id}"]`);
  await expect(row.locator('[data-status="completed"]')).toBeVisible({ timeout: 15_000 });
  const endedAt = Date.now();
  expect(listPolls.sent, "the list refreshed by itself while a run was active").toBeGreaterThanOrEqual(2);
  // A fixed wait on purpose: the test asserts that no refresh follows for a while.
  await page.waitForTimeout(3_000);
  expect(listPolls.times.filter((t) => t > endedAt), "refreshes once every run is terminal").toEqual([]);
  expect(listPolls.maxInFlight).toBe(1);
  const all = (await api(sandbox, "GET", "/v1/runs")).json.runs;
  await expect(page.locator('[data-field="runs-table"]'), "every run listed, in one table").toHaveAttribute("aria-rowcount", String(all.length + 1));
  await expect(page.locator("tr[data-run]").first()).toHaveAttribute("data-run", all[0].id);
  await screenshot(page, "runs-list");
  // Filter by status: the URL holds it, so the view can be shared.
  const listedIds = (page) => page.locator("tr[data-run]").evaluateAll((rows) => rows.map((r) => r.dataset.run));
  await page.getByLabel("Status").selectOption("failed");
  await expect(page).toHaveURL(/\/runs\?status=failed$/);
  const failedIds = all.filter((r) => r.status === "failed").map((r) => r.id);
  await expect.poll(() => listedIds(page)).toEqual(failedIds);
  await expect(page.locator(`tr[data-run="${failed.json.id}"]`).getByText("quota_exceeded")).toBeVisible();
  // The same URL opened fresh shows the same view.
  const shared = await signedInAt(pages, sandbox, "/runs?status=failed&action=premium-search-people");
  await expect.poll(() => listedIds(shared.page))
    .toEqual(all.filter((r) => r.status === "failed" && r.action === "premium-search-people").map((r) => r.id));
  await expect(shared.page.getByLabel("Action")).toHaveValue("premium-search-people");
  await shared.context.close();
  // The Created column's heading, sorted newest first, turns the order round.
  await page.getByLabel("Status").selectOption("");
  const created = page.locator('th[aria-sort]');
  await expect(created).toHaveAttribute("aria-sort", "descending");
  await created.getByRole("link", { name: "Created" }).click();
  await expect(page).toHaveURL(/order=oldest/);
  await expect(page.locator('th[aria-sort]')).toHaveAttribute("aria-sort", "ascending");
  await expect(page.locator("tr[data-run]").first()).toHaveAttribute("data-run", all.at(-1).id);
  // Find a run by its id.
  await page.getByLabel("Run ID").fill(`  ${active.id} `);
  await page.getByRole("button", { name: "Open" }).click();
  await expect(page).toHaveURL(new RegExp(`/runs/${active.id}$`));
  await expect(page.locator('.run-head [data-status="completed"]')).toBeVisible();
  // An unknown id is a not-found page, not an error.
  await go(page, "/runs/00000000-0000-4000-8000-000000000000");
  await expect(page.getByRole("heading", { name: "Run not found" })).toBeVisible();
  expect(besides(problems, 404)).toEqual([]);
});

test("a run page opened signed out goes to sign-in and comes back", async ({ sandbox, pages }) => {
  const { json: run } = await api(sandbox, "POST", "/v1/actions/network-search-groups/run/live", {
    body: { input: { query: "come back" }, max_results: 1 }, key: newKey(),
  });
  const { page, problems } = await pages.open();
  await page.goto(`${sandbox.url}/runs/${run.id}`);
  await expect(page).toHaveURL(/\/sign-in\?next=/);
  await signIn(page, sandbox.api_key);
  await expect(page).toHaveURL(new RegExp(`/runs/${run.id}$`));
  await expect(page.locator('.run-head [data-status="completed"]')).toBeVisible();
  expect(problems).toEqual([]);
});
