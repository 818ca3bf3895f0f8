// The console's shell end to end: sign-in, workspace numbers, the 16 actions, not-found, and
// the way back after sign-in, in real headless Chromium against the sandbox.
import assert from "node:assert/strict";
import { expect } from "@playwright/test";
import { withSandbox } from "./fixtures.mjs";
import { screenshot, signIn, trySignIn, signOut } from "./harness.mjs";

const PUBLISHED_ORDER = [
  "premium-search-person", "premium-search-people", "premium-search-company-employees",
  "premium-search-company-metrics", "premium-search-companies", "network-search-companies",
  "network-search-schools", "network-search-groups", "network-extract-school-alumnis",
  "network-extract-group-members", "network-extract-people", "network-extract-company",
  "network-extract-people-post-activity", "network-search-content",
  "network-extract-post-commenters", "network-extract-post-likers",
];

const test = withSandbox();

async function apiWorkspace(sandbox, bearer) {
  const res = await fetch(`${sandbox.url}/v1/workspace`, { headers: { authorization: `Bearer ${bearer}` } });
  assert.equal(res.status, 200);
  return res.json();
}

test("signing in with the API key shows the workspace numbers from the API", async ({ sandbox, pages }) => {
  const { page, problems } = await pages.open();
  await page.goto(sandbox.url);
  await page.waitForURL(/\/sign-in/);
  // The sandbox says it is one, on every page and in the tab's title.
  await expect(page.locator('.sandbox-band[data-field="environment"]')).toHaveText("Sandbox: nothing here spends real credits.");
  await expect(page).toHaveTitle("Sandbox · Extraction Console");
  await screenshot(page, "sign-in");
  await signIn(page, sandbox.api_key);
  await page.waitForURL(/\/workspace$/);

  const ws = await apiWorkspace(sandbox, sandbox.api_key);
  const field = (name) => page.locator(`[data-field="${name}"]`);
  await assert.doesNotReject(field("name").getByText(ws.name).waitFor());
  assert.equal(await field("workspace_id").textContent(), ws.workspace_id);
  const shown = async (name) => (await field(name).locator(".stat-value").textContent()).replaceAll(",", "");
  assert.equal(await shown("credits_balance"), String(ws.credits_balance));
  assert.equal(await shown("credits_reserved"), String(ws.credits_reserved));
  assert.equal(await shown("credits_available"), String(ws.credits_balance - ws.credits_reserved));
  assert.equal(await shown("profiles"), String(ws.usage_today.profiles));
  assert.equal(await shown("premium_lines"), String(ws.usage_today.premium_lines));
  await expect(page.locator(".app-header .credential")).toHaveText(/^API key sk_sandbox_/);
  await expect(page.locator('.sandbox-band[data-field="environment"]')).toBeVisible();
  await expect(page.locator('.app-header [data-field="environment"]')).toHaveCount(0);
  await screenshot(page, "workspace");
  assert.deepEqual(problems, []);
});

test("the actions page lists all 16 actions, grouped, in the published order", async ({ sandbox, pages }) => {
  const { page, problems } = await pages.open();
  await page.goto(`${sandbox.url}/actions`);
  await signIn(page, sandbox.api_key);
  // Comes back to the page asked for before sign-in.
  await page.waitForURL(/\/actions$/);
  await page.locator("[data-action]").nth(15).waitFor();
  const ids = await page.locator("[data-action]").evaluateAll((els) => els.map((e) => e.dataset.action));
  assert.deepEqual([...ids].sort(), [...PUBLISHED_ORDER].sort(), "every action exactly once");
  // Grouped for people, each group keeping the published order.
  const groups = await page.locator("[data-group]").evaluateAll((els) =>
    Object.fromEntries(els.map((g) => [g.dataset.group, [...g.querySelectorAll("[data-action]")].map((a) => a.dataset.action)])));
  assert.deepEqual(Object.keys(groups), ["Premium search", "Network search", "Extraction and enrichment"]);
  assert.ok(groups["Premium search"].every((id) => id.startsWith("premium-")));
  assert.ok(groups["Network search"].every((id) => id.startsWith("network-search-")));
  for (const members of Object.values(groups)) {
    const published = PUBLISHED_ORDER.filter((id) => members.includes(id));
    assert.deepEqual(members, published);
  }
  const enrich = page.locator('[data-action="network-extract-people"]');
  await assert.doesNotReject(enrich.getByText("20 credits per enriched profile").waitFor());
  await assert.doesNotReject(enrich.getByText("Enrich a profile").waitFor());
  await screenshot(page, "actions");
  // The filter narrows the cards as you type; each card links to its form.
  const visible = () => page.locator("[data-action]:visible").evaluateAll((els) => els.map((e) => e.dataset.action));
  await page.getByLabel("Filter actions").fill("Social_ID");
  assert.deepEqual(await visible(), ["network-extract-post-commenters", "network-extract-post-likers"]);
  assert.equal(await page.locator('[data-group="Premium search"]').isVisible(), false, "an empty group hides");
  await page.getByLabel("Filter actions").fill("nothing matches this");
  assert.deepEqual(await visible(), []);
  await assert.doesNotReject(page.getByText("No action matches the filter.").waitFor());
  await page.getByLabel("Filter actions").fill("enrich a profile");
  await page.getByRole("link", { name: "network-extract-people", exact: true }).click();
  await page.waitForURL(/\/actions\/network-extract-people$/);
  await assert.doesNotReject(page.getByRole("heading", { name: "Enrich a profile" }).waitFor());
  assert.deepEqual(problems, []);
});

