// The request log end to end: a failed submission's entry with its request id and error body,
// the ticket text, the credential and a new key's secret nowhere (page, storage, snippets),
// filters in the URL, an entry's own URL, the bulk worker's requests with a snippet that runs
// (an input with a newline), the switch and clearing. Headless Chromium against the sandbox.
import { execFileSync } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, withSandbox } from "./fixtures.mjs";
import { api, screenshot, go, besides, signOut, seriousViolations, snippetEnvironment, walkRows } from "./harness.mjs";

const test = withSandbox({ args: ["--queue-ms", "50", "--process-ms", "100"] });

/** Every key and value of the console's IndexedDB stores `names`, as text. */
async function storedText(page, names) {
  return page.evaluate(async (names) => {
    const db = await new Promise((resolve, reject) => {
      const open = indexedDB.open("console");
      open.onsuccess = () => resolve(open.result);
      open.onerror = () => reject(open.error);
    });
    const out = {};
    for (const name of names) {
      out[name] = await new Promise((resolve) => {
        const tx = db.transaction(name);
        const keys = tx.objectStore(name).getAllKeys();
        const values = tx.objectStore(name).getAll();
        tx.oncomplete = () => resolve({ keys: keys.result, values: values.result });
      });
    }
    db.close();
    return JSON.stringify(out);
  }, names);
}

/** The log's rows on screen once one matches `text` (the log is written as requests are answered). */
async function rowWith(page, text) {
  const row = page.locator(".log-table tbody tr").filter({ hasText: text }).first();
  await expect(row).toBeVisible({ timeout: 15_000 });
  return row;
}

test("a failed submission's log entry shows its request id and error body, and its ticket text holds both", async ({ pages }) => {
  const { context, page, problems } = await pages.signedIn("/actions/network-search-groups?mode=async");
  await context.grantPermissions(["clipboard-read", "clipboard-write"]);
  // A 500 on the first attempt: the form says so with the request id.
  await page.getByLabel(/^Query/).fill("log me sandbox:500");
  await page.getByRole("button", { name: "Queue run" }).click();
  const panel = page.locator(".error-panel").first();
  await expect(panel).toContainText(/req_[0-9a-zA-Z_-]+/);
  const requestId = (await panel.textContent()).match(/req_[0-9a-zA-Z_-]+/)[0];

  await go(page, "/log?status=5xx");
  const row = await rowWith(page, "/run/async");
  await expect(row).toContainText("500");
  await expect(row).toContainText(requestId);
  await screenshot(page, "log-list");
  await row.getByRole("link").click();
  await expect(page.locator('[data-field="entry-request-id"]')).toHaveText(requestId);
  const answer = JSON.parse(await page.locator('[data-field="answer-body"]').textContent());
  expect(answer.error.request_id).toBe(requestId);
  await expect(page.locator('[data-field="request-body"]')).toContainText("log me sandbox:500");
  const ticket = await page.locator('[data-field="ticket-text"]').textContent();
  expect(ticket, "the ticket has the request id").toContain(requestId);
  expect(ticket, "and the error body").toContain(answer.error.code);
  expect(ticket, "and the error body").toContain(answer.error.message);
  expect(ticket).toContain("HTTP 500");
  expect(ticket, "and where it was sent").toMatch(/^- Environment: Sandbox \(sandbox: no real credits\)$/m);
  await page.locator('[data-field="copy-ticket"]').click();
  expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(ticket);
  await screenshot(page, "log-entry-failed");
  // The entry has its own URL: opened again from it, it is the same entry.
  const entryUrl = new URL(page.url()).pathname;
  await go(page, "/workspace");
  await go(page, entryUrl);
  await expect(page.locator('[data-field="entry-request-id"]')).toHaveText(requestId);
  expect(besides(problems, 500)).toEqual([]);
});

