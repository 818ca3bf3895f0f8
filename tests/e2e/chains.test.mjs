// Chains end to end (issue 59): 20 profile URLs with 4 repeats → their posts (the first 3 of
// each) → the comments of each post (5 each). The worst case is on screen before any request;
// the sandbox makes exactly one run per distinct input at each step, a reload in the second step
// included; what is charged equals the runs' credits_used and stays under the preview; the
// joined CSV has one row per comment and path with its profile and post columns. A budget below
// the worst case pauses the chain there. Headless Chromium against the sandbox.
import { readFile } from "node:fs/promises";
import { expect, withSandbox } from "./fixtures.mjs";
import { api, controlVisibility, go, parseCsv, screenshot, seriousViolations, signIn, signInAt, signInFromStart } from "./harness.mjs";
import { leaks, workspaceTexts } from "./personal.mjs";

const test = withSandbox({ args: ["--queue-ms", "40", "--process-ms", "80", "--rate-burst", "30", "--rate-per-sec", "40"] });

const PEOPLE = "network-extract-people";
const POSTS = "network-extract-people-post-activity";
const COMMENTS = "network-extract-post-commenters";

/** 16 profiles, then 4 of them again as a person would write them. */
function profileCsv() {
  const handles = ["ada", "bob", "cy", "dee", "eve", "fay", "gus", "hal"];
  const urls = [];
  for (let i = 0; i < 16; i++) urls.push(`https://www.network.com/in/${handles[i % 8]}-${i}`);
  for (const i of [1, 5, 9, 13]) urls.push(`https://network.com/in/${handles[i % 8]}-${i}/`);
  return ["identifier", ...urls].join("\n") + "\n";
}

/** Every async submission the page makes, by idempotency key: its action and input. */
function recordSubmissions(page) {
  const byKey = new Map();
  page.on("request", (request) => {
    const path = new URL(request.url()).pathname;
    const match = path.match(/^\/v1\/actions\/([^/]+)\/run\/async$/);
    if (request.method() !== "POST" || !match) return;
    const body = JSON.parse(request.postData() ?? "{}");
    byKey.set(request.headers()["idempotency-key"], { action: match[1], input: JSON.stringify(body.input) });
  });
  return byKey;
}

/**
 * A chain of people → posts → comments with the spreadsheet `csv`: `posts` records per profile,
 * then the comments (`comments` each) of the first `postsFollowed` posts of each.
 */
async function prepareChain(page, { csv, posts, postsFollowed, comments, name }) {
  await page.locator("#chain-first-action").selectOption(PEOPLE);
  if (name) await page.locator("#chain-name").fill(name);
  await page.locator("#chain-action-1").selectOption(POSTS);
  await page.locator("#chain-max-1").fill(String(posts));
  await expect(page.locator("#chain-action-2")).toBeVisible();
  await page.locator("#chain-action-2").selectOption(COMMENTS);
  await page.locator("#chain-first-2").fill(String(postsFollowed));
  await page.locator("#chain-max-2").fill(String(comments));
  await page.locator("#bulk-text").fill(csv);
}

/** The example: 20 profile URLs with 4 repeats → posts (first 3) → comments (first 5). */
const preparePlan = (page) => prepareChain(page, { csv: profileCsv(), posts: 3, postsFollowed: 3, comments: 5, name: "Profiles, posts, comments" });

/** `urls` → their posts (the first 2 of each) → the comments of the first 2 posts (2 each). */
const prepareSmallChain = (page, urls) => prepareChain(page, { csv: ["identifier", ...urls].join("\n") + "\n", posts: 2, postsFollowed: 2, comments: 2 });

/** The chain's joined CSV, downloaded: its header and rows. */
async function joinedCsv(page) {
  const [download] = await Promise.all([page.waitForEvent("download"), page.locator('[data-field="export-joined-csv"]').click()]);
  const [header, ...rows] = parseCsv(await readFile(await download.path(), "utf8"));
  return { header, rows };
}

/** What the preview must say: rows × records × credits per record, step by step. */
async function expectedWorstCase(sandbox) {
  const actions = (await api(sandbox, "GET", "/v1/actions")).json.actions;
  const price = (id) => actions.find((a) => a.id === id).credits_per_record;
  const ceiling = (id) => Math.min(actions.find((a) => a.id === id).max_results, 100);
  const people = 16 * Math.min(1, ceiling(PEOPLE)) * price(PEOPLE);
  const posts = 16 * Math.min(3, ceiling(POSTS)) * price(POSTS);
  const comments = 16 * 3 * Math.min(5, ceiling(COMMENTS)) * price(COMMENTS);
  return people + posts + comments;
}

async function confirmIfAsked(page) {
  const dialog = page.locator('[data-field="confirm-spend"][open]');
  if (await dialog.isVisible()) await page.locator('[data-field="confirm-spend-yes"]').click();
}

/**
 * Lets the comments submissions of the first `keys` keys through and holds every later key's on
 * its way (never answered), so that a reload comes with sends the API may or may not have seen;
 * resolves to a function that counts the submissions held.
 */
async function holdCommentsAfter(page, keys) {
  const through = new Set();
  let held = 0;
  await page.route(`**/v1/actions/${COMMENTS}/run/async`, async (route) => {
    const key = route.request().headers()["idempotency-key"];
    if (!through.has(key) && through.size >= keys) {
      held += 1;
      return;
    }
    through.add(key);
    await route.continue();
  });
  return () => held;
}

/**
 * Reloads the page showing a chain (its held submissions let go first), signs in again (the
 * credential was in memory only), goes on with the chain held there and waits until it is done.
 */
