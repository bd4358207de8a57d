// A cashier's drawer balanced at shift end and a mistaken cash-in voided by
// the pit, in a real browser against a real `croupier serve` (journal
// format 15; house practice): the cage's page shows what the drawer should
// hold, the pit voids on the same page with a reason, and the count shows
// its difference, never hidden. Every button these added is clicked here.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { WAIT_MS, start, stop, call, login, ask, newPage, signIn, textOf, shot, licenceOf, pageErrors } from "./harness.mjs";

let cashierToken;

before(async () => {
  const password = await start();
  const adminToken = await login("admin", password);
  await ask(adminToken, { op: "change_password", password, new_password: "admin-secret-1" });
  for (const [username, role] of [["cash1", "cashier"], ["pit1", "pit_supervisor"], ["ann", "player"]]) {
    await ask(adminToken, { op: "create_user", username, role, password: `${username}-secret-1`, ...licenceOf(username, role) });
  }
  cashierToken = await login("cash1", "cash1-secret-1");
});

after(stop);

const wallet = async () => (await call(cashierToken, "/api/players/ann/accounts")).accounts["wallet:ann"] ?? 0;

test("the pit voids a mistaken cash-in and the cashier's count shows its difference", async () => {
  const mark = pageErrors.length;
  await ask(cashierToken, { op: "cash_in", id: "in-1", player: "ann", amount: 50_000 });
  await ask(cashierToken, { op: "cash_out", id: "out-1", player: "ann", amount: 12_000 });
  await ask(cashierToken, { op: "cash_in", id: "in-2", player: "ann", amount: 7_000 });

  const cage = await newPage("drawer-cage");
  await signIn(cage, "/cashier", "cash1", "cash1-secret-1");
  await textOf(cage.locator("#drawer-expected"), /^USD 450\.00$/, "in 500.00 + 70.00 less out 120.00");
  assert.equal(await cage.locator("#void-panel").isVisible(), false, "a cashier voids nothing");

  // The pit voids the mistaken 70.00 on the cage's page.
  const pit = await newPage("drawer-pit");
  await signIn(pit, "/cashier", "pit1", "pit1-secret-1");
  assert.equal(await pit.locator("#drawer-panel").isVisible(), false, "the pit keeps no drawer");
  await pit.fill('#void-form [name="transaction"]', "in-2");
  await pit.click('#void-form button[type="submit"]');
  await textOf(pit.locator("#message"), /reason for voiding/, "a void without a reason is not sent");
  await pit.fill('#void-form [name="reason"]', "typed twice");
  await pit.click('#void-form button[type="submit"]');
  await textOf(pit.locator("#message"), /in-2 voided .*typed twice/, "the void");
  assert.equal(await wallet(), 38_000, "the reverse transfer, once");

  await cage.reload();
  await textOf(cage.locator('#done tr[data-reference="in-2"]'), /Cash in, voided by pit1: typed twice/, "the voided cash-in, by whom and why");
  await textOf(cage.locator("#drawer-expected"), /^USD 380\.00$/, "the drawer follows the void");

  // The count at shift end: 10.00 short, shown.
  await cage.fill('#drawer-form [name="amount"]', "370.00");
  await cage.click('#drawer-form button[type="submit"]');
  await textOf(cage.locator("#message"), /Drawer counted: USD 370\.00, should hold USD 380\.00, short USD 10\.00/, "the count beside the record");
  await textOf(cage.locator("#done tr").first(), /Drawer count: should hold USD 380\.00, short USD 10\.00/, "the count listed with its difference");
  await textOf(cage.locator("#drawer-expected"), /^USD 0\.00$/, "the next shift begins at nothing");
  assert.equal(await cage.inputValue('#drawer-form [name="amount"]'), "", "the count form is reset");
  const record = await call(cashierToken, "/api/cage/transactions");
  assert.deepEqual(record.transactions.filter((t) => t.kind === "drawer_count").map((t) => [t.amount, t.expected, t.difference]), [[37_000, 38_000, -1_000]]);
  await shot(cage, "62-cage-drawer");
  await cage.context().close();
  await pit.context().close();
  assert.deepEqual(pageErrors.slice(mark), [], "no script errors");
});
