// The tournaments page as a new casino set one up (Colorado 2213-2214): the
// shipped example tried from today, a filing too late refused and a day
// typed wrong corrected (2213.06), the Division's objection holding up the
// start until resolved (2213.06), an entry withdrawn, a table given to an
// event and taken back, a re-buy (once a script error that did nothing),
// an elimination, a split refused, a tournament called off. Every button of
// the page is clicked here.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import path from "node:path";
import { readFile } from "node:fs/promises";
import { ROOT, WAIT_MS, start, stop, login, ask, call, newPage, signIn, textOf, shot, licenceOf } from "./harness.mjs";

let adminToken;

before(async () => {
  const password = await start();
  adminToken = await login("admin", password);
  await ask(adminToken, { op: "change_password", password, new_password: "admin-secret-1" });
  await ask(adminToken, { op: "name_operator", name: "Test House" });
  for (const [username, role] of [["pit1", "pit_supervisor"], ["alice", "player"], ["bob", "player"], ["carol", "player"], ["dave", "player"]]) {
    await ask(adminToken, { op: "create_user", username, role, password: `${username}-secret-1`, ...licenceOf(username, role) });
  }
  // A Colorado table of the example's profile, to give an event and take back.
  const profile = await readFile(path.join(ROOT, "profiles/colorado-2014.toml"), "utf8");
  await ask(adminToken, { op: "create_table", table: "t5", profile_text: profile, wheel: "double-zero", in_prison: false, betting_window_ms: 60_000, outcome: "dealer" });
});

after(stop);

// A day `offset` days from today (UTC), as a tournament file writes it.
const day = (offset) => new Date(Date.now() + offset * 86_400_000).toISOString().slice(0, 10);

