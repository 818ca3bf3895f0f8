// Exploring a run's output: identity columns first, sort by any column, filter as one types,
// columns chosen and reordered (remembered per action), and the view exported as CSV, JSON and
// JSON Lines. Headless Chromium against the sandbox.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { withSandbox } from "./fixtures.mjs";
import { screenshot, go, api } from "./harness.mjs";

const test = withSandbox();

const headings = (page) => page.locator('[data-field="output-table"] thead th').allTextContents();
const column = (page, index) => page.locator(`[data-field="output-table"] tbody tr td:nth-child(${index + 2})`).allTextContents();

async function download(page, name) {
  const [file] = await Promise.all([page.waitForEvent("download"), page.getByRole("button", { name, exact: true }).click()]);
  return readFileSync(await file.path(), "utf8");
}

test("a 100-record run: identity first, sort, filter, chosen columns kept per action, the view exported", async ({ sandbox, signedIn: { page, problems } }) => {
  const run = (await api(sandbox, "POST", "/v1/actions/premium-search-people/run/live", {
    key: `explore-${Date.now()}`, body: { input: { keywords: "explore" }, max_results: 100 },
  })).json;
  assert.equal(run.output.length, 100);
  await go(page, `/runs/${run.id}`);
  const rows = page.locator('[data-field="output-table"] tbody tr');
  await rows.nth(99).waitFor();
  const heads = await headings(page);
  assert.equal(heads[0], "#");
  assert.equal(heads[1].trim(), "name", `identity first: ${heads.join(" | ")}`);

  // Sort by name, both ways; the # column keeps each record's place in the run.
  const names = run.output.map((r) => r.name);
  const byName = [...names].sort((a, b) => a.toLowerCase().localeCompare(b.toLowerCase(), "en"));
  await page.locator("thead th").filter({ hasText: /^name/ }).getByRole("button").click();
  assert.equal(await page.locator("thead th").filter({ hasText: /^name/ }).getAttribute("aria-sort"), "ascending");
  await rows.nth(99).waitFor();
  const sorted = await column(page, 0);
  assert.deepEqual([...sorted].sort((a, b) => a.toLowerCase().localeCompare(b.toLowerCase(), "en")), sorted, "ascending by name");
  assert.equal(sorted.length, 100);
  assert.deepEqual(new Set(sorted), new Set(byName));
  await page.locator("thead th").filter({ hasText: /^name/ }).getByRole("button").click();
  await rows.nth(99).waitFor();
  assert.deepEqual(await column(page, 0), [...sorted].reverse());

  // Filter as one types: a name that appears once.
  const unique = names.find((n) => names.filter((m) => m === n).length === 1);
  await page.locator('[data-field="output-filter"]').fill(unique);
  await page.waitForFunction(() => document.querySelectorAll('[data-field="output-table"] tbody tr').length < 100);
  const left = await column(page, 0);
  assert.ok(left.includes(unique) && left.every((name, i) => i === 0 || name !== undefined));
  assert.match(await page.locator('[data-field="output-count"]').textContent(), / of 100 records/);
  const csv = await download(page, "Export CSV");
  assert.ok(csv.replace(/^\uFEFF/, "").split("\r\n")[0].startsWith("name,"), "the CSV has the view's columns in order");
  assert.equal(csv.trim().split("\r\n").length, left.length + 1, "and the view's records only");
  await page.locator('[data-field="output-filter"]').fill("");
  await rows.nth(99).waitFor();

  // Hide headline, move profile_url first: the table, the exports and the next run of the action follow.
  await page.locator('[data-field="columns-panel"] summary').click();
  await page.locator('[data-column="headline"] input[type="checkbox"]').uncheck();
  const panelItems = () => page.locator('[data-field="columns-panel"] li').evaluateAll((lis) => lis.map((li) => li.dataset.column));
  while ((await panelItems())[0] !== "profile_url") {
    await page.getByRole("button", { name: "Move profile_url earlier" }).click();
  }
  const chosen = (await headings(page)).map((h) => h.trim().replace(/ [▲▼]$/, ""));
  assert.equal(chosen[1], "profile_url");
  assert.ok(!chosen.includes("headline"));
  await screenshot(page, "explore-columns");
  const lines = (await download(page, "Export JSON Lines")).trim().split("\n").map((l) => JSON.parse(l));
  assert.equal(lines.length, 100);
  assert.ok(lines.every((r) => !("headline" in r) && "profile_url" in r));
  const json = JSON.parse(await download(page, "Export JSON"));
  assert.equal(json.length, 100);
  assert.deepEqual(json.map((r) => r.name), await column(page, 1), "JSON in the view's order (sorted by name, descending)");

  const other = (await api(sandbox, "POST", "/v1/actions/premium-search-people/run/live", {
    key: `explore-b-${Date.now()}`, body: { input: { keywords: "explore again" }, max_results: 5 },
  })).json;
  await go(page, `/runs/${other.id}`);
  await page.locator('[data-field="output-table"] tbody tr').first().waitFor();
  const again = (await headings(page)).map((h) => h.trim());
  assert.equal(again[1], "profile_url", "the choice is kept for the action");
  assert.ok(!again.includes("headline"));
  await page.locator('[data-field="columns-panel"] summary').click();
  await page.getByRole("button", { name: "Reset the columns" }).click();
  assert.equal((await headings(page))[1].trim(), "name");
  assert.deepEqual(problems, []);
});

test("a bulk batch's results are explored together: each record with its row's line, input and run", async ({ signedIn: { page, problems } }) => {
  await go(page, "/bulk");
  await page.getByLabel("Action").selectOption("premium-search-people");
  const rows = ["keywords,max_results", "explore alpha,5", "explore bravo,5", "explore charlie,5"];
  await page.locator("#bulk-text").fill(rows.join("\n"));
  await page.locator('[data-field="start-batch"]').click();
  await page.locator('[data-field="batch"][data-phase="done"]').waitFor({ timeout: 60_000 });
  await page.locator('[data-field="explore-results"]').click();
  const results = page.locator('[data-field="explored-results"]');
  await results.locator('[data-field="output-table"] tbody tr').nth(14).waitFor();
  assert.equal(await results.locator('[data-field="output-table"] tbody tr').count(), 15);
  const heads = (await results.locator('[data-field="output-table"] thead th').allTextContents()).map((h) => h.trim());
  for (const name of ["line", "input.keywords", "run_id", "name"]) assert.ok(heads.includes(name), `${name} in ${heads.join(" | ")}`);
  await results.locator('[data-field="output-filter"]').fill("bravo");
  await page.waitForFunction(() => document.querySelectorAll('[data-field="explored-results"] [data-field="output-table"] tbody tr').length === 5);
  assert.match(await results.locator('[data-field="output-count"]').textContent(), /^5 of 15 records/);
  await screenshot(page, "explore-bulk");
  assert.deepEqual(problems, []);
});
