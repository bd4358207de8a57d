// What the browser tests share: a real `croupier serve` on a new data folder,
// Debian's Chromium driven by playwright-core, and small helpers to sign in,
// wait for text and keep screenshots (in target/web-screenshots). Every page
// made here records the buttons it showed and those the test clicked, for
// the check that every button of every page is driven by some test
// (buttons.test.mjs), and a script error on any page fails the test file.
import assert from "node:assert/strict";
import { execFileSync, spawn } from "node:child_process";
import { existsSync, mkdtempSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { chromium } from "playwright-core";

const HERE = path.dirname(fileURLToPath(import.meta.url));
export const ROOT = path.resolve(HERE, "..");
const BIN = process.env.CROUPIER_BIN ?? path.join(ROOT, "target/debug/croupier");
const SHOTS = process.env.SCREENSHOT_DIR ?? path.join(ROOT, "target/web-screenshots");
const CHROMIUM = process.env.CHROMIUM ?? "/usr/bin/chromium";
export const WAIT_MS = 15_000;

// The running server's address; live bindings, so importers see each restart.
export let base = null;
let server = null, data = null, browser = null;
export const pageErrors = [];

// libfaketime's library, from Debian's `faketime` (scripts/setup.sh installs it).
const FAKETIME_LIBRARY = "/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1";

// Starts `croupier serve` on a new data folder, or again on `data` at `listen`
// (a restart); with `later` ("+25h", "@2026-03-08 12:30:00" UTC), its wall
// clock moved by libfaketime as crates/testkit's `Server::start_later` moves
// it: the wall clock only, its timers keeping the machine's pace.
function startServer(listen = "127.0.0.1:0", { later } = {}) {
  data ??= mkdtempSync(path.join(tmpdir(), "croupier-web-"));
  const first = listen.endsWith(":0");
  let env = process.env;
  if (later) {
    assert.ok(existsSync(FAKETIME_LIBRARY), `${FAKETIME_LIBRARY} is missing: scripts/setup.sh installs Debian's faketime`);
    // libfaketime reads an absolute time in the process's own zone.
    env = { ...process.env, LD_PRELOAD: FAKETIME_LIBRARY, FAKETIME: later, FAKETIME_DONT_FAKE_MONOTONIC: "1", FAKETIME_NO_CACHE: "1", TZ: "UTC" };
  }
  const child = spawn(BIN, ["serve", "--data", data, "--listen", listen], { stdio: ["ignore", "pipe", "inherit"], env });
  return new Promise((resolve, reject) => {
    let address = null, password = null, buffer = "";
    const timer = setTimeout(() => reject(new Error("croupier serve did not start in 30 s")), 30_000);
    child.on("exit", (code) => reject(new Error(`croupier serve exited with ${code}`)));
    child.stdout.on("data", (chunk) => {
      buffer += chunk.toString();
      address ??= /serving on (http:\/\/[^\s]+)/.exec(buffer)?.[1];
      password ??= /with password (\S+)/.exec(buffer)?.[1];
      if (address && (password || !first)) {
        clearTimeout(timer);
        server = child;
        base = address;
        resolve({ address, password });
      }
    });
  });
}

// The first run: the server on a new data folder and the browser. Answers the
// admin's one-time password.
export async function start() {
  mkdirSync(SHOTS, { recursive: true });
  const { password } = await startServer();
  browser = await chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync", "--autoplay-policy=no-user-gesture-required"],
  });
  return password;
}

// kill -9, then the server again on the same address and data.
export async function killAndRestart() {
  const port = new URL(base).port;
  const stopped = new Promise((resolve) => server.once("exit", resolve));
  server.kill("SIGKILL");
  await stopped;
  return () => startServer(`127.0.0.1:${port}`);
}

// The server stopped as an operator stops it (SIGTERM: it writes its
// journal's head and exits), then started again on the same address and
// data with its wall clock `later` ("+25h"): the gaming day it served is
// over. Answers once it serves again.
export async function restartLater(later) {
  const port = new URL(base).port;
  const stopped = new Promise((resolve) => server.once("exit", resolve));
  server.kill("SIGTERM");
  await stopped;
  return startServer(`127.0.0.1:${port}`, { later });
}

// The journal's entries as `croupier entries --data` prints them, each
// line's JSON parsed: read-only, so the server may run meanwhile.
export function journalEntries() {
  const out = execFileSync(BIN, ["entries", "--data", data], { encoding: "utf8", maxBuffer: 256 * 1024 * 1024 });
  return out.split("\n").filter(Boolean).map((line) => JSON.parse(line));
}

