// Submit forms end to end: every input shape in both modes, validation that sends nothing,
// never charged twice across a 500 and Retry or a 429 countdown, and a request preview without
// the credential (copy as code: snippets.test.mjs runs them). Headless Chromium against the sandbox.
import { expect, withSandbox } from "./fixtures.mjs";
import { screenshot, signIn, go, api, besides, signOut, runIdOf } from "./harness.mjs";

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

/** A page signed in at `path` (`pages.signedIn`), with the submissions it sends from then on (`sent`). */
async function signedInTracking(pages, path) {
  const opened = await pages.signedIn(path);
  return { ...opened, sent: trackSubmissions(opened.page) };
}

/** A field by its label; optional fields' labels end in "(optional)". */
const field = (page, label) => page.getByLabel(new RegExp(`^${label}( \\(optional\\))?$`));

const fill = async (page, fields) => {
  for (const [label, value] of Object.entries(fields)) await field(page, label).fill(value);
};

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
  const { page, problems, sent } = await signedInTracking(pages, "/actions");
  for (const [action, fields] of shapes) {
    for (const live of [true, false]) {
      await go(page, `/actions/${action}`);
      await fill(page, fields);
      await page.getByLabel(live ? "Live: wait for the result" : "Async: queue it and watch the run").check();
      await page.getByRole("button", { name: live ? "Run live" : "Queue run" }).click();
      await expect(page).toHaveURL(/\/runs\/[^/]+$/);
      const run = (await api(sandbox, "GET", `/v1/runs/${runIdOf(page)}`)).json;
      expect(run.action).toBe(action);
      await expect(page.locator(".run-head [data-status]")).toBeVisible();
      expect(sent.at(-1).path).toBe(`/v1/actions/${action}/run/${live ? "live" : "async"}`);
    }
  }
  expect(sent.length, "one request per submission").toBe(shapes.length * 2);
  expect(new Set(sent.map((s) => s.key)).size, "a new key for each logical submission").toBe(sent.length);
  for (const { key } of sent) expect(key).toMatch(/^[a-zA-Z0-9_:-]{8,128}$/);
  expect(problems).toEqual([]);
});

test("invalid input shows errors by the fields and sends nothing", async ({ pages }) => {
  const { page, problems, sent } = await signedInTracking(pages, "/actions/premium-search-person");
  await page.getByRole("button", { name: "Run live" }).click();
  // Every required field says so, and the first one has the focus.
  await expect(page.getByText("First name is required")).toBeVisible();
  await expect(page.getByText("Company is required")).toBeVisible();
  await expect(page.locator("#field-first_name")).toBeFocused();
  await expect(field(page, "First name")).toHaveAttribute("aria-invalid", "true");
  await screenshot(page, "form-errors");
  // As the person types: too long, then fixed.
  await field(page, "Last name").fill("L".repeat(101));
  await expect(page.locator("#field-last_name-error").getByText(/1 to 100 characters \(it has 101\)/)).toBeVisible();
  await field(page, "Max results").fill("0");
  await expect(page.getByText("Max results must be a whole number from 1 to")).toBeVisible();
  await page.keyboard.press("Control+Enter");
  await field(page, "Profile URL").fill("javascript:alert(1)");
  await page.getByRole("button", { name: "Run live" }).click();
  expect(sent, "nothing was sent while the input was invalid").toEqual([]);
  // The cost estimate follows the limits: 20 per enriched profile, capped by max credits.
  await go(page, "/actions/network-extract-people");
  await field(page, "Max results").fill("1");
  await expect(page.locator('[data-field="estimate"]')).toHaveText("20");
  expect(sent).toEqual([]);
  expect(problems).toEqual([]);
});