async function reloadAndGoOn(page, sandbox) {
  await page.unrouteAll({ behavior: "ignoreErrors" });
  await page.reload();
  await expect(page).toHaveURL(/\/sign-in/);
  await signIn(page, sandbox.api_key);
  await expect(page.locator('[data-field="chain-held"]')).toBeVisible();
  await page.locator('[data-field="go-on-held"]').click();
  await expect(page.locator('[data-field="chain"]')).toHaveAttribute("data-standing", "done", { timeout: 90_000 });
}

/** Pushes to `keys` the Idempotency-Key of every posts submission `page` sends. */
function recordPostKeys(page, keys) {
  page.on("request", (r) => {
    if (r.method() === "POST" && new URL(r.url()).pathname === `/v1/actions/${POSTS}/run/async`) keys.push(r.headers()["idempotency-key"]);
  });
}

/**
 * A first tab in a fresh context starts profiles → posts (2 each) over `urls`, one of which
 * fails, so step 1 waits for a person; resolves once it does, with the context, the tab, its
 * problems, and the posts keys each tab sends (`sent.first`, `sent.second`).
 */
async function chainWaitingInFirstTab(sandbox, pages, urls) {
  const { context, page: first, problems } = await pages.open();
  await signInAt(first, sandbox, "/chains", sandbox.api_key);
  const sent = { first: [], second: [] };
  recordPostKeys(first, sent.first);
  await first.locator("#chain-first-action").selectOption(PEOPLE);
  await first.locator("#chain-action-1").selectOption(POSTS);
  await first.locator("#chain-max-1").fill("2");
  await first.locator('[data-field="remove-step"]').click();
  await first.locator("#bulk-text").fill(["identifier", ...urls].join("\n") + "\n");
  await first.locator('[data-field="start-chain"]').click();
  await confirmIfAsked(first);
  await expect(first.locator('[data-field="chain"]')).toHaveAttribute("data-standing", "decide-1", { timeout: 60_000 });
  return { context, first, problems, sent };
}

/** A second tab of `context` (`prepare`d before it loads) opens the kept chain, waiting at step 1. */
async function secondTabShowingChain(sandbox, context, sent, prepare = async () => {}) {
  const second = await context.newPage();
  await prepare(second);
  const secondProblems = [];
  second.on("pageerror", (err) => secondProblems.push(err.message));
  second.on("console", (msg) => { if (msg.type() === "error") secondProblems.push(msg.text()); });
  recordPostKeys(second, sent.second);
  await signInAt(second, sandbox, "/workspace", sandbox.api_key);
  await go(second, "/chains");
  await second.locator('[data-field="kept-chains"] [data-field="open-chain"]').first().click();
  await expect(second.locator('[data-field="chain"]')).toHaveAttribute("data-standing", "decide-1");
  return { second, secondProblems };
}

test("a chain runs each distinct input once, survives a reload in step 2, and joins its rows", async ({ sandbox, pages }) => {
  const before = (await api(sandbox, "GET", "/v1/workspace")).json;
  const { page, problems } = await pages.signedIn("/chains");
  const submissions = recordSubmissions(page);
  await preparePlan(page);
  const worst = await expectedWorstCase(sandbox);
  await expect(page.locator('[data-field="chain-worst-case"]')).toHaveAttribute("data-credits", String(worst));
  await expect(page.locator('[data-field="chain-step-worst"]')).toHaveCount(3);
  await expect(page.locator('[data-field="chain-step-worst"]').first()).toContainText("16 distinct rows");
  expect(await seriousViolations(page)).toEqual([]);
  await screenshot(page, "chain-prepare");
  expect(submissions.size).toBe(0);

  await page.locator('[data-field="start-chain"]').click();
  await confirmIfAsked(page);
  const chain = page.locator('[data-field="chain"]');
  await expect(chain).toHaveAttribute("data-standing", "step-2", { timeout: 60_000 });
  // A reload while step 2 runs: the address names the chain, which is shown again, held (a
  // reload sends nothing by itself), and goes on with the same keys when the person says so.
  await expect(page).toHaveURL(/\/chains\?chain=[0-9a-f]{32}$/);
  await page.reload();
  // The credential was in memory only: sign in again, and the chain's address is back.
  await expect(page).toHaveURL(/\/sign-in/);
  await signIn(page, sandbox.api_key);
  await expect(page).toHaveURL(/\/chains\?chain=[0-9a-f]{32}$/);
  await expect(page.locator('[data-field="chain-held"]')).toBeVisible();
  await page.locator('[data-field="go-on-held"]').click();
  await expect(chain).toHaveAttribute("data-standing", "done", { timeout: 90_000 });
  expect(await seriousViolations(page)).toEqual([]);
  await screenshot(page, "chain-done");

  // One run per distinct input at each step, whatever was sent again after the reload.
  const runs = (await api(sandbox, "GET", "/v1/runs")).json.runs;
  const keyed = [...submissions.values()];
  for (const action of [PEOPLE, POSTS, COMMENTS]) {
    const inputs = keyed.filter((s) => s.action === action).map((s) => s.input);
    const distinct = new Set(inputs);
    const made = runs.filter((r) => r.action === action);
    expect(made.length, action).toBe(distinct.size);
  }
  expect(runs.filter((r) => r.action === PEOPLE).length).toBe(16);
  expect(runs.filter((r) => r.action === POSTS).length).toBeLessThanOrEqual(16);
  expect(runs.filter((r) => r.action === COMMENTS).length).toBeLessThanOrEqual(48);
  // What was charged is what the runs used, and no more than the preview said.
  const after = (await api(sandbox, "GET", "/v1/workspace")).json;
  const used = runs.reduce((sum, r) => sum + r.credits_used, 0);
  expect(before.credits_balance - after.credits_balance, "credits spent").toBe(used);
  expect(after.credits_reserved).toBe(0);
  expect(used).toBeLessThanOrEqual(worst);

  // The joined CSV: one row per comment and path, with its profile's and its post's columns.
  const { header, rows } = await joinedCsv(page);
  const column = (name) => header.indexOf(name);
  for (const name of ["line", "input.identifier", "step1.run_id", "step1.network_profile_identifier", "step2.run_id", "step2.social_id", "step3.run_id", "step3.record"]) {
    expect(header, name).toContain(name);
  }
  const commentRuns = runs.filter((r) => r.action === COMMENTS && r.status === "completed");
  const records = commentRuns.reduce((sum, r) => sum + (r.output?.length ?? 0), 0);
  expect(rows.length).toBeGreaterThanOrEqual(records);
  const mismatches = [];
  const commentIds = new Set(commentRuns.map((r) => r.id));
  for (const row of rows) {
    if (!row[column("input.identifier")] || !row[column("step2.social_id")]) mismatches.push(`blank lineage: ${row.join(",")}`);
    if (!commentIds.has(row[column("step3.run_id")])) mismatches.push(`unknown comment run ${row[column("step3.run_id")]}`);
  }
  expect(mismatches).toEqual([]);
  // Each joined row's post is one whose comments were asked for, with its social_id as returned.
  const askedPosts = new Set([...submissions.values()].filter((s) => s.action === COMMENTS).map((s) => JSON.parse(s.input).social_id));
  const joinedPosts = new Set(rows.map((row) => row[column("step2.social_id")]));
  expect([...joinedPosts].filter((id) => !askedPosts.has(id))).toEqual([]);
  // The same rows in the output explorer.
  await page.locator('[data-field="explore-joined"]').click();
  await expect(page.locator('[data-field="joined-count"]')).toHaveText(`${rows.length.toLocaleString("en-US")} joined rows shown.`);

  // Back to the list, the chain is kept; forgotten, its steps' batches go with it.
  await page.locator('[data-field="close-chain"]').click();
  await expect(page.locator('[data-field="kept-chains"] li')).toHaveCount(1);
  await page.locator('[data-field="forget-chain"]').click();
  await expect(page.locator('[data-field="kept-chains"]')).toHaveCount(0);
  await page.getByRole("link", { name: "Bulk", exact: true }).click();
  await expect(page.getByRole("heading", { name: "Bulk runs" })).toBeVisible();
  await expect(page.locator('[data-field="batch"]')).toHaveCount(0);
  await expect(page.locator('[data-field="saved-batches"]')).toHaveCount(0);
  expect(problems).toEqual([]);
});