test("a session token signs in and is recognised as an account session", async ({ sandbox, pages }) => {
  const { page, problems } = await pages.open({ colorScheme: "dark" });
  await page.goto(`${sandbox.url}/sign-in`);
  await page.getByLabel("API key or session token").fill(sandbox.session_token);
  await assert.doesNotReject(page.getByText(/Recognised: Session · admin@acme\.example \(can manage API keys\), valid until /).waitFor());
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.waitForURL(/\/workspace$/);
  await assert.doesNotReject(page.getByText("Session · admin@acme.example").first().waitFor());
  await page.locator('[data-field="name"]').waitFor();
  await screenshot(page, "workspace-dark-session");
  assert.deepEqual(problems, []);
});

test("a wrong key is refused in words with the request id, and nothing is signed in", async ({ sandbox, pages }) => {
  const { page } = await pages.open();
  await page.goto(`${sandbox.url}/sign-in`);
  await trySignIn(page, "sk_sandbox_not_a_real_key");
  const panel = page.getByRole("alert").filter({ hasText: "Checking the credential failed" });
  await panel.waitFor();
  const text = await panel.textContent();
  assert.match(text, /credential was refused/);
  assert.match(text, /invalid_api_key/);
  assert.match(text, /req_[0-9a-f]{32}/);
  assert.match(page.url(), /\/sign-in$/);
  await screenshot(page, "sign-in-refused");
  // The browser logs the failed fetch's 401 itself; that is the only console error allowed here.
});

test("an unknown page says so, and sign-out returns to sign-in", async ({ sandbox, pages }) => {
  const { page, problems } = await pages.open({ viewport: { width: 375, height: 740 } });
  await page.goto(`${sandbox.url}/sign-in`);
  await signIn(page, sandbox.api_key);
  await page.waitForURL(/\/workspace$/);
  await page.locator('[data-field="name"]').waitFor();
  await screenshot(page, "workspace-375");
  // Client-side navigation keeps the in-memory session.
  await page.evaluate(() => {
    history.pushState({}, "", "/no/such/page");
    dispatchEvent(new PopStateEvent("popstate"));
  });
  await assert.doesNotReject(page.getByRole("heading", { name: "Page not found" }).waitFor());
  await assert.doesNotReject(page.getByText("/no/such/page").waitFor());
  await screenshot(page, "not-found");
  await signOut(page);
  await page.waitForURL(/\/sign-in/);
  // The credential lived in memory only: nothing in web storage.
  const stored = await page.evaluate(() => JSON.stringify({ ...localStorage }) + JSON.stringify({ ...sessionStorage }));
  assert.ok(!stored.includes(sandbox.api_key));
  assert.deepEqual(problems, []);
});

test("a reload forgets the in-memory credential and asks to sign in again", async ({ sandbox, pages }) => {
  const { page } = await pages.open();
  await page.goto(`${sandbox.url}/sign-in`);
  await signIn(page, sandbox.api_key);
  await page.waitForURL(/\/workspace$/);
  await page.reload();
  await page.waitForURL(/\/sign-in\?next=\/workspace$/);
});

