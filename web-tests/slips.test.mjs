// Fill and credit slips and float counts in a real browser against a real
// `croupier serve` (journal format 15; house practice): the pit asks for a
// slip and voids one, the cashier signs on the cage's page and only then
// the float moves, and the pit's counts show their difference with the
// ledger. Every button these added is clicked here.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import path from "node:path";
import { readFile } from "node:fs/promises";
import { ROOT, WAIT_MS, start, stop, call, login, ask, newPage, signIn, textOf, shot, licenceOf, pageErrors } from "./harness.mjs";

let adminToken, pitToken;

before(async () => {
  const password = await start();
  adminToken = await login("admin", password);
  await ask(adminToken, { op: "change_password", password, new_password: "admin-secret-1" });
  for (const [username, role] of [["cash1", "cashier"], ["pit1", "pit_supervisor"]]) {
    await ask(adminToken, { op: "create_user", username, role, password: `${username}-secret-1`, ...licenceOf(username, role) });
  }
  pitToken = await login("pit1", "pit1-secret-1");
  await ask(adminToken, {
    op: "create_table", table: "s1", profile_text: await readFile(path.join(ROOT, "profiles/colorado-2014.toml"), "utf8"),
    wheel: "single-zero", in_prison: false, betting_window_ms: 600_000, outcome: "dealer",
  });
});

after(stop);

const float = async () => (await call(pitToken, "/api/tables/s1/report")).accounts.float;
const slipIds = async () => (await call(pitToken, "/api/tables/s1/report")).slips.map((s) => s.id);

test("the pit asks, the cage signs, the float moves once; a void and the counts show on the report", async () => {
  const mark = pageErrors.length;
  const pit = await newPage("slips-pit");
  await signIn(pit, "/pit?table=s1", "pit1", "pit1-secret-1", "P-2002");
  await pit.locator("#slip-form").waitFor({ timeout: WAIT_MS });

  // The opening count of an empty float: no difference.
  await pit.selectOption('#count-form [name="when"]', "opening");
  await pit.fill('#count-form [name="amount"]', "0.00");
  await pit.click('#count-form button[type="submit"]');
  await textOf(pit.locator("#message"), /Float counted at opening: USD 0\.00 at s1/, "the opening count, from what was sent");
  await textOf(pit.locator("#counts tr"), /opening.*USD 0\.00USD 0\.00USD 0\.00$/, "the count beside the ledger's float");
  assert.equal(await pit.inputValue('#count-form [name="amount"]'), "", "the count form is reset");

  // A fill of 500.00: asked, nothing moves yet.
  await pit.selectOption('#slip-form [name="kind"]', "fill");
  await pit.fill('#slip-form [name="amount"]', "500.00");
  await pit.click('#slip-form button[type="submit"]');
  await textOf(pit.locator("#message"), /Fill slip of USD 500\.00 at s1 requested: the cashier signs it next/, "the fill asked for");
  assert.equal(await pit.inputValue('#slip-form [name="amount"]'), "", "the slip form is reset");
  await textOf(pit.locator("#slips tr"), /fillUSD 500\.00open/, "the open slip listed");
  assert.equal(await float(), 0, "no money on the pit's signature alone");
  const [fillId] = await slipIds();

  // A second fill, voided with its reason.
  await pit.fill('#slip-form [name="amount"]', "20.00");
  await pit.click('#slip-form button[type="submit"]');
  await textOf(pit.locator("#message"), /Fill slip of USD 20\.00/, "the second fill asked for");
  const ids = await slipIds();
  const voidId = ids.find((id) => id !== fillId);
  const row = pit.locator(`#slips tr[data-slip="${voidId}"]`);
  await row.locator('[name="void-reason"]').waitFor({ timeout: WAIT_MS });
  await row.locator("button[data-void]").click();
  await textOf(pit.locator("#message"), /reason for voiding/, "a void without a reason is not sent");
  await row.locator('[name="void-reason"]').fill("asked twice");
  await row.locator("button[data-void]").click();
  await textOf(pit.locator("#message"), new RegExp(`Slip ${voidId} \\(fill of USD 20\\.00\\) voided: asked twice`), "the void");
  await textOf(pit.locator(`#slips tr[data-slip="${voidId}"]`), /voided.*asked twice/, "the voided slip, with its reason");

  // The cashier signs the open one: the float holds it, once.
  const cage = await newPage("slips-cage");
  await signIn(cage, "/cashier", "cash1", "cash1-secret-1");
  const waiting = cage.locator(`#slips tr[data-slip="s1/${fillId}"]`);
  await textOf(waiting, /s1.*fillUSD 500\.00pit1 \(P-2002\)/, "the slip waiting for the cage");
  assert.equal(await cage.locator(`#slips tr[data-slip="s1/${voidId}"]`).count(), 0, "no voided slip to sign");
  await waiting.locator("button").click();
  await textOf(cage.locator("#message"), new RegExp(`Fill slip ${fillId} of USD 500\\.00 at s1 signed`), "the signature");
  await textOf(cage.locator("#slips"), /No slip is waiting/, "nothing left to sign");
  assert.equal(await float(), 50_000);

  // A credit of 200.00, signed on the cage's page read again.
  await pit.selectOption('#slip-form [name="kind"]', "credit");
  await pit.fill('#slip-form [name="amount"]', "200.00");
  await pit.click('#slip-form button[type="submit"]');
  await textOf(pit.locator("#message"), /Credit slip of USD 200\.00 at s1 requested/, "the credit asked for");
  await cage.reload();
  await cage.locator("#slips button").click();
  await textOf(cage.locator("#message"), /Credit slip .* of USD 200\.00 at s1 signed: the float's chips are back in the cage/, "the credit signed");
  assert.equal(await float(), 30_000);

  // The closing count is 1.00 short: shown, never hidden.
  await pit.selectOption('#count-form [name="when"]', "closing");
  await pit.fill('#count-form [name="amount"]', "299.00");
  await pit.click('#count-form button[type="submit"]');
  await textOf(pit.locator('#counts tr[data-count]').last(), /closing.*USD 299\.00USD 300\.00short USD 1\.00$/, "the difference");
  const report = await call(pitToken, "/api/tables/s1/report");
  assert.equal(report.books.fills, 50_000);
  assert.equal(report.books.credits, 20_000);
  assert.deepEqual(report.float_counts.map((c) => c.difference), [0, -100]);
  await textOf(pit.locator('#books [data-figure="fills"]'), /^USD 500\.00$/, "the fills in the books");
  await textOf(pit.locator('#books [data-figure="credits"]'), /^USD 200\.00$/, "the credits in the books");
  await shot(pit, "60-pit-slips");
  await shot(cage, "61-cage-slips");
  await pit.context().close();
  await cage.context().close();
  assert.deepEqual(pageErrors.slice(mark), [], "no script errors");
});
