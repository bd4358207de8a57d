// The cage's page and the admin's, in a real browser against a real
// `croupier serve`, as a new casino found them: a mistyped look-up that left
// the previous player's panel live, a list of transactions lost on a reload,
// receipts with no casino, currency or number, a page wider than a phone,
// chips taken away with no mark, and a refusal that named only the admin.
// Every button of both pages is clicked here.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import path from "node:path";
import { readFile } from "node:fs/promises";
import { ROOT, WAIT_MS, base, start, stop, call, login, ask, newPage, signIn, textOf, shot, loseNextAnswer, licenceOf } from "./harness.mjs";

let adminToken;

before(async () => {
  const password = await start();
  adminToken = await login("admin", password);
  await ask(adminToken, { op: "change_password", password, new_password: "admin-secret-1" });
  await ask(adminToken, { op: "name_operator", name: "Test House" });
  for (const [username, role] of [["cash1", "cashier"], ["pit1", "pit_supervisor"], ["dealer1", "dealer"], ["audit1", "auditor"], ["ann", "player"], ["bea", "player"]]) {
    await ask(adminToken, { op: "create_user", username, role, password: `${username}-secret-1`, ...licenceOf(username, role) });
  }
});

after(stop);

const money = (text) => Math.round(Number(text) * 100);
const fitsWidth = (page) => page.evaluate(() => [document.documentElement.scrollWidth, document.documentElement.clientWidth]);

test("a mistyped look-up clears the panel, and an old error never stays above a new success", async () => {
  const page = await newPage("cage-look-up", { width: 1400, height: 1000 });
  await signIn(page, "/cashier", "cash1", "cash1-secret-1");
  await page.fill('#find-form [name="player"]', "ann");
  await page.click('#find-form button[type="submit"]');
  await textOf(page.locator("#player-name"), /^ann$/, "ann looked up");
  assert.equal(await page.locator("#cash-form").isVisible(), true);
  // A typo: no such player. Nothing of ann's stays live to take the next cash.
  await page.fill('#find-form [name="player"]', "anne");
  await page.press('#find-form [name="player"]', "Enter");
  await textOf(page.locator("#message"), /no player "anne"/, "the refusal");
  await page.locator("#player").waitFor({ state: "hidden", timeout: WAIT_MS });
  assert.equal(await page.locator("#cash-form").isVisible(), false, "no cash form for a player not found");
  assert.equal(await page.locator("#coupon-form").isVisible(), false, "no coupon form either");
  // The right name: the error above it goes.
  await page.fill('#find-form [name="player"]', "bea");
  await page.click('#find-form button[type="submit"]');
  await textOf(page.locator("#player-name"), /^bea$/, "bea looked up");
  const message = page.locator("#message");
  assert.ok((await message.isHidden()) || (await message.getAttribute("data-kind")) !== "error", "no error left above bea's panel");
  await page.context().close();
});

