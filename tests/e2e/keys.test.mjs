// API keys end to end: list, create with the secret shown once, revoke, the rules for who may,
// name validation and hostile names; and the workspace's credits over time, checked against
// the sums of GET /v1/runs. Headless Chromium against the sandbox.
import assert from "node:assert/strict";
import { withSandbox } from "./fixtures.mjs";
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
  await page.locator('[data-field="keys-table"] tbody tr').first().waitFor();
  await screenshot(page, "keys-session");
  const name = `e2e deploy key ${Date.now()}`;
  await page.getByLabel("New key's name").fill(name);
  // A double click creates one key.
  await page.getByRole("button", { name: "Create key" }).dblclick();
  const dialog = page.getByRole("dialog");
  await dialog.waitFor();
  const secret = (await dialog.locator('[data-field="new-secret"]').textContent()).trim();
  assert.match(secret, /^sk_sandbox_[0-9a-f]+$/);
  await assert.doesNotReject(dialog.getByText(name).waitFor());
  await assert.doesNotReject(dialog.getByText(/only time the key is shown/).waitFor());
  assert.deepEqual(sent.filter((s) => s.startsWith("POST")), ["POST /v1/keys"], "one key for a double click");
  await screenshot(page, "keys-secret-dialog");
  // The secret is real: it answers on the API.
  assert.equal(await workspaceStatus(sandbox, secret), 200);
  // Escape does not dismiss it by accident, not even twice.
  await page.keyboard.press("Escape");
  await page.keyboard.press("Escape");
  // Chromium force-closes a modal on a second Escape without a click in between; the dialog
  // opens again from its close event, a task later, so wait for that rather than race it.
  await assert.doesNotReject(dialog.waitFor({ state: "visible", timeout: 2_000 }), "still open after Escape");
  assert.equal(await dialog.isVisible(), true, "still open after Escape");
  // Focus stays in the dialog.
  for (let i = 0; i < 4; i++) await page.keyboard.press("Tab");
  assert.equal(await page.evaluate(() => !!document.activeElement?.closest("dialog")), true, "focus trapped");
  await context.grantPermissions(["clipboard-read", "clipboard-write"]);
  await dialog.getByRole("button", { name: "Copy" }).click();
  assert.equal(await page.evaluate(() => navigator.clipboard.readText()), secret);
  await page.evaluate(() => navigator.clipboard.writeText(""));
  await dialog.getByRole("button", { name: "I have stored it" }).click();
  await dialog.waitFor({ state: "detached" });
  // Gone from the page and from web storage; listed by its prefix only.
  const row = page.locator("tr[data-key]").filter({ hasText: name });
  await row.waitFor();
  const prefix = (await row.locator('[data-field="key-prefix"]').textContent()).replace("…", "");
  assert.ok(secret.startsWith(prefix) && prefix.length >= 12, `${prefix} is the start of the secret`);
  assert.equal((await page.content()).includes(secret), false, "not in the DOM");
  const stored = await page.evaluate(() => JSON.stringify({ ...sessionStorage }) + JSON.stringify({ ...localStorage }));
  assert.equal(stored.includes(secret), false, "not in web storage");
  assert.equal(await row.getAttribute("data-state"), "active");
  // Revoke: a confirmation that names the key, then the row says revoked.
  await row.getByRole("button", { name: `Revoke key ${name}` }).click();
  const confirm = page.locator('[data-field="confirm-revoke"]');
  await assert.doesNotReject(confirm.getByText(name).waitFor());
  assert.equal(await page.evaluate(() => document.activeElement?.textContent), "Keep it", "focus on the harmless choice");
  await screenshot(page, "keys-confirm");
  await confirm.getByRole("button", { name: "Revoke key" }).click();
  await page.locator("tr[data-key]").filter({ hasText: name }).and(page.locator('[data-state="revoked"]')).waitFor();
  await assert.doesNotReject(page.getByText("revoked", { exact: true }).first().waitFor());
  assert.equal(await workspaceStatus(sandbox, secret), 401, "the revoked secret is refused");
  assert.ok(sent.some((s) => s.startsWith("DELETE /v1/keys/")));
  assert.deepEqual(problems, []);
});