test("the credential and a new key's secret appear nowhere in the log, its storage or a copied snippet", async ({ sandbox, pages }) => {
  const { context, page, problems } = await pages.signedIn("/keys", { credential: sandbox.session_token });
  await context.grantPermissions(["clipboard-read", "clipboard-write"]);
  await page.getByLabel("New key's name").fill(`log secret ${Date.now()}`);
  await page.getByRole("button", { name: "Create key" }).click();
  const dialog = page.getByRole("dialog");
  await expect(dialog).toBeVisible();
  const secret = (await dialog.locator('[data-field="new-secret"]').textContent()).trim();
  await dialog.getByRole("button", { name: "I have stored it" }).click();
  await go(page, "/log?method=POST&path=/v1/keys");
  const row = await rowWith(page, "/v1/keys");
  await row.getByRole("link").click();
  await expect(page.locator('[data-field="answer-body"]')).toContainText("secret was shown once and is not kept");
  const snippets = [];
  for (const language of ["curl", "python", "javascript", "node", "rust"]) {
    await page.locator(`button[data-language="${language}"]`).click();
    await expect(page.locator('[data-field="code-snippet"]')).toHaveAttribute("data-language", language);
    await page.locator('[data-field="copy-code"]').click();
    snippets.push(await page.evaluate(() => navigator.clipboard.readText()));
  }
  const stored = await storedText(page, ["log", "log_answers", "log_whole", "meta"]);
  expect(stored, "the key's creation is logged").toContain("/v1/keys");
  for (const text of [stored, await page.content(), ...snippets]) {
    for (const credential of [secret, sandbox.session_token, sandbox.api_key]) {
      expect(text, "no credential and no secret").not.toContain(credential);
    }
  }
  expect(problems).toEqual([]);
});

test("filters narrow the list by status class, method, path and text, and live in the URL", async ({ pages }) => {
  const { page, problems } = await pages.signedIn("/runs");
  await go(page, "/runs/no-such-run");
  await expect(page.getByText(/not found/i).first()).toBeVisible();
  await go(page, "/log");
  await rowWith(page, "/v1/runs/no-such-run");
  /** Retried until the list on screen holds rows and `wrong` finds none of its `cells`' texts. */
  const everyRow = async (cells, wrong) => expect(async () => {
    const texts = await page.locator(cells).allTextContents();
    expect(texts.length, "rows listed").toBeGreaterThan(0);
    expect(texts.filter(wrong), "rows the filter should have left out").toEqual([]);
  }).toPass({ timeout: 10_000 });
  await page.locator('[data-field="filter-status"]').selectOption("4xx");
  await expect(page).toHaveURL(/status=4xx/);
  await everyRow('.log-table td[data-field="status"]', (s) => !/^4\d\d/.test(s));
  await page.locator('[data-field="filter-status"]').selectOption("");
  await page.locator('[data-field="filter-method"]').selectOption("GET");
  await page.locator('[data-field="filter-path"]').fill("/v1/workspace");
  await expect(page).toHaveURL(/path=%2Fv1%2Fworkspace/);
  await everyRow(".log-table td.path", (p) => p !== "/v1/workspace");
  await page.locator('[data-field="filter-path"]').fill("");
  await page.locator('[data-field="filter-method"]').selectOption("");
  await page.locator('[data-field="filter-text"]').fill("no-such-run");
  await expect(page).toHaveURL(/q=no-such-run/);
  await everyRow(".log-table td.path", (p) => !p.includes("no-such-run"));
  // The same view from its URL; an unknown status is said, not ignored.
  await go(page, "/log?status=3xx");
  await expect(page.locator('[data-field="filter-problem"]')).toBeVisible();
  await expect(page.locator(".log-table")).toHaveCount(0);
  expect(besides(problems, 404)).toEqual([]);
});

