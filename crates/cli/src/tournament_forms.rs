//! `croupier tournament forms`: a tournament's commands, one JSON line
//! each, run through the rules; then its forms. A line the rules refuse is
//! reported with its clause and changes nothing; a line that is not a
//! command stops the run before anything is printed.

use std::io::Write;
use std::path::Path;

use croupier_core::tournament::{Command, Tournament, TournamentConfig};
use croupier_core::Profile;
use croupier_profiles::tournament::parse_day;
use croupier_server::api::TournamentOrder;
use serde::Serialize;

use crate::{Failure, Invalid};

/// How the forms are printed.
#[derive(Clone, Copy, clap::ValueEnum)]
pub enum FormsFormat {
    Text,
    Json,
    /// Every form as CSV, one after another, each under a line naming it.
    Csv,
}

/// The largest script read, and the most lines in it.
const SCRIPT_SIZE_MAX_BYTES: u64 = 16 * 1024 * 1024;

/// Reads a line's command: the API's tournament order (`{"do": ...}`, as
/// `/api/requests` takes it), with the `day` it happens on, or the day of
/// the line before.
fn command(config: &TournamentConfig, raw: &str, day: &mut Option<time::Date>) -> Result<Command, String> {
    let mut value: serde_json::Value = serde_json::from_str(raw).map_err(|e| json_error(&e))?;
    if let Some(text) = value.as_object_mut().and_then(|o| o.remove("day")) {
        let text = text.as_str().ok_or("day: write it as \"YYYY-MM-DD\"")?;
        *day = Some(parse_day(text).map_err(|e| format!("day: {e}"))?);
    }
    let order: TournamentOrder = serde_json::from_value(value).map_err(|e| json_error(&e))?;
    let day = day.ok_or("give the day it happens on (\"day\": \"YYYY-MM-DD\"); later lines keep it")?;
    order.command(day, |name| {
        config
            .spec()
            .events
            .iter()
            .position(|e| e.name == name)
            .ok_or_else(|| format!("{name:?} is not an event of this tournament"))
    })
}

/// serde's own position counts the one line it was given: the column is what helps.
fn json_error(e: &serde_json::Error) -> String {
    let text = e.to_string();
    let what = text.rfind(" at line ").map_or(text.as_str(), |at| &text[..at]);
    if e.column() > 0 {
        format!("column {}: {what}", e.column())
    } else {
        what.to_string()
    }
}

#[derive(Serialize)]
struct Outcome {
    line: usize,
    /// `None`: done; otherwise why the rules refused it.
    refused: Option<String>,
}

#[derive(Serialize)]
struct EntryRow {
    entry: u32,
    player: String,
    event: String,
    day: String,
    status: &'static str,
    fee_paid: &'static str,
    fee_minor: u64,
    buy_in_paid: &'static str,
    buy_in_minor: u64,
    rebuys: u32,
    rebuys_minor: u64,
    note: String,
}

#[derive(Serialize)]
struct PayoutRow {
    event: String,
    place: u32,
    entry: u32,
    player: String,
    prize: String,
    value_minor: u64,
    payout: bool,
    by_split: bool,
}

#[derive(Serialize)]
struct PoolRow {
    what: String,
    amount_minor: i128,
    balance_minor: i128,
}

#[derive(Serialize)]
struct ProceedsRow {
    month: String,
    proceeds_minor: u64,
}

#[derive(Serialize)]
struct Forms {
    tournament: String,
    concluded: bool,
    lines: Vec<Outcome>,
    entries: Vec<EntryRow>,
    payouts: Vec<PayoutRow>,
    proceeds: Vec<ProceedsRow>,
    pool: Vec<PoolRow>,
    pool_left_minor: u64,
    vouchers_held_minor: u64,
}

