// What the benchmarks that drive Chromium over the DevTools protocol (without Playwright) share:
// bench/background-tab.mjs and bench/bulk-memory.mjs. Starting the sandbox and /usr/bin/chromium
// and stopping them whatever happens; a DevTools protocol client over Node 20's WebSocket (behind
// --experimental-websocket; no dependency); page helpers; and the console's own steps a person
// takes before a batch (sign in, open /bulk, paste rows).
//
// Importing it installs the exit and signal handlers that stop what it started.
import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createInterface } from "node:readline";
import { join, resolve } from "node:path";
import os from "node:os";

/** The repository (with a trailing slash): where target/ is and what BENCH_DIST is relative to. */
export const root = new URL("../..", import.meta.url).pathname;
/** The built console the sandbox serves: BENCH_DIST (e.g. a copy kept aside while dist/ is rebuilt), default dist/. */
export const DIST = resolve(root, process.env.BENCH_DIST ?? "dist");
/** The browser: CHROMIUM, default /usr/bin/chromium. */
export const CHROMIUM = process.env.CHROMIUM ?? "/usr/bin/chromium";
/** Chromium's own switches, none of which touches background throttling (the results record them). */
export const CHROMIUM_FLAGS = ["--headless=new", "--remote-debugging-port=0", "--no-first-run", "--no-sandbox", "--disable-gpu",
  "--disable-quic", "--disable-background-networking", "--disable-component-update", "--disable-sync"];

/** Resolves after `ms` milliseconds. */
export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
/** One CSV line, every cell quoted (as the console's Bulk page reads pasted rows). */
export const csvLine = (cells) => cells.map((c) => `"${String(c).replaceAll('"', '""')}"`).join(",");

/**
 * What every results file begins with, so that runs can be compared: when, on what machine (CPUs,
 * memory, platform, load average), which browser with which switches, which built console.
 */
export const resultsHeader = (browser) => ({
  date: new Date().toISOString(),
  machine: `${os.cpus().length} × ${os.cpus()[0]?.model ?? "cpu"}, ${(os.totalmem() / 2 ** 30).toFixed(0)} GiB, ${os.platform()}, load average ${os.loadavg().map((l) => l.toFixed(1)).join(" ")}`,
  browser,
  chromium_flags: CHROMIUM_FLAGS,
  dist: DIST,
});

/** Writes the results as target/bench/<name>.json (indented), making the folder if need be. */
export function writeResults(name, out) {
  mkdirSync(join(root, "target/bench"), { recursive: true });
  writeFileSync(join(root, `target/bench/${name}.json`), JSON.stringify(out, null, 2));
}

// ---------------------------------------------------------------------------------------------
// What a benchmark starts, stopped at the end whatever happens.

// The children (Chromium, the sandbox) and Chromium's profiles. Each child leads its own process
// group, so that stopping it stops what it started too: Chromium's renderer, GPU and crash-handler
// processes outlive its main process for a moment and keep writing into the profile. The end of
// the run stops each group and waits until none of it is left (stopAll), then removes the
// profiles; an exit any other way (a signal, a watchdog) kills what is left at once.
const children = new Set();
const profiles = new Set();
/** Sends `signal` to the child's whole process group; false when none of it is left. */
function signalGroup(child, signal) {
  try { process.kill(-child.pid, signal); return true; } catch { return false; }
}
function killNow() {
  for (const child of children) signalGroup(child, "SIGKILL");
  for (const dir of profiles) { try { rmSync(dir, { recursive: true, force: true }); } catch { /* written to as it died */ } }
}
process.on("exit", killNow);
for (const sig of ["SIGINT", "SIGTERM"]) process.on(sig, () => stopAll().finally(() => process.exit(130)));

/** Starts a child that is stopped at the end of the run; `exited` resolves when it has. */
function own(command, args, stdio) {
  const child = spawn(command, args, { stdio, detached: true });
  children.add(child);
  child.exited = new Promise((resolve) => child.once("exit", resolve).once("error", resolve));
  child.exited.then(() => children.delete(child));
  return child;
}

/**
 * Asks each child's process group to end, kills it if any of it is left after 5 s, and waits until
 * none of it is left; then removes the profiles. Call it at the end of a run.
 */
export async function stopAll() {
  await Promise.all([...children].map(async (child) => {
    signalGroup(child, "SIGTERM");
    const timer = setTimeout(() => signalGroup(child, "SIGKILL"), 5_000);
    await child.exited;
    // The group outlives its leader while the processes it started wind down (bounded: a process
    // left as a zombie, where nothing reaps orphans, still counts as one).
    for (let waited = 0; waited < 10_000 && signalGroup(child, 0); waited += 50) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    clearTimeout(timer);
  }));
  for (const dir of profiles) {
    rmSync(dir, { recursive: true, force: true, maxRetries: 5, retryDelay: 100 });
    profiles.delete(dir);
  }
}