test("the bulk worker's requests are logged, and a logged submission with a newline runs again as code", async ({ sandbox, pages }) => {
  const { page, problems } = await pages.signedIn("/bulk");
  const query = `two\nlines, "quoted" ${Date.now()}`;
  await page.getByLabel("Action").selectOption("network-search-groups");
  await page.locator("#bulk-text").fill(`query\n"${query.replaceAll('"', '""')}"`);
  await page.locator('[data-field="start-batch"]').click();
  await expect(page.locator('[data-field="keeping"]').getByText("Kept in this browser")).toBeVisible();
  await go(page, "/log?method=POST&path=/run/async");
  const row = await rowWith(page, "bulk worker");
  await row.getByRole("link").click();
  await expect(page.locator('[data-field="request-body"]')).toBeVisible();
  const body = JSON.parse(await page.locator('[data-field="request-body"]').textContent());
  expect(body.input.query).toBe(query);
  await page.locator('button[data-language="node"]').click();
  const code = await page.locator('[data-field="code-snippet"]').textContent();
  const dir = mkdtempSync(join(tmpdir(), "log-snippet-"));
  writeFileSync(join(dir, "snippet.js"), code);
  const output = execFileSync("node", [join(dir, "snippet.js")], { env: snippetEnvironment(sandbox.api_key), encoding: "utf8" });
  const [status, ...rest] = output.trim().split("\n");
  // The same key and body as the worker sent: the API answers with the same run.
  expect(["200", "202"], output).toContain(status);
  const run = JSON.parse(rest.join("\n"));
  const answer = JSON.parse(await page.locator('[data-field="answer-body"]').textContent());
  expect(run.id).toBe(answer.id);
  await screenshot(page, "log-entry-bulk");
  expect(problems).toEqual([]);
});

test("the switch stops keeping requests, clearing empties the log, and forgetting the workspace deletes it", async ({ pages }) => {
  const { page, problems } = await pages.signedIn("/log");
  await rowWith(page, "/v1/workspace");
  expect(await seriousViolations(page)).toEqual([]);
  await page.locator('[data-field="log-keeping"]').uncheck();
  await expect(page.locator('[data-field="log-paused"]')).toBeVisible();
  await page.locator('[data-field="log-keeping"]').uncheck();
  await page.getByRole("button", { name: "Clear the log…" }).click();
  await page.getByRole("button", { name: "Clear the log", exact: true }).click();
  await expect(page.locator('[data-field="log-summary"]').getByText("No request is logged yet")).toBeVisible();
  // Requests made while the switch is off are not kept.
  await go(page, "/runs");
  await expect(page.locator('[data-field="runs-table"], [data-field="no-runs"]').first()).toBeVisible();
  // A fixed wait on purpose: the log is written about once a second, and the test asserts that
  // nothing is written for a while.
  await page.waitForTimeout(2_500);
  await go(page, "/log");
  await expect(page.locator('[data-field="log-summary"]').getByText("No request is logged yet")).toBeVisible();
  // Back on: the next requests are.
  await page.locator('[data-field="log-keeping"]').check();
  await go(page, "/runs");
  await go(page, "/log");
  await rowWith(page, "/v1/runs");
  await screenshot(page, "log-keeping");
  await signOut(page, { forget: true });
  const stored = JSON.parse(await storedText(page, ["log", "log_answers", "log_whole"]));
  expect([stored.log.keys.length, stored.log_answers.keys.length]).toEqual([0, 0]);
  expect(problems).toEqual([]);
});

test("a switch the store refuses says so, and stays as it was", async ({ pages }) => {
  const { page, problems } = await pages.signedIn("/log");
  await rowWith(page, "/v1/workspace");
  // The store refuses the switch's write (its value in the meta store), as a full disk would.
  await page.evaluate(() => {
    const put = IDBObjectStore.prototype.put;
    IDBObjectStore.prototype.put = function (value, key) {
      if (this.name === "meta" && String(key).endsWith("/log-paused")) {
        throw new DOMException("The quota has been exceeded.", "QuotaExceededError");
      }
      return put.call(this, value, key);
    };
  });
  // A click, not uncheck(): the box goes back to what the store holds, which uncheck() takes
  // for a click that did nothing.
  await page.locator('[data-field="log-keeping"]').click();
  await expect(page.locator('[data-field="log-keeping-refused"]')).toHaveText(/did not keep the switch, so it is as it was\. .*full/i);
  await expect(page.locator('[data-field="log-keeping"]')).toBeChecked();
  await expect(page.locator('[data-field="log-paused"]')).toHaveCount(0);
  await screenshot(page, "log-keeping-refused");
  expect(problems).toEqual([]);
});

