// Copy as code, run for real: the snippets the console shows are written to files and run with
// curl (bash), Python (`requests`, from the venv scripts/setup.sh makes for schemathesis) and
// Node.js (both the `fetch` and the `node:http` snippets) against the sandbox, with the key in
// API_KEY. Inputs carry quotes, backslashes, shell and template syntax and non-ASCII text.
import { execFileSync } from "node:child_process";
import { mkdtempSync, writeFileSync, existsSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, withSandbox } from "./fixtures.mjs";
import { screenshot, api, snippetEnvironment } from "./harness.mjs";

const root = new URL("../..", import.meta.url).pathname;
const venvPython = join(root, "target", "venv", "bin", "python");

const test = withSandbox({ args: ["--queue-ms", "50", "--process-ms", "100"] });

/** How each language's snippet is run: the file it is written to and the command. */
const RUNNERS = {
  curl: { file: "snippet.sh", command: (f) => ["bash", [f]] },
  python: { file: "snippet.py", command: (f) => [venvPython, [f]] },
  javascript: { file: "snippet.mjs", command: (f) => ["node", [f]] },
  node: { file: "snippet.js", command: (f) => ["node", [f]] },
};

/** Runs a snippet with `sandbox`'s key in API_KEY; it prints the status (but curl), then the answer's body. */
function runSnippet(sandbox, language, code) {
  const dir = mkdtempSync(join(tmpdir(), `snippet-${language}-`));
  const { file, command } = RUNNERS[language];
  const path = join(dir, file);
  writeFileSync(path, code);
  const [program, args] = command(path);
  const output = execFileSync(program, args, {
    env: snippetEnvironment(sandbox.api_key),
    encoding: "utf8",
    timeout: 30_000,
  });
  // curl prints the body only, as a person would see it.
  if (language === "curl") return { status: null, run: JSON.parse(output) };
  const [status, ...body] = output.trim().split("\n");
  return { status: Number(status), run: JSON.parse(body.join("\n")) };
}

test("Python's requests is there to run the Python snippet", () => {
  expect(existsSync(venvPython), `${venvPython} (scripts/setup.sh makes it)`).toBe(true);
  execFileSync(venvPython, ["-c", "import requests"]);
});

test("the form's snippets run as they read: each is the same run as the form's submission, which sends the input as typed", async ({ sandbox, pages }) => {
  const { page, problems } = await pages.signedIn("/actions/premium-search-people?mode=async");
  const keywords = `it's "quoted" \\ back\\slash $HOME \`date\` \${x} %s é 日本語 🦀`;
  await page.getByLabel(/^Keywords/).fill(keywords);
  await page.getByLabel(/^Max results/).fill("3");
  await page.locator("details.preview summary").click();
  const body = JSON.parse(await page.locator('[data-field="body-preview"]').textContent());
  expect(body).toEqual({ input: { keywords }, max_credits: 3, max_results: 3 });
  const snippet = page.locator('[data-field="code-snippet"]');
  const runs = [];
  for (const language of Object.keys(RUNNERS)) {
    await page.locator(`button[data-language="${language}"]`).click();
    await expect(snippet).toHaveAttribute("data-language", language);
    const code = await snippet.textContent();
    expect(code, `${language}: no credential in the code`).not.toContain(sandbox.api_key);
    const answer = runSnippet(sandbox, language, code);
    // The first snippet makes the run (202); the others send the same key, which the API
    // answers with the same run only for the same body: one escaped wrongly is refused (409).
    expect([200, 202, null], `${language}: ${answer.status} ${JSON.stringify(answer.run)}`).toContain(answer.status);
    expect(answer.run.action, `${language}: ${JSON.stringify(answer.run)}`).toBe("premium-search-people");
    runs.push(answer.run.id);
  }
  expect(new Set(runs).size, "one run for all the snippets").toBe(1);
  await screenshot(page, "snippets-form");
  // The form sends the key its snippets showed, with the body as typed: the same run (a body
  // of another input would be refused), charged once.
  await page.getByRole("button", { name: "Queue run" }).click();
  await expect(page).toHaveURL(/\/runs\//);
  expect(decodeURIComponent(new URL(page.url()).pathname.split("/").pop())).toBe(runs[0]);
  // The run's page tells how it was made, as code with the run's own key: the same run again.
  await page.locator('[data-field="how-made"] summary').click();
  await page.locator('[data-field="how-made"] button[data-language="python"]').click();
  const how = await page.locator('[data-field="how-made"] [data-field="code-snippet"]').textContent();
  const again = runSnippet(sandbox, "python", how);
  expect(again.run.id, "the same run, not a new one").toBe(runs[0]);
  await screenshot(page, "snippets-run-page");
  const run = await api(sandbox, "GET", `/v1/runs/${runs[0]}`);
  expect(run.json.credits_reserved + run.json.credits_used, "reserved or charged once, for 3 results").toBe(3);
  expect(problems).toEqual([]);
});

test("after a submission the form's snippets carry a new key: a second run is a new run", async ({ sandbox, pages }) => {
  const { page, problems } = await pages.signedIn("/actions/network-search-groups?mode=async");
  await page.getByLabel(/^Query/).fill("ütf-8 \"groups\"");
  await page.locator("details.preview summary").click();
  await page.locator('button[data-language="node"]').click();
  const before = await page.locator('[data-field="code-snippet"]').textContent();
  const first = runSnippet(sandbox, "node", before);
  expect(first.status).toBe(202);
  await page.getByRole("button", { name: "Queue run" }).click();
  await expect(page).toHaveURL(/\/runs\//);
  await page.goBack();
  await page.locator("details.preview summary").click();
  const after = await page.locator('[data-field="code-snippet"]').textContent();
  const keyOf = (code) => code.match(/"Idempotency-Key": "([^"]+)"/)[1];
  expect(keyOf(after)).not.toBe(keyOf(before));
  const second = runSnippet(sandbox, "node", after);
  expect(second.status).toBe(202);
  expect(second.run.id).not.toBe(first.run.id);
  expect(problems).toEqual([]);
});
