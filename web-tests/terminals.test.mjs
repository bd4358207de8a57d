// The web terminals in a real browser against a real `croupier serve`:
// Debian's Chromium, driven by playwright-core. Rounds are played by
// clicking; the screenshots are kept in target/web-screenshots.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import path from "node:path";
import {
  ROOT, WAIT_MS, base, pageErrors, start, stop, killAndRestart, call, login, ask, chipsOf, newPage, signIn, textOf, shot, postLimits, licenceOf
} from "./harness.mjs";

let adminToken;

before(async () => {
  const password = await start();
  adminToken = await login("admin", password);
  // The one-time password is changed before anything else is taken.
  await ask(adminToken, { op: "change_password", password, new_password: "admin-secret-1" });
  // Maryland ch.1 G(1): a Maryland table opens once the operator's name is on its layout.
  await ask(adminToken, { op: "name_operator", name: "Test House" });
  for (const [username, role] of [["dealer1", "dealer"], ["pit1", "pit_supervisor"], ["floor1", "floorperson"], ["cash1", "cashier"], ["guard1", "security"], ["alice", "player"], ["bob", "player"]]) {
    await ask(adminToken, { op: "create_user", username, role, password: `${username}-secret-1`, ...licenceOf(username, role) });
  }
  const cashier = await login("cash1", "cash1-secret-1");
  for (const p of ["alice", "bob"]) await ask(cashier, { op: "cash_in", id: `cash-${p}`, player: p, amount: 100_000 });
  // A triple-zero table as well as the first run's double-zero RNG table (t1) and
  // single-zero dealer table (t2).
  const maryland = await (await fetch(base + "/api/public/tables/t1/layout")).json();
  assert.equal(maryland.layout, "double-zero");
});

after(stop);

test("the pages are reachable and the board shows a table", async () => {
  const page = await newPage("board");
  await page.goto(base + "/");
  for (const link of ["/terminal", "/dealer", "/pit", "/board"]) assert.equal(await page.locator(`a[href="${link}"]`).count(), 1, link);
  await page.goto(base + "/board");
  await textOf(page.locator("#table-name"), /t1/, "board table");
  await shot(page, "01-board");
});