test("a budget below the worst case pauses the chain before the step it cannot pay for", async ({ sandbox, pages }) => {
  // The file's sandbox is shared with the test before: only the runs made from here count.
  const earlier = new Set((await api(sandbox, "GET", "/v1/runs")).json.runs.map((r) => r.id));
  const before = (await api(sandbox, "GET", "/v1/workspace")).json;
  const { page, problems } = await pages.signedIn("/chains");
  const submissions = recordSubmissions(page);
  await preparePlan(page);
  const actions = (await api(sandbox, "GET", "/v1/actions")).json.actions;
  const firstStep = 16 * actions.find((a) => a.id === PEOPLE).credits_per_record;
  await page.locator("#bulk-budget").fill(String(firstStep));
  await expect(page.locator('[data-field="chain-worst-case"]')).toContainText(`pauses at its budget of ${firstStep}`);
  await page.locator('[data-field="start-chain"]').click();
  await confirmIfAsked(page);
  const chain = page.locator('[data-field="chain"]');
  await expect(chain).toHaveAttribute("data-standing", /^(budget-2|step-2)$/, { timeout: 60_000 });
  await expect(page.locator('[data-field="chain-out-of-budget"], [data-field="paused-reason"]').first()).toBeVisible({ timeout: 60_000 });
  const runs = (await api(sandbox, "GET", "/v1/runs")).json.runs.filter((r) => !earlier.has(r.id));
  expect(runs.filter((r) => r.action === COMMENTS)).toHaveLength(0);
  const used = runs.reduce((sum, r) => sum + r.credits_used, 0);
  expect(used).toBeLessThanOrEqual(firstStep);
  const paused = (await api(sandbox, "GET", "/v1/workspace")).json;
  expect(before.credits_balance - paused.credits_balance + paused.credits_reserved).toBeLessThanOrEqual(firstStep);
  await screenshot(page, "chain-budget");
  // A higher budget lets it go on to the end.
  await page.locator("#chain-budget").fill("100000");
  await page.locator('[data-field="set-chain-budget"]').click();
  const resume = page.getByRole("button", { name: "Resume", exact: true });
  if (await resume.isVisible()) await resume.click();
  await expect(chain).toHaveAttribute("data-standing", "done", { timeout: 90_000 });
  expect([...submissions.values()].some((s) => s.action === COMMENTS)).toBe(true);
  expect(problems).toEqual([]);
});

