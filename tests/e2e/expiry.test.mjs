// Kept outputs expire by the person's rule (`/storage`: "Forget kept outputs older than N days"),
// applied when the console starts: the outputs go, the runs stay with their cost, marked; a run's
// page says so and fetches the output again on request. And a write the store refuses is told.
import { expect, withSandbox } from "./fixtures.mjs";
import { api, go, runIdOf, screenshot, settled, signIn, trackRequests } from "./harness.mjs";

const test = withSandbox();
const DAY = 24 * 3600 * 1000;

/** Every key and value (parsed) of the page's IndexedDB table `name`. */
const table = (page, name) => page.evaluate((name) => new Promise((resolve, reject) => {
  const open = indexedDB.open("console");
  open.onerror = () => reject(open.error);
  open.onsuccess = () => {
    const db = open.result;
    const store = db.transaction(name).objectStore(name);
    const keys = store.getAllKeys();
    const values = store.getAll();
    values.onsuccess = () => {
      resolve(keys.result.map((key, i) => ({ key, value: JSON.parse(values.result[i]) })));
      db.close();
    };
  };
}), name);

/** Makes a run with output through the API, and waits until the API says it completed. */
async function completedRun(sandbox, query) {
  const made = await api(sandbox, "POST", "/v1/actions/network-search-groups/run/async", {
    body: { input: { query }, max_results: 3 },
    key: `e2e-expiry-${query.replaceAll(" ", "-")}-${Date.now()}`,
  });
  expect([200, 202]).toContain(made.status);
  await expect.poll(async () => (await api(sandbox, "GET", `/v1/runs/${made.json.id}`)).json.status, { timeout: 15_000 })
    .toBe("completed");
  return (await api(sandbox, "GET", `/v1/runs/${made.json.id}`)).json;
}

test("outputs older than 7 days are forgotten at start: the runs keep their cost, marked, and a run's page fetches the output again on request", async ({ sandbox, pages }) => {
  test.setTimeout(120_000);
  const runs = [await completedRun(sandbox, "expiry one"), await completedRun(sandbox, "expiry two")];
  for (const run of runs) expect(run.output.length).toBeGreaterThan(0);
  const { page, problems } = await pages.signedIn("/runs");
  const workspace = (await api(sandbox, "GET", "/v1/workspace")).json.workspace_id;
  const keys = runs.map((run) => `${workspace}/${run.id}`);

  // The runs list keeps the finished runs' outputs.
  await expect.poll(async () => (await table(page, "outputs")).map((o) => o.key).filter((k) => keys.includes(k)).sort())
    .toEqual([...keys].sort());

  // 7 days, chosen now: nothing is that old yet.
  await go(page, "/storage");
  await page.locator('[data-field="forget-after"]').selectOption("7");
  await expect(page.locator('[data-field="expiry-frees"]')).toContainText("Applied now, this rule forgets 0 kept outputs");
  await page.getByRole("button", { name: "Save and apply" }).click();
  await expect(page.locator('[data-field="expiry-note"]')).toContainText("nothing was older than 7 days");
  await screenshot(page, "expiry-storage");
  expect((await table(page, "outputs")).length).toBeGreaterThanOrEqual(2);

  // Eight days on, the console starts again (a reload; the credential is in memory only).
  const later = Date.now() + 8 * DAY;
  await page.clock.setFixedTime(later);
  await page.goto(`${sandbox.url}/sign-in`);
  await signIn(page, sandbox.api_key);
  await expect(page).toHaveURL(/\/workspace$/);

  // Applied at start: the outputs are gone, the runs remain with their cost, marked.
  await expect.poll(async () => (await table(page, "outputs")).filter((o) => keys.includes(o.key)).length, { timeout: 15_000 })
    .toBe(0);
  const kept = (await table(page, "runs")).filter((r) => keys.includes(r.key));
  expect(kept).toHaveLength(2);
  for (const { value } of kept) {
    const made = runs.find((run) => run.id === value.run.id);
    expect(value.run.credits_used).toBe(made.credits_used);
    expect(value.records).toBe(made.output.length);
    expect(value.output_forgotten.after_days).toBe(7);
  }
  // The index no longer lists them.
  const index = (await table(page, "meta")).find((m) => m.key === "outputs-index");
  expect(index.value.outputs.filter((o) => keys.includes(o.key))).toEqual([]);
  // The request log's entries from before lost their bodies, and stayed.
  const old = (await table(page, "log")).filter((e) => Date.parse(e.value.at) < later - 7 * DAY);
  expect(old.length).toBeGreaterThan(0);
  for (const { value } of old) {
    expect(value.bodies_forgotten_after_days).toBe(7);
    expect(value.request_body ?? null).toBe(null);
  }
  const answers = (await table(page, "log_answers")).map((a) => a.key);
  for (const { key } of old) expect(answers).not.toContain(key);

  // The log's page of such an entry says its bodies were forgotten.
  await go(page, `/log/${encodeURIComponent(old[0].value.id)}`);
  await expect(page.locator('[data-field="bodies-forgotten"]')).toContainText("This request's bodies were forgotten after 7 days");
  await expect(page.locator('[data-field="answer-body"]')).toHaveText("Forgotten.");
  await screenshot(page, "expiry-log-entry");

  // /storage says what the automatic application did.
  await go(page, "/storage");
  await expect(page.locator('[data-field="expiry-last"]')).toContainText("Applied by itself");
  await expect(page.locator('[data-field="expiry-last"]')).toContainText("forgot 2 kept outputs");
  await expect(page.locator('[data-field="forget-after"]')).toHaveValue("7");

  // /runs marks them, and does not keep their outputs again from the API's list.
  await go(page, "/runs");
  for (const run of runs) {
    await expect(page.locator(`tr[data-run="${run.id}"] [data-field="output-forgotten"]`)).toHaveText("output forgotten after 7 days");
  }
  await screenshot(page, "expiry-runs");
  expect((await table(page, "outputs")).filter((o) => keys.includes(o.key))).toEqual([]);

  // The run's page says so without asking the API, then fetches it on request.
  const reads = trackRequests(page, new RegExp(`^/v1/runs/${runs[0].id}$`));
  await page.locator(`tr[data-run="${runs[0].id}"] a`).first().click();
  await expect(page).toHaveURL(new RegExp(`/runs/${runs[0].id}$`));
  expect(runIdOf(page)).toBe(runs[0].id);
  const notice = page.locator('[data-field="output-forgotten"]');
  await expect(notice).toContainText("Output forgotten after 7 days");
  await expect(page.locator('[data-field="credits_used"]')).toHaveText(String(runs[0].credits_used));
  await screenshot(page, "expiry-run-forgotten");
  expect(reads.sent).toBe(0);
  await page.getByRole("button", { name: "Fetch the output again" }).click();
  await expect(page.locator('[data-field="output-table"]')).toHaveAttribute("aria-rowcount", String(runs[0].output.length + 1));
  expect(reads.sent).toBeGreaterThan(0);
  // Shown, not kept again.
  expect((await table(page, "outputs")).filter((o) => keys.includes(o.key))).toEqual([]);
  expect(problems).toEqual([]);
});

