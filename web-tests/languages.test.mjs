// The pages in the casino's language (issue 58 item 5): a player's terminal
// and a number display switched to Russian, their words, money in the
// Russian form, a refusal in Russian with the server's English beneath, and
// the choice kept across a reload. A real `croupier serve` and Debian's
// Chromium, as in terminals.test.mjs.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import path from "node:path";
import { readFile } from "node:fs/promises";
import { ROOT, WAIT_MS, base, pageErrors, start, stop, login, ask, newPage, signIn, textOf, shot, licenceOf } from "./harness.mjs";

let adminToken, pitToken, dealerToken;

before(async () => {
  const password = await start();
  adminToken = await login("admin", password);
  await ask(adminToken, { op: "change_password", password, new_password: "admin-secret-1" });
  for (const [username, role] of [["dealer1", "dealer"], ["pit1", "pit_supervisor"], ["cash1", "cashier"], ["olga", "player"]]) {
    await ask(adminToken, { op: "create_user", username, role, password: `${username}-secret-1`, ...licenceOf(username, role) });
  }
  pitToken = await login("pit1", "pit1-secret-1");
  dealerToken = await login("dealer1", "dealer1-secret-1");
  const cashier = await login("cash1", "cash1-secret-1");
  await ask(cashier, { op: "cash_in", id: "cash-olga", player: "olga", amount: 123_450 });
  await ask(adminToken, {
    op: "create_table", table: "ru1", profile_text: await readFile(path.join(ROOT, "profiles", "colorado-2014.toml"), "utf8"),
    wheel: "single-zero", in_prison: false, betting_window_ms: 600_000, outcome: "dealer",
  });
  await ask(pitToken, { op: "inspect", table: "ru1", no_magnet_or_contrivance: true, wheel_level_and_rotating_freely: true, parts_secure: true, ball_non_magnetic: true, layout_and_signage_comply: true });
  await ask(dealerToken, { op: "open_table", table: "ru1" });
});

after(stop);

test("a player's terminal in Russian: its words, money in the Russian form, a refusal, kept across a reload", async () => {
  const page = await newPage("terminal-ru");
  await page.goto(`${base}/terminal?table=ru1`);
  await textOf(page.locator("#login-panel h2"), /^Sign in$/, "the sign-in form in English first");
  await page.selectOption("#lang-select", "ru");
  await page.waitForLoadState("load");
  await textOf(page.locator("#login-panel h2"), /^Войти$/, "the sign-in form in Russian");
  assert.equal(await page.locator("html").getAttribute("lang"), "ru");
  // A refusal: the code's sentence in Russian, the server's English beneath.
  await page.fill('#login-form [name="username"]', "olga");
  await page.fill('#login-form [name="password"]', "not-her-password");
  await page.click('#login-form button[type="submit"]');
  await textOf(page.locator("#message"), /^Вход не выполнен или сеанс завершён\./, "the refusal in Russian");
  const detail = await page.locator("#message small.detail").textContent();
  assert.match(detail, /[a-z]{3,}/, "the server's English under the refusal");
  assert.doesNotMatch(detail, /[а-я]/i);
  await page.fill('#login-form [name="password"]', "olga-secret-1");
  await page.click('#login-form button[type="submit"]');
  await page.locator("#login-panel").waitFor({ state: "hidden", timeout: WAIT_MS });
  await textOf(page.locator("#seat-panel h2"), /^Ваше место$/, "the seat's title");
  await textOf(page.locator("#sign-out"), /^Выйти$/, "the header's sign-out");
  await textOf(page.locator("#phase"), /^Ожидание следующего раунда$/, "the table's phase in the header");
  // 1 234,50 $: a space (narrow or not) between the thousands, a comma before the cents.
  await textOf(page.locator("#wallet"), /^1\s234,50\s\$$/, "the wallet in the Russian form");
  await textOf(page.locator("#undo"), /^Отменить$/, "the undo button");
  // The layout's heading: the wheel in Russian words, the profile's title its own.
  await textOf(page.locator("#wheel-name"), /^· колесо с одним зеро \(37 ячеек: 0 и 1-36\) · Colorado Rule 22/, "the wheel in Russian");
  assert.equal(await page.locator("#undo").getAttribute("title"), "Снять последнюю ставку (U)");
  await shot(page, "languages-terminal-ru");
  await page.reload();
  await textOf(page.locator("#seat-panel h2"), /^Ваше место$/, "Russian after a reload");
  await textOf(page.locator("#wallet"), /^1\s234,50\s\$$/, "the wallet after a reload");
  assert.equal(await page.locator("#lang-select").inputValue(), "ru");
  // Back to English, for this user too.
  await page.selectOption("#lang-select", "en");
  await page.waitForLoadState("load");
  await textOf(page.locator("#seat-panel h2"), /^Your seat$/, "English again");
  await textOf(page.locator("#wallet"), /^USD 1234\.50$/, "the wallet in the casino's English form");
  assert.deepEqual(pageErrors, []);
});

test("a signed-in player's choice is kept under their name as well as for the browser", async () => {
  const page = await newPage("terminal-user-ru");
  await signIn(page, "/terminal?table=ru1", "olga", "olga-secret-1");
  await textOf(page.locator("#seat-panel h2"), /^Your seat$/, "English, the browser's language");
  await page.selectOption("#lang-select", "ru");
  await textOf(page.locator("#seat-panel h2"), /^Ваше место$/, "Russian, chosen");
  const keys = await page.evaluate(() => Object.keys(localStorage).filter((k) => k.startsWith("croupier.lang")).sort());
  assert.deepEqual(keys, ["croupier.lang", "croupier.lang.user.olga"]);
  assert.equal(await page.evaluate(() => localStorage.getItem("croupier.lang.user.olga")), "ru");
  assert.deepEqual(pageErrors, []);
});

