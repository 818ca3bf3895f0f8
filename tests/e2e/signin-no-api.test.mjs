// Sign-in with no API behind the console's origin, as with `trunk serve` and no sandbox: the page
// says what to start. And sign-in with an API on another origin that gives no answer the
// console may read: the page tells apart nothing at that address, a server that refuses this
// console's origin (no CORS), the console's own policy, and mixed content, and says what fixes
// each (src/model/no_answer.rs). A small static server serves the build (CONSOLE_DIST, default dist/) and
// answers /v1 as a test asks: a proxy's 502, trunk's empty 500, no answer at all, or the API's 401.
import { createServer } from "node:http";
import { readFile } from "node:fs/promises";
import { extname, join, normalize } from "node:path";
import { expect, withSandbox } from "./fixtures.mjs";
import { screenshot, trySignIn, besides, unusedPort } from "./harness.mjs";

const root = new URL("../..", import.meta.url).pathname;
const dist = process.env.CONSOLE_DIST ?? join(root, "dist");
const TYPES = { ".html": "text/html", ".js": "text/javascript", ".wasm": "application/wasm", ".css": "text/css" };
const HINT = /No API answers at \/v1\. Start the sandbox: make dev/;

// For its `pages` only: the tests open blank pages (`pages.open`), which start no sandbox.
const test = withSandbox();

