// The workspace's run history kept in this browser (issue 25): the API lists only the latest 100
// runs, so the runs the console saw stay listed after the API's window has moved on, marked as
// kept in this browser, across a reload. Headless Chromium against a sandbox of its own (a burst
// large enough for another client to make 160 runs at once, and quick runs).
import { readFileSync } from "node:fs";
import { expect, withSandbox } from "./fixtures.mjs";
import { screenshot, api, seriousViolations, signIn, signOut, go, besides, queueRun, scrollThroughRows } from "./harness.mjs";

const test = withSandbox({ args: ["--rate-burst", "500", "--rate-per-sec", "50", "--queue-ms", "50", "--process-ms", "100"] });

/** Makes `count` runs in `sandbox` through the API, as a script of the workspace would, and waits until they are final. */
async function runsMadeElsewhere(sandbox, count, label) {
  const ids = [];
  for (let i = 1; i <= count; i++) {
    const made = await api(sandbox, "POST", "/v1/actions/network-search-groups/run/async", {
      body: { input: { query: `${label} ${i}` }, max_results: 1 },
      key: `e2e-history-${label}-${i}-${Date.now()}`,
    });
    expect([200, 202], `run ${i}: ${made.status} ${JSON.stringify(made.json)}`).toContain(made.status);
    ids.push(made.json.id);
  }
  await expect.poll(async () => (await api(sandbox, "GET", "/v1/runs")).json.runs.filter((r) => !isFinal(r.status)).length, {
    message: "the runs listed by the API that are not final yet",
    intervals: [200],
  }).toBe(0);
  return ids;
}

/**
 * Three runs made elsewhere, then a page signed in on /runs, once this browser keeps every run the
 * API lists (`listed` of them) for the workspace (`workspace`, its id).
 */
async function signedInWithRunsKept(sandbox, pages) {
  await runsMadeElsewhere(sandbox, 3, "storage");
  const listed = (await api(sandbox, "GET", "/v1/runs")).json.runs.length;
  const { page, problems } = await pages.signedIn("/runs");
  const workspace = (await api(sandbox, "GET", "/v1/workspace")).json.workspace_id;
  await expect.poll(async () => (await keptHistory(page)).runs.length, { message: "the API's runs kept" }).toBe(listed);
  return { page, problems, listed, workspace };
}

const isFinal = (status) => ["completed", "failed", "cancelled"].includes(status);

const countLine = (page) => page.locator('[data-field="runs-count"]');
const rowsFrom = (page, source) => page.locator(`[data-field="runs-table"] tbody tr[data-source="${source}"]`);

test("runs older than the API's latest 100 stay listed, kept in this browser, across a reload", async ({ sandbox, pages }) => {
  test.setTimeout(120_000);
  const { page, problems } = await pages.signedIn("/runs");
  const first = await runsMadeElsewhere(sandbox, 60, "first");
  await page.getByRole("button", { name: "Refresh" }).click();
  await expect(countLine(page)).toContainText("60 listed: 60 from the API's latest 100, 0 kept in this browser");

  // 100 more: the first 60 leave the API's list, which never shows them again.
  await runsMadeElsewhere(sandbox, 100, "second");
  const listed = (await api(sandbox, "GET", "/v1/runs")).json.runs.map((r) => r.id);
  expect(listed.filter((id) => first.includes(id)), "the API no longer lists the first runs").toEqual([]);
  await page.getByRole("button", { name: "Refresh" }).click();
  await expect(countLine(page)).toContainText("160 listed: 100 from the API's latest 100, 60 kept in this browser");
  await expect(countLine(page)).toContainText("160 matching runs");
  const table = page.locator('[data-field="runs-table"]');
  await expect(table).toHaveAttribute("aria-rowcount", "161");

  // Newest first, all in one scroll: the API's 100, then the kept runs, the older ones.
  const listedInOrder = async () => {
    const seen = await scrollThroughRows(table);
    expect(seen.rows.findIndex((row) => row === null), "the first row never drawn (-1: none)").toBe(-1);
    return seen.rows.map((cells) => ({ id: cells[1], source: cells.at(-1) }));
  };
  const all = await listedInOrder();
  expect(all.slice(0, 100).every((row) => row.source === "API")).toBe(true);
  expect(all.slice(100).every((row) => row.source === "This browser")).toBe(true);
  // (the table shows a run's id by its first 8 characters)
  const shortIds = (ids) => ids.map((id) => id.slice(0, 8)).sort();
  expect(shortIds(all.slice(100).map((row) => row.id))).toEqual(shortIds(first));
  await table.evaluate((table) => { table.closest(".windowed").scrollTop = 1e9; });
  await expect(rowsFrom(page, "kept").last().locator("td").last()).toHaveText("This browser");
  expect(await seriousViolations(page)).toEqual([]);
  await screenshot(page, "runs-kept-in-this-browser");

  // A reload forgets the credential, not the history.
  await page.reload();
  await signIn(page, sandbox.api_key);
  await expect(countLine(page)).toContainText("160 listed: 100 from the API's latest 100, 60 kept in this browser");
  expect(await listedInOrder()).toEqual(all);

  // Filters apply to both: a kept run is found by its action and status like any other.
  await go(page, "/runs?status=completed&order=oldest");
  await expect(countLine(page)).toContainText("160 matching runs");
  await expect(rowsFrom(page, "kept").first(), "oldest first: the kept runs lead").toHaveAttribute("aria-rowindex", "2");
  // Search: a kept run found by a part of its id, typed into the box (and kept in the URL).
  const wanted = first[7];
  await page.getByLabel("Search").fill(wanted.slice(-10).toUpperCase());
  await page.getByLabel("Search").press("Enter");
  await expect(page).toHaveURL(new RegExp(`q=${wanted.slice(-10).toUpperCase()}`));
  await expect(countLine(page)).toContainText("1 matching run;");
  expect(await rowsFrom(page, "kept").evaluateAll((rows) => rows.map((r) => r.dataset.run))).toEqual([wanted]);
  expect(problems).toEqual([]);
});

