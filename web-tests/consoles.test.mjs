// The consoles' controls no other file drives, in a real browser against a
// real `croupier serve`: a ball the dealer inspects (Maryland ch.6 B-C) or
// the pit replaces (Colorado 2206(4)), an emergency declared and lifted, a
// table closed only with its wheel cover locked (Maryland ch.2 F), a
// console's forms cleared on a change of table and after success, a
// correction row removed, a recording of chips taken away called off, a
// decision whose answer was lost sent as a new one, and each page's
// password change and sign-out.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import path from "node:path";
import { readFile } from "node:fs/promises";
import { ROOT, WAIT_MS, start, stop, call, login, ask, chipsOf, newPage, signIn, textOf, shot, loseNextAnswer, postLimits } from "./harness.mjs";

const PHONE = { width: 390, height: 844 };
let adminToken, pitToken, dealerToken;

before(async () => {
  const password = await start();
  adminToken = await login("admin", password);
  await ask(adminToken, { op: "change_password", password, new_password: "admin-secret-1" });
  await ask(adminToken, { op: "name_operator", name: "Test House" });
  // dealer2, pit2 and ann change their passwords on the pages: the API's
  // sessions are dealer1's and pit1's, which those changes leave alone.
  for (const [username, role, licence] of [
    ["dealer1", "dealer", "D-1001"], ["dealer2", "dealer", "D-1002"], ["dealer3", "dealer", "D-1003"], ["pit1", "pit_supervisor", "P-2001"],
    ["pit2", "pit_supervisor", "P-2002"], ["cash1", "cashier"], ["ann", "player"], ["ben", "player"],
  ]) {
    await ask(adminToken, { op: "create_user", username, role, password: `${username}-secret-1`, ...(licence ? { licence } : {}) });
  }
  pitToken = await login("pit1", "pit1-secret-1");
  dealerToken = await login("dealer1", "dealer1-secret-1");
  const cashier = await login("cash1", "cash1-secret-1");
  for (const p of ["ann", "ben"]) await ask(cashier, { op: "cash_in", id: `cash-${p}`, player: p, amount: 100_000 });
  const profile = (name) => readFile(path.join(ROOT, "profiles", `${name}.toml`), "utf8");
  for (const [table, text, wheel] of [
    ["m1", await profile("maryland"), "double-zero"],
    ["c1", await profile("colorado-2014"), "single-zero"],
    ["e1", (await profile("european-casino")).replace('currency = "EUR"', 'currency = "USD"'), "single-zero"],
  ]) {
    await ask(adminToken, { op: "create_table", table, profile_text: text, wheel, in_prison: false, betting_window_ms: 600_000, outcome: "dealer" });
    await ask(pitToken, { op: "inspect", table, no_magnet_or_contrivance: true, wheel_level_and_rotating_freely: true, parts_secure: true, ball_non_magnetic: true, layout_and_signage_comply: true });
    if (table === "m1") await postLimits(pitToken, table);
    await ask(dealerToken, { op: "open_table", table });
  }
});

after(stop);

const spin = (table, pocket, revolutions) => ask(dealerToken, { op: "spin", table, spin: { pocket, direction: "opposite", revolutions } });

// The header's "Password": asked, called off, then a new password chosen
// (its repeat mistyped once); "Sign out" shows the sign-in form, and the new
// password signs in.
async function changePasswordAndSignOut(page, pathname, username) {
  await page.click("#change-password");
  await page.locator("#password-panel").waitFor({ timeout: WAIT_MS });
  await page.click('#password-form button:text("Cancel")');
  await page.locator("#password-panel").waitFor({ state: "detached", timeout: WAIT_MS });
  await page.click("#change-password");
  const fresh = `${username}-chosen-2`;
  await page.fill('#password-form [name="password"]', `${username}-secret-1`);
  await page.fill('#password-form [name="new_password"]', fresh);
  await page.fill('#password-form [name="again"]', `${fresh}x`);
  await page.click('#password-form button[type="submit"]');
  await textOf(page.locator("#message"), /The new password and its repeat differ/, `${username}'s mistyped repeat`);
  await page.fill('#password-form [name="again"]', fresh);
  await page.click('#password-form button[type="submit"]');
  await textOf(page.locator("#message"), /Your password is changed/, `${username}'s password changed`);
  await page.locator("#password-panel").waitFor({ state: "detached", timeout: WAIT_MS });
  await page.click("#sign-out");
  await page.locator("#login-panel").waitFor({ state: "visible", timeout: WAIT_MS });
  assert.equal(await page.locator("#sign-out").isHidden(), true, `${username} is signed out`);
  await signIn(page, pathname, username, fresh);
  await textOf(page.locator("#who"), new RegExp(`^${username}$`), `${username} signed in with the new password`);
}

