// The console's shell end to end: sign-in, workspace numbers, the 16 actions, not-found, and
// the way back after sign-in, in real headless Chromium against the sandbox.
import { expect, withSandbox } from "./fixtures.mjs";
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
  expect(res.status).toBe(200);
  return res.json();
}

test("signing in with the API key shows the workspace numbers from the API", async ({ sandbox, pages }) => {
  const { page, problems } = await pages.open();
  await page.goto(sandbox.url);
  await expect(page).toHaveURL(/\/sign-in/);
  // The sandbox says it is one, on every page and in the tab's title.
  await expect(page.locator('.sandbox-band[data-field="environment"]')).toHaveText("Sandbox: nothing here spends real credits.");
  await expect(page).toHaveTitle("Sandbox · Extraction Console");
  await screenshot(page, "sign-in");
  await signIn(page, sandbox.api_key);
  await expect(page).toHaveURL(/\/workspace$/);

  const ws = await apiWorkspace(sandbox, sandbox.api_key);
  const field = (name) => page.locator(`[data-field="${name}"]`);
  await expect(field("name").getByText(ws.name)).toBeVisible();
  await expect(field("workspace_id")).toHaveText(ws.workspace_id);
  const shown = async (name) => (await field(name).locator(".stat-value").textContent()).replaceAll(",", "");
  expect(await shown("credits_balance")).toBe(String(ws.credits_balance));
  expect(await shown("credits_reserved")).toBe(String(ws.credits_reserved));
  expect(await shown("credits_available")).toBe(String(ws.credits_balance - ws.credits_reserved));
  expect(await shown("profiles")).toBe(String(ws.usage_today.profiles));
  expect(await shown("premium_lines")).toBe(String(ws.usage_today.premium_lines));
  await expect(page.locator(".app-header .credential")).toHaveText(/^API key sk_sandbox_/);
  await expect(page.locator('.sandbox-band[data-field="environment"]')).toBeVisible();
  await expect(page.locator('.app-header [data-field="environment"]')).toHaveCount(0);
  await screenshot(page, "workspace");
  expect(problems).toEqual([]);
});

test("the actions page lists all 16 actions, grouped, in the published order", async ({ sandbox, pages }) => {
  const { page, problems } = await pages.open();
  await page.goto(`${sandbox.url}/actions`);
  await signIn(page, sandbox.api_key);
  // Comes back to the page asked for before sign-in.
  await expect(page).toHaveURL(/\/actions$/);
  await expect(page.locator("[data-action]").nth(15)).toBeVisible();
  const ids = await page.locator("[data-action]").evaluateAll((els) => els.map((e) => e.dataset.action));
  expect([...ids].sort(), "every action exactly once").toEqual([...PUBLISHED_ORDER].sort());
  // Grouped for people, each group keeping the published order.
  const groups = await page.locator("[data-group]").evaluateAll((els) =>
    Object.fromEntries(els.map((g) => [g.dataset.group, [...g.querySelectorAll("[data-action]")].map((a) => a.dataset.action)])));
  expect(Object.keys(groups)).toEqual(["Premium search", "Network search", "Extraction and enrichment"]);
  expect(groups["Premium search"].filter((id) => !id.startsWith("premium-"))).toEqual([]);
  expect(groups["Network search"].filter((id) => !id.startsWith("network-search-"))).toEqual([]);
  for (const members of Object.values(groups)) {
    const published = PUBLISHED_ORDER.filter((id) => members.includes(id));
    expect(members).toEqual(published);
  }
  const enrich = page.locator('[data-action="network-extract-people"]');
  await expect(enrich.getByText("20 credits per enriched profile")).toBeVisible();
  await expect(enrich.getByText("Enrich a profile")).toBeVisible();
  await screenshot(page, "actions");
  // The filter narrows the cards as you type; each card links to its form.
  const visible = () => page.locator("[data-action]:visible").evaluateAll((els) => els.map((e) => e.dataset.action));
  await page.getByLabel("Filter actions").fill("Social_ID");
  await expect.poll(visible).toEqual(["network-extract-post-commenters", "network-extract-post-likers"]);
  await expect(page.locator('[data-group="Premium search"]'), "an empty group hides").toBeHidden();
  await page.getByLabel("Filter actions").fill("nothing matches this");
  await expect.poll(visible).toEqual([]);
  await expect(page.getByText("No action matches the filter.")).toBeVisible();
  await page.getByLabel("Filter actions").fill("enrich a profile");
  await page.getByRole("link", { name: "network-extract-people", exact: true }).click();
  await expect(page).toHaveURL(/\/actions\/network-extract-people$/);
  await expect(page.getByRole("heading", { name: "Enrich a profile" })).toBeVisible();
  expect(problems).toEqual([]);
});

