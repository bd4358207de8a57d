// What the browser tests share: a real `croupier serve` on a new data folder,
// Debian's Chromium driven by playwright-core, and small helpers to sign in,
// wait for text and keep screenshots (in target/web-screenshots).
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdtempSync, mkdirSync, rmSync } from "node:fs";
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

// Starts `croupier serve` on a new data folder, or again on `data` at `listen` (a restart).
function startServer(listen = "127.0.0.1:0") {
  data ??= mkdtempSync(path.join(tmpdir(), "croupier-web-"));
  const first = listen.endsWith(":0");
  const child = spawn(BIN, ["serve", "--data", data, "--listen", listen], { stdio: ["ignore", "pipe", "inherit"] });
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

export async function stop() {
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
export const chipsOf = async (token, table, player) => (await call(token, "/api/me")).accounts[`chips:${table}:${player}`] ?? 0;

export async function newPage(name, viewport = { width: 1400, height: 1000 }) {
  const context = await browser.newContext({ viewport });
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