/**
 * Puts `entries` (`{ id, at, path }`) in `workspace`'s log as the console writes them: GET
 * requests answered 200 in 1 ms.
 */
async function writeEntries(page, workspace, entries) {
  await page.evaluate(async ([ws, entries]) => {
    const db = await new Promise((resolve) => { const open = indexedDB.open("console"); open.onsuccess = () => resolve(open.result); });
    await new Promise((resolve, reject) => {
      const tx = db.transaction("log", "readwrite");
      for (const { id, at, path } of entries) {
        tx.objectStore("log").put(JSON.stringify({
          id, at, duration_ms: 1, origin: "page", method: "GET", base_url: "http://seeded", path, status: 200, answer_bytes: 2,
        }), `${ws}/${id}`);
      }
      tx.oncomplete = resolve;
      tx.onerror = () => reject(tx.error);
    });
    db.close();
  }, [workspace, entries]);
}

/** Puts `count` old entries in `workspace`'s log, older than any real one: `/v1/runs/old-{i}`. */
function seedOldEntries(page, workspace, count) {
  const entries = Array.from({ length: count }, (_, i) => ({
    id: `${String(1_000_000 + i).padStart(13, "0")}-00000000`, at: "2001-09-09T01:46:40.000Z", path: `/v1/runs/old-${i}`,
  }));
  return writeEntries(page, workspace, entries);
}

/** Puts an entry for each of `names` in `workspace`'s log, newer than any real one: `/v1/runs/{name}`. */
function seedNewEntries(page, workspace, names) {
  const newest = `9${String(Date.now()).slice(1)}`;
  const entries = names.map((name) => ({ id: `${newest}-${name.padStart(8, "0").slice(-8)}`, at: new Date().toISOString(), path: `/v1/runs/${name}` }));
  return writeEntries(page, workspace, entries);
}

/** The ids of `workspace`'s entries in the page's store. */
function loggedIds(page, workspace) {
  return page.evaluate(async (ws) => {
    const db = await new Promise((resolve) => { const open = indexedDB.open("console"); open.onsuccess = () => resolve(open.result); });
    const keys = await new Promise((resolve) => {
      const request = db.transaction("log").objectStore("log").getAllKeys(IDBKeyRange.bound(`${ws}/`, `${ws}0`));
      request.onsuccess = () => resolve(request.result);
    });
    db.close();
    return keys.map((key) => key.slice(ws.length + 1));
  }, workspace);
}

/** The entries of `workspace`'s log, counted in the page's store. */
function loggedEntries(page, workspace) {
  return page.evaluate(async (ws) => {
    const db = await new Promise((resolve) => { const open = indexedDB.open("console"); open.onsuccess = () => resolve(open.result); });
    const count = await new Promise((resolve) => {
      const range = IDBKeyRange.bound(`${ws}/`, `${ws}0`);
      const request = db.transaction("log").objectStore("log").count(range);
      request.onsuccess = () => resolve(request.result);
    });
    db.close();
    return count;
  }, workspace);
}

test("the log keeps the newest 5,000 entries of a workspace: the oldest go first", async ({ sandbox, pages }) => {
  const { page, problems } = await pages.signedIn("/log");
  const workspace = (await (await fetch(`${sandbox.url}/v1/workspace`, { headers: { authorization: `Bearer ${sandbox.api_key}` } })).json()).workspace_id;
  await rowWith(page, "/v1/workspace");
  // 5,000 old entries, as the console writes them, older than any real one.
  await seedOldEntries(page, workspace, 5_000);
  // New requests are logged; the oldest entries make room.
  await go(page, "/runs");
  await go(page, "/log?q=old-4999");
  await rowWith(page, "/v1/runs/old-4999");
  const logged = () => loggedEntries(page, workspace);
  await expect.poll(logged, { message: "the workspace's entries in the log", timeout: 15_000, intervals: [500] }).toBe(5_000);
  await go(page, "/log?q=old-0");
  // (a request made meanwhile is in the log for a second before the oldest makes room for it)
  await expect(page.locator('[data-field="log-summary"]').getByText(/None of the 5,0\d\d logged requests/)).toBeVisible();
  expect(problems).toEqual([]);
});

