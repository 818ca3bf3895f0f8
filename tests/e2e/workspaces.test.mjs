// Several workspaces in one tab, against the sandbox's two (Acme Research and Globex Analytics):
// the person signs in to the second from the header without signing out; a bulk batch of the
// first keeps running with its own credential while the second is in view; each workspace's
// runs list, request log and drafts are its own; signing out of one, or the API refusing one,
// leaves the other to switch to; axe on the switcher and sign-in's list, both themes, 375 px.
import { expect, withSandbox } from "./fixtures.mjs";
import { api, csvLine, go, screenshot, seriousViolations, settled } from "./harness.mjs";

// Paced at 4 submissions a second, so a batch of 90 rows is still sending (about 22 s) while
// the test looks at the second workspace.
const test = withSandbox({ args: ["--queue-ms", "60", "--process-ms", "120", "--rate-burst", "4", "--rate-per-sec", "4"] });


/**
 * Starts a batch of `rows` rows of `action` on the bulk page: its one input `column` reads
 * "`label` 1", "`label` 2", …, one result each. Resolves once the batch is running.
 */
async function startBatch(page, { action, column, label, rows }) {
  const lines = [csvLine([column, "max_results"])];
  for (let i = 1; i <= rows; i++) lines.push(csvLine([`${label} ${i}`, 1]));
  await page.getByLabel("Action").selectOption(action);
  await page.locator("#bulk-text").fill(lines.join("\n"));
  await page.locator('[data-field="start-batch"]').click();
  await expect(page.locator('[data-field="batch"]')).toHaveAttribute("data-phase", "running");
}

/** Signs in to one more workspace from the header's list, without signing out. */
async function addSignIn(page, credential) {
  await page.locator('[data-field="switcher"]').click();
  await page.locator('[data-field="add-sign-in"]').click();
  await expect(page.getByRole("heading", { name: "Sign in to another workspace" })).toBeVisible();
  await page.locator("#credential").fill(credential);
  await page.getByRole("button", { name: "Sign in", exact: true }).click();
  await expect(page).toHaveURL((url) => url.pathname !== "/sign-in");
  await settled(page);
}

/** Puts the sign-in to the workspace `name` in use from the header's list. */
async function switchTo(page, name) {
  await page.locator('[data-field="switcher"]').click();
  await page.locator("#switcher-menu .switcher-item", { hasText: name }).getByRole("button", { name: "Switch" }).click();
  await expect(page.locator(".header-credits")).toContainText(name);
  await settled(page);
}

/** The ids of the runs the runs page lists. */
const listedRuns = (page) => page.locator("tr[data-run]").evaluateAll((rows) => rows.map((r) => r.dataset.run));

/** The runs of a workspace, as its own credential sees them through the API. */
const runsOf = async (sandbox, bearer) => (await api(sandbox, "GET", "/v1/runs", { bearer })).json.runs;

async function axeClean(page, state) {
  expect((await seriousViolations(page)).map((v) => `${state}: ${v}`)).toEqual([]);
}

