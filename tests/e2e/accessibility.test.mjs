// Every page passes an automated accessibility check (axe-core, injected by the test driver)
// with no serious or critical violations, in light and dark themes and at 375 px wide, and
// none is wider than its window.
import { expect, withSandbox } from "./fixtures.mjs";
import { screenshot, signIn, seriousViolations } from "./harness.mjs";

// A completed run with nested output, and a failed one, for the run pages.
const test = withSandbox({
  seed: async (sandbox) => {
    const submit = async (keywords) => {
      const res = await fetch(`${sandbox.url}/v1/actions/network-search-content/run/live`, {
        method: "POST",
        headers: { authorization: `Bearer ${sandbox.api_key}`, "content-type": "application/json", "idempotency-key": `a11y-${keywords.length}-${Date.now()}` },
        body: JSON.stringify({ input: { keywords }, max_results: 10 }),
      });
      return (await res.json()).id;
    };
    const runId = await submit("hostile");
    const failedId = await submit("sandbox:fail=upstream_timeout");
    return { runId, failedId };
  },
});

/** The pages checked, in order; a run's path is made from the runs `seed` made (`seeded`). */
const screens = [
  { name: "sign-in", path: "/sign-in", ready: (p) => expect(p.getByLabel("API key or session token")).toBeVisible(), signedIn: false },
  { name: "workspace", path: "/workspace", ready: async (p) => { await expect(p.locator('[data-field="credits_balance"]')).toBeVisible(); await expect(p.locator("svg.chart-bars")).toBeVisible(); await p.getByText("The chart's numbers as a table").click(); }, signedIn: true },
  { name: "actions", path: "/actions", ready: (p) => expect(p.locator("[data-action]").nth(15)).toBeVisible(), signedIn: true },
  { name: "runs", path: "/runs", ready: (p) => expect(p.locator("tr[data-run]").nth(1)).toBeVisible(), signedIn: true },
  { name: "run", path: ({ runId }) => `/runs/${runId}`, ready: (p) => expect(p.locator('[data-field="output-table"]')).toBeVisible(), signedIn: true },
  { name: "run-columns", path: ({ runId }) => `/runs/${runId}`, ready: async (p) => { await expect(p.locator('[data-field="output-table"]')).toBeVisible(); await p.locator('[data-field="columns-panel"] summary').click(); await p.locator("thead th button.sort").first().click(); }, signedIn: true },
  { name: "compare", path: ({ runId, failedId }) => `/runs/compare?a=${runId}&b=${failedId}`, ready: async (p) => { await expect(p.locator('[data-field="compare-counts"]')).toBeVisible(); await p.locator('[data-field="show-same"]').check(); }, signedIn: true },
  { name: "run-json", path: ({ runId }) => `/runs/${runId}`, ready: async (p) => { await p.getByRole("button", { name: "JSON", exact: true }).click(); await expect(p.locator('[data-field="output-json"]')).toBeVisible(); }, signedIn: true },
  { name: "run-failed", path: ({ failedId }) => `/runs/${failedId}`, ready: (p) => expect(p.locator('[data-field="run-error"]')).toBeVisible(), signedIn: true },
  { name: "form", path: "/actions/premium-search-person", ready: async (p) => { await p.getByRole("button", { name: "Run live" }).click(); await expect(p.getByText("Company is required")).toBeVisible(); }, signedIn: true },
  // The safeguards page, saved with a threshold the next screen's run passes and a low-balance
  // warning that the header shows from then on.
  { name: "safeguards", path: "/safeguards", ready: async (p) => { await p.getByLabel("Ask before a run or batch that may cost more than a threshold").check(); await p.getByLabel("Threshold, in credits").fill("50"); await p.getByLabel("Warn in the header when the credits available fall below a threshold").check(); await p.getByLabel("Warn below, in credits").fill("1000000"); await p.getByRole("button", { name: "Save" }).click(); await expect(p.locator('[data-field="low-balance"]')).toBeVisible(); }, signedIn: true },
  { name: "confirm-spend", path: "/actions/premium-search-people", ready: async (p) => { await p.getByLabel("Keywords").fill("data engineer"); await p.getByRole("button", { name: "Run live" }).click(); await expect(p.getByRole("dialog")).toBeVisible(); }, signedIn: true },
  { name: "keys-api-key", path: "/keys", ready: (p) => expect(p.getByText("Managing API keys needs an account session.")).toBeVisible(), signedIn: true },
  { name: "credits", path: "/credits", ready: (p) => expect(p.locator('[data-field="credits-scope"], [data-field="credits-empty"]').first()).toBeVisible(), signedIn: true },
  { name: "storage", path: "/storage", ready: (p) => expect(p.locator('[data-field="space-used"]')).toBeVisible(), signedIn: true },
  { name: "log", path: "/log", ready: (p) => expect(p.locator(".log-table tbody tr").first()).toBeVisible({ timeout: 15_000 }), signedIn: true },
  { name: "log-entry", path: "/log", ready: async (p) => { await p.locator(".log-table tbody tr a").first().click(); await expect(p.locator('[data-field="ticket-text"]')).toBeVisible(); }, signedIn: true },
  { name: "sign-out-menu", path: "/workspace", ready: async (p) => { await expect(p.locator('[data-field="credits_balance"]')).toBeVisible(); await p.getByRole("button", { name: "Sign out…" }).click(); await expect(p.getByRole("group", { name: "Sign out" })).toBeVisible(); }, signedIn: true },
  { name: "not-found", path: "/nowhere", ready: (p) => expect(p.getByRole("heading", { name: "Page not found" })).toBeVisible(), signedIn: true },
];