// A page left while its request is out cancels the request's task, but the request went (the
// API may have acted on it): the log keeps it, and says its answer was not read.
// The expiry rule (tests/e2e/expiry.test.mjs) drops an entry's bodies and keeps the entry: the
// list marks it, and its request, which had a body, is not offered as code without it.
test("an entry whose bodies were forgotten is marked in the list, and its request is not code without its body", async ({ sandbox, pages }) => {
  const { page, problems } = await pages.signedIn("/log");
  const workspace = (await api(sandbox, "GET", "/v1/workspace")).json.workspace_id;
  await rowWith(page, "/v1/workspace");
  const forgotten = (id, method, path) => ({
    id, at: "2001-09-09T01:46:40.000Z", duration_ms: 1, origin: "page", method, base_url: "http://seeded", path,
    status: 202, answer_bytes: 2, bodies_forgotten_after_days: 7,
  });
  await page.evaluate(async ([ws, entries]) => {
    const db = await new Promise((resolve) => { const open = indexedDB.open("console"); open.onsuccess = () => resolve(open.result); });
    await new Promise((resolve, reject) => {
      const tx = db.transaction("log", "readwrite");
      for (const entry of entries) tx.objectStore("log").put(JSON.stringify(entry), `${ws}/${entry.id}`);
      tx.oncomplete = resolve;
      tx.onerror = () => reject(tx.error);
    });
    db.close();
  }, [workspace, [
    forgotten("0001000000000-00000001", "POST", "/v1/actions/premium-search-people/run/async"),
    forgotten("0001000000000-00000002", "GET", "/v1/runs?limit=20"),
  ]]);
  await go(page, "/runs");
  await go(page, "/log");
  const submitted = await rowWith(page, "/v1/actions/premium-search-people/run/async");
  await expect(submitted.locator('[data-field="bodies-forgotten-mark"]')).toHaveText("bodies forgotten");
  const fresh = await rowWith(page, "/v1/workspace");
  await expect(fresh.locator('[data-field="bodies-forgotten-mark"]')).toHaveCount(0);
  await screenshot(page, "log-bodies-forgotten");
  expect(await seriousViolations(page)).toEqual([]);

  await submitted.locator("th a").click();
  await expect(page.locator('[data-field="bodies-forgotten"]')).toContainText("This request's bodies were forgotten after 7 days");
  await expect(page.locator('[data-field="code-unavailable"]')).toHaveText("The request's body was forgotten after 7 days, so it cannot be written out as code.");
  await screenshot(page, "log-entry-body-forgotten");
  // A read had no body to forget: it is whole as code.
  await go(page, `/log/${encodeURIComponent("0001000000000-00000002")}`);
  await expect(page.locator('[data-field="bodies-forgotten"]')).toBeVisible();
  await expect(page.locator('[data-field="code-unavailable"]')).toHaveCount(0);
  await expect(page.locator('[data-field="code-snippet"]')).toContainText("http://seeded/v1/runs?limit=20");
  expect(problems).toEqual([]);
});

test("a request whose page was left before its answer came is in the log, and says so", async ({ pages }) => {
  const { page, problems } = await pages.signedIn("/workspace");
  const runsList = (url) => new URL(url).pathname === "/v1/runs";
  let letGo;
  const leftFirst = new Promise((resolve) => { letGo = resolve; });
  await page.route(runsList, async (route) => { await leftFirst; await route.continue(); });
  const sent = page.waitForRequest((request) => runsList(request.url()));
  await go(page, "/runs");
  await sent;
  await go(page, "/workspace");
  letGo();
  await go(page, "/log");
  const row = page.locator(".log-table tbody tr").filter({ hasText: "/v1/runs" }).filter({ hasText: "no answer" }).first();
  await expect(row).toBeVisible({ timeout: 15_000 });
  await row.locator("th a").click();
  await expect(page.locator('[data-field="entry-status"]')).toHaveText("No answer: The page that sent it was left before its answer came: the request went, and the API may have acted on it.");
  await screenshot(page, "log-answer-not-read");
  expect(problems).toEqual([]);
});