test("what a browser kept before the history existed (store version 1) is read after the upgrade", async ({ sandbox, pages }) => {
  test.setTimeout(60_000);
  // A run this browser submitted before: its submission kept in version 1 of the store.
  const made = await api(sandbox, "POST", "/v1/actions/network-search-groups/run/async", {
    body: { input: { query: "kept before the upgrade" }, max_results: 1 },
    key: `e2e-history-v1-${Date.now()}`,
  });
  const { context, page, problems } = await pages.open();
  const workspace = (await api(sandbox, "GET", "/v1/workspace")).json.workspace_id;
  // Version 1, as the console wrote it (batches, rows, submissions), written before the console
  // is opened, from a page of the same origin that is not the console.
  const seeder = await context.newPage();
  await seeder.route("**/seed-v1", (route) => route.fulfill({ contentType: "text/html", body: "<!doctype html><title>seed</title>" }));
  await seeder.goto(`${sandbox.url}/seed-v1`);
  await seeder.evaluate(async ({ runId, workspace }) => {
    await new Promise((resolve) => { const d = indexedDB.deleteDatabase("console"); d.onsuccess = d.onerror = resolve; });
    const db = await new Promise((resolve, reject) => {
      const open = indexedDB.open("console", 1);
      open.onupgradeneeded = () => { for (const name of ["batches", "rows", "submissions"]) open.result.createObjectStore(name); };
      open.onsuccess = () => resolve(open.result);
      open.onerror = () => reject(open.error);
    });
    const submission = { workspace, action: "network-search-groups", live: false, body: JSON.stringify({ input: { query: "kept before the upgrade" }, max_results: 1 }, null, 2) };
    await new Promise((resolve, reject) => {
      const tx = db.transaction("submissions", "readwrite");
      tx.objectStore("submissions").put(JSON.stringify(submission), runId);
      tx.oncomplete = resolve;
      tx.onerror = () => reject(tx.error);
    });
    db.close();
  }, { runId: made.json.id, workspace });
  await seeder.close();
  await page.goto(`${sandbox.url}/sign-in`);
  await signIn(page, sandbox.api_key);
  await expect(page).toHaveURL(/\/workspace$/);

  // The console opens the current version: the submission is still there, and the run joins the history.
  await go(page, `/runs/${made.json.id}`);
  await expect(page.getByRole("button", { name: "Run again with changes" })).toBeVisible();
  const stores = await page.evaluate(() => new Promise((resolve) => {
    const open = indexedDB.open("console");
    open.onsuccess = () => {
      const db = open.result;
      const tx = db.transaction("runs");
      const all = tx.objectStore("runs").getAllKeys();
      all.onsuccess = () => { resolve({ version: db.version, names: [...db.objectStoreNames].sort(), runs: all.result }); db.close(); };
    };
  }));
  expect(stores.version).toBe(5);
  expect(stores.names).toEqual(["batches", "log", "log_answers", "log_whole", "meta", "outputs", "rows", "runs", "submissions"]);
  expect(stores.runs).toContain(`${workspace}/${made.json.id}`);
  expect(problems).toEqual([]);
});

/**
 * What the page's store keeps of the workspace's history: the kept runs' ids, the list reads,
 * and the keys of the submissions.
 */
