// The floor overview (/floor) and a dealer's shift on the day report, in a
// real browser against a real `croupier serve`: every table's card with the
// API's figures, a table changing phase while the page is open, a slip
// waiting shown as an alert, the printout; the card's link to the dealer's
// shift, its figures, its CSV; a phone's width; a player refused.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import path from "node:path";
import { readFile } from "node:fs/promises";
import { ROOT, WAIT_MS, start, stop, call, login, ask, newPage, signIn, textOf, shot } from "./harness.mjs";

let pitToken, dealerToken;

before(async () => {
  const password = await start();
  const admin = await login("admin", password);
  await ask(admin, { op: "change_password", password, new_password: "admin-secret-1" });
  for (const [username, role, licence] of [["dealer1", "dealer", "D-1001"], ["pit1", "pit_supervisor", "P-2001"], ["cash1", "cashier"], ["ann", "player"]]) {
    await ask(admin, { op: "create_user", username, role, password: `${username}-secret-1`, ...(licence ? { licence } : {}) });
  }
  pitToken = await login("pit1", "pit1-secret-1");
  dealerToken = await login("dealer1", "dealer1-secret-1");
  const ann = await login("ann", "ann-secret-1");
  const text = (await readFile(path.join(ROOT, "profiles", "european-casino.toml"), "utf8")).replace('currency = "EUR"', 'currency = "USD"');
  for (const table of ["e1", "e2"]) {
    await ask(admin, { op: "create_table", table, profile_text: text, wheel: "single-zero", in_prison: false, betting_window_ms: 600_000, outcome: "dealer" });
  }
  await ask(pitToken, { op: "inspect", table: "e1", no_magnet_or_contrivance: true, wheel_level_and_rotating_freely: true, parts_secure: true, ball_non_magnetic: true, layout_and_signage_comply: true });
  await ask(pitToken, { op: "set_limits", table: "e1", limits: [{ kind: "straight", min: 100, max: 5_000 }, { kind: "red", min: 500, max: 50_000 }] });
  await ask(dealerToken, { op: "open_table", table: "e1" });
  await ask(await login("cash1", "cash1-secret-1"), { op: "cash_in", id: "cash-ann", player: "ann", amount: 100_000 });
  await ask(ann, { op: "buy_in", id: "buy-ann", table: "e1", amount: 25_000, chip_value: 100 });
  for (const [spot, stake, pocket] of [["red", 1_000, "1"], ["black", 2_500, "3"]]) {
    await ask(dealerToken, { op: "open_betting", table: "e1" });
    await ask(ann, { op: "place_bet", table: "e1", bet_id: `b-${spot}`, spot, stake });
    await ask(dealerToken, { op: "no_more_bets", table: "e1" });
    await ask(dealerToken, { op: "spin", table: "e1", spin: { pocket, direction: "opposite", revolutions: 6 } });
  }
  await ask(ann, { op: "tip", id: "tip-ann", table: "e1", amount: 500 });
});

after(stop);

// As Croupier.money writes it: "USD 12.30".
const money = (minor) => `${minor < 0 ? "−" : ""}USD ${Math.floor(Math.abs(minor) / 100)}.${String(Math.abs(minor) % 100).padStart(2, "0")}`;
const exactly = (text) => new RegExp(`^${text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}$`);
const decimal = (minor) => `${minor < 0 ? "-" : ""}${Math.floor(Math.abs(minor) / 100)}.${String(Math.abs(minor) % 100).padStart(2, "0")}`;

