// Every page through a server restart: a shift under way (a table opened by
// its dealer, players bought in at terminals, bets on the layout while
// betting is open), the server killed with kill -9 and started again at the
// same address. Each page says it lost the server, reconnects by itself,
// reads its data again and says what changed meanwhile: the restart voided
// the round in play and returned its stakes. The dealer goes on from the new
// state, reloaded or not, at the table they chose. Each page is kept as a
// screenshot at a phone's size and a desktop's.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { WAIT_MS, base, pageErrors, start, stop, killAndRestart, login, ask, call, chipsOf, newPage, signIn, textOf, shot, licenceOf } from "./harness.mjs";

const PHONE = { width: 390, height: 844 };
const DESKTOP = { width: 1400, height: 1000 };
const TABLE = "r1";
let adminToken;

before(async () => {
  const password = await start();
  adminToken = await login("admin", password);
  await ask(adminToken, { op: "change_password", password, new_password: "admin-secret-1" });
  for (const [username, role] of [["dealer1", "dealer"], ["pit1", "pit_supervisor"], ["cash1", "cashier"], ["alice", "player"], ["bob", "player"]]) {
    await ask(adminToken, { op: "create_user", username, role, password: `${username}-secret-1`, ...licenceOf(username, role) });
  }
  const cashier = await login("cash1", "cash1-secret-1");
  for (const p of ["alice", "bob"]) await ask(cashier, { op: "cash_in", id: `cash-${p}`, player: p, amount: 100_000 });
  // A Colorado table with the dealer's entry, inspected by the pit; its dealer opens it from the console.
  const profile = await (await fetch(`${base}/api/public/profiles`)).json();
  const colorado = profile.profiles.find((p) => p.name === "colorado-2014");
  await ask(adminToken, { op: "create_table", table: TABLE, profile_text: colorado.text, wheel: "single-zero", in_prison: false, betting_window_ms: 600_000, outcome: "dealer" });
  const pit = await login("pit1", "pit1-secret-1");
  await ask(pit, { op: "inspect", table: TABLE, no_magnet_or_contrivance: true, wheel_level_and_rotating_freely: true, parts_secure: true, ball_non_magnetic: true, layout_and_signage_comply: true });
});

after(stop);

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// A player at their terminal, bought in at the table by the form.
async function terminal(player, viewport, amount) {
  const page = await newPage(`${player}-terminal`, viewport);
  await signIn(page, `/terminal?table=${TABLE}`, player, `${player}-secret-1`);
  await page.locator('#phase[title="stream live"]').waitFor({ state: "attached", timeout: WAIT_MS });
  await page.fill('#buy-in-form [name="amount"]', amount);
  await page.selectOption('#buy-in-form [name="chip_value"]', "100");
  await page.click('#buy-in-form button[type="submit"]');
  await textOf(page.locator("#chips-balance"), new RegExp(`USD ${amount.replace(".", "\\.")}`), `${player} bought in`);
  return page;
}

async function bet(page, chip, spot) {
  await page.locator(`#chips [data-chip="${chip}"]`).click();
  await page.locator(`#felt [data-spot="${spot}"]`).click();
  await textOf(page.locator("#message"), new RegExp(`on ${spot}\\.`), `the bet on ${spot}`);
}

// The reconnection's notice is in view at the top of the page, and kept at both sizes.
async function keep(page, name) {
  for (const [size, tag] of [[PHONE, "390"], [DESKTOP, "1400"]]) {
    await page.setViewportSize(size);
    await sleep(300);
    await page.evaluate(() => window.scrollTo(0, document.body.scrollHeight));
    await sleep(100);
    const box = await page.locator("#reconnected").boundingBox();
    assert.ok(box && box.y >= 0 && box.y + Math.min(box.height, 40) <= size.height, `${name} at ${tag} px: the notice of the reconnection is in view, scrolled down (${JSON.stringify(box)})`);
    await page.evaluate(() => window.scrollTo(0, 0));
    await shot(page, `restart-${name}-${tag}`);
  }
}