test("names are checked as typed and sent nowhere when wrong; an HTML name stays text", async ({ sandbox, pages }) => {
  const { page, problems } = await pages.signedIn("/keys", { credential: sandbox.session_token });
  const sent = trackKeyRequests(page);
  const dialogs = [];
  page.on("dialog", (d) => { dialogs.push(d.message()); d.dismiss(); });
  await page.locator('[data-field="keys-table"]').waitFor();
  await page.getByRole("button", { name: "Create key" }).click();
  await assert.doesNotReject(page.getByText("Name must be 1 to 100 characters (it has 0)").waitFor());
  assert.equal(await page.getByLabel("New key's name").getAttribute("aria-invalid"), "true");
  await page.getByLabel("New key's name").fill("k".repeat(101));
  await assert.doesNotReject(page.getByText("Name must be 1 to 100 characters (it has 101)").waitFor());
  await page.keyboard.press("Enter");
  assert.deepEqual(sent.filter((s) => !s.startsWith("GET")), [], "nothing sent while the name is wrong");
  const hostile = `<img src=x onerror="window.__xss=1;alert(1)"> ${Date.now()}`;
  await page.getByLabel("New key's name").fill(hostile);
  await page.getByRole("button", { name: "Create key" }).click();
  await page.getByRole("dialog").getByRole("button", { name: "I have stored it" }).click();
  await assert.doesNotReject(page.locator('[data-field="key-name"]').getByText(hostile, { exact: true }).waitFor());
  assert.equal(await page.locator("main img").count(), 0);
  assert.equal(await page.evaluate(() => window.__xss), undefined);
  assert.deepEqual(dialogs, []);
  assert.deepEqual(problems, []);
});

test("with an API key the page explains how to manage keys and sends nothing", async ({ sandbox, pages }) => {
  const { page, problems } = await pages.signedIn("/keys");
  const sent = trackKeyRequests(page);
  await assert.doesNotReject(page.getByText("Managing API keys needs an account session.").waitFor());
  const link = page.getByRole("link", { name: "Sign in with a session token" });
  assert.equal(await link.getAttribute("href"), "/sign-in?next=/keys");
  assert.equal(await page.getByRole("button", { name: "Create key" }).count(), 0);
  assert.equal(await page.locator(".error-panel").count(), 0, "no raw 403 panel");
  await screenshot(page, "keys-api-key");
  // The link leads to sign-in and back here with a session.
  await link.click();
  await page.waitForURL(/\/sign-in\?next=\/keys$/);
  await signIn(page, sandbox.session_token);
  await page.waitForURL(/\/keys$/);
  await page.locator('[data-field="keys-table"]').waitFor();
  assert.deepEqual(sent.filter((s) => !s.startsWith("GET")), [], "no POST or DELETE");
  assert.deepEqual(problems, []);
});