test("the cage's record outlives a reload and another tab; receipts carry the casino, the currency and a number", async () => {
  const page = await newPage("cage-record", { width: 1400, height: 1000 });
  await signIn(page, "/cashier", "cash1", "cash1-secret-1");
  await page.fill('#find-form [name="player"]', "ann");
  await page.click('#find-form button[type="submit"]');
  await textOf(page.locator("#player-name"), /^ann$/, "ann looked up");
  await page.fill('#cash-form [name="amount"]', "300.00");
  await page.click('#cash-form button[value="in"]');
  const receipt = page.locator("#receipt");
  await textOf(receipt, /Test House[\s\S]*Cash in\s*USD 300\.00[\s\S]*Receipt number · Reference\s*cash-[0-9a-f]+[\s\S]*Currency\s*USD[\s\S]*Wallet now\s*USD 300\.00/, "the cash-in's receipt");
  const reference = await receipt.getAttribute("data-reference");
  assert.match(await receipt.textContent(), new RegExp(`Receipt number · Reference\\s*${reference}`));
  await page.fill('#cash-form [name="amount"]', "50");
  await page.click('#cash-form button[value="out"]');
  await textOf(receipt, /Cash out\s*USD 50\.00/, "the cash-out's receipt");
  // Each form's own mistake is said in place of the one before, an empty field too.
  await page.fill('#cash-form [name="amount"]', "abc");
  await page.click('#cash-form button[value="in"]');
  await textOf(page.locator("#message"), /^Type the amount as money, such as 200\.00 \(got "abc"\)\.$/, "a cash amount refused");
  await page.fill('#cash-form [name="amount"]', "");
  await page.click('#cash-form button[value="in"]');
  await textOf(page.locator("#message"), /^Type the amount as money, such as 200\.00 \(the field is empty\)\.$/, "an empty cash amount refused");
  await page.fill('#cash-form [name="amount"]', "abc");
  await page.click('#cash-form button[value="in"]');
  await textOf(page.locator("#message"), /got "abc"/, "the cash form's error again");
  await page.click('#coupon-form button[type="submit"]');
  await textOf(page.locator("#message"), /^Type the coupon's value as money, such as 25\.00 \(the field is empty\)\.$/, "an empty coupon value said, the cash form's error gone");
  await page.fill('#cash-form [name="amount"]', "");
  await page.selectOption("#coupon-table", "t2");
  await page.fill('#coupon-form [name="value"]', "20.00");
  await page.click('#coupon-form button[type="submit"]');
  await textOf(receipt, /Match play coupon for t2\s*USD 20\.00/, "the coupon's receipt");
  await page.click("#print");
  await textOf(page.locator("#done"), /Match play coupon for t2[\s\S]*Cash out[\s\S]*Cash in/, "the list, newest first");

  // A reload keeps the list: it is the cage's, not the tab's.
  await page.reload();
  await textOf(page.locator("#done"), /ann[\s\S]*Match play coupon for t2[\s\S]*20\.00[\s\S]*ann[\s\S]*Cash out[\s\S]*50\.00[\s\S]*ann[\s\S]*Cash in[\s\S]*300\.00/, "the list after a reload");
  assert.equal(await page.locator(`#done tr[data-reference="${reference}"]`).count(), 1, "the cash-in listed once, by its reference");
  // Another cashier's tab does not list them; the auditor's lists them all.
  const audit = await newPage("cage-record-auditor", { width: 1400, height: 1000 });
  await signIn(audit, "/cashier", "audit1", "audit1-secret-1");
  await textOf(audit.locator("#done"), /Cash in[\s\S]*300\.00[\s\S]*cash1/, "the auditor reads the cage's record");
  await textOf(audit.locator("#journal-title"), /The cage's transactions today/, "everyone's");
  const record = await call(await login("audit1", "audit1-secret-1"), "/api/cage/transactions");
  assert.deepEqual(record.transactions.map((t) => [t.kind, t.amount]), [["coupon", 2_000], ["cash_out", 5_000], ["cash_in", 30_000]]);
  await audit.context().close();
  await shot(page, "30-cage-record-1400");
  await page.context().close();
});

test("the cage page fits a 390 px phone", async () => {
  const page = await newPage("cage-phone", { width: 390, height: 844 });
  await signIn(page, "/cashier", "cash1", "cash1-secret-1");
  await page.fill('#find-form [name="player"]', "ann");
  await page.click('#find-form button[type="submit"]');
  await textOf(page.locator("#player-name"), /^ann$/, "ann looked up");
  await textOf(page.locator("#done"), /Cash in/, "the list");
  const [scroll, width] = await fitsWidth(page);
  assert.ok(scroll <= width + 1, `the cage page scrolls sideways on a phone: ${scroll} px in ${width}`);
  await shot(page, "31-cage-390");
  await page.context().close();
});

test("the look-up marks chips taken away from a table", async () => {
  const profile = await readFile(path.join(ROOT, "profiles/low-limit-house.toml"), "utf8");
  await ask(adminToken, { op: "create_table", table: "e1", profile_text: profile, wheel: "double-zero", in_prison: false, betting_window_ms: 60_000, outcome: "dealer" });
  const pit = await login("pit1", "pit1-secret-1");
  const dealer = await login("dealer1", "dealer1-secret-1");
  await ask(pit, { op: "inspect", table: "e1", no_magnet_or_contrivance: true, wheel_level_and_rotating_freely: true, parts_secure: true, ball_non_magnetic: true, layout_and_signage_comply: true });
  await ask(dealer, { op: "open_table", table: "e1" });
  const cashier = await login("cash1", "cash1-secret-1");
  await ask(cashier, { op: "cash_in", id: "bea-in", player: "bea", amount: 10_000 });
  const bea = await login("bea", "bea-secret-1");
  await ask(bea, { op: "buy_in", id: "bea-e1", table: "e1", amount: 5_000, chip_value: 500 });
  await ask(pit, { op: "chips_taken_away", table: "e1", player: "bea" });
  const page = await newPage("cage-away", { width: 1400, height: 1000 });
  await signIn(page, "/cashier", "cash1", "cash1-secret-1");
  await page.fill('#find-form [name="player"]', "bea");
  await page.click('#find-form button[type="submit"]');
  await textOf(page.locator("#player-state"), /chips taken away from e1/, "the mark by the name");
  await textOf(page.locator('#accounts tr[data-account="chips:e1:bea"]'), /50\.00[\s\S]*taken away at/, "the mark by the chips");
  await page.context().close();
});

test("over a cashier's day, the refusal says who else may act: an admin, and the pit for a coupon", async () => {
  const page = await newPage("cage-limit", { width: 1400, height: 1000 });
  await signIn(page, "/cashier", "cash1", "cash1-secret-1");
  await page.fill('#find-form [name="player"]', "bea");
  await page.click('#find-form button[type="submit"]');
  await textOf(page.locator("#player-name"), /^bea$/, "bea looked up");
  await page.fill('#cash-form [name="amount"]', "10000.01");
  await page.click('#cash-form button[value="in"]');
  await textOf(page.locator("#message"), /an admin makes a larger cash-in, and an admin or the pit issues a larger coupon/, "who may act");
  await page.context().close();
});

test("a cash-in whose answer was lost is sent again, or told apart as a new one, from the page", async () => {
  const page = await newPage("cage-resend", { width: 1400, height: 1000 });
  await signIn(page, "/cashier", "cash1", "cash1-secret-1");
  await page.fill('#find-form [name="player"]', "ann");
  await page.click('#find-form button[type="submit"]');
  await textOf(page.locator("#player-name"), /^ann$/, "ann looked up");
  const wallet = async () => (await call(adminToken, "/api/players/ann/accounts")).accounts["wallet:ann"];
  const before = await wallet();
  let done = (await loseNextAnswer(page, "cash_in")).done;
  await page.fill('#cash-form [name="amount"]', "10.00");
  await page.click('#cash-form button[value="in"]');
  await textOf(page.locator("#message"), /No answer came/, "no answer");
  await done();
  await page.click('#cash-form button[value="in"]');
  await page.locator('[data-resend="again"]').click();
  await textOf(page.locator("#message"), /recorded by the earlier send/, "the same one, once");
  assert.equal(await wallet(), before + 1_000);
  done = (await loseNextAnswer(page, "cash_in")).done;
  await page.fill('#cash-form [name="amount"]', "10.00");
  await page.click('#cash-form button[value="in"]');
  await textOf(page.locator("#message"), /No answer came/, "no answer again");
  await done();
  await page.click('#cash-form button[value="in"]');
  await page.locator('[data-resend="new"]').click();
  await textOf(page.locator("#message"), /Cashed in USD 10\.00 for ann/, "a new one");
  assert.equal(await wallet(), before + 3_000, "the lost one and the new one");
  await page.context().close();
});

test("the header's buttons on the cage and admin pages: a password changed or not, and signing out", async () => {
  for (const [pathname, user, role] of [["/cashier", "cash2", "cashier"], ["/admin", "boss2", "admin"]]) {
    await ask(adminToken, { op: "create_user", username: user, role, password: `${user}-secret-1` });
    const page = await newPage(`header ${pathname}`, { width: 1400, height: 1000 });
    await signIn(page, pathname, user, `${user}-secret-1`);
    await page.click("#change-password");
    await page.locator("#password-panel").waitFor({ timeout: WAIT_MS });
    await page.locator('#password-form button[type="button"]').click();
    await page.locator("#password-panel").waitFor({ state: "detached", timeout: WAIT_MS });
    await page.click("#change-password");
    await page.fill('#password-form [name="password"]', `${user}-secret-1`);
    await page.fill('#password-form [name="new_password"]', `${user}-secret-2`);
    await page.fill('#password-form [name="again"]', `${user}-secret-2`);
    await page.click('#password-form button[type="submit"]');
    await textOf(page.locator("#message"), /password is changed/, "changed");
    await page.click("#sign-out");
    await page.locator("#login-panel").waitFor({ state: "visible", timeout: WAIT_MS });
    await login(user, `${user}-secret-2`);
    await page.context().close();
  }
});

test("the admin page: more users than a page, a password reset begun and cancelled, every form", async () => {
  // 100 users a page: the 101st is behind "More users".
  const more = Array.from({ length: 100 }, (_, i) => `z${String(i).padStart(3, "0")}`);
  for (let i = 0; i < more.length; i += 4) {
    await Promise.all(more.slice(i, i + 4).map((username) => ask(adminToken, { op: "create_user", username, role: "player", password: "player-secret-1" })));
  }
  const page = await newPage("admin-all", { width: 1400, height: 1000 });
  await signIn(page, "/admin", "admin", "admin-secret-1");
  await page.locator("#more-users").waitFor({ state: "visible", timeout: WAIT_MS });
  await page.click("#more-users");
  await page.locator('#users tr[data-user="z099"]').waitFor({ timeout: WAIT_MS });
  const ann = page.locator('#users tr[data-user="ann"]');
  await ann.getByRole("button", { name: "Reset password" }).click();
  await ann.getByRole("button", { name: "Cancel" }).click();
  assert.equal(await ann.locator("input").count(), 0, "the reset cancelled");
  await ann.getByRole("button", { name: "Reset password" }).click();
  await ann.locator("input[type=password]").fill("ann-reset-secret-1");
  await ann.getByRole("button", { name: "Set" }).click();
  await textOf(page.locator("#message"), /password of ann is set/, "ann reset");
  // A staff member's licence recorded from the page (Colorado 2212(5)), begun and called off first.
  const pit1 = page.locator('#users tr[data-user="pit1"]');
  await pit1.getByRole("button", { name: "Licence", exact: true }).click();
  await pit1.getByRole("button", { name: "Cancel" }).click();
  assert.equal(await pit1.locator("input").count(), 0, "the licence called off");
  await pit1.getByRole("button", { name: "Licence", exact: true }).click();
  await pit1.locator("input[type=text]").fill("P-7777");
  await pit1.getByRole("button", { name: "Record" }).click();
  await textOf(page.locator("#message"), /pit1's licence P-7777 is on record/, "pit1's licence recorded");
  await textOf(pit1, /P-7777/, "the licence in pit1's row");
  assert.equal(await ann.getByRole("button", { name: "Licence", exact: true }).count(), 0, "a player holds no licence");
  await ann.getByRole("button", { name: "Lock" }).click();
  await textOf(ann, /locked/, "ann locked");
  await ann.getByRole("button", { name: "Unlock" }).click();
  await textOf(ann, /changes password/, "ann unlocked");
  await page.fill('#user-form [name="username"]', "dot");
  await page.fill('#user-form [name="password"]', "dot-secret-1");
  await page.click('#user-form button[type="submit"]');
  await textOf(page.locator('#users tr[data-user="dot"]'), /player/, "dot added");
  // Typing the next user while the server answers: the confirmation is of
  // what was sent, a second "Add" meanwhile is said, and nothing typed is lost.
  let release;
  const held = new Promise((r) => { release = r; });
  await page.route("**/api/requests", async (route) => {
    if (JSON.parse(route.request().postData() ?? "{}").op !== "create_user") return route.continue();
    await held;
    return route.continue();
  });
  await page.fill('#user-form [name="username"]', "flo");
  await page.selectOption('#user-form [name="role"]', "floorperson");
  await page.fill('#user-form [name="password"]', "flo-secret-1");
  const asked = page.waitForRequest((r) => r.url().endsWith("/api/requests") && JSON.parse(r.postData() ?? "{}").op === "create_user");
  await page.click('#user-form button[type="submit"]');
  await asked;
  await page.fill('#user-form [name="username"]', "pia");
  await page.selectOption('#user-form [name="role"]', "pit_supervisor");
  await page.fill('#user-form [name="password"]', "pia-secret-1");
  await page.click('#user-form button[type="submit"]');
  await textOf(page.locator("#message"), /Still adding flo: add pia once the server has answered/, "a second add while busy said");
  release();
  await textOf(page.locator("#message"), /^flo is added as floorperson\.$/, "flo confirmed as sent");
  await page.unroute("**/api/requests");
  assert.deepEqual([await page.inputValue('#user-form [name="username"]'), await page.inputValue('#user-form [name="role"]'), await page.inputValue('#user-form [name="password"]')],
    ["pia", "pit_supervisor", "pia-secret-1"], "what was typed meanwhile is kept");
  await page.click('#user-form button[type="submit"]');
  await textOf(page.locator('#users tr[data-user="pia"]'), /pit supervisor/, "pia added");
  // A member of the security department, who witnesses adjustments, with the
  // licence the log takes (Colorado 2212(2), (5); Maryland ch.2 B, E(6)).
  await page.fill('#user-form [name="username"]', "sam");
  await page.selectOption('#user-form [name="role"]', "security");
  await page.fill('#user-form [name="password"]', "sam-secret-1");
  await page.fill('#user-form [name="licence"]', "S-77");
  await page.click('#user-form button[type="submit"]');
  await textOf(page.locator('#users tr[data-user="sam"]'), /sam\s*security\s*S-77/, "sam added as security with a licence");
  await page.fill("#operator-name", "Test House");
  await page.click("#operator-save");
  await textOf(page.locator("#message"), /Every layout now shows Test House/, "the operator kept");
  await page.fill('#table-form [name="table"]', "a1");
  await page.click('#table-form button[type="submit"]');
  await textOf(page.locator('#tables tr[data-table="a1"]'), /a1/, "a1 made");
  await page.context().close();
});
