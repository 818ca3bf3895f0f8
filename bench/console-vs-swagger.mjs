// Benchmark: the console against Swagger UI, in the same headless Chromium, against the same
// sandbox, in one run. Not part of the test suite's pass/fail. Usage (after a release build):
//   node bench/console-vs-swagger.mjs [samples]
// Writes target/bench/console-vs-swagger.json and prints a Markdown table.
import { spawn } from "node:child_process";
import { createServer, request as httpRequest } from "node:http";
import { mkdirSync, readFileSync, readdirSync, writeFileSync, existsSync } from "node:fs";
import { createInterface } from "node:readline";
import { join, extname } from "node:path";
import { gzipSync, constants } from "node:zlib";
import os from "node:os";
import { chromium } from "playwright-core";

const root = new URL("..", import.meta.url).pathname;
const SAMPLES = Number(process.argv[2] ?? 7);
const FLAGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
  "--disable-background-networking", "--disable-component-update", "--disable-sync"];

function median(xs) { const s = [...xs].sort((a, b) => a - b); const m = s.length >> 1; return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2; }
function spread(xs) { return { min: Math.min(...xs), max: Math.max(...xs) }; }
const gz = (b) => gzipSync(b, { level: constants.Z_BEST_COMPRESSION }).length;

async function startSandbox() {
  const bin = join(root, "target/release/sandbox");
  // Runs take ~5.5 s (queued 1.5 s, processing 4 s), so a watched run spans several polls.
  const child = spawn(bin, ["--addr", "127.0.0.1:0", "--dist", join(root, "dist"), "--queue-ms", "1500", "--process-ms", "4000"],
    { stdio: ["ignore", "pipe", "ignore"] });
  const line = await new Promise((resolve, reject) => {
    child.once("exit", (c) => reject(new Error(`sandbox exited ${c}`)));
    createInterface({ input: child.stdout }).once("line", resolve);
  });
  return { ...JSON.parse(line), stop: () => child.kill() };
}

// Swagger UI from npm, served from loopback; /openapi.json and /v1 are proxied to the sandbox so
// it is same-origin, like the console. Responses are gzipped, like the sandbox's.
function startSwagger(sandboxUrl) {
  const dir = join(root, "node_modules/swagger-ui-dist");
  const types = { ".html": "text/html", ".js": "text/javascript", ".css": "text/css", ".png": "image/png", ".json": "application/json" };
  const initializer = `window.onload = () => { window.ui = SwaggerUIBundle({ url: "/openapi.json", dom_id: "#swagger-ui",
    presets: [SwaggerUIBundle.presets.apis, SwaggerUIStandalonePreset], layout: "StandaloneLayout" }); };`;
  const target = new URL(sandboxUrl);
  const server = createServer((req, res) => {
    if (req.url.startsWith("/openapi.json") || req.url.startsWith("/v1/")) {
      const up = httpRequest({ host: target.hostname, port: target.port, path: req.url, method: req.method, headers: req.headers }, (r) => {
        res.writeHead(r.statusCode, r.headers); r.pipe(res);
      });
      req.pipe(up);
      return;
    }
    const name = req.url === "/" ? "index.html" : req.url.slice(1).split("?")[0];
    const body = name === "swagger-initializer.js" ? Buffer.from(initializer) : (existsSync(join(dir, name)) ? readFileSync(join(dir, name)) : null);
    if (!body) { res.writeHead(404); res.end(); return; }
    const zipped = /gzip/.test(req.headers["accept-encoding"] ?? "");
    res.writeHead(200, { "content-type": types[extname(name)] ?? "application/octet-stream", ...(zipped ? { "content-encoding": "gzip" } : {}) });
    res.end(zipped ? gzipSync(body) : body);
  });
  return new Promise((resolve) => server.listen(0, "127.0.0.1", () => resolve({ url: `http://127.0.0.1:${server.address().port}`, stop: () => server.close() })));
}

/** A fresh context with the cache disabled; counts bytes on the wire. */
async function freshPage(browser) {
  const context = await browser.newContext({ viewport: { width: 1280, height: 860 } });
  const page = await context.newPage();
  const cdp = await context.newCDPSession(page);
  await cdp.send("Network.enable");
  await cdp.send("Network.setCacheDisabled", { cacheDisabled: true });
  const wire = { bytes: 0 };
  cdp.on("Network.loadingFinished", (e) => { wire.bytes += e.encodedDataLength; });
  return { context, page, wire };
}

