// The player's terminal where it once misled its player (issue 57, and a new
// casino's review), one test for each way it did; each failed on the page
// before its fix. A real `croupier serve` and Debian's Chromium, as in
// terminals.test.mjs.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import path from "node:path";
import { readFile } from "node:fs/promises";
import { ROOT, WAIT_MS, base, pageErrors, start, stop, killAndRestart, call, login, ask, chipsOf, newPage, signIn, textOf, shot, licenceOf } from "./harness.mjs";

let adminToken, pitToken, dealerToken, cashierToken;
const PLAYERS = ["pat", "quinn", "rae", "sam", "tom", "uma", "vic"];

before(async () => {
  const password = await start();
  adminToken = await login("admin", password);
  await ask(adminToken, { op: "change_password", password, new_password: "admin-secret-1" });
  for (const [username, role] of [["dealer1", "dealer"], ["pit1", "pit_supervisor"], ["cash1", "cashier"], ...PLAYERS.map((p) => [p, "player"])]) {
    await ask(adminToken, { op: "create_user", username, role, password: `${username}-secret-1`, ...licenceOf(username, role) });
  }
  pitToken = await login("pit1", "pit1-secret-1");
  dealerToken = await login("dealer1", "dealer1-secret-1");
  cashierToken = await login("cash1", "cash1-secret-1");
  for (const p of PLAYERS) await ask(cashierToken, { op: "cash_in", id: `cash-${p}`, player: p, amount: 100_000 });
});

after(stop);

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
// What the screen shows now, not the whole page: sticky bars where they stick.
const view = (page, name) => page.screenshot({ path: path.join(process.env.SCREENSHOT_DIR ?? path.join(ROOT, "target/web-screenshots"), `${name}.png`) });

async function profileText(name) {
  return readFile(path.join(ROOT, "profiles", `${name}.toml`), "utf8");
}

// A Colorado table with dealer-entered results, inspected and opened.
async function coloradoTable(table, inPrison = false) {
  await ask(adminToken, {
    op: "create_table", table, profile_text: await profileText("colorado-2014"), wheel: "single-zero",
    in_prison: inPrison, betting_window_ms: 600_000, outcome: "dealer",
  });
  await inspectAndOpen(table);
}

async function inspectAndOpen(table) {
  await ask(pitToken, { op: "inspect", table, no_magnet_or_contrivance: true, wheel_level_and_rotating_freely: true, parts_secure: true, ball_non_magnetic: true, layout_and_signage_comply: true });
  await ask(dealerToken, { op: "open_table", table });
}

// `player` buys colour chips of `chipValue` for `amount` at `table`; answers their token.
async function seated(player, table, amount, chipValue) {
  const token = await login(player, `${player}-secret-1`);
  await ask(token, { op: "buy_in", id: `buy-${player}-${table}`, table, amount, chip_value: chipValue });
  return token;
}

async function terminal(player, table, viewport) {
  const page = await newPage(`${player}-${table}`, viewport);
  await signIn(page, `/terminal?table=${table}`, player, `${player}-secret-1`);
  await page.locator("#felt .spot").first().waitFor({ timeout: WAIT_MS });
  await page.locator('#phase[title="stream live"]').waitFor({ state: "attached", timeout: WAIT_MS });
  return page;
}

async function bet(page, spot, chip, pattern) {
  await page.locator(`#chips [data-chip="${chip}"]`).click();
  await page.locator(`#felt [data-spot="${spot}"]`).click();
  await textOf(page.locator("#message"), pattern, `the bet on ${spot}`);
}

// The viewport box of each element `selector` finds.
const boxes = (page, selector) => page.locator(selector).evaluateAll((nodes) => nodes.map((n) => {
  const r = n.getBoundingClientRect();
  return { top: r.top, bottom: r.bottom, left: r.left, right: r.right, what: n.dataset.spot ?? n.id ?? n.textContent };
}));
const overlap = (a, b) => a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom;

