// A batch's records in the output explorer (issue 60): over 10,000, more than the page holds, so
// they are explored from this browser's store: one table that holds only the rows near its view
// (their records read as they come), every record reached by scrolling and by keys, the row count
// and each row's index told to assistive technology, sort and filter right across all of them (a
// pass over the store), the view's exports in its order, and a row brought in by the keys still
// copies its record (runs.test follows a chain link from one). Headless Chromium
// against the sandbox (fast runs, a high rate limit, credits enough for the batch).
import { readFileSync } from "node:fs";
import { expect, withSandbox } from "./fixtures.mjs";
import { focusedCell as focused, go, parseCsv, screenshot, scrollThroughRows, seriousViolations } from "./harness.mjs";

const test = withSandbox({ args: ["--queue-ms", "20", "--process-ms", "20", "--rate-burst", "1000", "--rate-per-sec", "200", "--credits", "200000"] });

test("over 10,000 records in one table from the store: reached by scrolling and by keys, sorted and filtered across all", async ({ signedIn: { page, problems, context } }) => {
  test.setTimeout(300_000);
  // 120 rows of up to 100 records each: over 10,000, all of them explored.
  // Each row's keywords are one word its records echo, found by no other row's ("wnd7x" is not
  // in "wnd17x"), for the filter below.
  await go(page, "/bulk");
  await page.getByLabel("Action").selectOption("premium-search-people");
  const lines = ["keywords,max_results", ...Array.from({ length: 120 }, (_, i) => `wnd${i + 1}x,100`)];
  await page.locator("#bulk-text").fill(lines.join("\n"));
  await page.locator('[data-field="start-batch"]').click();
  await expect(page.locator('[data-field="batch"][data-phase="done"]')).toBeVisible({ timeout: 180_000 });
  await page.locator('[data-field="explore-results"]').click();
  const results = page.locator('[data-field="explored-results"]');
  const table = results.locator('[data-field="output-table"]');
  const count = results.locator('[data-field="output-count"]');
  await expect(count).toHaveText(/^[\d,]+ records$/, { timeout: 60_000 });
  const total = Number((await count.textContent()).split(" ")[0].replace(/,/g, ""));
  const totalText = total.toLocaleString("en-US");
  expect(total).toBeGreaterThan(10_000);
  await expect(results.locator("p.help").first()).toContainText(`The batch's ${totalText} records`);
  await expect(table).toHaveAttribute("aria-rowcount", String(total + 1));
  const rows = table.locator("tbody tr");
  await expect(rows.first()).toHaveAttribute("aria-rowindex", "2");
  expect(await rows.count(), "rows in the document").toBeLessThan(60);
  const heads = (await table.locator("thead th").allTextContents()).map((h) => h.trim());
  const nameColumn = heads.indexOf("name");
  expect(nameColumn).toBeGreaterThan(0);

  // Every record, by scrolling from the top to the end, in order.
  const seen = await scrollThroughRows(table);
  expect(seen.count).toBe(total);
  expect(seen.rows.findIndex((row) => row === null), "the first row never drawn (-1: none)").toBe(-1);
  expect(seen.rows.every((cells, i) => cells[0] === String(i + 1)), "# from 1 to the last in order").toBe(true);
  expect(seen.rows.findIndex((cells) => !cells[nameColumn]), "the first row without its name (-1: none)").toBe(-1);
  expect(seen.drawnAtMost).toBeLessThan(60);
  // The columns met in the rows read as they came are the ones the first rows had, each once.
  expect((await table.locator("thead th").allTextContents()).map((h) => h.trim()), "the columns after every row was read").toEqual(heads);

  // A jump to the middle (the scrollbar dragged, a fling): the rows it brings in are at first
  // placeholders of their height, only those in view, the columns held as they were (the
  // placeholders have no content to size them by); a moment later, the rows themselves.
  const jump = await table.evaluate((table) => new Promise((resolve) => {
    const box = table.closest(".windowed");
    const widths = () => [...table.querySelectorAll("thead th")].map((th) => th.getBoundingClientRect().width);
    const before = { widths: widths(), drawn: table.querySelectorAll("tbody tr").length };
    // Seen as the rows change (a microtask), before the end of the fling (a timer) can come.
    const observer = new MutationObserver(() => {
      const placeholders = table.querySelectorAll("tbody tr[data-placeholder]").length;
      if (!placeholders) return;
      observer.disconnect();
      resolve({ before, during: { widths: widths(), drawn: table.querySelectorAll("tbody tr").length, placeholders } });
    });
    observer.observe(table, { subtree: true, childList: true, attributes: true });
    box.scrollTop = Math.round(box.scrollHeight / 2);
  }));
  expect(jump.during.widths, "the columns held").toEqual(jump.before.widths);
  expect(jump.during.drawn, "only the rows in view").toBeLessThan(jump.before.drawn);
  expect(jump.during.placeholders).toBe(jump.during.drawn);
  await expect(table.locator("tbody tr[data-placeholder]")).toHaveCount(0);
  const middle = rows.first();
  const middlePlace = Number(await middle.getAttribute("aria-rowindex")) - 1;
  expect(middlePlace).toBeGreaterThan(4_000);
  await expect(middle.locator("th")).toHaveText(String(middlePlace));
  await expect(middle.locator("td").nth(nameColumn - 1)).not.toBeEmpty();

  // By keys: Ctrl+End from the first cell brings the last record in; Page Up goes a view back.
  await rows.first().locator("th").click();
  await page.keyboard.press("Control+End");
  await expect.poll(() => focused(page)).toEqual({ row: String(total + 1), column: 0, text: String(total) });
  const last = table.locator(`tbody tr[aria-rowindex="${total + 1}"]`);
  await expect(last).toBeInViewport();
  await page.keyboard.press("PageUp");
  await expect.poll(async () => Number((await focused(page)).row)).toBeLessThan(total + 1);
  await expect(table.locator(`tbody tr[aria-rowindex="${(await focused(page)).row}"]`)).toBeInViewport();
  expect(await rows.count()).toBeLessThan(60);
  // The focused cell keeps the grid's focus while its row is scrolled out of the document and
  // back (as a wheel or the scrollbar would; no key pressed).
  const readHere = await focused(page);
  await table.evaluate((t) => { t.closest(".windowed").scrollTop = 0; });
  await expect(table.locator(`tbody tr[aria-rowindex="${readHere.row}"]`)).toHaveCount(0);
  await table.evaluate((t) => { const box = t.closest(".windowed"); box.scrollTop = box.scrollHeight; });
  await expect.poll(() => focused(page)).toEqual(readHere);
  expect(await seriousViolations(page), "axe: serious or critical").toEqual([]);
  await screenshot(page, "explore-kept-end");

  // The row the keys brought in copies its record (runs.test follows a chain link from one).
  await page.keyboard.press("Control+End");
  await expect(last).toBeInViewport();
  await expect(last.locator("td").nth(nameColumn - 1)).not.toBeEmpty();
  const lastName = await last.locator("td").nth(nameColumn - 1).textContent();
  await context.grantPermissions(["clipboard-read", "clipboard-write"]);
  await last.getByRole("button", { name: "Copy" }).click();
  await expect.poll(async () => JSON.parse(await page.evaluate(() => navigator.clipboard.readText())).name).toBe(lastName);

  // Sorted by name across all: the view's export is in order, and the table's first and last
  // rows are the export's first and last.
  const nameHeading = table.locator("thead th").filter({ hasText: /^name/ });
  await nameHeading.getByRole("button").click();
  await expect(nameHeading).toHaveAttribute("aria-sort", "ascending");
  await expect(count).toHaveText(`${totalText} records`);
  await expect(rows.first()).toHaveAttribute("aria-rowindex", "2");
  const exported = async () => {
    const [file] = await Promise.all([page.waitForEvent("download"), results.getByRole("button", { name: "Export CSV", exact: true }).click()]);
    const [header, ...records] = parseCsv(readFileSync(await file.path(), "utf8").replace(/^\uFEFF/, ""));
    return records.filter((r) => r.length > 1).map((r) => r[header.indexOf("name")]);
  };
  const sortedNames = await exported();
  expect(sortedNames).toHaveLength(total);
  const lower = sortedNames.map((n) => n.toLowerCase());
  // The explorer's order: text without case, by code point (model::explore).
  expect(lower.every((n, i) => i === 0 || lower[i - 1] <= n), "ascending").toBe(true);
  await expect(rows.first().locator("td").nth(nameColumn - 1)).toHaveText(sortedNames[0]);
  await rows.first().locator("th").click();
  await page.keyboard.press("Control+End");
  await expect(last.locator("td").nth(nameColumn - 1)).toHaveText(sortedNames.at(-1));
  // Descending, then no sort: the records' own order again, from #1.
  await nameHeading.getByRole("button").click();
  await expect(nameHeading).toHaveAttribute("aria-sort", "descending");
  await expect(count).toHaveText(`${totalText} records`);
  await nameHeading.getByRole("button").click();
  await expect(nameHeading).toHaveAttribute("aria-sort", "none");
  await table.evaluate((t) => { t.closest(".windowed").scrollTop = 0; });
  await expect(table.locator('tbody tr[aria-rowindex="2"]:not([data-placeholder]) th')).toHaveText("1");
  await expect(table.locator('tbody tr[aria-rowindex="3"]:not([data-placeholder]) th')).toHaveText("2");
  await nameHeading.getByRole("button").click();
  await expect(nameHeading).toHaveAttribute("aria-sort", "ascending");
  await expect(count).toHaveText(`${totalText} records`);

  // The JSON view holds the first 100 records shown, in the view's order (an export holds all).
  await results.getByRole("button", { name: "JSON", exact: true }).click();
  const json = results.locator('[data-field="output-json"]');
  await expect(results.locator(".json-view summary")).toContainText("The first 100 records shown as JSON");
  const shownFirst = JSON.parse(await json.textContent());
  expect(shownFirst).toHaveLength(100);
  expect(shownFirst.map((r) => r.name)).toEqual(sortedNames.slice(0, 100));
  await screenshot(page, "explore-kept-json");
  await results.getByRole("button", { name: "Table", exact: true }).click();

  // Filtered across all: the count, the rows and the export agree.
  await results.locator('[data-field="output-filter"]').fill("wnd7x");
  await expect(count).toHaveText(new RegExp(`^[\\d,]+ of ${totalText} records$`));
  const matching = Number((await count.textContent()).split(" of ")[0].replace(/,/g, ""));
  expect(matching).toBeGreaterThan(10);
  expect(matching).toBeLessThan(total);
  await expect(table).toHaveAttribute("aria-rowcount", String(matching + 1));
  const filtered = await scrollThroughRows(table);
  expect(filtered.rows.findIndex((row) => row === null)).toBe(-1);
  expect(filtered.rows.filter((cells) => !cells.join(" ").includes("wnd7x")), "rows without the word").toEqual([]);
  expect(await exported()).toHaveLength(matching);
  await screenshot(page, "explore-kept-filtered");

  // Presenter mode: the records read from the store as they scroll into view are masked, and so
  // is what a row copies. The real names were all read above.
  const realNames = new Set(seen.rows.map((cells) => cells[nameColumn]));
  await page.locator('[data-field="presenter-toggle"]').click();
  await expect(page.locator('[data-field="presenter-band"]')).toBeVisible();
  await page.locator('[data-field="explore-results"]').click();
  const maskedTable = page.locator('[data-field="explored-results"] [data-field="output-table"]');
  await expect(maskedTable).toHaveAttribute("aria-rowcount", String(total + 1), { timeout: 60_000 });
  const masked = await scrollThroughRows(maskedTable);
  expect(masked.rows.findIndex((row) => row === null), "the first row never drawn (-1: none)").toBe(-1);
  const shownText = masked.rows.flat().join("\n");
  expect([...realNames].filter((name) => shownText.includes(name)).slice(0, 5), "real names drawn").toEqual([]);
  const firstMasked = maskedTable.locator("tbody tr").first();
  await firstMasked.getByRole("button", { name: "Copy" }).click();
  await expect.poll(async () => JSON.parse(await page.evaluate(() => navigator.clipboard.readText())).name).toBe(masked.rows[0][nameColumn]);
  expect(realNames.has(masked.rows[0][nameColumn])).toBe(false);
  await screenshot(page, "explore-kept-presenter");
  expect(problems).toEqual([]);
});