const keptHistory = (page) => page.evaluate(() => new Promise((resolve) => {
  const nothing = { runs: [], reads: [], submissions: [] };
  const open = indexedDB.open("console");
  open.onsuccess = () => {
    const db = open.result;
    // Before the console first opened its store (this open may even have created it, empty).
    if (!db.objectStoreNames.contains("runs") || !db.objectStoreNames.contains("meta")) {
      db.close();
      resolve(nothing);
      return;
    }
    const tx = db.transaction(["runs", "meta", "submissions"]);
    const keys = tx.objectStore("runs").getAllKeys();
    const reads = tx.objectStore("meta").getAll(IDBKeyRange.bound("", "\uffff"));
    const readKeys = tx.objectStore("meta").getAllKeys();
    const submissions = tx.objectStore("submissions").getAllKeys();
    tx.oncomplete = () => {
      resolve({
        runs: keys.result.map((k) => k.split("/").pop()),
        reads: reads.result.filter((_, i) => readKeys.result[i].endsWith("/list-reads")).map((m) => JSON.parse(m)),
        submissions: submissions.result,
      });
      db.close();
    };
    tx.onerror = () => { db.close(); resolve(nothing); };
  };
  open.onerror = () => resolve(nothing);
}));

test("runs made elsewhere join the history from a read about once a minute; more than 100 between two reads are reported", async ({ sandbox, pages }) => {
  test.setTimeout(120_000);
  const { page, problems } = await pages.open();
  // The page's clock, so that a minute passes at once (the API's clock is the real one).
  await page.clock.install();
  await page.goto(`${sandbox.url}/sign-in`);
  await signIn(page, sandbox.api_key);
  await expect(page).toHaveURL(/\/workspace$/);
  // The first read comes soon after sign-in, with the runs page never opened.
  await page.clock.fastForward(11_000);
  await expect.poll(async () => (await keptHistory(page)).reads.some((r) => r.last_read_at > 0), { message: "the first background read" }).toBe(true);

  const elsewhere = await runsMadeElsewhere(sandbox, 30, "script");
  await page.clock.fastForward(30_000);
  expect((await keptHistory(page)).runs.filter((id) => elsewhere.includes(id)), "not read again before a minute").toEqual([]);
  await page.clock.fastForward(35_000);
  await expect.poll(async () => (await keptHistory(page)).runs.filter((id) => elsewhere.includes(id)).length, {
    message: "the runs made elsewhere kept",
  }).toBe(30);

  // 110 more before the next read: the list shows only the latest 100 of them.
  const many = await runsMadeElsewhere(sandbox, 110, "flood");
  await page.clock.fastForward(71_000);
  await expect.poll(async () => (await keptHistory(page)).reads.some((r) => r.missed.length === 1), { message: "the gap recorded" }).toBe(true);
  const kept = (await keptHistory(page)).runs;
  expect(many.filter((id) => kept.includes(id)), "the latest 100 of them").toHaveLength(100);
  await go(page, "/runs");
  const notice = page.locator('[data-field="missed-runs"]');
  await expect(notice).toHaveText(/^Runs made between .+ and .+ may be missing here: more than 100 runs were made between two reads/);
  await screenshot(page, "runs-missed-notice");
  expect(problems).toEqual([]);
});

test("a kept run that was still running when the API's list moved on is read again, and shows how it ended", async ({ sandbox, pages }) => {
  test.setTimeout(120_000);
  const { page, problems } = await pages.signedIn("/runs");
  // A slow run, seen processing by the list.
  const slow = await api(sandbox, "POST", "/v1/actions/network-search-groups/run/async", {
    body: { input: { query: "slow one sandbox:slow" }, max_results: 1 },
    key: `e2e-history-slow-${Date.now()}`,
  });
  await page.getByRole("button", { name: "Refresh" }).click();
  await expect(page.locator(`tr[data-run="${slow.json.id}"] [data-status="processing"], tr[data-run="${slow.json.id}"] [data-status="queued"]`).first()).toBeVisible();
  // 100 runs later it is out of the API's list, and finished.
  await runsMadeElsewhere(sandbox, 100, "after-slow");
  await expect.poll(async () => (await api(sandbox, "GET", `/v1/runs/${slow.json.id}`)).json.status, { intervals: [200] }).toBe("completed");
  await page.getByRole("button", { name: "Refresh" }).click();
  const row = page.locator(`tr[data-run="${slow.json.id}"][data-source="kept"]`);
  await go(page, `/runs?q=${slow.json.id}`);
  await expect(row.locator('[data-status="completed"]')).toBeVisible();
  expect(problems).toEqual([]);
});

