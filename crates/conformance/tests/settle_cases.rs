//! Every row of cases/settle.txt, settled through the core.

use std::path::Path;

use croupier_conformance::{parse_cases, Case};
use croupier_core::{BetRequest, Pocket, TableRules, Wheel, ZeroChoice};

fn run(case: &Case) -> Result<(), String> {
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
    let profile = if case.profile.ends_with(".toml") {
        croupier_profiles::load_file(&manifest.join(&case.profile))
    } else {
        croupier_profiles::load(&case.profile)
    }
    .map_err(|e| e.to_string())?;
    let wheel = Wheel::parse(&case.wheel).ok_or("wheel")?;
    let rules = TableRules::new(&profile, wheel, case.in_prison).map_err(|e| e.to_string())?;
    let zero_choice = case
        .zero_choice
        .as_deref()
        .map(|c| ZeroChoice::parse(c).ok_or("zero choice"))
        .transpose()?;
    let bet = rules
        .place(&BetRequest {
            spot: &case.spot,
            stake_minor: case.stake,
            zero_choice,
            coupon_minor: case.coupon.then_some(case.stake),
        })
        .map_err(|e| format!("refused: {e}"))?;
    let spins: Vec<Pocket> = case
        .pockets
        .iter()
        .map(|p| Pocket::parse(p).ok_or(format!("pocket {p}")))
        .collect::<Result<_, _>>()?;
    let s = rules.settle(&bet, &spins);
    let got = (s.outcome.name(), s.returned.get(), s.held.get());
    let want = (case.result.as_str(), case.returned, case.held);
    if got != want {
        return Err(format!("got {got:?}, want {want:?}"));
    }
    if s.net() != i128::from(s.returned.get()) - case.stake {
        return Err("net is not returned - staked".into());
    }
    Ok(())
}

#[test]
fn hand_worked_settlements() {
    let text = include_str!("../cases/settle.txt");
    let cases = parse_cases(text).expect("case table parses");
    assert!(cases.len() >= 100, "{} cases", cases.len());
    let failures: Vec<String> = cases
        .iter()
        .filter_map(|c| {
            run(c)
                .err()
                .map(|e| format!("line {} {} {} {} ({}): {e}", c.line, c.profile, c.wheel, c.spot, c.cite))
        })
        .collect();
    assert!(
        failures.is_empty(),
        "{} of {} cases failed:\n{}",
        failures.len(),
        cases.len(),
        failures.join("\n")
    );
}

#[test]
fn every_kind_on_every_wheel_has_a_case() {
    let cases = parse_cases(include_str!("../cases/settle.txt")).expect("parses");
    let mut missing = Vec::new();
    for wheel in croupier_core::ALL_WHEELS {
        for name in croupier_profiles::builtin_names() {
            let profile = croupier_profiles::load(name).expect("loads");
            if !profile.offers_wheel(wheel) {
                continue;
            }
            for kind in profile.kinds_on(wheel) {
                let worked = cases.iter().any(|c| {
                    c.wheel == wheel.name()
                        && croupier_core::Spot::parse(&c.spot, wheel).is_ok_and(|s| s.kind() == kind)
                });
                let entry = format!("{kind} on {}", wheel.name());
                if !worked && !missing.contains(&entry) {
                    missing.push(entry);
                }
            }
        }
    }
    assert!(missing.is_empty(), "no hand-worked case for: {}", missing.join(", "));
}

#[test]
fn case_table_rejects_rows_without_a_citation() {
    assert!(parse_cases("maryland | single-zero | - | 17 | 100 | 17 | win | 3600 | ").is_err());
    assert!(parse_cases("maryland | single-zero | - | 17 | 100").is_err());
}