test("a session token signs in and is recognised as an account session", async ({ sandbox, pages }) => {
  const { page, problems } = await pages.open({ colorScheme: "dark" });
  await page.goto(`${sandbox.url}/sign-in`);
  await page.getByLabel("API key or session token").fill(sandbox.session_token);
  await expect(page.getByText(/Recognised: Session · admin@acme\.example \(can manage API keys\), valid until /)).toBeVisible();
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page).toHaveURL(/\/workspace$/);
  await expect(page.getByText("Session · admin@acme.example").first()).toBeVisible();
  await expect(page.locator('[data-field="name"]')).toBeVisible();
  await screenshot(page, "workspace-dark-session");
  expect(problems).toEqual([]);
});

test("a wrong key is refused in words with the request id, and nothing is signed in", async ({ sandbox, pages }) => {
  const { page } = await pages.open();
  await page.goto(`${sandbox.url}/sign-in`);
  await trySignIn(page, "sk_sandbox_not_a_real_key");
  const panel = page.getByRole("alert").filter({ hasText: "Checking the credential failed" });
  await expect(panel).toContainText("credential was refused");
  await expect(panel).toContainText("invalid_api_key");
  await expect(panel).toContainText(/req_[0-9a-f]{32}/);
  await expect(page).toHaveURL(/\/sign-in$/);
  await screenshot(page, "sign-in-refused");
  // The browser logs the failed fetch's 401 itself; that is the only console error allowed here.
});

test("an unknown page says so, and sign-out returns to sign-in", async ({ sandbox, pages }) => {
  const { page, problems } = await pages.open({ viewport: { width: 375, height: 740 } });
  await page.goto(`${sandbox.url}/sign-in`);
  await signIn(page, sandbox.api_key);
  await expect(page).toHaveURL(/\/workspace$/);
  await expect(page.locator('[data-field="name"]')).toBeVisible();
  await screenshot(page, "workspace-375");
  // Client-side navigation keeps the in-memory session.
  await page.evaluate(() => {
    history.pushState({}, "", "/no/such/page");
    dispatchEvent(new PopStateEvent("popstate"));
  });
  await expect(page.getByRole("heading", { name: "Page not found" })).toBeVisible();
  await expect(page.getByText("/no/such/page")).toBeVisible();
  await screenshot(page, "not-found");
  await signOut(page);
  await expect(page).toHaveURL(/\/sign-in/);
  // The credential lived in memory only: nothing in web storage.
  const stored = await page.evaluate(() => JSON.stringify({ ...localStorage }) + JSON.stringify({ ...sessionStorage }));
  expect(stored).not.toContain(sandbox.api_key);
  expect(problems).toEqual([]);
});

test("a reload forgets the in-memory credential and asks to sign in again", async ({ sandbox, pages }) => {
  const { page } = await pages.open();
  await page.goto(`${sandbox.url}/sign-in`);
  await signIn(page, sandbox.api_key);
  await expect(page).toHaveURL(/\/workspace$/);
  await page.reload();
  await expect(page).toHaveURL(/\/sign-in\?next=\/workspace$/);
});

