// The staff's pages in Russian (issue 58 item 5): the pit's console, the
// cage, the day report, the admin's page and the tournament desk, each
// opened in Russian, show Russian words in every heading, label, button,
// table header, note and option (no English left in their chrome beyond
// names and the rule documents' citations), and money in the Russian form
// ("1 500,00 $"). A real `croupier serve` and Debian's Chromium, as in
// languages.test.mjs.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import path from "node:path";
import { readFile } from "node:fs/promises";
import { ROOT, WAIT_MS, start, stop, login, ask, newPage, signIn, textOf, shot, licenceOf, pageErrors } from "./harness.mjs";

let adminPassword;

before(async () => {
  const password = await start();
  const adminToken = await login("admin", password);
  adminPassword = "admin-secret-1";
  await ask(adminToken, { op: "change_password", password, new_password: adminPassword });
  for (const [username, role] of [["pit1", "pit_supervisor"], ["cash1", "cashier"], ["olga", "player"]]) {
    await ask(adminToken, { op: "create_user", username, role, password: `${username}-secret-1`, ...licenceOf(username, role) });
  }
  await ask(adminToken, {
    op: "create_table", table: "ru1", profile_text: await readFile(path.join(ROOT, "profiles", "colorado-2014.toml"), "utf8"),
    wheel: "single-zero", in_prison: false, betting_window_ms: 600_000, outcome: "dealer",
  });
  const cashier = await login("cash1", "cash1-secret-1");
  await ask(cashier, { op: "cash_in", id: "cash-olga", player: "olga", amount: 123_450 });
});

after(stop);

// Words that stay as they are in any language: the system's name, the
// currency's code and time zone's, a file's format (CSV), the rule
// documents cited, the bonus games' own names, and a reference's id
// (`dispute-25114187bbb1…`).
const KEPT = /\b[a-z]+-[0-9a-f]{8,}\b|\b(croupier|USD|UTC|CSV|Colorado|Maryland|european-casino|ch|match play|low-limit house|Bonus Spin Xtreme|Roulette X)\b/g;

