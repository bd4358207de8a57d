// Every button of every page is driven by a browser test. Each test file
// records, as it ends, the buttons its pages showed and those it clicked
// (harness.mjs, in target/web-buttons/); this file, run after them in a
// node command of its own (node --test orders the files it is given by
// name, so it cannot be put last among them), reads every
// record, loads each page the server serves to read the buttons in its
// HTML (a page no test opened counts too), and fails for each page that
// has a button no test clicked, naming it. Test files run in processes of
// their own, so the records are files: one per test file, written anew on
// each run of it.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { readdirSync, readFileSync, statSync, existsSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { BUTTONS_DIR, BUTTON_KIND, BUTTON_SELECTOR, ROOT, base, start, stop, newPage, WAIT_MS } from "./harness.mjs";

const HERE = path.dirname(fileURLToPath(import.meta.url));
const THIS = path.basename(fileURLToPath(import.meta.url));
// The pages the server serves, one per file in crates/server/web.
const PAGES = readdirSync(path.join(ROOT, "crates/server/web"))
  .filter((f) => f.endsWith(".html"))
  .map((f) => (f === "index.html" ? "/" : `/${f.slice(0, -5)}`));

const seen = new Set();
const clicked = new Set();

before(async () => {
  await start();
});
after(stop);

test("every other browser test file has left its record of buttons, newer than the file itself", () => {
  // A file that opens no page (the catalogues' check) leaves no record.
  const files = readdirSync(HERE).filter((f) => f.endsWith(".test.mjs") && f !== THIS
    && readFileSync(path.join(HERE, f), "utf8").includes("newPage"));
  const problems = [];
  for (const file of files) {
    const record = path.join(BUTTONS_DIR, `${file}.json`);
    if (!existsSync(record)) { problems.push(`${file}: no record (run it before ${THIS})`); continue; }
    const kept = JSON.parse(readFileSync(record, "utf8"));
    if (kept.written_at_ms < statSync(path.join(HERE, file)).mtimeMs) problems.push(`${file}: its record is older than the file; run it again`);
    kept.seen.forEach((k) => seen.add(k));
    kept.clicked.forEach((k) => clicked.add(k));
  }
  assert.deepEqual(problems, [], problems.join("\n"));
});

test("each page's buttons as served are read", async () => {
  for (const pathname of PAGES) {
    const page = await newPage(`buttons ${pathname}`);
    await page.goto(base + pathname);
    // The frame every signed-in page shares is drawn once its script runs.
    await page.waitForLoadState("load", { timeout: WAIT_MS });
    const kinds = await page.evaluate(`[...document.querySelectorAll(${JSON.stringify(BUTTON_SELECTOR)})].map(${BUTTON_KIND})`);
    kinds.forEach((k) => seen.add(k));
    await page.context().close();
  }
});

for (const pathname of PAGES) {
  test(`every button of ${pathname} is clicked by some browser test`, () => {
    const mine = (k) => k.startsWith(`${pathname} `);
    const missing = [...seen].filter((k) => mine(k) && !clicked.has(k)).sort();
    assert.deepEqual(missing, [], `buttons of ${pathname} no test clicked:\n  ${missing.join("\n  ")}`);
  });
}