test("the console is served with a strict Content-Security-Policy and runs under it", async ({ sandbox, pages }) => {
  const res = await fetch(`${sandbox.url}/workspace`);
  const csp = res.headers.get("content-security-policy");
  for (const directive of ["script-src 'self' 'wasm-unsafe-eval' 'sha256-", "connect-src 'self'",
    "frame-ancestors 'none'", "base-uri 'none'", "object-src 'none'"]) {
    expect(csp).toContain(directive);
  }
  expect(csp).not.toContain("unsafe-inline");
  expect(res.headers.get("x-content-type-options")).toBe("nosniff");
  // An inline script that is not trunk's loader is refused, and the harness sees it.
  const { page, problems } = await pages.open();
  await page.goto(`${sandbox.url}/sign-in`);
  await expect(page.getByLabel("API key or session token")).toBeVisible();
  await page.evaluate(() => {
    const s = document.createElement("script");
    s.textContent = "window.__injected = true";
    document.body.append(s);
  });
  await expect.poll(() => problems).toContainEqual(expect.stringMatching(/^CSP violation: script-src/));
  expect(await page.evaluate(() => window.__injected === true), "the injected script ran").toBe(false);
});

test("the theme switch overrides the system setting and is remembered, storing no credential", async ({ sandbox, pages }) => {
  const { page, problems } = await pages.open({ colorScheme: "light" });
  await page.goto(`${sandbox.url}/sign-in`);
  await signIn(page, sandbox.api_key);
  await expect(page.locator('[data-field="name"]')).toBeVisible();
  const background = () => page.evaluate(() => getComputedStyle(document.body).backgroundColor);
  const light = await background();
  const toggle = page.locator(".theme-toggle");
  await expect(toggle).toHaveAttribute("data-theme-choice", "system");
  await toggle.click(); // light
  await expect(toggle).toHaveAttribute("data-theme-choice", "light");
  expect(await background()).toBe(light);
  await toggle.click(); // dark
  await expect(toggle).toHaveAttribute("data-theme-choice", "dark");
  const dark = await background();
  expect(dark).not.toBe(light);
  await screenshot(page, "workspace-dark-by-choice");
  await page.reload();
  await expect(page.locator(".theme-toggle")).toHaveAttribute("data-theme-choice", "dark");
  expect(await background(), "remembered across a reload").toBe(dark);
  const stored = await page.evaluate(() => JSON.stringify({ ...localStorage }));
  expect(stored, "only the preference is stored").toBe(JSON.stringify({ "console.theme": "dark" }));
  expect(problems).toEqual([]);
});

test("a preference this browser does not keep is told, and holds on the page until a reload", async ({ sandbox, pages }) => {
  const { page, problems } = await pages.open({ colorScheme: "light" });
  // Every write to localStorage is refused as a full disk refuses it (sessionStorage still works).
  await page.addInitScript(() => {
    const write = Storage.prototype.setItem;
    Storage.prototype.setItem = function (key, value) {
      if (this === window.localStorage) throw new DOMException("The quota has been exceeded.", "QuotaExceededError");
      return write.call(this, key, value);
    };
  });
  await page.goto(`${sandbox.url}/sign-in`);
  await signIn(page, sandbox.api_key);
  await expect(page.locator('[data-field="name"]')).toBeVisible();
  const notKept = page.locator('[data-field="preference-not-kept"]');
  await expect(notKept).toHaveCount(0);

  // The theme changes on the page, and the band says it will not last.
  await page.locator(".theme-toggle").click();
  await expect(page.locator("html")).toHaveAttribute("data-theme", "light");
  await expect(notKept).toHaveText("This browser did not keep the theme: its storage for the console is full. Free some space on this computer or on the Storage page, then choose again. It holds on this page until it is reloaded. Dismiss");
  await expect(notKept).toHaveAttribute("role", "alert");
  await screenshot(page, "preference-not-kept");
  await notKept.getByRole("button", { name: "Dismiss" }).click();
  await expect(notKept).toHaveCount(0);

  // Presenter mode goes on all the same, and says so; switched off, nothing needs keeping.
  await page.locator('[data-field="presenter-toggle"]').click();
  await expect(page.locator('[data-field="presenter-band"]')).toBeVisible();
  await expect(notKept).toContainText("This browser did not keep presenter mode's switch: its storage for the console is full.");
  await page.locator('[data-field="presenter-toggle"]').click();
  await expect(page.locator('[data-field="presenter-band"]')).toHaveCount(0);
  await expect(notKept, "off is the default: a removal is kept, and the notice about the switch goes").toHaveCount(0);

  // A form that saves a preference says it beside its button, and changes nothing.
  await page.evaluate(() => { history.pushState({}, "", "/safeguards"); dispatchEvent(new PopStateEvent("popstate")); });
  await page.getByLabel("Warn in the header when the credits available fall below a threshold").check();
  await page.getByLabel("Warn below, in credits").fill("1000000");
  await page.getByRole("button", { name: "Save" }).click();
  await expect(page.locator('[data-field="safeguards-saved"]')).toHaveText("This browser did not keep the safeguards: its storage for the console is full. Free some space on this computer or on the Storage page, then choose again. Nothing was changed.");
  await expect(page.locator('[data-field="low-balance"]'), "the safeguards not kept are not in effect").toHaveCount(0);

  expect(await page.evaluate(() => localStorage.length), "nothing was kept").toBe(0);
  await page.reload();
  await expect(page.locator(".theme-toggle")).toHaveAttribute("data-theme-choice", "system");
  expect(problems).toEqual([]);
});

