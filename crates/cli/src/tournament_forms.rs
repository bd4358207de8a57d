//! `croupier tournament forms`: a tournament's commands, one JSON line
//! each, run through the rules; then its forms. A line the rules refuse is
//! reported with its clause and changes nothing; a line that is not a
//! command stops the run before anything is printed.

use std::io::Write;
use std::path::Path;

use croupier_core::tournament::{Command, Paid, Tournament, TournamentConfig};
use croupier_core::Profile;
use croupier_profiles::tournament::parse_day;
use serde::{Deserialize, Serialize};

use crate::tournament_cmd::FormsFormat;
use crate::{Failure, Invalid};

/// The largest script read, and the most lines in it.
const SCRIPT_SIZE_MAX_BYTES: u64 = 16 * 1024 * 1024;

#[derive(Deserialize)]
#[serde(tag = "command", rename_all = "snake_case", deny_unknown_fields)]
enum Line {
    FileRules {
        day: String,
    },
    Register {
        day: String,
        player: String,
        event: String,
        fee: PaidLine,
        buy_in: PaidLine,
        #[serde(default)]
        qualified: bool,
    },
    Start {
        day: String,
        event: String,
    },
    Rebuy {
        entry: u32,
        paid: PaidLine,
        points: u64,
        #[serde(default = "yes")]
        between_games: bool,
    },
    Eliminate {
        entry: u32,
        #[serde(default)]
        points: u64,
    },
    Withdraw {
        entry: u32,
    },
    Cancel {
        reason: String,
    },
    Disqualify {
        player: String,
        reason: String,
    },
    End {
        event: String,
        points: Vec<(u32, u64)>,
    },
    ProposeSplit {
        event: String,
        places: Vec<u32>,
        shares: Vec<(u32, u64)>,
    },
    AgreeSplit {
        entry: u32,
    },
    RefuseSplit {
        reason: String,
    },
    ConfirmSplit {
        points: Vec<(u32, u64)>,
    },
    Conclude,
}

fn yes() -> bool {
    true
}

#[derive(Deserialize)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
enum PaidLine {
    Cash,
    Complimentary,
    NonCash(String),
    Voucher(u32),
}

impl PaidLine {
    fn paid(self) -> Paid {
        match self {
            PaidLine::Cash => Paid::Cash,
            PaidLine::Complimentary => Paid::Complimentary,
            PaidLine::NonCash(item) => Paid::NonCash { item },
            PaidLine::Voucher(number) => Paid::Voucher { number },
        }
    }
}

fn command(config: &TournamentConfig, n: usize, line: Line) -> Result<Command, String> {
    let day = |text: &str| parse_day(text).map_err(|e| format!("line {n}: day: {e}"));
    let event = |name: &str| {
        config
            .spec()
            .events
            .iter()
            .position(|e| e.name == name)
            .ok_or_else(|| format!("line {n}: {name:?} is not an event of this tournament"))
    };
    Ok(match line {
        Line::FileRules { day: d } => Command::FileRules { day: day(&d)? },
        Line::Register {
            day: d,
            player,
            event: e,
            fee,
            buy_in,
            qualified,
        } => Command::Register {
            player,
            event: event(&e)?,
            fee: fee.paid(),
            buy_in: buy_in.paid(),
            qualified,
            day: day(&d)?,
        },
        Line::Start { day: d, event: e } => Command::Start {
            event: event(&e)?,
            day: day(&d)?,
        },
        Line::Rebuy {
            entry,
            paid,
            points,
            between_games,
        } => Command::Rebuy {
            entry,
            paid: paid.paid(),
            points,
            between_games,
        },
        Line::Eliminate { entry, points } => Command::Eliminate { entry, points },
        Line::Withdraw { entry } => Command::Withdraw { entry },
        Line::Cancel { reason } => Command::Cancel { reason },
        Line::Disqualify { player, reason } => Command::Disqualify { player, reason },
        Line::End { event: e, points } => Command::End {
            event: event(&e)?,
            points,
        },
        Line::ProposeSplit {
            event: e,
            places,
            shares,
        } => Command::ProposeSplit {
            event: event(&e)?,
            places,
            shares,
        },
        Line::AgreeSplit { entry } => Command::AgreeSplit { entry },
        Line::RefuseSplit { reason } => Command::RefuseSplit { reason },
        Line::ConfirmSplit { points } => Command::ConfirmSplit { points },
        Line::Conclude => Command::Conclude,
    })
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
    for (i, raw) in text.lines().enumerate() {
        if raw.trim().is_empty() {
            continue;
        }
        let line: Line = serde_json::from_str(raw).map_err(|e| {
            // serde's own position counts the one line it was given: the column is what helps.
            let text = e.to_string();
            let what = text.rfind(" at line ").map_or(text.as_str(), |at| &text[..at]);
            Invalid::one(format!("{shown}: line {}, column {}: {what}", i + 1, e.column()))
        })?;
        commands.push((
            i + 1,
            command(&config, i + 1, line).map_err(|e| Invalid::one(format!("{shown}: {e}")))?,
        ));
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
