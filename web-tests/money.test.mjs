// Money on the pages, in a real browser against a real `croupier serve`:
// one intent, one id (a cash-in and a dispute whose answers are lost, sent
// again, move money once), the pit's books of the day as the API gives
// them, and chips taken away from the table recorded by the pit (the
// dealer calls the floor) and told to the player.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import path from "node:path";
import { ROOT, WAIT_MS, base, pageErrors, start, stop, call, login, ask, chipsOf, newPage, signIn, textOf, shot, loseNextAnswer, licenceOf } from "./harness.mjs";

let adminToken, pitToken, dealerToken;

before(async () => {
  const password = await start();
  adminToken = await login("admin", password);
  await ask(adminToken, { op: "change_password", password, new_password: "admin-secret-1" });
  await ask(adminToken, { op: "name_operator", name: "Test House" });
  for (const [username, role] of [["dealer1", "dealer"], ["pit1", "pit_supervisor"], ["cash1", "cashier"], ["ann", "player"], ["ben", "player"], ["cleo", "player"]]) {
    await ask(adminToken, { op: "create_user", username, role, password: `${username}-secret-1`, ...licenceOf(username, role) });
  }
  pitToken = await login("pit1", "pit1-secret-1");
  dealerToken = await login("dealer1", "dealer1-secret-1");
  const cashier = await login("cash1", "cash1-secret-1");
  for (const p of ["ben", "cleo"]) await ask(cashier, { op: "cash_in", id: `cash-${p}`, player: p, amount: 100_000 });
});

after(stop);

// No page script raised an error since `mark` (an index into pageErrors).
const noScriptErrors = (mark) => assert.deepEqual(pageErrors.slice(mark), [], "no page raised an error");

const inspectAndOpen = async (table) => {
  await ask(pitToken, { op: "inspect", table, no_magnet_or_contrivance: true, wheel_level_and_rotating_freely: true, parts_secure: true, ball_non_magnetic: true, layout_and_signage_comply: true });
  await ask(dealerToken, { op: "open_table", table });
};

async function profileText(name) {
  const { readFile } = await import("node:fs/promises");
  return readFile(path.join(ROOT, "profiles", `${name}.toml`), "utf8");
}