test("a base URL that does not answer like this API is explained", async ({ sandbox, pages }) => {
  const { page } = await pages.open();
  await page.goto(`${sandbox.url}/sign-in`);
  // Same origin, so the CSP allows it; the console's own index.html answers instead of the API.
  await page.getByLabel("API base URL").fill(`${sandbox.url}/not-the-api`);
  await trySignIn(page, sandbox.api_key);
  const panel = page.getByRole("alert").filter({ hasText: "Checking the credential failed" });
  await expect(panel).toHaveText(/not like this API.*Is the API base URL right\?/s);
  await expect(page).toHaveURL(/\/sign-in$/);
});

test("a key revoked mid-session leads to sign-in with the reason, then back to the page", async ({ sandbox, pages }) => {
  const session = { authorization: `Bearer ${sandbox.session_token}`, "content-type": "application/json" };
  const created = await (await fetch(`${sandbox.url}/v1/keys`, { method: "POST", headers: session, body: JSON.stringify({ name: "e2e revoked mid-session" }) })).json();
  const { page } = await pages.open();
  await page.goto(`${sandbox.url}/sign-in?next=/actions`);
  await signIn(page, created.api_key);
  await expect(page.locator("[data-action]").first()).toBeVisible();
  const revoked = await fetch(`${sandbox.url}/v1/keys/${created.id}`, { method: "DELETE", headers: session });
  expect(revoked.status).toBe(204);
  // The next request is refused: back to sign-in, saying why, keeping the way back.
  await page.evaluate(() => { history.pushState({}, "", "/workspace"); dispatchEvent(new PopStateEvent("popstate")); });
  await expect(page).toHaveURL(/\/sign-in\?next=\/workspace$/);
  await expect(page.getByRole("status").getByText(/has been revoked/)).toBeVisible();
  await screenshot(page, "sign-in-after-revocation");
  await signIn(page, sandbox.api_key);
  await expect(page).toHaveURL(/\/workspace$/);
  await expect(page.locator('[data-field="name"]')).toBeVisible();
});

test("opting in keeps the session across a reload of the tab; sign-out forgets it everywhere", async ({ sandbox, pages }) => {
  const { page, problems } = await pages.open();
  await page.goto(`${sandbox.url}/sign-in`);
  await page.getByLabel("Keep me signed in in this tab").check();
  await signIn(page, sandbox.api_key);
  await expect(page).toHaveURL(/\/workspace$/);
  await page.reload();
  await expect(page.locator('[data-field="name"]')).toBeVisible();
  expect(page.url(), "still signed in after a reload").toMatch(/\/workspace$/);
  const kept = await page.evaluate(() => ({ session: { ...sessionStorage }, local: { ...localStorage } }));
  expect(JSON.stringify(kept.session), "kept in this tab's session storage").toContain(sandbox.api_key);
  expect(JSON.stringify(kept.local), "never in localStorage").not.toContain(sandbox.api_key);
  await signOut(page);
  await expect(page).toHaveURL(/\/sign-in/);
  const after = await page.evaluate(() => JSON.stringify({ ...sessionStorage }) + JSON.stringify({ ...localStorage }));
  expect(after, "forgotten after sign-out").not.toContain(sandbox.api_key);
  await page.reload();
  await expect(page.getByLabel("API key or session token")).toBeVisible();
  expect(problems).toEqual([]);
});