test("a batch of one workspace runs on while another is in view, and each lists only its own runs", async ({ sandbox, pages }) => {
  const globex = sandbox.workspaces.find((w) => w.workspace_id === "ws_globex");
  // A run of Globex's own, made by another client of it.
  const globexRun = (await api(sandbox, "POST", "/v1/actions/network-search-companies/run/async", {
    bearer: globex.api_key, key: "globex-own-run", body: { input: { keywords: "globex own" }, max_results: 1, max_credits: 5 },
  })).json;
  expect(globexRun.id).toBeTruthy();

  const { page, problems } = await pages.signedIn("/bulk");
  // Fewer than the 100 runs `GET /v1/runs` lists, so the API's list counts them all.
  const rows = 90;
  await startBatch(page, { action: "network-search-companies", column: "keywords", label: "acme batch", rows });

  // Globex, signed in from the header: the bulk page is Globex's, with a word on Acme's batch.
  await addSignIn(page, globex.api_key);
  await expect(page).toHaveURL(/\/bulk$/);
  await expect(page.locator(".header-credits")).toContainText("Globex Analytics");
  await expect(page.locator('[data-field="batch-elsewhere"]')).toContainText("This tab is running a batch for Acme Research");
  await expect(page.locator('[data-field="batch"]')).toHaveCount(0);
  await page.locator('[data-field="switcher"]').click();
  const acmeItem = page.locator("#switcher-menu .switcher-item", { hasText: "Acme Research" });
  await expect(acmeItem).toContainText("bulk batch running");
  await expect(page.locator("#switcher-menu .switcher-item", { hasText: "Globex Analytics" })).toHaveAttribute("data-in-use", "true");
  await screenshot(page, "workspaces-switcher");
  await axeClean(page, "switcher open");
  await page.keyboard.press("Escape");

  // Globex's runs page lists Globex's run and none of Acme's batch, while that batch goes on.
  await go(page, "/runs");
  await expect(page.locator(`tr[data-run="${globexRun.id}"]`)).toBeVisible();
  // Acme makes no other run of this action in this test.
  const acmeBatchRuns = async () => (await runsOf(sandbox, sandbox.api_key)).filter((r) => r.action === "network-search-companies");
  // The batch goes on with Acme's credential while Globex is in view, and finishes: every row
  // once.
  const sentSoFar = (await acmeBatchRuns()).length;
  expect(sentSoFar, "the batch is still sending when Globex is in view").toBeLessThan(rows);
  await expect.poll(async () => (await acmeBatchRuns()).length, { timeout: 60_000 }).toBeGreaterThan(sentSoFar);
  await expect(page.locator(".header-credits")).toContainText("Globex Analytics");
  await expect.poll(async () => (await acmeBatchRuns()).length, { timeout: 90_000 }).toBe(rows);
  const acmeIds = new Set((await runsOf(sandbox, sandbox.api_key)).map((r) => r.id));
  await go(page, "/runs");
  await expect(page.locator(`tr[data-run="${globexRun.id}"]`)).toBeVisible();
  expect((await listedRuns(page)).filter((id) => acmeIds.has(id))).toEqual([]);
  expect((await runsOf(sandbox, globex.api_key)).map((r) => r.id)).toEqual([globexRun.id]);
  // Globex's request log holds none of the batch's submissions.
  await go(page, "/log");
  await expect(page.locator("tr[data-entry]").first()).toBeVisible();
  await expect(page.locator("tr[data-entry]", { hasText: "/v1/actions/network-search-companies/run/async" })).toHaveCount(0);

  // Back to Acme: its batch, done, and its runs without Globex's.
  await switchTo(page, "Acme Research");
  await expect(page).toHaveURL(/\/log$/);
  await expect(page.locator("tr[data-entry]", { hasText: "/v1/actions/network-search-companies/run/async" }).first()).toBeVisible();
  await go(page, "/bulk");
  await expect(page.locator('[data-field="batch"]')).toHaveAttribute("data-phase", "done", { timeout: 30_000 });
  await expect(page.locator('[data-field="batch-finished"]')).toContainText(`${rows} of ${rows} rows finished`);
  await go(page, "/runs");
  await expect(page.locator("tr[data-run]").first()).toBeVisible();
  expect(await listedRuns(page)).not.toContain(globexRun.id);
  expect((await listedRuns(page)).every((id) => acmeIds.has(id))).toBe(true);
  expect(problems.filter((p) => !p.includes("status of 429"))).toEqual([]);
});

test("drafts are per workspace; a switch leaves a run page of the other workspace", async ({ sandbox, pages }) => {
  const globex = sandbox.workspaces.find((w) => w.workspace_id === "ws_globex");
  const { page, problems } = await pages.signedIn("/actions/network-search-companies");
  await page.getByLabel("Keywords").fill("acme draft");
  await addSignIn(page, globex.api_key);
  await expect(page).toHaveURL(/\/actions\/network-search-companies$/);
  await expect(page.getByLabel("Keywords")).toHaveValue("");
  await page.getByLabel("Keywords").fill("globex draft");
  await switchTo(page, "Acme Research");
  await expect(page.getByLabel("Keywords")).toHaveValue("acme draft");
  await switchTo(page, "Globex Analytics");
  await expect(page.getByLabel("Keywords")).toHaveValue("globex draft");

  // A run page names a run of the workspace in view: a switch goes to the runs list.
  const acmeRun = (await api(sandbox, "POST", "/v1/actions/network-search-companies/run/async", {
    key: "acme-run-for-switch", body: { input: { keywords: "acme run" }, max_results: 1, max_credits: 5 },
  })).json;
  await switchTo(page, "Acme Research");
  await go(page, `/runs/${acmeRun.id}`);
  await expect(page.locator('[data-field="run-id"]')).toHaveText(acmeRun.id);
  await switchTo(page, "Globex Analytics");
  await expect(page).toHaveURL(/\/runs$/);
  expect(problems).toEqual([]);
});