test("a chain is saved by name, exported, and a file that does not match the contract is refused whole", async ({ sandbox, pages }) => {
  const { page, problems } = await pages.signedIn("/chains");
  await preparePlan(page);
  await page.locator('[data-field="save-chain"]').click();
  await expect(page.locator('[data-field="chain-said"]')).toHaveText("Saved the chain “Profiles, posts, comments”.");
  await expect(page.locator('[data-field="saved-chains"] li')).toHaveCount(1);
  const [download] = await Promise.all([page.waitForEvent("download"), page.locator('[data-field="export-chain"]').click()]);
  const exported = await readFile(await download.path(), "utf8");
  expect(JSON.parse(exported)).toMatchObject({ format: "console-chain", version: 1, chain: { name: "Profiles, posts, comments" } });

  // A step the contract does not chain: refused with the reason, and the plan is unchanged.
  const hostile = JSON.parse(exported);
  hostile.chain.steps[1].action = "network-extract-company";
  await page.locator('[data-field="import-chain"]').setInputFiles({ name: "bad.json", mimeType: "application/json", buffer: Buffer.from(JSON.stringify(hostile)) });
  await expect(page.locator('[data-field="chain-said"]')).toContainText("The file was not imported, and nothing changed");
  await expect(page.locator("#chain-action-2")).toHaveValue(COMMENTS);

  // Another plan typed over it, then the file imported back: the plan is the file's.
  await page.locator("#chain-action-2").selectOption("network-extract-post-likers");
  await page.locator('[data-field="import-chain"]').setInputFiles({ name: "chain.json", mimeType: "application/json", buffer: Buffer.from(exported) });
  await expect(page.locator('[data-field="chain-said"]')).toHaveText("Imported the chain “Profiles, posts, comments”.");
  await expect(page.locator("#chain-action-2")).toHaveValue(COMMENTS);
  await expect(page.locator("#chain-max-2")).toHaveValue("5");

  // The saved chain is there after a reload (and a new sign-in), and delete removes it.
  await page.reload();
  await expect(page).toHaveURL(/\/sign-in/);
  await signIn(page, sandbox.api_key);
  await expect(page.locator('[data-field="saved-chains"] li')).toHaveCount(1);
  await page.locator("#chain-action-2").selectOption("network-extract-post-likers");
  await page.locator('[data-field="use-chain"]').click();
  await expect(page.locator("#chain-action-2")).toHaveValue(COMMENTS);
  await page.locator('[data-field="delete-chain"]').click();
  await expect(page.locator('[data-field="chain-said"]')).toHaveText("Deleted the chain “Profiles, posts, comments”.");
  await expect(page.locator('[data-field="saved-chains"]')).toHaveCount(0);
  expect(problems).toEqual([]);
});

test("presenter mode hides the chain's inputs, its steps' rows and every joined row; an export asks first", async ({ sandbox, pages }) => {
  const { page, problems } = await pages.signedIn("/chains");
  await page.locator('[data-field="presenter-toggle"]').click();
  await expect(page.locator('[data-field="presenter-band"]')).toBeVisible();
  await page.locator("#chain-first-action").selectOption(PEOPLE);
  await page.locator("#chain-action-1").selectOption(POSTS);
  await page.locator("#chain-max-1").fill("2");
  await page.locator("#chain-action-2").selectOption(COMMENTS);
  await page.locator("#chain-first-2").fill("2");
  await page.locator("#chain-max-2").fill("2");
  const urls = ["https://www.network.com/in/grace-presenter", "https://www.network.com/in/katherine-presenter", "https://www.network.com/in/ada-presenter"];
  await page.locator("#bulk-text").fill(["identifier", ...urls].join("\n") + "\n");
  await expect(page.locator('[data-field="masked-rows"]')).toBeVisible();
  await page.locator('[data-field="start-chain"]').click();
  await confirmIfAsked(page);
  await expect(page.locator('[data-field="chain"]')).toHaveAttribute("data-standing", "done", { timeout: 60_000 });
  await page.locator('[data-field="explore-joined"]').click();
  await expect(page.locator('[data-field="joined-results"] [data-field="output-table"] tbody tr').first()).toBeVisible();
  const texts = await workspaceTexts(sandbox, [urls]);
  expect(texts.size).toBeGreaterThan(10);
  expect(await leaks(page, texts), "/chains, done, joined rows explored").toEqual([]);
  await screenshot(page, "presenter-chain-done");
  // The file holds real data: the export asks first.
  await page.locator('[data-field="export-joined-csv"]').click();
  await expect(page.locator('[data-field="confirm-real-data"]')).toContainText("The file will hold real data");
  expect(problems).toEqual([]);
});

test("a step that ends with failed runs waits for the person; going on makes the next step from the runs that completed", async ({ sandbox, pages }) => {
  const earlier = new Set((await api(sandbox, "GET", "/v1/runs")).json.runs.map((r) => r.id));
  const { page, problems } = await pages.signedIn("/chains");
  await page.locator("#chain-first-action").selectOption(PEOPLE);
  await page.locator("#chain-action-1").selectOption(POSTS);
  await page.locator("#chain-max-1").fill("2");
  await page.locator('[data-field="remove-step"]').click();
  await expect(page.locator("#chain-action-2")).toHaveCount(0);
  const urls = ["https://www.network.com/in/ada-decide", "unknown-chain-person", "https://www.network.com/in/bob-decide"];
  await page.locator("#bulk-text").fill(["identifier", ...urls].join("\n") + "\n");
  await page.locator('[data-field="start-chain"]').click();
  await confirmIfAsked(page);
  const chain = page.locator('[data-field="chain"]');
  await expect(chain).toHaveAttribute("data-standing", "decide-1", { timeout: 60_000 });
  await expect(page.locator('[data-field="chain-decide"]')).toContainText("1 run of step 1 failed. Retry it in the batch below");
  // The failed run shows its error in the step's batch, and nothing of step 2 was sent.
  await expect(page.locator('[data-field="retry-failed"]')).toHaveText("Retry 1 failed row");
  // The step's table, filtered to its failed line.
  const lines = page.locator('[data-field="batch-rows"] tbody tr');
  await page.locator("#bulk-filter").selectOption("failed");
  await expect(lines).toHaveCount(1);
  await expect(page.locator('[data-field="rows-matching"]')).toHaveText("1 row");
  await expect(lines.first()).toContainText("unknown-chain-person");
  const made = () => api(sandbox, "GET", "/v1/runs").then((r) => r.json.runs.filter((run) => !earlier.has(run.id)));
  expect((await made()).filter((r) => r.action === POSTS)).toHaveLength(0);
  await screenshot(page, "chain-decide");
  await page.locator('[data-field="go-on-without-failed"]').click();
  await expect(chain).toHaveAttribute("data-standing", "done", { timeout: 60_000 });
  // The same table now shows step 2's batch, every row of it, none of step 1's lines.
  await expect(page.locator(".chain-batch h3")).toHaveText("Step 2's batch");
  await expect(page.locator("#bulk-filter")).toHaveValue("all");
  await expect(lines).toHaveCount(2);
  await expect(lines.filter({ hasText: "network.com/in/" })).toHaveCount(0);
  await expect(lines.locator(".status-completed")).toHaveCount(2);
  const runs = await made();
  expect(runs.filter((r) => r.action === PEOPLE)).toHaveLength(3);
  expect(runs.filter((r) => r.action === PEOPLE && r.status === "failed")).toHaveLength(1);
  expect(runs.filter((r) => r.action === POSTS)).toHaveLength(2);
  expect(problems).toEqual([]);
});

