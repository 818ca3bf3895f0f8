// What presenter mode must hide, as the e2e tests find it (issue 48): the personal texts of the
// workspace's runs and keys as the API has them, and where any of them shows in a page. Shared by
// presenter.test.mjs and chains.test.mjs.
import { api } from "./harness.mjs";

/** model::presenter::NOT_PERSONAL_FIELDS: text fields whose values are shown. */
const NOT_PERSONAL_FIELDS = new Set(["action", "code", "currency", "kind", "reaction_type", "request_id", "run_id", "scope", "status", "type"]);
const isDate = (text) => /^\d{4}(-\d{2}(-\d{2}([T ][\d:.]+(Z|[+-]\d{2}:?\d{2})?)?)?)?$/.test(text);
const isUuid = (text) => /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(text);

/**
 * The texts of `value` presenter mode must hide (not in a listed field, not a date nor a UUID),
 * at least 4 characters long. Texts of digits
 * alone (a company's or group's numeric id) are left out of the scan: a run id or a request id
 * on the page may hold the same digits by chance. They are masked all the same.
 */
export function personalTexts(value, field, out) {
  if (typeof value === "string") {
    if (!NOT_PERSONAL_FIELDS.has(field) && !isDate(value) && !isUuid(value) && value.length >= 4 && !/^\d+$/.test(value)) out.add(value);
  } else if (Array.isArray(value)) {
    for (const item of value) personalTexts(item, field, out);
  } else if (value && typeof value === "object") {
    for (const [name, item] of Object.entries(value)) personalTexts(item, name, out);
  }
  return out;
}

/** Where any of `texts` shows in the page: its text (hidden parts too), attributes, values, title. */
export async function leaks(page, texts) {
  return page.evaluate((texts) => {
    const found = new Set();
    const look = (where, text) => {
      if (!text) return;
      for (const t of texts) if (text.includes(t)) found.add(`${where}: ${t}`);
    };
    look("title", document.title);
    look("text", document.body.textContent);
    for (const element of document.querySelectorAll("*")) {
      for (const attribute of element.attributes) look(`${element.localName}@${attribute.name}`, attribute.value);
      if (typeof element.value === "string") look(`${element.localName}.value`, element.value);
    }
    return [...found];
  }, [...texts]);
}

/** Every personal text of the workspace's runs (records and the inputs sent) and keys, as the API has them. */
export async function workspaceTexts(sandbox, inputs) {
  const texts = new Set();
  const list = (await api(sandbox, "GET", "/v1/runs", { bearer: sandbox.session_token })).json;
  for (const listed of list.runs) {
    const run = (await api(sandbox, "GET", `/v1/runs/${listed.id}`, { bearer: sandbox.session_token })).json;
    personalTexts(run.output, null, texts);
    if (run.error) personalTexts(run.error.message, "message", texts);
  }
  const keys = (await api(sandbox, "GET", "/v1/keys", { bearer: sandbox.session_token })).json;
  for (const key of keys.keys) personalTexts({ name: key.name, prefix: key.prefix }, null, texts);
  for (const input of inputs) personalTexts(input, null, texts);
  return texts;
}
