// The back office's day report (/report) in a real browser against a real
// `croupier serve`: a round played at a table, then the page shows the
// casino's gaming day with the figures the API gives, another day picked,
// the CSV downloaded, the printout without the controls, and the page's
// password change and sign-out.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import path from "node:path";
import { readFile } from "node:fs/promises";
import { ROOT, WAIT_MS, start, stop, call, login, ask, newPage, signIn, textOf, shot } from "./harness.mjs";

let pitToken;

before(async () => {
  const password = await start();
  const admin = await login("admin", password);
  await ask(admin, { op: "change_password", password, new_password: "admin-secret-1" });
  for (const [username, role, licence] of [["dealer1", "dealer", "D-1001"], ["pit1", "pit_supervisor", "P-2001"], ["cash1", "cashier"], ["ann", "player"]]) {
    await ask(admin, { op: "create_user", username, role, password: `${username}-secret-1`, ...(licence ? { licence } : {}) });
  }
  pitToken = await login("pit1", "pit1-secret-1");
  const dealer = await login("dealer1", "dealer1-secret-1");
  const ann = await login("ann", "ann-secret-1");
  const text = (await readFile(path.join(ROOT, "profiles", "european-casino.toml"), "utf8")).replace('currency = "EUR"', 'currency = "USD"');
  await ask(admin, { op: "create_table", table: "e1", profile_text: text, wheel: "single-zero", in_prison: false, betting_window_ms: 600_000, outcome: "dealer" });
  await ask(pitToken, { op: "inspect", table: "e1", no_magnet_or_contrivance: true, wheel_level_and_rotating_freely: true, parts_secure: true, ball_non_magnetic: true, layout_and_signage_comply: true });
  await ask(dealer, { op: "open_table", table: "e1" });
  await ask(await login("cash1", "cash1-secret-1"), { op: "cash_in", id: "cash-ann", player: "ann", amount: 100_000 });
  await ask(ann, { op: "buy_in", id: "buy-ann", table: "e1", amount: 25_000, chip_value: 100 });
  for (const [spot, stake, pocket] of [["red", 1_000, "1"], ["black", 2_500, "3"]]) {
    await ask(dealer, { op: "open_betting", table: "e1" });
    await ask(ann, { op: "place_bet", table: "e1", bet_id: `b-${spot}`, spot, stake });
    await ask(dealer, { op: "no_more_bets", table: "e1" });
    await ask(dealer, { op: "spin", table: "e1", spin: { pocket, direction: "opposite", revolutions: 6 } });
  }
});

after(stop);

// As Croupier.money writes it: "USD 12.30".
const money = (minor) => `${minor < 0 ? "−" : ""}USD ${Math.floor(Math.abs(minor) / 100)}.${String(Math.abs(minor) % 100).padStart(2, "0")}`;
const decimal = (minor) => `${minor < 0 ? "-" : ""}${Math.floor(Math.abs(minor) / 100)}.${String(Math.abs(minor) % 100).padStart(2, "0")}`;