test("the whole log in one scrolling table: every entry reached, and new entries keep the one being read in place", async ({ sandbox, pages }) => {
  test.setTimeout(120_000);
  const { page, problems } = await pages.signedIn("/log");
  const workspace = (await api(sandbox, "GET", "/v1/workspace")).json.workspace_id;
  await rowWith(page, "/v1/workspace");
  await seedOldEntries(page, workspace, 3_000);
  await go(page, "/runs");
  await go(page, "/log");
  const table = page.locator('[data-field="log-table"]');
  const box = page.locator(".log-page .table-wrap.windowed");
  const summary = page.locator('[data-field="log-summary"]');
  await expect(summary).toHaveText(/^3,0\d\d requests\.$/);
  // A request made just before may be written after the page's last read of the log: the list
  // takes it at its next read (every 4 s). Read from when the list shows every entry kept.
  const shown = async () => Number((await summary.textContent()).match(/^([\d,]+)/)[1].replace(",", ""));
  await expect.poll(async () => (await shown()) === (await loggedEntries(page, workspace)), { message: "the list shows every entry kept", timeout: 15_000 }).toBe(true);
  const logged = await shown();
  await expect(table).toHaveAttribute("aria-rowcount", String(logged + 1));
  expect(await table.locator("tbody tr").count(), "rows in the document").toBeLessThan(80);

  // Every entry by scrolling, newest first: the oldest seeded is the last. The walk takes a while,
  // and the console's background read of the runs list (about once a minute) may log a request
  // meanwhile, above the rows being read: the rows are told by their entries, not their places.
  // (An entry's id begins with the time it was logged: ids sort as entries were made.)
  const seen = await walkRows(table, { from: 0, back: true, key: "data-entry" });
  expect(seen.count).toBeGreaterThanOrEqual(logged);
  const newestAtStart = seen.rows.keys().next().value;
  const listed = (await loggedIds(page, workspace)).filter((id) => id <= newestAtStart);
  expect(listed.length).toBe(logged);
  expect(listed.filter((id) => !seen.rows.has(id)), "entries never drawn in full").toEqual([]);
  const reached = [...seen.rows.values()];
  expect(reached.at(-1)[2]).toBe("/v1/runs/old-0");
  expect(reached.at(-3000)[2]).toBe("/v1/runs/old-2999");
  // And by keys: Ctrl+Home, then Ctrl+End to the oldest, the last of the rows.
  await box.evaluate((box) => { box.scrollTop = 0; });
  await table.locator("tbody tr").first().locator("th").focus();
  await page.keyboard.press("Control+End");
  const focusedRow = table.locator("tbody tr").filter({ has: page.locator(":focus") });
  await expect(focusedRow).toContainText("/v1/runs/old-0");
  const lastPlace = await table.evaluate((table) => ({
    focused: document.activeElement.closest("tr").getAttribute("aria-rowindex"),
    last: table.getAttribute("aria-rowcount"),
  }));
  expect(lastPlace.focused).toBe(lastPlace.last);
  expect(await seriousViolations(page)).toEqual([]);

  // Reading in the middle: new entries come in above (the log is read again every 4 s), and the
  // entry read stays where it was on screen.
  await box.evaluate((box) => { box.scrollTop = Math.round(box.scrollHeight / 2); });
  await expect(table.locator("tbody tr[data-placeholder]")).toHaveCount(0);
  // The first entry wholly in view, where it is on screen, and the entries listed.
  const reading = (entry) => box.evaluate((box, entry) => {
    const top = box.getBoundingClientRect().top + box.querySelector("thead").getBoundingClientRect().height;
    const rows = [...box.querySelectorAll("tbody tr[data-entry]")];
    const row = entry ? rows.find((tr) => tr.dataset.entry === entry) : rows.find((tr) => tr.getBoundingClientRect().top >= top);
    return row && {
      entry: row.dataset.entry,
      offset: row.getBoundingClientRect().top - top,
      index: Number(row.getAttribute("aria-rowindex")),
      listed: Number(box.querySelector("table").getAttribute("aria-rowcount")) - 1,
    };
  }, entry);
  const read = await reading();
  expect(read.offset).toBeLessThan(100);
  await seedNewEntries(page, workspace, ["new-a", "new-b", "new-c"]);
  await expect.poll(async () => (await reading(read.entry))?.listed, { message: "the new entries listed", timeout: 15_000 }).toBeGreaterThanOrEqual(read.listed + 3);
  const after = await reading(read.entry);
  expect(after.index - read.index, "the entry read: as many rows further down as entries came").toBe(after.listed - read.listed);
  expect(Math.abs(after.offset - read.offset), "the entry read did not move on screen").toBeLessThan(2);

  // At the top, new entries show as they come.
  await box.evaluate((box) => { box.scrollTop = 0; });
  await expect(table.locator("tbody tr").first()).toContainText("/v1/runs/new-");
  await seedNewEntries(page, workspace, ["new-d"]);
  await expect(table.locator("tbody tr").first()).toContainText("/v1/runs/new-d", { timeout: 15_000 });
  expect(await box.evaluate((box) => box.scrollTop)).toBe(0);
  await screenshot(page, "log-one-scroll");
  expect(problems).toEqual([]);
});