// The chrome of the page under `scope` that is shown: headings, labels,
// buttons, table headers, notes, options, the books' names and the
// pills, each one's words with the kept ones taken out. Whatever holds
// three Latin letters in a row is English left.
async function englishLeft(page, scope, skip = []) {
  return page.evaluate(({ scope, skip, kept }) => {
    const KEPT = new RegExp(kept, "gi");
    const root = document.querySelector(scope);
    const shown = (n) => n.checkVisibility?.() ?? Boolean(n.offsetParent);
    const found = [];
    const nodes = root.querySelectorAll("h1, h2, h3, th, label, legend, summary, button, dt, .pill, p.note, [data-i18n], select:not(#lang-select) option");
    for (const n of nodes) {
      if (skip.some((s) => n.closest(s))) continue;
      if (n.tagName === "OPTION" ? !shown(n.parentElement) : !shown(n)) continue;
      // A label's own words, not those of the field it labels (a select's options are checked as options).
      const own = n.tagName === "LABEL" ? n.cloneNode(true) : null;
      own?.querySelectorAll("select, input, textarea").forEach((f) => f.remove());
      const words = (own ? own.textContent : n.tagName === "OPTION" ? n.textContent : n.innerText).replace(KEPT, "");
      if (/[A-Za-z]{3,}/.test(words)) found.push(`<${n.tagName.toLowerCase()}${n.id ? `#${n.id}` : ""}> ${words.trim().slice(0, 80)}`);
    }
    for (const n of root.querySelectorAll("[placeholder]")) {
      if (shown(n) && !skip.some((s) => n.closest(s)) && /[A-Za-z]{3,}/.test(n.getAttribute("placeholder"))) found.push(`placeholder "${n.getAttribute("placeholder")}"`);
    }
    return found;
  }, { scope, skip, kept: KEPT.source });
}

// Money in the Russian form: a space (narrow or not) between the thousands, a comma before the cents.
const RU_MONEY = /1\s500,00\s\$/;

test("the pit's console in Russian: its chrome, a fill asked for, money in the Russian form", async () => {
  const page = await newPage("pit-ru");
  await signIn(page, "/pit?table=ru1", "pit1", "pit1-secret-1", licenceOf("pit1", "pit_supervisor").licence);
  // English first, its words as they were; then Russian, chosen in the header.
  await textOf(page.locator("h2[data-i18n='pit.inspection-title']"), /^Inspection before opening$/, "a heading in English");
  await textOf(page.locator("#phase"), /^Round \d+: Table closed · not inspected$/, "the table's state in English");
  await page.selectOption("#lang-select", "ru");
  await page.waitForLoadState("load");
  await textOf(page.locator("h2[data-i18n='pit.inspection-title']"), /^Осмотр перед открытием$/, "a heading in Russian");
  await page.selectOption('#slip-form [name="kind"]', "fill");
  await page.fill('#slip-form [name="amount"]', "1500.00");
  await page.click('#slip-form button[type="submit"]');
  await textOf(page.locator("#message"), /^Запрошена квитанция пополнения на 1\s500,00\s\$ за столом ru1: следующим её подписывает кассир \(номер slip-[0-9a-f]+\)\.$/, "the fill said in Russian");
  await textOf(page.locator("#slips tr"), new RegExp(`пополнение${RU_MONEY.source}открыта`), "the slip's row in Russian");
  await textOf(page.locator('#books dd[data-figure="float_open"]'), /^0,00\s\$$/, "the books' money in the Russian form");
  await textOf(page.locator("#phase"), /^Раунд \d+: Стол закрыт · не осмотрен$/, "the table's state in Russian");
  // The game integrity tests the server names, said in Russian.
  await textOf(page.locator("#integrity-tests"), /ячейки.*хи-квадрат по числу выпадений/s, "the integrity tests in Russian");
  // Profile data (its title, its own notice) is the profile's, in its language.
  assert.deepEqual(await englishLeft(page, "main", ["#profile-line", "#chips-note", "#rules"]), [], "no English left in the pit's chrome");
  await shot(page, "languages-pit-ru");
  assert.deepEqual(pageErrors, []);
});

test("the cage in Russian: its chrome, a cash-in and its receipt, the pit's fill signed, money in the Russian form", async () => {
  const page = await newPage("cage-ru");
  await signIn(page, "/cashier?lang=ru", "cash1", "cash1-secret-1");
  await textOf(page.locator("h2[data-i18n='cashier.slips-title']"), /^Квитанции, ждущие подписи кассы$/, "a heading in Russian");
  await page.fill('#find-form [name="player"]', "olga");
  await page.click('#find-form button[type="submit"]');
  await textOf(page.locator('#accounts tr[data-account="wallet:olga"]'), /^Кошелёк1\s234,50\s\$$/, "the wallet in Russian, its money in the Russian form");
  await page.fill('#cash-form [name="amount"]', "1500.00");
  await page.click('#cash-form button[name="in"]');
  await textOf(page.locator("#message"), new RegExp(`^Внесено ${RU_MONEY.source} для игрока olga \\(номер cash-[0-9a-f]+\\)\\.$`), "the cash-in said in Russian");
  await textOf(page.locator("#receipt"), new RegExp(`Взнос${RU_MONEY.source}[\\s\\S]*Номер чека · номер операции[\\s\\S]*В кошельке сейчас2\\s734,50\\s\\$`), "the receipt in Russian");
  await textOf(page.locator("#done tr").first(), new RegExp(`olgaВзнос${RU_MONEY.source}`), "the day's record in Russian");
  // The fill the pit asked for above, signed here.
  await page.locator("#slips button").click();
  await textOf(page.locator("#message"), new RegExp(`^Квитанция пополнения slip-[0-9a-f]+ на ${RU_MONEY.source} за столом ru1 подписана: фишки в кассе стола\\.$`), "the signature said in Russian");
  await textOf(page.locator("#slips"), /^Ни одна квитанция не ждёт подписи\.$/, "no slip left, said in Russian");
  // A table's option names the table and its profile's id: names, in any language.
  assert.deepEqual(await englishLeft(page, "main", ["#coupon-table"]), [], "no English left in the cage's chrome");
  await shot(page, "languages-cage-ru");
  assert.deepEqual(pageErrors, []);
});

test("the day report in Russian: its chrome, the day's fill in the Russian form", async () => {
  const page = await newPage("report-ru");
  await signIn(page, "/report?lang=ru", "pit1", "pit1-secret-1");
  await textOf(page.locator("#title"), /^Игровой день казино \d{4}-\d\d-\d\d$/, "the title in Russian");
  // The fill the cage signed above.
  await textOf(page.locator('#tables tr[data-row="Casino"] td').first(), /^Казино$/, "the casino's row in Russian");
  await textOf(page.locator('#tables tr[data-row="Casino"] [data-fills]'), RU_MONEY, "the fills in the Russian form");
  await textOf(page.locator('#tables tr[data-row="ru1"] [data-open]'), /^\d+ ч \d\d мин$/, "the open play in Russian");
  await textOf(page.locator("#day-words"), /^Игровой день длится с /, "the gaming day's span in Russian");
  assert.equal(await page.locator('#tables tr[data-row="Casino"] [data-fills]').getAttribute("data-label"), "Пополнения", "a phone's label in Russian");
  assert.deepEqual(await englishLeft(page, "main"), [], "no English left in the report's chrome");
  await shot(page, "languages-report-ru");
  assert.deepEqual(pageErrors, []);
});

test("the admin's page in Russian: its chrome, a user added, the roles and tables in Russian words", async () => {
  const page = await newPage("admin-ru");
  await signIn(page, "/admin?lang=ru", "admin", adminPassword);
  await textOf(page.locator("h2[data-i18n='admin.create-table-title']"), /^Создать стол$/, "a heading in Russian");
  await page.fill('#user-form [name="username"]', "kassa2");
  await page.selectOption('#user-form [name="role"]', "cashier");
  await page.fill('#user-form [name="password"]', "kassa2-secret-1");
  await page.fill('#user-form [name="licence"]', "C-2002");
  await page.click('#user-form button[type="submit"]');
  await textOf(page.locator("#message"), /^kassa2 добавлен с ролью «кассир»\.$/, "the user added, said in Russian");
  await textOf(page.locator('#users tr[data-user="kassa2"]'), /^kassa2кассирC-2002сменит пароль при следующем входе/, "the user's row in Russian");
  await textOf(page.locator('#users tr[data-user="pit1"] button').first(), /^Заблокировать$/, "a row's button in Russian");
  await textOf(page.locator('#tables tr[data-table="ru1"]'), /ввод крупье/, "the table's outcome in Russian");
  await textOf(page.locator("#gaming-day-note"), /^Сегодня игровой день \d{4}-\d\d-\d\d: с /, "the gaming day in Russian");
  // A profile's title and text, and a time zone's IANA name, are the casino's data, in their own words.
  assert.deepEqual(await englishLeft(page, "main", ["#profile-select", "#wheel-select", "#profile-note", "#bonus-select", "#gaming-day-zone"]), [], "no English left in the admin's chrome");
  await shot(page, "languages-admin-ru");
  assert.deepEqual(pageErrors, []);
});

test("the tournament desk in Russian: its chrome, the example created, an entry registered, money in the Russian form", async () => {
  const admin = await newPage("tournaments-admin-ru", { width: 1600, height: 1200 });
  await signIn(admin, "/tournaments?lang=ru", "admin", adminPassword);
  await admin.click("#example");
  await textOf(admin.locator("#message"), /^Пример winter-classic вставлен, с началом сегодня\./, "the example filled in, said in Russian");
  await admin.click('#create-form button[type="submit"]');
  await textOf(admin.locator("#message"), /^Турнир прошёл все проверки и создан\.$/, "the tournament created, said in Russian");
  const pit = await newPage("tournaments-pit-ru", { width: 1600, height: 1200 });
  await signIn(pit, "/tournaments?tournament=winter-classic&lang=ru", "pit1", "pit1-secret-1");
  await textOf(pit.locator("#t-name"), / · объявлен$/, "the tournament's status in Russian");
  await textOf(pit.locator("#t-days"), /правила поданы в Отдел: ещё нет\.$/, "the filing not yet made, in Russian");
  await pit.fill('#register-form [name="player"]', "olga");
  await pit.check('#register-form [name="qualified"]');
  await pit.click('#register-form button[type="submit"]');
  await textOf(pit.locator("#message"), /^olga зарегистрирован \(номер entry-[0-9a-f]+\)\.$/, "the entry said in Russian");
  await textOf(pit.locator("#entries tr").first(), /^1olga\S+\d{4}-\d\d-\d\dзарегистрирован25,00\s\$ наличными100,00\s\$ наличными/, "the entry's row in Russian, its money in the Russian form");
  await textOf(pit.locator("#figures"), /Призовой фонд100,00\s\$/, "the prize pool in the Russian form");
  await textOf(pit.locator("#chips"), /очк(о|а|ов)/, "the chips' values in Russian");
  // The tournament's, its events' and the tables' names are the file's and the casino's.
  assert.deepEqual(await englishLeft(pit, "main", ["#t-name", "#tournament-select", ".event-select", "#event-table"]), [], "no English left in the desk's chrome");
  await shot(pit, "languages-tournaments-ru");
  assert.deepEqual(pageErrors, []);
});
