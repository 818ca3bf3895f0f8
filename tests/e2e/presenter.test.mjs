// Presenter mode (issue 48): with the header's switch on, no text that can identify or describe a
// person is anywhere in the page: not in its text (hidden parts included), not in any attribute,
// not in a field's value, not in the tab's title, and not in what a copy button copies. The
// texts looked for are every record and input the sandbox returned or was sent in this test, read
// through the API, by the console's own rule (src/model/presenter.rs: everything but numbers,
// dates and the listed fields). Switched off, the same scan finds them: the scan can fail.
import { readFile } from "node:fs/promises";
import { expect, withSandbox } from "./fixtures.mjs";
import { api, go, runFromForm, screenshot, scrollThroughRows, seriousViolations } from "./harness.mjs";
import { leaks, workspaceTexts } from "./personal.mjs";

const test = withSandbox({ args: ["--queue-ms", "60", "--process-ms", "120"] });

/** Clicks each visible button named Copy… in `scope` and checks what reached the clipboard. */
async function copiesLeakNothing(page, scope, texts) {
  const buttons = scope.getByRole("button", { name: /^Copy/ });
  const count = await buttons.count();
  expect(count).toBeGreaterThan(0);
  for (let i = 0; i < count; i++) {
    const button = buttons.nth(i);
    if (!(await button.isVisible())) continue;
    await page.evaluate(() => navigator.clipboard.writeText("nothing copied yet"));
    await button.click();
    await expect.poll(() => page.evaluate(() => navigator.clipboard.readText())).not.toBe("nothing copied yet");
    const copied = await page.evaluate(() => navigator.clipboard.readText());
    expect([...texts].filter((t) => copied.includes(t)), `copied by "${await button.textContent()}"`).toEqual([]);
  }
}