test("the dealer's console: a ball inspected, forms cleared on a change of table, closing with the cover locked", async () => {
  const dealer = await newPage("consoles-dealer");
  await signIn(dealer, "/dealer?table=m1", "dealer2", "dealer2-secret-1");
  await ask(dealerToken, { op: "open_betting", table: "m1" });
  await ask(dealerToken, { op: "no_more_bets", table: "m1" });
  await textOf(dealer.locator("#phase"), /No more bets/, "no more bets at m1");
  // Maryland ch.5 A, ch.6 B: too few revolutions is a no spin, and the dealer inspects the ball.
  await dealer.fill("#pocket", "5");
  await dealer.fill('#result-form [name="revolutions"]', "2");
  await dealer.click('#result-form button[type="submit"]');
  await textOf(dealer.locator("#message"), /Not 5: the server called no spin \(too few revolutions\)/, "the no spin");
  await dealer.locator("#ball-sound").waitFor({ state: "visible", timeout: WAIT_MS });
  await dealer.click("#ball-sound");
  await textOf(dealer.locator("#message"), /Ball inspected: spin again/, "the dealer inspected the ball");
  await dealer.locator("#ball-wait").waitFor({ state: "hidden", timeout: WAIT_MS });
  await dealer.fill("#pocket", "5");
  await dealer.fill('#result-form [name="revolutions"]', "7");
  await dealer.click('#result-form button[type="submit"]');
  await textOf(dealer.locator("#message"), /Result 5: the round settles/, "the re-spin");

  // Nothing typed or ticked at m1 carries to c1: the sale, the cover, the pocket.
  await dealer.fill('#sell-form [name="player"]', "ann");
  await dealer.fill('#sell-form [name="amount"]', "50.00");
  await dealer.check("#cover-locked");
  await dealer.fill("#pocket", "12");
  await dealer.fill('#result-form [name="revolutions"]', "9");
  await dealer.selectOption("#table-select", "c1");
  await textOf(dealer.locator("#phase"), /Round \d+: Open/, "c1 shown");
  for (const field of ['#sell-form [name="player"]', '#sell-form [name="amount"]', "#pocket", '#result-form [name="revolutions"]']) {
    assert.equal(await dealer.inputValue(field), "", `${field} is empty at the next table`);
  }
  assert.equal(await dealer.isChecked("#cover-locked"), false, "the wheel cover is ticked for the table it covers");
  await dealer.selectOption("#table-select", "m1");
  await textOf(dealer.locator("#phase"), /Round \d+: Open/, "m1 shown again");

  // Maryland ch.2 F: closed only with the cover on and locked; ticked for each closing.
  await dealer.click("#close-table");
  await textOf(dealer.locator("#message"), /cover the wheel and lock the cover before closing the table/, "refused without the cover");
  assert.equal((await call(null, "/api/public/tables/m1")).phase, "open", "refused: m1 is still open");
  await dealer.check("#cover-locked");
  await dealer.click("#close-table");
  await textOf(dealer.locator("#message"), /The table is closed, its wheel cover locked/, "closed");
  await textOf(dealer.locator("#phase"), /Table closed/, "shown closed");
  assert.equal(await dealer.isChecked("#cover-locked"), false, "the cover is not left ticked for the next closing");
  await shot(dealer, "60-dealer-closed");
  await changePasswordAndSignOut(dealer, "/dealer?table=c1", "dealer2");
  await dealer.context().close();
});

