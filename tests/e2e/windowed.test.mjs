// A batch's records in the output explorer (issue 60): over 10,000, more than the page holds, so
// they are explored from this browser's store: one table that holds only the rows near its view
// (their records read as they come), every record reached by scrolling and by keys, the row count
// and each row's index told to assistive technology, sort and filter right across all of them (a
// pass over the store), the view's exports in its order, and a row brought in by the keys still
// copies its record (runs.test follows a chain link from one). Headless Chromium
// against the sandbox (fast runs, a high rate limit, credits enough for the batch).
import { readFileSync } from "node:fs";
import { expect, withSandbox } from "./fixtures.mjs";
import { focusedCell as focused, go, parseCsv, readOnFrom, screenshot, scrollThroughRows, seriousViolations, walkRows } from "./harness.mjs";

// Credits for the 10,000 records of the first test and the 200,000 of the stretched table's.
const test = withSandbox({ args: ["--queue-ms", "20", "--process-ms", "20", "--rate-burst", "1000", "--rate-per-sec", "200", "--credits", "400000"] });

/** Runs a batch of people searches, one a line of `keywords` (100 records each), to its end. */
async function runSearches(page, keywords, { timeout }) {
  await go(page, "/bulk");
  await page.getByLabel("Action").selectOption("premium-search-people");
  await page.locator("#bulk-text").fill(["keywords,max_results", ...keywords.map((k) => `${k},100`)].join("\n"));
  await page.locator('[data-field="start-batch"]').click();
  await expect(page.locator('[data-field="batch"][data-phase="done"]')).toBeVisible({ timeout });
}

test("over 10,000 records in one table from the store: reached by scrolling and by keys, sorted and filtered across all", async ({ signedIn: { page, problems, context } }) => {
  // Each of its 10,301 records is read by scrolling twice (real, then masked), each place of the
  // box waited on until its rows are read from the store and drawn: 4.9 to 5.1 minutes beside a
  // busy core here.
  test.setTimeout(540_000);
  // 120 rows of up to 100 records each: over 10,000, all of them explored.
  // Each row's keywords are one word its records echo, found by no other row's ("wnd7x" is not
  // in "wnd17x"), for the filter below.
  await runSearches(page, Array.from({ length: 120 }, (_, i) => `wnd${i + 1}x`), { timeout: 180_000 });
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
  const firstMasked = maskedTable.locator(`tbody tr[aria-rowindex="2"]`);
  await firstMasked.getByRole("button", { name: "Copy" }).click();
  await expect.poll(async () => JSON.parse(await page.evaluate(() => navigator.clipboard.readText())).name).toBe(masked.rows[0][nameColumn]);
  expect(realNames.has(masked.rows[0][nameColumn])).toBe(false);
  await screenshot(page, "explore-kept-presenter");
  expect(problems).toEqual([]);
});

