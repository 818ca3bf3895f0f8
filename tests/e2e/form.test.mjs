// Submit forms end to end: every input shape in both modes, validation that sends nothing,
// never charged twice across a 500 and Retry or a 429 countdown, and a request preview without
// the credential (copy as code: snippets.test.mjs runs them). Headless Chromium against the sandbox.
import assert from "node:assert/strict";
import { expect } from "@playwright/test";
import { withSandbox } from "./fixtures.mjs";
import { screenshot, signIn, go, api, besides, signOut } from "./harness.mjs";

const test = withSandbox({ args: ["--queue-ms", "150", "--process-ms", "350"] });

/** Every POST the page sends to a submit endpoint, with its idempotency key. */
function trackSubmissions(page) {
  const sent = [];
  page.on("request", (r) => {
    if (r.method() === "POST" && /^\/v1\/actions\/[^/]+\/run\/(live|async)$/.test(new URL(r.url()).pathname)) {
      sent.push({ path: new URL(r.url()).pathname, key: r.headers()["idempotency-key"], body: r.postDataJSON() });
    }
  });
  return sent;
}

/** A field by its label; optional fields' labels end in "(optional)". */
const field = (page, label) => page.getByLabel(new RegExp(`^${label}( \\(optional\\))?$`));

const fill = async (page, fields) => {
  for (const [label, value] of Object.entries(fields)) await field(page, label).fill(value);
};

const runIdOf = (page) => decodeURIComponent(new URL(page.url()).pathname.split("/").pop());

test("one action of each input shape, live and async, reaches its run page", async ({ sandbox, pages }) => {
  // A social id exactly as a post search returns it.
  const posts = await api(sandbox, "POST", "/v1/actions/network-search-content/run/live", {
    body: { input: { keywords: "shapes" }, max_results: 1 }, key: `shapes-${Date.now()}`,
  });
  const socialId = posts.json.output[0].social_id;
  const shapes = [
    ["premium-search-person", { "First name": "Ada", "Last name": "Lovelace", Company: "Analytical Engines" }],
    ["premium-search-people", { Keywords: "data engineer" }],
    ["premium-search-company-employees", { Company: "Initech" }],
    ["premium-search-company-metrics", { Keywords: "rust" }],
    ["network-search-schools", { Query: "technical university" }],
    ["network-extract-school-alumnis", { School: "ETH Zurich" }],
    ["network-extract-group-members", { "Group ID": "3994388" }],
    ["network-extract-people", { Identifier: "ada-lovelace" }],
    ["network-extract-post-commenters", { "Social ID": socialId }],
  ];
  const { page, problems } = await pages.signedIn("/actions");
  const sent = trackSubmissions(page);
  for (const [action, fields] of shapes) {
    for (const live of [true, false]) {
      await go(page, `/actions/${action}`);
      await fill(page, fields);
      await page.getByLabel(live ? "Live: wait for the result" : "Async: queue it and watch the run").check();
      await page.getByRole("button", { name: live ? "Run live" : "Queue run" }).click();
      await page.waitForURL(/\/runs\/[^/]+$/);
      const run = (await api(sandbox, "GET", `/v1/runs/${runIdOf(page)}`)).json;
      assert.equal(run.action, action);
      await page.locator(".run-head [data-status]").waitFor();
      assert.equal(sent.at(-1).path, `/v1/actions/${action}/run/${live ? "live" : "async"}`);
    }
  }
  assert.equal(sent.length, shapes.length * 2, "one request per submission");
  assert.equal(new Set(sent.map((s) => s.key)).size, sent.length, "a new key for each logical submission");
  for (const { key } of sent) assert.match(key, /^[a-zA-Z0-9_:-]{8,128}$/);
  assert.deepEqual(problems, []);
});

