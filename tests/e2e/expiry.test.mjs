// Kept outputs expire by the person's rule (`/storage`: "Forget kept outputs older than N days"),
// applied when the console starts: the outputs go, the runs stay with their cost, marked; a run's
// page says so and fetches the output again on request. And a write the store refuses is told.
import { expect, withSandbox } from "./fixtures.mjs";
import { api, go, runIdOf, screenshot, signIn, trackRequests } from "./harness.mjs";

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
  await expect(page.locator('[data-field="output-table"] tbody tr')).toHaveCount(runs[0].output.length);
  expect(reads.sent).toBeGreaterThan(0);
  // Shown, not kept again.
  expect((await table(page, "outputs")).filter((o) => keys.includes(o.key))).toEqual([]);
  expect(problems).toEqual([]);
});

test("a write the store refuses is told: the form's run made while the disk is full", async ({ pages }) => {
  const { page, problems } = await pages.signedIn("/actions/network-search-groups");
  // From now on the disk is full: every write is refused as browsers refuse it.
  await page.evaluate(() => {
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
  await screenshot(page, "store-refused-run");
  expect(problems).toEqual([]);
});