test("a tournament set up from the page: the example from today, a filing checked and corrected, withdraw, re-buy, cancel", async () => {
  const admin = await newPage("tournaments-setup-admin", { width: 1600, height: 1200 });
  await signIn(admin, "/tournaments", "admin", "admin-secret-1");
  // The shipped example, its days moved so that it starts today.
  await admin.click("#example");
  await textOf(admin.locator("#message"), /example winter-classic is filled in, starting today/, "the example filled in");
  const config = await admin.inputValue('#create-form [name="config"]');
  assert.match(config, new RegExp(`first_day = "${day(0)}"`), "the example starts today");
  assert.match(config, /\[\[events\]\]\s*name = "Qualifier"\s*day = "(\d{4}-\d\d-\d\d)"/);
  assert.equal(/name = "Qualifier"\s*day = "([^"]+)"/.exec(config)[1], day(0), "the Qualifier today");
  await admin.click('#create-form button[type="submit"]');
  await textOf(admin.locator("#message"), /passed every check/, "the example created");
  await textOf(admin.locator("#t-name"), /winter-classic/, "the tournament just created is the one shown");

  const pit = await newPage("tournaments-setup-director", { width: 1600, height: 1200 });
  await signIn(pit, "/tournaments?tournament=winter-classic", "pit1", "pit1-secret-1");
  await textOf(pit.locator("#t-name"), /winter-classic/, "the example shown");
  // 2213.06: the rules reach the Division five days before the start. A
  // filing two days ago is too late for today's start: refused as it is
  // recorded, with the way out, not accepted to fail at the start.
  await pit.fill('#file-form [name="filed_on"]', day(-2));
  await pit.click('#file-form button[type="submit"]');
  await textOf(pit.locator("#message"), /less than 5 days before the scheduled start[\s\S]*2213\.06[\s\S]*cancel the tournament/, "a late filing refused");
  await textOf(pit.locator("#t-days"), /filed with the Division not yet/, "nothing recorded");
  await pit.fill('#file-form [name="filed_on"]', day(-6));
  await pit.click('#file-form button[type="submit"]');
  await textOf(pit.locator("#t-days"), new RegExp(`filed with the Division ${day(-6)}`), "the filing recorded");
  // The day was typed wrong: corrected, with the reason.
  await pit.fill('#file-form [name="filed_on"]', day(-7));
  await pit.fill('#file-form [name="corrects"]', "typed the day after the courier's receipt");
  await pit.click('#file-form button[type="submit"]');
  await textOf(pit.locator("#t-days"), new RegExp(`filed with the Division ${day(-7)}`), "the filing corrected");

  // Entries, one withdrawn before its event: refunded.
  const register = async (player) => {
    await pit.fill('#register-form [name="player"]', player);
    await pit.check('#register-form [name="qualified"]');
    await pit.click('#register-form button[type="submit"]');
    await textOf(pit.locator("#message"), new RegExp(`${player} is entered`), `${player} entered`);
  };
  for (const player of ["alice", "bob", "carol", "dave"]) await register(player);
  await pit.fill('#withdraw-form [name="entry"]', "2");
  await pit.click('#withdraw-form button[type="submit"]');
  await textOf(pit.locator("#entries"), /2\s*bob[\s\S]*withdrawn/, "bob withdrawn");

  // A table given to the Qualifier and taken back before it starts: free again.
  await pit.selectOption('#table-form [name="table"]', "t5");
  await pit.click('#table-form button[type="submit"]');
  await textOf(pit.locator("#events"), /Qualifier[^]*t5/, "t5 given to the Qualifier");
  await pit.click("#release-table");
  await textOf(pit.locator("#message"), /Qualifier has no table now/, "t5 taken back");
  await textOf(pit.locator("#events tr:first-child"), /^(?![\s\S]*t5)/, "the Qualifier has no table");
  const pitToken = await login("pit1", "pit1-secret-1");
  const tables = await call(pitToken, "/api/tables");
  assert.equal(tables.tables.find((t) => t.table === "t5").tournament ?? null, null, "t5 plays no event");

  // A value that is not one is said as typed, with why.
  const first = pit.locator("#chips-form [data-colour]").first();
  const colour = await first.getAttribute("data-colour"), kept = await first.inputValue();
  for (const [typed, why] of [["0", 'is "0", not 1 or more'], ["-5", 'is "-5", below zero'], ["2.5", 'is "2.5", not a whole number'], ["abc", 'is "abc", not a number'], ["", "is empty"]]) {
    await first.fill(typed);
    await pit.click('#chips-form button[type="submit"]');
    await textOf(pit.locator("#message"), new RegExp(`^Each colour counts a whole number of points, 1 or more: ${colour} ${why.replace(".", "\\.")}\\.$`), `the chip value "${typed}" refused`);
  }
  await first.fill(kept);
  await pit.click('#chips-form button[type="submit"]');
  await textOf(pit.locator("#message"), /chip values are posted/, "the chips' values posted (2214(2))");
  // 2213.06: the Division objects to the rules; no event starts until it is resolved.
  await pit.fill('#objection-form [name="reason"]', "the re-buy terms are missing");
  await pit.click('#objection-form button[value="record"]');
  await textOf(pit.locator("#objection"), new RegExp(`unacceptable on ${day(0)}: the re-buy terms are missing`), "the objection shown");
  await pit.click('#start-form button[type="submit"]');
  await textOf(pit.locator("#message"), /unacceptable[\s\S]*2213\.06[\s\S]*once the objection is resolved/, "the start refused while it stands");
  await pit.fill('#objection-form [name="how"]', "the Division withdrew it");
  await pit.click('#objection-form button[value="resolve"]');
  await textOf(pit.locator("#message"), /objection is resolved/, "the objection resolved");
  await pit.locator("#objection").waitFor({ state: "hidden", timeout: WAIT_MS });
  await pit.click('#start-form button[type="submit"]');
  await textOf(pit.locator("#events"), /Qualifier[^]*running/, "the Qualifier running");

  // The re-buy: once a script error (the form's `item`), now recorded.
  await pit.fill('#rebuy-form [name="entry"]', "1");
  await pit.fill('#rebuy-form [name="points"]', "0");
  await pit.click('#rebuy-form button[type="submit"]');
  await textOf(pit.locator("#message"), /Entry 1 re-bought \(reference rebuy-/, "alice re-bought");
  await textOf(pit.locator("#entries"), /1\s*alice[\s\S]*?1 · USD 100\.00/, "the re-buy on the form");
  await pit.fill('#disqualify-form [name="player"]', "carol");
  await pit.fill('#disqualify-form [name="reason"]', "played for another");
  await pit.click('#disqualify-form button[type="submit"]');
  await textOf(pit.locator("#entries"), /3\s*carol[\s\S]*disqualified/, "carol disqualified (2213.07(4))");
  // A split proposed, then refused by the director.
  await pit.fill('#end-form [name="places"]', "1");
  await pit.fill('[name="share-1"]', "82.50");
  await pit.fill('[name="share-4"]', "82.50");
  await pit.click('#end-form button[value="propose"]');
  await textOf(pit.locator("#split"), /82\.50[\s\S]*not yet/, "the split proposed");
  await pit.fill('#end-form [name="reason"]', "the players did not all agree");
  await pit.click('#end-form button[value="refuse"]');
  await textOf(pit.locator("#message"), /split is refused/, "the split refused");
  await pit.fill('#eliminate-form [name="entry"]', "4");
  await pit.click('#eliminate-form button[type="submit"]');
  await textOf(pit.locator("#entries"), /4\s*dave[\s\S]*eliminated/, "dave eliminated");
  await pit.fill('[name="points-1"]', "25000");
  await pit.click('#end-form button[value="end"]');
  await textOf(pit.locator("#payouts"), /Qualifier[\s\S]*alice/, "the Qualifier's prizes");

  // Called off before the Final: entries not played refunded, the tournament concluded.
  await pit.fill('#cancel-form [name="reason"]', "the Final's hall is closed for repairs");
  await pit.click('#cancel-form button[type="submit"]');
  await textOf(pit.locator("#t-name"), /concluded/, "the tournament concluded");
  await shot(pit, "32-tournament-cancelled-1600");

  // The forms and the printout.
  const download = pit.waitForEvent("download", { timeout: WAIT_MS });
  await pit.click("#forms-button");
  assert.match((await download).suggestedFilename(), /winter-classic-forms\.csv/);
  await pit.click("#print");
  await pit.context().close();
  await admin.context().close();
});