/** Puts `count` request-log entries of `workspace`, `days` old, with their answer bodies, as the console keeps them. */
const seedOldEntries = (page, workspace, count, days, tag) => page.evaluate(({ workspace, count, days, tag }) => new Promise((resolve, reject) => {
  const open = indexedDB.open("console");
  open.onerror = () => reject(open.error);
  open.onsuccess = () => {
    const db = open.result;
    const tx = db.transaction(["log", "log_answers"], "readwrite");
    const at = Date.now() - days * 24 * 3600 * 1000;
    for (let n = 0; n < count; n++) {
      const id = `${String(at + n).padStart(13, "0")}-${tag}${String(n).padStart(4, "0")}`;
      const answer = JSON.stringify({ seeded: n, tag });
      tx.objectStore("log").put(JSON.stringify({
        id, at: new Date(at + n).toISOString(), duration_ms: 5, origin: "page", method: "GET", base_url: "",
        path: `/v1/runs/seeded-${tag}-${n}`, request_body: null, status: 200, request_id: `req_${tag}_${n}`,
        answer_bytes: answer.length, error: null,
      }), `${workspace}/${id}`);
      tx.objectStore("log_answers").put(JSON.stringify({ text: answer, whole_bytes: answer.length }), `${workspace}/${id}`);
    }
    tx.oncomplete = () => { db.close(); resolve(); };
    tx.onerror = () => reject(tx.error);
  };
}), { workspace, count, days, tag });

/**
 * In every document of the page from now on: the `limit`-th write of an entry whose bodies the
 * expiry pass forgot (its `log` put) breaks the store, as a crash or a closed tab would, and
 * reloads the page; once per tab (sessionStorage), so the next start finishes the pass.
 */
const breakThePassOnce = (page, limit) => page.addInitScript((limit) => {
  if (sessionStorage.getItem("e2e-pass-broken")) {
    window.e2eStartedAfterTheBreak = true;
    return;
  }
  const put = IDBObjectStore.prototype.put;
  let forgotten = 0;
  let broken = false;
  IDBObjectStore.prototype.put = function (value, key) {
    if (broken) throw new DOMException("The page is going away.", "AbortError");
    if (this.name === "log" && String(value).includes('"bodies_forgotten_after_days"') && ++forgotten === limit) {
      broken = true;
      sessionStorage.setItem("e2e-pass-broken", String(forgotten));
      location.reload();
      throw new DOMException("The page is going away.", "AbortError");
    }
    return put.call(this, value, key);
  };
}, limit);

