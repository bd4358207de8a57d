// A gaming day's books worked out from the journal alone, as an auditor
// would from `croupier entries` (harness.mjs's journalEntries), with none of
// the server's code: each figure a sum of the transfers between the accounts
// docs/api.md names (crates/cli/tests/day_report.rs does the same in Rust).
// A browser test compares every figure a report page shows with these.

// The object in `v` that holds a request's body (actor, request, events);
// a body may be stored as JSON text.
function bodyIn(v) {
  if (typeof v === "string" && v.startsWith("{")) {
    try { return bodyIn(JSON.parse(v)); } catch { return null; }
  }
  if (Array.isArray(v)) { for (const x of v) { const b = bodyIn(x); if (b) return b; } return null; }
  if (v && typeof v === "object") {
    if ("request" in v && "actor" in v) return v;
    for (const x of Object.values(v)) { const b = bodyIn(x); if (b) return b; }
  }
  return null;
}

// Each entry: its time, its maker, its request, its events and its transfers.
export function readEntries(lines) {
  return lines.map((line) => {
    const record = line.record;
    const transfers = record.type === "commit" ? record.transfers ?? [] : record.type === "transfer" ? [record] : [];
    const body = bodyIn(record) ?? {};
    return {
      at_ms: line.at_ms,
      actor: body.actor?.username ?? "",
      request: body.request ?? {},
      events: body.events ?? [],
      transfers: transfers.map((t) => ({ id: t.id, from: t.from, to: t.to, amount: t.amount })),
    };
  });
}

// The gaming day `at_ms` falls in, `YYYY-MM-DD`: the local date in `zone`,
// the day before while the local time is before `startsAt` (`HH:MM`).
export function gamingDayOf(atMs, zone = "UTC", startsAt = "00:00") {
  const parts = Object.fromEntries(new Intl.DateTimeFormat("en-CA", {
    timeZone: zone, year: "numeric", month: "2-digit", day: "2-digit", hour: "2-digit", minute: "2-digit", hourCycle: "h23",
  }).formatToParts(new Date(atMs)).map((p) => [p.type, p.value]));
  let date = Date.UTC(Number(parts.year), Number(parts.month) - 1, Number(parts.day));
  if (`${parts.hour}:${parts.minute}` < startsAt) date -= 86_400_000;
  return new Date(date).toISOString().slice(0, 10);
}

// The requests by which a staff member runs a table's game: its maker is the
// dealer on duty from it on (the server's own wheel and timers change no one).
const RUNS_GAME = new Set(["open_table", "open_betting", "no_more_bets", "spin", "draw"]);
const empty = () => ({ drop: 0, drop_cash: 0, drop_wallet: 0, fills: 0, credits: 0, win: 0, cashed_out: 0, tips: 0, rounds: 0, open_ms: 0 });

// Hold and pace as the server rounds them (toward zero), null without drop or open play.
export const holdOf = (f) => (f.drop > 0 ? Math.trunc((f.win * 10_000) / f.drop) : null);
export const paceOf = (f) => (f.open_ms > 0 ? Math.trunc((f.rounds * 360_000_000) / f.open_ms) : null);

// Gaming day `day`'s books of every table in `tables`, the casino's sums and
// each dealer's share, from `entries` (readEntries). Each entry's day is
// the casino's gaming day as set when it was written (a UTC day until an
// admin's `set_gaming_day`).
export function dayBooks(entries, tables, day) {
  let zone = "UTC", startsAt = "00:00";
  const books = Object.fromEntries(tables.map((t) => [t, { ...empty(), float_open: 0 }]));
  const dealers = {};
  const onDuty = {}, openSince = {};
  const share = (name) => (dealers[name] ??= { ...empty(), tables: new Set() });
  for (const e of entries) {
    const written = gamingDayOf(e.at_ms, zone, startsAt);
    const today = written === day;
    for (const t of tables) {
      const b = books[t];
      const own = e.request.table === t;
      const float = `float:${t}`;
      if (own && RUNS_GAME.has(e.request.op) && e.actor !== "system") onDuty[t] = e.actor;
      const dealer = onDuty[t] ?? "-";
      // Open play: the time since the table's entry before, while it is open.
      if (own && openSince[t] !== undefined && today) b.open_ms += e.at_ms - openSince[t];
      for (const { from, to, amount } of e.transfers) {
        let name = null, value = amount;
        if (from === "outside" && to === `drop:${t}`) name = "drop_cash";
        else if (from.startsWith("wallet:") && to.startsWith(`chips:${t}:`)) name = "drop_wallet";
        else if (from === "house" && to === float) name = "fills";
        else if (from === float && to === "house") name = "credits";
        else if (from === float) { name = "win"; value = -amount; }
        else if (to === float) name = "win";
        else if (from.startsWith(`chips:${t}:`) && to.startsWith("wallet:")) name = "cashed_out";
        else if (to === `tips:${t}`) name = "tips";
        // The day opens with the float as the days before left it.
        if (written < day && from === float) b.float_open -= amount;
        if (written < day && to === float) b.float_open += amount;
        if (!name || !today) continue;
        b[name] += value;
        if (name === "drop_cash" || name === "drop_wallet") b.drop += value;
        // A dealer's share: the drop and the float's play while on duty.
        if (name === "drop_cash" || name === "drop_wallet" || name === "win") {
          const s = share(dealer);
          s[name] += value;
          if (name !== "win") s.drop += value;
          s.tables.add(t);
        }
      }
      if (own && today && e.events.some((v) => v.type === "round_settled" && v.pocket != null)) {
        b.rounds += 1;
        share(dealer).rounds += 1;
        share(dealer).tables.add(t);
      }
      if (own) {
        const opened = e.events.some((v) => v.type === "table_opened");
        const closed = e.events.some((v) => v.type === "table_closed");
        if ((openSince[t] !== undefined || opened) && !closed) openSince[t] = e.at_ms;
        else delete openSince[t];
      }
    }
    if (e.request.op === "set_gaming_day" && e.events.some((v) => v.type === "gaming_day_set")) {
      ({ time_zone: zone, starts_at: startsAt } = e.request);
    }
  }
  const casino = empty();
  for (const t of tables) {
    const b = books[t];
    b.float_close = b.float_open + b.fills - b.credits + b.win;
    for (const k of Object.keys(casino)) casino[k] += b[k];
  }
  for (const s of Object.values(dealers)) s.tables = [...s.tables].sort();
  return { tables: books, casino, dealers };
}