test("a number display in Russian keeps its language in its address, like its table", async () => {
  const board = await newPage("board-ru");
  await board.goto(`${base}/board?table=ru1`);
  await textOf(board.locator("h2[data-i18n='board.hot']"), /^Hot numbers$/, "the board in English first");
  await board.selectOption("#lang-select", "ru");
  await board.waitForURL(/lang=ru/);
  await textOf(board.locator("h2[data-i18n='board.hot']"), /^Горячие номера$/, "the board in Russian");
  await textOf(board.locator("#state"), /^(Ставки принимаются|Делайте ваши ставки|Ожидание следующего раунда)$/, "the table's state in Russian");
  await textOf(board.locator("#wheel"), /^колесо с одним зеро \(37 ячеек: 0 и 1-36\)$/, "the wheel in Russian words");
  assert.match(board.url(), /table=ru1/);
  assert.match(board.url(), /lang=ru/);
  await textOf(board.locator("#sign"), /Ставки внутри поля|Внешние ставки|Лимиты этого стола не вывешены/, "the table sign in Russian");
  // Colorado 2207's tips rule, as the profile posts it, in Russian.
  await textOf(board.locator("#sign"), /Чаевые крупье — целые фишки, опущенные в ящик для чаевых; ставки за крупье не делаются \(2207\)\./, "the tips rule in Russian");
  // The spins counted take Russian's plural form: 1 спин, 2 спина, 5 спинов.
  const title = await board.locator("#stats-title").textContent();
  const n = Number(/\d+/.exec(title)?.[0]);
  const word = { one: "спин", few: "спина", many: "спинов", other: "спина" }[new Intl.PluralRules("ru").select(n)];
  assert.match(title, new RegExp(`^За последни?[йе] ${n} ${word}$`), `the spins' count said in Russian: ${title}`);
  await shot(board, "languages-board-ru");
  await board.reload();
  await textOf(board.locator("h2[data-i18n='board.hot']"), /^Горячие номера$/, "Russian after a reload");
  // The address says it, whatever this browser chose last.
  const other = await newPage("board-address");
  await other.goto(`${base}/board?table=ru1&lang=ru`);
  await textOf(other.locator("#state"), /[а-я]/, "a new browser on the Russian address");
  assert.deepEqual(pageErrors, []);
});

// The terminal's script speaks Russian too: a bet said back in Russian words
// with its amount in the Russian form, and the round's total likewise.
test("a player's bet on the terminal is said in Russian, its money in the Russian form", async () => {
  await ask(dealerToken, { op: "open_betting", table: "ru1" });
  const page = await newPage("terminal-bet-ru");
  await signIn(page, "/terminal?table=ru1&lang=ru", "olga", "olga-secret-1");
  await textOf(page.locator("#seat-panel h2"), /^Ваше место$/, "the seat's title");
  await page.fill('#buy-in-form [name="amount"]', "100");
  await page.click('#buy-in-form button[type="submit"]');
  await textOf(page.locator("#message"), /^Фишки куплены на 100,00\s\$ \(номер buyin-[0-9a-f]+\)\.$/, "the buy-in said in Russian");
  await page.locator("#buy-in-form").waitFor({ state: "hidden", timeout: WAIT_MS });
  await page.locator('#felt [data-spot="red"]').click();
  await textOf(page.locator("#message"), /^Ставка 5,00\s\$ на красное\.$/, "the bet said in Russian");
  await textOf(page.locator("#my-total"), /^5,00\s\$$/, "the round's total in the Russian form");
  await textOf(page.locator('#my-bets tr[data-spot="red"] td').first(), /^красное$/, "the spot in Russian words");
  assert.deepEqual(pageErrors, []);
});

// The dealer's console in Russian: its headings, and the round's bets with
// their total in the Russian form (after the bet above).
test("a dealer's console in Russian: its headings and the round's bets", async () => {
  const page = await newPage("dealer-ru");
  await signIn(page, "/dealer?table=ru1&lang=ru", "dealer1", "dealer1-secret-1", licenceOf("dealer1", "dealer").licence);
  await textOf(page.locator("h2[data-i18n='dealer.bets-this-round']"), /^Ставки этого раунда$/, "a heading in Russian");
  await textOf(page.locator("#open-betting"), /^Начать раунд \(открыть ставки\)$/, "a button in Russian");
  await textOf(page.locator("#bets-summary"), /^1 ставка на 5,00\s\$ от 1 игрока\.$/, "the round's bets in Russian, money in the Russian form");
  await textOf(page.locator("#phase"), /^Раунд \d+: /, "the round's state in Russian");
  await shot(page, "languages-dealer-ru");
  assert.deepEqual(pageErrors, []);
});

test("an address naming no language, only what every object inherits, is read as none", async () => {
  for (const lang of ["constructor", "__proto__", "toString"]) {
    const board = await newPage(`board-lang-${lang}`);
    await board.goto(`${base}/board?table=ru1&lang=${lang}`);
    await textOf(board.locator("h2[data-i18n='board.hot']"), /^Hot numbers$/, `?lang=${lang} shows English`);
    assert.equal(await board.evaluate(() => document.documentElement.lang), "en", `?lang=${lang} is no language`);
    assert.equal(await board.locator("#lang-select").inputValue(), "en", `the picker says English for ?lang=${lang}`);
    await board.context().close();
  }
  assert.deepEqual(pageErrors, []);
});
