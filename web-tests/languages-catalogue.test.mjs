// The pages' words, checked without a browser: the English and Russian
// catalogues (crates/server/web/i18n) hold the same messages with the same
// {names} and each language's plural forms; every id a page or common.js
// asks for is in them, and so is every refusal code of the API; and a
// translated page shows no text that is not marked for translation (a
// visible word outside a `data-i18n` element, a placeholder, title or
// aria-label with no `data-i18n-*`, a script's `text: "Words"` or
// `say("Words")`).
import assert from "node:assert/strict";
import { readFileSync, readdirSync } from "node:fs";
import path from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const WEB = path.join(ROOT, "crates/server/web");
const LANGUAGES = { en: "en-US", ru: "ru-RU" };
const catalogues = Object.fromEntries(Object.keys(LANGUAGES).map((l) => [l, JSON.parse(readFileSync(path.join(WEB, "i18n", `${l}.json`), "utf8"))]));
const pages = readdirSync(WEB).filter((f) => f.endsWith(".html"));
const read = (file) => readFileSync(path.join(WEB, file), "utf8");

// The pages whose every word is translated. A page not listed (report.html
// from another branch, say) is checked for the ids it uses only.
const TRANSLATED = ["index.html", "board.html", "terminal.html", "dealer.html", "pit.html", "cashier.html", "report.html", "admin.html", "tournaments.html", "floor.html"];
// The pages whose HTML is marked throughout, their scripts not yet (none
// now: a page half done is listed here until its scripts are too).
const MARKED = [...TRANSLATED];

const names = (text) => [...String(text).matchAll(/\{(\w+)\}/g)].map((m) => m[1]).sort();
const forms = (message) => (typeof message === "object" ? Object.values(message) : [message]);

test("the catalogues hold the same messages", () => {
  const en = Object.keys(catalogues.en).sort();
  for (const [lang, catalogue] of Object.entries(catalogues)) {
    const keys = Object.keys(catalogue).sort();
    assert.deepEqual(keys.filter((k) => !en.includes(k)), [], `${lang}.json has messages en.json lacks`);
    assert.deepEqual(en.filter((k) => !keys.includes(k)), [], `${lang}.json lacks messages of en.json`);
  }
});

test("each message has its language's plural forms and the same {names}", () => {
  for (const [lang, catalogue] of Object.entries(catalogues)) {
    const categories = new Intl.PluralRules(LANGUAGES[lang]).resolvedOptions().pluralCategories.sort();
    for (const [id, message] of Object.entries(catalogue)) {
      if (typeof message === "object") {
        assert.deepEqual(Object.keys(message).sort(), categories, `${lang} ${id}: its plural forms`);
        assert.ok(forms(message).every((f) => f.includes("{count}")), `${lang} ${id}: a plural form without {count}`);
      } else assert.equal(typeof message, "string", `${lang} ${id}`);
      for (const form of forms(message)) {
        assert.ok(form.trim(), `${lang} ${id}: empty`);
        assert.deepEqual([...new Set(names(form))], [...new Set(forms(catalogues.en[id]).flatMap(names))].sort(), `${lang} ${id}: its {names}`);
      }
    }
  }
});

test("every refusal code of the API has its sentence", () => {
  const source = readFileSync(path.join(ROOT, "crates/server/src/api/error.rs"), "utf8");
  const body = source.slice(source.indexOf("error_codes! {", source.indexOf("macro_rules!") + 20));
  const codes = [...body.slice(0, body.indexOf("\n}")).matchAll(/= "([a-z_]+)" =>/g)].map((m) => m[1]);
  assert.ok(codes.length > 50, `read ${codes.length} codes from error.rs`);
  assert.deepEqual(codes.filter((c) => !catalogues.en[`error.${c}`]), [], "codes with no error.<code> message");
});