test("the day report shows the API's figures, another day, the CSV and a printout without controls", async () => {
  const api = await call(pitToken, "/api/reports/day");
  const me = await call(pitToken, "/api/me");
  assert.equal(api.day, me.gaming_day.today, "today's by default");
  assert.ok(api.casino.drop === 25_000 && api.casino.rounds === 2, JSON.stringify(api.casino));
  const e1 = api.tables.find((t) => t.table === "e1").figures;

  const page = await newPage("day-report");
  await signIn(page, "/report", "pit1", "pit1-secret-1");
  assert.equal(await page.inputValue("#day"), api.day, "the casino's gaming day is picked");
  await textOf(page.locator('#tables tr[data-row="e1"] [data-win]'), new RegExp(`^${money(e1.win).replace(/[.]/g, "\\.")}$`), "e1's win as the API says");
  await textOf(page.locator('#tables tr[data-row="Casino"] [data-drop]'), /^USD 250\.00$/, "the casino's drop");
  await textOf(page.locator('#tables tr[data-row="Casino"] [data-hold]'), new RegExp(`^${(api.casino.hold_basis_points / 100).toFixed(2).replace(".", "\\.")} %$`), "the casino's hold");
  await textOf(page.locator('#dealers tr[data-dealer="dealer1"] [data-rounds]'), /^2$/, "dealer1's rounds");
  await textOf(page.locator('#dealers tr[data-dealer="dealer1"] [data-win]'), new RegExp(`^${money(api.dealers[0].win).replace(/[.]/g, "\\.")}$`), "dealer1's win");

  // A day no table keeps is refused in words; today again shows the figures.
  await page.fill("#day", "1970-01-01");
  await page.click('#day-form button[type="submit"]');
  await textOf(page.locator("#message"), /no table keeps the books of gaming day 1970-01-01/, "a day not kept");
  await page.fill("#day", api.day);
  await page.click('#day-form button[type="submit"]');
  await textOf(page.locator("#title"), new RegExp(api.day), "today's again");

  const download = page.waitForEvent("download", { timeout: WAIT_MS });
  await page.click("#csv");
  const file = await download;
  assert.equal(file.suggestedFilename(), `day-report-${api.day}.csv`);
  const csv = await readFile(await file.path(), "utf8");
  const rows = csv.trim().split("\r\n").map((l) => l.split(","));
  assert.equal(rows[0][0], "row");
  const casino = rows.find((r) => r[0] === "casino");
  assert.deepEqual([casino[3], casino[8], casino[10]], [decimal(api.casino.drop), decimal(api.casino.win), "2"], csv);
  assert.ok(rows.some((r) => r[0] === "dealer" && r[1] === "dealer1"), csv);

  // Printed, the controls and the header are gone; the figures stay.
  await page.emulateMedia({ media: "print" });
  assert.equal(await page.locator("#report-controls").isVisible(), false, "the controls do not print");
  assert.equal(await page.locator("header.bar").isVisible(), false, "the header does not print");
  assert.equal(await page.locator("#tables").isVisible(), true, "the figures print");
  await shot(page, "day-report-print");
  await page.emulateMedia({ media: "screen" });
  await page.click("#print");

  // The header's Password (called off, then chosen) and Sign out.
  await page.click("#change-password");
  await page.click('#password-form button:text("Cancel")');
  await page.locator("#password-panel").waitFor({ state: "detached", timeout: WAIT_MS });
  await page.click("#change-password");
  await page.fill('#password-form [name="password"]', "pit1-secret-1");
  await page.fill('#password-form [name="new_password"]', "pit1-chosen-2");
  await page.fill('#password-form [name="again"]', "pit1-chosen-2");
  await page.click('#password-form button[type="submit"]');
  await textOf(page.locator("#message"), /Your password is changed/, "pit1's password changed");
  await page.click("#sign-out");
  await page.locator("#login-panel").waitFor({ state: "visible", timeout: WAIT_MS });
  await page.context().close();
});

test("a dealer is told the day report is not theirs", async () => {
  const page = await newPage("day-report-dealer");
  await signIn(page, "/report", "dealer1", "dealer1-secret-1");
  await textOf(page.locator("#message"), /This page has nothing a dealer may do/, "the dealer's refusal");
  assert.equal(await page.locator("#report").isHidden(), true);
  await page.context().close();
});

test("on a phone no figure breaks across lines, and nothing scrolls sideways: each row a card", async () => {
  const page = await newPage("day-report-phone", { width: 390, height: 844 });
  // pit1 chose a new password in the first test.
  await signIn(page, "/report", "pit1", "pit1-chosen-2");
  await page.locator("#tables tr").first().waitFor({ timeout: WAIT_MS });
  const broken = await page.evaluate(() => [...document.querySelectorAll("#report table.data td, #report table.data th")]
    .filter((cell) => {
      const range = document.createRange();
      range.selectNodeContents(cell);
      return cell.textContent.trim() && range.getClientRects().length > 1;
    })
    .map((cell) => cell.textContent.trim()));
  assert.deepEqual(broken, [], "cells whose text breaks across lines");
  const wide = await page.evaluate(() => [...document.querySelectorAll("#report .scroll")].filter((s) => s.scrollWidth > s.clientWidth + 1).length);
  assert.equal(wide, 0, "no table scrolls sideways on a phone");
  // Each figure says which it is.
  await textOf(page.locator('#tables tr[data-row="Casino"] [data-drop]'), /^USD 250\.00$/, "the casino's drop on a phone");
  assert.equal(await page.locator('#tables tr[data-row="Casino"] [data-drop]').getAttribute("data-label"), "Drop");
  await shot(page, "day-report-phone");
  await page.context().close();
});
