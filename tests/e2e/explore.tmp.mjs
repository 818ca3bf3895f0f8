import { startSandbox, launchBrowser, openPage, signIn } from "./harness.mjs";
const sb = await startSandbox({ dist: process.env.DIST, args: ["--queue-ms", "800", "--process-ms", "1500"] });
const browser = await launchBrowser();
const { page, problems } = await openPage(browser);
const shot = (n) => page.screenshot({ path: `/tmp/shots/${n}.png`, fullPage: true });
try {
  await page.goto(sb.url + "/actions/premium-search-people");
  await signIn(page, sb.api_key);
  await page.getByLabel("Keywords").waitFor();
  await page.getByRole("button", { name: "Run live" }).click();
  await shot("form-errors");
  await page.getByLabel("Keywords").fill("data engineer");
  await page.getByLabel("Async: queue it and watch the run").check();
  await page.locator("details.preview summary").click();
  await shot("form-preview");
  await page.getByRole("button", { name: "Queue run" }).click();
  await page.waitForURL(/\/runs\//);
  await page.waitForTimeout(300);
  await shot("run-running");
  await page.locator('[data-status="completed"]').waitFor({ timeout: 15000 });
  await shot("run-completed-table");
  await page.getByRole("button", { name: "JSON", exact: true }).click();
  await shot("run-completed-json");
  // hostile
  await page.goto(sb.url + "/actions/network-search-content?keywords=hostile&mode=live");
  await signIn(page, sb.api_key);
  await page.getByRole("button", { name: "Run live" }).click();
  await page.waitForURL(/\/runs\//);
  await page.locator('[data-status="completed"]').waitFor({ timeout: 15000 });
  await shot("run-hostile");
  // failed
  await page.goto(sb.url + "/actions/premium-search-people?keywords=sandbox:fail=upstream_timeout");
  await signIn(page, sb.api_key);
  await page.getByRole("button", { name: "Run live" }).click();
  await page.waitForURL(/\/runs\//);
  await page.locator('[data-status="failed"]').waitFor({ timeout: 15000 });
  await shot("run-failed");
  await page.goto(sb.url + "/runs");
  await signIn(page, sb.api_key);
  await page.locator('[data-field="runs-table"]').waitFor();
  await shot("runs-list");
  console.log(problems);
} catch (e) { console.error(e); await shot("error"); console.log(problems); }
await browser.close(); sb.stop();
