// The back office's edits and retirements on the admin's page, and the
// cage's search by name or number, in a real browser against a real
// `croupier serve` (journal format 16): each refusal is shown with what
// remains, a retired user or table leaves the lists and is shown apart,
// and every button these added is clicked here.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { WAIT_MS, start, stop, call, login, ask, newPage, signIn, textOf, shot, licenceOf, pageErrors } from "./harness.mjs";

let adminToken, cashierToken, pitToken, dealerToken;

before(async () => {
  const password = await start();
  adminToken = await login("admin", password);
  await ask(adminToken, { op: "change_password", password, new_password: "admin-secret-1" });
  for (const [username, role] of [["cash1", "cashier"], ["pit1", "pit_supervisor"], ["deal1", "dealer"], ["ann", "player"], ["bob", "player"]]) {
    await ask(adminToken, { op: "create_user", username, role, password: `${username}-secret-1`, ...licenceOf(username, role) });
  }
  cashierToken = await login("cash1", "cash1-secret-1");
  pitToken = await login("pit1", "pit1-secret-1");
  dealerToken = await login("deal1", "deal1-secret-1");
});

after(stop);

const row = (page, kind, name) => page.locator(`tr[data-${kind}="${name}"]`);
const button = (scope, id) => scope.locator(`button[data-i18n="${id}"]`);