test("the floor shows every table with the API's figures, a phase changing live, an alert, a printout", async () => {
  const floor = await call(pitToken, "/api/floor");
  const [e1, e2] = floor.tables;
  assert.deepEqual([e1.table, e2.table, e1.phase, e2.phase, e1.dealer], ["e1", "e2", "open", "closed", "dealer1"], JSON.stringify(floor));
  assert.equal(e1.drop, 25_000);

  const page = await newPage("floor");
  await signIn(page, "/floor", "pit1", "pit1-secret-1");
  const card = (t) => page.locator(`#plan article[data-table="${t}"]`);
  await textOf(card("e1").locator("[data-dealer]"), /^dealer1$/, "e1's dealer on duty");
  await textOf(card("e1").locator("[data-drop]"), exactly(money(e1.drop)), "e1's drop today");
  await textOf(card("e1").locator("[data-win]"), exactly(money(e1.win)), "e1's win today");
  await textOf(card("e1").locator("[data-float]"), exactly(money(e1.float)), "e1's float");
  await textOf(card("e1").locator("[data-rounds]"), /^2$/, "e1's rounds today");
  await textOf(card("e1").locator("[data-limits]"), /^Inside bets: USD 1\.00 to USD 50\.00 each · Outside bets: USD 5\.00 to USD 500\.00 each$/, "e1's posted limits");
  await textOf(card("e2").locator("[data-dealer]"), /^—$/, "no one has dealt e2");
  assert.equal(await card("e1").getAttribute("data-phase"), "open");
  assert.equal(await card("e2").getAttribute("data-phase"), "closed");
  assert.equal(await card("e2").locator('[data-alert="not-inspected"]').count(), 1, "e2 waits for its inspection");

  // The dealer opens betting at e1, and the pit asks a fill for e2: the page shows both without a reload.
  await ask(dealerToken, { op: "open_betting", table: "e1" });
  await ask(pitToken, { op: "request_fill", table: "e2", id: "fill-e2", amount: 5_000 });
  await page.locator('#plan article[data-table="e1"][data-phase="betting"]').waitFor({ timeout: WAIT_MS });
  await textOf(card("e1").locator("[data-phase-words]"), /^Betting open$/, "e1's phase in words");
  await textOf(card("e1").locator("[data-round]"), /round 3/, "e1's round");
  await textOf(card("e2").locator('[data-alert="slips"]'), /Slips waiting for the cage: 1/, "e2's fill waits");
  assert.equal(await card("e2").getAttribute("data-alert"), "true");
  await ask(dealerToken, { op: "no_more_bets", table: "e1" });
  await page.locator('#plan article[data-table="e1"][data-phase="closed-betting"]').waitFor({ timeout: WAIT_MS });
  assert.equal(await card("e1").locator('a[href="/pit?table=e1"]').count(), 1, "the card leads to the pit");
  assert.equal(await card("e1").locator('a[href="/dealer?table=e1"]').count(), 1, "and to the dealer's console");

  // Printed: the cards, without the header, the buttons and the links.
  await page.emulateMedia({ media: "print" });
  assert.equal(await page.locator("header.bar").isVisible(), false, "the header does not print");
  assert.equal(await page.locator("#floor-print").isVisible(), false, "the button does not print");
  assert.equal(await card("e1").isVisible(), true, "the cards print");
  await shot(page, "floor-print");
  await page.emulateMedia({ media: "screen" });
  await page.click("#floor-print");

  // The card's link: the dealer's shift on the day report, with the API's figures.
  await ask(dealerToken, { op: "spin", table: "e1", spin: { pocket: "0", direction: "opposite", revolutions: 6 } });
  const shift = await call(pitToken, "/api/reports/shift?dealer=dealer1");
  assert.deepEqual(shift.tables.map((t) => t.table), ["e1"], JSON.stringify(shift));
  assert.equal(shift.total.tips, 500, JSON.stringify(shift));
  await textOf(card("e1").locator("[data-rounds]"), /^3$/, "the third round counted");
  await card("e1").locator('a[href="/report?dealer=dealer1"]').click();
  await page.waitForURL(/\/report\?dealer=dealer1$/, { timeout: WAIT_MS });
  const row = (name) => page.locator(`#shift-rows tr[data-shift-row="${name}"]`);
  await textOf(page.locator("#shift-title"), new RegExp(`dealer1's shift, gaming day ${shift.day}`), "the shift asked for");
  await textOf(row("e1").locator("[data-drop]"), exactly(money(shift.tables[0].figures.drop)), "the shift's drop at e1");
  await textOf(row("e1").locator("[data-win]"), exactly(money(shift.tables[0].figures.win)), "the shift's win at e1");
  await textOf(row("e1").locator("[data-rounds]"), /^3$/, "the rounds dealt");
  await textOf(row("Shift").locator("[data-tips]"), exactly(money(500)), "the shift's tips");
  assert.equal(await page.inputValue("#shift-dealer"), "dealer1");
  // Shown again from the form, then its CSV.
  await page.evaluate(() => { document.getElementById("shift-rows").replaceChildren(); });
  await page.click('#shift-form button[type="submit"]');
  await textOf(row("Shift").locator("[data-rounds]"), /^3$/, "the shift shown again");
  const download = page.waitForEvent("download", { timeout: WAIT_MS });
  await page.click("#shift-csv");
  const file = await download;
  assert.equal(file.suggestedFilename(), `shift-report-dealer1-${shift.day}.csv`);
  const rows = (await readFile(await file.path(), "utf8")).trim().split("\r\n").map((l) => l.split(","));
  const total = rows.find((r) => r[0] === "shift");
  assert.deepEqual([total[1], total[6], total[9], total[11], total[14]], ["dealer1", decimal(shift.total.drop), decimal(shift.total.win), "3", "5.00"]);
  await page.context().close();
});

