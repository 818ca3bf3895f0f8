// Comparing two runs: inputs side by side when known, records matched by identity with added,
// removed and changed records and fields marked; reached from a run's page ("Compare with…")
// and from two rows of the runs list. Headless Chromium against the sandbox.
import { expect, withSandbox } from "./fixtures.mjs";
import { screenshot, go, api, runFromForm, seriousViolations, signIn } from "./harness.mjs";

const test = withSandbox();

const rowsOf = (page, change) => page.locator(`[data-field="compare-table"] tbody tr[data-change="${change}"]`);

test("the same profile found for two inputs: the inputs side by side, the record changed field by field", async ({ signedIn: { page, problems } }) => {
  const url = "https://www.network.com/in/ada-compare";
  const a = await runFromForm(page, "/actions/premium-search-person", { "First name": "Ada", "Last name": "Lovelace", Company: "Analytical Engines", "Profile URL": url });
  const b = await runFromForm(page, "/actions/premium-search-person", { "First name": "Ada", "Last name": "Byron", Company: "Analytical Engines", "Profile URL": url });
  // From B's page: Compare with… A.
  await page.getByRole("button", { name: "Compare with…" }).click();
  await page.getByLabel("Compare with run").fill(a);
  await page.getByRole("button", { name: "Compare", exact: true }).click();
  await expect(page).toHaveURL(/\/runs\/compare\?a=/);
  await expect(page.locator('[data-field="compare-counts"]')).toHaveText(/^0 added, 0 removed, 1 changed, 0 the same/);
  const changed = rowsOf(page, "changed");
  await expect(changed).toHaveCount(1);
  await expect(changed).toContainText("profile_url: https://www.network.com/in/ada-compare");
  await expect(changed).toContainText("last_name: Byron → Lovelace");
  await expect(changed).toContainText("name: Ada Byron → Ada Lovelace");
  // Both inputs are known (both made here): only last_name differs.
  const differs = page.locator('[data-field="compare-inputs"] tr[data-differs="true"]');
  await expect(differs.locator("th")).toHaveText(["last_name"]);
  await expect(page.locator('[data-field="compare-inputs"] tr[data-differs="false"]')).toHaveCount(3);
  expect(await seriousViolations(page)).toEqual([]);
  await screenshot(page, "compare-changed");
  expect(problems).toEqual([]);
});

test("more results of the same search: the new records are added, the rest the same; two rows of the runs list open it", async ({ sandbox, signedIn: { page, problems } }) => {
  const made = [];
  for (const max of [3, 5]) {
    made.push((await api(sandbox, "POST", "/v1/actions/premium-search-people/run/live", {
      key: `compare-${max}-${Date.now()}`, body: { input: { keywords: "compare added" }, max_results: max },
    })).json);
  }
  await go(page, "/runs");
  await expect(page.locator(`tr[data-run="${made[0].id}"]`)).toBeVisible();
  for (const run of made) await page.getByLabel(`Select run ${run.id} to compare`).check();
  await page.getByRole("link", { name: "Compare the 2 selected runs" }).click();
  await expect(page).toHaveURL(/\/runs\/compare\?a=/);
  const counts = page.locator('[data-field="compare-counts"]');
  await expect(counts).toHaveText(/^2 added, 0 removed, 0 changed, 3 the same/);
  await expect(rowsOf(page, "added")).toHaveCount(2);
  await expect(rowsOf(page, "same"), "the unchanged are hidden at first").toHaveCount(0);
  await page.locator('[data-field="show-same"]').check();
  await expect(rowsOf(page, "same")).toHaveCount(3);
  // Neither input is known here (made through the API directly), and the page says so.
  await expect(page.locator('[data-field="input-unknown"]')).toBeVisible();
  // Swapped, the same records are removed instead.
  await page.getByRole("button", { name: "Swap A and B" }).click();
  await page.getByRole("button", { name: "Compare", exact: true }).click();
  await expect(counts).toHaveText(/^0 added, 2 removed/);
  await screenshot(page, "compare-removed");
  // A comparison is a link: opened anew (a reload, signing in again), it is the same.
  await page.reload();
  await signIn(page, sandbox.api_key);
  await expect(page).toHaveURL(/\/runs\/compare\?a=/);
  await expect(counts).toHaveText(/^0 added, 2 removed/);
  // A run id that does not exist is an error for that run, not a blank page.
  await go(page, `/runs/compare?a=${made[0].id}&b=no-such-run`);
  await expect(page.getByText("Loading run B")).toBeVisible();
  expect(problems.filter((p) => !p.includes("404"))).toEqual([]);
});
