// API keys end to end: list, create with the secret shown once, revoke, the rules for who may,
// name validation and hostile names; and the workspace's credits over time, checked against
// the sums of GET /v1/runs. Headless Chromium against the sandbox.
import { expect, withSandbox } from "./fixtures.mjs";
import { screenshot, signIn, go, api, besides } from "./harness.mjs";

const test = withSandbox({ args: ["--queue-ms", "200", "--process-ms", "400"] });

/** Every request the page sends to /v1/keys, by method. */
function trackKeyRequests(page) {
  const sent = [];
  page.on("request", (r) => {
    const path = new URL(r.url()).pathname;
    if (path.startsWith("/v1/keys")) sent.push(`${r.method()} ${path}`);
  });
  return sent;
}

const workspaceStatus = async (sandbox, bearer) =>
  (await fetch(`${sandbox.url}/v1/workspace`, { headers: { authorization: `Bearer ${bearer}` } })).status;

test("with a session: create shows the secret once, it works, it is then gone; revoke ends it", async ({ sandbox, pages }) => {
  const { context, page, problems } = await pages.signedIn("/keys", { credential: sandbox.session_token });
  const sent = trackKeyRequests(page);
  await expect(page.locator('[data-field="keys-table"] tbody tr').first()).toBeVisible();
  await screenshot(page, "keys-session");
  const name = `e2e deploy key ${Date.now()}`;
  await page.getByLabel("New key's name").fill(name);
  // A double click creates one key.
  await page.getByRole("button", { name: "Create key" }).dblclick();
  const dialog = page.getByRole("dialog");
  await expect(dialog).toBeVisible();
  const secret = (await dialog.locator('[data-field="new-secret"]').textContent()).trim();
  expect(secret).toMatch(/^sk_sandbox_[0-9a-f]+$/);
  await expect(dialog.getByText(name)).toBeVisible();
  await expect(dialog.getByText(/only time the key is shown/)).toBeVisible();
  expect(sent.filter((s) => s.startsWith("POST")), "one key for a double click").toEqual(["POST /v1/keys"]);
  await screenshot(page, "keys-secret-dialog");
  // The secret is real: it answers on the API.
  expect(await workspaceStatus(sandbox, secret)).toBe(200);
  // Escape does not dismiss it by accident, not even twice.
  await page.keyboard.press("Escape");
  await page.keyboard.press("Escape");
  // Chromium force-closes a modal on a second Escape without a click in between; the dialog
  // opens again from its close event, a task later, so wait for that rather than race it.
  await expect(dialog, "still open after Escape").toBeVisible({ timeout: 2_000 });
  expect(await dialog.isVisible(), "still open after Escape").toBe(true);
  // Focus stays in the dialog.
  for (let i = 0; i < 4; i++) await page.keyboard.press("Tab");
  expect(await page.evaluate(() => !!document.activeElement?.closest("dialog")), "focus trapped").toBe(true);
  await context.grantPermissions(["clipboard-read", "clipboard-write"]);
  await dialog.getByRole("button", { name: "Copy" }).click();
  expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(secret);
  await page.evaluate(() => navigator.clipboard.writeText(""));
  await dialog.getByRole("button", { name: "I have stored it" }).click();
  await expect(dialog).toHaveCount(0);
  // Gone from the page and from web storage; listed by its prefix only.
  const row = page.locator("tr[data-key]").filter({ hasText: name });
  await expect(row).toBeVisible();
  const prefix = (await row.locator('[data-field="key-prefix"]').textContent()).replace("…", "");
  expect(secret.startsWith(prefix), `${prefix} is the start of the secret`).toBe(true);
  expect(prefix.length).toBeGreaterThanOrEqual(12);
  expect(await page.content(), "not in the DOM").not.toContain(secret);
  const stored = await page.evaluate(() => JSON.stringify({ ...sessionStorage }) + JSON.stringify({ ...localStorage }));
  expect(stored, "not in web storage").not.toContain(secret);
  await expect(row).toHaveAttribute("data-state", "active");
  // Revoke: a confirmation that names the key, then the row says revoked.
  await row.getByRole("button", { name: `Revoke key ${name}` }).click();
  const confirm = page.locator('[data-field="confirm-revoke"]');
  await expect(confirm.getByText(name)).toBeVisible();
  await expect.poll(() => page.evaluate(() => document.activeElement?.textContent), { message: "focus on the harmless choice" }).toBe("Keep it");
  await screenshot(page, "keys-confirm");
  await confirm.getByRole("button", { name: "Revoke key" }).click();
  await expect(page.locator("tr[data-key]").filter({ hasText: name }).and(page.locator('[data-state="revoked"]'))).toBeVisible();
  await expect(page.getByText("revoked", { exact: true }).first()).toBeVisible();
  expect(await workspaceStatus(sandbox, secret), "the revoked secret is refused").toBe(401);
  expect(sent).toContainEqual(expect.stringMatching(/^DELETE \/v1\/keys\//));
  expect(problems).toEqual([]);
});

test("names are checked as typed and sent nowhere when wrong; an HTML name stays text", async ({ sandbox, pages }) => {
  const { page, problems } = await pages.signedIn("/keys", { credential: sandbox.session_token });
  const sent = trackKeyRequests(page);
  const dialogs = [];
  page.on("dialog", (d) => { dialogs.push(d.message()); d.dismiss(); });
  await expect(page.locator('[data-field="keys-table"]')).toBeVisible();
  await page.getByRole("button", { name: "Create key" }).click();
  await expect(page.getByText("Name must be 1 to 100 characters (it has 0)")).toBeVisible();
  await expect(page.getByLabel("New key's name")).toHaveAttribute("aria-invalid", "true");
  await page.getByLabel("New key's name").fill("k".repeat(101));
  await expect(page.getByText("Name must be 1 to 100 characters (it has 101)")).toBeVisible();
  await page.keyboard.press("Enter");
  expect(sent.filter((s) => !s.startsWith("GET")), "nothing sent while the name is wrong").toEqual([]);
  const hostile = `<img src=x onerror="window.__xss=1;alert(1)"> ${Date.now()}`;
  await page.getByLabel("New key's name").fill(hostile);
  await page.getByRole("button", { name: "Create key" }).click();
  await page.getByRole("dialog").getByRole("button", { name: "I have stored it" }).click();
  await expect(page.locator('[data-field="key-name"]').getByText(hostile, { exact: true })).toBeVisible();
  await expect(page.locator("main img")).toHaveCount(0);
  expect(await page.evaluate(() => window.__xss)).toBeUndefined();
  expect(dialogs).toEqual([]);
  expect(problems).toEqual([]);
});

test("with an API key the page explains how to manage keys and sends nothing", async ({ sandbox, pages }) => {
  const { page, problems } = await pages.signedIn("/keys");
  const sent = trackKeyRequests(page);
  await expect(page.getByText("Managing API keys needs an account session.")).toBeVisible();
  const link = page.getByRole("link", { name: "Sign in with a session token" });
  await expect(link).toHaveAttribute("href", "/sign-in?next=/keys");
  await expect(page.getByRole("button", { name: "Create key" })).toHaveCount(0);
  await expect(page.locator(".error-panel"), "no raw 403 panel").toHaveCount(0);
  await screenshot(page, "keys-api-key");
  // The link leads to sign-in and back here with a session.
  await link.click();
  await expect(page).toHaveURL(/\/sign-in\?next=\/keys$/);
  await signIn(page, sandbox.session_token);
  await expect(page).toHaveURL(/\/keys$/);
  await expect(page.locator('[data-field="keys-table"]')).toBeVisible();
  expect(sent.filter((s) => !s.startsWith("GET")), "no POST or DELETE").toEqual([]);
  expect(problems).toEqual([]);
});

test("a 403 for a session, a 404 and a 500 on revoke are each explained", async ({ sandbox, pages }) => {
  const { page, problems } = await pages.signedIn("/keys", { credential: sandbox.session_token });
  const created = await api(sandbox, "POST", "/v1/keys", { body: { name: `e2e revoke errors ${Date.now()}` }, bearer: sandbox.session_token });
  // Created outside the page: opening the page again lists it.
  await go(page, "/workspace");
  await go(page, "/keys");
  const row = page.locator(`tr[data-key="${created.json.id}"]`);
  await expect(row).toBeVisible();
  // 500 with the contract's body: the row stays, the error shows its request id.
  const pattern = new RegExp(`/v1/keys/${created.json.id}$`);
  await page.route(pattern, (route) => route.fulfill({
    status: 500, contentType: "application/json",
    body: JSON.stringify({ error: { code: "internal_error", message: "Something broke.", request_id: "req_e2e_500" } }),
  }));
  await row.getByRole("button", { name: /Revoke key/ }).click();
  await page.getByRole("button", { name: "Revoke key", exact: true }).click();
  const panel = page.getByRole("alert").filter({ hasText: "Revoking the key failed" });
  await expect(panel.getByText("req_e2e_500")).toBeVisible();
  await expect(row).toHaveAttribute("data-state", "active");
  // 404: not found, perhaps revoked elsewhere; the list is refreshed (here it was revoked meanwhile).
  await page.unroute(pattern);
  expect((await api(sandbox, "DELETE", `/v1/keys/${created.json.id}`, { bearer: sandbox.session_token })).status).toBe(204);
  await page.route(pattern, (route) => route.fulfill({
    status: 404, contentType: "application/json",
    body: JSON.stringify({ error: { code: "key_not_found", message: "No such key.", request_id: "req_e2e_404" } }),
  }));
  await row.getByRole("button", { name: /Revoke key/ }).click();
  await page.getByRole("button", { name: "Revoke key", exact: true }).click();
  await expect(page.getByText(/was found: perhaps it was already revoked elsewhere/)).toBeVisible();
  await expect(page.locator(`tr[data-key="${created.json.id}"][data-state="revoked"]`)).toBeVisible();
  // The API refusing this session (403): the same explanation as for an API key.
  await page.route(/\/v1\/keys$/, (route) => route.fulfill({
    status: 403, contentType: "application/json",
    body: JSON.stringify({ error: { code: "session_required", message: "Key management needs an account session.", request_id: "req_e2e_403" } }),
  }));
  await go(page, "/workspace");
  await go(page, "/keys");
  await expect(page.getByText("Managing API keys needs an account session.")).toBeVisible();
  await expect(page.locator(".error-panel"), "no raw 403 panel").toHaveCount(0);
  expect(besides(problems, 500, 404, 403)).toEqual([]);
});

test("credits over time equal the sums of GET /v1/runs, with runs in progress apart", async ({ sandbox, pages }) => {
  // Finished runs of three groups, a failed one, and one still processing.
  const submit = async (action, input, max_results, live = true) =>
    (await api(sandbox, "POST", `/v1/actions/${action}/run/${live ? "live" : "async"}`, {
      body: { input, max_results }, key: `e2e-chart-${action}-${Date.now()}-${Math.random().toString(36).slice(2)}`,
    })).json;
  await submit("premium-search-people", { keywords: "chart" }, 7);
  await submit("network-search-groups", { query: "chart" }, 4);
  await submit("network-extract-people", { identifier: "ada-lovelace" }, 1);
  await submit("premium-search-people", { keywords: "sandbox:fail=upstream_timeout" }, 3);
  const { page, problems } = await pages.signedIn("/workspace");
  // The run in progress is submitted once signed in (sign-in time does not eat into its
  // processing time); the workspace page loads afresh when navigated back to.
  const slow = await submit("network-search-content", { keywords: "chart sandbox:slow" }, 5, false);
  await go(page, "/actions");
  await go(page, "/workspace");
  await expect(page.locator('[data-field="credits-reserved"]')).toBeVisible();
  const runs = (await api(sandbox, "GET", "/v1/runs")).json.runs;
  const terminal = runs.filter((r) => ["completed", "failed", "cancelled"].includes(r.status));
  const num = (text) => Number(text.replaceAll(",", ""));
  const total = terminal.reduce((s, r) => s + r.credits_used, 0);
  await expect.poll(async () => num(await page.locator('[data-field="credits-total"]').textContent())).toBe(total);
  // The chart states the total to assistive technology.
  await expect(page.locator("svg.chart-bars")).toHaveAttribute("aria-label", new RegExp(`^${total.toLocaleString("en-US")} credits spent, per (hour|day|week)`));
  // Per action: credits and records.
  for (const action of new Set(terminal.map((r) => r.action))) {
    const mine = terminal.filter((r) => r.action === action);
    const row = page.locator(`[data-field="credits-by-action"] tr[data-action="${action}"]`);
    expect(num(await row.locator('[data-field="credits"]').textContent()), action).toBe(mine.reduce((s, r) => s + r.credits_used, 0));
    expect(num(await row.locator('[data-field="records"]').textContent()), action).toBe(mine.reduce((s, r) => s + r.output.length, 0));
  }
  // The table on demand adds up to the same total.
  await page.getByText("The chart's numbers as a table").click();
  const buckets = await page.locator('[data-field="credits-table"] [data-field="bucket-total"]').allTextContents();
  expect(buckets.map(num).reduce((a, b) => a + b, 0)).toBe(total);
  // Reserved credits of runs in progress, apart.
  const active = runs.filter((r) => ["queued", "processing"].includes(r.status));
  expect(active.map((r) => r.id), JSON.stringify({ slow, runs: runs.map((r) => [r.id, r.status]) })).toContain(slow.id);
  const reserved = page.locator('[data-field="credits-reserved"]');
  await expect(reserved).toHaveText(new RegExp(`${active.length} (run in progress holds|runs in progress hold) ${active.reduce((s, r) => s + r.credits_reserved, 0).toLocaleString("en-US")} credits`));
  await expect(page.getByText(/latest \d+ runs; the API keeps no longer history/)).toBeVisible();
  await screenshot(page, "workspace-chart");
  await page.locator(".theme-toggle").click();
  await page.locator(".theme-toggle").click();
  await screenshot(page, "workspace-chart-dark");
  await api(sandbox, "POST", `/v1/runs/${slow.id}/cancel`);
  expect(problems).toEqual([]);
});

test("a workspace without runs gets a sentence, not an empty chart", async ({ sandbox, pages }) => {
  const globex = sandbox.workspaces.find((w) => w.workspace_id === "ws_globex");
  const { page, problems } = await pages.signedIn("/workspace", { credential: globex.api_key, viewport: { width: 375, height: 740 } });
  await expect(page.locator('[data-field="credits-empty"]').getByText("No finished runs yet")).toBeVisible();
  await expect(page.locator("svg.chart-bars")).toHaveCount(0);
  expect(problems).toEqual([]);
});