test("two tabs told to go on at once: one runs the next step, the other shows it, and no submission is sent twice", async ({ sandbox, pages }) => {
  const earlier = new Set((await api(sandbox, "GET", "/v1/runs")).json.runs.map((r) => r.id));
  // One input fails, so step 1 waits for a person: both tabs are then told to go on together.
  const urls = ["https://www.network.com/in/ada-two-tabs", "unknown-two-tabs", "https://www.network.com/in/bob-two-tabs", "https://www.network.com/in/cy-two-tabs"];
  const { context, first, problems, sent } = await chainWaitingInFirstTab(sandbox, pages, urls);
  const { second, secondProblems } = await secondTabShowingChain(sandbox, context, sent);

  // Both clicks at the same instant of the shared clock (Playwright's own clicks, each with its
  // checks, can land a few hundred ms apart): both tabs make step 2's batch, with the same id
  // and keys, and only the tab granted its Web Lock may run it. Without the lock, both tabs
  // sent all three (measured: 6 submissions from 2 tabs).
  await expect(first.locator('[data-field="go-on-without-failed"]')).toBeEnabled();
  await expect(second.locator('[data-field="go-on-without-failed"]')).toBeEnabled();
  const at = Date.now() + 500;
  const clickAt = (at) => setTimeout(() => document.querySelector('[data-field="go-on-without-failed"]').click(), at - Date.now());

  await Promise.all([first.evaluate(clickAt, at), second.evaluate(clickAt, at)]);
  const made = () => api(sandbox, "GET", "/v1/runs").then((r) => r.json.runs.filter((run) => !earlier.has(run.id)));
  await expect.poll(async () => (await made()).filter((r) => r.action === POSTS && r.status === "completed").length, { timeout: 60_000 }).toBe(3);
  // One tab ran step 2 to its end; the other shows it, run elsewhere or done.
  const standings = await Promise.all([first, second].map((page) => page.locator('[data-field="chain"]').getAttribute("data-standing")));
  await expect.poll(() => Promise.all([first, second].map((page) => page.locator('[data-field="chain"]').getAttribute("data-standing")))).toContain("done");
  const keys = [...sent.first, ...sent.second];
  const tabsThatSent = [sent.first, sent.second].filter((k) => k.length > 0).length;
  expect({ keys: keys.length, distinct: new Set(keys).size, tabsThatSent, standings: standings.length }).toEqual({ keys: 3, distinct: 3, tabsThatSent: 1, standings: 2 });
  expect((await made()).filter((r) => r.action === POSTS)).toHaveLength(3);
  await screenshot(second, "chain-second-tab");
  expect([...problems, ...secondProblems]).toEqual([]);
});

test("a tab granted a step's lock after another tab ran the whole step takes up what that tab kept and sends nothing", async ({ sandbox, pages }) => {
  const earlier = new Set((await api(sandbox, "GET", "/v1/runs")).json.runs.map((r) => r.id));
  const urls = ["https://www.network.com/in/ada-late-lock", "unknown-late-lock", "https://www.network.com/in/bob-late-lock"];
  const { context, first, problems, sent } = await chainWaitingInFirstTab(sandbox, pages, urls);
  // The second tab's batch locks answer only once the test says so: it asks for step 2's lock
  // first, and is granted it after the first tab has made, run and finished step 2.
  const { second, secondProblems } = await secondTabShowingChain(sandbox, context, sent, (page) => page.addInitScript(() => {
    const request = navigator.locks.request.bind(navigator.locks);
    let open;
    const gate = new Promise((resolve) => { open = resolve; });
    window.__gateBatchLocks = false;
    window.__openBatchLocks = () => open();
    navigator.locks.request = (name, ...rest) =>
      window.__gateBatchLocks && name.startsWith("console-bulk-") ? gate.then(() => request(name, ...rest)) : request(name, ...rest);
  }));
  await second.evaluate(() => { window.__gateBatchLocks = true; });
  await second.locator('[data-field="go-on-without-failed"]').click();
  // The second tab now waits for step 2's lock; the first tab goes on and runs step 2 whole.
  await expect(second.locator('[data-field="chain"]')).toHaveAttribute("data-standing", "step-2");
  await first.locator('[data-field="go-on-without-failed"]').click();
  await expect(first.locator('[data-field="chain"]')).toHaveAttribute("data-standing", "done", { timeout: 60_000 });
  expect(sent.first).toHaveLength(2);

  // Granted now, the second tab finds step 2 kept: it shows it done and sends none of it again
  // (before, it made step 2 again as new and sent its two keys a second time).
  await second.evaluate(() => window.__openBatchLocks());
  await expect(second.locator('[data-field="chain"]')).toHaveAttribute("data-standing", "done", { timeout: 60_000 });
  await expect(second.locator('.batch-counts [data-count="completed"] dd')).toHaveText("2");
  expect(sent.second).toEqual([]);
  const made = (await api(sandbox, "GET", "/v1/runs")).json.runs.filter((run) => !earlier.has(run.id));
  expect(made.filter((r) => r.action === POSTS)).toHaveLength(2);
  expect([...problems, ...secondProblems]).toEqual([]);
});

