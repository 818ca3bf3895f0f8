// The nginx recipe of docs/hosting.md, run as the document prints it: its one ```nginx block,
// with the placeholders replaced (a free port, this checkout's build, the file's sandbox as the
// provider's API, the build's CSP from `sandbox headers`), inside a minimal main configuration,
// in Debian's nginx with the brotli static module (scripts/setup.sh installs both). Chromium signs
// in with an empty base URL, so every API call goes through nginx's /v1 forward, and watches an
// async run to its end; the static rules are checked on the wire.
//
// Not checked: that nginx drops a browser's Cookie and Origin and an answer's Set-Cookie. The
// sandbox records no request headers and sends no Set-Cookie, so none of it can be observed here.
import { execFileSync, spawn, spawnSync } from "node:child_process";
import { chmodSync, existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, isAbsolute, join, resolve } from "node:path";
import { expect, withSandbox } from "./fixtures.mjs";
import { api, go, screenshot, signIn, queueRun, watchRunToCompletion, unusedPort } from "./harness.mjs";

const root = new URL("../..", import.meta.url).pathname;
const dist = resolve(process.env.CONSOLE_DIST ?? join(root, "dist"));
const NGINX = process.env.NGINX ?? "/usr/sbin/nginx";
const SANDBOX = process.env.SANDBOX_BIN ?? join(root, "target", "debug", "sandbox");

// The placeholders of the document's block, each a person replaces (see docs/hosting.md).
const PLACEHOLDERS = {
  listen: "listen 8080;",
  root: "root /srv/console/dist;",
  // The provider's API: its address in the upstream block, its scheme, and its host name.
  upstreamServer: "server api.provider.example:443;",
  upstreamScheme: "proxy_pass https://provider_api;",
  upstreamHost: "api.provider.example",
  csp: "…as printed…",
};

/** The one ```nginx block of docs/hosting.md. */
function documentedServerBlock() {
  const doc = readFileSync(join(root, "docs", "hosting.md"), "utf8");
  const blocks = [...doc.matchAll(/^```nginx\n([\s\S]*?)^```[ \t]*$/gm)].map((m) => m[1]);
  expect(blocks.length, "docs/hosting.md must have exactly one ```nginx block: this test runs it").toBe(1);
  return blocks[0];
}

/** `text` with every `placeholder` replaced by `value`; fails if the document no longer has it. */
function replaceAll(text, placeholder, value) {
  expect(text, `docs/hosting.md's nginx block no longer has the placeholder ${JSON.stringify(placeholder)}: update this test with the document`).toContain(placeholder);
  return text.split(placeholder).join(value);
}

/** The Content-Security-Policy that `sandbox headers` prints for the build. */
function printedCsp() {
  const printed = execFileSync(SANDBOX, ["headers", "--dist", dist], { encoding: "utf8" });
  const csp = printed.match(/^Content-Security-Policy: (.+)$/m)?.[1];
  expect(csp, `no Content-Security-Policy in \`sandbox headers\`:\n${printed}`).toBeTruthy();
  return csp;
}

/** What `nginx -V` says it was built with (it prints to stderr). */
const nginxBuild = () => spawnSync(NGINX, ["-V"], { encoding: "utf8" }).stderr;

/**
 * The `load_module` line of Debian's brotli static module (libnginx-mod-http-brotli-static), with
 * its path made absolute: relative paths are read from the prefix, which `-p` points elsewhere.
 * Empty when nginx has the module built in or no such module is installed (then `nginx -t` says
 * `brotli_static` is unknown).
 */
function brotliStaticModule(build) {
  if (/brotli/.test(build)) return "";
  const prefix = build.match(/--prefix=(\S+)/)?.[1] ?? "/usr/share/nginx";
  for (const dir of ["/etc/nginx/modules-enabled", "/usr/share/nginx/modules-available"]) {
    if (!existsSync(dir)) continue;
    for (const name of readdirSync(dir).filter((n) => /brotli.*static.*\.conf$/.test(n)).sort()) {
      const path = readFileSync(join(dir, name), "utf8").match(/^\s*load_module\s+([^;\s]+)\s*;/m)?.[1];
      if (path) return `load_module ${isAbsolute(path) ? path : join(prefix, path)};`;
    }
  }
  return "";
}