// A table goes (the page left) while a fling's timer and the next frame's follow-up of its
// measures are due: they must do nothing once it has gone. The table cancels both when it goes,
// but a cancel can miss: Playwright's clock hands out ids from 10¹², past the i32 web-sys keeps,
// so here every cancel misses and the clock, run on, brings them after the table went.
test("a table left while a fling's timer and a frame are due: they do nothing after it went", async ({ sandbox, signedIn: { page, problems } }) => {
  const response = await fetch(`${sandbox.url}/v1/actions/premium-search-people/run/live`, {
    method: "POST",
    headers: { authorization: `Bearer ${sandbox.api_key}`, "content-type": "application/json", "idempotency-key": crypto.randomUUID() },
    body: JSON.stringify({ input: { keywords: "left while due" }, max_results: 100 }),
  });
  const run = await response.json();
  expect(run.output).toHaveLength(100);
  await go(page, `/runs/${run.id}`);
  const table = page.locator('[data-field="output-table"]');
  await expect(table).toHaveAttribute("aria-rowcount", "101");
  await expect(table.locator("tbody tr").first()).toBeVisible();
  // Time stands still from here: timers and frames wait for the clock to run.
  await page.clock.install();
  await page.clock.pauseAt(Date.now() + 1_000);
  // A jump past every row drawn: a fling, its end a timer; its placeholders measured, the
  // follow-up a frame.
  await table.evaluate((t) => { const box = t.closest(".windowed"); box.scrollTop = box.scrollHeight; });
  await expect(table.locator("tbody tr[data-placeholder]").first()).toBeAttached();
  // Left (as a link would; not `go`, which waits on a timer), then the clock run on: the
  // router's turn first, then the frame and the timer, after the table went.
  await page.evaluate(() => { history.pushState({}, "", "/actions"); dispatchEvent(new PopStateEvent("popstate")); });
  await page.clock.runFor(2_000);
  await expect(table).toHaveCount(0);
  await expect(page.getByRole("heading", { level: 1, name: "Actions" })).toBeVisible();
  expect(problems).toEqual([]);
});