test("invalid input shows errors by the fields and sends nothing", async ({ pages }) => {
  const { page, problems } = await pages.signedIn("/actions/premium-search-person");
  const sent = trackSubmissions(page);
  await page.getByRole("button", { name: "Run live" }).click();
  // Every required field says so, and the first one has the focus.
  await assert.doesNotReject(page.getByText("First name is required").waitFor());
  await assert.doesNotReject(page.getByText("Company is required").waitFor());
  assert.equal(await page.evaluate(() => document.activeElement?.id), "field-first_name");
  assert.equal(await field(page, "First name").getAttribute("aria-invalid"), "true");
  await screenshot(page, "form-errors");
  // As the person types: too long, then fixed.
  await field(page, "Last name").fill("L".repeat(101));
  await assert.doesNotReject(page.locator("#field-last_name-error").getByText(/1 to 100 characters \(it has 101\)/).waitFor());
  await field(page, "Max results").fill("0");
  await assert.doesNotReject(page.getByText("Max results must be a whole number from 1 to").waitFor());
  await page.keyboard.press("Control+Enter");
  await field(page, "Profile URL").fill("javascript:alert(1)");
  await page.getByRole("button", { name: "Run live" }).click();
  assert.equal(sent.length, 0, "nothing was sent while the input was invalid");
  // The cost estimate follows the limits: 20 per enriched profile, capped by max credits.
  await go(page, "/actions/network-extract-people");
  await field(page, "Max results").fill("1");
  assert.equal(await page.locator('[data-field="estimate"]').textContent(), "20");
  assert.equal(sent.length, 0);
  assert.deepEqual(problems, []);
});

