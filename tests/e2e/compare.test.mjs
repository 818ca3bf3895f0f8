// Comparing two runs: inputs side by side when known, records matched by identity with added,
// removed and changed records and fields marked; reached from a run's page ("Compare with…")
// and from two rows of the runs list. Headless Chromium against the sandbox.
import assert from "node:assert/strict";
import { withSandbox } from "./fixtures.mjs";
import { screenshot, go, api, seriousViolations, signIn } from "./harness.mjs";

const test = withSandbox();

/** Submits the form at `path` with `fields` (labels to values), live; resolves with the run id. */
async function runFromForm(page, path, fields) {
  await go(page, path);
  for (const [label, value] of Object.entries(fields)) await page.getByLabel(new RegExp(`^${label}( \\(optional\\))?$`)).fill(value);
  await page.getByLabel("Live: wait for the result").check();
  await page.getByRole("button", { name: "Run live" }).click();
  await page.waitForURL(/\/runs\/[^/]+$/);
  await page.locator('.run-head [data-status="completed"]').waitFor({ timeout: 15_000 });
  return decodeURIComponent(new URL(page.url()).pathname.split("/").pop());
}

const rowsOf = (page, change) => page.locator(`[data-field="compare-table"] tbody tr[data-change="${change}"]`);

test("the same profile found for two inputs: the inputs side by side, the record changed field by field", async ({ signedIn: { page, problems } }) => {
  const url = "https://www.network.com/in/ada-compare";
  const a = await runFromForm(page, "/actions/premium-search-person", { "First name": "Ada", "Last name": "Lovelace", Company: "Analytical Engines", "Profile URL": url });
  const b = await runFromForm(page, "/actions/premium-search-person", { "First name": "Ada", "Last name": "Byron", Company: "Analytical Engines", "Profile URL": url });
  // From B's page: Compare with… A.
  await page.getByRole("button", { name: "Compare with…" }).click();
  await page.getByLabel("Compare with run").fill(a);
  await page.getByRole("button", { name: "Compare", exact: true }).click();
  await page.waitForURL(/\/runs\/compare\?a=/);
  await page.locator('[data-field="compare-counts"]').waitFor();
  assert.match(await page.locator('[data-field="compare-counts"]').textContent(), /^0 added, 0 removed, 1 changed, 0 the same/);
  const changed = rowsOf(page, "changed");
  assert.equal(await changed.count(), 1);
  assert.match(await changed.textContent(), /profile_url: https:\/\/www\.network\.com\/in\/ada-compare/);
  assert.match(await changed.textContent(), /last_name: Byron → Lovelace/);
  assert.match(await changed.textContent(), /name: Ada Byron → Ada Lovelace/);
  // Both inputs are known (both made here): only last_name differs.
  const differs = page.locator('[data-field="compare-inputs"] tr[data-differs="true"]');
  assert.deepEqual(await differs.locator("th").allTextContents(), ["last_name"]);
  assert.equal(await page.locator('[data-field="compare-inputs"] tr[data-differs="false"]').count(), 3);
  assert.deepEqual(await seriousViolations(page), []);
  await screenshot(page, "compare-changed");
  assert.deepEqual(problems, []);
});

test("more results of the same search: the new records are added, the rest the same; two rows of the runs list open it", async ({ sandbox, signedIn: { page, problems } }) => {
  const made = [];
  for (const max of [3, 5]) {
    made.push((await api(sandbox, "POST", "/v1/actions/premium-search-people/run/live", {
      key: `compare-${max}-${Date.now()}`, body: { input: { keywords: "compare added" }, max_results: max },
    })).json);
  }
  await go(page, "/runs");
  await page.locator(`tr[data-run="${made[0].id}"]`).waitFor();
  for (const run of made) await page.getByLabel(`Select run ${run.id} to compare`).check();
  await page.getByRole("link", { name: "Compare the 2 selected runs" }).click();
  await page.waitForURL(/\/runs\/compare\?a=/);
  await page.locator('[data-field="compare-counts"]').waitFor();
  assert.match(await page.locator('[data-field="compare-counts"]').textContent(), /^2 added, 0 removed, 0 changed, 3 the same/);
  assert.equal(await rowsOf(page, "added").count(), 2);
  assert.equal(await rowsOf(page, "same").count(), 0, "the unchanged are hidden at first");
  await page.locator('[data-field="show-same"]').check();
  assert.equal(await rowsOf(page, "same").count(), 3);
  // Neither input is known here (made through the API directly), and the page says so.
  await page.locator('[data-field="input-unknown"]').waitFor();
  // Swapped, the same records are removed instead.
  await page.getByRole("button", { name: "Swap A and B" }).click();
  await page.getByRole("button", { name: "Compare", exact: true }).click();
  await page.waitForFunction(() => /^0 added, 2 removed/.test(document.querySelector('[data-field="compare-counts"]')?.textContent ?? ""));
  await screenshot(page, "compare-removed");
  // A comparison is a link: opened anew (a reload, signing in again), it is the same.
  await page.reload();
  await signIn(page, sandbox.api_key);
  await page.waitForURL(/\/runs\/compare\?a=/);
  await page.waitForFunction(() => /^0 added, 2 removed/.test(document.querySelector('[data-field="compare-counts"]')?.textContent ?? ""));
  // A run id that does not exist is an error for that run, not a blank page.
  await go(page, `/runs/compare?a=${made[0].id}&b=no-such-run`);
  await page.getByText("Loading run B").waitFor();
  assert.deepEqual(problems.filter((p) => !p.includes("404")), []);
});
