// Shared end-to-end harness: starts the sandbox serving the built console on a free loopback
// port, launches Debian's headless Chromium through playwright-core, and records every console
// error and page error so a test can fail on them.
import { spawn } from "node:child_process";
import { mkdirSync } from "node:fs";
import { createInterface } from "node:readline";
import { join } from "node:path";
import { chromium } from "playwright-core";

const root = new URL("../..", import.meta.url).pathname;
export const screenshotDir = join(root, "target", "screenshots");
mkdirSync(screenshotDir, { recursive: true });

/** Starts the sandbox; resolves with its start-up line (url, api_key, session_token, ...). */
export async function startSandbox({ dist = join(root, "dist"), args = [] } = {}) {
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

const CHROMIUM_FLAGS = [
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

export async function launchBrowser() {
  return chromium.launch({
    executablePath: process.env.CHROMIUM ?? "/usr/bin/chromium",
    headless: true,
    args: CHROMIUM_FLAGS,
  });
}

/** A fresh context and page whose console errors and uncaught exceptions are collected. */
export async function openPage(browser, { viewport = { width: 1280, height: 860 }, colorScheme = "light" } = {}) {
  const context = await browser.newContext({ viewport, colorScheme });
  const page = await context.newPage();
  const problems = [];
  page.on("console", (msg) => {
    if (msg.type() === "error") problems.push(`console error: ${msg.text()}`);
  });
  page.on("pageerror", (err) => problems.push(`page error: ${err.message}`));
  // Every Content-Security-Policy violation is a problem, whatever the browser logs.
  await page.exposeFunction("__reportCspViolation", (v) => problems.push(`CSP violation: ${v}`));
  await page.addInitScript(() => {
    document.addEventListener("securitypolicyviolation", (e) =>
      window.__reportCspViolation(`${e.violatedDirective} blocked ${e.blockedURI}`));
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
  await page.getByLabel("API key or session token").fill(credential);
  await page.getByRole("button", { name: "Sign in" }).click();
}