pub fn run(
    profile: &Profile,
    config: TournamentConfig,
    script: &Path,
    format: FormsFormat,
    out: &mut impl Write,
) -> Result<(), Failure> {
    let shown = script.display().to_string();
    let size = std::fs::metadata(script)
        .map_err(|e| Invalid::one(format!("{shown}: {e}")))?
        .len();
    if size > SCRIPT_SIZE_MAX_BYTES {
        return Err(Invalid::one(format!("{shown}: larger than {SCRIPT_SIZE_MAX_BYTES} bytes")).into());
    }
    let text = std::fs::read_to_string(script).map_err(|e| Invalid::one(format!("{shown}: {e}")))?;
    // Every line is read before any runs: a script with a bad line runs none.
    let mut commands = Vec::new();
    let mut day = None;
    for (i, raw) in text.lines().enumerate() {
        if raw.trim().is_empty() {
            continue;
        }
        let c = command(&config, raw, &mut day).map_err(|e| Invalid::one(format!("{shown}: line {}: {e}", i + 1)))?;
        commands.push((i + 1, c));
    }
    let mut t = Tournament::new(config);
    let mut lines = Vec::new();
    for (n, c) in commands {
        lines.push(Outcome {
            line: n,
            refused: t.execute(c).err().map(|e| e.to_string()),
        });
    }
    let forms = Forms {
        tournament: t.config().spec().id.clone(),
        concluded: t.concluded,
        lines,
        entries: t
            .entry_form()
            .into_iter()
            .map(|e| EntryRow {
                entry: e.entry,
                player: e.player,
                event: e.event,
                day: e.day,
                status: e.status,
                fee_paid: e.fee_paid,
                fee_minor: e.fee_minor,
                buy_in_paid: e.buy_in_paid,
                buy_in_minor: e.buy_in_minor,
                rebuys: e.rebuys,
                rebuys_minor: e.rebuys_minor,
                note: e.note,
            })
            .collect(),
        payouts: t
            .payout_form()
            .into_iter()
            .map(|p| PayoutRow {
                event: p.event,
                place: p.place,
                entry: p.entry,
                player: p.player,
                prize: p.prize,
                value_minor: p.value_minor,
                payout: p.payout,
                by_split: p.by_split,
            })
            .collect(),
        proceeds: t
            .proceeds_by_month()
            .into_iter()
            .map(|(month, proceeds_minor)| ProceedsRow { month, proceeds_minor })
            .collect(),
        pool: t
            .pool_account()
            .into_iter()
            .map(|l| PoolRow {
                what: l.what,
                amount_minor: l.amount_minor,
                balance_minor: l.balance_minor,
            })
            .collect(),
        pool_left_minor: t.pool,
        vouchers_held_minor: t.vouchers_held,
    };
    match format {
        FormsFormat::Json => {
            serde_json::to_writer_pretty(&mut *out, &forms).map_err(anyhow::Error::from)?;
            writeln!(out)?;
        }
        FormsFormat::Csv => {
            // The refusals first, as comments: a CSV reader skips them, a person does not.
            for l in &forms.lines {
                if let Some(why) = &l.refused {
                    writeln!(out, "# refused: line {}: {why}", l.line)?;
                }
            }
            write!(out, "{}", croupier_profiles::tournament::forms_csv(&t))?
        }
        FormsFormat::Text => write_text(&forms, &profile.spec().currency, out)?,
    }
    Ok(())
}

fn money(minor: i128) -> String {
    let sign = if minor < 0 { "-" } else { "" };
    let m = minor.unsigned_abs();
    format!("{sign}{}.{:02}", m / 100, m % 100)
}

fn write_text(f: &Forms, currency: &str, out: &mut impl Write) -> std::io::Result<()> {
    for l in &f.lines {
        if let Some(why) = &l.refused {
            writeln!(out, "line {}: refused: {why}", l.line)?;
        }
    }
    writeln!(
        out,
        "Tournament form (2213.01): {} entries, amounts in {currency}",
        f.entries.len()
    )?;
    writeln!(
        out,
        "{:>5}  {:<16} {:<12} {:<10} {:<12} {:>24} {:>24} {:>10}  note",
        "entry", "player", "event", "day", "status", "fee", "buy-in", "re-buys"
    )?;
    for e in &f.entries {
        writeln!(
            out,
            "{:>5}  {:<16} {:<12} {:<10} {:<12} {:>24} {:>24} {:>10}  {}",
            e.entry,
            e.player,
            e.event,
            e.day,
            e.status,
            format!("{} {}", money(e.fee_minor.into()), e.fee_paid),
            format!("{} {}", money(e.buy_in_minor.into()), e.buy_in_paid),
            money(e.rebuys_minor.into()),
            e.note
        )?;
    }
    writeln!(out)?;
    writeln!(out, "Prize payout form (2213.02)")?;
    for p in &f.payouts {
        let place = if p.by_split {
            "split".to_string()
        } else {
            p.place.to_string()
        };
        writeln!(
            out,
            "  {:<12} place {:<5} {:<16} {:>12}  {}{}",
            p.event,
            place,
            p.player,
            money(p.value_minor.into()),
            p.prize,
            if p.payout { "" } else { " (a buy-in, not a payout)" }
        )?;
    }
    writeln!(out)?;
    writeln!(out, "Adjusted gross proceeds by month (2213.01)")?;
    for p in &f.proceeds {
        writeln!(out, "  {}  {:>12}", p.month, money(p.proceeds_minor.into()))?;
    }
    writeln!(out)?;
    writeln!(out, "Prize pool (2213.05)")?;
    for l in &f.pool {
        writeln!(
            out,
            "  {:<48} {:>12} {:>12}",
            l.what,
            money(l.amount_minor),
            money(l.balance_minor)
        )?;
    }
    writeln!(
        out,
        "Left in the pool: {}; vouchers held: {}; {}",
        money(f.pool_left_minor.into()),
        money(f.vouchers_held_minor.into()),
        if f.concluded { "concluded" } else { "not concluded" }
    )?;
    Ok(())
}