test("a bulk batch's worker brings a log far past its limit back to it while it runs, the oldest first, a bounded part at a time", async ({ sandbox, pages }) => {
  const { page, problems } = await pages.signedIn("/bulk");
  const workspace = (await api(sandbox, "GET", "/v1/workspace")).json.workspace_id;
  // 1,500 entries past the limit: more than one trim drops.
  await seedOldEntries(page, workspace, 6_500);
  const lines = ["query", ...Array.from({ length: 150 }, (_, i) => `worker trims ${i}`)];
  await page.getByLabel("Action").selectOption("network-search-groups");
  await page.locator("#bulk-text").fill(lines.join("\n") + "\n");
  await page.locator('[data-field="start-batch"]').click();
  await expect(page.locator('[data-field="batch"][data-phase="done"]')).toBeVisible({ timeout: 60_000 });
  // The worker trims after every 100 entries it logs: at the end, at most the entries logged
  // since its last trim are past the limit (the page logged next to nothing meanwhile).
  await expect.poll(() => loggedEntries(page, workspace), { message: "the workspace's entries in the log", timeout: 15_000, intervals: [500] })
    .toBeLessThan(5_000 + 100 + 10);
  await go(page, "/log?q=old-");
  // Only old entries went, the oldest first: the newest of them are still there.
  await rowWith(page, "/v1/runs/old-6499");
  await go(page, "/log?q=old-1499");
  await expect(page.locator('[data-field="log-summary"]').getByText(/None of the 5,\d{3} logged requests/)).toBeVisible();
  await go(page, "/log?q=network-search-groups");
  await rowWith(page, "bulk worker");
  expect(besides(problems, 429)).toEqual([]);
});

test("an answer over 64 KB is kept shortened, and shown whole on request", async ({ sandbox, pages }) => {
  for (let i = 0; i < 3; i++) {
    await fetch(`${sandbox.url}/v1/actions/premium-search-people/run/live`, {
      method: "POST",
      headers: { authorization: `Bearer ${sandbox.api_key}`, "content-type": "application/json", "idempotency-key": `log-long-${i}-${Date.now()}` },
      body: JSON.stringify({ input: { keywords: `long answer ${i}` }, max_results: 100 }),
    });
  }
  const { page, problems } = await pages.signedIn("/runs");
  await expect(page.locator("tr[data-run]").first()).toBeVisible();
  await go(page, "/log?method=GET&path=/v1/runs");
  const row = page.locator(".log-table tbody tr").filter({ has: page.locator("td.path", { hasText: /^\/v1\/runs$/ }) }).first();
  await expect(row).toBeVisible({ timeout: 15_000 });
  await row.getByRole("link").click();
  const note = page.locator('[data-field="answer-body-shortened"]');
  await expect(note).toHaveText(/^Shortened: the first 64 KB of /);
  const shortened = await page.locator('[data-field="answer-body"]').textContent();
  expect(shortened.length, "characters shown").toBeLessThanOrEqual(64 * 1024);
  expect(() => JSON.parse(shortened), "cut short, it is not whole JSON").toThrow();
  await note.getByRole("button", { name: "Show the whole body" }).click();
  await expect(note.getByText(/^The whole body, /)).toBeVisible();
  const wholeText = await page.locator('[data-field="answer-body"]').textContent();
  const whole = JSON.parse(wholeText);
  expect(whole.runs.length, "the whole list").toBeGreaterThanOrEqual(3);
  expect(JSON.stringify(whole).length, "the whole list, outputs included").toBeGreaterThan(64 * 1024);
  await screenshot(page, "log-entry-long");
  expect(problems).toEqual([]);
});