test("on a phone the round's state and countdown stay in view, and an error covers neither the felt's last rows nor the bet buttons", async () => {
  await coloradoTable("p6");
  await seated("pat", "p6", 10_000, 100);
  await ask(dealerToken, { op: "open_betting", table: "p6" });
  const page = await terminal("pat", "p6", { width: 390, height: 844 });
  await page.locator('#felt[data-orientation="vertical"]').waitFor({ timeout: WAIT_MS });
  await textOf(page.locator("#countdown"), /^\d+s$/, "the countdown");
  // The felt's last rows: the boxes lowest on the page.
  const lastRow = await page.locator("#felt rect.box").evaluateAll((nodes) => {
    const bottom = Math.max(...nodes.map((n) => n.getBoundingClientRect().bottom));
    return nodes.filter((n) => n.getBoundingClientRect().bottom > bottom - 2).map((n) => n.dataset.spot);
  });
  assert.ok(lastRow.length >= 3, `the felt's last row: ${lastRow}`);
  const inView = async (when) => {
    for (const id of ["phase", "countdown"]) {
      const seen = await page.evaluate((id) => {
        const node = document.getElementById(id);
        const r = node.getBoundingClientRect();
        const top = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
        return { top: r.top, bottom: r.bottom, onTop: node === top || node.contains(top) };
      }, id);
      assert.ok(seen.top >= 0 && seen.bottom <= 844 && seen.onTop, `#${id} in view ${when}: ${JSON.stringify(seen)}`);
    }
  };
  // Scrolled down the layout to its last rows, and back to its middle.
  for (const [spot, block] of [[lastRow[0], "end"], ["17", "center"], [lastRow[0], "start"]]) {
    await page.locator(`#felt [data-spot="${spot}"]`).evaluate((n, block) => n.scrollIntoView({ block }), block);
    await sleep(200);
    await inView(`with ${spot} scrolled to the ${block}`);
    await textOf(page.locator("#countdown"), /^\d+s$/, "the countdown while scrolled");
  }
  // "Bet by spot" suggests only spots this table offers (a Colorado table has no neighbours bet).
  const offered = new Set((await call(null, "/api/public/tables/p6/layout")).spots.map((x) => x.spot));
  const suggested = (await page.getAttribute("#notation", "placeholder")).split(", ");
  assert.ok(suggested.length >= 2 && suggested.every((x) => offered.has(x)), `the spots suggested are the table's: ${suggested}`);
  // A refusal: a spot the layout has not.
  await page.fill("#notation", "17-35");
  await page.click('#notation-form button[type="submit"]');
  await page.locator('#message[data-kind="error"]').waitFor({ timeout: WAIT_MS });
  const targets = [...lastRow.map((s) => `#felt [data-spot="${s}"]`), "#undo", "#repeat", "#clear", '#notation-form button[type="submit"]'];
  for (const target of targets) {
    for (const block of ["start", "center", "end"]) {
      await page.locator(target).first().evaluate((n, block) => n.scrollIntoView({ block }), block);
      await sleep(150);
      const [message] = await boxes(page, "#message");
      const [under] = await boxes(page, target);
      assert.ok(message.bottom > message.top, "the error is shown");
      assert.ok(!overlap(message, under), `the error covers ${target} scrolled to the ${block}: ${JSON.stringify({ message, under })}`);
    }
    await inView(`with ${target} in view`);
  }
  await page.locator("#undo").evaluate((n) => n.scrollIntoView({ block: "end" }));
  await view(page, "40-terminal-phone-error");
  // After a spin the result is in view in one line in the bar at the top,
  // wherever on the felt the player is (the result panel is far below),
  // until the next round opens.
  await bet(page, "black", 5, /USD 5\.00 on black\./);
  await page.locator(`#felt [data-spot="${lastRow[0]}"]`).evaluate((n) => n.scrollIntoView({ block: "end" }));
  await ask(dealerToken, { op: "no_more_bets", table: "p6" });
  await ask(dealerToken, { op: "spin", table: "p6", spin: { pocket: "17", direction: "opposite", revolutions: 6 } });
  await textOf(page.locator("#bar-result"), /^17 black · net \+USD 5\.00 · chips USD 105\.00$/, "the result in the bar");
  const seen = await page.locator("#bar-result").evaluate((node) => {
    const r = node.getBoundingClientRect();
    const top = document.elementFromPoint(r.left + Math.min(r.width, 40) / 2, r.top + r.height / 2);
    return { top: r.top, bottom: r.bottom, onTop: node === top || node.contains(top), lines: Math.round(r.height / parseFloat(getComputedStyle(node).lineHeight || "20")) };
  });
  assert.ok(seen.top >= 0 && seen.bottom <= 844 && seen.onTop && seen.lines <= 1, `the result in view in one line: ${JSON.stringify(seen)}`);
  assert.equal(await page.locator("#bar-result").getAttribute("title"), "Round 1");
  await ask(dealerToken, { op: "open_betting", table: "p6" });
  await page.locator("#bar-result").waitFor({ state: "hidden", timeout: WAIT_MS });
  await page.context().close();
});