test("a full round by clicking: inspection, buy-in, bets, no more bets, result, balance", async () => {
  const pit = await newPage("pit");
  const dealer = await newPage("dealer");
  const alice = await newPage("alice");

  // The dealer cannot open a table that has not been inspected.
  await signIn(dealer, "/dealer?table=t2", "dealer1", "dealer1-secret-1", "D-1001");
  await textOf(dealer.locator("#facts"), /Not yet inspected/, "inspection state");
  await dealer.click("#open-table");
  await textOf(dealer.locator("#message"), /inspect/i, "opening refused before the inspection");
  assert.equal(await dealer.locator("#message").getAttribute("data-kind"), "error");

  // The pit logs the inspection with who and licence (Colorado 2212(5), Maryland ch.2 E).
  await signIn(pit, "/pit?table=t2", "pit1", "pit1-secret-1", "P-2002");
  // An adjustment first; the inspection must follow it (Maryland ch.2 C-D).
  await pit.fill('#adjust-form [name="description"]', "ball track cleaned");
  // Colorado 2212(2): made before a security department member, named by
  // username, who confirms it from their own account.
  await pit.fill('#adjust-form [name="witness"]', "guard1");
  await pit.click('#adjust-form button[type="submit"]');
  await textOf(pit.locator("#message"), /awaits guard1's confirmation/, "the adjustment awaits its witness");
  await textOf(pit.locator("#log"), /Adjustment.*ball track cleaned; awaiting its security witness guard1 \(adjustment 1\).*pit1.*P-2002/s, "adjustment log row");
  // Colorado 2212(3): "All adjustments shall be completed prior to the required inspections".
  for (const box of await pit.locator('#inspect-form input[type="checkbox"]').all()) await box.check();
  await pit.click('#inspect-form button[type="submit"]');
  await textOf(pit.locator("#message"), /awaits its security witness/, "no inspection before the witness confirms");
  // Named by mistake: another supervisor withdraws it, with the reason; the
  // log keeps it. Its adjuster alone may not: that would skip the witness.
  await pit.fill('#awaiting tr[data-adjustment="1"] [name="withdraw-reason"]', "witness called away");
  await pit.click('#awaiting [data-withdraw="1"]');
  await textOf(pit.locator("#message"), /another supervisor withdraws it, not pit1/, "the adjuster does not withdraw their own");
  const floorPit = await newPage("floor-withdraws");
  await signIn(floorPit, "/pit?table=t2", "floor1", "floor1-secret-1", "F-3003");
  await floorPit.fill('#awaiting tr[data-adjustment="1"] [name="withdraw-reason"]', "witness called away");
  await floorPit.click('#awaiting [data-withdraw="1"]');
  await textOf(pit.locator("#log"), /Adjustment withdrawn.*adjustment 1, never witnessed: witness called away.*floor1/s, "withdrawal log row");
  await floorPit.context().close();
  await pit.fill('#adjust-form [name="description"]', "ball track cleaned");
  await pit.fill('#adjust-form [name="witness"]', "guard1");
  await pit.click('#adjust-form button[type="submit"]');
  await textOf(pit.locator('#awaiting tr[data-adjustment="2"]'), /ball track cleaned.*pit1.*guard1/, "awaiting its witness");
  // The pit cannot confirm for the witness: no button is theirs.
  assert.equal(await pit.locator("#awaiting [data-witness]").count(), 0);
  // The witness signs in as themselves (typing another licence changes nothing) and confirms.
  const guard = await newPage("guard");
  await signIn(guard, "/pit?table=t2", "guard1", "guard1-secret-1", "FORGED-1");
  assert.equal(await guard.locator("#adjust-panel").isHidden(), true, "security makes no adjustment");
  await guard.click('#awaiting [data-witness="2"]');
  await textOf(guard.locator("#message"), /Adjustment 2 witnessed/, "confirmed");
  // Colorado 2212(5), Maryland ch.2 E(6): the witness's name and recorded licence, from the confirmation.
  const logged = await textOf(pit.locator("#log"), /Adjustment witnessed.*adjustment 2, confirmed by its security witness.*guard1.*L-guard1/s, "witness log row");
  assert.ok(!logged.includes("FORGED-1"), logged);
  await pit.locator("#awaiting-panel").waitFor({ state: "hidden", timeout: WAIT_MS });
  await guard.close();
  for (const box of await pit.locator('#inspect-form input[type="checkbox"]').all()) await box.check();
  await pit.click('#inspect-form button[type="submit"]');
  await textOf(pit.locator("#log"), /Inspection.*pit1.*P-2002/s, "inspection log row");
  // The pit posts the table's limits between rounds: straight up at most 50.00 (Colorado 2207).
  await textOf(pit.locator("#sign"), /Inside bets: USD 1\.00 to USD 100\.00 each/, "the posted limits in the pit");
  await pit.fill('#limits input[name="max-straight"]', "50.00");
  await pit.click('#limits-form button[type="submit"]');
  await textOf(pit.locator("#message"), /Limits posted/, "limits posted");
  await textOf(pit.locator("#sign"), /straight USD 1\.00 to USD 50\.00/, "the new sign in the pit");

  await dealer.click("#open-table");
  await textOf(dealer.locator("#message"), /table is open/, "table opened");
  // Colorado 2212(5): the log says who opened the table, with their licence.
  await textOf(pit.locator("#log"), /Opened.*dealer1.*D-1001/s, "who opened, in the pit's log");
  await dealer.click("#open-betting");
  await textOf(dealer.locator("#phase"), /Betting open/, "betting open");

  // The player: sign in, buy in for colour chips, see the countdown.
  await signIn(alice, "/terminal?table=t2", "alice", "alice-secret-1");
  await alice.locator('#felt[data-layout="single-zero"]').waitFor({ timeout: WAIT_MS });
  await alice.fill('#buy-in-form [name="amount"]', "200.00");
  await alice.selectOption('#buy-in-form [name="chip_value"]', "100");
  await alice.click('#buy-in-form button[type="submit"]');
  await textOf(alice.locator("#colour-name"), /\w+/, "colour chips");
  await textOf(alice.locator("#chips-balance"), /200\.00/, "chips after buy-in");
  await textOf(alice.locator("#phase"), /place your bets/i, "betting phase");
  await textOf(alice.locator("#countdown"), /^\d+s$/, "countdown");

  // The table sign: the first run posts 1.00 to 100.00 inside, 5.00 to 500.00 outside, and the
  // pit has narrowed straight up to 50.00 (Colorado 2207).
  await textOf(alice.locator("#table-sign"), /Inside bets: straight USD 1\.00 to USD 50\.00, split USD 1\.00 to USD 100\.00.*Outside bets: USD 5\.00 to USD 500\.00 each/s, "table sign");
  // An outside bet under the table minimum is refused with the reason.
  await alice.locator('#felt [data-spot="red"]').click();
  await textOf(alice.locator("#message"), /minimum/i, "under the minimum refused");
  // Straight, split, corner, street, six line at 1.00, and outside bets at 5.00, by clicking their spots.
  for (const [spot, chip] of [["17", 1], ["17-18", 1], ["17-20", 1], ["16-17-19-20", 1], ["16-17-18", 1], ["13-14-15-16-17-18", 1], ["0-1", 1], ["red", 5], ["dozen2", 5], ["column2", 5]]) {
    await alice.locator(`#chips [data-chip="${chip}"]`).click();
    await alice.locator(`#felt [data-spot="${spot}"]`).click();
    await textOf(alice.locator("#message"), new RegExp(`on ${spot.replace(/[-]/g, "\\-")}\\.`), `bet on ${spot}`);
  }
  // By keyboard: focus a spot and press Enter.
  await alice.locator('#felt [data-spot="black"]').focus();
  await alice.keyboard.press("Enter");
  await textOf(alice.locator("#message"), /on black\./, "keyboard bet");
  // Undo takes the last one back.
  await alice.click("#undo");
  await textOf(alice.locator("#message"), /taken back/, "undo");
  assert.equal(await alice.locator("#my-bets tr").count(), 10);
  // Colorado offers no racetrack (2203(6) names no neighbours bet).
  assert.equal(await alice.locator("#track-panel").isHidden(), true);
  // An unknown spot typed in gets the server's reason.
  await alice.fill("#notation", "17-35");
  await alice.click('#notation-form button[type="submit"]');
  await textOf(alice.locator("#message"), /17-35|not a/i, "refused spot");
  assert.equal(await alice.locator("#message").getAttribute("data-kind"), "error");
  await textOf(alice.locator("#chips-balance"), /178\.00/, "chips after 22.00 of bets");
  await shot(alice, "02-terminal-bets");

  // No more bets: announced visibly and audibly; a late click is refused.
  await dealer.click("#no-more-bets");
  await alice.locator("#announce").waitFor({ state: "visible", timeout: WAIT_MS });
  assert.equal(await alice.locator("#announce").getAttribute("data-audible"), "chime");
  assert.equal(await alice.locator("#announce").getAttribute("role"), "alert");
  await shot(alice, "03-terminal-no-more-bets");
  await alice.locator('#felt [data-spot="22"]').click();
  await textOf(alice.locator("#message"), /past posting/i, "past posting refused");
  assert.equal(await alice.locator("#my-bets tr").count(), 10);
  // A reload during no more bets shows the bets the server holds.
  await alice.reload();
  await alice.locator('#felt[data-layout="single-zero"]').waitFor({ timeout: WAIT_MS });
  const deadline = Date.now() + WAIT_MS;
  while ((await alice.locator("#my-bets tr").count()) < 10 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
  assert.equal(await alice.locator("#my-bets tr").count(), 10, "the bets after a reload");

  // The dealer keys 17; the terminal puts the dolly on 17 and shows the amounts.
  await dealer.locator('#pockets [data-pocket="17"]').click();
  await dealer.fill('#result-form [name="revolutions"]', "8");
  await dealer.click('#result-form button[type="submit"]');
  await textOf(dealer.locator("#message"), /Result 17: the round settles/, "the dealer told the result");
  await alice.locator('#dolly[data-pocket="17"]').waitFor({ timeout: WAIT_MS });
  await textOf(alice.locator("#result-text"), /Won USD 113\.00.*Lost USD 6\.00/s, "amounts won and lost");
  // 1.00 inside, 5.00 outside; back with the winnings: 17 (35 to 1), 17-18 and 17-20 (17), the
  // corner (8), the street (11), the six line (5), dozen 2 and column 2 (2); red and 0-1 lose
  // (Colorado 2204(1)).
  const expected = 17_800 + 3_600 + 1_800 + 1_800 + 900 + 1_200 + 600 + 1_500 + 1_500;
  const token = await login("alice", "alice-secret-1");
  assert.equal(await chipsOf(token, "t2", "alice"), expected);
  await textOf(alice.locator("#chips-balance"), new RegExp(`${(expected / 100).toFixed(2).replace(".", "\\.")}`), "new balance");
  await textOf(alice.locator("#history"), /17/, "history row");
  await alice.click('#history button[aria-label="recall round 1"]');
  // Chips are recorded when betting opens: alice bought in after that.
  await textOf(alice.locator("#recall"), /ball rested in 17.*17-18.*win.*Chips before USD 0\.00, after USD 307\.00/s, "recall of the round");
  await shot(alice, "04-terminal-result");

  // Repeat last bets, then clear them.
  await dealer.click("#open-betting");
  await textOf(alice.locator("#phase"), /place your bets/i, "next round");
  await alice.click("#repeat");
  await textOf(alice.locator("#message"), /placed again/, "repeat");
  assert.equal(await alice.locator("#my-bets tr").count(), 10);
  await alice.click("#clear");
  await textOf(alice.locator("#message"), /All your bets/, "clear");
  assert.equal(await alice.locator("#my-bets tr").count(), 0);
  assert.equal(await chipsOf(token, "t2", "alice"), expected);
  await dealer.click("#no-more-bets");
  await dealer.selectOption("#no-spin-reason", "ball_left_wheel");
  await dealer.click('#no-spin-form button[type="submit"]');
  await textOf(dealer.locator("#message"), /No spin called/, "no spin");
  await textOf(alice.locator("#message"), /No spin: ball left wheel/, "no spin on the terminal");
  // Colorado 2206: a no spin is spun again, so the round waits for its result
  // and betting cannot open. A pocket keyed with too few revolutions is no
  // result either: the console says what the server decided, not "entered".
  assert.equal(await dealer.locator("#open-betting").isDisabled(), true, "no new round before the re-spin");
  // Colorado 2206(4): the ball that left the wheel is inspected by the pit
  // supervisor before it goes back: the console waits, and says who.
  await textOf(dealer.locator("#ball-wait-text"), /pit supervisor inspects the ball.*2206\(4\)/, "the dealer waits for the ball");
  assert.equal(await dealer.locator('#result-form button[type="submit"]').isDisabled(), true, "no spin before the inspection");
  await pit.locator("#ball-sound").click();
  await textOf(pit.locator("#message"), /Ball inspected/, "the pit inspected the ball");
  await textOf(pit.locator("#log"), /Ball inspected.*ball left wheel.*sound.*pit1/s, "the ball's inspection in the log");
  await dealer.locator("#ball-wait").waitFor({ state: "hidden", timeout: WAIT_MS });
  await dealer.fill("#pocket", "5");
  await dealer.fill('#result-form [name="revolutions"]', "1");
  await dealer.click('#result-form button[type="submit"]');
  await textOf(dealer.locator("#message"), /Not 5: the server called no spin/, "the dealer told the no spin");
  await dealer.fill("#pocket", "5");
  await dealer.fill('#result-form [name="revolutions"]', "5");
  await dealer.click('#result-form button[type="submit"]');
  await textOf(dealer.locator("#message"), /Result 5: the round settles/, "the re-spin settles the round");
  await shot(dealer, "05-dealer-console");
  for (const p of [pit, dealer, alice]) await p.context().close();
});

test("an RNG round on a double-zero table, annulment and a dispute from the pit", async () => {
  const pit = await newPage("pit");
  const dealer = await newPage("dealer");
  const bob = await newPage("bob");
  await signIn(pit, "/pit?table=t1", "pit1", "pit1-secret-1", "P-2002");
  for (const box of await pit.locator('#inspect-form input[type="checkbox"]').all()) await box.check();
  await pit.click('#inspect-form button[type="submit"]');
  await textOf(pit.locator("#log"), /Inspection/, "inspection of t1");
  await signIn(dealer, "/dealer?table=t1", "dealer1", "dealer1-secret-1", "D-1001");
  await dealer.click("#open-table");
  await textOf(dealer.locator("#message"), /table is open/, "t1 open");
  await dealer.click("#open-betting");

  await signIn(bob, "/terminal?table=t1", "bob", "bob-secret-1");
  await bob.locator('#felt[data-layout="double-zero"]').waitFor({ timeout: WAIT_MS });
  for (const spot of ["0", "00", "0-00", "00-2-3", "0-00-2", "0-00-1-2-3"]) {
    assert.equal(await bob.locator(`#felt [data-spot="${spot}"]`).count(), 1, `double-zero spot ${spot}`);
  }
  await bob.fill('#buy-in-form [name="amount"]', "100.00");
  await bob.selectOption('#buy-in-form [name="chip_value"]', "100");
  await bob.click('#buy-in-form button[type="submit"]');
  await textOf(bob.locator("#chips-balance"), /100\.00/, "bob's chips");
  await bob.locator('#chips [data-chip="5"]').click();
  for (const spot of ["0-00", "black", "00-2-3"]) {
    await bob.locator(`#felt [data-spot="${spot}"]`).click();
    await textOf(bob.locator("#message"), new RegExp(`on ${spot}\\.`), `bet on ${spot}`);
  }
  // The racetrack: five neighbours in the wheel's order, one chip each (Maryland ch.3 F(1)).
  await bob.locator('#chips [data-chip="1"]').click();
  await bob.locator('#track [data-spot="neighbours:17"]').click();
  await textOf(bob.locator("#message"), /5\.00 on neighbours:17\./, "neighbours bet");
  // A complete bet on 17: one chip on each number of every inside bet containing it.
  const units = Number(await bob.locator('#complete-grid [data-spot="complete:17"]').getAttribute("data-units"));
  assert.equal(units, 40);
  // The pit annuls one bet (european-casino 3.7); it comes back to the player.
  await pit.reload();
  await textOf(pit.locator("#bets"), /00-2-3/, "bets in the pit");
  await pit.locator('#bets input[aria-label="bet 00-2-3 by bob"]').check();
  await pit.fill('#annul-form [name="reason"]', "pooled with another player");
  await pit.click('#annul-form button[type="submit"]');
  await textOf(bob.locator("#message"), /annulled/, "annulment on the terminal");
  await textOf(bob.locator("#chips-balance"), /85\.00/, "annulled stake returned");

  await dealer.click("#no-more-bets");
  await bob.locator("#announce").waitFor({ state: "visible", timeout: WAIT_MS });
  await dealer.click("#draw");
  await textOf(dealer.locator("#message"), /RNG drew|No spin/, "RNG draw");
  await textOf(bob.locator("#result-text"), /Won|Lost|no bets|No spin/, "RNG result on the terminal");
  const token = await login("bob", "bob-secret-1");
  const chips = await chipsOf(token, "t1", "bob");
  await textOf(bob.locator("#chips-balance"), new RegExp((chips / 100).toFixed(2).replace(".", "\\.")), "balance after the RNG round");
  await shot(bob, "06-terminal-double-zero");

  // A dispute decided with a correction collected from the player. (A
  // payment is bounded by what the round's wagers could return: on the
  // RNG's pocket bob may already have had it all, so this one collects,
  // which his annulled stake, handed back, always allows.)
  // The Maryland profile gives disputes to the floorperson (a role of its own), not the pit supervisor.
  const disputeFrom = async (page) => {
    await page.fill('#dispute-form [name="reason"]', "the dealer paid a bet twice");
    await page.click("#add-correction");
    await page.fill('#corrections [name="player"]', "bob");
    await page.fill('#corrections [name="amount"]', "-2.50");
    await page.click('#dispute-form button[type="submit"]');
  };
  // floor1 exists: the pit is told who records it, not that an admin has yet to add one.
  await textOf(pit.locator("#authority"), /\(a user of role floorperson\): signed in as pit supervisor, you cannot record one here: a floorperson records it, signed in at this console\.$/, "the pit supervisor told whose disputes they are");
  assert.equal(await pit.locator('#dispute-form button[type="submit"]').isDisabled(), true, "the pit supervisor's button is held");
  const floor = await newPage("floor");
  await signIn(floor, "/pit?table=t1", "floor1", "floor1-secret-1", "F-2003");
  // The round disputed can be picked among the settled rounds the table keeps.
  await floor.locator('#dispute-round option[value="1"]').waitFor({ state: "attached", timeout: WAIT_MS });
  await floor.selectOption("#dispute-round", "1");
  await disputeFrom(floor);
  await textOf(floor.locator("#log"), /Dispute.*bob −2\.50.*floor1/s, "dispute in the log");
  assert.equal(await chipsOf(token, "t1", "bob"), chips - 250);
  // A tip goes from the player's chips to the dealers' tip box.
  // A double click tips once: the button is held until the answer.
  await bob.fill('#tip-form [name="amount"]', "1.00");
  await bob.locator('#tip-form button[type="submit"]').dblclick();
  await textOf(bob.locator("#message"), /Thank you: USD 1\.00/, "tip");
  assert.equal(await chipsOf(token, "t1", "bob"), chips - 250 - 100);
  await textOf(pit.locator("#players"), /bob/, "players and colours");
  await textOf(pit.locator("#rounds"), /\d/, "report rounds");
  // The form is empty once the decision is recorded; a bad correction is refused with a visible message.
  assert.equal(await floor.inputValue('#dispute-form [name="reason"]'), "", "the reason cleared after the decision");
  assert.equal(await floor.locator("#corrections .corr-row").count(), 0, "the corrections cleared after the decision");
  await floor.fill('#dispute-form [name="reason"]', "a correction for no one");
  await floor.click("#add-correction");
  await floor.locator('#corrections [name="player"]').last().fill("nobody");
  await floor.locator('#corrections [name="amount"]').last().fill("1.00");
  await floor.click('#dispute-form button[type="submit"]');
  await textOf(floor.locator("#message"), /nobody|no player|unknown/i, "unknown player refused");
  // The dealer sells bob chips for cash at the table; the cash goes into the drop box (Colorado 2202).
  await dealer.fill('#sell-form [name="player"]', "bob");
  await dealer.fill('#sell-form [name="amount"]', "20.00");
  await dealer.selectOption('#sell-form [name="chip_value"]', "100");
  await dealer.click('#sell-form button[type="submit"]');
  await textOf(dealer.locator("#message"), /Sold USD 20\.00 in chips to bob/, "chips sold for cash");
  const sold = chips - 250 - 100 + 2_000;
  assert.equal(await chipsOf(token, "t1", "bob"), sold);
  await textOf(bob.locator("#chips-balance"), new RegExp((sold / 100).toFixed(2).replace(".", "\\.")), "bob's chips after the sale");
  await pit.reload();
  await textOf(pit.locator("#accounts"), /Drop box USD 20\.00/, "the drop box in the pit's report");
  await shot(pit, "07-pit-console");
  for (const p of [pit, floor, dealer, bob]) await p.context().close();
});

test("a triple-zero layout, and the terminal at phone width", async () => {
  await ask(adminToken, {
    op: "create_table", table: "t3", profile_text: await profileText("maryland"), wheel: "triple-zero",
    in_prison: false, betting_window_ms: 60_000, outcome: "dealer",
  });
  const page = await newPage("phone", { width: 390, height: 844 });
  await signIn(page, "/terminal?table=t3", "alice", "alice-secret-1");
  await page.locator('#felt[data-layout="triple-zero"][data-orientation="vertical"]').waitFor({ timeout: WAIT_MS });
  for (const spot of ["000", "0", "00", "0-00", "green", "36", "35-36", "column3"]) {
    assert.equal(await page.locator(`#felt [data-spot="${spot}"]`).count(), 1, `triple-zero spot ${spot}`);
  }
  const width = await page.evaluate(() => document.documentElement.scrollWidth);
  assert.ok(width <= 400, `no sideways scrolling at phone width (scroll width ${width})`);
  // Not seated: a bet is refused with a message, never silently.
  await page.locator('#felt [data-spot="000"]').click();
  await textOf(page.locator("#message"), /Buy in/, "bet before buying in");
  await shot(page, "08-terminal-phone-triple-zero");
  await page.context().close();
});

test("a double-zero felt used as single zero shows its 00 box covered (Maryland ch.1 F(1))", async () => {
  await ask(adminToken, {
    op: "create_table", table: "m4", profile_text: await profileText("maryland"), wheel: "double-zero-covered",
    in_prison: false, betting_window_ms: 60_000, outcome: "dealer",
  });
  const page = await newPage("covered", { width: 1280, height: 900 });
  await signIn(page, "/terminal?table=m4", "alice", "alice-secret-1");
  await page.locator('#felt[data-layout="double-zero-covered"]').waitFor({ timeout: WAIT_MS });
  // The 00 area is covered, clearly taking no bet; the 0 box touches 1 and 2 only.
  await textOf(page.locator('#felt'), /NO BET/, "the covered 00 box says it takes no bet");
  assert.equal(await page.locator('#felt [data-covered="00"]').count(), 1, "the 00 box is covered");
  // Maryland ch.1 G(1): the operator's name is on the layout.
  assert.equal(await page.locator('#felt [data-operator="Test House"]').count(), 1, "the operator's name on the felt");
  for (const spot of ["0", "0-1", "0-2", "0-1-2"]) {
    assert.equal(await page.locator(`#felt [data-spot="${spot}"]`).count(), 1, `covered felt spot ${spot}`);
  }
  for (const spot of ["00", "0-00", "0-3", "0-2-3", "0-1-2-3", "0-2-00", "00-2-3"]) {
    assert.equal(await page.locator(`#felt [data-spot="${spot}"]`).count(), 0, `no spot ${spot} on the covered felt`);
  }
  await shot(page, "08b-terminal-covered-double-zero");
  await page.context().close();
});

test("In Prison chosen at the terminal: half back or held for the next spin (Colorado 2204(2))", async () => {
  const { dealerToken } = await openColoradoTable("t4", "single-zero", true, 60_000);
  await ask(dealerToken, { op: "open_betting", table: "t4" });
  const page = await newPage("prison");
  await signIn(page, "/terminal?table=t4", "alice", "alice-secret-1");
  await page.locator("#prison-choice").waitFor({ state: "visible", timeout: WAIT_MS });
  await page.fill('#buy-in-form [name="amount"]', "50.00");
  await page.selectOption('#buy-in-form [name="chip_value"]', "100");
  await page.click('#buy-in-form button[type="submit"]');
  await textOf(page.locator("#chips-balance"), /50\.00/, "chips at t4");
  await page.locator('#chips [data-chip="10"]').click();
  await page.selectOption("#zero-choice", "half");
  await page.locator('#felt [data-spot="red"]').click();
  await textOf(page.locator("#message"), /10\.00 on red\./, "red with half back");
  await page.selectOption("#zero-choice", "prison");
  await page.locator('#felt [data-spot="black"]').click();
  await textOf(page.locator("#message"), /10\.00 on black\./, "black left in prison");
  await ask(dealerToken, { op: "no_more_bets", table: "t4" });
  await ask(dealerToken, { op: "spin", table: "t4", spin: { pocket: "0", direction: "opposite", revolutions: 6 } });
  await page.locator('#dolly[data-pocket="0"]').waitFor({ timeout: WAIT_MS });
  // Half of red's 10.00 comes back; black's 10.00 stays on the layout in prison.
  const token = await login("alice", "alice-secret-1");
  assert.equal(await chipsOf(token, "t4", "alice"), 5_000 - 2_000 + 500);
  await textOf(page.locator("#chips-balance"), /35\.00/, "balance after the zero");
  await textOf(page.locator('#history tr[data-round="1"]'), /−USD 5\.00 \(USD 10\.00 held\)/, "history counts the held bet as neither won nor lost");
  // The next round opens with the imprisoned bet still on the layout.
  await ask(dealerToken, { op: "open_betting", table: "t4" });
  await textOf(page.locator("#my-bets"), /black.*10\.00/, "the bet in prison rides into the next round");
  await shot(page, "09-terminal-in-prison");
  await page.context().close();
});

test("the admin page: a chosen password changed first, users added, locked, unlocked and reset, a table made", async () => {
  // An admin whose password another admin chose changes it before anything else.
  await ask(adminToken, { op: "create_user", username: "boss", role: "admin", password: "boss-secret-1" });
  await ask(adminToken, { op: "reset_password", username: "boss", password: "boss-chosen-1" });
  const page = await newPage("admin", { width: 1920, height: 1080 });
  await signIn(page, "/admin", "boss", "boss-chosen-1");
  await page.locator("#password-panel").waitFor({ timeout: WAIT_MS });
  assert.equal(await page.locator("#console").isHidden(), true, "nothing else before the change");
  await page.fill('#password-form [name="password"]', "boss-chosen-1");
  await page.fill('#password-form [name="new_password"]', "boss-own-secret-1");
  await page.fill('#password-form [name="again"]', "boss-own-secret-1");
  await page.click('#password-form button[type="submit"]');
  await page.locator("#console").waitFor({ timeout: WAIT_MS });
  await page.locator('#users tr[data-user="boss"]').waitFor({ timeout: WAIT_MS });

  // A user added from the page signs in.
  await page.fill('#user-form [name="username"]', "carol");
  await page.selectOption('#user-form [name="role"]', "player");
  await page.fill('#user-form [name="password"]', "carol-secret-1");
  await page.click('#user-form button[type="submit"]');
  const carol = page.locator('#users tr[data-user="carol"]');
  await textOf(carol, /player.*changes password at next sign-in/, "carol listed, to choose her own");
  await login("carol", "carol-secret-1");

  // Locked, she signs in no more; unlocked, she does again.
  await carol.getByRole("button", { name: "Lock" }).click();
  await textOf(carol, /locked/, "carol locked");
  await assert.rejects(login("carol", "carol-secret-1"), /locked/);
  await carol.getByRole("button", { name: "Unlock" }).click();
  await textOf(carol, /^(?![\s\S]*locked)[\s\S]*changes password/, "carol unlocked");
  await login("carol", "carol-secret-1");

  // A password reset from the page: she changes it at her next sign-in.
  await carol.getByRole("button", { name: "Reset password" }).click();
  await carol.locator("input[type=password]").fill("carol-reset-1");
  await carol.getByRole("button", { name: "Set" }).click();
  await textOf(page.locator("#message"), /password of carol is set/, "carol reset");
  await textOf(carol, /changes password at next sign-in/, "carol to choose her own");
  const reset = await call(null, "/api/login", { username: "carol", password: "carol-reset-1" });
  assert.equal(reset.must_change_password, true);

  // The operator's name, shown on every layout (Maryland ch.1 G(1)): renamed from the page.
  assert.equal(await page.inputValue("#operator-name"), "Test House");
  await page.fill("#operator-name", "Test House Two");
  await page.click('#operator-form button[type="submit"]');
  await textOf(page.locator("#operator-note"), /"Test House Two"/, "the operator renamed");
  const board = await (await fetch(base + "/api/public/tables")).json();
  assert.equal(board.operator, "Test House Two");
  await page.fill("#operator-name", "Test House");
  await page.click('#operator-form button[type="submit"]');
  await textOf(page.locator("#operator-note"), /"Test House"/, "the operator's name back");

  // A table from a shipped profile, with its posted limits in the text.
  await page.selectOption("#profile-select", "low-limit-house");
  assert.match(await page.inputValue("#profile-text"), /low-limit-house|Low/i);
  await page.fill('#table-form [name="table"]', "t9");
  await page.selectOption("#outcome-select", "dealer");
  await page.click('#table-form button[type="submit"]');
  await textOf(page.locator('#tables tr[data-table="t9"]'), /low-limit-house/, "t9 listed");
  const tables = await (await fetch(base + "/api/public/tables")).json();
  assert.ok(tables.tables.includes("t9"), JSON.stringify(tables));
  // A refusal is shown with the server's sentence.
  await page.fill('#table-form [name="table"]', "t9");
  await page.click('#table-form button[type="submit"]');
  await textOf(page.locator("#message"), /t9/, "the refusal names the table");
  await shot(page, "11-admin-1920");
  // Any user changes their own password from the header, whenever they like.
  await page.click("#change-password");
  await page.fill('#password-form [name="password"]', "boss-own-secret-1");
  await page.fill('#password-form [name="new_password"]', "boss-own-secret-2");
  await page.fill('#password-form [name="again"]', "boss-own-secret-2");
  await page.click('#password-form button[type="submit"]');
  await textOf(page.locator("#message"), /password is changed/, "changed by choice");
  await login("boss", "boss-own-secret-2");
  await page.setViewportSize({ width: 390, height: 900 });
  await shot(page, "12-admin-390");
});

test("the cage page: a player looked up, cash in and out with receipts, a coupon issued", async () => {
  await ask(adminToken, { op: "create_user", username: "dora", role: "player", password: "dora-secret-1" });
  const page = await newPage("cage", { width: 1920, height: 1080 });
  await signIn(page, "/cashier", "cash1", "cash1-secret-1");
  await page.fill('#find-form [name="player"]', "dora");
  await page.click('#find-form button[type="submit"]');
  await textOf(page.locator('#accounts tr[data-account="wallet:dora"]'), /0\.00/, "an empty wallet");

  // A double click cashes in once: one id per click, the button held while it is sent.
  await page.fill('#cash-form [name="amount"]', "250.00");
  await page.locator('#cash-form button[value="in"]').dblclick();
  await textOf(page.locator("#receipt"), /Cash in[\s\S]*250\.00[\s\S]*Wallet now[\s\S]*250\.00/, "the receipt");
  await textOf(page.locator('#accounts tr[data-account="wallet:dora"]'), /250\.00/, "the wallet");
  const dora = await login("dora", "dora-secret-1");
  assert.equal((await call(dora, "/api/me")).accounts["wallet:dora"], 25_000);

  await page.fill('#cash-form [name="amount"]', "100");
  await page.click('#cash-form button[value="out"]');
  await textOf(page.locator("#receipt"), /Cash out[\s\S]*100\.00[\s\S]*150\.00/, "the cash-out receipt");
  // Bad input is named, and nothing moves.
  await page.fill('#cash-form [name="amount"]', "ten");
  await page.click('#cash-form button[value="in"]');
  await textOf(page.locator("#message"), /"ten"/, "the amount named");
  assert.equal((await call(dora, "/api/me")).accounts["wallet:dora"], 15_000);

  await page.selectOption("#coupon-table", "t2");
  await page.fill('#coupon-form [name="value"]', "25.00");
  await page.fill('#coupon-form [name="id"]', "mp-dora-1");
  await page.click('#coupon-form button[type="submit"]');
  await textOf(page.locator("#coupons"), /mp-dora-1[\s\S]*t2[\s\S]*25\.00/, "the coupon listed");
  await textOf(page.locator("#done"), /Cash out[\s\S]*Cash in/, "the session's transactions");
  await shot(page, "13-cage-1920");
  await page.setViewportSize({ width: 390, height: 900 });
  await shot(page, "14-cage-390");
});

test("the tournaments page: created, entries, an event ended, a split agreed by its players (Colorado 2213)", async () => {
  const config = await exampleTournament("winter-classic");
  const admin = await newPage("tournaments-admin");
  await signIn(admin, "/tournaments", "admin", "admin-secret-1");
  await admin.fill('#create-form [name="config"]', config.replace("last_day = \"", "last_day = \"2099-01-01\"\n#"));
  await admin.click('#create-form button[type="submit"]');
  await textOf(admin.locator("#message"), /2213\(1\)/, "a tournament past four months refused by its clause");
  await admin.fill('#create-form [name="config"]', config);
  await admin.click('#create-form button[type="submit"]');
  await textOf(admin.locator("#message"), /passed every check/, "the tournament created");
  await textOf(admin.locator("#events"), /Qualifier[\s\S]*Final/, "its events listed");

  const pit = await newPage("tournaments-director", { width: 1600, height: 1200 });
  await signIn(pit, "/tournaments", "pit1", "pit1-secret-1");
  await textOf(pit.locator("#chips"), /yellow = 100 points/, "the chip values notice (2214(2))");
  const register = async (player, fee, detail = "") => {
    await pit.fill('#register-form [name="player"]', player);
    await pit.selectOption('#register-form [name="fee"]', fee);
    await pit.selectOption('#register-form [name="buy_in"]', fee === "non_cash" ? "cash" : fee);
    await pit.fill('#register-form [name="detail"]', detail);
    await pit.check('#register-form [name="qualified"]');
    await pit.click('#register-form button[type="submit"]');
  };
  await register("alice", "cash");
  await textOf(pit.locator("#message"), /alice is entered/, "alice entered");
  // The house's money takes an admin: the director alone cannot give a complimentary entry.
  await register("bob", "complimentary");
  await textOf(pit.locator("#message"), /paid by the house/, "a complimentary entry refused to the director alone");
  await register("bob", "cash");
  await textOf(pit.locator("#entries"), /bob[\s\S]*cash/, "bob entered");
  await register("alice", "cash");
  await textOf(pit.locator("#message"), /2213\(2\)\(c\)/, "a second entry refused by its clause");
  await pit.click('#start-form button[type="submit"]');
  await textOf(pit.locator("#message"), /2213\.06/, "no start before the rules are filed");
  await pit.fill('#file-form [name="filed_on"]', day(-6));
  await pit.click('#file-form button[type="submit"]');
  await textOf(pit.locator("#message"), /filing is recorded/, "the filing recorded");
  await pit.click('#start-form button[type="submit"]');
  await textOf(pit.locator("#events"), /Qualifier[^]*running/, "the Qualifier running");
  await pit.fill('[name="points-1"]', "25000");
  await pit.fill('[name="points-2"]', "4000");
  await pit.click('#end-form button[value="end"]');
  await textOf(pit.locator("#payouts"), /Qualifier[\s\S]*alice[\s\S]*45\.00[\s\S]*bob[\s\S]*voucher 1 into Final/, "the Qualifier's prizes");

  // The Final: bob by his voucher, alice in cash; then a split the players agree to.
  await register("bob", "voucher", "1");
  await textOf(pit.locator("#message"), /bob is entered/, "bob entered by his voucher");
  await register("alice", "cash");
  await textOf(pit.locator("#message"), /alice is entered/, "alice entered in the Final");
  await textOf(pit.locator("#entries"), /4[\s\S]*alice[\s\S]*Final/, "both in the Final");
  await pit.selectOption('#start-form [name="event"]', "Final");
  await pit.click('#start-form button[type="submit"]');
  await textOf(pit.locator("#events"), /Final[^]*running/, "the Final running");
  await pit.fill('#end-form [name="places"]', "1,2");
  await pit.fill('[name="share-3"]', "115.00");
  await pit.fill('[name="share-4"]', "115.00");
  await pit.click('#end-form button[value="propose"]');
  await textOf(pit.locator("#split"), /115\.00[\s\S]*not yet/, "the split proposed");
  const alice = await newPage("tournaments-player", { width: 390, height: 900 });
  await signIn(alice, "/tournaments", "alice", "alice-secret-1");
  await textOf(alice.locator("#split"), /115\.00/, "alice sees the split she is part of");
  await alice.click('#split button');
  await textOf(alice.locator("#message"), /agreement is recorded/, "alice agreed herself");
  await shot(alice, "15-tournament-player-390");
  const bob = await login("bob", "bob-secret-1");
  await ask(bob, { op: "tournament", tournament: "winter-classic", order: { do: "agree_split", entry: 3 } });
  await pit.fill('[name="points-3"]', "9000");
  await pit.fill('[name="points-4"]', "12000");
  await pit.click('#end-form button[value="confirm"]');
  await textOf(pit.locator("#payouts"), /split[\s\S]*115\.00[\s\S]*split[\s\S]*115\.00/, "the split paid as agreed");
  await pit.click("#conclude");
  await textOf(pit.locator("#t-name"), /concluded/, "the tournament concluded");
  await textOf(pit.locator("#figures"), /Prize pool[\s\S]*0\.00/, "nothing left in the pool (2213.05)");
  await shot(pit, "16-tournament-director-1600");
});

test("a tournament's event played at a table in points: director, terminal and board (Colorado 2213.07, 2214)", async () => {
  const config = await exampleTournament("winter-tables");
  await ask(adminToken, { op: "create_tournament", config });
  const { pitToken, dealerToken } = await openColoradoTable("t5", "double-zero", false, 600_000);
  const order = (o) => ask(pitToken, { op: "tournament", tournament: "winter-tables", order: o });
  for (const player of ["alice", "bob"]) await order({ do: "register", player, event: "Qualifier", fee: "cash", buy_in: "cash", qualified: true, id: `reg-${player}` });
  await order({ do: "file_rules", filed_on: day(-6) });

  // The director gives the Qualifier its table, switches the table to it and starts it.
  const pit = await newPage("tournament-tables-director", { width: 1600, height: 1200 });
  await signIn(pit, "/tournaments?tournament=winter-tables", "pit1", "pit1-secret-1");
  await textOf(pit.locator("#t-name"), /winter-tables/, "the tournament shown");
  await pit.selectOption('#table-form [name="table"]', "t5");
  await pit.click('#table-form button[type="submit"]');
  await textOf(pit.locator("#message"), /plays at table t5/, "the Qualifier given table t5");
  await textOf(pit.locator("#events"), /Qualifier[^]*t5/, "the table listed with its event");
  await pit.selectOption('#table-form [name="table"]', "t5");
  await pit.click("#switch-points");
  await textOf(pit.locator("#message"), /plays the tournament in points/, "t5 switched to points");
  await pit.click('#start-form button[type="submit"]');
  await textOf(pit.locator("#events"), /Qualifier[^]*running/, "the Qualifier running");

  // Alice's terminal: the notice, her points, chips by colour with no limit (2214(1)-(2)).
  const alice = await newPage("tournament-tables-terminal", { width: 1400, height: 1000 });
  await signIn(alice, "/terminal?table=t5", "alice", "alice-secret-1");
  await textOf(alice.locator("#points-notice"), /no cash value[\s\S]*2214\(1\)[\s\S]*yellow 100/, "the tournament notice at the table");
  await textOf(alice.locator("#chips-balance"), /10000 points/, "the starting chips (2213.07(1))");
  assert.equal(await alice.locator("#buy-in-form").isHidden(), true, "no buy-in with cash at a tournament table");
  await ask(dealerToken, { op: "open_betting", table: "t5" });
  await alice.locator('#chips [data-chip="1000"]').click();
  await alice.locator('#felt [data-spot="17"]').click();
  await textOf(alice.locator("#message"), /1000 pts on 17/, "a bet in points");
  await ask(dealerToken, { op: "no_more_bets", table: "t5" });
  await ask(dealerToken, { op: "spin", table: "t5", spin: { pocket: "17", direction: "opposite", revolutions: 6 } });
  await textOf(alice.locator("#chips-balance"), /45000 points/, "paid 35 to 1 in points");
  await textOf(alice.locator("#standings"), /1[\s\S]*1 \(you\)[\s\S]*45000/, "alice leads the standings");
  await textOf(alice.locator("#result-text"), /Won 35000 pts/, "the result in points");
  await textOf(alice.locator("#rebuys"), /Re-buys: 0 of 1 used/, "the re-buys the event allows (2213.07(1))");
  await alice.locator("#announce").waitFor({ state: "hidden", timeout: WAIT_MS });
  await shot(alice, "17-tournament-terminal-1400");

  // The board's leaderboard: entries and points, no names.
  const board = await newPage("tournament-tables-board", { width: 1920, height: 1080 });
  await board.goto(base + "/board?table=t5");
  await textOf(board.locator("#leaders"), /Entry 1[\s\S]*45,000[\s\S]*Entry 2[\s\S]*10,000/, "the leaderboard");
  assert.equal(await board.locator("#leaders").textContent().then((t) => /alice|bob/.test(t)), false, "no player's name on the board");
  await shot(board, "18-tournament-board-1920");

  // The director ends the event with the table's count: nothing typed.
  await pit.reload();
  await textOf(pit.locator("#standings"), /45000/, "the director's standings");
  await textOf(pit.locator("#points"), /45000 \(at the table\)/, "the points counted at the table");
  await pit.click('#end-form button[value="end"]');
  await textOf(pit.locator("#payouts"), /Qualifier[\s\S]*1[\s\S]*alice/, "alice first, by the table's count");
  await pit.selectOption('#table-form [name="table"]', "t5");
  await pit.click("#switch-cash");
  await textOf(pit.locator("#message"), /plays cash again/, "t5 back to cash play");
  await textOf(alice.locator("#chips-label"), /Chips at this table/, "the terminal back in cash");
});

test("the board follows the table picked, and comes back by itself after a restart", async () => {
  const board = await newPage("board-restart", { width: 1920, height: 1080 });
  await board.goto(base + "/board?table=t1");
  await textOf(board.locator("#table-name"), /t1/, "board on t1");
  // Picking another table follows it: no "disconnected" from the socket left behind.
  await board.selectOption("#table-select", "t2");
  await textOf(board.locator("#table-name"), /t2/, "board on t2");
  await textOf(board.locator("#state"), /^(?!.*(disconnected|reconnecting|connecting)).+/, "board live on t2");
  // The server stops (kill -9) and starts again on the same address and data.
  const restart = await killAndRestart();
  await textOf(board.locator("#state"), /reconnecting/, "board sees the server gone");
  await restart();
  await textOf(board.locator("#state"), /^(?!.*(disconnected|reconnecting|connecting)).+/, "board back by itself");
  // And follows the table's events again.
  const pit = await login("pit1", "pit1-secret-1");
  const dealer = await login("dealer1", "dealer1-secret-1");
  await ask(pit, { op: "inspect", table: "t2", no_magnet_or_contrivance: true, wheel_level_and_rotating_freely: true, parts_secure: true, ball_non_magnetic: true, layout_and_signage_comply: true }).catch(() => null);
  await ask(dealer, { op: "open_table", table: "t2" }).catch(() => null);
  await ask(dealer, { op: "open_betting", table: "t2" });
  await textOf(board.locator("#state"), /Place your bets/, "board follows t2 after the restart");
  // The marquee: the betting window counting down, the results as a red/black
  // column, and each part of the layout's share of the shown spins.
  await textOf(board.locator("#countdown"), /^\d:\d\d$/, "the betting window's countdown");
  await ask(dealer, { op: "no_more_bets", table: "t2" });
  await ask(dealer, { op: "spin", table: "t2", spin: { pocket: "32", direction: "opposite", revolutions: 6 } });
  await board.locator('#column .newest[data-pocket="32"]').waitFor({ timeout: WAIT_MS });
  await textOf(board.locator("#stats"), /Red · zeros · black[\s\S]*%[\s\S]*Dozens[\s\S]*Columns/, "the statistics");
  await shot(board, "10-board-1920");
  // A portrait screen takes it in one column.
  await board.setViewportSize({ width: 1080, height: 1920 });
  await shot(board, "10-board-portrait");
});

test("a hanging ball's no spin is the floor manager's, not the dealer's (low-limit-house Irregularities (5))", async () => {
  await ask(adminToken, {
    op: "create_table", table: "l1", profile_text: await profileText("low-limit-house"), wheel: "double-zero",
    in_prison: false, betting_window_ms: 600_000, outcome: "dealer",
  });
  await ask(adminToken, { op: "create_user", username: "floorman1", role: "floor_manager", password: "floorman1-secret-1", licence: "F-1001" });
  const reasons = async (page) => page.locator("#no-spin-reason option").evaluateAll((os) => os.map((o) => o.value));
  const dealer = await newPage("dealer-hang");
  await signIn(dealer, "/dealer?table=l1", "dealer1", "dealer1-secret-1", "D-1001");
  await dealer.locator("#no-spin-reason option").first().waitFor({ state: "attached", timeout: WAIT_MS });
  const dealers = await reasons(dealer);
  assert.ok(dealers.includes("too_few_revolutions") && !dealers.includes("ball_hangs"), `the dealer's no spins: ${dealers}`);
  const floor = await newPage("floor-hang");
  await signIn(floor, "/dealer?table=l1", "floorman1", "floorman1-secret-1");
  await floor.locator("#no-spin-reason option").first().waitFor({ state: "attached", timeout: WAIT_MS });
  assert.ok((await reasons(floor)).includes("ball_hangs"), "the floor manager calls a hanging ball");
  await dealer.context().close();
  await floor.context().close();
});

test("verbal bets entered by the dealer, all or none (european-casino 3.5-3.6)", async () => {
  // A house in dollars playing the European rules.
  await ask(adminToken, {
    op: "create_table", table: "e1", profile_text: (await profileText("european-casino")).replace('currency = "EUR"', 'currency = "USD"'),
    wheel: "single-zero", in_prison: false, betting_window_ms: 600_000, outcome: "dealer",
  });
  const pitToken = await login("pit1", "pit1-secret-1");
  const dealerToken = await login("dealer1", "dealer1-secret-1");
  await ask(pitToken, { op: "inspect", table: "e1", no_magnet_or_contrivance: true, wheel_level_and_rotating_freely: true, parts_secure: true, ball_non_magnetic: true, layout_and_signage_comply: true });
  await ask(dealerToken, { op: "open_table", table: "e1" });
  const bob = await login("bob", "bob-secret-1");
  await ask(bob, { op: "buy_in", id: "e1-buy-bob", table: "e1", amount: 5_000, chip_value: 100 });
  await ask(dealerToken, { op: "open_betting", table: "e1" });
  const dealer = await newPage("dealer-verbal");
  await signIn(dealer, "/dealer?table=e1", "dealer1", "dealer1-secret-1", "D-1001");
  await dealer.locator("#verbal-panel").waitFor({ timeout: WAIT_MS });
  const player = await newPage("bob-verbal");
  await signIn(player, "/terminal?table=e1", "bob", "bob-secret-1");
  await player.locator('#felt[data-layout="single-zero"]').waitFor({ timeout: WAIT_MS });
  // One bet not on the layout: none of the series is taken.
  await dealer.fill('#verbal-form [name="player"]', "bob");
  await dealer.fill('#verbal-form [name="series"]', "17 5.00, 17-35 1.00");
  await dealer.click('#verbal-form button[type="submit"]');
  await textOf(dealer.locator("#message"), /17-35/, "the series refused, naming the bad bet");
  assert.equal(await chipsOf(bob, "e1", "bob"), 5_000, "nothing taken");
  await dealer.fill('#verbal-form [name="series"]', "17 5.00, red 10.00");
  await dealer.click('#verbal-form button[type="submit"]');
  await textOf(dealer.locator("#message"), /series for bob is taken whole: 17 USD 5\.00, red USD 10\.00/, "the series taken");
  assert.equal(await chipsOf(bob, "e1", "bob"), 3_500);
  // The player sees the bets the croupier entered as theirs.
  await textOf(player.locator("#my-bets"), /17[\s\S]*5\.00[\s\S]*RED|17[\s\S]*5\.00[\s\S]*red/, "the series on bob's terminal");
  await shot(dealer, "19-dealer-verbal-bets");
  // european-casino 5.4-5.5: the sign posts what chips kept past the gaming day are worth;
  // the pit records chips taken away from the table (5.2), and the pit boss confirms
  // the face value of chips taken away, and of no others, from the pit console.
  await textOf(player.locator("#table-sign"), /face value before leaving.*taken away.*after the gaming day.*table minimum.*never above their face value.*pit boss or casino manager/s, "the chips notice on the sign");
  const pit = await newPage("pit-chips");
  await signIn(pit, "/pit?table=e1", "pit1", "pit1-secret-1", "P-2002");
  await pit.locator('#players [data-take-away="bob"]').waitFor({ timeout: WAIT_MS });
  assert.equal(await pit.locator('#players [data-confirm-chips="bob"]').count(), 0, "no confirmation for chips on the table");
  // Asked once more, for a record cannot be taken back; refused while bob's bets are on the layout.
  await pit.click('#players [data-take-away="bob"]');
  await pit.click('#players [data-record-away="bob"]');
  await textOf(pit.locator("#message"), /bets are still on the layout/, "chips taken away refused while bets are on the layout");
  await ask(dealerToken, { op: "no_more_bets", table: "e1" });
  await ask(dealerToken, { op: "spin", table: "e1", spin: { pocket: "17", direction: "opposite", revolutions: 6 } });
  await pit.click('#players [data-take-away="bob"]');
  await pit.click('#players [data-record-away="bob"]');
  await textOf(pit.locator("#log"), /Chips taken away.*bob.*pit1/s, "chips taken away in the log");
  await textOf(player.locator("#away-notice"), /taken away from this table/, "the player told their chips are away");
  await pit.click('#players [data-confirm-chips="bob"]');
  await textOf(pit.locator("#log"), /Chips confirmed.*bob/s, "the confirmation in the log");
  await textOf(pit.locator('#players [data-away="bob"]'), /face value confirmed/, "the confirmation on the players' list");
  for (const p of [dealer, player, pit]) await p.context().close();
});

test("Bonus Spin Xtreme and Roulette X at the table: wager, targets, lucky numbers, meters (Maryland ch.3 F(16)-(18), ch.4 D-F)", async () => {
  const shipped = (await (await fetch(base + "/api/public/profiles")).json()).profiles.find((p) => p.name === "maryland");
  const bonus = (name) => shipped.bonuses.find((b) => b.name === name).text;
  // The admin page offers the bonuses the Maryland document permits.
  const admin = await newPage("admin-bonus");
  await signIn(admin, "/admin", "admin", "admin-secret-1");
  await admin.selectOption("#profile-select", "maryland");
  await admin.locator('#bonus-select option[value="bonus-spin-xtreme"]').waitFor({ state: "attached", timeout: WAIT_MS });
  await admin.locator('#bonus-select option[value="roulette-x-c"]').waitFor({ state: "attached", timeout: WAIT_MS });
  await admin.context().close();
  await ask(adminToken, {
    op: "create_table", table: "bx", profile_text: shipped.text, wheel: "double-zero", in_prison: false,
    betting_window_ms: 600_000, outcome: "rng", bonus_text: bonus("bonus-spin-xtreme"),
  });
  await ask(adminToken, {
    op: "create_table", table: "rx", profile_text: shipped.text, wheel: "double-zero", in_prison: false,
    betting_window_ms: 600_000, outcome: "rng", bonus_text: bonus("roulette-x-a"),
  });
  const pitToken = await login("pit1", "pit1-secret-1");
  const dealerToken = await login("dealer1", "dealer1-secret-1");
  for (const table of ["bx", "rx"]) {
    await ask(pitToken, { op: "inspect", table, no_magnet_or_contrivance: true, wheel_level_and_rotating_freely: true, parts_secure: true, ball_non_magnetic: true, layout_and_signage_comply: true });
    await postLimits(pitToken, table);
    await ask(dealerToken, { op: "open_table", table });
  }
  const alice = await login("alice", "alice-secret-1");
  await ask(alice, { op: "buy_in", id: "bx-buy-alice", table: "bx", amount: 5_000, chip_value: 100 });
  await ask(dealerToken, { op: "open_betting", table: "bx" });

  const player = await newPage("alice-bsx");
  await signIn(player, "/terminal?table=bx", "alice", "alice-secret-1");
  await player.locator("#bonus-panel:not([hidden])").waitFor({ timeout: WAIT_MS });
  await textOf(player.locator("#bonus-meters"), /Primary USD 10000\.00[\s\S]*Secondary USD 5000\.00/, "the meters at their initial amounts");
  await textOf(player.locator("#bonus-rules"), /Community Pay/, "the paytable posted");
  await player.click("#bonus-wager");
  await textOf(player.locator("#bonus-mine"), /USD 5\.00 wager is on/, "the wager placed");
  await textOf(player.locator("#chips-balance"), /45\.00/, "the wager from the chips");
  // ch.3 F(17)(a): one wager at a position a round.
  await player.click("#bonus-wager");
  await textOf(player.locator("#message"), /one Bonus Spin Xtreme wager a position/, "a second wager refused");
  // ch.3 F(16): the targets come as betting closes, marked on the felt.
  await player.locator('#phase[title="stream live"]').waitFor({ state: "attached", timeout: WAIT_MS });
  await ask(dealerToken, { op: "no_more_bets", table: "bx" });
  await textOf(player.locator("#bonus-numbers"), /Target numbers: /, "the targets on the terminal");
  assert.ok(await player.locator("#felt .bonus-number").count() >= 1, "the targets marked on the felt");
  // ch.3 F(17)(b): locked out once the round is started.
  await player.click("#bonus-wager");
  await textOf(player.locator("#message"), /past|no more bets|closed/i, "a late wager refused");
  const dealer = await newPage("dealer-bsx");
  await signIn(dealer, "/dealer?table=bx", "dealer1", "dealer1-secret-1", "D-1001");
  await textOf(dealer.locator("#bonus-numbers"), /Bonus Spin Xtreme numbers: targets /, "the targets on the dealer's console");
  await shot(player, "20-terminal-bonus-spin-xtreme");
  await dealer.click("#draw");
  await textOf(dealer.locator("#message"), /RNG drew/, "RNG draw");
  // ch.4 D(3)(a): 1% and 0.4% of the wager fed the meters.
  await textOf(player.locator("#bonus-meters"), /Primary USD 10000\.05[\s\S]*Secondary USD 5000\.02/, "the meters after the round");
  const pit = await newPage("pit-bsx");
  await signIn(pit, "/pit?table=bx", "pit1", "pit1-secret-1", "P-2002");
  await textOf(pit.locator("#bonus-meters"), /Primary meter USD 10000\.05/, "the meters on the pit console");
  await textOf(pit.locator("#jackpots"), /No jackpot paid yet|primary|secondary/, "the jackpot history on the pit console");
  await shot(pit, "21-pit-bonus-meters");
  const board = await newPage("board-bsx");
  await board.goto(`${base}/board?table=bx`);
  await textOf(board.locator("#bonus-meters"), /Primary USD 10000\.05/, "the meters on the board");
  await shot(board, "22-board-bonus-meters");

  // Roulette X (ch.4 F(1)): lucky numbers drawn after no more bets, with their odds.
  await ask(alice, { op: "buy_in", id: "rx-buy-alice", table: "rx", amount: 5_000, chip_value: 100 });
  await ask(dealerToken, { op: "open_betting", table: "rx" });
  await player.goto(`${base}/terminal?table=rx`);
  await player.locator("#bonus-panel:not([hidden])").waitFor({ timeout: WAIT_MS });
  await textOf(player.locator("#bonus-title"), /Roulette X/, "the Roulette X panel");
  await textOf(player.locator("#bonus-rules"), /straight on any other number pays 28 to 1/, "paytable A posted");
  // Composite bets stand for straights the paytable pays otherwise: not offered here.
  assert.ok(await player.locator("#track-panel").isHidden() && await player.locator("#complete-panel").isHidden(), "no racetrack or complete bets");
  // The table's stream is followed before betting closes.
  await player.locator('#phase[title="stream live"]').waitFor({ state: "attached", timeout: WAIT_MS });
  await ask(dealerToken, { op: "no_more_bets", table: "rx" });
  await textOf(player.locator("#bonus-numbers"), /Lucky numbers: \S+ pays 50 to 1/, "the lucky numbers on the terminal");
  assert.equal(await player.locator("#felt .bonus-number").count(), 5, "five lucky numbers marked on the felt");
  await shot(player, "23-terminal-roulette-x");
  for (const p of [player, dealer, pit, board]) await p.context().close();
});

test("no page raised an error", () => {
  assert.deepEqual(pageErrors, []);
});

// A day `offset` days from today, as a tournament file writes it.
function day(offset) {
  return new Date(Date.now() + offset * 86_400_000).toISOString().slice(0, 10);
}

// The shipped example tournament under `id`, both its events played today.
async function exampleTournament(id) {
  const { readFile } = await import("node:fs/promises");
  return (await readFile(path.join(ROOT, "profiles/tournaments/winter-classic.toml"), "utf8"))
    .replace('id = "winter-classic"', `id = "${id}"`)
    .replace('first_day = "2026-12-12"', `first_day = "${day(0)}"`)
    .replace('last_day = "2027-02-13"', `last_day = "${day(60)}"`)
    .replace('day = "2026-12-12"', `day = "${day(0)}"`)
    .replace('day = "2027-01-16"', `day = "${day(0)}"`);
}

// A Colorado table with dealer-entered results, inspected by the pit and opened by the dealer.
async function openColoradoTable(table, wheel, inPrison, windowMs) {
  await ask(adminToken, {
    op: "create_table", table, profile_text: await profileText("colorado-2014"), wheel,
    in_prison: inPrison, betting_window_ms: windowMs, outcome: "dealer",
  });
  const pitToken = await login("pit1", "pit1-secret-1");
  const dealerToken = await login("dealer1", "dealer1-secret-1");
  await ask(pitToken, { op: "inspect", table, no_magnet_or_contrivance: true, wheel_level_and_rotating_freely: true, parts_secure: true, ball_non_magnetic: true, layout_and_signage_comply: true });
  await ask(dealerToken, { op: "open_table", table });
  return { pitToken, dealerToken };
}

async function profileText(name) {
  const { readFile } = await import("node:fs/promises");
  return readFile(path.join(ROOT, "profiles", `${name}.toml`), "utf8");
}