async function signInAndWait(page, sandbox, next, readySelector, count) {
  await page.goto(`${sandbox.url}/sign-in?next=${next}`);
  await page.getByLabel("API key or session token").fill(sandbox.api_key);
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.waitForFunction(([sel, n]) => document.querySelectorAll(sel).length >= n, [readySelector, count], { polling: "raf" });
  return page.evaluate(() => performance.now());
}

function distSizes() {
  const sizes = {};
  for (const name of readdirSync(join(root, "dist"))) {
    const kind = { ".wasm": "wasm", ".js": "js", ".css": "css", ".html": "html" }[extname(name)];
    if (!kind) continue;
    const b = readFileSync(join(root, "dist", name));
    sizes[kind] = { raw: b.length, gzip: gz(b) };
  }
  sizes.total = Object.values(sizes).reduce((a, s) => ({ raw: a.raw + s.raw, gzip: a.gzip + s.gzip }), { raw: 0, gzip: 0 });
  return sizes;
}

function swaggerSizes() {
  const dir = join(root, "node_modules/swagger-ui-dist");
  let raw = 0, zipped = 0;
  for (const f of ["index.html", "swagger-ui-bundle.js", "swagger-ui-standalone-preset.js", "swagger-ui.css", "index.css"]) {
    const b = readFileSync(join(dir, f)); raw += b.length; zipped += gz(b);
  }
  return { raw, gzip: zipped };
}

async function api(sandbox, method, path, body) {
  const headers = { authorization: `Bearer ${sandbox.api_key}`, "content-type": "application/json", "idempotency-key": `bench-${Date.now()}-${Math.random().toString(36).slice(2)}` };
  const res = await fetch(`${sandbox.url}${path}`, { method, headers, body: body && JSON.stringify(body) });
  return res.json();
}

/** A completed run with exactly 100 records: search people until a single page is full. */
async function runWith100Records(sandbox) {
  for (const word of ["engineer", "designer", "sales", "data", "rust", "product", "finance", "ops", "legal", "growth"]) {
    const run = await api(sandbox, "POST", "/v1/actions/premium-search-people/run/live", { input: { keywords: word }, max_results: 100 });
    if (run.output?.length === 100) return run.id;
  }
  throw new Error("no search returned 100 records");
}

/** Signs in on a fresh page and waits for the workspace, so later navigation is in-app. */
async function signedIn(browser, sandbox, { visibility = false } = {}) {
  const p = await freshPage(browser);
  if (visibility) {
    await p.page.addInitScript(() => {
      let hidden = false;
      Object.defineProperty(document, "hidden", { get: () => hidden });
      Object.defineProperty(document, "visibilityState", { get: () => (hidden ? "hidden" : "visible") });
      // When the page itself was hidden, on its own clock, so requests can be compared exactly.
      window.__hiddenSpans = [];
      window.__setHidden = (h) => {
        hidden = h;
        if (h) window.__hiddenSpans.push([performance.now(), Infinity]);
        else if (window.__hiddenSpans.length) window.__hiddenSpans.at(-1)[1] = performance.now();
        document.dispatchEvent(new Event("visibilitychange", { bubbles: true }));
      };
    });
  }
  await signInAndWait(p.page, sandbox, "/workspace", '[data-field="credits_balance"] .stat-value', 1);
  return p;
}

/** In-app navigation to a run with 100 records: ms to the table, of which after the answer. */
async function measureRunPage(browser, sandbox, runId) {
  const p = await signedIn(browser, sandbox);
  const timing = await p.page.evaluate(async (id) => {
    const t = {};
    const rows = () => document.querySelectorAll('[data-field="output-table"] tbody tr').length;
    const laidOut = new Promise((resolve) => {
      const observer = new MutationObserver(() => {
        if (t.dom || rows() < 100) return;
        t.dom = performance.now();
        observer.disconnect();
        // Once this render is done: style and layout, forced now rather than at the next frame.
        setTimeout(() => {
          document.querySelector('[data-field="output-table"]').getBoundingClientRect();
          t.layout = performance.now();
          resolve();
        }, 0);
      });
      observer.observe(document.body, { childList: true, subtree: true });
    });
    const start = performance.now();
    history.pushState({}, "", `/runs/${id}`);
    dispatchEvent(new PopStateEvent("popstate"));
    await laidOut;
    const answer = performance.getEntriesByType("resource").filter((e) => e.name.endsWith(`/v1/runs/${id}`)).at(-1);
    const button = [...document.querySelectorAll(".segmented button")].find((b) => b.textContent === "JSON");
    const jsonStart = performance.now();
    button.click();
    while (!document.querySelector('[data-field="output-json"]')) await new Promise((r) => setTimeout(r, 0));
    document.querySelector('[data-field="output-json"]').getBoundingClientRect();
    const jsonShown = performance.now();
    return { toTable: t.layout - start, domAfterAnswer: t.dom - answer.responseEnd, afterAnswer: t.layout - answer.responseEnd, toJson: jsonShown - jsonStart };
  }, runId);
  await p.context.close();
  return timing;
}