test("a bet held In Prison stays on the felt and in the list, marked held; Undo says so in words; a dispute's correction is told in money", async () => {
  await coloradoTable("p7", true);
  await seated("quinn", "p7", 5_000, 100);
  await ask(dealerToken, { op: "open_betting", table: "p7" });
  const page = await terminal("quinn", "p7");
  await page.locator("#prison-choice").waitFor({ state: "visible", timeout: WAIT_MS });
  await page.selectOption("#zero-choice", "prison");
  await bet(page, "black", 10, /10\.00 on black\./);
  await ask(dealerToken, { op: "no_more_bets", table: "p7" });
  await ask(dealerToken, { op: "spin", table: "p7", spin: { pocket: "0", direction: "opposite", revolutions: 6 } });
  await page.locator('#dolly[data-pocket="0"]').waitFor({ timeout: WAIT_MS });
  await textOf(page.locator("#result-text"), /held/i, "the result says what is held");
  // Between rounds: the bet is still on the layout, held.
  const held = page.locator('#my-bets tr[data-held="true"]');
  await textOf(held, /black[\s\S]*USD 10\.00[\s\S]*held/i, "the held bet in the list");
  assert.equal(await page.locator('#felt [data-mine="black"].held').count(), 1, "the held bet's chip on the felt");
  // Undo offers nothing held, and says why, with no internal id.
  await page.click("#undo");
  await textOf(page.locator("#message"), /USD 10\.00 on black is held in prison/, "undo with only a held bet");
  assert.doesNotMatch(await page.locator("#message").textContent(), /bet-[0-9a-f]/);
  // A reload between rounds shows it too, from the server's record.
  await page.reload();
  await textOf(page.locator('#my-bets tr[data-held="true"]'), /black[\s\S]*USD 10\.00[\s\S]*held/i, "the held bet after a reload");
  await page.locator('#phase[title="stream live"]').waitFor({ state: "attached", timeout: WAIT_MS });
  // The next round: it rides on, still held; a new bet is taken back, the held one is not.
  await ask(dealerToken, { op: "open_betting", table: "p7" });
  await textOf(page.locator("#phase"), /place your bets/i, "round 2");
  await bet(page, "17", 5, /USD 5\.00 on 17\./);
  await textOf(page.locator('#my-bets tr[data-held="true"]'), /black/, "still held in round 2");
  await page.click("#undo");
  await textOf(page.locator("#message"), /Your last bet, USD 5\.00 on 17, was taken back/, "undo takes back the new bet");
  await page.click("#undo");
  await textOf(page.locator("#message"), /USD 10\.00 on black is held in prison/, "undo refuses the held bet in words");
  assert.doesNotMatch(await page.locator("#message").textContent(), /bet-[0-9a-f]/);
  assert.equal(await page.locator('#my-bets tr[data-held="true"]').count(), 1, "the held bet stays");
  await bet(page, "17", 5, /USD 5\.00 on 17\./);
  await ask(dealerToken, { op: "no_more_bets", table: "p7" });
  await ask(dealerToken, { op: "spin", table: "p7", spin: { pocket: "17", direction: "opposite", revolutions: 6 } });
  await page.locator('#dolly[data-pocket="17"]').waitFor({ timeout: WAIT_MS });
  await textOf(page.locator("#result-text"), /Won/, "round 2 settled");
  assert.equal(await page.locator('#my-bets tr[data-held="true"]').count(), 0, "the bet released by the black 17");
  await shot(page, "41-terminal-in-prison-held");
  // Colorado 2206(5): the pit supervisor collects 5.00 the dealer overpaid; the player is told.
  const before = await chipsOf(await login("quinn", "quinn-secret-1"), "p7", "quinn");
  await ask(pitToken, { op: "dispute", table: "p7", id: "d-p7-1", reason: "17 paid twice", corrections: [{ player: "quinn", amount: -500 }], round: 2 });
  await textOf(page.locator("#dispute-notice"), /dispute[\s\S]*round 2[\s\S]*17 paid twice[\s\S]*USD 5\.00 collected from your chips/i, "the collection told");
  assert.doesNotMatch(await page.locator("#dispute-notice").textContent(), /500|pit1/);
  await textOf(page.locator("#chips-balance"), new RegExp(((before - 500) / 100).toFixed(2).replace(".", "\\.")), "the chips after the collection");
  await shot(page, "42-terminal-dispute-notice");
  // Read, the notice is dismissed by the player.
  await page.locator('#dispute-notice button:text("Dismiss")').click();
  await page.locator("#dispute-notice").waitFor({ state: "detached", timeout: WAIT_MS });
  await page.context().close();
});