test("/storage: what is kept, exported as JSON Lines, forgotten after a confirmation, imported back with bad lines reported", async ({ sandbox, pages }) => {
  test.setTimeout(120_000);
  const { page, problems, listed, workspace } = await signedInWithRunsKept(sandbox, pages);
  await page.getByRole("link", { name: "what this browser keeps" }).click();
  await expect(page).toHaveURL(/\/storage$/);
  const keptRuns = page.locator('[data-field="kept-runs"] .stat-value');
  await expect(keptRuns).toHaveText(String(listed));
  await expect(page.locator('[data-field="kept-runs"] .stat-note')).toHaveText(/^seen by this browser since /);
  await expect(page.locator('[data-field="space-used"]')).toBeVisible();
  expect(await seriousViolations(page)).toEqual([]);
  await screenshot(page, "storage");

  const [download] = await Promise.all([
    page.waitForEvent("download"),
    page.getByRole("button", { name: "Export the history" }).click(),
  ]);
  expect(download.suggestedFilename()).toMatch(new RegExp(`^sandbox-runs-${workspace}-\\d{4}-\\d{2}-\\d{2}\\.jsonl$`));
  const lines = readFileSync(await download.path(), "utf8").trimEnd().split("\n");
  expect(lines).toHaveLength(listed);
  const exported = lines.map((line) => JSON.parse(line));
  for (const kept of exported) {
    expect(kept.workspace).toBe(workspace);
    expect(kept.run.id).toBeTruthy();
    expect(Array.isArray(kept.run.output), `run ${kept.run.id} with its output`).toBe(true);
  }
  await expect(page.locator('[data-field="export-note"]')).toContainText(`Exported ${listed} runs as JSON Lines.`);

  // Forgetting asks first, naming what goes.
  await page.getByRole("button", { name: "Forget this workspace's history…" }).click();
  await expect(page.getByText(`Forget the ${listed} runs kept for this workspace in this browser?`)).toBeVisible();
  await page.getByRole("button", { name: "Keep it", exact: true }).click();
  expect((await keptHistory(page)).runs).toHaveLength(listed);
  await page.getByRole("button", { name: "Forget this workspace's history…" }).click();
  await page.getByRole("button", { name: "Forget the history" }).click();
  await expect(page.locator('[data-field="forget-note"]')).toContainText(`Forgot the ${listed} runs`);
  await expect(keptRuns).toHaveText("0");
  expect((await keptHistory(page)).runs).toEqual([]);

  // The export, edited by hand: a broken line 3 and a run of another workspace on line 5.
  const edited = [...lines];
  edited.splice(2, 0, "{broken");
  edited.splice(4, 0, JSON.stringify({ ...exported[0], workspace: "ws_someone_else" }));
  edited.splice(6, 0, "");
  const file = { name: "history.jsonl", mimeType: "application/jsonl", buffer: Buffer.from(edited.join("\n")) };
  await page.locator('[data-field="import-file"]').setInputFiles(file);
  const report = page.locator('[data-field="import-report"]');
  await expect(report).toContainText(`Imported ${listed} runs from history.jsonl: ${listed} new, 0 updated, 0 already as kept.`);
  await expect(report.locator("li")).toHaveText([
    /^Line 3: not a run of an exported history \(key must be a string, at character 2\)$/,
    /^Line 5: a run of workspace ws_someone_else, not of the one signed in to$/,
  ]);
  await expect(keptRuns).toHaveText(String(listed));
  expect(new Set((await keptHistory(page)).runs)).toEqual(new Set(exported.map((k) => k.run.id)));
  await screenshot(page, "storage-import-report");

  // The same file again changes nothing; a file of nothing but noise imports nothing.
  await page.locator('[data-field="import-file"]').setInputFiles(file);
  await expect(report).toContainText(`Imported ${listed} runs from history.jsonl: 0 new, 0 updated, ${listed} already as kept.`);
  await page.locator('[data-field="import-file"]').setInputFiles({ name: "notes.txt", mimeType: "text/plain", buffer: Buffer.from("hello\nworld\n") });
  await expect(report).toContainText("Imported 0 runs from notes.txt: 0 new, 0 updated, 0 already as kept.");
  await expect(report.locator("li")).toHaveCount(2);
  expect((await keptHistory(page)).runs).toHaveLength(listed);
  await expect(keptRuns).toHaveText(String(listed));
  expect(problems).toEqual([]);
});

