// Spending safeguards end to end, against the sandbox: the sandbox asks nothing by default; a
// threshold set on /safeguards makes the form ask before a run above it, naming the environment,
// the worst case and its share of the credits available; Cancel and Escape send nothing, "Spend"
// sends one submission whose max_credits is the estimate shown; a run over what is available
// always asks; the header and the workspace page warn below the low-balance threshold, in every
// tab; bad thresholds are refused by their fields and change nothing.
import { expect, withSandbox } from "./fixtures.mjs";
import { screenshot, go, signIn, signInAt, startSandbox } from "./harness.mjs";

const test = withSandbox({ args: ["--queue-ms", "100", "--process-ms", "200"] });

/** Every submission the page sends, with its body. */
function trackSubmissions(page) {
  const sent = [];
  page.on("request", (r) => {
    if (r.method() === "POST" && /^\/v1\/actions\/[^/]+\/run\/(live|async)$/.test(new URL(r.url()).pathname)) {
      sent.push(r.postDataJSON());
    }
  });
  return sent;
}

const confirmation = (page) => page.getByRole("dialog");

/** Opens the form of a search whose worst case is its default 100 results' cost (above 50). */
async function openCostlyForm(page) {
  await go(page, "/actions/premium-search-people");
  await page.getByLabel("Keywords").fill("data engineer");
  await page.getByLabel("Async: queue it and watch the run").check();
  const estimate = Number((await page.locator('[data-field="estimate"]').textContent()).replaceAll(",", ""));
  expect(estimate).toBeGreaterThan(50);
  return estimate;
}

async function saveSafeguards(page, { askAbove, warnBelow }) {
  await go(page, "/safeguards");
  if (askAbove === undefined) {
    await page.getByLabel(/^The default for Sandbox/).check();
  } else {
    await page.getByLabel("Ask before a run or batch that may cost more than a threshold").check();
    await page.getByLabel("Threshold, in credits").fill(String(askAbove));
  }
  const warn = page.getByLabel("Warn in the header when the credits available fall below a threshold");
  if (warnBelow === undefined) {
    await warn.uncheck();
  } else {
    await warn.check();
    await page.getByLabel("Warn below, in credits").fill(String(warnBelow));
  }
  await page.getByRole("button", { name: "Save" }).click();
  await expect(page.locator('[data-field="safeguards-saved"]')).toHaveText("Saved for this workspace in this browser.");
}

test("the sandbox asks nothing by default; a threshold asks first, and only a yes sends", async ({ pages }) => {
  const { page, problems } = await pages.signedIn("/workspace");
  await expect(page.locator('[data-field="safeguards-summary"]')).toContainText(
    "Asks before a run only when it may cost more than is available; no low-balance warning.");
  const sent = trackSubmissions(page);

  // The sandbox's default: a costly run goes at once.
  await openCostlyForm(page);
  await page.getByRole("button", { name: "Queue run" }).click();
  await expect(page).toHaveURL(/\/runs\/[^/]+$/);
  expect(sent).toHaveLength(1);

  await saveSafeguards(page, { askAbove: 50 });
  const estimate = await openCostlyForm(page);
  const available = Number((await page.locator('[data-field="available"]').textContent()).replaceAll(",", ""));
  await page.getByRole("button", { name: "Queue run" }).click();
  const dialog = confirmation(page);
  await expect(dialog).toBeVisible();
  await expect(dialog.getByRole("heading")).toHaveText(`Spend up to ${estimate.toLocaleString("en-US")} credits on Sandbox?`);
  const share = estimate * 100 < available ? "under 1" : Math.ceil((estimate * 100) / available);
  await expect(dialog).toContainText(
    `This run may cost up to ${estimate.toLocaleString("en-US")} credits: ${share}% of the ${available.toLocaleString("en-US")} credits available. Sandbox spends no real credits.`);
  await expect(dialog).toContainText("Asked because it is more than 50 credits, this workspace's threshold in this browser.");
  // The safe answer has the focus.
  await expect(dialog.getByRole("button", { name: "Cancel" })).toBeFocused();
  await screenshot(page, "safeguards-confirm");

  // Cancel, then Escape: nothing is sent, the form stays as it was.
  await dialog.getByRole("button", { name: "Cancel" }).click();
  await expect(dialog).toHaveCount(0);
  await page.getByRole("button", { name: "Queue run" }).click();
  await expect(dialog).toBeVisible();
  await page.keyboard.press("Escape");
  await expect(dialog).toHaveCount(0);
  await expect(page.getByLabel("Keywords")).toHaveValue("data engineer");
  // Asserting that nothing happened: the two refusals sent no request.
  expect(sent).toHaveLength(1);

  // Yes: one submission, capped at the estimate the dialog named.
  await page.getByRole("button", { name: "Queue run" }).click();
  await dialog.getByRole("button", { name: `Spend up to ${estimate.toLocaleString("en-US")} credits` }).click();
  await expect(page).toHaveURL(/\/runs\/[^/]+$/);
  expect(sent).toHaveLength(2);
  expect(sent[1].max_credits).toBe(estimate);

  // Back to the sandbox's default: no question.
  await saveSafeguards(page, {});
  await openCostlyForm(page);
  await page.getByRole("button", { name: "Queue run" }).click();
  await expect(page).toHaveURL(/\/runs\/[^/]+$/);
  expect(sent).toHaveLength(3);
  expect(problems).toEqual([]);
});