test("a 500 keeps the input; Retry reuses the key: one run, one charge", async ({ sandbox, pages }) => {
  const { page, problems, sent } = await signedInTracking(pages, "/actions/premium-search-people");
  const before = (await api(sandbox, "GET", "/v1/workspace")).json.credits_balance;
  await fill(page, { Keywords: "sandbox:500 retry once" });
  await field(page, "Max results").fill("4");
  await page.getByRole("button", { name: "Run live" }).click();
  const retry = page.getByRole("button", { name: "Retry" });
  await expect(retry).toBeVisible();
  await expect(field(page, "Keywords")).toHaveValue("sandbox:500 retry once");
  await screenshot(page, "form-retry");
  await retry.dblclick();
  await expect(page).toHaveURL(/\/runs\//);
  await expect(page.locator('.run-head [data-status="completed"]')).toBeVisible();
  expect(sent.length, "the failed attempt and one retry, even on a double click").toBe(2);
  expect(sent[0].key).toBe(sent[1].key);
  expect(sent[0].body).toEqual(sent[1].body);
  const runs = (await api(sandbox, "GET", "/v1/runs")).json.runs.filter((r) => r.output.length === 4 && r.action === "premium-search-people");
  const run = (await api(sandbox, "GET", `/v1/runs/${runIdOf(page)}`)).json;
  expect(runs.map((r) => r.id)).toContain(run.id);
  const after = (await api(sandbox, "GET", "/v1/workspace")).json.credits_balance;
  expect(before - after, "charged once").toBe(run.credits_used);
  // The header's credits follow the submission.
  await expect.poll(async () => (await page.locator('[data-field="header-available"]').textContent()).replaceAll(",", "")).toBe(String(after));
  expect(besides(problems, 500)).toEqual([]);
});

test("a 429 counts down its retry_after, then retries by itself with the same key", async ({ pages }) => {
  const { page, problems, sent } = await signedInTracking(pages, "/actions/network-search-groups");
  await fill(page, { Query: "sandbox:429 patience" });
  await page.getByRole("button", { name: "Run live" }).click();
  const countdown = page.locator('[data-field="countdown"]');
  await expect(countdown).toBeVisible();
  const first = Number(await countdown.textContent());
  expect(first, "the countdown starts at retry_after").toBeGreaterThanOrEqual(2);
  expect(first, "the countdown starts at retry_after").toBeLessThanOrEqual(3);
  await screenshot(page, "form-429-countdown");
  await expect(page).toHaveURL(/\/runs\//, { timeout: 10_000 });
  expect(sent).toHaveLength(2);
  expect(sent[0].key).toBe(sent[1].key);
  expect(besides(problems, 429)).toEqual([]);
});

test("the request preview and copy-as-code never carry the credential", async ({ sandbox, pages }) => {
  const { context, page, problems } = await pages.signedIn("/actions/premium-search-people?keywords=from%20the%20url&mode=async");
  await context.grantPermissions(["clipboard-read", "clipboard-write"]);
  await expect(field(page, "Keywords")).toHaveValue("from the url");
  await page.locator("details.preview summary").click();
  const body = JSON.parse(await page.locator('[data-field="body-preview"]').textContent());
  // Every body carries the estimate as its cap: up to 100 results at 1 credit.
  expect(body).toEqual({ input: { keywords: "from the url" }, max_credits: 100 });
  const snippet = page.locator('[data-field="code-snippet"]');
  await page.locator('button[data-language="curl"]').click();
  const curl = await snippet.textContent();
  expect(curl).toMatch(/Bearer \$API_KEY/);
  expect(curl).toMatch(/\/run\/async'/);
  expect(curl, "the key the form will send").toMatch(/Idempotency-Key: console-[0-9a-f-]{36}'/);
  await page.getByRole("button", { name: "Copy as curl" }).click();
  const copied = await page.evaluate(() => navigator.clipboard.readText());
  expect(copied).toBe(curl);
  const texts = [curl, copied];
  for (const language of ["python", "javascript", "node", "rust"]) {
    await page.locator(`button[data-language="${language}"]`).click();
    await expect(snippet).toHaveAttribute("data-language", language);
    texts.push(await snippet.textContent());
  }
  await page.locator('button[data-language="python"]').click();
  await screenshot(page, "form-preview");
  // The language picked is remembered.
  await go(page, "/actions/network-search-groups");
  await page.locator("details.preview summary").click();
  await expect(snippet).toHaveAttribute("data-language", "python");
  texts.push(await page.content());
  for (const text of texts) {
    expect(text, "the API key never appears").not.toContain(sandbox.api_key);
  }
  expect(problems).toEqual([]);
});

test("a live submission shows that it is waiting, with the time elapsed, then opens the run", async ({ pages }) => {
  const { page, problems, sent } = await signedInTracking(pages, "/actions/network-search-groups");
  await fill(page, { Query: "sandbox:slow waiting" });
  await page.getByRole("button", { name: "Run live" }).dblclick();
  const waiting = page.locator(".waiting");
  await expect(waiting.getByText(/Waiting for the run… \d/)).toBeVisible();
  await expect(page.getByRole("button", { name: "Submitting…" })).toBeDisabled();
  await expect(waiting).toContainText(/Waiting for the run… [1-9]\.\d s/);
  await screenshot(page, "form-waiting");
  await expect(page).toHaveURL(/\/runs\//);
  expect(sent.length, "a double click submits once").toBe(1);
  expect(problems).toEqual([]);
});

test("a 401 on submit leads to sign-in and back to the form with the input kept", async ({ sandbox, pages }) => {
  const session = { authorization: `Bearer ${sandbox.session_token}`, "content-type": "application/json" };
  const created = await (await fetch(`${sandbox.url}/v1/keys`, { method: "POST", headers: session, body: JSON.stringify({ name: "e2e form 401" }) })).json();
  const { page, problems } = await pages.open();
  await page.goto(`${sandbox.url}/sign-in?next=/actions/premium-search-company-employees`);
  await signIn(page, created.api_key);
  await fill(page, { Company: "Initech", Keywords: "kept across sign-in" });
  await field(page, "Max results").fill("7");
  expect((await fetch(`${sandbox.url}/v1/keys/${created.id}`, { method: "DELETE", headers: session })).status).toBe(204);
  await page.getByRole("button", { name: "Run live" }).click();
  await expect(page).toHaveURL(/\/sign-in\?next=%2Factions%2Fpremium-search-company-employees|\/sign-in\?next=\/actions\/premium-search-company-employees/);
  await signIn(page, sandbox.api_key);
  await expect(page).toHaveURL(/\/actions\/premium-search-company-employees$/);
  await expect(field(page, "Company")).toHaveValue("Initech");
  await expect(field(page, "Keywords")).toHaveValue("kept across sign-in");
  await expect(field(page, "Max results")).toHaveValue("7");
  // Signing out, by contrast, forgets what was typed.
  await signOut(page);
  await expect(page).toHaveURL(/\/sign-in$/);
  await signIn(page, sandbox.api_key);
  await expect(page).toHaveURL(/\/workspace$/);
  await go(page, "/actions/premium-search-company-employees");
  await expect(field(page, "Company")).toBeVisible();
  expect(await field(page, "Company").inputValue()).toBe("");
  expect(besides(problems, 401)).toEqual([]);
});

test("every submission carries max_credits equal to the estimate on screen, or the lower cap typed", async ({ pages }) => {
  const { page, problems, sent } = await signedInTracking(pages, "/actions/network-extract-people");
  const estimate = page.locator('[data-field="estimate"]');
  await fill(page, { Identifier: "ada-lovelace" });
  // One enriched profile: 20 credits.
  await expect(estimate).toHaveText("20");
  await page.getByLabel("Async: queue it and watch the run").check();
  await page.getByRole("button", { name: "Queue run" }).click();
  await expect(page).toHaveURL(/\/runs\//);
  expect(sent.map((s) => s.body.max_credits)).toEqual([20]);

  await go(page, "/actions/premium-search-people");
  await fill(page, { Keywords: "capped" });
  await field(page, "Max results").fill("40");
  await expect(estimate).toHaveText("40");
  await field(page, "Max credits").fill("25");
  await expect(estimate).toHaveText("25");
  await page.getByLabel("Async: queue it and watch the run").check();
  await page.getByRole("button", { name: "Queue run" }).click();
  await expect(page).toHaveURL(/\/runs\//);
  expect(sent.map((s) => s.body.max_credits)).toEqual([20, 25]);
  expect(sent[1].body.max_results).toBe(40);
  expect(besides(problems)).toEqual([]);
});

test("run again with changes: the form opens with the run's input, and makes a new run with a new key", async ({ sandbox, pages }) => {
  const { page, problems, sent } = await signedInTracking(pages, "/actions/premium-search-company-employees");
  await fill(page, { Company: "Initech", Keywords: "staplers" });
  await field(page, "Max results").fill("3");
  await page.getByLabel("Async: queue it and watch the run").check();
  await page.getByRole("button", { name: "Queue run" }).click();
  await expect(page).toHaveURL(/\/runs\//);
  const firstRun = runIdOf(page);
  const again = page.locator('[data-field="run-again"]');
  await expect(again).toBeVisible();
  await screenshot(page, "run-again");
  await again.click();
  await expect(page).toHaveURL(/\/actions\/premium-search-company-employees$/);
  await expect(field(page, "Company")).toHaveValue("Initech");
  await expect(field(page, "Keywords")).toHaveValue("staplers");
  await expect(field(page, "Max results")).toHaveValue("3");
  await expect(field(page, "Max credits"), "the cap it was sent with was the estimate, not a choice").toHaveValue("");
  await expect(page.getByLabel("Async: queue it and watch the run"), "the mode it was sent in").toBeChecked();
  await field(page, "Keywords").fill("red staplers");
  await page.getByRole("button", { name: "Queue run" }).click();
  await expect(page).toHaveURL((url) => url.pathname.startsWith("/runs/") && !url.pathname.endsWith(firstRun));
  expect(sent).toHaveLength(2);
  expect(sent[0].key, "a new submission has a new key").not.toBe(sent[1].key);
  expect(sent[1].body).toEqual({ input: { company: "Initech", keywords: "red staplers" }, max_credits: 3, max_results: 3 });

  // A run made elsewhere (here: straight through the API): its input is not known here.
  const other = await api(sandbox, "POST", "/v1/actions/network-search-groups/run/async", { key: `elsewhere-${Date.now()}`, body: { input: { query: "made elsewhere" } } });
  await go(page, `/runs/${other.json.id}`);
  await expect(page.locator('[data-field="input-unknown"]')).toHaveText(/not known/);
  await expect(page.locator('[data-field="run-again"]')).toHaveCount(0);
  expect(besides(problems)).toEqual([]);
});
