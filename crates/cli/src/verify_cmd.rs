//! `croupier verify --data DIR`: check the journal's chain and recompute every balance.

use std::io::Write;

use croupier_ledger::{verify, SqliteStorage, Storage};
use serde::Serialize;

use crate::wire;
use crate::{Failure, Format, Invalid};

#[derive(clap::Args)]
pub struct Args {
    /// The data directory a table server writes.
    #[arg(long)]
    data: std::path::PathBuf,
    #[arg(long, value_enum, default_value_t = Format::Text)]
    format: Format,
}

#[derive(Serialize)]
struct Report {
    entries: u64,
    transfers: u64,
    events: u64,
    accounts: usize,
    total: i128,
    ok: bool,
    /// Rounds rebuilt by replaying every request, when the replay succeeded.
    rounds_replayed: Option<u64>,
    problem: Option<String>,
    balances: std::collections::BTreeMap<String, i128>,
}

pub fn run(args: Args) -> Result<(), Failure> {
    let db = args.data.join(croupier_ledger::storage::DATABASE_FILE);
    if !db.is_file() {
        return Err(Invalid::one(format!("no journal at {}", db.display())).into());
    }
    let mut storage = SqliteStorage::open_read_only(&args.data).map_err(|e| anyhow::anyhow!("{e}"))?;
    let entries = storage.load().map_err(|e| anyhow::anyhow!("{e}"))?;
    let mut checked = verify(&entries);
    // With the chain intact, replay every request and compare every settlement.
    let mut replayed = None;
    if checked.first_problem.is_none() {
        match croupier_server::casino::replay(&entries) {
            Ok(casino) => replayed = Some(casino.tables().map(|t| t.table.round()).sum::<u64>()),
            Err(e) => checked.first_problem = Some((0, e.to_string())),
        }
    }
    let report = Report {
        entries: checked.entries,
        transfers: checked.transfers,
        events: checked.events,
        accounts: checked.balances.len(),
        total: checked.balances.values().sum(),
        ok: checked.first_problem.is_none(),
        rounds_replayed: replayed,
        problem: checked.first_problem.as_ref().map(|(seq, why)| {
            if *seq == 0 {
                why.clone()
            } else {
                format!("entry {seq}: {why}")
            }
        }),
        balances: checked
            .balances
            .iter()
            .map(|(a, b)| (a.name().to_string(), *b))
            .collect(),
    };
    let mut out = std::io::stdout().lock();
    match args.format {
        Format::Json => wire::write_json_line(&mut out, &report)?,
        Format::Text => {
            writeln!(
                out,
                "{} entries ({} transfers, {} events) over {} accounts",
                report.entries, report.transfers, report.events, report.accounts
            )?;
            for (account, balance) in &report.balances {
                writeln!(out, "  {account:<32} {balance:>16}")?;
            }
            writeln!(out, "total: {} (must be 0)", report.total)?;
            match &report.problem {
                None => writeln!(
                    out,
                    "journal verified: the chain is intact and every balance recomputes"
                )?,
                Some(p) => writeln!(out, "JOURNAL BROKEN at {p}")?,
            }
        }
    }
    match report.problem {
        None => Ok(()),
        Some(p) => Err(anyhow::anyhow!("the journal does not verify: {p}").into()),
    }
}