/** Watches one async run from its page: requests, in flight, after the end, while hidden. */
async function measureWatch(browser, sandbox) {
  const p = await signedIn(browser, sandbox, { visibility: true });
  const run = await api(sandbox, "POST", "/v1/actions/network-search-groups/run/async", { input: { query: "bench watch" }, max_results: 5 });
  const log = { sent: 0, inFlight: 0, maxInFlight: 0, afterEnd: 0, whileHidden: 0 };
  let ended = false;
  const mine = (r) => new URL(r.url()).pathname === `/v1/runs/${run.id}`;
  p.page.on("request", (r) => {
    if (!mine(r)) return;
    log.sent++; log.inFlight++; log.maxInFlight = Math.max(log.maxInFlight, log.inFlight);
    if (ended) log.afterEnd++;
  });
  const done = (r) => { if (mine(r)) log.inFlight--; };
  p.page.on("requestfinished", done);
  p.page.on("requestfailed", done);
  await p.page.evaluate((id) => { history.pushState({}, "", `/runs/${id}`); dispatchEvent(new PopStateEvent("popstate")); }, run.id);
  await p.page.locator(".run-head [data-status]").waitFor();
  await new Promise((r) => setTimeout(r, 1000));
  await p.page.evaluate(() => window.__setHidden(true));
  await new Promise((r) => setTimeout(r, 2500));
  await p.page.evaluate(() => window.__setHidden(false));
  await p.page.locator('.run-head [data-status="completed"]').waitFor({ timeout: 30_000 });
  ended = true;
  await new Promise((r) => setTimeout(r, 3000));
  // Requests the page started while it was hidden, both times on the page's clock (Resource
  // Timing's startTime is when the fetch began), not the script's: a poll sent just before the
  // page was told it is hidden does not count.
  log.whileHidden = await p.page.evaluate((path) => performance.getEntriesByType("resource")
    .filter((e) => new URL(e.name).pathname === path)
    .filter((e) => window.__hiddenSpans.some(([from, to]) => e.startTime >= from && e.startTime <= to)).length,
  `/v1/runs/${run.id}`);
  await p.context.close();
  return log;
}

const sandbox = await startSandbox();
const swagger = await startSwagger(sandbox.url);
const browser = await chromium.launch({ executablePath: process.env.CHROMIUM ?? "/usr/bin/chromium", headless: true, args: FLAGS });
const samples = { workspace: [], catalog: [], swagger: [], consoleWire: [], swaggerWire: [], runPage: [], runRender: [], runDom: [], toJson: [], watches: [] };
const hundred = await runWith100Records(sandbox);
try {
  for (let i = 0; i < SAMPLES; i++) {
    let p = await freshPage(browser);
    samples.workspace.push(await signInAndWait(p.page, sandbox, "/workspace", '[data-field="credits_balance"] .stat-value', 1));
    samples.consoleWire.push(p.wire.bytes);
    await p.context.close();

    p = await freshPage(browser);
    samples.catalog.push(await signInAndWait(p.page, sandbox, "/actions", "[data-action]", 16));
    await p.context.close();

    const run = await measureRunPage(browser, sandbox, hundred);
    samples.runPage.push(run.toTable);
    samples.runRender.push(run.afterAnswer);
    samples.runDom.push(run.domAfterAnswer);
    samples.toJson.push(run.toJson);
    samples.watches.push(await measureWatch(browser, sandbox));

    p = await freshPage(browser);
    await p.page.goto(swagger.url);
    await p.page.waitForFunction(() => document.querySelectorAll(".opblock").length >= 41, null, { polling: "raf", timeout: 60_000 });
    samples.swagger.push(await p.page.evaluate(() => performance.now()));
    samples.swaggerWire.push(p.wire.bytes);
    await p.context.close();
  }
} finally {
  await browser.close();
  swagger.stop();
  sandbox.stop();
}

