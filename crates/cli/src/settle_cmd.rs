//! `croupier settle`: bets as JSON lines on stdin, one result line per bet.

use std::collections::HashSet;
use std::io::{BufRead, BufWriter, Read, Write};

use croupier_core::{BetRequest, PlacedBet, Pocket, BETS_PER_ROUND_MAX};

use crate::wire::{self, BetLine, SettledLine, BET_ID_MAX_BYTES};
use crate::{Failure, Invalid};

/// The longest input line, in bytes.
pub const LINE_MAX_BYTES: usize = 64 * 1024;
/// The most spins one run may settle over.
pub const SPINS_MAX: usize = 10_000;

#[derive(clap::Args)]
pub struct Args {
    #[command(flatten)]
    play: wire::PlayArgs,
    /// Consecutive spins' pockets, e.g. 17 or 0,17,00.
    #[arg(long, value_delimiter = ',', required = true)]
    pockets: Vec<String>,
}

pub fn run(args: Args) -> Result<(), Failure> {
    let profile = wire::load_profile(&args.play.table.profile)?;
    let wheel = wire::wheel_named(args.play.table.wheel.as_deref(), &profile)?;
    let rules = wire::table_rules(&profile, wheel, args.play.in_prison)?;

    if args.pockets.len() > SPINS_MAX {
        return Err(Invalid::one(format!("at most {SPINS_MAX} pockets, got {}", args.pockets.len())).into());
    }
    let mut spins = Vec::with_capacity(args.pockets.len());
    let mut errors = Vec::new();
    for (i, label) in args.pockets.iter().enumerate() {
        match Pocket::parse(label.trim()) {
            Some(p) if wheel.pockets().contains(p) => spins.push(p),
            Some(p) => errors.push(format!("pocket {} ({p}) is not on the {}", i + 1, wheel.description())),
            None => errors.push(format!(
                "pocket {} ({label:?}) is not a pocket: 0, 00, 000 or 1 to 36",
                i + 1
            )),
        }
    }

    // Read and check every line before writing anything: bad input gives no results at all.
    let stdin = std::io::stdin();
    let mut bets: Vec<(String, String, PlacedBet)> = Vec::new();
    let mut seen = HashSet::new();
    let mut line = String::new();
    let mut reader = stdin.lock();
    let mut number = 0usize;
    loop {
        line.clear();
        let read = (&mut reader).take(LINE_MAX_BYTES as u64 + 1).read_line(&mut line)?;
        if read == 0 {
            break;
        }
        number += 1;
        if line.len() > LINE_MAX_BYTES {
            errors.push(format!("line {number}: longer than {LINE_MAX_BYTES} bytes"));
            // Skip the rest of the over-long line.
            let mut rest = Vec::new();
            reader.read_until(b'\n', &mut rest)?;
            continue;
        }
        if line.trim().is_empty() {
            continue;
        }
        if bets.len() >= BETS_PER_ROUND_MAX {
            errors.push(format!("line {number}: more than {BETS_PER_ROUND_MAX} bets"));
            break;
        }
        match parse_line(&rules, line.trim(), &mut seen) {
            Ok(bet) => bets.push(bet),
            Err((id, message)) => {
                let id = id.map(|id| format!(" (id {id:?})")).unwrap_or_default();
                errors.push(format!("line {number}{id}: {message}"));
            }
        }
    }
    if !errors.is_empty() {
        return Err(Invalid(errors).into());
    }

    let stdout = std::io::stdout();
    let mut out = BufWriter::new(stdout.lock());
    for (id, spot, bet) in &bets {
        let s = rules.settle(bet, &spins);
        let decided = s.decided_by;
        let line = SettledLine {
            id,
            spot,
            kind: bet.kind().name(),
            staked: s.staked.get(),
            returned: s.returned.get(),
            net: s.net(),
            result: s.outcome.name(),
            pocket: decided.map(|i| spins[i].label()),
            spin: decided.map(|i| i + 1),
            held: s.held.get(),
            coupon: bet.coupon().get(),
            excess: bet.excess().get(),
            under_minimum: bet.under_minimum(),
        };
        wire::write_json_line(&mut out, &line)?;
    }
    out.flush()?;
    Ok(())
}

type LineError = (Option<String>, String);

fn parse_line(
    rules: &croupier_core::TableRules<'_>,
    line: &str,
    seen: &mut HashSet<String>,
) -> Result<(String, String, PlacedBet), LineError> {
    let value: serde_json::Value = serde_json::from_str(line).map_err(|e| (None, format!("bad JSON: {e}")))?;
    let named = value.get("id").and_then(|v| v.as_str()).map(str::to_string);
    let parsed: BetLine = serde_json::from_value(value).map_err(|e| (named, format!("bad bet: {e}")))?;
    let id = parsed.id.clone();
    let fail = |message: String| (Some(id.clone()), message);
    if id.is_empty() || id.len() > BET_ID_MAX_BYTES {
        return Err(fail(format!("id must be 1 to {BET_ID_MAX_BYTES} bytes")));
    }
    if !seen.insert(id.clone()) {
        return Err(fail("id is used by an earlier bet".to_string()));
    }
    let stake_minor = wire::minor_units("stake", &parsed.stake).map_err(&fail)?;
    let zero_choice = parsed
        .zero_choice
        .as_deref()
        .map(wire::zero_choice)
        .transpose()
        .map_err(&fail)?;
    let coupon_minor = parsed
        .coupon
        .as_ref()
        .map(|c| wire::minor_units("coupon", c))
        .transpose()
        .map_err(&fail)?;
    let bet = rules
        .place(&BetRequest {
            spot: &parsed.spot,
            stake_minor,
            zero_choice,
            coupon_minor,
        })
        .map_err(|e| fail(format!("spot {:?}: {e}", parsed.spot)))?;
    Ok((id, parsed.spot, bet))
}
