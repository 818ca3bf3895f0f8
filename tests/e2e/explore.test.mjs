// Exploring a run's output: identity columns first, sort by any column, filter as one types,
// columns chosen and reordered (remembered per action), and the view exported as CSV, JSON and
// JSON Lines. Headless Chromium against the sandbox.
import { readFileSync } from "node:fs";
import { expect, withSandbox } from "./fixtures.mjs";
import { screenshot, go, api, scrollThroughRows } from "./harness.mjs";

const test = withSandbox();

const headings = (page) => page.locator('[data-field="output-table"] thead th').allTextContents();
/** The `index`th shown column of every record shown, read by scrolling through the table. */
async function column(page, index) {
  const { count, rows } = await scrollThroughRows(page.locator('[data-field="output-table"]'));
  expect(rows.filter((row) => row === null), `every one of the ${count} rows drawn once scrolled to`).toEqual([]);
  return rows.map((cells) => cells[index + 1]);
}

async function download(page, name) {
  const [file] = await Promise.all([page.waitForEvent("download"), page.getByRole("button", { name, exact: true }).click()]);
  return readFileSync(await file.path(), "utf8");
}

test("a 100-record run: identity first, sort, filter, chosen columns kept per action, the view exported", async ({ sandbox, signedIn: { page, problems } }) => {
  const run = (await api(sandbox, "POST", "/v1/actions/premium-search-people/run/live", {
    key: `explore-${Date.now()}`, body: { input: { keywords: "explore" }, max_results: 100 },
  })).json;
  expect(run.output).toHaveLength(100);
  await go(page, `/runs/${run.id}`);
  const table = page.locator('[data-field="output-table"]');
  const rows = table.locator("tbody tr");
  await expect(table).toHaveAttribute("aria-rowcount", "101");
  await expect(rows.first()).toBeVisible();
  const heads = await headings(page);
  expect(heads[0]).toBe("#");
  expect(heads[1].trim(), `identity first: ${heads.join(" | ")}`).toBe("name");

  // Sort by name, both ways; the # column keeps each record's place in the run.
  const names = run.output.map((r) => r.name);
  const byName = [...names].sort((a, b) => a.toLowerCase().localeCompare(b.toLowerCase(), "en"));
  await page.locator("thead th").filter({ hasText: /^name/ }).getByRole("button").click();
  await expect(page.locator("thead th").filter({ hasText: /^name/ })).toHaveAttribute("aria-sort", "ascending");
  const sorted = await column(page, 0);
  expect(sorted, "ascending by name").toEqual([...sorted].sort((a, b) => a.toLowerCase().localeCompare(b.toLowerCase(), "en")));
  expect(sorted).toHaveLength(100);
  expect(new Set(sorted)).toEqual(new Set(byName));
  await page.locator("thead th").filter({ hasText: /^name/ }).getByRole("button").click();
  await expect(page.locator("thead th").filter({ hasText: /^name/ })).toHaveAttribute("aria-sort", "descending");
  await expect.poll(() => column(page, 0), { message: "descending by name" }).toEqual([...sorted].reverse());

  // Filter as one types: a name that appears once.
  const unique = names.find((n) => names.filter((m) => m === n).length === 1);
  await page.locator('[data-field="output-filter"]').fill(unique);
  await expect.poll(async () => Number(await table.getAttribute("aria-rowcount")) - 1, { message: "rows left by the filter" }).toBeLessThan(100);
  const left = await column(page, 0);
  expect(left).toContain(unique);
  await expect(page.locator('[data-field="output-count"]')).toContainText(" of 100 records");
  const csv = await download(page, "Export CSV");
  expect(csv.replace(/^\uFEFF/, "").split("\r\n")[0], "the CSV has the view's columns in order").toMatch(/^name,/);
  expect(csv.trim().split("\r\n").length, "and the view's records only").toBe(left.length + 1);
  await page.locator('[data-field="output-filter"]').fill("");
  await expect(table).toHaveAttribute("aria-rowcount", "101");

  // Hide headline, move profile_url first: the table, the exports and the next run of the action follow.
  await page.locator('[data-field="columns-panel"] summary').click();
  await page.locator('[data-column="headline"] input[type="checkbox"]').uncheck();
  const panelItems = () => page.locator('[data-field="columns-panel"] li').evaluateAll((lis) => lis.map((li) => li.dataset.column));
  while ((await panelItems())[0] !== "profile_url") {
    await page.getByRole("button", { name: "Move profile_url earlier" }).click();
  }
  const chosen = (await headings(page)).map((h) => h.trim().replace(/ [▲▼]$/, ""));
  expect(chosen[1]).toBe("profile_url");
  expect(chosen).not.toContain("headline");
  await screenshot(page, "explore-columns");
  const lines = (await download(page, "Export JSON Lines")).trim().split("\n").map((l) => JSON.parse(l));
  expect(lines).toHaveLength(100);
  for (const record of lines) {
    expect(record).not.toHaveProperty("headline");
    expect(record).toHaveProperty("profile_url");
  }
  const json = JSON.parse(await download(page, "Export JSON"));
  expect(json).toHaveLength(100);
  expect(json.map((r) => r.name), "JSON in the view's order (sorted by name, descending)").toEqual(await column(page, 1));

  const other = (await api(sandbox, "POST", "/v1/actions/premium-search-people/run/live", {
    key: `explore-b-${Date.now()}`, body: { input: { keywords: "explore again" }, max_results: 5 },
  })).json;
  await go(page, `/runs/${other.id}`);
  await expect(page.locator('[data-field="output-table"] tbody tr').first()).toBeVisible();
  const again = (await headings(page)).map((h) => h.trim());
  expect(again[1], "the choice is kept for the action").toBe("profile_url");
  expect(again).not.toContain("headline");
  await page.locator('[data-field="columns-panel"] summary').click();
  await page.getByRole("button", { name: "Reset the columns" }).click();
  await expect(page.locator('[data-field="output-table"] thead th').nth(1)).toHaveText("name");
  expect(problems).toEqual([]);
});

test("a bulk batch's results are explored together: each record with its row's line, input and run", async ({ signedIn: { page, problems } }) => {
  await go(page, "/bulk");
  await page.getByLabel("Action").selectOption("premium-search-people");
  const rows = ["keywords,max_results", "explore alpha,5", "explore bravo,5", "explore charlie,5"];
  await page.locator("#bulk-text").fill(rows.join("\n"));
  await page.locator('[data-field="start-batch"]').click();
  await expect(page.locator('[data-field="batch"][data-phase="done"]')).toBeVisible({ timeout: 60_000 });
  await page.locator('[data-field="explore-results"]').click();
  const results = page.locator('[data-field="explored-results"]');
  await expect(results.locator('[data-field="output-table"]')).toHaveAttribute("aria-rowcount", "16");
  const heads = (await results.locator('[data-field="output-table"] thead th').allTextContents()).map((h) => h.trim());
  for (const name of ["line", "input.keywords", "run_id", "name"]) expect(heads).toContain(name);
  await results.locator('[data-field="output-filter"]').fill("bravo");
  await expect(results.locator('[data-field="output-table"]')).toHaveAttribute("aria-rowcount", "6");
  await expect(results.locator('[data-field="output-table"] tbody tr')).toHaveCount(5);
  await expect(results.locator('[data-field="output-count"]')).toHaveText(/^5 of 15 records/);
  await screenshot(page, "explore-bulk");
  expect(problems).toEqual([]);
});