// A chain's joined dataset: one row per comment and path, with its post's and profile's columns.
// Over 10,000 joined rows are explored where the store keeps them too (state::chains::JoinedRows):
// the last step's rows near the view joined as they are drawn, a sort or a filter a pass over
// every joined row; what the table shows is what the export writes, row for row.
test("a chain's joined rows over 10,000 are explored from the store: each one reached in the export's order, sorted and filtered across all, masked", async ({ signedIn: { page, problems } }) => {
  test.setTimeout(300_000);
  // 24 profiles → their posts (10 each) → the commenters of each post (up to 100 each): some
  // 14,000 joined rows.
  await go(page, "/chains");
  await page.locator("#chain-first-action").selectOption("network-extract-people");
  await page.locator("#chain-action-1").selectOption("network-extract-people-post-activity");
  await page.locator("#chain-max-1").fill("10");
  await expect(page.locator("#chain-action-2")).toBeVisible();
  await page.locator("#chain-action-2").selectOption("network-extract-post-commenters");
  await page.locator("#chain-first-2").fill("10");
  await page.locator("#chain-max-2").fill("100");
  const urls = Array.from({ length: 24 }, (_, i) => `https://www.network.com/in/joined-${i}`);
  await page.locator("#bulk-text").fill(["identifier", ...urls].join("\n") + "\n");
  await page.locator('[data-field="start-chain"]').click();
  const spend = page.locator('[data-field="confirm-spend"][open]');
  if (await spend.isVisible()) await page.locator('[data-field="confirm-spend-yes"]').click();
  await expect(page.locator('[data-field="chain"]')).toHaveAttribute("data-standing", "done", { timeout: 180_000 });

  // The export: every joined row, in the last step's line order.
  const [download] = await Promise.all([page.waitForEvent("download"), page.locator('[data-field="export-joined-csv"]').click()]);
  const [header, ...exported] = parseCsv(readFileSync(await download.path(), "utf8").replace(/^\uFEFF/, "")).filter((r) => r.length > 1);
  const total = exported.length;
  expect(total, "joined rows").toBeGreaterThan(10_000);
  const totalText = total.toLocaleString("en-US");
  const runOf = header.indexOf("step3.run_id");
  const idOf = header.indexOf("step3.comment_id");
  const authorOf = header.indexOf("step3.author");
  expect(runOf, `step3.run_id among ${header}`).toBeGreaterThan(0);
  expect(idOf, `step3.comment_id among ${header}`).toBeGreaterThan(0);
  expect(authorOf, `step3.author among ${header}`).toBeGreaterThan(0);

  await page.locator('[data-field="explore-joined"]').click();
  const results = page.locator('[data-field="joined-results"]');
  await expect(results.locator('[data-field="joined-count"]')).toHaveText(`${totalText} joined rows shown.`, { timeout: 60_000 });
  const table = results.locator('[data-field="output-table"]');
  const count = results.locator('[data-field="output-count"]');
  await expect(count).toHaveText(`${totalText} records`);
  await expect(table).toHaveAttribute("aria-rowcount", String(total + 1));
  const heads = (await table.locator("thead th").allTextContents()).map((h) => h.trim().replace(/[▲▼]$/, "").trim());
  const shownRun = heads.findIndex((h) => h.startsWith("step3.run_id"));
  const shownId = heads.findIndex((h) => h.startsWith("step3.comment_id"));
  expect(shownRun, `step3.run_id among ${heads}`).toBeGreaterThan(0);
  expect(shownId, `step3.comment_id among ${heads}`).toBeGreaterThan(0);
  await screenshot(page, "chain-joined-kept");

  // Joined rows read by scrolling from the top, a third of the way, two thirds and near the end
  // (each place read as the rows near it are joined): each row is the export's row at its place,
  // none skipped. (Reading every one of them is windowed.test's first test, over a batch.)
  for (const from of [0, 1 / 3, 2 / 3, 0.99]) {
    const { rows: read, drawnAtMost } = await walkRows(table, { from, steps: 12, stepPx: 400 });
    const places = [...read.keys()].sort((a, b) => a - b);
    expect(places.length, `rows read from ${from}`).toBeGreaterThan(20);
    expect(places.at(-1) - places[0] + 1, `rows skipped from ${from}`).toBe(places.length);
    const differs = places.filter((place) => read.get(place)[shownRun] !== exported[place][runOf] || read.get(place)[shownId] !== exported[place][idOf]);
    expect(differs.slice(0, 5), `rows unlike the export's, from ${from}`).toEqual([]);
    expect(drawnAtMost).toBeLessThan(60);
  }
  // The last joined row by keys.
  await table.locator("tbody tr:not([data-placeholder]) th").first().click();
  await page.keyboard.press("Control+End");
  const lastRow = table.locator(`tbody tr[aria-rowindex="${total + 1}"]:not([data-placeholder])`);
  await expect(lastRow.locator("td").nth(shownId - 1)).toHaveText(exported.at(-1)[idOf]);

  // Sorted by the comment's id across all (as text): the first row is the least of all, the
  // last the greatest.
  const ids = exported.map((row) => row[idOf]).sort();
  const idHeading = table.locator("thead th").nth(shownId);
  await idHeading.getByRole("button").click();
  await expect(idHeading).toHaveAttribute("aria-sort", "ascending");
  const idInRow = (index) => table.locator(`tbody tr[aria-rowindex="${index}"]:not([data-placeholder]) td`).nth(shownId - 1);
  await expect(idInRow(2)).toHaveText(ids[0], { timeout: 60_000 });
  await idInRow(2).locator("xpath=..").locator("th").click();
  await page.keyboard.press("Control+End");
  await expect(idInRow(total + 1)).toHaveText(ids.at(-1));
  await idHeading.getByRole("button").click();
  await idHeading.getByRole("button").click();
  await expect(idHeading).toHaveAttribute("aria-sort", "none");

  // Filtered by one comment run's id: its joined rows, as many as the export holds.
  const oneRun = exported[Math.floor(total / 2)][runOf];
  const ofRun = exported.filter((row) => row[runOf] === oneRun).length;
  await results.locator('[data-field="output-filter"]').fill(oneRun);
  await expect(count).toHaveText(`${ofRun.toLocaleString("en-US")} of ${totalText} records`);
  const filtered = await scrollThroughRows(table);
  expect(filtered.rows.filter((cells) => cells?.[shownRun] !== oneRun), "rows of another run").toEqual([]);
  await results.locator('[data-field="output-filter"]').fill("");
  expect(await seriousViolations(page), "axe: serious or critical").toEqual([]);

  // Presenter mode: the joined rows read from the store as they scroll into view are masked.
  const authorName = (cell) => { try { return JSON.parse(cell).name; } catch { return undefined; } };
  const realNames = new Set(exported.slice(0, 200).map((row) => authorName(row[authorOf])).filter(Boolean));
  expect(realNames.size, "real names to look for").toBeGreaterThan(50);
  await page.locator('[data-field="presenter-toggle"]').click();
  await expect(page.locator('[data-field="presenter-band"]')).toBeVisible();
  await page.locator('[data-field="explore-joined"]').click();
  await expect(results.locator('[data-field="joined-count"]')).toHaveText(`${totalText} joined rows shown.`, { timeout: 60_000 });
  const firstRows = results.locator('[data-field="output-table"] tbody tr:not([data-placeholder])');
  await expect(firstRows.first()).toBeVisible();
  const shownText = (await firstRows.allTextContents()).join("\n");
  expect([...realNames].filter((name) => shownText.includes(name)).slice(0, 5), "real names drawn").toEqual([]);
  await screenshot(page, "chain-joined-kept-presenter");
  expect(problems).toEqual([]);
});