test("the terminal offers the player's match play coupons on the bets that take one (Colorado 2203(1))", async () => {
  await coloradoTable("p8");
  const rae = await seated("rae", "p8", 10_000, 500);
  await ask(cashierToken, { op: "issue_coupon", id: "mp-rae-1", player: "rae", table: "p8", value: 2_500 });
  await ask(dealerToken, { op: "open_betting", table: "p8" });
  const page = await terminal("rae", "p8");
  const coupon = page.locator('#coupons [data-coupon="mp-rae-1"]');
  await textOf(coupon, /USD 25\.00/, "the coupon offered");
  await coupon.click();
  assert.equal(await coupon.getAttribute("aria-pressed"), "true");
  await textOf(page.locator("#coupon-note"), /next bet plays coupon mp-rae-1: a stake of USD 25\.00/, "what the coupon plays");
  await shot(page, "43-terminal-coupon");
  // A straight takes no coupon: the page says where one is played, from the layout.
  await page.locator('#felt [data-spot="17"]').click();
  await textOf(page.locator("#message"), /mp-rae-1[\s\S]*dozen[\s\S]*red[\s\S]*not on 17/i, "the coupon refused on 17");
  assert.equal(await page.locator("#my-bets tr").count(), 0);
  await page.locator('#felt [data-spot="red"]').click();
  await textOf(page.locator("#message"), /USD 25\.00 on red with match play coupon mp-rae-1/, "the coupon played on red");
  await textOf(page.locator("#my-bets"), /red[\s\S]*USD 25\.00[\s\S]*coupon/i, "the bet with its coupon");
  await page.locator('#coupons [data-coupon="mp-rae-1"]').waitFor({ state: "detached", timeout: WAIT_MS });
  const bets = await call(rae, "/api/tables/p8/bets");
  assert.deepEqual(bets.bets.map((b) => [b.spot, b.stake]), [["red", 2_500]]);
  assert.equal(bets.coupons, undefined, "the coupon is played");
  await textOf(page.locator("#chips-balance"), /USD 75\.00/, "the stake from the chips");
  await ask(dealerToken, { op: "no_more_bets", table: "p8" });
  await ask(dealerToken, { op: "spin", table: "p8", spin: { pocket: "1", direction: "opposite", revolutions: 6 } });
  // Red wins: the stake back, and even money on the stake and on the coupon (2203(1)): 75.00.
  await textOf(page.locator("#chips-balance"), /USD 150\.00/, "paid on stake and coupon");
  await page.context().close();
});