test("presenter mode: no personal text on any page, in any attribute, the title or a copy; off again, they show", async ({ sandbox, pages }) => {
  test.setTimeout(240_000);
  const { context, page, problems } = await pages.signedIn("/workspace", { credential: sandbox.session_token });
  await context.grantPermissions(["clipboard-read", "clipboard-write"]);
  const personA = { "First name": "Ada", "Last name": "Lovelace", Company: "Analytical Engines", "Profile URL": "https://www.network.com/in/ada-presenter" };
  const personB = { ...personA, "Last name": "Byron" };
  const runA = await runFromForm(page, "/actions/premium-search-person", personA);
  const runB = await runFromForm(page, "/actions/premium-search-person", personB);
  // A failed run whose message quotes its input.
  const failed = await runFromForm(page, "/actions/network-extract-people", { Identifier: "unknown-presenter-person" }, { until: "failed" });
  await expect(page.locator('[data-field="run-error"]')).toContainText("unknown-presenter-person");
  await go(page, "/keys");
  await page.getByLabel("New key's name").fill("Grace Hopper's laptop");
  await page.getByRole("button", { name: "Create key" }).click();
  await page.getByRole("dialog").getByRole("button", { name: "I have stored it" }).click();

  // On: the switch, the band, and a batch prepared and run with it on.
  await page.locator('[data-field="presenter-toggle"]').click();
  await expect(page.locator('[data-field="presenter-band"]')).toBeVisible();
  await expect(page.locator('[data-field="presenter-toggle"]')).toHaveAttribute("aria-pressed", "true");
  // The credential in use by its kind alone, without the session's subject.
  await expect(page.locator('[data-field="switcher"] .credential')).toHaveText("Account session");
  const bulkInputs = ["grace hopper compilers", "katherine johnson orbits", "grace hopper compilers"];
  await go(page, "/bulk");
  await page.getByLabel("Action").selectOption("premium-search-people");
  await page.locator("#bulk-text").fill(["keywords", ...bulkInputs].join("\n"));
  await expect(page.locator('[data-field="masked-rows"]')).toBeVisible();
  await expect(page.locator('[data-field="repeated-rows"]')).toBeVisible();
  let texts = await workspaceTexts(sandbox, [Object.values(personA), Object.values(personB), "unknown-presenter-person", bulkInputs]);
  expect(await leaks(page, texts), "/bulk, prepared").toEqual([]);
  await screenshot(page, "presenter-bulk-prepare");
  await page.locator('[data-field="start-batch"]').click();
  await expect(page.locator('[data-field="batch"][data-phase="done"]')).toBeVisible({ timeout: 60_000 });
  // Every text the API now has, the batch's records included.
  texts = await workspaceTexts(sandbox, [Object.values(personA), Object.values(personB), "unknown-presenter-person", bulkInputs]);
  expect(texts.size).toBeGreaterThan(40);

  expect(await leaks(page, texts), "/bulk, done").toEqual([]);
  await page.locator('[data-field="explore-results"]').click();
  await expect(page.locator('[data-field="explored-results"] [data-field="output-table"] tbody tr').first()).toBeVisible();
  expect(await leaks(page, texts), "/bulk, results explored").toEqual([]);
  // The records that scroll into view, masked too: every row's text as it is drawn, and the
  // page as it stands at the end of the table.
  const explored = page.locator('[data-field="explored-results"] [data-field="output-table"]');
  const { rows } = await scrollThroughRows(explored);
  expect(rows.filter((row) => row === null)).toEqual([]);
  const drawnTexts = rows.flat().join("\n");
  expect([...texts].filter((text) => drawnTexts.includes(text)), "/bulk, results, every row drawn").toEqual([]);
  await explored.evaluate((table) => { const box = table.closest(".windowed"); box.scrollTop = box.scrollHeight; });
  await expect(explored.locator(`tbody tr[aria-rowindex="${rows.length + 1}"]`)).toBeVisible();
  // A jump draws placeholders until the view is still; then the rows themselves.
  await expect(explored.locator("tbody tr[data-placeholder]")).toHaveCount(0);
  expect(await leaks(page, texts), "/bulk, results, scrolled to the end").toEqual([]);
  // A row in view (the table's first row in the document is one drawn beyond the view's edge:
  // clicking it scrolls the table, and the window moves under the click).
  await copiesLeakNothing(page, explored.locator(`tbody tr[aria-rowindex="${rows.length + 1}"]`), texts);
  // The filter goes by the values shown, and says so: a real value of the batch's records finds
  // none of them (searching the real ones would tell a hidden value), its masked form finds it.
  const filterBox = page.locator('[data-field="explored-results"] [data-field="output-filter"]');
  await expect(filterBox).toHaveAttribute("placeholder", "Filter the masked values");
  await expect(filterBox).toHaveAttribute("title", /^Presenter mode is on: the filter and the sort use the values as shown/);
  const countLine = page.locator('[data-field="explored-results"] [data-field="output-count"]');
  const everyRecord = await countLine.textContent();
  const listed = (await api(sandbox, "GET", "/v1/runs", { bearer: sandbox.session_token })).json.runs;
  let record;
  for (const run of listed.filter((run) => run.action === "premium-search-people" && run.status === "completed")) {
    record ??= (await api(sandbox, "GET", `/v1/runs/${run.id}`, { bearer: sandbox.session_token })).json.output[0];
  }
  const realValue = Object.values(record).find((value) => typeof value === "string" && value.length >= 4 && texts.has(value));
  expect(drawnTexts.includes(realValue), "the real value is not drawn").toBe(false);
  await filterBox.fill(realValue);
  await expect(countLine).toHaveText(/^0 of /);
  const maskedValue = rows[0].map((cell) => cell.trim()).find((cell) => cell.length >= 4 && !texts.has(cell));
  await filterBox.fill(maskedValue);
  await expect(countLine).not.toHaveText(/^0 of /);
  await filterBox.fill("");
  await expect(countLine).toHaveText(everyRecord);
  await screenshot(page, "presenter-bulk-done");
  // An export asks first, and says what the file holds; "Do not export" writes nothing.
  await page.locator('[data-field="export-csv"]').click();
  const question = page.locator('[data-field="confirm-real-data"]');
  await expect(question).toContainText("The file will hold real data");
  await expect(question).toContainText("every row of the batch");
  await question.getByRole("button", { name: "Do not export" }).click();
  await expect(question).toHaveCount(0);
  await page.locator('[data-field="export-csv"]').click();
  const [download] = await Promise.all([page.waitForEvent("download"), question.getByRole("button", { name: "Export the real data" }).click()]);
  const exported = await readFile(await download.path(), "utf8");
  expect(exported).toContain("katherine johnson orbits");
  // The repeated row (line 4) exports its first row's records (line 2's), though it is read in
  // a slice of its own (rows of 100 records: the first slice holds two rows).
  const linesOf = (line) => exported.split("\r\n").filter((l) => l.startsWith(`${line},`)).length;
  expect(linesOf(2)).toBeGreaterThan(1);
  expect(linesOf(4), "line 4's records, as line 2's").toBe(linesOf(2));

  // Every page, and the parts of each that open on request.
  await go(page, `/runs/${runA}`);
  await expect(page.locator('[data-field="output-table"] tbody tr').first()).toBeVisible();
  await page.locator('[data-field="how-made"] summary').click();
  expect(await leaks(page, texts), "run page").toEqual([]);
  await expect(page.locator('[data-field="output-table"]').getByRole("link")).toHaveCount(0); // chained actions hidden
  await copiesLeakNothing(page, page.locator("main"), texts);
  await screenshot(page, "presenter-run");
  await page.getByRole("button", { name: "JSON", exact: true }).click();
  await expect(page.locator('[data-field="output-json"]')).toBeVisible();
  expect(await leaks(page, texts), "run page, JSON").toEqual([]);
  await page.getByRole("button", { name: "Export JSON", exact: true }).click();
  await expect(page.locator('[data-field="confirm-real-data"]')).toContainText("1 record");
  await page.getByRole("button", { name: "Do not export" }).click();
  // Run again: the form holds the run's input, masked, until replaced.
  await page.locator('[data-field="run-again"]').click();
  await expect(page).toHaveURL(/\/actions\/premium-search-person$/);
  await expect(page.locator('input[data-masked="true"]')).toHaveCount(4);
  await page.locator("details.preview summary").click();
  expect(await leaks(page, texts), "form, run again").toEqual([]);
  await copiesLeakNothing(page, page.locator("details.preview"), texts);
  await screenshot(page, "presenter-form");
  await page.getByRole("button", { name: "Replace" }).first().click();
  await expect(page.getByLabel("First name")).toHaveValue("");
  await expect(page.getByLabel("First name")).toBeFocused();

  await go(page, `/runs/${failed}`);
  await expect(page.locator('[data-field="run-error"]')).toBeVisible();
  // Only the message's personal part is masked: the demo still reads what went wrong.
  await expect(page.locator('[data-field="run-error"] .error-message')).toHaveText(/^No public profile matches the identifier “u••• \([a-z2-9]{2}\)”\.$/);
  expect(await leaks(page, texts), "failed run").toEqual([]);
  await copiesLeakNothing(page, page.locator('[data-field="run-error"]'), texts);

  await go(page, `/runs/compare?a=${runA}&b=${runB}`);
  await expect(page.locator('[data-field="compare-counts"]')).toHaveText(/1 changed/);
  await page.locator('[data-field="show-same"]').check();
  expect(await leaks(page, texts), "compare").toEqual([]);
  await screenshot(page, "presenter-compare");

  await go(page, "/log");
  const entry = page.locator("tbody tr", { hasText: "/v1/actions/premium-search-person/run/live" }).first();
  await entry.getByRole("link").click();
  await expect(page.locator('[data-field="answer-body"]')).toBeVisible();
  await expect(page.locator('[data-field="request-body"]')).toBeVisible();
  expect(await leaks(page, texts), "log entry").toEqual([]);
  await copiesLeakNothing(page, page.locator("main"), texts);
  await screenshot(page, "presenter-log-entry");

  for (const path of ["/workspace", "/actions", "/runs", "/log", "/credits", "/keys", "/storage", "/safeguards"]) {
    await go(page, path);
    await expect(page.locator("main h1").first()).toBeVisible();
    // What each page reads from the API or the store is on screen before the scan.
    if (path === "/runs") await expect(page.locator(`tr[data-run="${runA}"]`).first()).toBeVisible();
    if (path === "/keys") await expect(page.locator('[data-field="key-name"]').first()).toBeVisible();
    if (path === "/credits") await expect(page.locator("[data-field=\"credits-table\"] tbody tr").first()).toBeAttached();
    expect(await leaks(page, texts), path).toEqual([]);
  }
  await go(page, "/keys");
  await expect(page.locator('[data-field="key-name"]').first()).toBeVisible();
  await screenshot(page, "presenter-keys");
  // The question before revoking names the key, masked.
  await page.locator('[data-field="keys-table"]').getByRole("button", { name: /^Revoke key/ }).first().click();
  await expect(page.locator('[data-field="confirm-revoke"]')).toBeVisible();
  expect(await leaks(page, texts), "revoke question").toEqual([]);
  await page.getByRole("button", { name: "Keep it" }).click();
  // A new key's secret is not drawn either; Copy still copies it.
  await page.getByLabel("New key's name").fill("Alan Turing's server");
  await page.getByRole("button", { name: "Create key" }).click();
  const dialog = page.getByRole("dialog");
  await expect(dialog.locator('[data-field="new-secret"]')).toHaveText(/Hidden in presenter mode/);
  expect(await leaks(page, ["Alan Turing"]), "key dialog").toEqual([]);
  await dialog.getByRole("button", { name: "Copy" }).click();
  await expect.poll(() => page.evaluate(() => navigator.clipboard.readText())).toMatch(/^[A-Za-z0-9_]{20,}$/);
  await dialog.getByRole("button", { name: "I have stored it" }).click();
  expect(await seriousViolations(page)).toEqual([]);

  // It lasts: a new tab of the console starts with it on.
  const other = await context.newPage();
  await other.goto(`${sandbox.url}/sign-in`);
  await expect(other.locator('[data-field="presenter-band"]')).toBeVisible();
  // The shortcut switches it off, in this tab and the other.
  await page.keyboard.press("Alt+Shift+P");
  await expect(page.locator('[data-field="presenter-band"]')).toHaveCount(0);
  await expect(other.locator('[data-field="presenter-band"]')).toHaveCount(0);
  await other.close();

  // Off: the same scan finds the records and the input again (the scan can fail).
  await go(page, `/runs/${runA}`);
  await expect(page.locator('[data-field="output-table"] tbody tr').first()).toBeVisible();
  await expect(page.locator('[data-field="output-table"]')).toContainText("Lovelace");
  expect((await leaks(page, texts)).length).toBeGreaterThan(3);
  await go(page, "/keys");
  await expect(page.locator('[data-field="key-name"]').getByText("Grace Hopper's laptop")).toBeVisible();
  expect(problems).toEqual([]);
});

test("switching presenter mode on keeps what was typed in a form, shown masked; a reload keeps it on", async ({ pages }) => {
  const { page, problems } = await pages.signedIn("/actions/premium-search-people");
  await page.getByLabel("Keywords").fill("margaret hamilton apollo");
  await page.keyboard.press("Alt+Shift+P");
  await expect(page.locator('[data-field="presenter-band"]')).toBeVisible();
  const masked = page.locator('input[data-masked="true"]');
  await expect(masked).toHaveCount(1);
  expect(await leaks(page, ["margaret", "hamilton"])).toEqual([]);
  // Off again: the draft is whole.
  await page.locator('[data-field="presenter-toggle"]').click();
  await expect(page.getByLabel("Keywords")).toHaveValue("margaret hamilton apollo");
  await page.locator('[data-field="presenter-toggle"]').click();
  await page.reload();
  await expect(page.locator('[data-field="presenter-band"]')).toBeVisible();
  await expect(page.locator('[data-field="presenter-toggle"]')).toHaveAttribute("aria-pressed", "true");
  expect(problems).toEqual([]);
});