test("the console is served with a strict Content-Security-Policy and runs under it", async ({ sandbox, pages }) => {
  const res = await fetch(`${sandbox.url}/workspace`);
  const csp = res.headers.get("content-security-policy");
  for (const directive of ["script-src 'self' 'wasm-unsafe-eval' 'sha256-", "connect-src 'self'",
    "frame-ancestors 'none'", "base-uri 'none'", "object-src 'none'"]) {
    assert.ok(csp.includes(directive), `${directive} in ${csp}`);
  }
  assert.ok(!csp.includes("unsafe-inline"));
  assert.equal(res.headers.get("x-content-type-options"), "nosniff");
  // An inline script that is not trunk's loader is refused, and the harness sees it.
  const { page, problems } = await pages.open();
  await page.goto(`${sandbox.url}/sign-in`);
  await page.getByLabel("API key or session token").waitFor();
  await page.evaluate(() => {
    const s = document.createElement("script");
    s.textContent = "window.__injected = true";
    document.body.append(s);
  });
  await page.waitForFunction(() => true);
  await new Promise((r) => setTimeout(r, 100));
  assert.equal(await page.evaluate(() => window.__injected === true), false);
  assert.ok(problems.some((p) => p.startsWith("CSP violation: script-src")), problems.join("\n"));
});

test("the theme switch overrides the system setting and is remembered, storing no credential", async ({ sandbox, pages }) => {
  const { page, problems } = await pages.open({ colorScheme: "light" });
  await page.goto(`${sandbox.url}/sign-in`);
  await signIn(page, sandbox.api_key);
  await page.locator('[data-field="name"]').waitFor();
  const background = () => page.evaluate(() => getComputedStyle(document.body).backgroundColor);
  const light = await background();
  const toggle = page.locator(".theme-toggle");
  assert.equal(await toggle.getAttribute("data-theme-choice"), "system");
  await toggle.click(); // light
  assert.equal(await background(), light);
  await toggle.click(); // dark
  assert.equal(await toggle.getAttribute("data-theme-choice"), "dark");
  const dark = await background();
  assert.notEqual(dark, light);
  await screenshot(page, "workspace-dark-by-choice");
  await page.reload();
  await page.locator(".theme-toggle").waitFor();
  assert.equal(await page.locator(".theme-toggle").getAttribute("data-theme-choice"), "dark");
  assert.equal(await background(), dark, "remembered across a reload");
  const stored = await page.evaluate(() => JSON.stringify({ ...localStorage }));
  assert.equal(stored, JSON.stringify({ "console.theme": "dark" }), "only the preference is stored");
  assert.deepEqual(problems, []);
});

test("a base URL that does not answer like this API is explained", async ({ sandbox, pages }) => {
  const { page } = await pages.open();
  await page.goto(`${sandbox.url}/sign-in`);
  // Same origin, so the CSP allows it; the console's own index.html answers instead of the API.
  await page.getByLabel("API base URL").fill(`${sandbox.url}/not-the-api`);
  await trySignIn(page, sandbox.api_key);
  const panel = page.getByRole("alert").filter({ hasText: "Checking the credential failed" });
  await panel.waitFor();
  assert.match(await panel.textContent(), /not like this API.*Is the API base URL right\?/s);
  assert.match(page.url(), /\/sign-in$/);
});

test("a key revoked mid-session leads to sign-in with the reason, then back to the page", async ({ sandbox, pages }) => {
  const session = { authorization: `Bearer ${sandbox.session_token}`, "content-type": "application/json" };
  const created = await (await fetch(`${sandbox.url}/v1/keys`, { method: "POST", headers: session, body: JSON.stringify({ name: "e2e revoked mid-session" }) })).json();
  const { page } = await pages.open();
  await page.goto(`${sandbox.url}/sign-in?next=/actions`);
  await signIn(page, created.api_key);
  await page.locator("[data-action]").first().waitFor();
  const revoked = await fetch(`${sandbox.url}/v1/keys/${created.id}`, { method: "DELETE", headers: session });
  assert.equal(revoked.status, 204);
  // The next request is refused: back to sign-in, saying why, keeping the way back.
  await page.evaluate(() => { history.pushState({}, "", "/workspace"); dispatchEvent(new PopStateEvent("popstate")); });
  await page.waitForURL(/\/sign-in\?next=\/workspace$/);
  await assert.doesNotReject(page.getByRole("status").getByText(/has been revoked/).waitFor());
  await screenshot(page, "sign-in-after-revocation");
  await signIn(page, sandbox.api_key);
  await page.waitForURL(/\/workspace$/);
  await page.locator('[data-field="name"]').waitFor();
});