test("the floor: an emergency declared and lifted, a new ball, a correction removed, chips away called off, a new decision", async () => {
  // A supervisor at the dealer's console declares and lifts an emergency; an empty reason is refused.
  const floor = await newPage("consoles-floor-dealer");
  await signIn(floor, "/dealer?table=c1", "pit1", "pit1-secret-1");
  await floor.locator("#emergency-panel").waitFor({ state: "visible", timeout: WAIT_MS });
  await floor.click('#emergency-form button[type="submit"]');
  await textOf(floor.locator("#message"), /Say what the emergency is/, "an empty reason refused");
  assert.equal((await call(null, "/api/public/tables/c1")).phase_text.includes("mergency"), false, "nothing declared");
  await floor.fill('#emergency-form [name="reason"]', "smoke at the next table");
  await floor.click('#emergency-form button[type="submit"]');
  await textOf(floor.locator("#message"), /Emergency declared: play is suspended/, "declared");
  await textOf(floor.locator("#phase"), /EMERGENCY/, "shown");
  await floor.click("#lift");
  await textOf(floor.locator("#message"), /Emergency lifted/, "lifted");
  await textOf(floor.locator("#phase"), /^(?!.*EMERGENCY)/, "no longer shown");
  await floor.context().close();

  // Colorado 2206(4): a ball that left the wheel is the pit's to inspect; a damaged one is replaced.
  const ben = await login("ben", "ben-secret-1");
  await ask(ben, { op: "buy_in", id: "ben-c1", table: "c1", amount: 5_000, chip_value: 100 });
  await ask(dealerToken, { op: "open_betting", table: "c1" });
  await ask(ben, { op: "place_bet", table: "c1", bet_id: "red-1", spot: "red", stake: 1_000 });
  await ask(dealerToken, { op: "no_more_bets", table: "c1" });
  await ask(dealerToken, { op: "spin", table: "c1", spin: { no_spin: "ball_left_wheel" } });
  const pit = await newPage("consoles-pit", PHONE);
  await signIn(pit, "/pit?table=c1", "pit2", "pit2-secret-1");
  await pit.locator("#ball-replaced").waitFor({ state: "visible", timeout: WAIT_MS });
  await pit.click("#ball-replaced");
  await textOf(pit.locator("#message"), /New ball recorded: the dealer may spin again/, "a new ball");
  const log = await call(pitToken, "/api/tables/c1/log");
  assert.equal(log.log.filter((e) => e.type === "ball_inspected" && e.damaged === true).length, 1, `one damaged ball in the log: ${JSON.stringify(log.log.filter((e) => e.type === "ball_inspected"))}`);
  await spin("c1", "17", 8);

  // A correction row added by mistake is removed; the decision pays the one kept.
  await pit.locator('#dispute-round option[value="1"]').waitFor({ state: "attached", timeout: WAIT_MS });
  await pit.fill('#dispute-form [name="reason"]', "ben's red bet was placed late and is owed 1.00");
  await pit.click("#add-correction");
  await pit.click("#add-correction");
  await pit.locator("#corrections .corr-row").nth(1).locator('[name="player"]').fill("ann");
  await pit.locator("#corrections .corr-row").nth(1).locator('button:text("Remove")').click();
  assert.equal(await pit.locator("#corrections .corr-row").count(), 1, "one correction left");
  await pit.fill('#corrections [name="player"]', "ben");
  await pit.fill('#corrections [name="amount"]', "+1.00");
  const chips = await chipsOf(ben, "c1", "ben");
  const fillDecision = async () => {
    await pit.fill('#dispute-form [name="reason"]', "ben's red bet was placed late and is owed 1.00");
    if (!(await pit.locator("#corrections .corr-row").count())) await pit.click("#add-correction");
    await pit.fill('#corrections [name="player"]', "ben");
    await pit.fill('#corrections [name="amount"]', "+1.00");
  };
  const decisions = async (table) => (await call(pitToken, `/api/tables/${table}/log`)).log.filter((e) => e.type === "dispute_decided").length;
  let sent = await loseNextAnswer(pit, "dispute");
  await pit.click('#dispute-form button[type="submit"]');
  await textOf(pit.locator("#message"), /No answer came/, "the lost answer said");
  assert.equal(await chipsOf(ben, "c1", "ben"), chips + 100, "the first decision reached the server");
  // Asked whether it is that one again, the pit switches tables before
  // answering: the question stays (nothing said meanwhile takes it away),
  // and "again" goes to the table it was meant for, under its id.
  await pit.click('#dispute-form button[type="submit"]');
  await pit.locator('[data-resend="again"]').waitFor({ timeout: WAIT_MS });
  await pit.selectOption("#table-select", "e1");
  await textOf(pit.locator("#profile-line"), /european/i, "e1 shown");
  await pit.click('[data-resend="again"]');
  await textOf(pit.locator("#message"), /nothing was decided twice/, "the resend decided nothing");
  await sent.done();
  assert.deepEqual([...sent], [sent[0], sent[0]], "one id for both sends");
  assert.equal(await chipsOf(ben, "c1", "ben"), chips + 100, "paid once");
  assert.equal(await decisions("c1"), 1, "one decision at c1");
  assert.equal(await decisions("e1"), 0, "none at e1, the table shown when it was sent again");

  // The same decision again, as the pit knows: a second, separate shortfall, so a new one.
  await pit.selectOption("#table-select", "c1");
  await pit.locator('#dispute-round option[value="1"]').waitFor({ state: "attached", timeout: WAIT_MS });
  await fillDecision();
  sent = await loseNextAnswer(pit, "dispute");
  await pit.click('#dispute-form button[type="submit"]');
  await textOf(pit.locator("#message"), /No answer came/, "the second lost answer said");
  await pit.click('#dispute-form button[type="submit"]');
  // The earlier decision's reference is still shown: wait for the new one's.
  const earlier = await pit.locator("#dispute-done").innerText();
  await pit.click('[data-resend="new"]');
  await pit.waitForFunction((before) => {
    const now = document.getElementById("dispute-done").innerText;
    return /reference/.test(now) && now !== before;
  }, earlier, { timeout: WAIT_MS });
  await sent.done();
  assert.equal(sent.length, 2, "sent twice");
  assert.notEqual(sent[0], sent[1], "a new one goes under a new id");
  assert.equal(await chipsOf(ben, "c1", "ben"), chips + 300, "three decisions, each paid once");
  assert.equal(await decisions("c1"), 3, "three decisions in the log");

  // european-casino 5.5: recording chips taken away is asked again; called off, nothing is recorded.
  await ask(ben, { op: "buy_in", id: "ben-e1", table: "e1", amount: 2_000, chip_value: 500 });
  await pit.selectOption("#table-select", "e1");
  await pit.locator('#players [data-take-away="ben"]').waitFor({ timeout: WAIT_MS });
  await pit.click('#players [data-take-away="ben"]');
  await textOf(pit.locator('#players [data-player="ben"]'), /It cannot be undone/, "asked again");
  await pit.click('#players [data-player="ben"] button:text("Cancel")');
  await pit.locator('#players [data-take-away="ben"]').waitFor({ timeout: WAIT_MS });
  const report = await call(pitToken, "/api/tables/e1/report");
  assert.equal(report.players.find((x) => x.player === "ben")?.away ?? null, null, "nothing recorded");
  await shot(pit, "61-pit-phone");
  await changePasswordAndSignOut(pit, "/pit?table=e1", "pit2");
  await pit.context().close();
});

