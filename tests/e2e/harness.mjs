// Shared end-to-end harness: starts the sandbox serving the built console on a free loopback
// port, opens pages in the browser that @playwright/test launched (Debian's headless Chromium,
// playwright.config.mjs), and records every console error, console warning and page error so a
// test can fail on them.
//
// CONSOLE_DIST picks the build to serve (default: dist/, the release build). Pointed at a dev
// build (scripts/test-e2e-dev.sh), the same tests also fail on Leptos's development warnings,
// such as a signal read outside a reactive tracking context.
import { spawn } from "node:child_process";
import { mkdirSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { createServer } from "node:net";
import { createInterface } from "node:readline";
import { join } from "node:path";
import { expect } from "@playwright/test";

const root = new URL("../..", import.meta.url).pathname;
export const screenshotDir = join(root, "target", "screenshots");
mkdirSync(screenshotDir, { recursive: true });

/** Starts the sandbox; resolves with its start-up line (url, api_key, session_token, ...). */
export async function startSandbox({ dist = process.env.CONSOLE_DIST ?? join(root, "dist"), args = [] } = {}) {
  const bin = process.env.SANDBOX_BIN ?? join(root, "target", "debug", "sandbox");
  const child = spawn(bin, ["--addr", "127.0.0.1:0", "--dist", dist, ...args], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  const line = await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error("sandbox did not start within 10 s")), 10_000);
    child.once("exit", (code) => reject(new Error(`sandbox exited with ${code}`)));
    createInterface({ input: child.stdout }).once("line", (l) => {
      clearTimeout(timer);
      resolve(l);
    });
  });
  const info = JSON.parse(line);
  return { ...info, stop: () => child.kill() };
}

/** A fresh context and page whose console errors and uncaught exceptions are collected. */
export async function openPage(browser, { viewport = { width: 1280, height: 860 }, colorScheme = "light" } = {}) {
  const context = await browser.newContext({ viewport, colorScheme });
  const page = await context.newPage();
  const problems = [];
  page.on("console", (msg) => {
    if (msg.type() === "error") problems.push(`console error: ${msg.text()}`);
    // Warnings the console's own code logs (Leptos's, from the wasm through its JS glue); the
    // browser's remarks about the page itself (e.g. SRI on a wasm preload) are not the app's.
    if (msg.type() === "warning" && msg.location().url.endsWith(".js")) {
      problems.push(`console warning: ${msg.text()}`);
    }
  });
  page.on("pageerror", (err) => problems.push(`page error: ${err.message}`));
  // Every Content-Security-Policy violation is a problem, whatever the browser logs.
  await page.exposeFunction("__reportCspViolation", (v) => problems.push(`CSP violation: ${v}`));
  // An error the browser reports to the page without an exception (`pageerror` sees only
  // those), e.g. "ResizeObserver loop completed with undelivered notifications".
  await page.exposeFunction("__reportWindowError", (message) => problems.push(`window error: ${message}`));
  await page.addInitScript(() => {
    document.addEventListener("securitypolicyviolation", (e) =>
      window.__reportCspViolation(`${e.violatedDirective} blocked ${e.blockedURI}`));
    window.addEventListener("error", (e) => {
      if (!e.error) window.__reportWindowError(e.message);
    });
  });
  // A worker (the bulk worker) has a policy and a log of its own: its violations are logged
  // as errors, which its page's console reports.
  page.on("worker", (worker) => {
    worker.evaluate(() => self.addEventListener("securitypolicyviolation", (e) =>
      console.error(`CSP violation in a worker: ${e.violatedDirective} blocked ${e.blockedURI}`))).catch(() => {});
  });
  return { context, page, problems };
}

export async function screenshot(page, name) {
  const path = join(screenshotDir, `${name}.png`);
  await page.screenshot({ path, fullPage: true });
  return path;
}

/** Signs in through the form, as a person would. */
export async function signIn(page, credential) {
  await trySignIn(page, credential);
  // Signing in goes on once the credential's check answers: wait for it, so that a navigation
  // the test makes next is not undone by sign-in's own way back to where the person was headed.
  await page.waitForURL((url) => url.pathname !== "/sign-in");
  await settled(page);
}