test("a chain's address shows it where it stands and sends nothing until the person goes on; Back and Forward follow it", async ({ sandbox, pages }) => {
  const { page, problems } = await pages.signedIn("/chains");
  // Every submission by key (the page object lives through the reload below).
  const submissions = recordSubmissions(page);
  const sentFor = (action) => [...submissions.values()].filter((s) => s.action === action);
  await page.locator("#chain-first-action").selectOption(PEOPLE);
  await page.locator("#chain-action-1").selectOption(POSTS);
  await page.locator("#chain-max-1").fill("1");
  await page.locator('[data-field="remove-step"]').click();
  // Enough rows that the first step is still sending when it is paused (burst 30, then 40/s).
  const urls = Array.from({ length: 150 }, (_, i) => `https://www.network.com/in/held-${i}`);
  await page.locator("#bulk-text").fill(["identifier", ...urls].join("\n") + "\n");
  await page.locator('[data-field="start-chain"]').click();
  await confirmIfAsked(page);
  const chain = page.locator('[data-field="chain"]');
  await page.getByRole("button", { name: "Pause", exact: true }).click();
  await expect(page.locator('[data-field="batch"]')).toHaveAttribute("data-phase", "paused");
  // The list of steps says so too (it said "running" for a paused step).
  const firstStep = page.locator('[data-field="chain-steps"] li[data-step="1"]');
  await expect(firstStep).toHaveText(/: paused$/);
  await expect(page).toHaveURL(/\/chains\?chain=[0-9a-f]{32}$/);
  const address = new URL(page.url()).pathname + new URL(page.url()).search;

  // "Back to the chains" is a step in the history: Back shows the chain again, still paused.
  await page.locator('[data-field="close-chain"]').click();
  await expect(page).toHaveURL(/\/chains$/);
  await expect(page.locator('[data-field="kept-chains"]')).toBeVisible();
  await page.goBack();
  await expect(page).toHaveURL(new RegExp(`${address.replace("?", "\\?")}$`));
  await expect(chain).toHaveAttribute("data-standing", "step-1");
  await page.goForward();
  await expect(page.locator('[data-field="kept-chains"]')).toBeVisible();

  // The address in a fresh page (a copied link: sign in first): the chain is shown where it
  // stands, paused, and nothing is sent until "Go on".
  const sentBefore = submissions.size;
  expect(sentFor(PEOPLE).length).toBeLessThan(150);
  await page.reload();
  await expect(page).toHaveURL(/\/sign-in/);
  await signInAt(page, sandbox, address, sandbox.api_key);
  await expect(page.locator('[data-field="chain-held"]')).toBeVisible();
  await expect(chain).toHaveAttribute("data-standing", "step-1");
  await expect(page.locator('[data-field="batch"]')).toHaveAttribute("data-phase", "paused");
  await expect(firstStep).toHaveText(/: paused$/);
  await screenshot(page, "chain-held");
  expect(submissions.size).toBe(sentBefore);
  await page.locator('[data-field="go-on-held"]').click();
  await expect(firstStep).toHaveText(/: (running|done · .*)$/);
  await expect(chain).toHaveAttribute("data-standing", "done", { timeout: 90_000 });
  await expect(page.locator('[data-field="chain-held"]')).toHaveCount(0);
  // Each input of each step went under one key (a key sent again makes no second run).
  for (const action of [PEOPLE, POSTS]) {
    const sent = sentFor(action);
    expect({ action, keys: sent.length, inputs: new Set(sent.map((s) => s.input)).size }).toEqual({ action, keys: 150, inputs: 150 });
  }

  // An address naming no chain this browser keeps says so, and shows the list.
  await go(page, "/chains?chain=0123456789abcdef0123456789abcdef");
  await expect(page.locator('[data-field="chain-problem"]')).toContainText("keeps no chain");
  expect(problems).toEqual([]);
});

test("a chain whose tab is behind another runs every step to its end, held back as a hidden tab is", async ({ sandbox, pages }) => {
  const { page, problems } = await pages.open();
  const setHidden = await controlVisibility(page, { throttled: true });
  await signInFromStart(page, sandbox);
  await go(page, "/chains");
  const submissions = recordSubmissions(page);
  // Enough rows that each later step reads the step before from the store in several slices.
  const urls = Array.from({ length: 120 }, (_, i) => `https://www.network.com/in/behind-${i}`);
  await prepareSmallChain(page, urls);
  await page.locator('[data-field="start-chain"]').click();
  await confirmIfAsked(page);
  // Behind another tab from its first step on: no animation frame, timers a second at least.
  await setHidden(true);
  const chain = page.locator('[data-field="chain"]');
  await expect(chain).toHaveAttribute("data-standing", "done", { timeout: 120_000 });
  expect(await page.evaluate(() => document.visibilityState)).toBe("hidden");
  const sentFor = (action) => [...submissions.values()].filter((s) => s.action === action);
  for (const action of [PEOPLE, POSTS]) {
    const sent = sentFor(action);
    expect({ action, keys: sent.length, inputs: new Set(sent.map((s) => s.input)).size }).toEqual({ action, keys: 120, inputs: 120 });
  }
  const comments = sentFor(COMMENTS);
  expect(comments.length).toBeGreaterThan(120);
  expect(new Set(comments.map((s) => s.input)).size).toBe(comments.length);
  // Shown again, the last step's table draws its first page.
  await setHidden(false);
  await expect(page.locator('[data-field="batch-rows"] tbody tr')).toHaveCount(50);
  expect(problems).toEqual([]);
});

