// Game integrity monitoring on the pit's console, in a real browser against
// a real `croupier serve`: a table whose ball finds 17 every spin has no
// look before 1,000 results, then at the first look every test alarms; the
// pit sees the alarm at the top of its console and in the table's report,
// the tests' table, the pockets plotted in wheel order with 17 marked, the
// distances and the looks.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import path from "node:path";
import { readFile } from "node:fs/promises";
import { ROOT, WAIT_MS, start, stop, call, login, ask, newPage, signIn, textOf, shot } from "./harness.mjs";

let pitToken, dealerToken;

before(async () => {
  const password = await start();
  const admin = await login("admin", password);
  await ask(admin, { op: "change_password", password, new_password: "admin-secret-1" });
  for (const [username, role, licence] of [["dealer1", "dealer", "D-1001"], ["pit1", "pit_supervisor", "P-2001"]]) {
    await ask(admin, { op: "create_user", username, role, password: `${username}-secret-1`, licence });
  }
  pitToken = await login("pit1", "pit1-secret-1");
  dealerToken = await login("dealer1", "dealer1-secret-1");
  // The casino plays in one currency, its first table's (USD).
  const profile = (await readFile(path.join(ROOT, "profiles", "european-casino.toml"), "utf8")).replace('currency = "EUR"', 'currency = "USD"');
  await ask(admin, { op: "create_table", table: "g1", profile_text: profile, wheel: "single-zero", in_prison: false, betting_window_ms: 600_000, outcome: "dealer" });
  await ask(pitToken, { op: "inspect", table: "g1", no_magnet_or_contrivance: true, wheel_level_and_rotating_freely: true, parts_secure: true, ball_non_magnetic: true, layout_and_signage_comply: true });
  await ask(dealerToken, { op: "open_table", table: "g1" });
  await ask(dealerToken, { op: "open_betting", table: "g1" });
});

after(stop);

// `n` rounds at g1 from its betting open, each ending in `pocket`; the
// betting of the next opens, which makes each round's record final for the
// archive the monitor reads.
async function play(n, pocket) {
  for (let i = 0; i < n; i++) {
    await ask(dealerToken, { op: "no_more_bets", table: "g1" });
    await ask(dealerToken, { op: "spin", table: "g1", spin: { pocket, direction: "opposite", revolutions: 10 } });
    await ask(dealerToken, { op: "open_betting", table: "g1" });
  }
}

// Waits until the monitor has counted `spins` results (the archiver writes
// finished rounds a moment after they are durable).
async function counted(spins) {
  const deadline = Date.now() + WAIT_MS;
  let seen = null;
  while (Date.now() < deadline) {
    seen = await call(pitToken, "/api/tables/g1/integrity");
    if (seen.spins >= spins) return seen;
    await new Promise((r) => setTimeout(r, 100));
  }
  assert.fail(`the monitor counted ${seen?.spins} results, not ${spins}`);
}

test("a ball that always finds 17 raises the integrity alarm on the pit's console", async () => {
  const pit = await newPage("integrity-pit");
  await signIn(pit, "/pit?table=g1", "pit1", "pit1-secret-1", "P-2001");
  await textOf(pit.locator("#integrity-summary"), /^0 results counted from 0 rounds/, "nothing counted yet");
  await textOf(pit.locator("#integrity-looks"), /No look yet: the first comes at 1,000 results/, "no look before 1,000 results");
  assert.equal(await pit.locator("#integrity-alert").isHidden(), true, "no alarm before any result");

  // 999 results: one short of the first look, so no alarm however they fall.
  await play(999, "17");
  await counted(999);
  await pit.reload();
  await textOf(pit.locator("#integrity-summary"), /^999 results counted from 999 rounds .*next look at 1,000 results/, "999 counted");
  assert.equal(await pit.locator("#integrity-alert").isHidden(), true, "no alarm before the first look");
  assert.equal(await pit.locator('#integrity-tests tr[data-test="pocket"]').getAttribute("data-alarm"), "false");

  await play(1, "17");
  const v = await counted(1_000);
  assert.deepEqual(v.alarms.map((a) => a.test), ["pockets", "pocket", "sectors", "signature"]);
  const report = await call(pitToken, "/api/tables/g1/report");
  assert.deepEqual(report.integrity.alarms.map((a) => [a.test, a.spins, a.look]), v.alarms.map((a) => [a.test, 1_000, 0]));

  // The page reads the table again on the table's next event.
  await ask(dealerToken, { op: "no_more_bets", table: "g1" });
  const alert = pit.locator("#integrity-alert");
  await alert.waitFor({ state: "visible", timeout: WAIT_MS });
  await textOf(pit.locator('#integrity-alarms li[data-test="pocket"]'), /pocket 17 came up 1000 times in 1000 results, more than the 27\.0 a fair wheel gives/, "the pocket's alarm");
  await textOf(pit.locator('#integrity-alarms li[data-test="signature"]'), /round 1000\b.*distance from the previous pocket is not uniform/, "the signature's alarm");
  for (const t of ["pockets", "pocket", "sectors", "signature"]) {
    assert.equal(await pit.locator(`#integrity-tests tr[data-test="${t}"]`).getAttribute("data-alarm"), "true", `${t} alarmed`);
    assert.equal(await pit.locator(`#integrity-looks polyline[data-test="${t}"]`).count(), 1, `${t} plotted`);
  }
  // The pockets in wheel order, 17 marked with the 1,000 results.
  const bar17 = pit.locator('#integrity-pockets rect[data-label="17"]');
  assert.equal(await bar17.getAttribute("class"), "arc");
  assert.equal(await bar17.getAttribute("data-count"), "1000");
  assert.equal(await pit.locator("#integrity-pockets rect").count(), 37);
  assert.equal(await pit.locator('#integrity-distances rect[data-label="0"]').getAttribute("data-count"), "999");
  await shot(pit, "integrity-alarm");
  // The alarm and the section alone, for a reader of the screenshots.
  for (const part of ["integrity-alert", "integrity"]) {
    await pit.locator(`#${part}`).screenshot({ path: path.join(ROOT, "target/web-screenshots", `${part}-section.png`) });
  }
});
