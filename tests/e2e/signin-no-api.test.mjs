// Sign-in with no API behind the console's origin, as with `trunk serve` and no sandbox: the page
// says what to start. A small static server serves the build (CONSOLE_DIST, default dist/) and
// answers /v1 as a test asks: a proxy's 502, trunk's empty 500, no answer at all, or the API's 401.
import assert from "node:assert/strict";
import { createServer } from "node:http";
import { readFile } from "node:fs/promises";
import { extname, join, normalize } from "node:path";
import { withSandbox } from "./fixtures.mjs";
import { screenshot, trySignIn, besides } from "./harness.mjs";

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
  await opened.page.getByText("Checking the credential failed").waitFor();
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
    await assert.doesNotReject(hint.waitFor());
    await screenshot(page, `sign-in-no-api-${answer[0]}`);
    assert.deepEqual(besides(problems, ...logged), []);
  });
}

test("no answer at all for /v1 says to start the sandbox", async ({ pages }) => {
  const { page, problems } = await pages.open();
  await page.route("**/v1/**", (route) => route.abort("connectionrefused"));
  await page.goto(`${origin}/sign-in`);
  await trySignIn(page, "sk_sandbox_nothing_behind");
  await assert.doesNotReject(page.getByRole("alert").filter({ hasText: HINT }).waitFor());
  assert.deepEqual(problems.filter((p) => !p.includes("net::ERR_CONNECTION_REFUSED")), []);
});

test("the API's own 401 is about the credential, not about starting the sandbox", async ({ pages }) => {
  apiAnswer = [401, "application/json", JSON.stringify({
    error: { code: "invalid_api_key", message: "The API key is not valid.", request_id: "req_test" },
  })];
  const { page, problems } = await tryToSignIn(pages);
  await assert.doesNotReject(page.getByText("The API key is not valid.").waitFor());
  assert.equal(await page.getByText(HINT).count(), 0);
  assert.deepEqual(besides(problems, 401), []);
});