test("a reload right after 'Save and apply', and a pass broken half-way then reloaded, lose no request-log entry: old ones lose their bodies, the rest keep theirs", async ({ sandbox, pages }) => {
  test.setTimeout(120_000);
  const { page, problems } = await pages.open();
  await page.goto(`${sandbox.url}/workspace`);
  // Kept in the tab, so each reload starts the console signed in, and the pass runs at start.
  await page.getByLabel("Keep me signed in in this tab").check();
  await signIn(page, sandbox.api_key);
  const workspace = (await api(sandbox, "GET", "/v1/workspace")).json.workspace_id;
  await go(page, "/runs");
  // The session's own requests are in the log (written as they are heard).
  await expect.poll(async () => (await table(page, "log")).length).toBeGreaterThanOrEqual(2);
  await seedOldEntries(page, workspace, 1_200, 10, "a");

  /** Every entry now, with its answer body, by key. */
  const snapshot = async () => {
    const answers = new Map((await table(page, "log_answers")).map((a) => [a.key, a.value.text]));
    return new Map((await table(page, "log")).map((e) => [e.key, { entry: e.value, answer: answers.get(e.key) }]));
  };
  /** Waits for the pass to finish, then checks every entry of `before` against the store. */
  const everyEntryKept = async (before) => {
    const cutoff = Date.now() - 7 * DAY;
    const old = [...before.values()].filter(({ entry }) => Date.parse(entry.at) < cutoff);
    expect(old.length).toBeGreaterThan(0);
    await expect.poll(async () => (await table(page, "log")).filter((e) => e.value.bodies_forgotten_after_days === 7).length, { timeout: 60_000 })
      .toBeGreaterThanOrEqual(old.length);
    const after = await snapshot();
    // Gathered, then asserted once: thousands of `expect`s would each be a step of the report.
    const wrong = [];
    for (const [key, { entry, answer }] of before) {
      const now = after.get(key);
      if (!now) {
        wrong.push(`${key}: gone`);
      } else if (now.entry.path !== entry.path || now.entry.request_id !== entry.request_id) {
        wrong.push(`${key}: changed`);
      } else if (Date.parse(entry.at) < cutoff) {
        if (now.entry.bodies_forgotten_after_days !== 7 || now.answer !== undefined) wrong.push(`${key}: old, bodies kept`);
      } else if ((now.entry.bodies_forgotten_after_days ?? null) !== null || now.answer !== answer) {
        wrong.push(`${key}: recent, bodies not as they were`);
      }
    }
    expect(wrong).toEqual([]);
  };

  // 1. Saved and applied, and the page reloaded at once, whatever the pass had done by then.
  await go(page, "/storage");
  await page.locator('[data-field="forget-after"]').selectOption("7");
  const beforeSave = await snapshot();
  await page.getByRole("button", { name: "Save and apply" }).click();
  await page.reload();
  await expect(page).toHaveURL(/\/storage$/);
  await everyEntryKept(beforeSave);

  // 2. More old entries, and the pass at the next start broken at its 700th entry (the second
  // of its transactions of 500), the page reloaded from there.
  await seedOldEntries(page, workspace, 1_500, 9, "b");
  const beforeBreak = await snapshot();
  await breakThePassOnce(page, 700);
  await page.reload();
  // The broken page reloads itself: the next document starts clean and finishes the pass.
  const afterTheBreak = async () => {
    try {
      return await page.evaluate(() => [window.e2eStartedAfterTheBreak === true, sessionStorage.getItem("e2e-pass-broken")]);
    } catch {
      return "navigating";
    }
  };
  await expect.poll(afterTheBreak, { timeout: 30_000 }).toEqual([true, "700"]);
  await settled(page);
  await everyEntryKept(beforeBreak);
  // The log's page lists them: the newest first, the seeded ones with their bodies forgotten.
  await go(page, "/log");
  await expect(page.locator("main h1").first()).toHaveText("Request log");
  expect(problems.filter((p) => !p.includes("The page is going away"))).toEqual([]);
});