test("every page through a kill -9 of the server in the middle of a round", async () => {
  // ---- The dealer picks the table from the menu (the address names none) and opens it.
  const dealer = await newPage("dealer", DESKTOP);
  await signIn(dealer, "/dealer", "dealer1", "dealer1-secret-1", "D-1001");
  await dealer.selectOption("#table-select", TABLE);
  await textOf(dealer.locator("#phase"), /Table closed/, "the dealer at the closed table");
  await dealer.click("#open-table");
  await textOf(dealer.locator("#phase"), /Open, between rounds/, "the table open");
  await dealer.click("#open-betting");
  await textOf(dealer.locator("#phase"), /Round 1: Betting open/, "betting open");

  // ---- The pit picks it too; the board shows it; the players buy in and bet.
  const pit = await newPage("pit", PHONE);
  await signIn(pit, "/pit", "pit1", "pit1-secret-1", "P-2002");
  await pit.selectOption("#table-select", TABLE);
  const board = await newPage("board", PHONE);
  await board.goto(`${base}/board?table=${TABLE}`);
  await textOf(board.locator("#state"), /Place your bets/, "the board in betting");
  const alice = await terminal("alice", DESKTOP, "50.00");
  const bob = await terminal("bob", PHONE, "30.00");
  await bet(alice, 5, "red");
  await bet(alice, 1, "17");
  await bet(bob, 1, "black");
  await textOf(dealer.locator("#bets-summary"), /^3 bets, USD 7\.00 staked, from 2 players\.$/, "the dealer sees the bets");
  await textOf(pit.locator("#phase"), /Round 1: Betting open/, "the pit in betting, in words");
  assert.equal(await pit.locator("#bets tr").count(), 3, "the pit lists the bets");
  await textOf(alice.locator("#chips-balance"), /USD 44\.00/, "alice's stakes on the layout");

  // ---- The cage, the admin and the tournaments desk, as they read before.
  const cage = await newPage("cage", DESKTOP);
  await signIn(cage, "/cashier", "cash1", "cash1-secret-1");
  await cage.fill('#find-form [name="player"]', "alice");
  await cage.click('#find-form button[type="submit"]');
  await textOf(cage.locator(`#accounts tr[data-account="chips:${TABLE}:alice"]`), /USD 44\.00/, "the cage reads alice's chips");
  // Two cash-ins with no answer: the first reached the server, the second never did.
  const cashSent = [];
  await cage.route("**/api/requests", async (route) => {
    const body = JSON.parse(route.request().postData() ?? "{}");
    if (body.op !== "cash_in") return route.continue();
    cashSent.push(body.id);
    if (cashSent.length === 1) await route.fetch();
    return route.abort("connectionreset");
  });
  for (const amount of ["10.00", "20.00"]) {
    await cage.fill('#cash-form [name="amount"]', amount);
    await cage.click('#cash-form button[value="in"]');
    await textOf(cage.locator("#message"), new RegExp(`No answer came for the cash in of USD ${amount.replace(".", "\\.")} for alice \\(reference cash-[0-9a-f]+\\): it may or may not have been recorded`), `the cash-in of ${amount} unanswered`);
  }
  await cage.unroute("**/api/requests");
  assert.equal(cashSent.length, 2);
  const admin = await newPage("admin", PHONE);
  await signIn(admin, "/admin", "admin", "admin-secret-1");
  await textOf(admin.locator(`#tables tr[data-table="${TABLE}"]`), /betting/, "the admin lists the table in betting");
  const desk = await newPage("tournaments", DESKTOP);
  await signIn(desk, "/tournaments", "pit1", "pit1-secret-1");
  await desk.locator("#desk").waitFor({ timeout: WAIT_MS });
  let deskReads = 0;
  desk.on("request", (r) => { if (new URL(r.url()).pathname.startsWith("/api/tournaments")) deskReads += 1; });

  const pages = { dealer, pit, board, alice, bob, cage, admin, tournaments: desk };
  const stakesBefore = { alice: await chipsOf(await login("alice", "alice-secret-1"), TABLE, "alice") };
  assert.equal(stakesBefore.alice, 4_400);

  // ---- kill -9, in the middle of the round: each page says the server is out of reach.
  const restart = await killAndRestart();
  for (const [name, page] of Object.entries(pages)) {
    await page.locator("#connection").waitFor({ state: "visible", timeout: WAIT_MS });
    await textOf(page.locator("#connection"), /out of reach|cannot reach the server/, `${name} says the server is gone`);
  }
  // The terminal's bar says it is reconnecting, not "place your bets"; a
  // bet tried meanwhile adds no second notice of the same thing.
  for (const player of ["alice", "bob"]) {
    await textOf(pages[player].locator("#phase"), /^Reconnecting…$/, `${player}'s bar while the server is gone`);
    assert.equal(await pages[player].locator("#phase").getAttribute("data-phase"), "reconnecting");
  }
  const tried = bob.waitForEvent("requestfailed", { predicate: (r) => r.url().endsWith("/api/requests"), timeout: WAIT_MS });
  await bob.locator('#felt [data-spot="red"]').click();
  await tried;
  await sleep(300);
  assert.equal(await bob.locator("#message").textContent(), "", "one notice says the server is out of reach, not two");
  deskReads = 0;
  await restart();

  // ---- Back: each page says so, and what became of round 1.
  for (const [name, page] of Object.entries(pages)) {
    await page.locator("#connection").waitFor({ state: "hidden", timeout: WAIT_MS });
    await textOf(page.locator("#reconnected"), /^Reconnected at .+: this page has read everything again\./, `${name} says it is back`);
  }
  const voided = /Round 1 was voided while the server was out of reach: no result was recorded, so no bet in it won or lost; its 3 bets' stakes, USD 7\.00, were returned\./;
  await textOf(dealer.locator("#reconnected"), voided, "the dealer told the round was voided");
  await textOf(dealer.locator("#reconnected"), /The table now: round 1, between rounds\./, "the dealer told the table's state now");
  await textOf(pit.locator("#reconnected"), voided, "the pit told the round was voided");
  // The void is in the dealer's feed of table events, and in the pit's log as a void at the restart.
  await textOf(dealer.locator('#feed li[data-type="reconnected"]'), voided, "the dealer's feed has the void");
  await textOf(pit.locator('#log tr[data-type="no_spin"]'), /Round void.*round 1: voided by the server as it started again, the round having no result; every stake in it was returned.*the server, at its restart/, "the pit's log says the restart voided round 1");
  await textOf(pit.locator("#rounds-totals"), /^No settled round is kept yet; round 1 was voided, its stakes returned\.$/, "the voided round named, not counted as settled");
  await textOf(board.locator("#reconnected"), /Round 1 ended with no number spun while the server was out of reach: it was voided, and its stakes were returned\./, "the room told");
  // Each player is told once what became of their bets: with their own stakes.
  for (const [player, stakes] of [["alice", "Your stakes, USD 6\\.00, were"], ["bob", "Your stake, USD 1\\.00, was"]]) {
    await textOf(pages[player].locator("#void-notice"), new RegExp(`^Round 1 was void: it has no result, so no bet in it won or lost\\. ${stakes} returned to your chips\\.`), `${player} told`);
    await textOf(pages[player].locator("#reconnected"), /The table now: round 1, between rounds\./, `${player} told the table now`);
    const said = (await pages[player].locator("#round-bar").textContent()).match(/Round 1 was void/g) ?? [];
    assert.equal(said.length, 1, `${player} told of the void once: ${await pages[player].locator("#round-bar").textContent()}`);
  }
  await textOf(cage.locator("#reconnected"), new RegExp(`alice's chips at ${TABLE}: USD 44\\.00 before, USD 50\\.00 now\\.`), "the cage told what moved in alice's chips");
  await textOf(cage.locator(`#accounts tr[data-account="chips:${TABLE}:alice"]`), /USD 50\.00/, "the cage reads alice's chips again");
  // The record read again once the server is back tells the unanswered sends apart.
  await textOf(cage.locator("#reconnected"), new RegExp(`The cash in of USD 10\\.00 for alice \\(reference ${cashSent[0]}\\), sent with no answer, is in the cage's record: it was recorded, once\\.`), "the recorded cash-in told");
  await textOf(cage.locator("#reconnected"), new RegExp(`The cash in of USD 20\\.00 for alice \\(reference ${cashSent[1]}\\), sent with no answer, is not in the cage's record read now that the server is back: it was not recorded\\. Send it again`), "the cash-in not recorded told");
  await textOf(cage.locator("#message"), /^(?![\s\S]*may or may not)/, "no longer \"may or may not\"");
  await textOf(admin.locator("#reconnected"), new RegExp(`Table ${TABLE}: ${voided.source}`), "the admin told of the void as the others are");
  await textOf(admin.locator(`#tables tr[data-table="${TABLE}"]`), /open/, "the admin reads the table again");
  assert.ok(deskReads > 0, "the tournaments desk read its tournaments again");

  // The dealer and the pit show the table as it is now, not the voided round.
  await textOf(dealer.locator("#phase"), /^Round 1: Open, between rounds$/, "the dealer's state now");
  await textOf(dealer.locator("#bets-summary"), /^0 bets, USD 0\.00 staked/, "no bets on the dealer's layout");
  assert.equal(await dealer.locator("#open-betting").isDisabled(), false, "the dealer may open betting");
  assert.equal(await dealer.locator("#no-more-bets").isDisabled(), true, "no more bets is not offered between rounds");
  await textOf(pit.locator("#phase"), /^Round 1: Open, between rounds/, "the pit's state now");
  assert.equal(await pit.locator("#bets tr").count(), 0, "no bets on the pit's list");
  await textOf(board.locator("#state"), /Waiting for the next round/, "the board's state now");

  // The players' balances are the server's: every stake returned.
  for (const [player, amount] of [["alice", 5_000], ["bob", 3_000]]) {
    const token = await login(player, `${player}-secret-1`);
    const server = await chipsOf(token, TABLE, player);
    assert.equal(server, amount, `${player}'s stakes returned on the server`);
    await textOf(pages[player].locator("#chips-balance"), new RegExp(`^USD ${(server / 100).toFixed(2).replace(".", "\\.")}$`), `${player}'s chips as the server holds them`);
    const wallet = (await call(token, "/api/me")).accounts[`wallet:${player}`];
    await textOf(pages[player].locator("#wallet"), new RegExp(`^USD ${(wallet / 100).toFixed(2).replace(".", "\\.")}$`), `${player}'s wallet as the server holds it`);
    assert.equal(await pages[player].locator("#my-bets tr").count(), 0, `nothing left on ${player}'s layout`);
  }

  for (const [name, page] of Object.entries(pages)) await keep(page, name);
  // Each notice goes when it is dismissed; the board's, which no one clicks, with the next round.
  for (const [name, page] of Object.entries(pages)) {
    if (name === "board") continue;
    await page.click("#reconnected-dismiss");
    await page.locator("#reconnected").waitFor({ state: "hidden", timeout: WAIT_MS });
  }

  // ---- The dealer reloads: the table chosen stays, and so it does with no table in the address.
  await dealer.reload();
  await textOf(dealer.locator("#phase"), /^Round 1: Open, between rounds$/, "the reloaded dealer console at the table chosen");
  assert.equal(await dealer.locator("#table-select").inputValue(), TABLE, "the reloaded console's table");
  await dealer.goto(`${base}/dealer`);
  await textOf(dealer.locator("#phase"), /^Round 1: Open, between rounds$/, "the dealer console opened again in the tab");
  assert.equal(await dealer.locator("#table-select").inputValue(), TABLE, "the tab keeps the table chosen");
  await pit.reload();
  await textOf(pit.locator("#phase"), /^Round 1: Open, between rounds/, "the reloaded pit console at the table chosen");
  assert.equal(await pit.locator("#table-select").inputValue(), TABLE, "the reloaded pit console's table");

  // ---- A round run to settlement after the restart, from the dealer's buttons.
  await dealer.click("#open-betting");
  await textOf(dealer.locator("#phase"), /^Round 2: Betting open$/, "round 2 open");
  await bet(alice, 5, "red");
  await textOf(dealer.locator("#bets-summary"), /^1 bet, USD 5\.00 staked, from 1 player\.$/, "the dealer sees alice's bet");
  await dealer.click("#no-more-bets");
  await textOf(dealer.locator("#phase"), /^Round 2: No more bets$/, "no more bets");
  await dealer.locator('#pockets [data-pocket="1"]').click();
  await dealer.fill('#result-form [name="revolutions"]', "8");
  await dealer.click('#result-form button[type="submit"]');
  await textOf(dealer.locator("#message"), /Result 1: the round settles\./, "round 2 settled");
  await textOf(dealer.locator("#phase"), /^Round 2: Open, between rounds$/, "between rounds again");
  const aliceChips = await chipsOf(await login("alice", "alice-secret-1"), TABLE, "alice");
  assert.equal(aliceChips, 5_500, "red on 1 pays even money");
  await textOf(alice.locator("#chips-balance"), /^USD 55\.00$/, "alice's chips after round 2");
  await textOf(board.locator("#last"), /^1$/, "the board shows the number");
  await board.locator("#reconnected").waitFor({ state: "hidden", timeout: WAIT_MS });
  // The last number is labelled with its own round, not the round now in play.
  await textOf(board.locator("#round"), /^round 2$/, "the board's number is round 2's");
  await dealer.click("#open-betting");
  await textOf(board.locator("#state"), /Place your bets/, "round 3 on the board");
  await textOf(board.locator("#now-round"), /^now round 3$/, "the round now");
  assert.equal(await board.locator("#round").textContent(), "round 2", "round 2's number stays round 2's as round 3 opens");
  await board.reload();
  await textOf(board.locator("#now-round"), /^now round 3$/, "the round now, read again");
  await textOf(board.locator("#round"), /^round 2$/, "round 2's number, read again");

  // ---- The cage sends the unrecorded cash-in again, under its reference; the recorded one is done with.
  await cage.fill('#cash-form [name="amount"]', "10.00");
  assert.equal(await cage.locator("#cash-ref").getAttribute("data-pending"), "false", "the recorded cash-in is no longer waiting for an answer");
  assert.notEqual(await cage.locator("#cash-ref").getAttribute("data-reference"), cashSent[0], "a new cash-in of 10.00 would be a new one");
  const aliceToken = await login("alice", "alice-secret-1");
  const wallet = (await call(aliceToken, "/api/me")).accounts["wallet:alice"];
  await cage.fill('#cash-form [name="amount"]', "20.00");
  await cage.click('#cash-form button[value="in"]');
  await cage.click(`[data-resend="again"]:text("Send ${cashSent[1]} again")`);
  await textOf(cage.locator("#message"), new RegExp(`Cashed in USD 20\\.00 for alice \\(reference ${cashSent[1]}\\)`), "sent again under its reference");
  assert.equal((await call(aliceToken, "/api/me")).accounts["wallet:alice"], wallet + 2_000, "recorded once, now");
});

test("no page raised an error", () => {
  assert.deepEqual(pageErrors, []);
});