test("a run that may cost more than is available always asks, and says so", async ({ pages }) => {
  // A sandbox whose workspace holds 50 credits: a people search's worst case at its default 100
  // results is more.
  const poor = await startSandbox({ args: ["--credits", "50"] });
  try {
    const { page, problems } = await pages.open();
    await signInAt(page, poor, "/actions/premium-search-people", poor.api_key);
    const sent = trackSubmissions(page);
    await page.getByLabel("Keywords").fill("data engineer");
    const estimate = await page.locator('[data-field="estimate"]').textContent();
    await expect(page.locator(".estimate")).toContainText("available: 50 · more than is available");
    await page.getByRole("button", { name: "Run live" }).click();
    const dialog = confirmation(page);
    await expect(dialog.getByRole("heading")).toHaveText(`Spend up to ${estimate} credits on Sandbox?`);
    await expect(dialog).toContainText(`This run may cost up to ${estimate} credits: more than the 50 credits available, so the API may refuse it.`);
    await expect(dialog).toContainText("Asked because it is more than the credits available.");
    await dialog.getByRole("button", { name: "Cancel" }).click();
    await expect(dialog).toHaveCount(0);
    // Asserting that nothing happened: Cancel sent no request.
    expect(sent).toHaveLength(0);
    expect(problems).toEqual([]);
  } finally {
    poor.stop();
  }
});

test("the header warns below the low-balance threshold, in every tab, and bad thresholds change nothing", async ({ sandbox, pages }) => {
  const { context, page, problems } = await pages.signedIn("/workspace");
  const header = page.locator(".header-credits");
  await expect(header).toBeVisible();
  await expect(page.locator('[data-field="low-balance"]')).toHaveCount(0);

  // Bad input: each field says why, and nothing is kept.
  await go(page, "/safeguards");
  await page.getByLabel("Ask before a run or batch that may cost more than a threshold").check();
  await page.getByLabel("Threshold, in credits").fill("0");
  await page.getByLabel("Warn in the header when the credits available fall below a threshold").check();
  await page.getByLabel("Warn below, in credits").fill("lots");
  await page.getByRole("button", { name: "Save" }).click();
  await expect(page.getByText("Threshold must be a whole number of credits from 1 to 300,000")).toBeVisible();
  await expect(page.getByText("Warn below must be a whole number of credits from 1 to 1,000,000,000")).toBeVisible();
  await expect(page.getByLabel("Threshold, in credits")).toBeFocused();
  await screenshot(page, "safeguards-errors");
  await expect(page.locator('[data-field="safeguards-saved"]')).toHaveText("");
  await go(page, "/workspace");
  await expect(page.locator('[data-field="safeguards-summary"]')).toContainText("no low-balance warning");

  // A second tab of the same browser, signed in to the same workspace, follows a save at once.
  const other = await context.newPage();
  await other.goto(`${sandbox.url}/sign-in`);
  await signIn(other, sandbox.api_key);
  await expect(other.locator(".header-credits")).toBeVisible();
  await expect(other.locator('[data-field="low-balance"]')).toHaveCount(0);

  await saveSafeguards(page, { askAbove: 5000, warnBelow: 1_000_000 });
  await expect(page.locator('[data-field="low-balance"]')).toBeVisible();
  await expect(other.locator('[data-field="low-balance"]')).toBeVisible();
  await other.close();
  await expect(header).toHaveAttribute("title", /^Low balance: [\d,]+ credits available, below the 1,000,000 you asked to be warned at\.$/);
  await go(page, "/workspace");
  await expect(page.locator('[data-field="low-balance-notice"]')).toContainText("below the 1,000,000 you asked to be warned at");
  await expect(page.locator('[data-field="safeguards-summary"]')).toHaveText(
    "Asks before a run that may cost more than 5,000 credits; warns below 1,000,000 credits. Spending safeguards");
  await screenshot(page, "safeguards-low-balance");

  // Taken off again.
  await saveSafeguards(page, { askAbove: 5000 });
  await expect(page.locator('[data-field="low-balance"]')).toHaveCount(0);
  expect(problems).toEqual([]);
});