test("a write the store refuses is told: the form's run made while the disk is full", async ({ pages }) => {
  const { page, problems } = await pages.signedIn("/actions/network-search-groups");
  // From now on the disk is full: every write is refused as browsers refuse it.
  await page.evaluate(() => {
    window.__put = IDBObjectStore.prototype.put;
    IDBObjectStore.prototype.put = function () {
      throw new DOMException("The quota has been exceeded.", "QuotaExceededError");
    };
  });
  await page.getByLabel("Query", { exact: true }).fill("a full disk");
  await page.getByLabel("Async: queue it and watch the run").check();
  await page.getByRole("button", { name: "Queue run" }).click();
  await expect(page).toHaveURL(/\/runs\/[^/]+$/);
  // The form's two writes (the run into the history, what was sent), each told with its sentence.
  const refused = page.locator('[data-field="store-refused"]');
  const history = refused.filter({ hasText: "The run was made, but this browser did not keep it in the history." });
  await expect(history).toContainText("This browser's storage is full. Free space");
  const sent = refused.filter({ hasText: "The run was made, but this browser did not keep what was sent" });
  await expect(sent).toContainText("This browser's storage is full. Free space");
  // The request log's write of those requests, told by the page's logger.
  const log = refused.filter({ hasText: "The latest requests were not kept in this browser's request log" });
  await expect(log).toContainText("This browser's storage is full. Free space");
  await screenshot(page, "store-refused-run");
  // Room again: the page's next requests are kept, and the log's notice goes.
  await page.evaluate(() => { IDBObjectStore.prototype.put = window.__put; });
  await go(page, "/runs");
  await expect(page.locator("main h1").first()).toHaveText("Runs");
  await expect(log).toHaveCount(0);
  expect(problems).toEqual([]);
});

test("a finished batch's records are forgotten once it has been done longer than the days: its rows, states and costs stay, and its exports say so", async ({ sandbox, pages }) => {
  test.setTimeout(120_000);
  const { page, problems } = await pages.signedIn("/bulk");
  await page.getByLabel("Action").selectOption("network-search-companies");
  await page.locator("#bulk-text").fill(["keywords,max_results", "expiry batch one,2", "expiry batch two,2"].join("\n"));
  await page.locator('[data-field="start-batch"]').click();
  await expect(page.locator('[data-field="batch"][data-phase="done"]')).toBeVisible({ timeout: 60_000 });
  const [batch] = await table(page, "batches");
  const rowsOf = async () => (await table(page, "rows")).filter((row) => row.key.startsWith(`${batch.key}/`));
  await expect.poll(async () => (await rowsOf()).filter((row) => row.value.output.length > 0).length).toBe(2);
  const before = await rowsOf();

  // 7 days, chosen now: the batch is done, so its days count from now; nothing is forgotten.
  await go(page, "/storage");
  await page.locator('[data-field="forget-after"]').selectOption("7");
  await page.getByRole("button", { name: "Save and apply" }).click();
  await expect(page.locator('[data-field="expiry-note"]')).toContainText("nothing was older than 7 days");
  await go(page, "/bulk");
  await expect(page.locator('[data-field="batch"][data-phase="done"]')).toBeVisible();
  expect((await table(page, "batches"))[0].value.expiry.done_seen_at).toBeGreaterThan(0);
  expect((await rowsOf()).map((row) => row.value.output.length)).toEqual(before.map((row) => row.value.output.length));

  // Eight days on, the console starts again: applied at start, the records go, the rows stay.
  await page.clock.setFixedTime(Date.now() + 8 * DAY);
  await page.goto(`${sandbox.url}/sign-in`);
  await signIn(page, sandbox.api_key);
  await expect(page).toHaveURL(/\/workspace$/);
  await expect.poll(async () => (await rowsOf()).filter((row) => row.value.records_forgotten).length, { timeout: 15_000 }).toBe(2);
  for (const { key, value } of await rowsOf()) {
    const was = before.find((row) => row.key === key).value;
    expect(value.output).toEqual([]);
    expect(value.records_forgotten.after_days).toBe(7);
    expect([value.state, value.run_id, value.credits_used, value.records]).toEqual([was.state, was.run_id, was.credits_used, was.output.length]);
  }
  expect((await table(page, "batches"))[0].value.expiry.records_forgotten.after_days).toBe(7);
  await go(page, "/storage");
  await expect(page.locator('[data-field="expiry-last"]')).toContainText("the records of 1 finished bulk batch (2 rows)");

  // /bulk marks it; opened, its exports and the explorer say the records were forgotten.
  await go(page, "/bulk");
  const kept = page.locator(`[data-field="saved-batches"] li[data-batch="${batch.key}"]`);
  await expect(kept.locator('[data-field="records-forgotten"]')).toHaveText("records forgotten after 7 days");
  await kept.locator('[data-field="open-saved"]').click();
  await expect(page.locator('[data-field="batch"][data-phase="done"]')).toBeVisible();
  // Said before anything is clicked, the buttons that would read the records off.
  await expect(page.locator('[data-field="records-forgotten-note"]')).toContainText("This batch's records were forgotten after 7 days");
  for (const button of ["export-csv", "export-json", "export-jsonl", "explore-results"]) {
    await expect(page.locator(`[data-field="${button}"]`)).toBeDisabled();
  }
  await expect(page.locator('tr[data-line="2"] td').nth(5)).toHaveText("2");
  await screenshot(page, "expiry-batch-forgotten");
  expect(problems).toEqual([]);
});
