// Every page passes an automated accessibility check (axe-core, injected by the test driver)
// with no serious or critical violations, in light and dark themes and at 375 px wide.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { startSandbox, launchBrowser, openPage, screenshot, signIn } from "./harness.mjs";

const axeSource = readFileSync(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8");
let sandbox, browser;
before(async () => {
  sandbox = await startSandbox();
  browser = await launchBrowser();
});
after(async () => {
  await browser?.close();
  sandbox?.stop();
});

/** Runs axe on the page as it is; DevTools evaluation is not subject to the page's CSP. */
async function seriousViolations(page) {
  await page.evaluate(axeSource);
  const result = await page.evaluate(() => window.axe.run(document, { resultTypes: ["violations"] }));
  return result.violations
    .filter((v) => v.impact === "serious" || v.impact === "critical")
    .map((v) => `${v.id} (${v.impact}): ${v.nodes.map((n) => n.target.join(" ")).join(", ")}`);
}

const pages = [
  { name: "sign-in", path: "/sign-in", ready: (p) => p.getByLabel("API key or session token").waitFor(), signedIn: false },
  { name: "workspace", path: "/workspace", ready: (p) => p.locator('[data-field="credits_balance"]').waitFor(), signedIn: true },
  { name: "actions", path: "/actions", ready: (p) => p.locator("[data-action]").nth(15).waitFor(), signedIn: true },
  { name: "not-found", path: "/nowhere", ready: (p) => p.getByRole("heading", { name: "Page not found" }).waitFor(), signedIn: true },
];

for (const colorScheme of ["light", "dark"]) {
  for (const width of [1280, 375]) {
    test(`every page passes axe (${colorScheme}, ${width} px)`, async () => {
      const { context, page, problems } = await openPage(browser, { colorScheme, viewport: { width, height: 800 } });
      await page.goto(`${sandbox.url}/sign-in`);
      const found = [];
      for (const p of pages) {
        if (p.signedIn && !page.url().includes("/workspace") && p.name === "workspace") {
          await signIn(page, sandbox.api_key);
        } else {
          // Client-side navigation keeps the in-memory session.
          await page.evaluate((path) => { history.pushState({}, "", path); dispatchEvent(new PopStateEvent("popstate")); }, p.path);
        }
        await p.ready(page);
        found.push(...(await seriousViolations(page)).map((v) => `${p.name}: ${v}`));
        await screenshot(page, `a11y-${p.name}-${colorScheme}-${width}`);
      }
      assert.deepEqual(found, []);
      assert.deepEqual(problems, []);
      // Control: the check does catch a real violation (an input without a label).
      await page.evaluate(() => document.querySelector("main").append(Object.assign(document.createElement("input"), { id: "unlabelled" })));
      assert.ok((await seriousViolations(page)).some((v) => v.startsWith("label")), "axe reports an unlabelled input");
      await context.close();
    });
  }
}