/**
 * Signs out from the header's "Sign out…": keeping what this browser holds for the workspace,
 * or with `{ forget: true }` forgetting it; resolves on the sign-in page.
 */
export async function signOut(page, { forget = false } = {}) {
  await page.getByRole("button", { name: "Sign out…" }).click();
  const menu = page.getByRole("group", { name: "Sign out" });
  const choice = forget ? "Sign out and forget this workspace's data in this browser" : "Sign out";
  await menu.getByRole("button", { name: choice, exact: true }).click();
  await page.waitForURL(/\/sign-in/);
}

/** Submits the sign-in form with `credential`, for a test that expects it to be refused. */
export async function trySignIn(page, credential) {
  await page.getByLabel("API key or session token").fill(credential);
  await page.getByRole("button", { name: "Sign in" }).click();
}

/**
 * Navigates inside the app without reloading it, so the in-memory session stays, and waits
 * until the new page is on screen: a page whose code is in the pages' chunk keeps the old page
 * up, with `aria-busy` on the main area, until the chunk has arrived (src/pages/lazy.rs).
 */
export async function go(page, path) {
  await page.evaluate((p) => { history.pushState({}, "", p); dispatchEvent(new PopStateEvent("popstate")); }, path);
  await settled(page);
}

/** Waits until no navigation is waiting for its page's code. */
export async function settled(page) {
  // The router starts routing in a task of its own: give it that turn first.
  await page.evaluate(() => new Promise((resolve) => setTimeout(resolve, 0)));
  await page.waitForFunction(() => document.querySelector("main")?.getAttribute("aria-busy") !== "true");
}

/**
 * Watches the page's requests whose path matches `pattern`: how many were sent, the most in
 * flight at once, and when each was sent and answered.
 */
export function trackRequests(page, pattern) {
  const log = { sent: 0, inFlight: 0, maxInFlight: 0, times: [], answered: [] };
  const mine = (r) => pattern.test(new URL(r.url()).pathname) && r.method() === "GET";
  page.on("request", (r) => {
    if (!mine(r)) return;
    log.sent++;
    log.inFlight++;
    log.maxInFlight = Math.max(log.maxInFlight, log.inFlight);
    log.times.push(Date.now());
  });
  const done = (r) => {
    if (!mine(r)) return;
    log.inFlight--;
    log.answered.push(Date.now());
  };
  page.on("requestfinished", done);
  page.on("requestfailed", done);
  return log;
}

/**
 * Lets a test hide and show the page through the Page Visibility API (`document.hidden`,
 * `visibilityState` and the `visibilitychange` event), as a switch to another tab would.
 * Must be called before the page loads.
 *
 * With `{ throttled: true }` the page is also held back as Chromium holds back a hidden tab
 * (Playwright launches it with that switched off): no animation frame runs while hidden (they
 * run when the page is shown again), and every timer waits at least a second (Chromium wakes a
 * hidden page's timers once a second, then once a minute after five minutes hidden). Workers
 * are not held back, as in Chromium.
 */
export async function controlVisibility(page, { throttled = false } = {}) {
  await page.addInitScript((throttled) => {
    let hidden = false;
    Object.defineProperty(document, "hidden", { get: () => hidden });
    Object.defineProperty(document, "visibilityState", { get: () => (hidden ? "hidden" : "visible") });
    const heldFrames = [];
    if (throttled) {
      const frame = window.requestAnimationFrame.bind(window);
      const timeout = window.setTimeout.bind(window);
      window.requestAnimationFrame = (callback) => {
        if (!hidden) return frame(callback);
        heldFrames.push(callback);
        return 0;
      };
      window.setTimeout = (handler, delay, ...args) => timeout(handler, hidden ? Math.max(Number(delay) || 0, 1000) : delay, ...args);
    }
    window.__setHidden = (h) => {
      hidden = h;
      document.dispatchEvent(new Event("visibilitychange", { bubbles: true }));
      if (!hidden) for (const callback of heldFrames.splice(0)) window.requestAnimationFrame(callback);
    };
  }, throttled);
  return (hidden) => page.evaluate((h) => window.__setHidden(h), hidden);
}