// Rows taller than a browser lets an element be (Chromium and WebKit cap it at about 33.5 million
// pixels, Firefox at about 17.9 million): past that the space kept for the rows not drawn would be
// cut short and the last rows never reached. The table keeps 15 million pixels of space and maps
// its box's scroll places onto the rows (model::row_window::ScrollMap): the box's end is the last
// record, its middle the middle ones, a wheel reads on without skipping a row, and the keys go
// everywhere.
test("rows taller than a box may be: its space within the browsers' limit, every place still reached", async ({ signedIn: { page, problems } }) => {
  test.setTimeout(600_000);
  // 2,000 rows of 100 records: 200,000 records of about 100 px each, some 20 million px of rows.
  await runSearches(page, Array.from({ length: 2_000 }, (_, i) => `tall${i + 1}x`), { timeout: 420_000 });
  await page.locator('[data-field="explore-results"]').click();
  const results = page.locator('[data-field="explored-results"]');
  const table = results.locator('[data-field="output-table"]');
  const count = results.locator('[data-field="output-count"]');
  await expect(count).toHaveText(/^[\d,]+ records$/, { timeout: 120_000 });
  const total = Number((await count.textContent()).split(" ")[0].replace(/,/g, ""));
  expect(total).toBeGreaterThan(150_000);
  await expect(table).toHaveAttribute("aria-rowcount", String(total + 1));
  const drawnInFull = table.locator("tbody tr:not([data-placeholder])");
  await expect(drawnInFull.first()).toHaveAttribute("aria-rowindex", "2");
  // The box in the page's view, as a person reading it has it.
  await table.evaluate((t) => t.closest(".windowed").scrollIntoView({ block: "start" }));

  // The rows are taller than the box may be; the box keeps 15 million pixels for them (its
  // header row besides).
  const sizes = await table.evaluate((t) => {
    const box = t.closest(".windowed");
    const drawn = [...t.querySelectorAll("tbody tr:not([data-placeholder])")];
    return {
      meanRow: drawn.reduce((sum, tr) => sum + tr.getBoundingClientRect().height, 0) / drawn.length,
      space: box.scrollHeight - t.querySelector("thead").getBoundingClientRect().height,
    };
  });
  expect(sizes.meanRow * total, "the rows' height").toBeGreaterThan(16_000_000);
  expect(Math.abs(sizes.space - 15_000_000), "the box's space, less 15 million px").toBeLessThan(2);

  // The box's end is the last record, drawn in full, its end at the view's.
  await table.evaluate((t) => { const box = t.closest(".windowed"); box.scrollTop = box.scrollHeight; });
  const last = table.locator(`tbody tr[aria-rowindex="${total + 1}"]:not([data-placeholder])`);
  await expect(last.locator("th")).toHaveText(String(total));
  await expect(last).toBeInViewport();
  const endGap = () => last.evaluate((tr) => tr.closest(".windowed").getBoundingClientRect().bottom - tr.getBoundingClientRect().bottom);
  await expect.poll(endGap, "the last row's end, above the box's").toBeLessThan(20);
  await screenshot(page, "explore-stretched-end");

  // The box's middle is the middle of the records (their heights are alike).
  await table.evaluate((t) => { const box = t.closest(".windowed"); box.scrollTop = (box.scrollHeight - box.clientHeight) / 2; });
  // (The rows drawn at the end are past a quarter too: what is waited for is the middle.)
  const firstDrawn = () => table.evaluate((t) => Number(t.querySelector("tbody tr:not([data-placeholder])")?.getAttribute("aria-rowindex") ?? 0) - 2);
  const fromMiddle = async () => Math.abs((await firstDrawn()) - total / 2) / total;
  await expect.poll(fromMiddle, "the first row drawn: its distance from the middle, as a share").toBeLessThan(0.05);
  await expect(table.locator("tbody tr[data-placeholder]")).toHaveCount(0);
  expect(await fromMiddle(), "the middle row's distance from the middle, once drawn in full").toBeLessThan(0.05);

  // A wheel reads on from a third of the way: 60 steps of 100 px of the box bring every record
  // on the way in order, none skipped, though each step is more than 100 px of rows.
  const read = await readOnFrom(table, { from: 1 / 3, steps: 60, stepPx: 100 });
  const passed = Array.from({ length: read.last - read.first + 1 }, (_, i) => read.first + i);
  expect(passed.filter((place) => read.rows[place] === undefined), "records skipped").toEqual([]);
  expect(passed.filter((place) => read.rows[place] !== String(place + 1)), "records out of place").toEqual([]);
  expect((read.last - read.first) * sizes.meanRow, "rows read past, in px").toBeGreaterThan(60 * 100);

  // The keys: Ctrl+End to the last record, up one, Ctrl+Home to the first.
  await drawnInFull.first().locator("th").click();
  await page.keyboard.press("Control+End");
  await expect.poll(() => focused(page)).toEqual({ row: String(total + 1), column: 0, text: String(total) });
  await expect(last).toBeInViewport();
  await page.keyboard.press("ArrowUp");
  await expect.poll(() => focused(page)).toEqual({ row: String(total), column: 0, text: String(total - 1) });
  await expect(table.locator(`tbody tr[aria-rowindex="${total}"]`)).toBeInViewport();
  await page.keyboard.press("Control+Home");
  await expect.poll(() => focused(page)).toEqual({ row: "2", column: 0, text: "1" });
  await expect(table.locator('tbody tr[aria-rowindex="2"]')).toBeInViewport();
  expect(await table.evaluate((t) => t.closest(".windowed").scrollTop)).toBe(0);
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
