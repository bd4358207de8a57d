//! `croupier entries`: the journal's entries as JSON lines, each record as
//! its hash covers it, each checked in the chain before it is printed. The journal stores records compressed, so `sqlite3`
//! shows bytes; this reads a data directory, or the folder a recovery copied
//! the journal into (to settle the bets of the entries it cut).

use std::io::Write;
use std::path::PathBuf;

use croupier_ledger::Database;
use serde::Serialize;

use crate::{wire, Failure, Invalid};

#[derive(clap::Args)]
pub struct Args {
    /// The data directory, or a folder `croupier recover` copied the journal into.
    #[arg(long, required_unless_present = "database")]
    data: Option<PathBuf>,
    /// The first entry to print.
    #[arg(long, default_value_t = 1)]
    from: u64,
    /// The last entry to print (by default the journal's last).
    #[arg(long)]
    to: Option<u64>,
    /// Print past an entry that is not as its hash covers (the one a
    /// recovery cut at, in its copy), each line saying whether it is.
    #[arg(long)]
    unchecked: bool,
    /// The journal on a PostgreSQL server (postgres://...) that a casino of
    /// several nodes shares, read there instead of in --data.
    #[arg(long, env = "CROUPIER_DATABASE", hide_env_values = true)]
    database: Option<String>,
    /// A folder the journal's segments were archived to (each a gaming
    /// day's entries, `DATA/segments/DAY.db`): looked in after the data
    /// directory's own `segments`. Give it once per folder.
    #[arg(long, value_name = "DIR")]
    segments: Vec<std::path::PathBuf>,
}

#[derive(Serialize)]
struct Line<'a> {
    seq: u64,
    at_ms: u64,
    hash: String,
    /// Whether the entry is as its hash covers, after the entry before it.
    in_chain: bool,
    /// The record as stored and hashed: JSON.
    record: &'a serde_json::value::RawValue,
}

pub fn run(args: Args) -> Result<(), Failure> {
    let Args {
        data,
        from,
        to,
        unchecked,
        database,
        segments,
    } = args;
    let database = match (&data, database) {
        (_, Some(url)) => Database::of(std::path::Path::new(""), Some(&url)).map_err(Invalid::one)?,
        (Some(data), None) => {
            crate::journal_at(data)?;
            Database::Sqlite(data.clone())
        }
        (None, None) => return Err(Invalid::one("give --data DIR, or --database postgres://...").into()),
    };
    let to = to.unwrap_or(u64::MAX);
    if from == 0 {
        return Err(Invalid::one("--from 0: entries are numbered from 1").into());
    }
    if to < from {
        return Err(Invalid::one(format!("--to {to} is before --from {from}")).into());
    }
    let mut storage = database.open_read_only().map_err(|e| anyhow::anyhow!("{e}"))?;
    crate::read_segments_from(&mut storage, &segments)?;
    // Each entry is checked in the chain before it is printed: from the
    // hash of the entry before the first, an entry not as its hash covers
    // it (or out of place) ends the print, named, and fails.
    let cannot = |e: &dyn std::fmt::Display| anyhow::anyhow!("{e}");
    let before = match from - 1 {
        0 => Some([0; 32]),
        n => storage.hash_of(n).map_err(|e| cannot(&e))?,
    };
    let Some(before) = before else {
        return Err(Invalid::one(format!(
            "the journal has no entry {}: it ends before --from {from}, or that entry is missing",
            from - 1
        ))
        .into());
    };
    let mut chain = croupier_ledger::Verifier::chain_after(from - 1, before);
    let mut head = (from - 1, before);
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    let mut written: std::io::Result<()> = Ok(());
    let read = storage.each_between(from - 1, to, &mut |entry| {
        // Unchecked, each entry is held to its own hash and the one printed before it.
        let in_chain = match unchecked {
            false => chain.check(&entry),
            true => {
                let own = croupier_ledger::journal::entry_hash(&entry.prev_hash, entry.seq, entry.at_ms, &entry.text);
                own == entry.hash && head == (entry.seq - 1, entry.prev_hash)
            }
        };
        head = (entry.seq, entry.hash);
        if !in_chain && !unchecked {
            return false;
        }
        written = match serde_json::value::RawValue::from_string(entry.text) {
            Ok(record) => wire::write_json_line(
                &mut out,
                &Line {
                    seq: entry.seq,
                    at_ms: entry.at_ms,
                    hash: hex::encode(entry.hash),
                    in_chain,
                    record: &record,
                },
            ),
            Err(e) => Err(std::io::Error::other(e)),
        };
        written.is_ok()
    });
    // A reader that stops early (`| head`) is no failure.
    match written.and_then(|()| out.flush()) {
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => return Ok(()),
        other => other?,
    }
    read.map_err(|e| cannot(&e))?;
    match chain.finish().first_problem {
        Some((seq, why)) if !unchecked => Err(cannot(&format!(
            "entry {seq}: {why}; the entries before it are printed (--unchecked prints on, each line saying whether it is in the chain)"
        ))
        .into()),
        _ => Ok(()),
    }
}