test("the workspace and the header's summary refresh every 30 s while visible", async ({ sandbox, pages }) => {
  const { page, problems } = await pages.open();
  let workspaceRequests = 0;
  page.on("request", (r) => { if (new URL(r.url()).pathname === "/v1/workspace") workspaceRequests++; });
  await page.clock.install();
  await page.goto(`${sandbox.url}/sign-in`);
  await signIn(page, sandbox.api_key);
  const balance = page.locator('[data-field="credits_balance"] .stat-value');
  await expect(balance).toBeVisible();
  await expect(page.locator('[data-field="header-available"]')).toBeVisible();
  // The sign-in check's answer is the shared load for the page and the header: one request.
  expect(workspaceRequests).toBe(1);
  const before = Number((await balance.textContent()).replaceAll(",", ""));
  // Spend 3 credits through the API, outside the page.
  const spent = await fetch(`${sandbox.url}/v1/actions/network-search-groups/run/live`, {
    method: "POST",
    headers: { authorization: `Bearer ${sandbox.api_key}`, "content-type": "application/json", "idempotency-key": `refresh-${Date.now()}` },
    body: JSON.stringify({ input: { query: "refresh" }, max_results: 3 }),
  });
  const run = await spent.json();
  expect(run.status).toBe("completed");
  const now = (await (await fetch(`${sandbox.url}/v1/workspace`, { headers: { authorization: `Bearer ${sandbox.api_key}` } })).json()).credits_balance;
  expect(now).toBeLessThan(before);
  await page.clock.fastForward(20_000);
  const balanceShown = async () => Number((await balance.textContent()).replaceAll(",", ""));
  expect(await balanceShown(), "not before the interval").toBe(before);
  const headerAvailable = async () => Number((await page.locator('[data-field="header-available"]').textContent()).replaceAll(",", ""));
  expect(await headerAvailable(), "the header shows the same numbers").toBe(before);
  await page.clock.fastForward(11_000);
  await expect.poll(balanceShown).toBe(now);
  await expect.poll(headerAvailable).toBe(now);
  expect(workspaceRequests, "one request per refresh").toBe(2);
  expect(problems).toEqual([]);
});

test("a guarded page opened signed out is replaced by sign-in, so Back does not bounce", async ({ sandbox, pages }) => {
  const { page, problems } = await pages.open();
  await page.goto(`${sandbox.url}/sign-in`);
  await expect(page.getByLabel("API key or session token")).toBeVisible();
  const entries = await page.evaluate(() => history.length);
  // In-app navigation to a guarded page while signed out.
  await page.evaluate(() => { history.pushState({}, "", "/runs?status=failed"); dispatchEvent(new PopStateEvent("popstate")); });
  await expect(page).toHaveURL(/\/sign-in\?next=\/runs%3Fstatus%3Dfailed$/);
  expect(await page.evaluate(() => history.length), "the guard replaced /runs instead of adding an entry").toBe(entries + 1);
  await page.goBack();
  await expect(page).toHaveURL(/\/sign-in$/);
  // A fixed wait on purpose: the test asserts that the page does not move on from there.
  await page.waitForTimeout(300);
  expect(page.url(), "Back stays on sign-in instead of bouncing through the guard").toMatch(/\/sign-in$/);
  // Signing in goes where the person was headed, in place of the sign-in page.
  await page.goForward();
  await expect(page).toHaveURL(/\/sign-in\?next=/);
  await signIn(page, sandbox.api_key);
  await expect(page).toHaveURL(/\/runs\?status=failed$/);
  await expect(page.getByLabel("Status")).toHaveValue("failed");
  expect(problems).toEqual([]);
});