/** How /v1 answers: [status, content type, body]. */
let apiAnswer = [502, "text/plain", "Bad Gateway"];
let server, origin;
test.beforeAll(async () => {
  server = createServer(async (req, res) => {
    const path = new URL(req.url, "http://x").pathname;
    if (path.startsWith("/v1/")) {
      const [status, type, body] = apiAnswer;
      res.writeHead(status, { "content-type": type }).end(body);
      return;
    }
    // The files of the build, and index.html for every other path (the app's routes).
    const file = normalize(join(dist, path));
    const found = file.startsWith(dist) && extname(file) ? await readFile(file).catch(() => null) : null;
    const body = found ?? (await readFile(join(dist, "index.html")));
    res.writeHead(200, { "content-type": TYPES[found ? extname(file) : ".html"] ?? "application/octet-stream" }).end(body);
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  origin = `http://127.0.0.1:${server.address().port}`;
});
test.afterAll(async () => {
  server?.close();
});

async function tryToSignIn(pages) {
  const opened = await pages.open();
  await opened.page.goto(`${origin}/sign-in`);
  await trySignIn(opened.page, "sk_sandbox_nothing_behind");
  await expect(opened.page.getByText("Checking the credential failed")).toBeVisible();
  return opened;
}

for (const [name, answer, logged] of [
  ["a proxy's 502", [502, "text/plain", "Bad Gateway"], [502]],
  ["trunk's empty 500", [500, "text/plain", ""], [500]],
]) {
  test(`${name} for /v1 on sign-in says to start the sandbox`, async ({ pages }) => {
    apiAnswer = answer;
    const { page, problems } = await tryToSignIn(pages);
    const hint = page.getByRole("alert").filter({ hasText: HINT });
    await expect(hint).toBeVisible();
    await screenshot(page, `sign-in-no-api-${answer[0]}`);
    expect(besides(problems, ...logged)).toEqual([]);
  });
}

test("no answer at all for /v1 says to start the sandbox", async ({ pages }) => {
  const { page, problems } = await pages.open();
  await page.route("**/v1/**", (route) => route.abort("connectionrefused"));
  await page.goto(`${origin}/sign-in`);
  await trySignIn(page, "sk_sandbox_nothing_behind");
  await expect(page.getByRole("alert").filter({ hasText: HINT })).toBeVisible();
  expect(problems.filter((p) => !p.includes("net::ERR_CONNECTION_REFUSED"))).toEqual([]);
});

test("the API's own 401 is about the credential, not about starting the sandbox", async ({ pages }) => {
  apiAnswer = [401, "application/json", JSON.stringify({
    error: { code: "invalid_api_key", message: "The API key is not valid.", request_id: "req_test" },
  })];
  const { page, problems } = await tryToSignIn(pages);
  await expect(page.getByText("The API key is not valid.")).toBeVisible();
  await expect(page.getByText(HINT)).toHaveCount(0);
  expect(besides(problems, 401)).toEqual([]);
});

/** Signs in on `consoleUrl` with the API base URL `base`, and returns the alert's text. */
async function signInElsewhere(pages, consoleUrl, base) {
  const opened = await pages.open();
  await opened.page.goto(`${consoleUrl}/sign-in`);
  await opened.page.getByLabel("API base URL").fill(base);
  await trySignIn(opened.page, "sk_sandbox_elsewhere");
  await expect(opened.page.getByText("Checking the credential failed")).toBeVisible();
  return opened;
}

// This file's static server sends no Content-Security-Policy, so its console may call any origin.
test("an API origin where nothing listens says nothing answers there", async ({ pages }) => {
  const api = `http://127.0.0.1:${await unusedPort()}`;
  const { page, problems } = await signInElsewhere(pages, origin, api);
  const alert = page.getByRole("alert");
  await expect(alert).toContainText(`Nothing answers at ${api}: the server is down, or the address or port is wrong.`);
  await expect(alert).not.toContainText("CORS");
  await screenshot(page, "sign-in-nothing-answers");
  expect(problems.filter((p) => !p.includes("net::ERR_CONNECTION_REFUSED"))).toEqual([]);
});

test("an API that answers without CORS for this origin says so, and how to fix it", async ({ sandbox, pages }) => {
  // The sandbox, like an API built for servers, sends no CORS headers.
  const { page, problems } = await signInElsewhere(pages, origin, sandbox.url);
  const alert = page.getByRole("alert");
  await expect(alert).toContainText(
    `The API at ${sandbox.url} answers, but does not allow this console's origin (${origin})`,
  );
  await expect(alert).toContainText(`console-server --upstream ${sandbox.url}`);
  await expect(alert).toContainText("Authorization, Content-Type and Idempotency-Key");
  await screenshot(page, "sign-in-refuses-this-origin");
  // The browser logs the refused request, and the probe's answer (the sandbox's 401: it carried
  // no credential).
  expect(besides(problems, 401).filter((p) => !p.includes("CORS policy") && !p.includes("net::ERR_FAILED"))).toEqual([]);
});

test("an API origin the console's own policy does not allow says to leave the base URL empty", async ({ sandbox, pages }) => {
  // The sandbox serves the console with connect-src 'self': this file's server is another origin.
  const { page, problems } = await signInElsewhere(pages, sandbox.url, origin);
  const alert = page.getByRole("alert");
  await expect(alert).toContainText("The browser did not send the request");
  await expect(alert).toContainText(`not ${origin}. Leave the API base URL empty`);
  expect(problems.filter((p) => !p.includes("Content Security Policy") && !p.startsWith("CSP violation"))).toEqual([]);
});

test("an http: API from an https: console is named as mixed content", async ({ pages }) => {
  // The console at an https: origin, its files answered by the test (no server needed).
  const { page } = await pages.open();
  const secure = "https://console.test";
  await page.route(`${secure}/**`, async (route) => {
    const path = new URL(route.request().url()).pathname;
    const file = normalize(join(dist, path));
    const found = file.startsWith(dist) && extname(file) ? await readFile(file).catch(() => null) : null;
    const type = TYPES[found ? extname(file) : ".html"] ?? "application/octet-stream";
    await route.fulfill({ status: 200, contentType: type, body: found ?? (await readFile(join(dist, "index.html"))) });
  });
  await page.goto(`${secure}/sign-in`);
  await page.getByLabel("API base URL").fill("http://api.provider.example");
  await trySignIn(page, "sk_sandbox_elsewhere");
  const alert = page.getByRole("alert");
  await expect(alert).toContainText("this console is on https:, and the API at http://api.provider.example is on plain http: (mixed content)");
});