test("on a phone the floor is one card to a row, with nothing off the screen's side", async () => {
  const page = await newPage("floor-phone", { width: 390, height: 844 });
  await signIn(page, "/floor", "pit1", "pit1-secret-1");
  await page.locator('#plan article[data-table="e2"]').waitFor({ timeout: WAIT_MS });
  const [width, boxes] = await page.evaluate(() => [
    document.documentElement.scrollWidth,
    [...document.querySelectorAll("#plan article")].map((a) => a.getBoundingClientRect().toJSON()),
  ]);
  assert.ok(width <= 390, `the page is ${width}px wide`);
  assert.ok(boxes[1].top >= boxes[0].bottom, "the cards stack");
  assert.ok(boxes.every((b) => b.right <= 390), JSON.stringify(boxes));
  await shot(page, "floor-phone");
  await page.context().close();
});

test("a player is told the floor is not theirs, and the API refuses them", async () => {
  const page = await newPage("floor-player");
  await signIn(page, "/floor", "ann", "ann-secret-1");
  await textOf(page.locator("#message"), /This page has nothing a player may do/, "the player's refusal");
  assert.equal(await page.locator("#floor").isHidden(), true);
  await assert.rejects(call(await login("ann", "ann-secret-1"), "/api/floor"), /403/);
  await assert.rejects(call(null, "/api/floor"), /401/);
  await page.context().close();
});

test("the header's buttons on the floor: a password changed, signed out", async () => {
  const page = await newPage("floor-header", { width: 1400, height: 1000 });
  await ask(await login("admin", "admin-secret-1"), { op: "create_user", username: "aud1", role: "auditor", password: "aud1-secret-1" });
  await signIn(page, "/floor", "aud1", "aud1-secret-1");
  await page.locator("#floor").waitFor({ state: "visible", timeout: WAIT_MS });
  await page.click("#change-password");
  await page.locator('#password-form button[type="button"]').click();
  await page.click("#change-password");
  await page.fill('#password-form [name="password"]', "aud1-secret-1");
  await page.fill('#password-form [name="new_password"]', "aud1-secret-2");
  await page.fill('#password-form [name="again"]', "aud1-secret-2");
  await page.click('#password-form button[type="submit"]');
  await textOf(page.locator("#message"), /password is changed/, "changed");
  await page.click("#sign-out");
  await page.locator("#login-panel").waitFor({ state: "visible", timeout: WAIT_MS });
  await page.context().close();
});