test("a 500 keeps the input; Retry reuses the key: one run, one charge", async ({ sandbox, pages }) => {
  const { page, problems } = await pages.signedIn("/actions/premium-search-people");
  const sent = trackSubmissions(page);
  const before = (await api(sandbox, "GET", "/v1/workspace")).json.credits_balance;
  await fill(page, { Keywords: "sandbox:500 retry once" });
  await field(page, "Max results").fill("4");
  await page.getByRole("button", { name: "Run live" }).click();
  const retry = page.getByRole("button", { name: "Retry" });
  await retry.waitFor();
  assert.equal(await field(page, "Keywords").inputValue(), "sandbox:500 retry once");
  await screenshot(page, "form-retry");
  await retry.dblclick();
  await page.waitForURL(/\/runs\//);
  await page.locator('.run-head [data-status="completed"]').waitFor();
  assert.equal(sent.length, 2, "the failed attempt and one retry, even on a double click");
  assert.equal(sent[0].key, sent[1].key);
  assert.deepEqual(sent[0].body, sent[1].body);
  const runs = (await api(sandbox, "GET", "/v1/runs")).json.runs.filter((r) => r.output.length === 4 && r.action === "premium-search-people");
  const run = (await api(sandbox, "GET", `/v1/runs/${runIdOf(page)}`)).json;
  assert.ok(runs.some((r) => r.id === run.id));
  const after = (await api(sandbox, "GET", "/v1/workspace")).json.credits_balance;
  assert.equal(before - after, run.credits_used, "charged once");
  // The header's credits follow the submission.
  await page.waitForFunction((n) => document.querySelector('[data-field="header-available"]')?.textContent.replaceAll(",", "") === String(n), after);
  assert.deepEqual(besides(problems, 500), []);
});

test("a 429 counts down its retry_after, then retries by itself with the same key", async ({ pages }) => {
  const { page, problems } = await pages.signedIn("/actions/network-search-groups");
  const sent = trackSubmissions(page);
  await fill(page, { Query: "sandbox:429 patience" });
  await page.getByRole("button", { name: "Run live" }).click();
  const countdown = page.locator('[data-field="countdown"]');
  await countdown.waitFor();
  const first = Number(await countdown.textContent());
  assert.ok(first >= 2 && first <= 3, `countdown starts at retry_after (${first})`);
  await screenshot(page, "form-429-countdown");
  await page.waitForURL(/\/runs\//, { timeout: 10_000 });
  assert.equal(sent.length, 2);
  assert.equal(sent[0].key, sent[1].key);
  assert.deepEqual(besides(problems, 429), []);
});

test("the request preview and copy-as-code never carry the credential", async ({ sandbox, pages }) => {
  const { context, page, problems } = await pages.signedIn("/actions/premium-search-people?keywords=from%20the%20url&mode=async");
  await context.grantPermissions(["clipboard-read", "clipboard-write"]);
  assert.equal(await field(page, "Keywords").inputValue(), "from the url");
  await page.locator("details.preview summary").click();
  const body = JSON.parse(await page.locator('[data-field="body-preview"]').textContent());
  // Every body carries the estimate as its cap: up to 100 results at 1 credit.
  assert.deepEqual(body, { input: { keywords: "from the url" }, max_credits: 100 });
  const snippet = page.locator('[data-field="code-snippet"]');
  await page.locator('button[data-language="curl"]').click();
  const curl = await snippet.textContent();
  assert.match(curl, /Bearer \$API_KEY/);
  assert.match(curl, /\/run\/async'/);
  assert.match(curl, /Idempotency-Key: console-[0-9a-f-]{36}'/, "the key the form will send");
  await page.getByRole("button", { name: "Copy as curl" }).click();
  const copied = await page.evaluate(() => navigator.clipboard.readText());
  assert.equal(copied, curl);
  const texts = [curl, copied];
  for (const language of ["python", "javascript", "node", "rust"]) {
    await page.locator(`button[data-language="${language}"]`).click();
    await page.waitForFunction((l) => document.querySelector('[data-field="code-snippet"]').dataset.language === l, language);
    texts.push(await snippet.textContent());
  }
  await page.locator('button[data-language="python"]').click();
  await screenshot(page, "form-preview");
  // The language picked is remembered.
  await go(page, "/actions/network-search-groups");
  await page.locator("details.preview summary").click();
  assert.equal(await snippet.getAttribute("data-language"), "python");
  texts.push(await page.content());
  for (const text of texts) {
    assert.ok(!text.includes(sandbox.api_key), "the API key never appears");
  }
  assert.deepEqual(problems, []);
});

test("a live submission shows that it is waiting, with the time elapsed, then opens the run", async ({ pages }) => {
  const { page, problems } = await pages.signedIn("/actions/network-search-groups");
  const sent = trackSubmissions(page);
  await fill(page, { Query: "sandbox:slow waiting" });
  await page.getByRole("button", { name: "Run live" }).dblclick();
  const waiting = page.locator(".waiting");
  await waiting.getByText(/Waiting for the run… \d/).waitFor();
  assert.equal(await page.getByRole("button", { name: "Submitting…" }).isDisabled(), true);
  await page.waitForFunction(() => /Waiting for the run… [1-9]\.\d s/.test(document.querySelector(".waiting")?.textContent ?? ""));
  await screenshot(page, "form-waiting");
  await page.waitForURL(/\/runs\//, { timeout: 20_000 });
  assert.equal(sent.length, 1, "a double click submits once");
  assert.deepEqual(problems, []);
});

test("a 401 on submit leads to sign-in and back to the form with the input kept", async ({ sandbox, pages }) => {
  const session = { authorization: `Bearer ${sandbox.session_token}`, "content-type": "application/json" };
  const created = await (await fetch(`${sandbox.url}/v1/keys`, { method: "POST", headers: session, body: JSON.stringify({ name: "e2e form 401" }) })).json();
  const { page, problems } = await pages.open();
  await page.goto(`${sandbox.url}/sign-in?next=/actions/premium-search-company-employees`);
  await signIn(page, created.api_key);
  await fill(page, { Company: "Initech", Keywords: "kept across sign-in" });
  await field(page, "Max results").fill("7");
  assert.equal((await fetch(`${sandbox.url}/v1/keys/${created.id}`, { method: "DELETE", headers: session })).status, 204);
  await page.getByRole("button", { name: "Run live" }).click();
  await page.waitForURL(/\/sign-in\?next=%2Factions%2Fpremium-search-company-employees|\/sign-in\?next=\/actions\/premium-search-company-employees/);
  await signIn(page, sandbox.api_key);
  await page.waitForURL(/\/actions\/premium-search-company-employees$/);
  assert.equal(await field(page, "Company").inputValue(), "Initech");
  assert.equal(await field(page, "Keywords").inputValue(), "kept across sign-in");
  assert.equal(await field(page, "Max results").inputValue(), "7");
  // Signing out, by contrast, forgets what was typed.
  await signOut(page);
  await page.waitForURL(/\/sign-in$/);
  await signIn(page, sandbox.api_key);
  await page.waitForURL(/\/workspace$/);
  await go(page, "/actions/premium-search-company-employees");
  await field(page, "Company").waitFor();
  assert.equal(await field(page, "Company").inputValue(), "");
  assert.deepEqual(besides(problems, 401), []);
});

test("every submission carries max_credits equal to the estimate on screen, or the lower cap typed", async ({ pages }) => {
  const { page, problems } = await pages.signedIn("/actions/network-extract-people");
  const sent = trackSubmissions(page);
  const estimate = page.locator('[data-field="estimate"]');
  await fill(page, { Identifier: "ada-lovelace" });
  // One enriched profile: 20 credits.
  await expect(estimate).toHaveText("20");
  await page.getByLabel("Async: queue it and watch the run").check();
  await page.getByRole("button", { name: "Queue run" }).click();
  await page.waitForURL(/\/runs\//);
  expect(sent.map((s) => s.body.max_credits)).toEqual([20]);

  await go(page, "/actions/premium-search-people");
  await fill(page, { Keywords: "capped" });
  await field(page, "Max results").fill("40");
  await expect(estimate).toHaveText("40");
  await field(page, "Max credits").fill("25");
  await expect(estimate).toHaveText("25");
  await page.getByLabel("Async: queue it and watch the run").check();
  await page.getByRole("button", { name: "Queue run" }).click();
  await page.waitForURL(/\/runs\//);
  expect(sent.map((s) => s.body.max_credits)).toEqual([20, 25]);
  expect(sent[1].body.max_results).toBe(40);
  assert.deepEqual(besides(problems), []);
});

test("run again with changes: the form opens with the run's input, and makes a new run with a new key", async ({ sandbox, pages }) => {
  const { page, problems } = await pages.signedIn("/actions/premium-search-company-employees");
  const sent = trackSubmissions(page);
  await fill(page, { Company: "Initech", Keywords: "staplers" });
  await field(page, "Max results").fill("3");
  await page.getByLabel("Async: queue it and watch the run").check();
  await page.getByRole("button", { name: "Queue run" }).click();
  await page.waitForURL(/\/runs\//);
  const firstRun = runIdOf(page);
  const again = page.locator('[data-field="run-again"]');
  await again.waitFor();
  await screenshot(page, "run-again");
  await again.click();
  await page.waitForURL(/\/actions\/premium-search-company-employees$/);
  assert.equal(await field(page, "Company").inputValue(), "Initech");
  assert.equal(await field(page, "Keywords").inputValue(), "staplers");
  assert.equal(await field(page, "Max results").inputValue(), "3");
  assert.equal(await field(page, "Max credits").inputValue(), "", "the cap it was sent with was the estimate, not a choice");
  assert.equal(await page.getByLabel("Async: queue it and watch the run").isChecked(), true, "the mode it was sent in");
  await field(page, "Keywords").fill("red staplers");
  await page.getByRole("button", { name: "Queue run" }).click();
  await page.waitForURL((url) => url.pathname.startsWith("/runs/") && !url.pathname.endsWith(firstRun));
  assert.equal(sent.length, 2);
  assert.notEqual(sent[0].key, sent[1].key, "a new submission has a new key");
  assert.deepEqual(sent[1].body, { input: { company: "Initech", keywords: "red staplers" }, max_credits: 3, max_results: 3 });

  // A run made elsewhere (here: straight through the API): its input is not known here.
  const other = await api(sandbox, "POST", "/v1/actions/network-search-groups/run/async", { key: `elsewhere-${Date.now()}`, body: { input: { query: "made elsewhere" } } });
  await go(page, `/runs/${other.json.id}`);
  await page.locator('[data-field="input-unknown"]').waitFor();
  assert.equal(await page.locator('[data-field="run-again"]').count(), 0);
  assert.match(await page.locator('[data-field="input-unknown"]').textContent(), /not known/);
  assert.deepEqual(besides(problems), []);
});