test("a session ended while playing shows the sign-in form and keeps the table chosen", async () => {
  await coloradoTable("p9");
  await seated("sam", "p9", 5_000, 100);
  await ask(dealerToken, { op: "open_betting", table: "p9" });
  const page = await terminal("sam", "p9");
  // The admin locks sam: his sessions end, and the server closes his table's stream.
  await ask(adminToken, { op: "lock_user", username: "sam" });
  await page.locator("#login-panel").waitFor({ state: "visible", timeout: WAIT_MS });
  assert.doesNotMatch((await page.locator("#message").textContent()) ?? "", /log in first/);
  await textOf(page.locator("#message"), /sign in again/i, "told to sign in again");
  assert.equal(await page.locator("#play").isHidden(), true, "no table offered to a signed-out player");
  assert.match(page.url(), /table=p9/);
  await shot(page, "44-terminal-session-over");
  await ask(adminToken, { op: "unlock_user", username: "sam" });
  await page.fill('#login-form [name="username"]', "sam");
  await page.fill('#login-form [name="password"]', "sam-secret-1");
  await page.click('#login-form button[type="submit"]');
  await page.locator("#login-panel").waitFor({ state: "hidden", timeout: WAIT_MS });
  assert.equal(await page.inputValue("#table-select"), "p9", "the same table");
  await textOf(page.locator("#chips-balance"), /USD 50\.00/, "his chips at p9");
  await bet(page, "17", 1, /USD 1\.00 on 17\./);
  // A bet refused for its session (a token the server does not know, its
  // stream still open) shows the form too.
  await page.evaluate(() => {
    const s = JSON.parse(sessionStorage.getItem("croupier.session"));
    sessionStorage.setItem("croupier.session", JSON.stringify({ ...s, token: "0".repeat(64) }));
  });
  await page.locator('#felt [data-spot="18"]').click();
  await page.locator("#login-panel").waitFor({ state: "visible", timeout: WAIT_MS });
  await textOf(page.locator("#message"), /Your session is over: sign in again to go on at table p9/, "told to sign in again");
  await page.context().close();
});

test("every amount the terminal shows is money in the table's currency", async () => {
  await coloradoTable("p10");
  await ask(pitToken, { op: "set_limits", table: "p10", limits: [{ kind: "straight", min: 100, max: 5_000 }, { kind: "red", min: 500, max: 50_000 }] });
  await seated("tom", "p10", 10_000, 100);
  await ask(dealerToken, { op: "open_betting", table: "p10" });
  const page = await terminal("tom", "p10");
  await bet(page, "17", 5, /on 17\./);
  await bet(page, "red", 10, /on red\./);
  await ask(dealerToken, { op: "no_more_bets", table: "p10" });
  await ask(dealerToken, { op: "spin", table: "p10", spin: { pocket: "17", direction: "opposite", revolutions: 6 } });
  await textOf(page.locator("#result-text"), /Won/, "the round settled");
  await page.locator('#history tr[data-round="1"]').waitFor({ timeout: WAIT_MS });
  await page.click('#history button[aria-label="recall round 1"]');
  await textOf(page.locator("#recall"), /Chips before/, "the recall");
  const shown = await page.evaluate(() => {
    const texts = [];
    for (const id of ["seat-panel", "my-bets", "my-total", "result-text", "history", "recall", "table-sign", "message"]) texts.push(document.getElementById(id)?.innerText ?? "");
    for (const n of document.querySelectorAll("#felt [aria-label], #chips [aria-label], #complete-grid [aria-label]")) texts.push(n.getAttribute("aria-label"));
    return texts;
  });
  const bare = shown.flatMap((text) => [...text.matchAll(/(USD\s)?[−-]?\d[\d,]*\.\d\d/g)].filter((m) => !m[1]).map((m) => `${m[0]} in ${JSON.stringify(text.slice(0, 80))}`));
  assert.deepEqual(bare, [], "amounts without their currency");
  await page.context().close();
});