test("sign-out can forget the workspace's data in this browser; sign-in says what a browser keeps", async ({ sandbox, pages }) => {
  test.setTimeout(120_000);
  const { page, problems, listed, workspace } = await signedInWithRunsKept(sandbox, pages);
  // A submission from the form: its input is kept for "Run again with changes".
  await go(page, "/actions/network-search-groups");
  await page.getByLabel("Query", { exact: true }).fill("kept until forgotten");
  await queueRun(page);
  await expect.poll(async () => (await keptHistory(page)).submissions.length, { message: "the submissions kept" }).toBe(1);

  // Plain sign-out keeps it, and sign-in says so (a shared computer).
  await page.getByRole("button", { name: "Sign out…" }).click();
  await expect(page.getByRole("group", { name: "Sign out" })).toBeVisible();
  expect(await seriousViolations(page)).toEqual([]);
  await screenshot(page, "sign-out-menu");
  await page.keyboard.press("Escape");
  await signOut(page);
  const kept = page.locator('[data-field="kept-data"]');
  await expect(kept).toHaveText(new RegExp(`${workspace}: \\d+ runs of history, 1 submission`));
  await screenshot(page, "sign-in-kept-data");

  await signIn(page, sandbox.api_key);
  await expect(page).toHaveURL(/\/workspace$/);
  await signOut(page, { forget: true });
  const notice = page.locator('[data-field="session-notice"]');
  await expect(notice).toHaveText(new RegExp(`^Signed out\\. This browser no longer keeps anything of workspace ${workspace}: \\d+ runs of its run history, 0 bulk batches, 1 submission and \\d+ logged requests deleted\\.$`));
  const left = await keptHistory(page);
  expect([left.runs, left.reads, left.submissions]).toEqual([[], [], []]);
  expect(await keptOutputKeys(page), "the outputs went too").toEqual([]);
  // A fixed wait on purpose: the sign-in page must not come to mention kept data a moment later.
  await page.waitForTimeout(500);
  await expect(kept, "nothing left to mention").toHaveCount(0);
  expect(problems).toEqual([]);
});

test("/runs over the history: any column sorts both ways, a date range, and search finds a run by the input sent", async ({ sandbox, pages }) => {
  test.setTimeout(120_000);
  const { page, problems } = await pages.signedIn("/runs");
  // Runs from the form: this browser keeps what it sent, so they are found by their input.
  const made = [];
  for (const [query, maxResults] of [["Initech founders", "3"], ["Umbrella chemists", "1"]]) {
    await go(page, "/actions/network-search-groups");
    await page.getByLabel("Query", { exact: true }).fill(query);
    await page.getByLabel("Max results").fill(maxResults);
    made.push(await queueRun(page));
    await expect(page.locator('.run-head [data-status="completed"]')).toBeVisible();
  }
  // 100 runs made elsewhere push both out of the API's list: only this browser has them.
  await runsMadeElsewhere(sandbox, 100, "sort");
  await go(page, "/runs");
  await page.getByLabel("Search").fill("umbrella CHEM");
  await page.getByLabel("Search").press("Enter");
  await expect(page).toHaveURL(/q=umbrella%20CHEM/);
  const ids = () => page.locator("[data-field=runs-table] tbody tr").evaluateAll((rows) => rows.map((r) => r.dataset.run));
  await expect(countLine(page)).toContainText("1 matching run;");
  expect(await ids()).toEqual([made[1]]);
  await expect(page.locator(`tr[data-run="${made[1]}"]`)).toHaveAttribute("data-source", "kept");

  // Sorted by credits used: the largest first, then the other way; the URL says so.
  await page.getByLabel("Search").fill("initech");
  await page.getByLabel("Search").press("Enter");
  await expect(countLine(page)).toContainText("1 matching run;");
  await go(page, "/runs");
  await page.getByRole("link", { name: "Credits used" }).click();
  await expect(page).toHaveURL(/sort=credits&order=desc/);
  const credits = async () => (await page.locator("[data-field=runs-table] tbody tr td:nth-child(7)").allTextContents())
    .map((t) => Number(t.replaceAll(",", "")));
  // Retried until the table on screen is the one the URL asks for.
  await expect(async () => {
    const descending = await credits();
    expect(descending).toEqual([...descending].sort((a, b) => b - a));
    expect(descending[0], `the page mixes run sizes: ${descending.slice(0, 5)} … ${descending.at(-1)}`).toBeGreaterThan(descending.at(-1));
  }).toPass({ timeout: 10_000 });
  await page.getByRole("link", { name: "Credits used" }).click();
  await expect(page).toHaveURL(/sort=credits&order=asc/);
  await expect(page.locator('th[aria-sort="ascending"]')).toHaveText("Credits used ↑");
  await expect(async () => {
    const ascending = await credits();
    expect(ascending).toEqual([...ascending].sort((a, b) => a - b));
  }).toPass({ timeout: 10_000 });

  // A date range: today holds every run; the day before holds none.
  const today = await page.evaluate(() => new Date().toLocaleDateString("sv"));
  await go(page, `/runs?from=${today}&until=${today}`);
  await expect(countLine(page)).toContainText("listed");
  await expect(page.getByLabel("Created from")).toHaveValue(today);
  const yesterday = await page.evaluate(() => { const d = new Date(); d.setDate(d.getDate() - 1); return d.toLocaleDateString("sv"); });
  await page.getByLabel("until", { exact: true }).fill(yesterday);
  await page.getByLabel("until", { exact: true }).dispatchEvent("change");
  await expect(page).toHaveURL(new RegExp(`until=${yesterday}`));
  await expect(page.getByText("No runs match these filters.")).toBeVisible();
  await go(page, "/runs?from=yesterday");
  await expect(page.getByText("The link asks for runs created on “yesterday”, which is not a date")).toBeVisible();
  expect(await seriousViolations(page)).toEqual([]);
  await screenshot(page, "runs-sorted-and-dated");
  expect(problems).toEqual([]);
});