test("a cash-in whose answer is lost, clicked again, credits the wallet once; the receipt shows its id and the form is empty", async () => {
  const mark = pageErrors.length;
  const page = await newPage("cage-lost-answer");
  await signIn(page, "/cashier", "cash1", "cash1-secret-1");
  await page.fill('#find-form [name="player"]', "ann");
  await page.click('#find-form button[type="submit"]');
  await textOf(page.locator('#accounts tr[data-account="wallet:ann"]'), /0\.00/, "ann's empty wallet");
  const wallet = async () => (await call(await login("ann", "ann-secret-1"), "/api/me")).accounts["wallet:ann"] ?? 0;

  const sent = await loseNextAnswer(page, "cash_in");
  await page.fill('#cash-form [name="amount"]', "250.00");
  await page.click('#cash-form button[value="in"]');
  await page.locator('#message[data-kind="error"]').waitFor({ timeout: WAIT_MS });
  assert.equal(sent.length, 1);
  assert.equal(await wallet(), 25_000, "the first send reached the server");
  // Clicked again, unchanged: the page asks whether it is that one again or a new
  // one (only the cashier knows); sent again, the wallet is credited once, under one id.
  await page.click('#cash-form button[value="in"]');
  await page.click('[data-resend="again"]');
  await page.locator("#receipt-panel").waitFor({ timeout: WAIT_MS });
  assert.equal(await wallet(), 25_000, "credited once");
  assert.deepEqual(sent, [sent[0], sent[0]], "one id for both sends");
  await textOf(page.locator("#receipt"), new RegExp(`Cash in[\\s\\S]*250\\.00[\\s\\S]*Reference${sent[0]}`), "the receipt with the id");
  await textOf(page.locator("#message"), /recorded by the earlier send/, "the resend said to have moved nothing");
  await textOf(page.locator('#accounts tr[data-account="wallet:ann"]'), /250\.00/, "the wallet looked up again");
  assert.equal(await page.locator(`#done tr[data-reference="${sent[0]}"]`).count(), 1, "listed once in the session's transactions");
  // Done: the form is empty and its next send is a new intent.
  assert.equal(await page.inputValue('#cash-form [name="amount"]'), "");
  const next = await page.locator("#cash-ref").getAttribute("data-reference");
  assert.notEqual(next, sent[0], "a new id once answered");
  assert.equal(await page.locator("#cash-ref").getAttribute("data-pending"), "false");

  // An edit undone is the same intent: lost again, changed, changed back, sent once.
  const again = await loseNextAnswer(page, "cash_in");
  await page.fill('#cash-form [name="amount"]', "100.00");
  await page.click('#cash-form button[value="in"]');
  await textOf(page.locator("#message"), /No answer came.*reference cash-.*Send it again without changing anything/s, "the lost answer said");
  // The form still holds the cash-in, under the id it was sent with.
  assert.equal(await page.locator("#cash-ref").getAttribute("data-reference"), again[0]);
  assert.equal(await page.locator("#cash-ref").getAttribute("data-pending"), "true");
  await page.fill('#cash-form [name="amount"]', "1000.00");
  assert.equal(await page.locator("#cash-ref").getAttribute("data-pending"), "false", "another amount, another intent");
  await page.fill('#cash-form [name="amount"]', "100.00");
  await page.click('#cash-form button[value="in"]');
  await page.click('[data-resend="again"]');
  await textOf(page.locator("#receipt"), new RegExp(`100\\.00[\\s\\S]*Reference${again[0]}`), "the second receipt");
  assert.deepEqual(again, [again[0], again[0]]);
  assert.equal(await wallet(), 35_000, "250.00 and 100.00, each once");

  // The same amount again after a lost answer, but a new cash-in (the player brought more):
  // the cashier says so, and it goes under a new id, credited.
  const third = await loseNextAnswer(page, "cash_in");
  await page.fill('#cash-form [name="amount"]', "100.00");
  await page.click('#cash-form button[value="in"]');
  await page.locator('#message[data-kind="error"]').waitFor({ timeout: WAIT_MS });
  assert.equal(await wallet(), 45_000, "the first reached the server");
  await page.click('#cash-form button[value="in"]');
  await page.click('[data-resend="new"]');
  await textOf(page.locator("#message"), /Cashed in/, "a new cash-in, not a resend");
  assert.equal(await wallet(), 55_000, "two cash-ins of 100.00, each credited");
  assert.equal(third.length, 2);
  assert.notEqual(third[0], third[1], "a new id for the new one");
  // A refusal is an answer: the next send is a new intent, asked nothing.
  await page.fill('#cash-form [name="amount"]', "9999999.00");
  await page.click('#cash-form button[value="in"]');
  await textOf(page.locator("#message"), /at most/, "refused over the day's limit");
  assert.equal(await page.locator('[data-resend]').count(), 0);
  assert.equal(await page.locator("#cash-ref").getAttribute("data-pending"), "false", "refused, answered");
  await shot(page, "30-cage-lost-answer");
  await page.context().close();
  noScriptErrors(mark);
});

test("a dispute whose answer is lost, sent again from the pit, is decided once", async () => {
  const mark = pageErrors.length;
  // t2 (Colorado 2014, the dealer's entry): ben loses 10.00 on red; the pit supervisor decides the dispute.
  await inspectAndOpen("t2");
  const ben = await login("ben", "ben-secret-1");
  await ask(ben, { op: "buy_in", id: "ben-t2", table: "t2", amount: 5_000, chip_value: 100 });
  await ask(dealerToken, { op: "open_betting", table: "t2" });
  await ask(ben, { op: "place_bet", table: "t2", bet_id: "red-1", spot: "red", stake: 1_000 });
  await ask(dealerToken, { op: "no_more_bets", table: "t2" });
  await ask(dealerToken, { op: "spin", table: "t2", spin: { pocket: "2", direction: "opposite", revolutions: 6 } });
  const chips = await chipsOf(ben, "t2", "ben");
  assert.equal(chips, 4_000);

  const pit = await newPage("pit-lost-dispute");
  await signIn(pit, "/pit?table=t2", "pit1", "pit1-secret-1", "P-2002");
  await pit.locator('#dispute-round option[value="1"]').waitFor({ state: "attached", timeout: WAIT_MS });
  const sent = await loseNextAnswer(pit, "dispute");
  await pit.fill('#dispute-form [name="reason"]', "the ball rested in 1: pay half the red bet back");
  await pit.selectOption("#dispute-round", "1");
  await pit.click("#add-correction");
  await pit.fill('#corrections [name="player"]', "ben");
  await pit.fill('#corrections [name="amount"]', "+5.00");
  await pit.click('#dispute-form button[type="submit"]');
  await pit.locator('#message[data-kind="error"]').waitFor({ timeout: WAIT_MS });
  assert.equal(await chipsOf(ben, "t2", "ben"), chips + 500, "the first send reached the server");
  await textOf(pit.locator("#message"), /No answer came/, "the lost answer said");
  await pit.click('#dispute-form button[type="submit"]');
  await pit.click('[data-resend="again"]');
  await textOf(pit.locator("#dispute-done"), /reference/, "the decision recorded");
  assert.equal(await chipsOf(ben, "t2", "ben"), chips + 500, "paid once");
  assert.deepEqual(sent, [sent[0], sent[0]], "one id for both sends");
  await textOf(pit.locator("#dispute-done"), new RegExp(`reference ${sent[0]}`), "the decision's reference");
  await textOf(pit.locator("#message"), /nothing was decided twice/, "the resend said to have decided nothing");
  const log = await call(pitToken, "/api/tables/t2/log");
  assert.equal(log.log.filter((e) => e.type === "dispute_decided").length, 1, "one decision in the log");
  // Done: the form is empty, under a new reference.
  assert.equal(await pit.inputValue('#dispute-form [name="reason"]'), "");
  assert.equal(await pit.locator("#corrections .corr-row").count(), 0);
  assert.notEqual(await pit.locator("#dispute-ref").getAttribute("data-reference"), sent[0]);
  await pit.context().close();
  noScriptErrors(mark);
});