/** Loads `sandbox`'s sign-in page in `page` and signs in with `credential` (its API key unless given). */
export async function signInFromStart(page, sandbox, credential = sandbox.api_key) {
  await page.goto(`${sandbox.url}/sign-in`);
  await signIn(page, credential);
}

/** Signs `page` in with `credential` on `sandbox`'s sign-in page, then goes to `path` in the app. */
export async function signInAt(page, sandbox, path, credential) {
  await signInFromStart(page, sandbox, credential);
  await page.waitForURL(/\/workspace$/);
  await go(page, path);
}

/** The id of the run whose page `page` shows (`/runs/{id}`). */
export const runIdOf = (page) => decodeURIComponent(new URL(page.url()).pathname.split("/").pop());

/**
 * Fills the action form at `path` with `fields` (labels to values) and runs it live; resolves
 * with the run's id once its page shows the run in a state `until` matches (completed unless
 * given).
 */
export async function runFromForm(page, path, fields, { until = /^completed$/ } = {}) {
  await go(page, path);
  for (const [label, value] of Object.entries(fields)) await page.getByLabel(new RegExp(`^${label}( \\(optional\\))?$`)).fill(value);
  await page.getByLabel("Live: wait for the result").check();
  await page.getByRole("button", { name: "Run live" }).click();
  await expect(page).toHaveURL(/\/runs\/[^/]+$/);
  await expect(page.locator(".run-head [data-status]")).toHaveAttribute("data-status", until, { timeout: 15_000 });
  return runIdOf(page);
}

/** Submits the action form filled in on `page` in async mode; resolves with the run's id once its page opens. */
export async function queueRun(page) {
  await page.getByLabel("Async: queue it and watch the run").check();
  await page.getByRole("button", { name: "Queue run" }).click();
  await expect(page).toHaveURL(/\/runs\/[^/]+$/);
  return runIdOf(page);
}

/**
 * On the run page of `id`, a run just queued: it is seen queued or processing (unless
 * `seenRunning` is false: on a sandbox whose runs end within a few hundred milliseconds the page
 * may first read the run completed), then completed; the API agrees, and the output table has a
 * row per record. Resolves with the run as the API answers it.
 */
export async function watchRunToCompletion(page, sandbox, id, { seenRunning = true } = {}) {
  const status = page.locator(".run-head [data-status]");
  if (seenRunning) await expect(status).toHaveAttribute("data-status", /^(queued|processing)$/);
  await expect(status).toHaveAttribute("data-status", "completed", { timeout: 15_000 });
  const run = (await api(sandbox, "GET", `/v1/runs/${id}`)).json;
  expect(run.status).toBe("completed");
  await expect(page.locator('[data-field="output-table"]')).toHaveAttribute("aria-rowcount", String(run.output.length + 1));
  await expect(page.locator('[data-field="output-table"] tbody tr').first()).toBeVisible();
  return run;
}

/** The focused table cell's row (`aria-rowindex`), column and text. */
export function focusedCell(page) {
  return page.evaluate(() => {
    const cell = document.activeElement;
    return { row: cell.parentElement?.getAttribute("aria-rowindex"), column: cell.cellIndex, text: cell.textContent };
  });
}

/**
 * A windowed table's rows read while its box is scrolled as `walk` says: first to `from` (a share
 * of its scroll range), then by `stepPx` of the box's own pixels (a view and 300 px more when
 * not given), `steps` times or, without `steps`, to the end; with `back`, to the top again at the
 * end. Each place is waited on until no row is a placeholder and the rows drawn cover the view,
 * as a person waits to read. Resolves
 * with `{ count, rows, drawnAtMost }`: `aria-rowcount` less the header row, a Map of every row
 * drawn in full on the way, in the order first reached (`aria-rowindex` less 2, or with `key` the
 * row's attribute of that name, → its cells' text), and the most rows that were in the document
 * at once. A list that grows while it is read (a log) shifts its rows' indices: read it by `key`.
 */