test("a run the API no longer has is shown as this browser kept it, its output within the allowance, and says so", async ({ sandbox, pages }) => {
  test.setTimeout(60_000);
  const [older, newer] = await runsMadeElsewhere(sandbox, 2, "gone");
  const { page, problems } = await pages.signedIn("/runs");
  await expect.poll(async () => {
    const keys = await keptOutputKeys(page);
    return [older, newer].filter((id) => keys.some((k) => k.endsWith(`/${id}`)));
  }, { message: "the runs whose outputs are kept" }).toEqual([older, newer]);
  // The allowance set so that only the newer output fits: the older one goes.
  await go(page, "/storage");
  await expect(page.locator('[data-field="outputs-space"]')).toBeVisible();
  // Not a number: said so, and nothing dropped.
  const keptBefore = (await keptOutputKeys(page)).length;
  await page.getByLabel("Allowance (MB)").fill("-1");
  await page.getByRole("button", { name: "Save", exact: true }).click();
  await expect(page.locator('[data-field="allowance-note"]')).toContainText("“-1” is not a number of megabytes");
  expect(await keptOutputKeys(page)).toHaveLength(keptBefore);
  const sizes = await keptOutputSizes(page);
  const newerBytes = sizes.find((o) => o.key.endsWith(`/${newer}`)).bytes;
  await page.getByLabel("Allowance (MB)").fill(String(newerBytes / 1e6));
  await page.getByRole("button", { name: "Save", exact: true }).click();
  await expect(page.locator('[data-field="allowance-note"]')).toContainText("Outputs are now kept up to");
  await expect(page.locator('[data-field="outputs-space"]').getByText(/^1 output kept/)).toBeVisible();
  expect((await keptOutputKeys(page)).map((k) => k.split("/").pop())).toEqual([newer]);
  await screenshot(page, "storage-outputs");

  // The API answers 404 for both from now on (as after its retention, or a reset workspace).
  for (const id of [older, newer]) {
    await page.route(`**/v1/runs/${id}`, (route) => route.fulfill({
      status: 404, contentType: "application/json",
      body: JSON.stringify({ error: { code: "not_found", message: "No run with this id." } }),
    }));
  }
  await go(page, `/runs/${older}`);
  const notice = page.locator('[data-field="kept-run"]');
  await expect(notice).toHaveText(/^The API no longer has this run \(it answered 404\)\. Shown as this browser last saw it, on .+, without its output \(1 record\)\.$/);
  await expect(page.locator('[data-field="run-id"]')).toHaveText(older);
  await expect(page.locator('[data-field="records"]')).toHaveText("1");
  await expect(page.locator(".run-head [data-status]")).toHaveAttribute("data-status", "completed");
  await expect(page.getByText("The output was not kept in this browser")).toBeVisible();
  await expect(page.getByRole("button", { name: "Cancel run…" })).toHaveCount(0);

  await go(page, `/runs/${newer}`);
  await expect(notice).toHaveText(/with the output it kept\.$/);
  await expect(page.locator('[data-field="output-table"]')).toBeVisible();
  await screenshot(page, "run-kept-only-here");
  expect(besides(problems, 404)).toEqual([]);
});

/** The keys of the outputs the page's store keeps. */
const keptOutputKeys = (page) => page.evaluate(() => new Promise((resolve) => {
  const open = indexedDB.open("console");
  open.onsuccess = () => {
    const db = open.result;
    if (!db.objectStoreNames.contains("outputs")) { db.close(); resolve([]); return; }
    const keys = db.transaction("outputs").objectStore("outputs").getAllKeys();
    keys.onsuccess = () => { resolve(keys.result); db.close(); };
  };
}));

/** The outputs' index: each kept output's key and size, oldest first. */
const keptOutputSizes = (page) => page.evaluate(() => new Promise((resolve) => {
  const open = indexedDB.open("console");
  open.onsuccess = () => {
    const db = open.result;
    const index = db.transaction("meta").objectStore("meta").get("outputs-index");
    index.onsuccess = () => { resolve(index.result ? JSON.parse(index.result).outputs : []); db.close(); };
  };
}));


/** Every run the page's store keeps, as stored (workspace, run without output, records). */
const keptRunValues = (page) => page.evaluate(() => new Promise((resolve, reject) => {
  const open = indexedDB.open("console");
  open.onsuccess = () => {
    const db = open.result;
    const all = db.transaction("runs").objectStore("runs").getAll();
    all.onsuccess = () => { resolve(all.result.map((json) => JSON.parse(json))); db.close(); };
    all.onerror = () => { db.close(); reject(all.error); };
  };
  open.onerror = () => reject(open.error);
}));