/**
 * Runs a benchmark's `run` under a watchdog (past `watchdogMs` it says so, stops everything and
 * exits 1), and stops what it started once it is over, whatever happened, so that the results are
 * worked out with nothing left running. Resolves with `{ m }`, run's result, or `{ failure }`,
 * `describe(error)`, also printed on stderr as `<script>: the measure could not be taken: …`.
 */
export async function measure(script, run, watchdogMs, describe = (e) => e.message) {
  const watchdog = setTimeout(() => {
    console.error(`${script}: the measure could not be taken: not done within ${watchdogMs / 60_000} minutes`);
    stopAll().finally(() => process.exit(1));
  }, watchdogMs);
  try {
    return { m: await run(), failure: null };
  } catch (e) {
    const failure = describe(e);
    console.error(`${script}: the measure could not be taken: ${failure}`);
    return { m: undefined, failure };
  } finally {
    await stopAll();
    clearTimeout(watchdog);
  }
}

/**
 * The sandbox (SANDBOX_BIN, default target/release/sandbox) on a free port, serving DIST, with
 * these extra flags; resolves with the line it prints on start (url, api_key, …), its bin and flags.
 */
export async function startSandbox(flags) {
  const bin = process.env.SANDBOX_BIN ?? join(root, "target/release/sandbox");
  const args = ["--addr", "127.0.0.1:0", "--dist", DIST, ...flags];
  const child = own(bin, args, ["ignore", "pipe", "ignore"]);
  const line = await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error("sandbox did not start within 10 s")), 10_000);
    child.once("error", reject);
    child.once("exit", (c) => reject(new Error(`sandbox exited ${c}`)));
    createInterface({ input: child.stdout }).once("line", (l) => { clearTimeout(timer); resolve(l); });
  });
  return { ...JSON.parse(line), bin, flags };
}

/**
 * Chromium with CHROMIUM_FLAGS and a fresh profile (a temporary folder named from `profilePrefix`,
 * removed at the end); resolves with its browser-wide DevTools WebSocket URL.
 */
export async function startChromium(profilePrefix) {
  const profile = mkdtempSync(join(os.tmpdir(), profilePrefix));
  profiles.add(profile);
  const child = own(CHROMIUM, [...CHROMIUM_FLAGS, `--user-data-dir=${profile}`, "about:blank"], ["ignore", "ignore", "pipe"]);
  const url = await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error("Chromium printed no DevTools URL within 20 s")), 20_000);
    let seen = "";
    child.once("error", reject);
    child.once("exit", (c) => reject(new Error(`Chromium exited ${c}: ${seen.slice(-500)}`)));
    child.stderr.on("data", (d) => {
      seen += d;
      const m = seen.match(/DevTools listening on (ws:\/\/\S+)/);
      if (m) { clearTimeout(timer); resolve(m[1]); }
    });
  });
  return { url };
}

// ---------------------------------------------------------------------------------------------
// The DevTools protocol.

/** A DevTools protocol connection: commands (each bounded in time) and events by method (flat sessions). */
export class Cdp {
  static async connect(url) {
    if (typeof WebSocket !== "function") throw new Error("no WebSocket in this Node: run it with node --experimental-websocket");
    const ws = new WebSocket(url);
    await new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error("DevTools WebSocket did not open within 10 s")), 10_000);
      ws.onopen = () => { clearTimeout(timer); resolve(); };
      ws.onerror = () => { clearTimeout(timer); reject(new Error("DevTools WebSocket failed")); };
    });
    return new Cdp(ws);
  }

  constructor(ws) {
    this.ws = ws;
    this.next = 0;
    this.pending = new Map();
    this.listeners = new Map();
    ws.onmessage = (m) => {
      const msg = JSON.parse(m.data);
      if (msg.id !== undefined) {
        const p = this.pending.get(msg.id);
        if (!p) return;
        this.pending.delete(msg.id);
        if (msg.error) p.reject(new Error(`${p.method}: ${msg.error.message}`)); else p.resolve(msg.result);
      } else {
        for (const fn of this.listeners.get(msg.method) ?? []) fn(msg.params, msg.sessionId);
      }
    };
    ws.onclose = () => { for (const p of this.pending.values()) p.reject(new Error(`${p.method}: DevTools connection closed`)); this.pending.clear(); };
  }

  /** A command's result; rejects with its error, when the connection closes, or after `timeoutMs`. */
  send(method, params = {}, sessionId = undefined, timeoutMs = 30_000) {
    const id = ++this.next;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => { this.pending.delete(id); reject(new Error(`${method}: no answer within ${timeoutMs / 1000} s`)); }, timeoutMs);
      this.pending.set(id, { method, resolve: (r) => { clearTimeout(timer); resolve(r); }, reject: (e) => { clearTimeout(timer); reject(e); } });
      this.ws.send(JSON.stringify({ id, method, params, sessionId }));
    });
  }

  /** Calls `fn(params, sessionId)` on every event of this method, whichever session sent it. */
  on(method, fn) { this.listeners.set(method, [...(this.listeners.get(method) ?? []), fn]); }
  close() { try { this.ws.close(); } catch { /* closed */ } }
}