export async function walkRows(table, walk) {
  const { count, rows, drawnAtMost } = await table.evaluate(async (table, { from, stepPx, steps, back, key }) => {
    const box = table.closest(".windowed");
    // What the table is like now, for a failure's message.
    const state = () => `scrollTop ${box.scrollTop} of ${box.scrollHeight - box.clientHeight}, ${table.querySelectorAll("tbody tr").length} rows drawn, ${table.querySelectorAll("tbody tr[data-placeholder]").length} placeholders, table ${table.isConnected ? "in" : "out of"} the document`;
    const twoFrames = () => new Promise((resolve, reject) => {
      const stalled = setTimeout(() => reject(new Error(`no animation frame for 5 s (${state()})`)), 5_000);
      requestAnimationFrame(() => requestAnimationFrame(() => (clearTimeout(stalled), resolve())));
    });
    // A jump draws placeholders until the view has been still a moment (a fling's), as does a
    // row of records kept in the store until its records are read: wait for the rows
    // themselves; still placeholders after 300 waits of two frames (10 s at 60 Hz, about 80
    // times a fling's end) is a failure, said at once rather than at the test's timeout.
    // And the rows drawn cover the view: a table opens in stages a frame apart (the rows in
    // view, then those beyond its edges), and a loaded machine can take longer than two frames
    // between them; a row in view not drawn yet is not one to skip.
    const covered = () => {
      const drawn = table.querySelectorAll("tbody tr[aria-rowindex]");
      const total = Number(table.getAttribute("aria-rowcount")) - 1;
      if (drawn.length === 0) return total === 0;
      const view = box.getBoundingClientRect();
      const [first, last] = [drawn[0], drawn[drawn.length - 1]];
      const index = (tr) => Number(tr.getAttribute("aria-rowindex")) - 2;
      const topCovered = index(first) === 0 || first.getBoundingClientRect().top <= view.top;
      const bottomCovered = index(last) === total - 1 || last.getBoundingClientRect().bottom >= view.bottom;
      return topCovered && bottomCovered;
    };
    const waiting = () => table.querySelector("tbody tr[data-placeholder]") || !covered();
    const frame = async () => {
      await twoFrames();
      for (let i = 0; i < 300 && waiting(); i++) await twoFrames();
      if (table.querySelector("tbody tr[data-placeholder]")) throw new Error(`the rows stayed placeholders (${state()})`);
      if (!covered()) throw new Error(`the rows drawn never covered the view (${state()})`);
    };
    const rows = [];
    let drawnAtMost = 0;
    const read = () => {
      const drawn = table.querySelectorAll("tbody tr[aria-rowindex]");
      drawnAtMost = Math.max(drawnAtMost, drawn.length);
      for (const tr of drawn) {
        if (tr.hasAttribute("data-placeholder")) continue;
        rows.push([key ? tr.getAttribute(key) : Number(tr.getAttribute("aria-rowindex")) - 2, [...tr.cells].map((cell) => cell.textContent)]);
      }
    };
    const atEnd = () => box.scrollTop + box.clientHeight >= box.scrollHeight - 1;
    box.scrollTop = Math.round(from * (box.scrollHeight - box.clientHeight));
    await frame();
    read();
    for (let i = 0; steps === undefined ? !atEnd() : i < steps; i++) {
      box.scrollTop += stepPx ?? box.clientHeight + 300;
      await frame();
      read();
    }
    if (back) {
      box.scrollTop = 0;
      await frame();
    }
    return { count: Number(table.getAttribute("aria-rowcount")) - 1, rows, drawnAtMost };
  }, walk);
  return { count, rows: new Map(rows), drawnAtMost };
}

/**
 * Every row of a windowed table (`WindowedTable`: only the rows near its view are drawn), read as
 * a person would, by scrolling its box from the top to the end, a view and a little more at a
 * time (the table draws 400 px beyond each edge), then back to the top. Resolves with
 * `{ count, rows, drawnAtMost }`: `aria-rowcount` less the header row, each row's cells' text by
 * its `aria-rowindex` (null for a row never drawn in full), and the most rows that were in the
 * document at once.
 */