// Colorado-2013 2213(1): a tournament running past 31 days holds its prizes'
// value in escrow before its first event, placed by the house; the 2013
// text asks no filing of the rules with the Division (2213.06 is 2014's).
test("a 2013 tournament: no filing asked, its prizes' value placed in escrow by the admin", async () => {
  const text = await readFile(path.join(ROOT, "profiles/tournaments/autumn-2013.toml"), "utf8");
  const dayMs = 86_400_000;
  const shift = Math.round((Date.parse(`${day(7)}T00:00:00Z`) - Date.parse("2026-09-05T00:00:00Z")) / dayMs);
  const moved = text.replace(/"(\d{4}-\d{2}-\d{2})"/g, (_, d) => `"${new Date(Date.parse(`${d}T00:00:00Z`) + shift * dayMs).toISOString().slice(0, 10)}"`);
  await ask(adminToken, { op: "create_tournament", config: moved });
  const admin = await newPage("tournaments-escrow", { width: 1400, height: 1000 });
  await signIn(admin, "/tournaments?tournament=autumn-2013", "admin", "admin-secret-1");
  await textOf(admin.locator("#t-name"), /autumn-2013/, "the 2013 tournament shown");
  assert.equal(await admin.locator("#file-form").isHidden(), true, "no filing under the 2013 text");
  assert.equal(await admin.locator("#objection-form").isHidden(), true, "nor an objection");
  await textOf(admin.locator("#figures"), /not yet placed/, "the escrow owed and not placed");
  await admin.click('#escrow-form button[type="submit"]');
  await textOf(admin.locator("#message"), /prizes' value is in escrow/, "placed");
  await admin.locator("#escrow-form").waitFor({ state: "hidden", timeout: WAIT_MS });
  const figures = await admin.locator("#figures").innerText();
  assert.match(figures, /In escrow \(2213\(1\)\)\s*USD 3000\.00/, figures);
  const read = await call(adminToken, "/api/tournaments/autumn-2013");
  assert.equal(read.escrow_account, 300_000, "the ledger's escrow account holds every prize's value");
  await shot(admin, "tournament-2013-escrow");
  await admin.context().close();
});

test("the header's buttons on the tournaments page", async () => {
  const page = await newPage("tournaments-header", { width: 1400, height: 1000 });
  await signIn(page, "/tournaments", "alice", "alice-secret-1");
  await page.click("#change-password");
  await page.locator('#password-form button[type="button"]').click();
  await page.click("#change-password");
  await page.fill('#password-form [name="password"]', "alice-secret-1");
  await page.fill('#password-form [name="new_password"]', "alice-secret-2");
  await page.fill('#password-form [name="again"]', "alice-secret-2");
  await page.click('#password-form button[type="submit"]');
  await textOf(page.locator("#message"), /password is changed/, "changed");
  await page.click("#sign-out");
  await page.locator("#login-panel").waitFor({ state: "visible", timeout: WAIT_MS });
  await page.context().close();
});