/**
 * A page target's session: its expressions' values (promises awaited, returned by value; an
 * exception in the page rejects), and a poll every 100 ms until one is truthy (rejects with
 * `what` after `timeoutMs`).
 */
export function pageOf(cdp, sessionId) {
  const evaluate = async (expression) => {
    const r = await cdp.send("Runtime.evaluate", { expression, awaitPromise: true, returnByValue: true }, sessionId);
    if (r.exceptionDetails) throw new Error(`in the page: ${r.exceptionDetails.exception?.description ?? r.exceptionDetails.text}`);
    return r.result.value;
  };
  const waitFor = async (expression, timeoutMs, what) => {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const v = await evaluate(expression).catch(() => undefined);
      if (v) return v;
      if (Date.now() > deadline) throw new Error(`${what}: not within ${timeoutMs / 1000} s`);
      await sleep(100);
    }
  };
  return { cdp, sessionId, evaluate, waitFor };
}

/** A new tab (about:blank) in the window Chromium opened, in front, attached to: its targetId, sessionId and pageOf. */
export async function openTab(cdp) {
  const { targetId } = await cdp.send("Target.createTarget", { url: "about:blank", newWindow: false });
  const { sessionId } = await cdp.send("Target.attachToTarget", { targetId, flatten: true });
  return { targetId, sessionId, page: pageOf(cdp, sessionId) };
}

/**
 * An expression that sets a field's value and fires these events on it; true when the value took.
 * Leptos listens to `input` (bind:value; a <select> to `change`): a value set from a script is
 * seen only with the event a person's typing would fire.
 */
export const setField = (selector, value, events) => `(() => {
  const el = document.querySelector(${JSON.stringify(selector)});
  if (!el) return false;
  el.value = ${JSON.stringify(value)};
  for (const type of ${JSON.stringify(events)}) el.dispatchEvent(new Event(type, { bubbles: true }));
  return el.value === ${JSON.stringify(value)};
})()`;

// ---------------------------------------------------------------------------------------------
// The console, as a person uses it. The credential is kept in the tab's memory only: after
// signIn, stay inside the app (openBulk), as a navigation would lose it.

/** Loads the sandbox's /sign-in in the tab, types the sandbox's API key and signs in; resolves at /workspace. */
export async function signIn(page, sandbox) {
  await page.cdp.send("Page.navigate", { url: `${sandbox.url}/sign-in` }, page.sessionId);
  await page.waitFor(`!!document.querySelector("#credential") && !!document.querySelector('form button[type="submit"]')`, 30_000, "the sign-in form");
  if (!(await page.evaluate(setField("#credential", sandbox.api_key, ["input"])))) throw new Error("the API key could not be typed in");
  await page.evaluate(`document.querySelector('form button[type="submit"]').click()`);
  await page.waitFor(`location.pathname === "/workspace"`, 30_000, "signed in, at /workspace");
}

/** Goes to /bulk inside the app (history.pushState, no navigation) and chooses the action. */
export async function openBulk(page, action) {
  await page.evaluate(`history.pushState({}, "", "/bulk"); dispatchEvent(new PopStateEvent("popstate")); true`);
  await page.waitFor(`!!document.querySelector('#bulk-action option[value=${JSON.stringify(action)}]') && !!document.querySelector("#bulk-text")`, 30_000, "the Bulk page with its actions");
  if (!(await page.evaluate(setField("#bulk-action", action, ["input", "change"])))) throw new Error(`the action ${action} could not be chosen`);
}

/**
 * Pastes CSV (a header and rows, arrays of cells) into the Bulk page and waits, up to `timeoutMs`,
 * until the page has checked every row, the action is still chosen and start is enabled.
 */
export async function pasteRows(page, { action, header, rows, timeoutMs }) {
  const lines = [csvLine(header), ...rows.map(csvLine)];
  await page.evaluate(setField("#bulk-text", lines.join("\n") + "\n", ["input"]));
  await page.waitFor(`Number(document.querySelector('[data-field="rows-to-send"]')?.textContent.replaceAll(",", "")) === ${rows.length}
    && document.querySelector("#bulk-action").value === ${JSON.stringify(action)}
    && !document.querySelector('[data-field="start-batch"]').disabled`, timeoutMs, `${rows.length} rows checked and the start button enabled`);
}