test("the pit's report shows the day's books as the API gives them, after a round that needed a fill", async () => {
  const mark = pageErrors.length;
  await ask(adminToken, {
    op: "create_table", table: "c1", profile_text: await profileText("colorado-2014"), wheel: "single-zero",
    in_prison: false, betting_window_ms: 600_000, outcome: "dealer",
  });
  await inspectAndOpen("c1");
  const cleo = await login("cleo", "cleo-secret-1");
  await ask(cleo, { op: "buy_in", id: "cleo-c1", table: "c1", amount: 2_000, chip_value: 100 });
  // A straight up on 17 pays 35 to 1 from an empty float: the house fills it.
  await ask(dealerToken, { op: "open_betting", table: "c1" });
  await ask(cleo, { op: "place_bet", table: "c1", bet_id: "s17", spot: "17", stake: 100 });
  await ask(cleo, { op: "place_bet", table: "c1", bet_id: "s5", spot: "5", stake: 100 });
  await ask(dealerToken, { op: "no_more_bets", table: "c1" });
  await ask(dealerToken, { op: "spin", table: "c1", spin: { pocket: "17", direction: "opposite", revolutions: 6 } });
  // The dealer sells chips for cash too: the drop is cash and wallets.
  await ask(dealerToken, { op: "sell_chips", id: "sale-cleo-1", table: "c1", player: "cleo", amount: 1_000, chip_value: 100 });
  const { books, book_days: days } = await call(pitToken, "/api/tables/c1/report");
  assert.ok(books.fills > 0, `the round needed a fill: ${JSON.stringify(books)}`);

  const pit = await newPage("pit-books");
  await signIn(pit, "/pit?table=c1", "pit1", "pit1-secret-1", "P-2002");
  const figure = (name) => pit.locator(`#books [data-figure="${name}"]`);
  const usd = (minor) => `${minor < 0 ? "−" : ""}USD ${Math.floor(Math.abs(minor) / 100)}\\.${String(Math.abs(minor) % 100).padStart(2, "0")}`;
  // The round's fill was the house's automatic one (no slip was signed), and the books say so.
  const automatic = (minor) => new RegExp(`^${usd(minor)} \\(the house's automatic fills, when the float could not pay a round\\)$`);
  await textOf(figure("fills"), automatic(books.fills), "the fills");
  await textOf(figure("win"), new RegExp(`^${usd(books.win)}$`), "the win");
  await textOf(figure("drop"), new RegExp(`^${usd(books.drop)} \\(cash ${usd(books.drop_cash)}, wallets ${usd(books.drop_wallet)}\\)$`), "the drop");
  await textOf(figure("credits"), new RegExp(`^${usd(books.credits)}$`), "the credits");
  await textOf(figure("float_open"), new RegExp(`^${usd(books.float_open)}$`), "the float at the opening");
  await textOf(figure("float_close"), new RegExp(`^${usd(books.float_close)}$`), "the float at the close");
  await textOf(figure("disputes"), new RegExp(`paid ${usd(books.disputes_paid)}, collected ${usd(books.disputes_collected)}`), "the disputes");
  await textOf(figure("rounds"), new RegExp(`^${books.rounds}$`), "the rounds");
  const bp = books.hold_basis_points;
  await textOf(figure("hold"), new RegExp(`^${bp < 0 ? "−" : ""}${Math.floor(Math.abs(bp) / 100)}\\.${String(Math.abs(bp) % 100).padStart(2, "0")} %$`), "the hold");
  // The figure once shown as the house's result is the listed rounds', and says so.
  assert.doesNotMatch(await pit.locator("#accounts").textContent(), /House result/);
  await textOf(pit.locator("#rounds-totals"), /rounds? listed: .*house result of their bets/, "the listed rounds' totals, named");
  // The day picker lists the days kept; picking one shows its books.
  assert.deepEqual(await pit.locator("#book-day option").evaluateAll((os) => os.map((o) => o.value).filter(Boolean)), [...days].reverse());
  await pit.selectOption("#book-day", books.day);
  await textOf(figure("day"), new RegExp(`^${books.day}$`), "the day picked");
  await textOf(figure("fills"), automatic(books.fills), "the fills of the day picked");
  await shot(pit, "31-pit-books");
  await pit.context().close();
  noScriptErrors(mark);
});