test("chips taken away: one second-person message, not the server's third-person refusal beside the notice (european-casino 5.2)", async () => {
  await ask(adminToken, {
    op: "create_table", table: "e7", profile_text: (await profileText("european-casino")).replace('currency = "EUR"', 'currency = "USD"'),
    wheel: "single-zero", in_prison: false, betting_window_ms: 600_000, outcome: "dealer",
  });
  await inspectAndOpen("e7");
  await seated("vic", "e7", 5_000, 500);
  const page = await terminal("vic", "e7");
  await ask(pitToken, { op: "chips_taken_away", table: "e7", player: "vic" });
  await textOf(page.locator("#away-notice"), /Your colour chips \(USD 50\.00\) were recorded as taken away/, "the notice");
  await ask(dealerToken, { op: "open_betting", table: "e7" });
  await textOf(page.locator("#phase"), /place your bets/i, "betting open");
  await page.locator('#felt [data-spot="red"]').click();
  // The refusal is answered by the notice, in the second person, said again; nothing names vic.
  await page.waitForFunction(() => document.getElementById("message").textContent || document.getElementById("away-notice").dataset.refused, null, { timeout: WAIT_MS });
  await sleep(300);
  assert.doesNotMatch(await page.evaluate(() => document.body.innerText), /vic's|before vic plays/, "no third-person refusal");
  const said = await page.evaluate(() => ["message", "away-notice"].map((id) => document.getElementById(id)).filter((n) => !n.hidden && n.textContent).length);
  assert.equal(said, 1, "one message about the chips taken away");
  assert.match(await page.locator("#away-notice").textContent(), /^Your colour chips/);
  await page.context().close();
});

// Last: it stops the server. A round cut off by the stop is void when it starts again.
test("the server gone and back: the countdown stops, the error goes once reconnected, the void round is told", async () => {
  await coloradoTable("pr");
  await seated("uma", "pr", 5_000, 100);
  await ask(dealerToken, { op: "open_betting", table: "pr" });
  const page = await terminal("uma", "pr");
  await textOf(page.locator("#countdown"), /^\d+s$/, "the countdown");
  await bet(page, "red", 5, /USD 5\.00 on red\./);
  await bet(page, "17", 1, /USD 1\.00 on 17\./);
  const restart = await killAndRestart();
  await textOf(page.locator("#countdown"), /^(?!\d+s$)/, "the countdown stopped");
  await textOf(page.locator("#connection"), /cannot reach the server/i, "the terminal says the server is gone");
  const stopped = await page.locator("#countdown").textContent();
  await sleep(2_200);
  assert.equal(await page.locator("#countdown").textContent(), stopped, "the countdown stays stopped");
  // A bet tried meanwhile: the notice at the top says no bet is taken; no second notice says it again.
  const tried = page.waitForEvent("requestfailed", { predicate: (r) => r.url().endsWith("/api/requests"), timeout: WAIT_MS });
  await page.locator('#felt [data-spot="black"]').click();
  await tried;
  await sleep(300);
  assert.equal(await page.locator("#message").textContent(), "", "a bet while the server is down: one notice, not two");
  assert.equal(await page.locator("#connection").isVisible(), true, "the notice says it");
  await restart();
  await page.locator("#connection").waitFor({ state: "hidden", timeout: WAIT_MS });
  await textOf(page.locator("#message"), /^(?![\s\S]*cannot be reached)/, "the error gone once reconnected");
  await textOf(page.locator("#void-notice"), /Round 1 was void[\s\S]*your stakes, USD 6\.00, were returned to your chips/i, "the void round told");
  await textOf(page.locator("#chips-balance"), /USD 50\.00/, "the stakes back");
  assert.equal(await page.locator("#my-bets tr").count(), 0, "nothing left on the layout");
  await shot(page, "45-terminal-void-after-restart");
  await page.locator('#void-notice button:text("Dismiss")').click();
  await page.locator("#void-notice").waitFor({ state: "detached", timeout: WAIT_MS });
  await page.context().close();
});

test("no page raised an error", () => {
  assert.deepEqual(pageErrors, []);
});