test("/credits: credits over time over the history, its sums the history's, by day, week or month", async ({ sandbox, pages }) => {
  test.setTimeout(120_000);
  await runsMadeElsewhere(sandbox, 3, "credits");
  const { page, problems } = await pages.signedIn("/workspace");
  await page.getByRole("link", { name: "Over the history kept in this browser, by day, week or month" }).click();
  await expect(page).toHaveURL(/\/credits$/);
  const total = page.locator('[data-field="credits-total"]');
  await expect(total).toBeVisible();
  const kept = await keptRunValues(page);
  const finished = kept.filter((k) => isFinal(k.run.status));
  expect(finished.length).toBeGreaterThanOrEqual(3);
  const sum = finished.reduce((s, k) => s + k.run.credits_used, 0);
  const totalOnScreen = async () => Number((await total.textContent()).replaceAll(",", ""));
  await expect.poll(totalOnScreen, { message: "the chart's total is the history's" }).toBe(sum);
  await expect(page.locator('[data-field="credits-scope"]')).toHaveText(new RegExp(`^Last 30 days: ${finished.length} runs from the runs this browser has seen since .+, the API's latest 100 included\\.`));
  // The per-action table adds up to the same, records included.
  const byAction = await page.locator('[data-field="credits-by-action"] tbody tr').evaluateAll((rows) => rows.map((r) => ({
    action: r.dataset.action,
    credits: Number(r.querySelector('[data-field="credits"]').textContent.replaceAll(",", "")),
    records: Number(r.querySelector('[data-field="records"]').textContent.replaceAll(",", "")),
  })));
  for (const row of byAction) {
    const mine = finished.filter((k) => k.run.action === row.action);
    expect(row.credits, row.action).toBe(mine.reduce((s, k) => s + k.run.credits_used, 0));
    expect(row.records, row.action).toBe(mine.reduce((s, k) => s + k.records, 0));
  }
  // Another range and bucket: in the URL, and the same total (every run is from today).
  await page.getByLabel("Range", { exact: true }).selectOption("365d");
  await expect(page).toHaveURL(/\/credits\?range=365d&per=month$/);
  await expect.poll(totalOnScreen).toBe(sum);
  await page.getByLabel("Per", { exact: true }).selectOption("week");
  await expect(page).toHaveURL(/\/credits\?range=365d&per=week$/);
  expect(await seriousViolations(page)).toEqual([]);
  await screenshot(page, "credits-over-the-history");
  expect(problems).toEqual([]);
});

test("two tabs writing the history at once lose nothing and duplicate nothing", async ({ sandbox, pages }) => {
  test.setTimeout(120_000);
  await runsMadeElsewhere(sandbox, 2, "two-tabs");
  const { context, page, problems } = await pages.signedIn("/runs");
  // The second tab of the same browser, signed in (the credential is per tab), on the runs list.
  const other = await context.newPage();
  await other.goto(`${sandbox.url}/sign-in?next=/runs`);
  await signIn(other, sandbox.api_key);
  await expect(other.locator('[data-field="runs-count"]')).toBeVisible();
  // Tab one submits from the form while tab two reads the list again and again.
  let reading = true;
  const readsInOtherTab = (async () => {
    while (reading) {
      await other.getByRole("button", { name: "Refresh" }).click();
      // Pacing, not a wait for anything: a refresh about every 150 ms while the other tab writes.
      await other.waitForTimeout(150);
    }
  })();
  await go(page, "/actions/network-search-groups");
  await page.getByLabel("Query", { exact: true }).fill("two tabs at once");
  const id = await queueRun(page);
  await expect(page.locator('.run-head [data-status="completed"]')).toBeVisible();
  await expect(other.locator(`tr[data-run="${id}"]`), "the other tab listed it").toHaveCount(1);
  reading = false;
  await readsInOtherTab;
  const kept = await keptRunValues(page);
  const ids = kept.map((k) => k.run.id);
  expect(new Set(ids).size, "no run twice").toBe(ids.length);
  const mine = kept.find((k) => k.run.id === id);
  expect(mine.run.status).toBe("completed");
  expect(mine.input, "the input the first tab sent survived the second tab's writes").toEqual({ query: "two tabs at once" });
  expect(problems).toEqual([]);
});

