// The console served as in production (the sandbox's --dist): the first visit gets the wasm, js
// and css as brotli with a year-long immutable cache rule, and the pages' chunk after the first
// screen; a second visit downloads none of them and only revalidates index.html. Bytes are counted with the DevTools protocol, as they came off
// the network (encodedDataLength), not as the page sees them.
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { expect, withSandbox } from "./fixtures.mjs";

// Only the release build (scripts/build-console.sh) writes the precompressed siblings.
const dist = process.env.CONSOLE_DIST ?? join(new URL("../..", import.meta.url).pathname, "dist");
const release = readdirSync(dist).some((name) => name.endsWith(".wasm.br"));

const test = withSandbox();

test.beforeAll(() => {
  // The release build's serving (its .br siblings): without them these tests fail rather than
  // pass by skipping (and no sandbox is started for them).
  expect(release, `no .wasm.br in ${dist}: not a release build (scripts/build-console.sh)`).toBe(true);
});

/** Records every response of the page: url, status, headers, cache origin and bytes on the wire. */
async function recordNetwork(page) {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send("Network.enable");
  const byId = new Map();
  cdp.on("Network.responseReceived", ({ requestId, response }) => {
    byId.set(requestId, {
      ...byId.get(requestId),
      url: new URL(response.url),
      status: response.status,
      headers: Object.fromEntries(Object.entries(response.headers).map(([k, v]) => [k.toLowerCase(), v])),
      cached: Boolean(byId.get(requestId)?.cached || response.fromDiskCache || response.fromPrefetchCache),
      bytes: byId.get(requestId)?.bytes ?? null,
    });
  });
  cdp.on("Network.requestServedFromCache", ({ requestId }) => {
    byId.set(requestId, { ...(byId.get(requestId) ?? {}), cached: true });
  });
  cdp.on("Network.loadingFinished", ({ requestId, encodedDataLength }) => {
    const entry = byId.get(requestId);
    if (entry) entry.bytes = encodedDataLength;
  });
  return {
    /**
     * The responses so far, once each has finished loading (its bytes counted) and at least
     * `assets` of them are wasm, js or css (the DevTools events can trail the page's own).
     */
    async take(assets = 0) {
      const list = () => [...byId.values()].filter((e) => e.url);
      // The responses still loading, and whether enough of them are assets yet.
      const state = () => ({
        loading: list().filter((e) => e.bytes === null).map((e) => e.url.pathname),
        enoughAssets: list().filter(asset).length >= assets,
      });
      await expect.poll(state, { timeout: 5_000, intervals: [50] }).toEqual({ loading: [], enoughAssets: true });
      const taken = list();
      byId.clear();
      return taken;
    },
  };
}

const asset = (e) => /\.(wasm|js|css)$/.test(e.url.pathname);

// The release build's pages chunk (src/pages/lazy.rs): not needed for the first screen, and
// fetched in the background soon after it.
const chunk = readdirSync(dist).find((name) => /^console-pages-[0-9a-f]+\.wasm$/.test(name));

/** Opens the sandbox's sign-in page; resolves with the paths requested before the app had drawn. */
async function visit(page, sandbox) {
  const requested = [];
  const record = (r) => requested.push(new URL(r.url()).pathname);
  page.on("request", record);
  const chunkAnswered = chunk && page.waitForResponse((r) => r.url().endsWith(`/${chunk}`));
  await page.goto(`${sandbox.url}/sign-in`);
  await expect(page.getByLabel("API key or session token")).toBeVisible();
  const beforeDrawn = [...requested];
  page.off("request", record);
  await chunkAnswered;
  // The wasm's fetch is finished once the app has drawn; let the loadingFinished events arrive.
  await page.waitForLoadState("networkidle");
  return beforeDrawn;
}

test("a second visit downloads no wasm, js or css; the first gets them as brotli", async ({ sandbox, pages }) => {
  const { page, problems } = await pages.open();
  const network = await recordNetwork(page);

  // The stylesheet, the glue, the chunk loader and the main wasm; then the pages chunk, which
  // the first screen does not wait for.
  const expected = chunk ? ["css", "js", "js", "wasm", "wasm"] : ["css", "js", "wasm"];
  const drawnAfter = await visit(page, sandbox);
  const first = await network.take(expected.length);
  const assets = first.filter(asset);
  expect(assets.map((e) => e.url.pathname.split(".").pop()).sort()).toEqual(expected);
  if (chunk) {
    expect(drawnAfter, "the first screen did not wait for the chunk").not.toContain(`/${chunk}`);
    expect(assets.map((e) => e.url.pathname), "the chunk was fetched after").toContain(`/${chunk}`);
  }
  for (const e of assets) {
    expect(e.status, e.url.pathname).toBe(200);
    expect(e.headers["content-encoding"], `${e.url.pathname} as brotli`).toBe("br");
    expect(e.headers["cache-control"], e.url.pathname).toBe("public, max-age=31536000, immutable");
  }
  const wasm = assets.find((e) => e.url.pathname.endsWith("_bg.wasm"));
  expect(wasm.bytes, "the wasm's bytes on the wire").toBeGreaterThan(100_000);
  expect(wasm.bytes, "the wasm's bytes on the wire").toBeLessThan(400_000);
  const html = first.find((e) => e.url.pathname === "/sign-in");
  expect(html.headers["cache-control"]).toBe("no-cache");
  expect(html.headers["content-security-policy"]).toMatch(/script-src 'self' 'wasm-unsafe-eval' 'sha256-/);
  expect(first.filter((e) => e.url.pathname === "/favicon.ico"), "no favicon request").toEqual([]);

  // A second visit, as after closing the tab and coming back: a new navigation, same browser.
  await visit(page, sandbox);
  const second = await network.take(expected.length);
  const again = second.filter(asset);
  expect(again.length, second.map((e) => e.url.pathname).join(", ")).toBe(expected.length);
  for (const e of again) {
    expect(e.cached, `${e.url.pathname} from the cache`).toBe(true);
    expect(e.bytes, `${e.url.pathname}: bytes transferred`).toBe(0);
  }
  const revalidated = second.find((e) => e.url.pathname === "/sign-in");
  expect(revalidated, "index.html asked for again (no-cache)").toBeTruthy();
  expect(revalidated.bytes, "index.html's bytes").toBeLessThan(2_000);
  expect(
    second.reduce((sum, e) => sum + (e.bytes ?? 0), 0),
    `second visit total: ${second.map((e) => `${e.url.pathname} ${e.bytes}`).join(", ")}`,
  ).toBeLessThan(2_000);

  expect(problems).toEqual([]);
});

test("the API beside the console is still compressed", async ({ sandbox }) => {
  const res = await fetch(`${sandbox.url}/v1/actions`, {
    headers: { "accept-encoding": "gzip, br", authorization: `Bearer ${sandbox.api_key}` },
  });
  expect(res.status).toBe(200);
  expect(res.headers.get("content-encoding")).toBe("gzip");
  expect(res.headers.get("cache-control")).toBeNull();
});