test("on a phone the dealer's message at the foot of the screen leaves the row tapped in view", async () => {
  const dealer = await newPage("consoles-dealer-phone", PHONE);
  await signIn(dealer, "/dealer?table=e1", "dealer1", "dealer1-secret-1", "D-1001");
  await textOf(dealer.locator("#phase"), /Round \d+/, "e1 shown");
  const button = dealer.locator('#sell-form button[type="submit"]');
  // The Sell chips row at the foot of the screen, as it is when tapped there.
  await button.evaluate((n) => n.scrollIntoView({ block: "end" }));
  await dealer.fill('#sell-form [name="player"]', "ann");
  await button.click();
  await textOf(dealer.locator("#message"), /Enter the cash taken, for example 100\.00\./, "the sale refused on the page");
  await new Promise((r) => setTimeout(r, 300));
  const [row, message] = await Promise.all([button, dealer.locator("#message")].map((l) => l.boundingBox()));
  assert.ok(message.y > 600, `the message is at the foot of the screen: ${JSON.stringify(message)}`);
  assert.ok(row.y + row.height <= message.y, `the Sell chips row is not under the message: ${JSON.stringify({ row, message })}`);
  // And the page's foot scrolls clear of it.
  await dealer.evaluate(() => window.scrollTo(0, document.documentElement.scrollHeight));
  const last = await dealer.locator("#feed").evaluate((n) => n.closest("section").getBoundingClientRect().bottom);
  assert.ok(last <= (await dealer.locator("#message").boundingBox()).y, "the last panel scrolls clear of the message");
  await dealer.context().close();
});

test("the terminal: a player changes their password and signs out", async () => {
  const ann = await newPage("consoles-ann", PHONE);
  await signIn(ann, "/terminal?table=e1", "ann", "ann-secret-1");
  await changePasswordAndSignOut(ann, "/terminal?table=e1", "ann");
  await ann.context().close();
});

test("a console whose session ends shows the sign-in form, not a server out of reach", async () => {
  const dealer = await newPage("consoles-session-over");
  await signIn(dealer, "/dealer?table=c1", "dealer3", "dealer3-secret-1");
  await textOf(dealer.locator("#phase"), /Round \d+/, "c1 shown");
  const streams = [];
  dealer.on("websocket", (ws) => streams.push(ws.url()));
  await ask(adminToken, { op: "lock_user", username: "dealer3" });
  await dealer.locator("#login-panel").waitFor({ state: "visible", timeout: WAIT_MS });
  await textOf(dealer.locator("#message"), /Your session is over/, "said why");
  assert.equal(await dealer.locator("#connection").isHidden(), true, "no notice of a server out of reach");
  // No page left trying the ended session's stream every second.
  const tried = streams.length;
  await new Promise((r) => setTimeout(r, 3_000));
  assert.equal(streams.length, tried, `no stream tried after the sign-in form: ${streams.slice(tried)}`);
  await dealer.context().close();
});