test("a chain started again with reuse on reuses the runs kept here at every step: nothing is sent or charged, and the joined rows are the same", async ({ sandbox, pages }) => {
  const { page, problems } = await pages.signedIn("/chains");
  const urls = ["https://www.network.com/in/ada-again", "https://www.network.com/in/bob-again", "https://www.network.com/in/cy-again"];
  await prepareSmallChain(page, urls);
  // A chain offers the choice before anything ran, as its later steps may find kept runs.
  await expect(page.locator('[data-field="reuse-answered"]')).toHaveText("No row asks what a completed run kept in this browser asked.");
  await expect(page.locator('[data-field="bulk-reuse"]')).toHaveValue("off");
  await page.locator('[data-field="start-chain"]').click();
  await confirmIfAsked(page);
  const chain = page.locator('[data-field="chain"]');
  await expect(chain).toHaveAttribute("data-standing", "done", { timeout: 60_000 });
  const first = await joinedCsv(page);
  expect(first.rows.length).toBeGreaterThan(0);
  await page.locator('[data-field="close-chain"]').click();

  // The same spreadsheet again, reusing runs newer than 24 hours.
  const before = (await api(sandbox, "GET", "/v1/workspace")).json;
  const submissions = recordSubmissions(page);
  await prepareSmallChain(page, urls);
  await expect(page.locator('[data-field="reuse-answered"]')).toHaveText("3 rows ask what completed runs kept in this browser asked.");
  await page.locator('[data-field="bulk-reuse"]').selectOption("24h");
  await expect(page.locator('[data-field="reuse-sentence"]')).toHaveText(/^3 rows reuse those results instead of being sent/);
  await expect(page.locator('[data-field="reuse-later-steps"]')).toBeVisible();
  await screenshot(page, "chain-reuse");
  await page.locator('[data-field="start-chain"]').click();
  await confirmIfAsked(page);
  await expect(chain).toHaveAttribute("data-standing", "done", { timeout: 60_000 });
  // Every line of the last step reused a run of the first chain's last step.
  const lines = page.locator('[data-field="batch-rows"] tbody tr');
  await expect(lines.first()).toBeVisible();
  await expect(lines.locator('[data-field="reused"]')).toHaveCount(await lines.count());
  await screenshot(page, "chain-reuse-done");
  expect([...submissions.values()]).toEqual([]);
  const after = (await api(sandbox, "GET", "/v1/workspace")).json;
  expect(after.credits_balance, "nothing charged").toBe(before.credits_balance);
  // The joined rows are the first chain's, run ids and all.
  const again = await joinedCsv(page);
  const runIds = ({ header, rows }) => rows.map((row) => ["step1.run_id", "step2.run_id", "step3.run_id"].map((name) => row[header.indexOf(name)]).join(" ")).sort();
  expect(runIds(again)).toEqual(runIds(first));
  expect(problems).toEqual([]);
});