// The words a page puts in another language's place by matching the
// server's English: each wheel's description (core/src/wheel.rs) and each
// notice a shipped profile posts. A change to those words on the server
// must change the catalogue's English too, or the page would show English.
test("the wheels' and the profiles' notices' English is the server's own", () => {
  const wheels = readFileSync(path.join(ROOT, "crates/core/src/wheel.rs"), "utf8");
  const names = Object.fromEntries([...wheels.matchAll(/Wheel::(\w+) => "([a-z-]+)",/g)].map((m) => [m[1], m[2]]));
  const body = wheels.slice(wheels.indexOf("pub fn description(self)"));
  const described = [...body.slice(0, body.indexOf("\n    }\n")).matchAll(/Wheel::(\w+) => \{?\s*"((?:[^"\\]|\\\n\s*)*)"/g)]
    .map((m) => [names[m[1]], m[2].replace(/\\\n\s*/g, "")]);
  assert.equal(described.length, 5, `read ${described.length} wheels' descriptions from wheel.rs`);
  for (const [name, text] of described) assert.equal(catalogues.en[`wheel.${name}`], text, `wheel.${name}`);
  const profiles = readdirSync(path.join(ROOT, "profiles")).filter((f) => f.endsWith(".toml"));
  const notices = new Set(profiles.flatMap((f) => [...readFileSync(path.join(ROOT, "profiles", f), "utf8").matchAll(/^tips_notice = "([^"]*)"/gm)].map((m) => m[1])));
  assert.ok(notices.size > 0, "read the profiles' tips notices");
  const kept = Object.entries(catalogues.en).filter(([k]) => k.startsWith("notice.")).map(([, v]) => v);
  assert.deepEqual([...notices].filter((n) => !kept.includes(n)), [], "a profile's notice with no notice.* message");
});

test("every message a page asks for is in the catalogues", () => {
  const missing = [];
  for (const file of [...pages, "common.js"]) {
    const text = read(file);
    for (const m of text.matchAll(/data-i18n(?:-[a-z-]+)?="([^"]+)"/g)) if (!(m[1] in catalogues.en)) missing.push(`${file}: ${m[1]}`);
    for (const m of text.matchAll(/\b(?:t|tr)\("([^"]+)"/g)) if (!(m[1] in catalogues.en)) missing.push(`${file}: ${m[1]}`);
  }
  assert.deepEqual(missing, []);
});

// The words a page shows that no catalogue gives: text outside `data-i18n`,
// and attributes people read with no `data-i18n-<attribute>`.
function unmarked(html) {
  const found = [];
  const body = html.replace(/<!--[\s\S]*?-->|<!doctype[^>]*>/gi, "").replace(/<(script|style)\b[^>]*>[\s\S]*?<\/\1>/g, "");
  const VOID = new Set(["meta", "link", "input", "br", "img", "hr", "source", "wbr"]);
  const stack = [];
  const letters = /[A-Za-zА-Яа-яЁё]/;
  for (const m of body.matchAll(/<(\/?)([a-zA-Z][\w-]*)([^>]*)>|([^<]+)/g)) {
    const [, closing, tag, attrs, text] = m;
    if (text !== undefined) {
      // The casino system's name is its name in every language.
      if (letters.test(text.replaceAll("croupier", "")) && !stack.some((s) => s.marked)) found.push(`text "${text.trim()}" in <${stack.at(-1)?.tag}>`);
      continue;
    }
    const name = tag.toLowerCase();
    if (closing) {
      const at = stack.map((s) => s.tag).lastIndexOf(name);
      if (at >= 0) stack.length = at;
      continue;
    }
    if (stack.some((s) => s.marked)) found.push(`<${name}> inside a data-i18n element (its text replaces it)`);
    for (const attr of ["placeholder", "title", "aria-label"]) {
      const value = new RegExp(`\\s${attr}="([^"]*)"`).exec(attrs)?.[1];
      if (value && letters.test(value) && !new RegExp(`\\sdata-i18n-${attr}="`).test(attrs)) found.push(`${attr}="${value}" on <${name}>`);
    }
    if (!VOID.has(name) && !attrs.trim().endsWith("/")) stack.push({ tag: name, marked: /\sdata-i18n="/.test(attrs) });
  }
  return found;
}

// Words a script puts on the page as they are: `text: "Words"`, `say("Words")`, `title: "Words"`.
function hardCoded(script) {
  return [...script.matchAll(/\b(?:text|title|placeholder|"aria-label"):\s*(["`])([A-Z][a-z][^"`]*)\1|\bsay\((["`])([A-Za-z][^"`]*)\3/g)].map((m) => m[0]);
}

test("a translated page shows no word the catalogues do not give", () => {
  const found = [];
  for (const file of MARKED) found.push(...unmarked(read(file)).map((f) => `${file}: ${f}`));
  for (const file of TRANSLATED) {
    const html = read(file);
    for (const [, script] of html.matchAll(/<script>([\s\S]*?)<\/script>/g)) found.push(...hardCoded(script).map((f) => `${file}: ${f}`));
  }
  found.push(...hardCoded(read("common.js")).map((f) => `common.js: ${f}`));
  assert.deepEqual(found, []);
});

test("the check finds unmarked words", () => {
  assert.deepEqual(unmarked('<p data-i18n="a.b">Hello</p><p title="5"><b>5</b></p>'), []);
  assert.equal(unmarked("<p>Hello <b data-i18n=\"a\">there</b></p>").length, 1);
  assert.equal(unmarked('<input placeholder="Amount">').length, 1);
  assert.equal(unmarked('<p data-i18n="a">Hi <b>you</b></p>').length, 1);
  assert.equal(hardCoded('el("td", { text: "No result yet." })').length, 1);
  assert.equal(hardCoded('el("td", { text: t("x") })').length, 0);
});