export async function scrollThroughRows(table) {
  const { count, rows, drawnAtMost } = await walkRows(table, { from: 0, back: true });
  return { count, rows: Array.from({ length: count }, (_, i) => rows.get(i) ?? null), drawnAtMost };
}

/**
 * The rows of a windowed table read on from a place, as a person reads with a wheel: its box
 * scrolled to `from` (a share of its scroll range), then `steps` scrolls of `stepPx` of the box's
 * own pixels, each waited on until no row is a placeholder. Resolves with `{ rows, first, last }`:
 * every row drawn in full on the way (`aria-rowindex` less 2 → its first cell's text), and the
 * first and last of them. In a box stretched over rows taller than a box may be
 * (`model::row_window::ScrollMap`), a pixel of the box is more than one of the rows'.
 */
export async function readOnFrom(table, { from, steps, stepPx }) {
  const { rows } = await walkRows(table, { from, steps, stepPx });
  const places = [...rows.keys()].sort((a, b) => a - b);
  return { rows: Object.fromEntries(places.map((place) => [place, rows.get(place)[0]])), first: places[0], last: places.at(-1) };
}

/** A loopback port on which nothing listens: one the system just gave out and took back. */
export async function unusedPort() {
  const probe = createServer();
  await new Promise((resolve) => probe.listen(0, "127.0.0.1", resolve));
  const { port } = probe.address();
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

/** Calls the API directly, as another client of the workspace would. */
export async function api(sandbox, method, path, { body, key, bearer = sandbox.api_key } = {}) {
  const headers = { authorization: `Bearer ${bearer}` };
  if (body) headers["content-type"] = "application/json";
  if (key) headers["idempotency-key"] = key;
  const res = await fetch(`${sandbox.url}${path}`, { method, headers, body: body && JSON.stringify(body) });
  return { status: res.status, headers: res.headers, json: await res.json().catch(() => null) };
}

/**
 * The problems left once the browser's own log lines for answers a test provoked on purpose
 * (e.g. the 409 of a late cancel) are set aside. Everything else still counts.
 */
export function besides(problems, ...statuses) {
  const expected = statuses.map((s) => `console error: Failed to load resource: the server responded with a status of ${s} `);
  return problems.filter((p) => !expected.some((e) => p.startsWith(e)));
}

const axeSource = readFileSync(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8");

/** Runs axe on the page as it is; DevTools evaluation is not subject to the page's CSP. */
export async function seriousViolations(page) {
  await page.evaluate(axeSource);
  const result = await page.evaluate(() => window.axe.run(document, { resultTypes: ["violations"] }));
  return result.violations
    .filter((v) => v.impact === "serious" || v.impact === "critical")
    .map((v) => `${v.id} (${v.impact}): ${v.nodes.map((n) => n.target.join(" ")).join(", ")}`);
}

/**
 * The environment a copied snippet runs in, as in a person's terminal: `API_KEY` set, and none of
 * what the test runner sets for itself (it forces colours, which would colour the status line a
 * Node.js snippet prints, and may add its own Node options).
 */
export function snippetEnvironment(apiKey) {
  const { FORCE_COLOR, NODE_OPTIONS, ...environment } = process.env;
  return { ...environment, API_KEY: apiKey };
}

/** A CSV line that quotes every cell, as a spreadsheet may save it. */
export const csvLine = (cells) => cells.map((c) => `"${String(c).replaceAll('"', '""')}"`).join(",");

/** RFC 4180 CSV (CRLF or LF line ends, as the console's exports and pasted files have) into rows of fields. */
export function parseCsv(text) {
  const rows = [];
  let row = [], field = "", quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') { field += '"'; i++; } else if (c === '"') quoted = false; else field += c;
    } else if (c === '"') quoted = true;
    else if (c === ",") { row.push(field); field = ""; }
    else if (c === "\r" && text[i + 1] === "\n") { /* the \n ends the row */ }
    else if (c === "\n") { row.push(field); rows.push(row); row = []; field = ""; }
    else field += c;
  }
  if (field !== "" || row.length) { row.push(field); rows.push(row); }
  return rows;
}