/** Whether a user that is neither the owner nor in the group can read every file of `dir`. */
function readableByOthers(dir) {
  for (let d = dirname(dir); ; d = dirname(d)) {
    if ((statSync(d).mode & 0o001) === 0) return false;
    if (d === dirname(d)) break;
  }
  if ((statSync(dir).mode & 0o005) !== 0o005) return false;
  return readdirSync(dir).every((name) => (statSync(join(dir, name)).mode & 0o004) !== 0);
}

let nginx; // the master process, once started
let prefix; // its temporary prefix: configuration, logs, pid, temp files
const errorLog = () => (prefix && existsSync(join(prefix, "error.log")) ? readFileSync(join(prefix, "error.log"), "utf8") : "");

/** Starts nginx with the document's block for `sandbox`; resolves with its origin and the CSP. */
async function startNginx(sandbox) {
  const port = await unusedPort();
  const csp = printedCsp();
  let server = documentedServerBlock();
  server = replaceAll(server, PLACEHOLDERS.listen, `listen 127.0.0.1:${port};`);
  server = replaceAll(server, PLACEHOLDERS.root, `root ${dist};`);
  const sandboxHost = new URL(sandbox.url).host;
  server = replaceAll(server, PLACEHOLDERS.upstreamServer, `server ${sandboxHost};`);
  server = replaceAll(server, PLACEHOLDERS.upstreamScheme, "proxy_pass http://provider_api;");
  server = replaceAll(server, PLACEHOLDERS.upstreamHost, sandboxHost);
  server = replaceAll(server, PLACEHOLDERS.csp, csp);
  // Nothing else in the block (comments aside) is for a person to fill in.
  expect(server.replace(/#.*$/gm, ""), "a placeholder this test does not know is left in docs/hosting.md's block").not.toMatch(/\.example\b|…/);

  prefix = mkdtempSync(join(tmpdir(), "console-nginx-"));
  // Worker processes run as nobody when the master runs as root: they must reach the temp dirs.
  chmodSync(prefix, 0o755);
  const build = nginxBuild();
  const temp = ["client_body", "proxy", "fastcgi", "uwsgi", "scgi"]
    .filter((m) => ["client_body", "proxy"].includes(m) || !build.includes(`--without-http_${m}_module`))
    .map((m) => `    ${m}_temp_path ${join(prefix, m)};`);
  const conf = [
    "# Written by tests/e2e/nginx.test.mjs: a main configuration around docs/hosting.md's server block.",
    // As root, nginx runs its workers as nobody, who must read the build. Where some folder
    // above it is closed to other users (a checkout in a private home), they run as root instead.
    process.getuid?.() === 0 && !readableByOthers(dist)
      ? "user root; # the build is not readable by other users (see tests/e2e/nginx.test.mjs)"
      : "",
    brotliStaticModule(build),
    "worker_processes 1;",
    `pid ${join(prefix, "nginx.pid")};`,
    `error_log ${join(prefix, "error.log")} info;`,
    "events { worker_connections 256; }",
    "http {",
    "    include /etc/nginx/mime.types;",
    "    default_type application/octet-stream;",
    `    access_log ${join(prefix, "access.log")};`,
    ...temp,
    server,
    "}",
  ].filter((line) => line !== "").join("\n") + "\n";
  writeFileSync(join(prefix, "nginx.conf"), conf);
  const args = ["-p", prefix, "-c", join(prefix, "nginx.conf"), "-e", join(prefix, "error.log")];

  const check = spawnSync(NGINX, [...args, "-t"], { encoding: "utf8" });
  const hint = /brotli/.test(check.stderr) ? "(brotli_static needs libnginx-mod-http-brotli-static, which scripts/setup.sh installs)\n" : "";
  expect(check.status, `nginx -t refused the configuration:\n${check.stdout}${check.stderr}${hint}--- ${join(prefix, "nginx.conf")}:\n${conf}`).toBe(0);

  nginx = spawn(NGINX, [...args, "-g", "daemon off;"], { stdio: ["ignore", "inherit", "inherit"] });
  const exited = new Promise((resolve) => nginx.once("exit", (code, signal) => resolve({ code, signal })));
  const origin = `http://127.0.0.1:${port}`;
  const up = expect.poll(() => fetch(`${origin}/index.html`).then((r) => r.status, () => 0), { timeout: 10_000 }).toBe(200);
  const outcome = await Promise.race([up.then(() => null, (e) => e.message), exited.then((e) => `nginx stopped: ${JSON.stringify(e)}`)]);
  expect(outcome, `nginx did not answer at ${origin}: ${outcome}\n${errorLog()}`).toBeNull();
  return { origin, csp };
}

/** Stops nginx (SIGTERM: its workers go too) and removes its prefix. */
async function stopNginx() {
  if (nginx && nginx.exitCode === null && nginx.signalCode === null) {
    const exited = new Promise((resolve) => nginx.once("exit", resolve));
    nginx.kill("SIGTERM");
    const timer = setTimeout(() => nginx.kill("SIGKILL"), 5_000);
    await exited;
    clearTimeout(timer);
  }
  if (prefix) rmSync(prefix, { recursive: true, force: true });
}
// Should the runner's worker end without its hooks, nginx must not outlive it.
process.once("exit", () => nginx?.kill("SIGTERM"));

// Runs that take a few polls, through nginx.
const test = withSandbox({ args: ["--queue-ms", "600", "--process-ms", "1200"], seed: startNginx });
test.afterAll(stopNginx);

test.beforeAll(() => {
  expect(readdirSync(dist).some((n) => n.endsWith(".wasm.br")), `no .wasm.br in ${dist}: not a release build (scripts/build-console.sh)`).toBe(true);
});

test("signed in through nginx's /v1 forward, an async run is watched to completed", async ({ sandbox, seeded: { origin }, pages }) => {
  const { page, problems } = await pages.open();
  const apiCalls = [];
  page.on("request", (r) => {
    const url = new URL(r.url());
    if (url.pathname.startsWith("/v1/")) apiCalls.push({ origin: url.origin, call: `${r.method()} ${url.pathname}` });
  });
  await page.goto(`${origin}/sign-in`);
  // The base URL left empty: the console calls the origin it was loaded from, nginx.
  await expect(page.getByLabel("API base URL")).toHaveValue("");
  await signIn(page, sandbox.api_key);
  await expect(page).toHaveURL(`${origin}/workspace`);

  await go(page, "/actions/premium-search-people");
  await page.getByLabel("Keywords", { exact: true }).fill("through nginx");
  const id = await queueRun(page);
  // Watched: seen running, then completed, read through nginx; the API's (the sandbox's) run
  // agrees: the forward reached it.
  await watchRunToCompletion(page, sandbox, id);
  await screenshot(page, "nginx-run");

  // Every API call went to nginx's origin: the sign-in's check, the submission, the polls.
  expect(new Set(apiCalls.map((c) => c.origin))).toEqual(new Set([origin]));
  const calls = apiCalls.map((c) => c.call);
  expect(calls).toContain("GET /v1/workspace");
  expect(calls).toContain("POST /v1/actions/premium-search-people/run/async");
  expect(calls.filter((c) => c === `GET /v1/runs/${id}`).length).toBeGreaterThanOrEqual(2);
  expect(problems).toEqual([]);
});

test("nginx serves the build by the document's rules", async ({ seeded: { origin, csp } }) => {
  const security = (res) => {
    expect(res.headers.get("content-security-policy")).toBe(csp);
    expect(res.headers.get("x-content-type-options")).toBe("nosniff");
    expect(res.headers.get("referrer-policy")).toBe("no-referrer");
  };

  // A hashed asset: brotli when asked for it, kept for a year.
  const wasm = readdirSync(dist).find((n) => /^console-[0-9a-f]+_bg\.wasm$/.test(n));
  const asset = await fetch(`${origin}/${wasm}`, { headers: { "accept-encoding": "br" } });
  expect(asset.status).toBe(200);
  expect(asset.headers.get("content-encoding")).toBe("br");
  expect(asset.headers.get("content-type")).toBe("application/wasm");
  expect(asset.headers.get("cache-control")).toBe("public, max-age=31536000, immutable");
  expect(asset.headers.get("vary")).toBe("Accept-Encoding");
  security(asset);
  expect(Buffer.from(await asset.arrayBuffer()).equals(readFileSync(join(dist, wasm)))).toBe(true);

  // A deep link: index.html, revalidated on every visit.
  const index = readFileSync(join(dist, "index.html"), "utf8");
  for (const path of ["/runs/abc", "/", "/index.html"]) {
    const res = await fetch(`${origin}${path}`);
    expect(res.status, path).toBe(200);
    expect(res.headers.get("content-type"), path).toMatch(/^text\/html/);
    expect(res.headers.get("cache-control"), path).toBe("no-cache");
    security(res);
    expect(await res.text(), path).toBe(index);
  }

  // A hashed name that is not in this build is not the app.
  const gone = await fetch(`${origin}/console-0000000000000000_bg.wasm`);
  expect(gone.status).toBe(404);
});

test("/v1 goes to the API, never to the app", async ({ sandbox, seeded: { origin } }) => {
  const headers = { authorization: `Bearer ${sandbox.api_key}` };
  const workspace = await fetch(`${origin}/v1/workspace`, { headers });
  expect(workspace.status).toBe(200);
  expect(workspace.headers.get("x-request-id")).toMatch(/^req_/);
  expect((await workspace.json()).workspace_id).toBe((await api(sandbox, "GET", "/v1/workspace")).json.workspace_id);

  // The API's own 404 for a run it does not have, with the path as it was sent.
  const missing = await fetch(`${origin}/v1/runs/run_not_here`, { headers });
  expect(missing.status).toBe(404);
  const { error } = await missing.json();
  expect(error.request_id).toBe(missing.headers.get("x-request-id"));
  expect(error.message).toContain("run_not_here");
  // Every answer under /v1 is no page: the API's policy, nosniff, and JSON is no download.
  for (const res of [workspace, missing]) {
    expect(res.headers.get("content-security-policy")).toBe("default-src 'none'; frame-ancestors 'none'; sandbox");
    expect(res.headers.get("x-content-type-options")).toBe("nosniff");
    expect(res.headers.get("content-disposition")).toBeNull();
  }

  // What is none of the API's routes is answered by nginx and never forwarded: unknown paths,
  // ids that are not plain (a run id matching the hashed assets' pattern included: `^~` keeps
  // /v1/ away from that rule), encoded dots, methods the route does not take.
  for (const [method, path] of [
    ["GET", "/v1/nothing-here"],
    ["GET", "/v1/runs/console-0123456789abcdef.js"],
    ["GET", "/v1/..;/admin"],
    ["GET", "/v1/runs/%252e%252e"],
    ["GET", "/v1/runs/%2e%2e/outputs"],
    ["PUT", "/v1/workspace"],
    ["DELETE", "/v1/runs/run_1"],
  ]) {
    const res = await fetch(`${origin}${path}`, { method, headers });
    expect(res.status, `${method} ${path}`).toBe(404);
    expect(res.headers.get("content-type"), path).toMatch(/^application\/json/);
    expect(res.headers.get("content-security-policy"), path).toBe("default-src 'none'; frame-ancestors 'none'; sandbox");
    expect(res.headers.get("x-request-id"), `${method} ${path} reached the API`).toBeNull();
    expect((await res.json()).error.code, path).toBe("not_found");
  }
});