test("a bulk batch asks above the threshold, pauses at its budget with nothing sent past it, and goes on when raised", async ({ pages }) => {
  const { page, problems } = await pages.signedIn("/workspace");
  await saveSafeguards(page, { askAbove: 20 });
  const sent = trackSubmissions(page);
  // Ten rows of up to 10 results, 10 credits at worst each.
  await go(page, "/bulk");
  await page.getByLabel("Action").selectOption("network-search-companies");
  const lines = ["keywords,max_results", ...Array.from({ length: 10 }, (_, i) => `budget ${i + 1},10`)];
  await page.locator("#bulk-text").fill(lines.join("\n"));
  await expect(page.locator('[data-field="worst-case"]')).toHaveText("100");
  const budget = page.getByLabel("Budget, in credits (optional)");
  await expect(budget).toHaveAttribute("placeholder", "100");
  await budget.fill("0");
  await page.locator('[data-field="start-batch"]').click();
  await expect(page.getByText("Budget must be a whole number of credits from 1 to 3,000,000,000")).toBeVisible();
  await expect(budget).toBeFocused();
  await budget.fill("45");

  // Above the threshold: the question names the batch, its budget and the environment.
  await page.locator('[data-field="start-batch"]').click();
  const dialog = confirmation(page);
  await expect(dialog.getByRole("heading")).toHaveText("Spend up to 45 credits on Sandbox?");
  await expect(dialog).toContainText("This batch of 10 rows may spend up to its budget of 45 credits");
  await dialog.getByRole("button", { name: "Cancel" }).click();
  await expect(dialog).toHaveCount(0);
  await expect(page.locator('[data-field="batch"]')).toHaveCount(0);
  await page.locator('[data-field="start-batch"]').click();
  await dialog.getByRole("button", { name: "Spend up to 45 credits" }).click();

  // Four rows fit in 45 credits; the fifth (line 6) would pass it: the batch pauses before it.
  const reason = page.locator('[data-field="paused-reason"]');
  await expect(reason).toHaveText(
    "Paused at the budget: line 6 may cost up to 10 credits and 5 of the 45-credit budget is left. Raise the budget to go on.",
    { timeout: 20_000 });
  await expect(page.locator('[data-count="completed"] dd')).toHaveText("4", { timeout: 20_000 });
  await expect(page.locator('[data-field="batch-spending"]')).toHaveText(/^Credits: budget 45 · charged \d+ · reserved 0 · left \d+$/);
  await screenshot(page, "bulk-budget-paused");
  expect(sent).toHaveLength(4);
  for (const body of sent) expect(body.max_credits).toBe(10);

  // Raised, then resumed: the rest goes, each row still within what is left.
  await page.getByLabel("New budget, in credits").fill("100");
  await page.locator('[data-field="set-budget"]').click();
  await expect(page.locator('[data-field="batch-spending"]')).toContainText("budget 100 ·");
  await page.getByRole("button", { name: "Resume" }).click();
  await expect(page.locator('[data-field="batch"]')).toHaveAttribute("data-phase", "done", { timeout: 30_000 });
  expect(sent).toHaveLength(10);
  expect(new Set(sent.map((b) => JSON.stringify(b.input))).size).toBe(10);
  expect(problems.filter((p) => !/status of 429/.test(p))).toEqual([]);
});