test("a request answered just before a reload or a closed tab is in the log afterwards: nothing heard waits in memory", async ({ sandbox, pages }) => {
  const { context, page, problems } = await pages.signedIn("/workspace");
  /** The paths of the log's entries, read from the store by `reader` (none before the console made its store). */
  const loggedPaths = async (reader) => {
    const made = await reader.evaluate(async () => (await indexedDB.databases()).some((d) => d.name === "console" && d.version >= 5));
    return made ? JSON.parse(await storedText(reader, ["log"])).log.values.map((v) => JSON.parse(v).path) : [];
  };
  // The page has written what it heard so far (at once, not a second later).
  await expect.poll(() => loggedPaths(page)).toContain("/v1/workspace");

  // A run's page asks the API for the run (the runs page for the list, with no run yet); the
  // page is reloaded as its answer arrives, and one more such entry is in the log.
  const run = (await fetch(`${sandbox.url}/v1/runs`, { headers: { authorization: `Bearer ${sandbox.api_key}` } }).then((r) => r.json())).runs[0]
    ?? null;
  const path = run ? `/v1/runs/${run.id}` : "/v1/runs";
  const asked = async (reader) => (await loggedPaths(reader)).filter((p) => p.split("?")[0] === path).length;
  const askedBefore = await asked(page);
  const answered = page.waitForResponse((r) => new URL(r.url()).pathname === path);
  await go(page, run ? `/runs/${run.id}` : "/runs");
  await answered;
  await page.reload();
  await expect.poll(() => asked(page)).toBeGreaterThan(askedBefore);

  // The same as the tab is closed: another page of the context reads the store.
  const other = await context.newPage();
  await other.goto(`${sandbox.url}/sign-in`);
  const before = (await loggedPaths(other)).filter((p) => p.split("?")[0] === "/v1/actions").length;
  const signInsBefore = (await loggedPaths(other)).filter((p) => p === "/v1/workspace").length;
  const second = await context.newPage();
  await second.goto(`${sandbox.url}/sign-in`);
  await second.getByLabel("API key or session token").fill(sandbox.api_key);
  await second.getByRole("button", { name: "Sign in" }).click();
  await second.waitForURL(/\/workspace$/);
  // Once its first write has found the log kept, a request, and the tab closed as it answers.
  await expect.poll(async () => (await loggedPaths(other)).filter((p) => p === "/v1/workspace").length).toBeGreaterThan(signInsBefore);
  const actions = second.waitForResponse((r) => new URL(r.url()).pathname === "/v1/actions");
  await second.evaluate(() => { history.pushState({}, "", "/actions"); dispatchEvent(new PopStateEvent("popstate")); });
  await actions;
  // Closed once the page has the answer (its list drawn): a tab closed before its page read the
  // body has heard nothing to keep (this check failed once in a fresh-clone CI run that way).
  await expect(second.locator('a[href^="/actions/"]').first()).toBeVisible();
  await second.close();
  await expect.poll(async () => (await loggedPaths(other)).filter((p) => p.split("?")[0] === "/v1/actions").length).toBeGreaterThan(before);
  expect(problems).toEqual([]);
});
