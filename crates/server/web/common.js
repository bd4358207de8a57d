// What every croupier page shares: the session, calls to the API with their
// errors shown to the person, the table stream, money and pocket colours.
"use strict";

const Croupier = (() => {
  const SESSION_KEY = "croupier.session";

  // Each pocket's colour, as the server's wheel says (a table's layout and
  // public view carry them): the pages keep no copy of the wheel.
  const pocketColours = new Map();
  const learnColours = (colours) => {
    for (const [label, colour] of Object.entries(colours ?? {})) pocketColours.set(label, colour);
  };
  const colourOf = (label) => pocketColours.get(String(label)) ?? "";

  // Minor units as the currency's major units with two decimals; integers
  // only, and exact: the figure is cut from the integer's digits and handed
  // to Intl.NumberFormat as a decimal string, never as a float. English
  // keeps the casino's own form ("USD 1234.50", "−USD 5.00"); another
  // language takes its locale's ("1 234,50 $" in Russian).
  const money = (minor, currency = "") => {
    const negative = minor < 0;
    const abs = Math.abs(Math.trunc(minor));
    const text = `${Math.floor(abs / 100)}.${String(abs % 100).padStart(2, "0")}`;
    if (lang !== "en") return localMoney(`${negative ? "-" : ""}${text}`, currency);
    return `${negative ? "−" : ""}${currency ? currency + " " : ""}${text}`;
  };
  const moneyFormats = new Map();
  function localMoney(decimal, currency) {
    if (!moneyFormats.has(currency)) {
      const digits = { minimumFractionDigits: 2, maximumFractionDigits: 2 };
      let format = null;
      try {
        format = new Intl.NumberFormat(LOCALES[lang], currency ? { style: "currency", currency, ...digits } : digits);
      } catch {
        // Not an ISO 4217 code: the figure in the locale's form, the code after it.
        format = null;
      }
      moneyFormats.set(currency, format ?? new Intl.NumberFormat(LOCALES[lang], digits));
      if (!format) moneyFormats.set(`${currency}:suffix`, true);
    }
    const figure = moneyFormats.get(currency).format(decimal);
    return moneyFormats.get(`${currency}:suffix`) ? `${figure} ${currency}` : figure;
  }
  // A count in the page's language ("1 234" in Russian).
  const number = (n) => new Intl.NumberFormat(LOCALES[lang]).format(n);

  // A major-unit amount typed by a person, as minor units; null if it is not
  // one. Groups of thousands may be spaced ("1 234,50").
  const parseMoney = (text) => {
    text = String(text ?? "").replace(/(\d)[ \u00a0\u202f](?=\d{3}(?!\d))/g, "$1");
    const m = /^\s*(\d{1,9})(?:[.,](\d{1,2}))?\s*$/.exec(text);
    if (!m) return null;
    return Number(m[1]) * 100 + Number((m[2] ?? "0").padEnd(2, "0"));
  };

  // A whole number typed by a person, from `min` to `max`; null if the field
  // is empty or holds anything else ("", "6.5", "1e3", "six"): an empty field
  // is refused, never read as 0.
  const whole = (text, min = 0, max = Number.MAX_SAFE_INTEGER) => {
    const m = /^\s*(\d{1,15})\s*$/.exec(String(text ?? ""));
    if (!m) return null;
    const n = Number(m[1]);
    return n >= min && n <= max ? n : null;
  };

  const newId = (prefix) => {
    const bytes = new Uint8Array(12);
    crypto.getRandomValues(bytes);
    return `${prefix}-${Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("")}`;
  };

  // One intent, one id. A money request's id is what the person means to
  // do, not a click: sent again after a lost answer (no answer, a dropped
  // connection), it carries the same id, so the server moves the money
  // once. The intent is what the form holds when it is sent (player,
  // amount, table...). The same contents sent while an earlier send of them
  // is unanswered are either that send again or a new one, which only the
  // person knows: the page asks (`sendOnce`), never guesses, for a new cash-in
  // of the same amount taken for a resend would take the cash and credit
  // nothing. Any answer, a refusal included, ends the intent. Unanswered ids
  // are kept in the tab's sessionStorage under the user signed in, so a
  // reload keeps them, for half an hour; signing out forgets them.
  const UNANSWERED_MS = 30 * 60_000;
  const INTENT_KEY = "croupier.intent.";
  function intent(prefix) {
    // Under the user signed in when it is read, not when the page loaded.
    const store = () => `${INTENT_KEY}${session.get()?.username ?? ""}.${location.pathname}.${prefix}`;
    const keyOf = (contents) => JSON.stringify(contents);
    const load = () => {
      let kept = {};
      try {
        kept = JSON.parse(sessionStorage.getItem(store()) ?? "{}") ?? {};
      } catch {
        kept = {};
      }
      const now = Date.now();
      return Object.fromEntries(Object.entries(kept).filter(([, v]) => v && typeof v.id === "string" && now - v.at < UNANSWERED_MS));
    };
    const save = (kept) => sessionStorage.setItem(store(), JSON.stringify(kept));
    let fresh = newId(prefix);
    return {
      // The id `contents` were sent under and are not yet answered, or null.
      pending: (contents) => load()[keyOf(contents)]?.id ?? null,
      // The id `contents` go under: their unanswered send's, or a new one.
      idFor(contents) {
        return this.pending(contents) ?? fresh;
      },
      // `contents` are being sent: their id, kept until they are answered.
      send(contents) {
        const kept = load();
        const key = keyOf(contents);
        if (!kept[key]) {
          kept[key] = { id: fresh, at: Date.now() };
          fresh = newId(prefix);
        }
        save(kept);
        return kept[key].id;
      },
      // `contents` were answered: sending them again is a new intent.
      answered(contents) {
        const kept = load();
        delete kept[keyOf(contents)];
        save(kept);
      },
      // The sends not yet answered: each one's contents, id and when it was sent.
      unanswered: () => Object.entries(load()).map(([key, v]) => ({ contents: JSON.parse(key), id: v.id, at: v.at })),
      // Forgets the unanswered sends whose outcome the page has learnt
      // otherwise (`settled(contents)` true): a leaving once the player is
      // seen away from the table, say.
      settle(settled) {
        const kept = load();
        for (const key of Object.keys(kept)) if (settled(JSON.parse(key))) delete kept[key];
        save(kept);
      },
    };
  }

  const session = {
    get() {
      try {
        return JSON.parse(sessionStorage.getItem(SESSION_KEY) ?? "null");
      } catch {
        return null;
      }
    },
    set(value) {
      sessionStorage.setItem(SESSION_KEY, JSON.stringify(value));
    },
    clear() {
      sessionStorage.removeItem(SESSION_KEY);
    },
  };

  // ---- Languages ----
  // Every word a page shows comes from a catalogue, one a language
  // (web/i18n/<lang>.json, served as /static/i18n.js), by message id: in the
  // HTML, an element's `data-i18n` (its text), `data-i18n-placeholder`,
  // `data-i18n-title` and `data-i18n-aria-label`, filled as the page loads;
  // in scripts, `t(id, params)`. A message with a `{count}` in several
  // forms is an object keyed by the language's plural categories
  // (Intl.PluralRules: English one/other, Russian one/few/many/other).
  // The language is, first to last: the address's `?lang=` (a number
  // display's, kept there like its `?table=`), the signed-in user's own
  // choice, this browser's last choice (both in localStorage), the
  // browser's language if it is Russian, else English.
  const CATALOGUES = typeof CROUPIER_CATALOGUES === "object" ? CROUPIER_CATALOGUES : { en: {} };
  const LANGUAGES = { en: "English", ru: "Русский" };
  const LOCALES = { en: "en-US", ru: "ru-RU" };
  const LANG_KEY = "croupier.lang";
  // Own keys only: `?lang=constructor` names no language, whatever an object inherits.
  const known = (lang) => (typeof lang === "string" && Object.hasOwn(CATALOGUES, lang) && Object.hasOwn(LANGUAGES, lang) ? lang : null);
  const stored = (key) => { try { return localStorage.getItem(key); } catch { return null; } };
  const userLangKey = (username) => `${LANG_KEY}.user.${username}`;
  const langFor = (username) =>
    known(new URLSearchParams(location.search).get("lang"))
    ?? (username ? known(stored(userLangKey(username))) : null)
    ?? known(stored(LANG_KEY))
    ?? (/^ru\b/i.test(navigator.language ?? "") ? "ru" : "en");
  const lang = langFor(session.get()?.username);
  const catalogue = CATALOGUES[lang] ?? {};
  const plurals = new Intl.PluralRules(LOCALES[lang]);
  // The message `id` in the page's language (English if the catalogue lacks
  // it), its `{name}`s replaced by `params`; a plural message takes the
  // form for `params.count`.
  function t(id, params = {}) {
    let text = catalogue[id] ?? CATALOGUES.en?.[id];
    if (text === undefined) {
      console.error(`croupier: no message ${id}`);
      return id;
    }
    if (typeof text === "object") text = text[plurals.select(Number(params.count))] ?? text.other;
    return text.replace(/\{(\w+)\}/g, (whole, name) => (params[name] === undefined ? whole : String(params[name])));
  }
  const hasMessage = (id) => catalogue[id] !== undefined;
  // Fills the marked text of `root` (the page, or what a script just drew).
  function translate(root = document) {
    for (const node of root.querySelectorAll("[data-i18n]")) node.textContent = t(node.dataset.i18n);
    for (const [attr, data] of [["placeholder", "i18nPlaceholder"], ["title", "i18nTitle"], ["aria-label", "i18nAriaLabel"]]) {
      for (const node of root.querySelectorAll(`[data-i18n-${attr}]`)) node.setAttribute(attr, t(node.dataset[data]));
    }
  }
  // Chooses `choice` for this browser and the user signed in, and shows
  // the page again in it; a number display keeps it in its address.
  function chooseLanguage(choice, inAddress = false) {
    if (!known(choice)) return;
    const username = session.get()?.username;
    try {
      localStorage.setItem(LANG_KEY, choice);
      if (username) localStorage.setItem(userLangKey(username), choice);
    } catch { /* a browser that keeps nothing: the address alone says it */ }
    const url = new URL(location.href);
    if (inAddress || url.searchParams.has("lang")) url.searchParams.set("lang", choice);
    if (url.href === location.href) location.reload();
    else location.replace(url.href);
  }
  // The header's choice of language.
  const languagePicker = (inAddress = false) => {
    const select = document.createElement("select");
    select.id = "lang-select";
    select.setAttribute("aria-label", t("common.language"));
    for (const [code, name] of Object.entries(LANGUAGES)) {
      const option = document.createElement("option");
      option.value = code;
      option.lang = code;
      option.textContent = name;
      select.append(option);
    }
    select.value = lang;
    select.addEventListener("change", () => chooseLanguage(select.value, inAddress));
    return select;
  };
  // A user signed in whose own choice differs from the page's: the page again, in theirs.
  const inUsersLanguage = (username) => {
    if (langFor(username) === lang) return true;
    location.reload();
    return false;
  };
  // The casino's codes in words, where the catalogue has them: a role
  // ("pit_supervisor"), a kind of bet ("split"), a chip colour ("navy blue").
  const coded = (prefix, code) => (hasMessage(`${prefix}.${code}`) ? t(`${prefix}.${code}`) : String(code ?? "").replaceAll("_", " "));
  const roleName = (role) => coded("role", role);
  const betKind = (kind) => coded("bet-kind", kind);
  // A table's wheel in words: the server's own description in English, the
  // catalogue's words for its code (`wheel.<name>`) in another language.
  const wheelWords = (layout) => (lang !== "en" && hasMessage(`wheel.${layout.wheel}`) ? t(`wheel.${layout.wheel}`) : layout.wheel_description);
  // A notice a profile posts (its tips rule): in another language, the
  // catalogue's words where a `notice.*` message holds the very same English.
  const noticeWords = (text) => {
    if (lang === "en" || !text) return text;
    const id = Object.keys(CATALOGUES.en ?? {}).find((k) => k.startsWith("notice.") && CATALOGUES.en[k] === text);
    return id && hasMessage(id) ? t(id) : text;
  };
  const colourName = (colour) => (hasMessage(`colour.${String(colour ?? "").toLowerCase()}`) ? t(`colour.${String(colour).toLowerCase()}`) : colour);
  document.documentElement.lang = lang;
  translate();

  class ApiFailure extends Error {
    constructor(code, message, status) {
      super(message);
      this.code = code;
      this.status = status;
    }
  }

  // Calls the API; a refusal becomes an ApiFailure carrying the server's sentence.
  async function api(path, body) {
    const s = session.get();
    const headers = { "content-type": "application/json" };
    if (s?.token) headers.authorization = `Bearer ${s.token}`;
    let response;
    try {
      response = await fetch(path, body === undefined ? { headers } : { method: "POST", headers, body: JSON.stringify(body) });
    } catch (e) {
      // A page that watches the server (one with no table stream) looks at once.
      serverWatch.soon();
      throw new ApiFailure("network", t("common.network"), 0);
    }
    const text = await response.text();
    let data = null;
    try {
      data = text ? JSON.parse(text) : null;
    } catch {
      data = null;
    }
    if (!response.ok) {
      const message = data?.message ?? (text || t("common.server-answered", { status: response.status }));
      const ended = response.status === 401 && data?.error === "unauthenticated" && Boolean(s?.token);
      if (ended) session.clear();
      // A write the disk refused (storage) pauses the casino: say so, as for a pause.
      if (data?.error === "paused" || data?.error === "storage") pausedNotice();
      const failure = new ApiFailure(data?.error ?? "http", message, response.status);
      // The session this page held is over (not a sign-in refused).
      failure.sessionEnded = ended;
      throw failure;
    }
    return data;
  }

  const request = (body) => api("/api/requests", body);

  // ---- The connection to the server ----
  // Every page says when it has lost the server, in a notice at its top
  // (#connection) that stays while it is lost: it reconnects by itself, and
  // what it shows is as it was then. Once it is back, the page reads its data
  // again and says so (#reconnected), with what changed meanwhile as the
  // server tells it (a restart voids the round in play), until dismissed.
  const NETWORK_SAID = t("common.network");
  const link = { lost: false, since: 0 };
  // Times in the casino's time zone (its gaming day's, read at sign-in),
  // not the browser's: a report headed with the casino's day shows its hours.
  let casinoZone = null;
  const inZone = (options) => {
    if (!casinoZone) return options;
    try {
      new Intl.DateTimeFormat(LOCALES[lang], { timeZone: casinoZone });
      return { ...options, timeZone: casinoZone };
    } catch {
      return options; // a zone this browser does not know: its own
    }
  };
  const clock = (ms) => new Date(ms).toLocaleTimeString(LOCALES[lang], inZone({}));
  const connectionLost = (text) => {
    if (!link.lost) { link.lost = true; link.since = Date.now(); }
    const back = document.getElementById("reconnected");
    if (back) back.hidden = true;
    const node = document.getElementById("connection");
    if (!node) return;
    node.dataset.state = "lost";
    node.textContent = text ?? t("common.out-of-reach", { since: clock(link.since) });
    node.hidden = false;
  };
  // Back: `changes` are sentences of what changed meanwhile. `dismiss`
  // false for a page no one clicks (the number display), where the notice
  // goes with the next round instead.
  const connectionBack = (changes = [], dismiss = true) => {
    if (!link.lost) return;
    link.lost = false;
    const lost = document.getElementById("connection");
    if (lost) { lost.hidden = true; lost.dataset.state = "live"; }
    const node = document.getElementById("reconnected");
    if (node) {
      node.replaceChildren(
        el("span", { class: "said", text: t("common.reconnected", { at: clock(Date.now()), since: clock(link.since) }) }),
        ...changes.filter(Boolean).map((c) => el("span", { class: "change", text: c })),
        ...(dismiss ? [el("button", { type: "button", id: "reconnected-dismiss", text: t("common.dismiss"), onclick: () => { node.hidden = true; } })] : []));
      node.hidden = false;
    }
    // What was said while the server was gone is no longer so.
    if (document.getElementById("message")?.textContent === NETWORK_SAID) say("", "info");
  };

  // A page with no table stream (the cage, admin, tournaments) watches
  // /healthz, every few seconds and at once after a read found no server;
  // back, it runs `reread`, which answers the sentences of what changed.
  const serverWatch = (() => {
    let reread = null, timer = 0, looking = false;
    const look = async () => {
      clearTimeout(timer);
      if (looking) return;
      looking = true;
      let up = false;
      try {
        // A health report (ok, degraded, paused) is a server; a starting node's refusal is not yet.
        up = Boolean((await (await fetch("/healthz", { cache: "no-store" })).json())?.status);
      } catch {
        up = false;
      }
      if (!up) connectionLost();
      else if (link.lost) connectionBack((await reread?.().catch(() => [])) ?? []);
      looking = false;
      timer = setTimeout(look, link.lost ? 1000 : 5000);
    };
    return {
      start(then) { reread = then; if (!timer) timer = setTimeout(look, 5000); },
      soon() { if (reread) { clearTimeout(timer); timer = setTimeout(look, 0); } },
    };
  })();

  // A table's phase (the server's code) in words: as a console's header
  // says it (`phaseWords`), and within a sentence (`phaseInSentence`).
  const phaseWords = (code) => (hasMessage(`phase.${code}`) ? t(`phase.${code}`) : code);
  const phaseInSentence = (code) => (hasMessage(`phase-in-sentence.${code}`) ? t(`phase-in-sentence.${code}`) : code);

  // What became of the table a page last read (`was`: its round and phase;
  // `pockets`, its last numbers, for a page with no session) while the
  // server was out of reach, now that it reads `now`: sentences, from the
  // server's own record of the round then in play (game recall), or, with no
  // session to read it, from the numbers the table shows the room.
  const inPlay = (phase) => phase === "betting" || phase === "closed-betting";
  // `told`: the page has told the round's end already (the terminal's own outcome).
  async function tableNews(table, was, now, currency = "", told = false) {
    if (!was || !now) return [];
    const news = [];
    if (!told && inPlay(was.phase) && (now.round !== was.round || !inPlay(now.phase))) news.push(await roundEnd(table, was, now, currency));
    if (now.round !== was.round || now.phase !== was.phase) news.push(t("common.table-now", { round: now.round, phase: phaseInSentence(now.phase) }));
    return news;
  }
  async function roundEnd(table, was, now, currency) {
    const s = session.get();
    let record = null;
    if (s?.token) {
      try { record = await api(`/api/rounds/${encodeURIComponent(table)}/${was.round}`); } catch { record = null; }
    }
    if (record && !record.settled) return t("common.round-no-result", { round: was.round });
    if (record && record.pocket) return t("common.round-settled-away", { round: was.round, pocket: record.pocket });
    if (record) {
      const back = record.bets.filter((b) => b.result === "returned");
      const total = back.reduce((sum, b) => sum + (b.returned ?? 0), 0);
      // Money in the table's currency, from its layout where the page does not know it.
      if (!currency && back.length) currency = (await api(`/api/public/tables/${encodeURIComponent(table)}/layout`).catch(() => null))?.currency ?? "";
      // A player's record holds their own bets only: the table's stakes are said without a count.
      const stakes = s.role === "player" || !back.length ? t("common.stakes-returned")
        : t("common.bets-stakes-returned", { count: back.length, amount: money(total, currency) });
      return t("common.round-voided-away", { round: was.round, stakes });
    }
    if (was.pockets && now.pockets && now.round === was.round) {
      const same = was.pockets.length === now.pockets.length && was.pockets.every((p, i) => p === now.pockets[i]);
      return same ? t("common.round-no-spin-away", { round: was.round })
        : t("common.round-ended-away-on", { round: was.round, pocket: now.pockets[0] });
    }
    return t("common.round-ended-away", { round: was.round });
  }

  // While the casino is paused (its journal cannot be written), says why,
  // and says so again once it has resumed, then runs what waited for that.
  // One watch at a time.
  let pauseWatch = 0;
  const onResumed = [];
  async function pausedNotice(then) {
    if (then) onResumed.push(then);
    if (pauseWatch) return;
    const look = async () => {
      let report = null;
      try {
        const response = await fetch("/healthz");
        report = await response.json();
      } catch {
        report = null;
      }
      if (report?.status === "paused") {
        say(t("common.paused", { why: report.journal?.why ?? "storage" }), "error");
        pauseWatch = setTimeout(look, 2000);
      } else {
        pauseWatch = 0;
        if (report) say(t("common.resumed"), "info");
        onResumed.splice(0).forEach((f) => f());
      }
    };
    pauseWatch = setTimeout(look, 0);
  }

  // The page's message line: every refusal is shown, never swallowed.
  // A notice goes away by itself after a while (on a phone it sits over the
  // page's foot); an error stays until the next message.
  // `detail`: the server's own English sentence under a refusal said in
  // another language (`refusalWords`), kept beneath and in the title.
  let sayTimer = 0;
  function say(text, kind = "error", detail = "") {
    const el = document.getElementById("message");
    if (!el) return;
    clearTimeout(sayTimer);
    el.textContent = text;
    if (detail) {
      const small = document.createElement("small");
      small.className = "detail";
      small.lang = "en";
      small.textContent = detail;
      el.append(small);
      el.title = detail;
    } else el.removeAttribute("title");
    el.dataset.kind = kind;
    el.hidden = !text;
    if (kind === "error") el.setAttribute("role", "alert");
    else el.setAttribute("role", "status");
    if (text && kind !== "error") sayTimer = setTimeout(() => { el.hidden = true; }, 8_000);
    // On a phone the line is fixed at the foot of the screen: the page leaves
    // room for it (common.css), and what was just tapped is kept above it.
    const fixed = Boolean(text) && getComputedStyle(el).position === "fixed";
    el.dataset.fixed = String(fixed);
    if (fixed) {
      document.documentElement.style.setProperty("--message-h", `${el.offsetHeight}px`);
      const tapped = document.activeElement;
      if (tapped && tapped !== document.body && tapped.getBoundingClientRect().bottom > el.getBoundingClientRect().top) tapped.scrollIntoView({ block: "nearest" });
    }
  }

  // What a page does besides saying it when the server refuses with a code
  // (the terminal keeps a notice in view for `chips_away`).
  const refusalHooks = [];
  const whenRefused = (code, then) => refusalHooks.push([code, then]);
  const refused = (e) => {
    for (const [code, then] of refusalHooks) if (e instanceof ApiFailure && e.code === code) then(e);
    if (e?.sessionEnded && !refusalHooks.some(([code]) => code === "unauthenticated")) sessionOver();
  };

  // A session that is over (locked, signed out elsewhere, idle too long, a
  // password changed elsewhere): a page with a way of its own (the terminal
  // keeps its table) hears it as a refusal; any other is loaded again on its
  // sign-in form, saying why, rather than left trying a session that is gone.
  const SESSION_OVER_KEY = "croupier.session-over";
  let endingSession = false;
  function sessionOver() {
    if (refusalHooks.some(([code]) => code === "unauthenticated")) {
      refused(new ApiFailure("unauthenticated", t("common.session-over"), 401));
      return;
    }
    if (endingSession) return;
    endingSession = true;
    session.clear();
    forgetIntents();
    sessionStorage.setItem(SESSION_OVER_KEY, "1");
    location.reload();
  }

  // A refusal in the page's language: in English, the server's own
  // sentence; in another, its code's sentence from the catalogue
  // (`error.<code>`), the server's English kept as the detail.
  function refusalWords(e) {
    if (!(e instanceof ApiFailure)) return [String(e?.message ?? e)];
    if (lang === "en" || e.code === "network" || !hasMessage(`error.${e.code}`)) return [e.message];
    return [t(`error.${e.code}`), e.message];
  }
  const sayRefusal = (e) => {
    const [text, detail] = refusalWords(e);
    say(text, "error", detail);
  };

  // Runs an action and shows its failure; returns its value or undefined.
  async function attempt(action) {
    try {
      return await action();
    } catch (e) {
      sayRefusal(e);
      refused(e);
      return undefined;
    }
  }

  // Sends the money request `build(id)` for `contents` under `intended`'s id
  // (see `intent`). Answers `{ id, answer, already }` once the server has
  // taken it (`already`: a resend the server had recorded before, so nothing
  // moved now), or undefined once the failure is said: a refusal in the
  // server's words; no answer as what it means, and how to resend.
  async function sendOnce(intended, contents, build, what) {
    const pending = intended.pending(contents);
    if (pending && !(await askAgainOrNew(what, pending))) intended.answered(contents);
    const id = intended.send(contents);
    try {
      const answer = await request(build(id));
      intended.answered(contents);
      // The server says when it wrote nothing: this id was recorded before.
      return { id, answer, already: answer?.done_before === true };
    } catch (e) {
      // A pause (or a write the disk refused) changed nothing: the pause notice says so.
      const unanswered = e instanceof ApiFailure && (e.code === "network" || (e.status >= 500 && e.code !== "paused" && e.code !== "storage"));
      if (unanswered) {
        say(t("common.no-answer", { what, id }), "error");
      } else {
        // Answered (refused, or nothing changed): whatever is sent next is a new intent.
        intended.answered(contents);
        sayRefusal(e);
      }
      refused(e);
      return undefined;
    }
  }

  // Asks whether `what`, unanswered under `id`, is being sent again or is a
  // new one of the same contents: true for again. The question has a line of
  // its own under the message line, so that nothing said meanwhile (a
  // look-up, a refresh's refusal, a pause) takes it away and leaves the form
  // held; a question still open is answered "again" by a new one.
  let openQuestion = null;
  function askAgainOrNew(what, id) {
    const line = document.getElementById("message");
    if (!line) return Promise.resolve(true);
    openQuestion?.(true);
    let node = document.getElementById("resend-question");
    if (!node) {
      node = el("p", { id: "resend-question", role: "alert", "data-kind": "error" });
      line.after(node);
    }
    return new Promise((resolve) => {
      const choose = (again) => () => {
        openQuestion = null;
        node.hidden = true;
        node.replaceChildren();
        resolve(again);
      };
      openQuestion = (again) => choose(again)();
      node.hidden = false;
      node.replaceChildren(
        t("common.again-or-new", { what, id }) + " ",
        el("button", { type: "button", "data-resend": "again", text: t("common.send-again", { id }), onclick: choose(true) }), " ",
        el("button", { type: "button", "data-resend": "new", text: t("common.a-new-one"), onclick: choose(false) }),
      );
    });
  }

  // Forgets every unanswered send of this tab: the next user's are their own.
  function forgetIntents() {
    for (let i = sessionStorage.length - 1; i >= 0; i--) {
      const key = sessionStorage.key(i);
      if (key?.startsWith(INTENT_KEY)) sessionStorage.removeItem(key);
    }
  }

  // Shows in `node` the reference `contents` would be sent under, and
  // whether an earlier send of them is unanswered.
  function showReference(node, intended, contents) {
    if (!node) return;
    const pending = intended.pending(contents);
    const id = pending ?? intended.idFor(contents);
    node.dataset.reference = id;
    node.dataset.pending = String(Boolean(pending));
    node.textContent = pending
      ? t("common.reference-pending", { id })
      : t("common.reference", { id });
  }

  // Runs a console's action with its buttons held: a double click sends nothing twice.
  async function holding(action) {
    const held = [...document.querySelectorAll("main button:not([disabled])")];
    held.forEach((b) => { b.disabled = true; });
    try {
      return await action();
    } finally {
      held.forEach((b) => { b.disabled = false; });
    }
  }

  // A staff action on a table: posts the request, says `done` and calls `then` once it is durable.
  async function act(table, body, done, then) {
    return holding(async () => {
      const ok = await attempt(() => request({ table, ...body }));
      if (ok) {
        say(done, "info");
        then?.();
      }
      return ok;
    });
  }

  // Follows a table's events; reconnects after a dropped connection (a
  // server restart included) until stopped, saying so in #connection.
  // `onState` hears "live" on every (re)connection, with `again` true after
  // a loss, so a page reads again what it missed meanwhile and says what
  // changed (`connectionBack`); a page with no `onState` says only that it is back.
  function follow(table, onEvent, onState) {
    let socket = null;
    let stopped = false;
    let retries = 0;
    let checkedAt = 0;
    const open = () => {
      if (stopped) return;
      const s = session.get();
      const proto = location.protocol === "https:" ? "wss" : "ws";
      // The token goes as a subprotocol, never in the URL (where logs keep it).
      const protocols = s?.token ? ["croupier.v1", `croupier-token.${s.token}`] : [];
      socket = new WebSocket(`${proto}://${location.host}/api/tables/${encodeURIComponent(table)}/stream`, protocols);
      socket.onopen = () => {
        retries = 0;
        const again = link.lost;
        if (onState) onState("live", again);
        else connectionBack();
      };
      socket.onmessage = (m) => {
        try {
          onEvent(JSON.parse(m.data));
        } catch (e) {
          console.error("croupier: bad event", e);
        }
      };
      socket.onclose = (closed) => {
        if (stopped) return;
        // Closed with its session (4001), or refused before it opened: if
        // the session is over, the sign-in form, not a server "out of reach".
        if (session.get()?.token && (closed.code === 4001 || Date.now() - checkedAt > 10_000)) {
          checkedAt = Date.now();
          api("/api/me").catch((e) => { if (e?.sessionEnded) { stopped = true; sessionOver(); } });
        }
        if (stopped) return;
        connectionLost();
        onState?.("reconnecting");
        // Closed as the casino paused (1013, "try again later"): say why until it resumes.
        if (closed.code === 1013) pausedNotice();
        // Soon at first, then less often, and not every page in the same
        // instant once the server is back: 1 s, growing to 5 s, with jitter.
        const wait = Math.min(1000 * 1.5 ** retries, 5000) + Math.random() * 500;
        retries += 1;
        setTimeout(open, wait);
      };
    };
    open();
    return () => {
      stopped = true;
      socket?.close();
    };
  }

  // Wires a sign-in form; calls back with the session once the server accepts it.
  function loginForm(form, onSignedIn) {
    form.addEventListener("submit", async (e) => {
      e.preventDefault();
      const data = new FormData(form);
      const body = { username: String(data.get("username") ?? "").trim(), password: String(data.get("password") ?? "") };
      const licence = data.get("licence");
      if (licence) body.licence = String(licence).trim();
      if (!body.username || !body.password) {
        say(t("common.enter-username-password"));
        return;
      }
      const answer = await attempt(() => api("/api/login", body));
      if (answer) {
        session.set({ token: answer.token, username: answer.username, role: answer.role, must_change_password: answer.must_change_password });
        say("", "info");
        onSignedIn(session.get());
      }
    });
  }

  // Starts a page with the session kept from before, if the server still knows it.
  async function resume(onSignedIn) {
    const s = session.get();
    if (!s?.token) return;
    try {
      const me = await api("/api/me");
      onSignedIn({ ...s, username: me.username, role: me.role, must_change_password: me.must_change_password, may: me.may ?? [] });
    } catch (e) {
      // Paused (or a write refused): the session is kept, and taken up again once the casino resumes.
      if (e instanceof ApiFailure && (e.code === "paused" || e.code === "storage")) {
        pausedNotice(() => resume(onSignedIn));
        return;
      }
      // No server (a restart under way): the session is kept, and taken up again once it answers.
      if (e instanceof ApiFailure && e.code === "network") {
        connectionLost();
        setTimeout(() => resume(onSignedIn), 1000);
        return;
      }
      session.clear();
      say(t("common.session-over"), "info");
    }
  }

  async function signOut() {
    await attempt(() => api("/api/logout", {}));
    forgetIntents();
    session.clear();
    location.reload();
  }

  // The casino's gaming day, for staff ({time_zone, starts_at, today}), as /api/me says it.
  const gamingDay = async () => (await api("/api/me")).gaming_day ?? null;
  // A gaming day's span in words: "from 06:00 to 06:00, America/Denver time".
  const gamingDayWords = (day) => t("common.gaming-day-span", { starts: day.starts_at, zone: day.time_zone });

  function el(tag, attrs = {}, ...children) {
    const node = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs)) {
      if (v === undefined || v === null || v === false) continue;
      if (k === "class") node.className = v;
      else if (k === "text") node.textContent = v;
      else if (k.startsWith("on")) node.addEventListener(k.slice(2), v);
      else if (k.startsWith("data-")) node.setAttribute(k, v);
      else node.setAttribute(k, v === true ? "" : v);
    }
    for (const c of children) node.append(c);
    return node;
  }

  // Chip colours as named by the profiles, for the screen.
  const CHIP_COLOURS = { yellow: "#ffe066", "navy blue": "#3b5bdb", green: "#6fd08c", orange: "#ffa94d", white: "#f2f2f2", brown: "#c08457", pink: "#f783ac", lilac: "#c8a2c8", red: "#e35d6a", blue: "#6ea8ff", purple: "#b197fc", grey: "#adb5bd", black: "#868e96" };
  const chipColour = (name) => CHIP_COLOURS[String(name ?? "").toLowerCase()] ?? "#f2f2f2";
  // Ink that reads on a chip of `hex` (#rrggbb): white on a dark chip, near black on a light one.
  const inkOn = (hex) => {
    const [r, g, b] = [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16) / 255);
    return 0.2126 * r + 0.7152 * g + 0.0722 * b < 0.45 ? "#fff" : "#111";
  };

  // A password someone else chose (the first admin's, an admin's reset) is
  // changed before anything else: the server takes nothing else from the session.
  // Also a user's own choice, from the header's "Password" button (`forced` false).
  function passwordChange(onChanged, forced = true) {
    const intro = forced
      ? t("common.password-forced")
      : t("common.password-own");
    const form = el("form", { id: "password-form" },
      el("p", { class: "note", text: intro }),
      el("label", {}, t("common.current-password") + " ", el("input", { name: "password", type: "password", autocomplete: "current-password", required: true })),
      el("label", {}, t("common.new-password") + " ", el("input", { name: "new_password", type: "password", autocomplete: "new-password", minlength: 10, required: true })),
      el("label", {}, t("common.new-password-again") + " ", el("input", { name: "again", type: "password", autocomplete: "new-password", required: true })),
      el("button", { class: "primary", type: "submit", text: t("common.change-my-password") }),
      ...(forced ? [] : [el("button", { type: "button", text: t("common.cancel"), onclick: () => panel.remove() })]));
    const panel = el("section", { class: "panel login", id: "password-panel" }, el("h2", { text: t("common.choose-password") }), form);
    form.addEventListener("submit", async (e) => {
      e.preventDefault();
      const f = form.elements;
      if (f.new_password.value !== f.again.value) { say(t("common.password-repeat-differs")); return; }
      const button = form.querySelector("button");
      button.disabled = true;
      const ok = await attempt(() => request({ op: "change_password", password: f.password.value, new_password: f.new_password.value }));
      button.disabled = false;
      if (ok) {
        panel.remove();
        session.set({ ...session.get(), must_change_password: false });
        say(t("common.password-changed"), "info");
        onChanged();
      }
    });
    return panel;
  }

  // The frame every signed-in page shares: the header with the table picker and the
  // round's state, the message line, and the sign-in form. `onTable(id, session)` runs
  // for the table picked (from ?table= or the first one) and on every change; a page
  // of no one table (`tables: false`) has `onSession(session)` instead.
  // What the signed-in user's role may do, as the server's policy says
  // (`/api/me`'s `may`: "inspect", "adjust", "witness_adjustment"...): a page
  // asks `may(act)` rather than keep its own list of roles.
  let acts = [];
  const may = (act) => acts.includes(act);

  // `may`: the acts of which a role may do one for the page to be theirs,
  // by the server's policy (the page keeps no list of roles).
  function mount({ title, licence = false, may: forActs, countdown = false, content, onTable, tables = true, onSession }) {
    const main = document.querySelector("main");
    const header = el("header", { class: "bar" },
      el("h1", { text: `croupier · ${title}` }),
      el("span", { id: "who", class: "note" }),
      el("label", { class: "inline", id: "table-label", hidden: true }, t("common.table") + " ", el("select", { id: "table-select", "aria-label": t("common.table") })),
      el("span", { id: "phase", class: "pill", role: "status", "aria-live": "polite", text: t("common.signed-out") }),
      ...(countdown ? [el("span", { id: "countdown", "aria-label": t("common.seconds-to-no-more-bets") })] : []),
      el("label", { class: "inline", id: "lang-label" }, languagePicker()),
      el("button", { id: "change-password", hidden: true, text: t("common.password"), title: t("common.change-your-password") }),
      el("button", { id: "sign-out", hidden: true, text: t("common.sign-out"), onclick: signOut }));
    const form = el("form", { id: "login-form" },
      el("label", {}, t("common.username") + " ", el("input", { name: "username", autocomplete: "username", required: true })),
      el("label", {}, t("common.password") + " ", el("input", { name: "password", type: "password", autocomplete: "current-password", required: true })),
      ...(licence ? [el("label", {}, t("common.licence-if-none") + " ", el("input", { name: "licence", autocomplete: "off" }))] : []),
      el("button", { class: "primary", type: "submit", text: t("common.sign-in") }));
    const login = el("section", { class: "panel login", id: "login-panel" }, el("h2", { text: t("common.sign-in") }), form);
    document.body.insertBefore(header, main);
    // The connection's notices, unless the page keeps its own where it wants them.
    const notices = document.getElementById("connection") ? []
      : [el("p", { id: "connection", class: "link", role: "alert", hidden: true }), el("p", { id: "reconnected", class: "link", role: "status", hidden: true })];
    main.prepend(...notices, el("p", { id: "message", hidden: true }), login);
    const select = document.getElementById("table-select");
    let current = null;
    document.getElementById("change-password").addEventListener("click", () => {
      if (document.getElementById("password-panel")) return;
      main.insertBefore(passwordChange(() => {}, false), main.firstChild.nextSibling);
    });
    // The table picked stays picked through a reload: in the address and the tab's storage.
    const TABLE_KEY = `croupier.table.${location.pathname}`;
    const keepTable = (id) => {
      sessionStorage.setItem(TABLE_KEY, id);
      const url = new URL(location.href);
      url.searchParams.set("table", id);
      history.replaceState(history.state, "", url);
    };
    select.addEventListener("change", () => { keepTable(select.value); onTable(select.value, current); });
    const start = async (s) => {
      // A user who chose another language sees the page again in it.
      if (!inUsersLanguage(s.username)) return;
      current = s;
      login.hidden = true;
      document.getElementById("sign-out").hidden = false;
      document.getElementById("change-password").hidden = false;
      document.getElementById("who").textContent = s.username;
      if (s.must_change_password) {
        document.getElementById("phase").hidden = true;
        if (!document.getElementById("password-panel")) {
          main.insertBefore(passwordChange(() => start({ ...s, must_change_password: false })), login);
        }
        return;
      }
      if (!s.may || s.zone === undefined) {
        const me = await attempt(() => api("/api/me"));
        if (!me) return;
        s = { ...s, may: me.may ?? [], zone: me.gaming_day?.time_zone ?? null };
        current = s;
      }
      acts = s.may;
      casinoZone = s.zone;
      if (!forActs.some(may)) {
        // The server would refuse what the page offers: it offers nothing.
        say(t("common.wrong-role-for", { role: roleName(s.role) }));
        return;
      }
      document.getElementById(content).hidden = false;
      document.getElementById("phase").hidden = !tables;
      if (!tables) {
        document.getElementById("phase").hidden = true;
        onSession(s);
        return;
      }
      document.getElementById("table-label").hidden = false;
      const list = await attempt(() => api("/api/public/tables"));
      if (!list) return;
      select.replaceChildren(...list.tables.map((id) => el("option", { value: id, text: id })));
      const wanted = [new URLSearchParams(location.search).get("table"), sessionStorage.getItem(TABLE_KEY)].find((id) => list.tables.includes(id));
      const first = wanted ?? list.tables[0];
      if (!first) { say(t("common.no-tables")); return; }
      select.value = first;
      keepTable(first);
      onTable(first, s);
    };
    loginForm(form, start);
    if (sessionStorage.getItem(SESSION_OVER_KEY)) {
      sessionStorage.removeItem(SESSION_OVER_KEY);
      say(t("common.session-over-why"), "error");
    }
    resume(start);
  }

  // A table sign's limits (Colorado 2207, Maryland ch.1 G(3)): inside and
  // outside bets each in one line where their limits agree, else kind by kind.
  function limitsSign(kinds, currency) {
    const range = (k) => t("common.limit-range", { min: money(k.min, currency), max: money(k.max, currency) });
    const lines = [];
    for (const [inside, name] of [[true, t("common.inside-bets")], [false, t("common.outside-bets")]]) {
      const limited = kinds.filter((k) => k.inside === inside && k.min != null);
      if (!limited.length) continue;
      const ranges = new Set(limited.map(range));
      if (ranges.size === 1) lines.push(t("common.limits-each", { name, range: range(limited[0]) }));
      else lines.push(`${name}: ${limited.map((k) => `${betKind(k.kind)} ${range(k)}`).join(", ")}`);
    }
    return lines.length ? lines : [t("common.no-limits")];
  }

  // The players seated at a table with their chips (the report's
  // `players`), drawn into `box`, and what the signed-in user may do about
  // chips taken away from the table (european-casino 5.2, 5.5): record a
  // player's chips taken away, where the profile values such chips
  // (`canRecord`), and confirm the face value of chips recorded away
  // (`canConfirm`). A recording is asked once more first, for it cannot be
  // taken back; `state.asking` keeps that question across redraws.
  function seatedPlayers(box, players, options) {
    const { currency, canRecord, canConfirm, state, record, confirm } = options;
    const redraw = () => seatedPlayers(box, players, options);
    if (!players.some((x) => x.player === state.asking)) state.asking = null;
    const awayCell = (x) => {
      if (x.away) {
        const said = t(x.away.confirmed ? "common.taken-away-confirmed" : "common.taken-away-at", { at: clock(x.away.at_ms) });
        const parts = [el("span", { "data-away": x.player, text: said })];
        if (canConfirm && !x.away.confirmed) {
          parts.push(" ", el("button", { type: "button", "data-confirm-chips": x.player, text: t("common.confirm-face-value"), onclick: () => confirm(x.player) }));
        }
        return parts;
      }
      if (!canRecord) return ["–"];
      if (state.asking === x.player) {
        return [t("common.record-away-question", { player: x.player }) + " ",
          el("button", { type: "button", class: "danger", "data-record-away": x.player, text: t("common.record-it"), onclick: () => { state.asking = null; record(x.player); } }), " ",
          el("button", { type: "button", text: t("common.cancel"), onclick: () => { state.asking = null; redraw(); } })];
      }
      return [el("button", { type: "button", "data-take-away": x.player, text: t("common.chips-taken-away"), onclick: () => { state.asking = x.player; redraw(); } })];
    };
    const away = canRecord || players.some((x) => x.away);
    box.replaceChildren(el("table", { class: "data" },
      el("thead", {}, el("tr", {}, ...["common.player", "common.colour", "common.chip-value", "common.chips", ...(away ? ["common.away-from-table"] : [])].map((h) => el("th", { text: t(h) })))),
      el("tbody", { id: "players" }, ...(players.length
        ? players.map((x) => el("tr", { "data-player": x.player, "data-away": x.away ? "true" : "false" },
            el("td", { text: x.player }),
            el("td", {}, el("span", { class: "swatch", style: `background:${chipColour(x.colour)}` }), ` ${colourName(x.colour)}`),
            el("td", { text: money(x.chip_value, currency) }), el("td", { text: money(x.chips, currency) }),
            ...(away ? [el("td", {}, ...awayCell(x))] : [])))
        : [el("tr", {}, el("td", { colspan: away ? 5 : 4, class: "note", text: t("common.no-colour-chips") }))]))));
  }

  const when = (ms) => new Date(ms).toLocaleString(LOCALES[lang], inZone({ dateStyle: "short", timeStyle: "medium" }));

  // Those who supervise the game on the floor, by each document's title: the
  // pit supervisor (Colorado), the floorperson (Maryland), the floor manager
  // (low-limit house), the casino manager (european-casino).

  return { may, t, lang, locale: LOCALES[lang], translate, hasMessage, languagePicker, chooseLanguage, number, roleName, betKind, colourName, wheelWords, noticeWords, refusalWords, sayRefusal, connectionLost, connectionBack, phaseWords, gamingDay, gamingDayWords, watchServer: serverWatch.start, tableNews, colourOf, learnColours, money, parseMoney, whole, newId, intent, sendOnce, showReference, whenRefused, session, api, request, say, attempt, act, holding, follow, loginForm, resume, signOut, mount, el, when, clock, chipColour, inkOn, limitsSign, seatedPlayers, ApiFailure };
})();