test("a bulk batch's 150 runs stay in the history after the API's list has moved on, found by their input, across a reload", async ({ sandbox, pages }) => {
  test.setTimeout(180_000);
  const { page, problems } = await pages.signedIn("/bulk");
  await page.getByLabel("Action").selectOption("network-search-groups");
  const rows = Array.from({ length: 150 }, (_, i) => `bulk history ${i + 1}`);
  await page.locator("#bulk-text").fill(["query", ...rows].join("\n"));
  await page.locator('[data-field="start-batch"]').click();
  await expect(page.locator('[data-field="batch"][data-phase="done"]')).toBeVisible({ timeout: 120_000 });
  // 100 runs made elsewhere: the API lists none of the batch's any more.
  const elsewhere = await runsMadeElsewhere(sandbox, 100, "after-bulk");
  const listed = (await api(sandbox, "GET", "/v1/runs")).json.runs.map((r) => r.id);
  expect(new Set(listed), "the API's list has moved on past the batch").toEqual(new Set(elsewhere));
  await go(page, "/runs?q=bulk%20history");
  await expect(countLine(page)).toContainText("150 matching runs");
  const table = page.locator('[data-field="runs-table"]');
  await expect(table).toHaveAttribute("aria-rowcount", "151");
  const sources = async () => (await scrollThroughRows(table)).rows.map((cells) => cells?.at(-1));
  expect(await sources(), "all 150, each kept in this browser").toEqual(Array(150).fill("This browser"));
  await page.reload();
  await signIn(page, sandbox.api_key);
  await expect(page).toHaveURL(/\/runs\?q=bulk%20history$/);
  await expect(countLine(page)).toContainText("150 matching runs");
  expect(await sources()).toEqual(Array(150).fill("This browser"));
  // A row's own input finds its run, as the batch sent it; so does its idempotency key.
  await go(page, "/runs?q=bulk%20history%20137");
  await expect(countLine(page)).toContainText("1 matching run;");
  const found = await rowsFrom(page, "kept").first().getAttribute("data-run");
  const kept = (await keptRunValues(page)).find((k) => k.run.id === found);
  expect(kept.idempotency_key, "the row's key, kept with its run").toMatch(/^bulk-/);
  await go(page, `/runs?q=${encodeURIComponent(kept.idempotency_key)}`);
  await expect(countLine(page)).toContainText("1 matching run;");
  expect(besides(problems, 429)).toEqual([]);
});

test("a kept run that does not read back is left out of /runs and /credits, and the pages say so", async ({ sandbox, pages }) => {
  const { page, problems } = await pages.signedIn("/runs");
  const made = await runsMadeElsewhere(sandbox, 1, "damaged");
  await page.getByRole("button", { name: "Refresh" }).click();
  await expect(countLine(page)).toContainText("1 listed");
  const workspace = (await api(sandbox, "GET", "/v1/workspace")).json.workspace_id;
  // Two entries that are not what the console writes (cut short, changed by hand), beside the kept run.
  await page.evaluate(({ workspace }) => new Promise((resolve, reject) => {
    const open = indexedDB.open("console");
    open.onsuccess = () => {
      const db = open.result;
      const tx = db.transaction(["runs", "meta"], "readwrite");
      tx.objectStore("runs").put('{"workspace":"cut short', `${workspace}/run_damaged_1`);
      tx.objectStore("runs").put('{"not":"a kept run"}', `${workspace}/run_damaged_2`);
      // And the date the history starts: read as missing, so it hides nothing.
      tx.objectStore("meta").put("not a date", `${workspace}/since`);
      tx.oncomplete = () => { db.close(); resolve(); };
      tx.onerror = () => { db.close(); reject(tx.error); };
    };
  }), { workspace });

  await go(page, "/workspace");
  await go(page, "/runs");
  const note = page.locator('[data-field="damaged-runs"]');
  await expect(note).toHaveText("2 kept runs could not be read (damaged) and were left out.");
  await expect(countLine(page)).toContainText("1 listed");
  await expect(page.locator(`[data-field="runs-table"] tbody tr[data-run="${made[0]}"]`)).toHaveCount(1);

  await go(page, "/credits");
  await expect(page.locator('[data-field="damaged-runs"]')).toHaveText("2 kept runs could not be read (damaged) and were left out.");
  await expect(page.locator(".chart")).toBeVisible();

  // The export keeps what reads back and says what it left out.
  await go(page, "/storage");
  const [download] = await Promise.all([
    page.waitForEvent("download"),
    page.getByRole("button", { name: "Export the history" }).click(),
  ]);
  // The file's sandbox also holds the runs of this file's earlier tests: count what was exported.
  const exportedIds = readFileSync(await download.path(), "utf8").trimEnd().split("\n")
    .map((line) => JSON.parse(line).run.id);
  expect(exportedIds).toContain(made[0]);
  expect(exportedIds.filter((id) => id.startsWith("run_damaged"))).toEqual([]);
  const exported = exportedIds.length === 1 ? "1 run" : `${exportedIds.length.toLocaleString("en-US")} runs`;
  await expect(page.locator('[data-field="export-note"]')).toHaveText(
    `Exported ${exported} as JSON Lines. 2 kept runs could not be read (damaged) and were left out.`,
  );
  expect(problems).toEqual([]);
});