test("a step with more rows than a batch holds runs as parts, one after another: each input once, across a reload in a later part, all joined", async ({ sandbox, pages }) => {
  const earlier = new Set((await api(sandbox, "GET", "/v1/runs")).json.runs.map((r) => r.id));
  const before = (await api(sandbox, "GET", "/v1/workspace")).json;
  const { page, problems } = await pages.signedIn("/chains");
  const submissions = recordSubmissions(page);
  const urls = Array.from({ length: 12 }, (_, i) => `https://www.network.com/in/parts-${i}`);
  await prepareSmallChain(page, urls);
  // 12 profiles → 12 posts rows (2 parts of 10) → up to 24 comments rows (3 parts).
  await page.locator('[data-field="chain-rows-per-batch"]').fill("10");
  await page.locator('[data-field="chain-rows-per-batch"]').press("Tab");
  await page.locator('[data-field="start-chain"]').click();
  await confirmIfAsked(page);
  const steps = page.locator('[data-field="chain-steps"] li');
  // Step 3's submissions past its first part's 10 rows are held on their way (never answered),
  // so the reload comes in its second part, with sends the API may or may not have seen.
  const held = await holdCommentsAfter(page, 10);
  await expect.poll(held, { timeout: 60_000 }).toBeGreaterThan(0);
  await expect(page.locator(".chain-batch h3")).toHaveText(/^Step 3's batch, part 2 of [23]$/);
  await expect(steps.nth(1)).toContainText(/: done · .* · 2 parts$/);
  await expect(steps.nth(2)).toContainText(/: running · part 2 of [23]$/);
  await screenshot(page, "chain-parts-running");
  await reloadAndGoOn(page, sandbox);
  await expect(steps.nth(1)).toContainText(/^Step 2 · .*: done · .* · 2 parts$/);
  await expect(steps.nth(2)).toContainText(/: done · .* · [23] parts$/);
  await screenshot(page, "chain-parts-done");

  // Each input was sent under one key, and made one run, at every step.
  const runs = (await api(sandbox, "GET", "/v1/runs")).json.runs.filter((r) => !earlier.has(r.id));
  const sent = [...submissions.entries()];
  for (const action of [PEOPLE, POSTS, COMMENTS]) {
    const keysByInput = new Map();
    for (const [key, s] of sent.filter(([, s]) => s.action === action)) keysByInput.set(s.input, [...(keysByInput.get(s.input) ?? []), key]);
    const twice = [...keysByInput.entries()].filter(([, keys]) => new Set(keys).size > 1);
    expect(twice, action).toEqual([]);
    expect(runs.filter((r) => r.action === action).length, action).toBe(keysByInput.size);
  }
  expect(runs.filter((r) => r.action === POSTS)).toHaveLength(12);
  const commentRuns = runs.filter((r) => r.action === COMMENTS);
  expect(commentRuns.length).toBeGreaterThan(20);
  expect(commentRuns.length).toBeLessThanOrEqual(24);
  const after = (await api(sandbox, "GET", "/v1/workspace")).json;
  expect(before.credits_balance - after.credits_balance, "credits spent").toBe(runs.reduce((sum, r) => sum + r.credits_used, 0));

  // The joined rows reach every part of every step: each comment run's records, on its line.
  const { header, rows } = await joinedCsv(page);
  const column = (name) => header.indexOf(name);
  const completed = commentRuns.filter((r) => r.status === "completed" && (r.output?.length ?? 0) > 0);
  expect(new Set(rows.map((row) => row[column("step3.run_id")]))).toEqual(new Set(completed.map((r) => r.id)));
  // Lines follow on from part to part (part 1: lines 2 to 11, part 2: 12 to 21, part 3: 22 on).
  const lines = (name) => rows.map((row) => Number(row[column(name)]));
  expect(Math.max(...lines("step3.line")), "step 3's last part").toBeGreaterThanOrEqual(22);
  expect(Math.max(...lines("step3.line"))).toBeLessThanOrEqual(commentRuns.length + 1);
  expect(Math.max(...lines("step2.line")), "step 2's last part").toBeGreaterThanOrEqual(12);
  expect(problems).toEqual([]);
});

test("a chain reusing kept runs and reloaded in its last step sends only what was never asked, each once, and joins the reused rows with the new", async ({ sandbox, pages }) => {
  const { page, problems } = await pages.signedIn("/chains");
  const kept = ["https://www.network.com/in/kept-ada", "https://www.network.com/in/kept-bob", "https://www.network.com/in/kept-cy"];
  const fresh = ["https://www.network.com/in/fresh-dee", "https://www.network.com/in/fresh-eve", "https://www.network.com/in/fresh-fay"];
  // A first chain over three profiles: its runs are kept in this browser.
  const firstSent = recordSubmissions(page);
  await prepareSmallChain(page, kept);
  await page.locator('[data-field="start-chain"]').click();
  await confirmIfAsked(page);
  const chain = page.locator('[data-field="chain"]');
  await expect(chain).toHaveAttribute("data-standing", "done", { timeout: 60_000 });
  const first = await joinedCsv(page);
  const firstCommentRuns = new Set(first.rows.map((row) => row[first.header.indexOf("step3.run_id")]));
  expect(firstCommentRuns.size).toBeGreaterThan(0);
  const firstPosts = new Set(first.rows.map((row) => row[first.header.indexOf("step2.social_id")]));
  const askedBefore = new Set([...firstSent.values()].map((s) => `${s.action} ${s.input}`));
  await page.locator('[data-field="close-chain"]').click();

  // The same three and three new ones, reusing runs newer than 24 hours; the new comments are held
  // on their way after two, and the page reloads in step 3.
  const earlier = new Set((await api(sandbox, "GET", "/v1/runs")).json.runs.map((r) => r.id));
  const before = (await api(sandbox, "GET", "/v1/workspace")).json;
  const submissions = recordSubmissions(page);
  await prepareSmallChain(page, [...kept, ...fresh]);
  await page.locator('[data-field="bulk-reuse"]').selectOption("24h");
  await expect(page.locator('[data-field="reuse-sentence"]')).toHaveText(/^3 rows reuse those results instead of being sent/);
  const held = await holdCommentsAfter(page, 2);
  await page.locator('[data-field="start-chain"]').click();
  await confirmIfAsked(page);
  await expect.poll(held, { timeout: 60_000 }).toBeGreaterThan(0);
  await expect(chain).toHaveAttribute("data-standing", "step-3");
  await reloadAndGoOn(page, sandbox);
  // The last step's lines of the kept profiles' posts still say they reused a run, after the reload.
  await expect(page.locator('[data-field="batch-rows"] tbody tr [data-field="reused"]')).toHaveCount(firstPosts.size);
  await screenshot(page, "chain-reuse-reloaded");

  // Nothing asked by the first chain was sent again; what was new went under one key an input,
  // and made one run an input.
  const sent = [...submissions.entries()];
  expect(sent.filter(([, s]) => askedBefore.has(`${s.action} ${s.input}`))).toEqual([]);
  const runs = (await api(sandbox, "GET", "/v1/runs")).json.runs.filter((r) => !earlier.has(r.id));
  for (const action of [PEOPLE, POSTS, COMMENTS]) {
    const keysByInput = new Map();
    for (const [key, s] of sent.filter(([, s]) => s.action === action)) keysByInput.set(s.input, new Set([...(keysByInput.get(s.input) ?? []), key]));
    expect([...keysByInput.values()].filter((keys) => keys.size > 1), action).toEqual([]);
    expect(runs.filter((r) => r.action === action).length, action).toBe(keysByInput.size);
  }
  expect(runs.filter((r) => r.action === PEOPLE)).toHaveLength(fresh.length);
  const after = (await api(sandbox, "GET", "/v1/workspace")).json;
  expect(before.credits_balance - after.credits_balance, "credits spent").toBe(runs.reduce((sum, r) => sum + r.credits_used, 0));

  // The joined rows hold the first chain's comment runs for the kept profiles and the new runs
  // for the new ones, every one of them.
  const again = await joinedCsv(page);
  const column = (name) => again.header.indexOf(name);
  const byProfile = (urls) => again.rows.filter((row) => urls.includes(row[column("input.identifier")]));
  expect(new Set(byProfile(kept).map((row) => row[column("step3.run_id")]))).toEqual(firstCommentRuns);
  const newComments = runs.filter((r) => r.action === COMMENTS && r.status === "completed" && (r.output?.length ?? 0) > 0);
  expect(new Set(byProfile(fresh).map((row) => row[column("step3.run_id")]))).toEqual(new Set(newComments.map((r) => r.id)));
  expect(problems).toEqual([]);
});