test("a 403 for a session, a 404 and a 500 on revoke are each explained", async ({ sandbox, pages }) => {
  const { page, problems } = await pages.signedIn("/keys", { credential: sandbox.session_token });
  const created = await api(sandbox, "POST", "/v1/keys", { body: { name: `e2e revoke errors ${Date.now()}` }, bearer: sandbox.session_token });
  // Created outside the page: opening the page again lists it.
  await go(page, "/workspace");
  await go(page, "/keys");
  const row = page.locator(`tr[data-key="${created.json.id}"]`);
  await row.waitFor();
  // 500 with the contract's body: the row stays, the error shows its request id.
  const pattern = new RegExp(`/v1/keys/${created.json.id}$`);
  await page.route(pattern, (route) => route.fulfill({
    status: 500, contentType: "application/json",
    body: JSON.stringify({ error: { code: "internal_error", message: "Something broke.", request_id: "req_e2e_500" } }),
  }));
  await row.getByRole("button", { name: /Revoke key/ }).click();
  await page.getByRole("button", { name: "Revoke key", exact: true }).click();
  const panel = page.getByRole("alert").filter({ hasText: "Revoking the key failed" });
  await assert.doesNotReject(panel.getByText("req_e2e_500").waitFor());
  assert.equal(await row.getAttribute("data-state"), "active");
  // 404: not found, perhaps revoked elsewhere; the list is refreshed (here it was revoked meanwhile).
  await page.unroute(pattern);
  assert.equal((await api(sandbox, "DELETE", `/v1/keys/${created.json.id}`, { bearer: sandbox.session_token })).status, 204);
  await page.route(pattern, (route) => route.fulfill({
    status: 404, contentType: "application/json",
    body: JSON.stringify({ error: { code: "key_not_found", message: "No such key.", request_id: "req_e2e_404" } }),
  }));
  await row.getByRole("button", { name: /Revoke key/ }).click();
  await page.getByRole("button", { name: "Revoke key", exact: true }).click();
  await assert.doesNotReject(page.getByText(/was found: perhaps it was already revoked elsewhere/).waitFor());
  await page.locator(`tr[data-key="${created.json.id}"][data-state="revoked"]`).waitFor();
  // The API refusing this session (403): the same explanation as for an API key.
  await page.route(/\/v1\/keys$/, (route) => route.fulfill({
    status: 403, contentType: "application/json",
    body: JSON.stringify({ error: { code: "session_required", message: "Key management needs an account session.", request_id: "req_e2e_403" } }),
  }));
  await go(page, "/workspace");
  await go(page, "/keys");
  await assert.doesNotReject(page.getByText("Managing API keys needs an account session.").waitFor());
  assert.equal(await page.locator(".error-panel").count(), 0, "no raw 403 panel");
  assert.deepEqual(besides(problems, 500, 404, 403), []);
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
  await page.locator('[data-field="credits-reserved"]').waitFor();
  const runs = (await api(sandbox, "GET", "/v1/runs")).json.runs;
  const terminal = runs.filter((r) => ["completed", "failed", "cancelled"].includes(r.status));
  const num = (text) => Number(text.replaceAll(",", ""));
  const total = terminal.reduce((s, r) => s + r.credits_used, 0);
  assert.equal(num(await page.locator('[data-field="credits-total"]').textContent()), total);
  // The chart states the total to assistive technology.
  const label = await page.locator("svg.chart-bars").getAttribute("aria-label");
  assert.match(label, new RegExp(`^${total.toLocaleString("en-US")} credits spent, per (hour|day|week)`));
  // Per action: credits and records.
  for (const action of new Set(terminal.map((r) => r.action))) {
    const mine = terminal.filter((r) => r.action === action);
    const row = page.locator(`[data-field="credits-by-action"] tr[data-action="${action}"]`);
    assert.equal(num(await row.locator('[data-field="credits"]').textContent()), mine.reduce((s, r) => s + r.credits_used, 0), action);
    assert.equal(num(await row.locator('[data-field="records"]').textContent()), mine.reduce((s, r) => s + r.output.length, 0), action);
  }
  // The table on demand adds up to the same total.
  await page.getByText("The chart's numbers as a table").click();
  const buckets = await page.locator('[data-field="credits-table"] [data-field="bucket-total"]').allTextContents();
  assert.equal(buckets.map(num).reduce((a, b) => a + b, 0), total);
  // Reserved credits of runs in progress, apart.
  const active = runs.filter((r) => ["queued", "processing"].includes(r.status));
  assert.ok(active.some((r) => r.id === slow.id), JSON.stringify({ slow, runs: runs.map((r) => [r.id, r.status]) }));
  const reserved = page.locator('[data-field="credits-reserved"]');
  assert.match(await reserved.textContent(), new RegExp(`${active.length} (run in progress holds|runs in progress hold) ${active.reduce((s, r) => s + r.credits_reserved, 0).toLocaleString("en-US")} credits`));
  await assert.doesNotReject(page.getByText(/latest \d+ runs; the API keeps no longer history/).waitFor());
  await screenshot(page, "workspace-chart");
  await page.locator(".theme-toggle").click();
  await page.locator(".theme-toggle").click();
  await screenshot(page, "workspace-chart-dark");
  await api(sandbox, "POST", `/v1/runs/${slow.id}/cancel`);
  assert.deepEqual(problems, []);
});

test("a workspace without runs gets a sentence, not an empty chart", async ({ sandbox, pages }) => {
  const globex = sandbox.workspaces.find((w) => w.workspace_id === "ws_globex");
  const { page, problems } = await pages.signedIn("/workspace", { credential: globex.api_key, viewport: { width: 375, height: 740 } });
  await assert.doesNotReject(page.locator('[data-field="credits-empty"]').getByText("No finished runs yet").waitFor());
  assert.equal(await page.locator("svg.chart-bars").count(), 0);
  assert.deepEqual(problems, []);
});