test("chips taken away: the dealer calls the floor, the pit records it, the player is told, their play refused in words", async () => {
  const mark = pageErrors.length;
  await ask(adminToken, {
    op: "create_table", table: "e1", profile_text: (await profileText("european-casino")).replace('currency = "EUR"', 'currency = "USD"'),
    wheel: "single-zero", in_prison: false, betting_window_ms: 600_000, outcome: "dealer",
  });
  await inspectAndOpen("e1");
  const ben = await login("ben", "ben-secret-1");
  await ask(ben, { op: "buy_in", id: "ben-e1", table: "e1", amount: 5_000, chip_value: 500 });

  const player = await newPage("ben-away");
  await signIn(player, "/terminal?table=e1", "ben", "ben-secret-1");
  await player.locator('#phase[title="stream live"]').waitFor({ state: "attached", timeout: WAIT_MS });
  assert.equal(await player.locator("#away-notice").isHidden(), true);
  // A dealer alone may not record it (they could devalue a player's chips): the console says to call the floor.
  const dealer = await newPage("dealer-away");
  await signIn(dealer, "/dealer?table=e1", "dealer1", "dealer1-secret-1", "D-1001");
  await textOf(dealer.locator("#away-note"), /call the floor/, "the dealer calls the floor");
  await dealer.locator('#players [data-player="ben"]').waitFor({ timeout: WAIT_MS });
  assert.equal(await dealer.locator('#players [data-take-away="ben"]').count(), 0, "no button for a dealer");
  const pit = await newPage("pit-away");
  await signIn(pit, "/pit?table=e1", "pit1", "pit1-secret-1", "P-2002");
  await pit.locator('#players [data-take-away="ben"]').waitFor({ timeout: WAIT_MS });
  // Asked once more, for it cannot be taken back.
  await pit.click('#players [data-take-away="ben"]');
  await pit.click('#players [data-record-away="ben"]');
  await textOf(pit.locator("#message"), /ben's colour chips are recorded taken away/, "recorded at the pit");
  await textOf(pit.locator('#players [data-away="ben"]'), /Taken away at/, "shown away at the pit");
  assert.equal(await pit.locator('#players [data-take-away="ben"]').count(), 0, "recorded once");
  await textOf(dealer.locator('#players [data-away="ben"]'), /Taken away at/, "shown away at the console");
  // The player is told, with the chips' value.
  await textOf(player.locator("#away-notice"), /Your colour chips \(USD 50\.00\) were recorded as taken away from this table/, "the notice on the terminal");
  // Their bets are refused, in words, and the notice stays.
  await ask(dealerToken, { op: "open_betting", table: "e1" });
  await textOf(player.locator("#phase"), /place your bets/i, "betting open on the terminal");
  await player.locator('#felt [data-spot="red"]').click();
  // The refusal is answered by the notice, said to ben again: not the server's third-person sentence beside it.
  await player.locator('#away-notice[data-refused="1"]').waitFor({ timeout: WAIT_MS });
  assert.equal(await player.locator("#away-notice").isHidden(), false);
  assert.doesNotMatch(await player.locator("#message").textContent(), /before ben plays/);
  await shot(player, "32-terminal-chips-away");
  const log = await call(pitToken, "/api/tables/e1/log");
  const entry = log.log.find((e) => e.type === "chips_taken_away");
  assert.equal(entry?.by, "pit1", "the log names who recorded it");
  // Cashed in, they are away no more.
  await player.click("#leave");
  await textOf(player.locator("#message"), /cashed back to your wallet/, "ben leaves");
  assert.equal(await player.locator("#away-notice").isHidden(), true);
  for (const p of [player, dealer, pit]) await p.context().close();
  noScriptErrors(mark);
});