test("signing out of one, or the API refusing one, leaves the other to switch to", async ({ sandbox, pages }) => {
  const globex = sandbox.workspaces.find((w) => w.workspace_id === "ws_globex");
  // A key of Globex's own to revoke, made with its account session.
  const made = (await api(sandbox, "POST", "/v1/keys", { bearer: globex.session_token, body: { name: "to revoke" } })).json;
  const { page, problems } = await pages.signedIn("/workspace", { viewport: { width: 375, height: 800 } });
  await addSignIn(page, made.api_key);
  await expect(page.locator(".header-credits")).toContainText("Globex Analytics");

  // The API refuses Globex's key: that sign-in ends with a word why; Acme's stays.
  expect((await api(sandbox, "DELETE", `/v1/keys/${made.id}`, { bearer: globex.session_token })).status).toBe(204);
  await go(page, "/runs");
  await expect(page).toHaveURL(/\/sign-in/);
  await expect(page.locator('[data-field="session-notice"]')).toBeVisible();
  const list = page.locator('main [data-field="sign-ins"] .switcher-item');
  await expect(list).toHaveCount(1);
  await expect(list).toContainText("Acme Research");
  await screenshot(page, "workspaces-sign-in-list-375");
  await axeClean(page, "sign-in with the list, light, 375");
  await page.emulateMedia({ colorScheme: "dark" });
  await axeClean(page, "sign-in with the list, dark, 375");
  await list.getByRole("button", { name: "Switch" }).click();
  await expect(page).toHaveURL(/\/runs$/);
  await expect(page.locator(".header-credits")).toContainText("Acme Research");
  await page.locator('[data-field="switcher"]').click();
  await axeClean(page, "switcher open, dark, 375");
  await expect(page.locator("#switcher-menu .switcher-item")).toHaveCount(1);
  await page.keyboard.press("Escape");

  // Globex again, then signed out of: Acme is left, not in use until the person picks it.
  await addSignIn(page, globex.api_key);
  await page.getByRole("button", { name: "Sign out…" }).click();
  await page.getByRole("group", { name: "Sign out" }).getByRole("button", { name: "Sign out", exact: true }).click();
  await expect(page).toHaveURL(/\/sign-in/);
  await expect(page.getByRole("heading", { name: "Sign in", exact: true })).toBeVisible();
  await expect(list).toHaveCount(1);
  await expect(list).toContainText("Acme Research");
  expect(problems.filter((p) => !p.includes("status of 401"))).toEqual([]);
});

test("a key refused mid-batch ends only its own sign-in; the batch goes on with another sign-in to its workspace", async ({ sandbox, pages }) => {
  // Acme's key to revoke, made with its account session; the batch starts with it.
  const made = (await api(sandbox, "POST", "/v1/keys", { bearer: sandbox.session_token, body: { name: "batch key" } })).json;
  const { page, problems } = await pages.signedIn("/bulk", { credential: made.api_key });
  const rows = 60;
  await startBatch(page, { action: "network-search-schools", column: "query", label: "refused batch", rows });
  // The same workspace with the account session, in use now.
  await addSignIn(page, sandbox.session_token);
  await expect(page.locator('[data-field="batch"]')).toHaveAttribute("data-phase", "running");
  const batchRuns = async () => (await runsOf(sandbox, sandbox.api_key)).filter((r) => r.action === "network-search-schools");
  expect((await batchRuns()).length).toBeLessThan(rows);

  expect((await api(sandbox, "DELETE", `/v1/keys/${made.id}`, { bearer: sandbox.session_token })).status).toBe(204);
  // The refused key's sign-in ends; the session's stays in use, and the batch finishes with it:
  // every row once, the refused ones sent again with their keys.
  await page.locator('[data-field="switcher"]').click();
  await expect(page.locator("#switcher-menu .switcher-item")).toHaveCount(1);
  await expect(page.locator("#switcher-menu .switcher-item")).toContainText("Session · admin@acme.example");
  await page.keyboard.press("Escape");
  await expect(page.locator('[data-field="switcher"]')).toBeFocused();
  await expect(page.locator('[data-field="batch"]')).toHaveAttribute("data-phase", "done", { timeout: 90_000 });
  await expect(page.locator('[data-field="batch-finished"]')).toContainText(`${rows} of ${rows} rows finished`);
  expect((await batchRuns()).length).toBe(rows);
  await expect(page).toHaveURL(/\/bulk$/);
  expect(problems.filter((p) => !p.includes("status of 401") && !p.includes("status of 429"))).toEqual([]);
});