export async function stop() {
  writeButtons();
  await browser?.close();
  // The server writes its journal's head beside the secret until it is gone:
  // its folders are removed only once it has exited.
  if (server && server.exitCode === null && server.signalCode === null) {
    const gone = new Promise((resolve) => server.once("exit", resolve));
    server.kill("SIGTERM");
    await Promise.race([gone, new Promise((resolve) => setTimeout(resolve, 10_000))]);
  }
  if (data) {
    rmSync(data, { recursive: true, force: true });
    rmSync(`${data}-keys`, { recursive: true, force: true });
  }
  // Every test file honours it: a page's script error fails the file, even
  // one raised after the test that caused it had passed.
  assert.deepEqual(pageErrors, [], "no page raised a script error");
}

export async function call(token, path, body) {
  const headers = { "content-type": "application/json" };
  if (token) headers.authorization = `Bearer ${token}`;
  const r = await fetch(base + path, body === undefined ? { headers } : { method: "POST", headers, body: JSON.stringify(body) });
  const json = await r.json().catch(() => null);
  if (!r.ok) throw new Error(`${path}: ${r.status} ${JSON.stringify(json)}`);
  return json;
}
export const login = async (username, password) => (await call(null, "/api/login", { username, password })).token;
export const ask = (token, body) => call(token, "/api/requests", body);
// The pit posts a limit on each kind of bet `table` takes with none (0.01
// to the largest stake, keeping those posted): a Maryland table opens only
// with its limits on its sign (ch.1 G(3)). A composite bet is limited by its parts.
export async function postLimits(token, table) {
  const layout = await call(null, `/api/public/tables/${table}/layout`);
  const limits = layout.kinds
    .filter((k) => k.kind !== "neighbours" && k.kind !== "complete")
    .map((k) => ({ kind: k.kind, min: k.min ?? 1, max: k.max ?? 1_000_000_000 }));
  await ask(token, { op: "set_limits", table, limits });
}
// The licence on a staff member's record (Colorado 2212(5), Maryland ch.2
// E(6): only staff with one inspect or adjust there): the one each test types
// at sign-in for dealer1, pit1 and floor1, `L-name` for the others; players none.
const TYPED = { dealer1: "D-1001", pit1: "P-2002", floor1: "F-2003" };
export const licenceOf = (username, role) => (role === "player" ? {} : { licence: TYPED[username] ?? `L-${username}` });
export const chipsOf = async (token, table, player) => (await call(token, "/api/me")).accounts[`chips:${table}:${player}`] ?? 0;

// Lets the next money request of `op` from `page` reach the server, then
// loses its answer: the page sees a dropped connection. Answers the ids
// every request of `op` was sent under, in order; its `done()` stops
// watching the page's requests.
export async function loseNextAnswer(page, op) {
  const sent = [];
  let lost = false;
  await page.route("**/api/requests", async (route) => {
    const body = JSON.parse(route.request().postData() ?? "{}");
    if (body.op !== op) return route.continue();
    sent.push(body.id);
    if (lost) return route.continue();
    lost = true;
    // The server takes it and answers; the answer never reaches the page.
    await route.fetch();
    return route.abort("connectionreset");
  });
  // Not enumerable: the ids compare as a plain array.
  Object.defineProperty(sent, "done", { value: () => page.unroute("**/api/requests") });
  return sent;
}

// The buttons each page showed and those a test clicked, by kind (see
// BUTTON_KIND): written to target/web-buttons/FILE.json as the file ends.
export const BUTTONS_DIR = path.join(ROOT, "target/web-buttons");
const buttonsSeen = new Set();
const buttonsClicked = new Set();

// A button's kind, as a page shows it: its page, the nearest element with
// an id around it, and the button's own id, or else its data attributes'
// names and its words. A button drawn once per item (a spot, a chip, a
// player's row) is one kind: a word with a digit in it, or words that are
// a data attribute's value, are "#" ("Send # again").
// Evaluated in the page, so it is a function of the page's DOM alone.
export const BUTTON_KIND = `(b) => {
  // getAttribute: a form's .id may be a field named "id".
  const scope = b.parentElement?.closest("[id]")?.getAttribute("id") ?? "";
  if (b.getAttribute("id")) return location.pathname + " #" + b.getAttribute("id");
  const data = b.getAttributeNames().filter((n) => n.startsWith("data-"));
  const text = (b.textContent || b.value || b.getAttribute("aria-label") || "").trim();
  // A button whose words come from the catalogues is its message's id, in any language.
  const words = b.getAttribute("data-i18n") ? "{" + b.getAttribute("data-i18n") + "}"
    : data.some((n) => b.getAttribute(n) === text) ? "#"
    : text.split(/\\s+/).map((w) => (/\\d/.test(w) ? "#" : w)).join(" ");
  const named = b.getAttribute("name") ? "[name=" + b.getAttribute("name") + " value=" + b.value + "]" : "";
  return [location.pathname, scope, data.map((n) => "[" + n + "]").join("") + named, words].filter(Boolean).join(" ");
}`;
export const BUTTON_SELECTOR = 'button, input[type="submit"], input[type="button"], input[type="reset"]';