const stat = (xs) => ({ median_ms: Math.round(median(xs)), ...Object.fromEntries(Object.entries(spread(xs)).map(([k, v]) => [`${k}_ms`, Math.round(v)])), samples: xs.map(Math.round) });
const sizes = distSizes();
const swaggerSize = swaggerSizes();
const result = {
  date: new Date().toISOString(),
  machine: `${os.cpus().length} × ${os.cpus()[0]?.model ?? "cpu"}, ${(os.totalmem() / 2 ** 30).toFixed(0)} GiB, ${os.platform()}`,
  samples: SAMPLES,
  console: {
    size: sizes,
    bytes_on_wire_to_workspace: Math.round(median(samples.consoleWire)),
    navigation_to_workspace_numbers: stat(samples.workspace),
    navigation_to_catalog_rendered: stat(samples.catalog),
    run_with_100_records: {
      navigation_to_table_rendered: stat(samples.runPage),
      dom_built_after_answer: stat(samples.runDom),
      render_after_answer: stat(samples.runRender),
      switch_to_json_view: stat(samples.toJson),
    },
    async_run_watch: {
      requests: samples.watches.map((w) => w.sent),
      max_in_flight: Math.max(...samples.watches.map((w) => w.maxInFlight)),
      requests_after_terminal_state: samples.watches.reduce((a, w) => a + w.afterEnd, 0),
      requests_while_hidden: samples.watches.reduce((a, w) => a + w.whileHidden, 0),
    },
  },
  swagger_ui: {
    version: JSON.parse(readFileSync(join(root, "node_modules/swagger-ui-dist/package.json"))).version,
    size: swaggerSize,
    bytes_on_wire: Math.round(median(samples.swaggerWire)),
    navigation_to_operations_rendered: stat(samples.swagger),
  },
};
result.ratios = {
  transfer_gzip: +(sizes.total.gzip / swaggerSize.gzip).toFixed(3),
  first_useful_content: +(result.console.navigation_to_workspace_numbers.median_ms / result.swagger_ui.navigation_to_operations_rendered.median_ms).toFixed(3),
};
mkdirSync(join(root, "target/bench"), { recursive: true });
writeFileSync(join(root, "target/bench/console-vs-swagger.json"), JSON.stringify(result, null, 2));

const kb = (n) => `${(n / 1000).toFixed(1)} KB`;
const ms = (s) => `${s.median_ms} ms (${s.min_ms}–${s.max_ms})`;
console.log(`Benchmark ${result.date.slice(0, 10)}, ${result.machine}, ${SAMPLES} samples each, median (min–max)\n`);
console.log("| measure | console | Swagger UI | ratio |");
console.log("|---|---|---|---|");
console.log(`| transfer size, gzip (raw) | ${kb(sizes.total.gzip)} (${kb(sizes.total.raw)}) | ${kb(swaggerSize.gzip)} (${kb(swaggerSize.raw)}) | ${result.ratios.transfer_gzip} |`);
console.log(`| bytes on the wire to first useful content | ${kb(result.console.bytes_on_wire_to_workspace)} | ${kb(result.swagger_ui.bytes_on_wire)} | ${(result.console.bytes_on_wire_to_workspace / result.swagger_ui.bytes_on_wire).toFixed(3)} |`);
console.log(`| navigation → first useful content (console: workspace numbers, signed in; Swagger UI: operations list) | ${ms(result.console.navigation_to_workspace_numbers)} | ${ms(result.swagger_ui.navigation_to_operations_rendered)} | ${result.ratios.first_useful_content} |`);
console.log(`| navigation → actions catalog rendered (signed in) | ${ms(result.console.navigation_to_catalog_rendered)} | | |`);
console.log(`| wasm / js / css, gzip | ${kb(sizes.wasm.gzip)} / ${kb(sizes.js.gzip)} / ${kb(sizes.css.gzip)} | | |`);
const r100 = result.console.run_with_100_records;
console.log(`| run with 100 records: in-app navigation → table rendered and laid out | ${ms(r100.navigation_to_table_rendered)} | | |`);
console.log(`| … after the answer arrived: rows in the DOM | ${ms(r100.dom_built_after_answer)} | | |`);
console.log(`| … after the answer arrived: rows in the DOM, styled and laid out | ${ms(r100.render_after_answer)} | | |`);
console.log(`| … switching to the JSON view | ${ms(r100.switch_to_json_view)} | | |`);
const w = result.console.async_run_watch;
console.log(`| async run watched to the end (runs ~5.5 s, page hidden 2.5 s of it): requests per run | ${w.requests.join(", ")} | | |`);
console.log(`| … most requests in flight / after the terminal state / while hidden | ${w.max_in_flight} / ${w.requests_after_terminal_state} / ${w.requests_while_hidden} | | |`);