for (const colorScheme of ["light", "dark"]) {
  for (const width of [1280, 375]) {
    test(`every page passes axe (${colorScheme}, ${width} px)`, async ({ sandbox, seeded, pages }) => {
      const { page, problems } = await pages.open({ colorScheme, viewport: { width, height: 800 } });
      await page.goto(`${sandbox.url}/sign-in`);
      const found = [];
      for (const p of screens) {
        if (p.signedIn && !page.url().includes("/workspace") && p.name === "workspace") {
          await signIn(page, sandbox.api_key);
        } else {
          // Client-side navigation keeps the in-memory session.
          await page.evaluate((path) => { history.pushState({}, "", path); dispatchEvent(new PopStateEvent("popstate")); }, typeof p.path === "function" ? p.path(seeded) : p.path);
        }
        await p.ready(page);
        found.push(...(await seriousViolations(page)).map((v) => `${p.name}: ${v}`));
        // Nothing wider than the window: wide tables scroll inside their own box.
        const wider = await page.evaluate(() => document.documentElement.scrollWidth - innerWidth);
        if (wider > 0) found.push(`${p.name}: ${wider} px wider than the window`);
        await screenshot(page, `a11y-${p.name}-${colorScheme}-${width}`);
      }
      expect(found).toEqual([]);
      expect(problems).toEqual([]);
      // Control: the check does catch a real violation (an input without a label).
      await page.evaluate(() => document.querySelector("main").append(Object.assign(document.createElement("input"), { id: "unlabelled" })));
      expect(await seriousViolations(page), "axe reports an unlabelled input").toContainEqual(expect.stringMatching(/^label/));
    });
  }
}

// The key pages need an account session: the list, the secret's dialog and the revoke
// confirmation, each checked while open.
for (const colorScheme of ["light", "dark"]) {
  for (const width of [1280, 375]) {
    test(`the API key pages pass axe with a session (${colorScheme}, ${width} px)`, async ({ sandbox, pages }) => {
      const { page, problems } = await pages.open({ colorScheme, viewport: { width, height: 800 } });
      await page.goto(`${sandbox.url}/sign-in?next=/keys`);
      await signIn(page, sandbox.session_token);
      await expect(page.locator('[data-field="keys-table"] tbody tr').first()).toBeVisible();
      const found = (await seriousViolations(page)).map((v) => `keys: ${v}`);
      await screenshot(page, `a11y-keys-${colorScheme}-${width}`);
      await page.getByLabel("New key's name").fill(`a11y ${colorScheme} ${width}`);
      await page.getByRole("button", { name: "Create key" }).click();
      await expect(page.getByRole("dialog")).toBeVisible();
      found.push(...(await seriousViolations(page)).map((v) => `secret dialog: ${v}`));
      await screenshot(page, `a11y-keys-dialog-${colorScheme}-${width}`);
      await page.getByRole("button", { name: "I have stored it" }).click();
      await page.getByRole("button", { name: `Revoke key a11y ${colorScheme} ${width}` }).click();
      await expect(page.locator('[data-field="confirm-revoke"]')).toBeVisible();
      found.push(...(await seriousViolations(page)).map((v) => `confirm: ${v}`));
      await screenshot(page, `a11y-keys-confirm-${colorScheme}-${width}`);
      expect(found).toEqual([]);
      expect(problems).toEqual([]);
    });
  }
}