test("the admin edits and retires users and tables, shown apart once retired", async () => {
  const mark = pageErrors.length;
  const admin = await newPage("back-office-admin");
  await signIn(admin, "/admin", "admin", "admin-secret-1");

  // A user's display name and role.
  const ann = row(admin, "user", "ann");
  await button(ann, "backoffice.edit").click();
  await ann.locator('input[type="text"]').fill("Ann Lee");
  await button(ann, "backoffice.cancel").click();
  assert.equal(await ann.locator('input[type="text"]').count(), 0, "cancelled: nothing left open");
  await button(ann, "backoffice.edit").click();
  await ann.locator('input[type="text"]').fill("Ann Lee");
  await button(ann, "backoffice.save").click();
  await textOf(admin.locator("#message"), /ann's changes are saved\./, "the display name saved");
  await textOf(row(admin, "user", "ann").locator("td").first(), /^ann \(Ann Lee\)$/, "shown beside the username");
  const deal = row(admin, "user", "deal1");
  await button(deal, "backoffice.edit").click();
  await deal.locator("select").selectOption("pit_supervisor");
  await button(deal, "backoffice.save").click();
  await textOf(admin.locator("#message"), /deal1's changes are saved; their sessions have ended/, "a new role ends the sessions");
  assert.equal((await call(adminToken, "/api/users")).users.find((u) => u.username === "deal1").role, "pit_supervisor");
  dealerToken = await login("deal1", "deal1-secret-1");

  // A player with money is not retired: the refusal names the balance.
  await ask(cashierToken, { op: "cash_in", id: "in-1", player: "bob", amount: 1_000 });
  let bob = row(admin, "user", "bob");
  await button(bob, "backoffice.retire").click();
  await button(bob, "backoffice.cancel").click();
  await button(bob, "backoffice.retire").click();
  await button(bob, "backoffice.retire-for-good").click();
  await textOf(admin.locator("#message"), /lock bob first/, "a player is retired only once locked");
  await ask(adminToken, { op: "lock_user", username: "bob" });
  await button(bob, "backoffice.retire-for-good").click();
  await textOf(admin.locator("#message"), /bob still holds wallet:bob 10\.00/, "the refusal names the wallet");
  await ask(cashierToken, { op: "cash_out", id: "out-1", player: "bob", amount: 1_000 });
  await button(bob, "backoffice.retire-for-good").click();
  await textOf(admin.locator("#message"), /bob is retired for good/, "retired");
  await row(admin, "user", "bob").waitFor({ state: "detached", timeout: WAIT_MS });
  assert.equal(await button(row(admin, "user", "admin"), "backoffice.retire").isDisabled(), true, "no one retires themselves");
  await admin.click("#show-retired-users");
  bob = row(admin, "user", "bob");
  await textOf(bob, /retired/, "shown apart");
  assert.equal(await bob.locator("button").count(), 0, "a retired account is never changed again");
  await textOf(admin.locator("#show-retired-users"), /^Show active users$/, "the toggle says what it shows next");
  await admin.click("#show-retired-users");
  await row(admin, "user", "ann").waitFor({ timeout: WAIT_MS });

  // A table's label and window; its retirement only closed.
  const t1 = row(admin, "table", "t1");
  await button(t1, "backoffice.edit").click();
  await button(t1, "backoffice.cancel").click();
  await button(t1, "backoffice.edit").click();
  await t1.locator('input[type="text"]').fill("High limit");
  await t1.locator('input[type="number"]').fill("0");
  await button(t1, "backoffice.save").click();
  await textOf(admin.locator("#message"), /whole number of seconds, 1 to 600 \(got "0"\)/, "a window out of bounds is not sent");
  await t1.locator('input[type="number"]').fill("20");
  await button(t1, "backoffice.save").click();
  await textOf(admin.locator("#message"), /Table t1's changes are saved\./, "saved");
  await textOf(row(admin, "table", "t1").locator("td").nth(1), /^High limit$/, "the label listed");
  assert.equal((await call(adminToken, "/api/tables")).tables.find((t) => t.table === "t1").betting_window_ms, 20_000);

  await ask(pitToken, { op: "inspect", table: "t2", no_magnet_or_contrivance: true, wheel_level_and_rotating_freely: true, parts_secure: true, ball_non_magnetic: true, layout_and_signage_comply: true });
  await ask(dealerToken, { op: "open_table", table: "t2" });
  const t2 = row(admin, "table", "t2");
  await button(t2, "backoffice.retire").click();
  await button(t2, "backoffice.cancel").click();
  await button(t2, "backoffice.retire").click();
  await button(t2, "backoffice.retire-for-good").click();
  await textOf(admin.locator("#message"), /table t2 is open: close it first/, "an open table is not retired");
  await ask(dealerToken, { op: "close_table", table: "t2", wheel_cover_locked: true });
  await button(t2, "backoffice.retire-for-good").click();
  await textOf(admin.locator("#message"), /Table t2 is retired for good/, "retired");
  await row(admin, "table", "t2").waitFor({ state: "detached", timeout: WAIT_MS });
  await admin.click("#show-retired-tables");
  await textOf(row(admin, "table", "t2"), /retired/, "shown apart");
  await shot(admin, "70-admin-retired-tables");
  await admin.click("#show-retired-tables");
  await row(admin, "table", "t1").waitFor({ timeout: WAIT_MS });
  const refused = await call(dealerToken, "/api/requests", { op: "open_table", table: "t2" }).catch((e) => e);
  assert.match(String(refused?.message ?? refused), /retired/, "a retired table opens no more");
  await admin.context().close();
  assert.deepEqual(pageErrors.slice(mark), [], "no script errors");
});

test("the cage finds a player by number or by the beginning of their name", async () => {
  const mark = pageErrors.length;
  const { players } = await call(cashierToken, "/api/players?q=ann");
  const number = players[0].player_id;
  const cage = await newPage("back-office-cage");
  await signIn(cage, "/cashier", "cash1", "cash1-secret-1");
  await cage.fill('#find-form [name="player"]', `#${number}`);
  await cage.click('#find-form button[type="submit"]');
  await textOf(cage.locator("#player-name"), /^ann$/, "found by number");
  await textOf(cage.locator("#player-state"), new RegExp(`No\\. ${number} · Ann Lee`), "her number and name");
  await cage.fill('#find-form [name="player"]', "Ann Lee");
  await cage.click('#find-form button[type="submit"]');
  await textOf(cage.locator("#message"), /q: a username is a-z/, "bad input explained");
  assert.equal(await cage.locator("#player").isVisible(), false, "no player left on the panel");
  // Two begin with "b"? Only bob, retired: listed to be picked, and read, never paid.
  await ask(adminToken, { op: "create_user", username: "bea", role: "player", password: "bea-secret-1" });
  await cage.fill('#find-form [name="player"]', "b");
  await cage.click('#find-form button[type="submit"]');
  await textOf(cage.locator("#matches"), /Found 2 players: pick one\.[\s\S]*bea[\s\S]*bob[\s\S]*retired: no money moves/, "the matches, retired marked");
  await cage.click('#matches button[data-player="bob"]');
  await textOf(cage.locator("#player-state"), /retired: no money moves/, "the retired player's state");
  assert.equal(await cage.locator("#forms").isVisible(), false, "no money moves to a retired player");
  await cage.fill('#find-form [name="player"]', "zed");
  await cage.click('#find-form button[type="submit"]');
  await textOf(cage.locator("#message"), /There is no player "zed", by name or number\./, "none found");
  await cage.context().close();
  assert.deepEqual(pageErrors.slice(mark), [], "no script errors");
});