test("opting in keeps the session across a reload of the tab; sign-out forgets it everywhere", async ({ sandbox, pages }) => {
  const { page, problems } = await pages.open();
  await page.goto(`${sandbox.url}/sign-in`);
  await page.getByLabel("Keep me signed in in this tab").check();
  await signIn(page, sandbox.api_key);
  await page.waitForURL(/\/workspace$/);
  await page.reload();
  await page.locator('[data-field="name"]').waitFor();
  assert.match(page.url(), /\/workspace$/, "still signed in after a reload");
  const kept = await page.evaluate(() => ({ session: { ...sessionStorage }, local: { ...localStorage } }));
  assert.ok(JSON.stringify(kept.session).includes(sandbox.api_key), "kept in this tab's session storage");
  assert.ok(!JSON.stringify(kept.local).includes(sandbox.api_key), "never in localStorage");
  await signOut(page);
  await page.waitForURL(/\/sign-in/);
  const after = await page.evaluate(() => JSON.stringify({ ...sessionStorage }) + JSON.stringify({ ...localStorage }));
  assert.ok(!after.includes(sandbox.api_key), "forgotten after sign-out");
  await page.reload();
  await page.getByLabel("API key or session token").waitFor();
  assert.deepEqual(problems, []);
});

test("the workspace and the header's summary refresh every 30 s while visible", async ({ sandbox, pages }) => {
  const { page, problems } = await pages.open();
  let workspaceRequests = 0;
  page.on("request", (r) => { if (new URL(r.url()).pathname === "/v1/workspace") workspaceRequests++; });
  await page.clock.install();
  await page.goto(`${sandbox.url}/sign-in`);
  await signIn(page, sandbox.api_key);
  const balance = page.locator('[data-field="credits_balance"] .stat-value');
  await balance.waitFor();
  await page.locator('[data-field="header-available"]').waitFor();
  // The sign-in check's answer is the shared load for the page and the header: one request.
  assert.equal(workspaceRequests, 1);
  const before = Number((await balance.textContent()).replaceAll(",", ""));
  // Spend 3 credits through the API, outside the page.
  const spent = await fetch(`${sandbox.url}/v1/actions/network-search-groups/run/live`, {
    method: "POST",
    headers: { authorization: `Bearer ${sandbox.api_key}`, "content-type": "application/json", "idempotency-key": `refresh-${Date.now()}` },
    body: JSON.stringify({ input: { query: "refresh" }, max_results: 3 }),
  });
  const run = await spent.json();
  assert.equal(run.status, "completed");
  const now = (await (await fetch(`${sandbox.url}/v1/workspace`, { headers: { authorization: `Bearer ${sandbox.api_key}` } })).json()).credits_balance;
  assert.ok(now < before);
  await page.clock.fastForward(20_000);
  assert.equal(Number((await balance.textContent()).replaceAll(",", "")), before, "not before the interval");
  const headerAvailable = () => page.locator('[data-field="header-available"]').textContent();
  assert.equal((await headerAvailable()).replaceAll(",", ""), String(before), "the header shows the same numbers");
  await page.clock.fastForward(11_000);
  await page.waitForFunction((n) => document.querySelector('[data-field="credits_balance"] .stat-value')?.textContent.replaceAll(",", "") === String(n), now);
  await page.waitForFunction((n) => document.querySelector('[data-field="header-available"]')?.textContent.replaceAll(",", "") === String(n), now);
  assert.equal(workspaceRequests, 2, "one request per refresh");
  assert.deepEqual(problems, []);
});

test("a guarded page opened signed out is replaced by sign-in, so Back does not bounce", async ({ sandbox, pages }) => {
  const { page, problems } = await pages.open();
  await page.goto(`${sandbox.url}/sign-in`);
  await page.getByLabel("API key or session token").waitFor();
  const entries = await page.evaluate(() => history.length);
  // In-app navigation to a guarded page while signed out.
  await page.evaluate(() => { history.pushState({}, "", "/runs?status=failed"); dispatchEvent(new PopStateEvent("popstate")); });
  await page.waitForURL(/\/sign-in\?next=\/runs%3Fstatus%3Dfailed$/);
  assert.equal(await page.evaluate(() => history.length), entries + 1, "the guard replaced /runs instead of adding an entry");
  await page.goBack();
  await page.waitForURL(/\/sign-in$/);
  await new Promise((r) => setTimeout(r, 300));
  assert.match(page.url(), /\/sign-in$/, "Back stays on sign-in instead of bouncing through the guard");
  // Signing in goes where the person was headed, in place of the sign-in page.
  await page.goForward();
  await page.waitForURL(/\/sign-in\?next=/);
  await signIn(page, sandbox.api_key);
  await page.waitForURL(/\/runs\?status=failed$/);
  assert.equal(await page.getByLabel("Status").inputValue(), "failed");
  assert.deepEqual(problems, []);
});