// Watches the page's buttons as they come and go, and the clicks a test
// makes on them (trusted events only: what a person could have done).
const BUTTON_WATCH = `(() => {
  const kind = ${BUTTON_KIND};
  // The rule is kept on the pages in English: a page in another language
  // shows the same buttons, some with words a script put in that language.
  const report = (what, kinds) => {
    if ((document.documentElement.lang || "en") !== "en") return;
    window.__croupierButtons?.(what, kinds);
  };
  let queued = false;
  const scan = () => {
    queued = false;
    report("seen", [...document.querySelectorAll(${JSON.stringify(BUTTON_SELECTOR)})].map(kind));
  };
  const later = () => { if (!queued) { queued = true; setTimeout(scan, 0); } };
  const watch = () => {
    scan();
    new MutationObserver(later).observe(document.documentElement, { childList: true, subtree: true, attributes: true, attributeFilter: ["id", "name", "value"], characterData: true });
  };
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", watch); else watch();
  document.addEventListener("click", (e) => {
    const b = e.target instanceof Element ? e.target.closest(${JSON.stringify(BUTTON_SELECTOR)}) : null;
    if (b && e.isTrusted) report("clicked", [kind(b)]);
  }, true);
  // A form sent by Enter in a field: its default button was the submitter.
  document.addEventListener("submit", (e) => { if (e.submitter && e.isTrusted) report("clicked", [kind(e.submitter)]); }, true);
})();`;

// The test file that is running (node --test runs each in its own process).
const testFile = () => path.basename(process.argv[1] ?? "unknown");

function writeButtons() {
  if (!buttonsSeen.size && !buttonsClicked.size) return;
  mkdirSync(BUTTONS_DIR, { recursive: true });
  const record = { file: testFile(), written_at_ms: Date.now(), seen: [...buttonsSeen].sort(), clicked: [...buttonsClicked].sort() };
  writeFileSync(path.join(BUTTONS_DIR, `${testFile()}.json`), JSON.stringify(record, null, 1));
}
// Written too if the file ends without its `after` (a failure in `before`).
process.on("exit", writeButtons);

export async function newPage(name, viewport = { width: 1400, height: 1000 }) {
  const context = await browser.newContext({ viewport });
  await context.exposeBinding("__croupierButtons", (_source, what, kinds) => {
    for (const k of kinds) (what === "clicked" ? buttonsClicked : buttonsSeen).add(k);
  });
  await context.addInitScript(BUTTON_WATCH);
  const page = await context.newPage();
  page.on("pageerror", (e) => pageErrors.push(`${name}: ${e.message}`));
  page.on("console", (m) => { if (m.type() === "error" && !/WebSocket|Failed to load resource/.test(m.text())) pageErrors.push(`${name}: ${m.text()}`); });
  return page;
}

export async function signIn(page, pathname, username, password, licence) {
  await page.goto(base + pathname);
  await page.fill('#login-form [name="username"]', username);
  await page.fill('#login-form [name="password"]', password);
  if (licence) await page.fill('#login-form [name="licence"]', licence);
  await page.click('#login-form button[type="submit"]');
  await page.locator("#login-panel").waitFor({ state: "hidden", timeout: WAIT_MS });
}

export async function textOf(locator, pattern, what) {
  const deadline = Date.now() + WAIT_MS;
  let last = "";
  while (Date.now() < deadline) {
    last = (await locator.textContent().catch(() => "")) ?? "";
    if (pattern.test(last)) return last;
    await new Promise((r) => setTimeout(r, 100));
  }
  assert.fail(`${what}: expected ${pattern}, saw ${JSON.stringify(last)}`);
}

export const shot = (page, name) => page.screenshot({ path: path.join(SHOTS, `${name}.png`), fullPage: true });
