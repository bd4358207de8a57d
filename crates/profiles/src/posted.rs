//! The house rules a casino posts for a profile (Colorado 2208), as text:
//! printed by `croupier rules` and shown on the player terminal.

use std::io::Write;

use croupier_core::{EvenMoneyOnZero, Kind, NoSpinBets, OverMaximum, Profile, UnderMinimum, Wheel};

fn money(minor: u64, currency: &str) -> String {
    format!("{currency} {}.{:02}", minor / 100, minor % 100)
}

/// The posted rules for `profile` on `wheels`, as one text.
pub fn house_rules_text(profile: &Profile, wheels: &[Wheel]) -> String {
    let mut out = Vec::new();
    // Writing to memory cannot fail.
    let _ = write_house_rules(&mut out, profile, wheels);
    String::from_utf8_lossy(&out).into_owned()
}

/// Writes the posted rules for `profile` on `wheels`.
pub fn write_house_rules(out: &mut impl Write, profile: &Profile, wheels: &[Wheel]) -> std::io::Result<()> {
    let spec = profile.spec();
    let title = format!("HOUSE RULES: ROULETTE - {}", spec.title);
    writeln!(out, "{title}\n{}", "=".repeat(title.chars().count()))?;
    writeln!(out, "Under: {}", spec.source)?;
    writeln!(out)?;
    for &wheel in wheels {
        writeln!(out, "WHEEL: {}", wheel.description())?;
        if wheel.used_as_single_zero() {
            // Colorado 2210(2)(c)(ii), Maryland ch.1 F(2).
            writeln!(
                out,
                "  NOTICE: This double zero wheel is being used as a single zero wheel."
            )?;
            writeln!(
                out,
                "  NOTICE: Double zero (00) is not an available wager; the 00 area is covered."
            )?;
            writeln!(
                out,
                "  NOTICE: If the ball comes to rest in 00, the spin is void and the wheel is spun again."
            )?;
            writeln!(
                out,
                "  NOTICE: Wagers on red, black, odd, even, 1 to 18 and 19 to 36 lose if the ball comes to rest in 0."
            )?;
        }
        writeln!(out, "  {:<58} {:>10}  limits", "wager", "pays")?;
        for kind in profile.kinds_on(wheel) {
            let pays = match kind {
                Kind::Neighbours | Kind::Complete => "(each part)".to_string(),
                k => format!("{} to 1", profile.payout(k).unwrap_or(0)),
            };
            let limits = profile
                .limit(kind)
                .map(|r| {
                    format!(
                        "{} - {}",
                        money(r.min.get(), &spec.currency),
                        money(r.max.get(), &spec.currency)
                    )
                })
                .unwrap_or_else(|| "as posted at the table".to_string());
            let mut description = kind.description().to_string();
            if kind == Kind::Trio {
                let groups: Vec<String> = spec
                    .trios
                    .iter()
                    .filter(|t| t.is_subset_of(wheel.bettable()))
                    .filter(|&&t| croupier_core::inside_spots(wheel.layout()).contains(&(Kind::Trio, t)))
                    .map(|t| t.notation())
                    .collect();
                description = format!("{description} ({})", groups.join(", "));
            }
            writeln!(out, "  {description:<58} {pays:>10}  {limits}")?;
        }
        writeln!(out)?;
    }
    writeln!(out, "ZERO RULES")?;
    match (spec.zero.in_prison_offered, spec.zero.even_money_on_zero) {
        (true, _) => {
            writeln!(
                out,
                "  Even-money wagers lose when the ball lands in a zero, unless the table offers In Prison:"
            )?;
            writeln!(
                out,
                "  on 0 (not 00) the player may take back half of the wager or leave it in prison for the next"
            )?;
            writeln!(
                out,
                "  spin; a win releases it, anything else (a second zero included) loses it. A wager left alone"
            )?;
            writeln!(out, "  stays in prison.")?;
        }
        (false, EvenMoneyOnZero::Lose) => writeln!(
            out,
            "  Wagers on red, black, odd, even, 1 to 18 and 19 to 36 lose when the ball lands in any zero."
        )?,
        (false, EvenMoneyOnZero::HalfBack) => writeln!(
            out,
            "  Wagers on red, black, odd, even, 1 to 18 and 19 to 36 lose half when the ball lands in any zero."
        )?,
    }
    if spec.zero.in_prison_offered || spec.zero.even_money_on_zero == EvenMoneyOnZero::HalfBack {
        writeln!(
            out,
            "  Half of an odd amount is rounded {} to the smallest coin.",
            spec.zero.half_rounding.name()
        )?;
    }
    writeln!(out)?;
    writeln!(out, "SPINS")?;
    writeln!(
        out,
        "  The ball is spun opposite to the wheel and must complete at least {} revolutions for a valid spin.",
        spec.min_ball_revolutions
    )?;
    match (spec.no_spin_bets, spec.no_spin_returned_for.as_slice()) {
        (NoSpinBets::Stay, _) => writeln!(out, "  On a no spin the wagers stay on the layout for the next spin.")?,
        (NoSpinBets::Returned, []) => writeln!(out, "  On a no spin the wagers are invalid and returned.")?,
        (NoSpinBets::Returned, reasons) => {
            let named: Vec<String> = reasons.iter().map(|r| r.name().replace('_', " ")).collect();
            writeln!(
                out,
                "  On a no spin for {} the wagers are invalid and returned; on any other they stay for the next spin.",
                named.join(", ")
            )?
        }
    }
    writeln!(out)?;
    writeln!(out, "LIMITS")?;
    writeln!(
        out,
        "  A wager over the maximum {}.",
        match spec.limits.over_maximum {
            OverMaximum::Refuse => "is refused",
            OverMaximum::PlayMaximumReturnExcess =>
                "plays only up to the maximum; the amount above it is returned to the player",
        }
    )?;
    writeln!(
        out,
        "  A wager under the minimum {}.",
        match spec.limits.under_minimum {
            UnderMinimum::Refuse => "is refused",
            UnderMinimum::SettleOnce => "is paid or collected once, then returned to the player",
        }
    )?;
    if !spec.match_play.is_empty() {
        let kinds: Vec<&str> = spec.match_play.iter().map(|k| k.name()).collect();
        writeln!(out, "  Match play coupons are accepted on {} only.", kinds.join(", "))?;
    }
    writeln!(out)?;
    writeln!(out, "CHIPS AND CONDUCT")?;
    writeln!(
        out,
        "  Each player plays chips of a colour no other player at the table has: {}.",
        spec.chip_colours.join(", ")
    )?;
    writeln!(
        out,
        "  Verbal wagers are {}.",
        if spec.verbal_bets { "accepted" } else { "not accepted" }
    )?;
    writeln!(out, "  Disputes are decided by the {}.", spec.dispute_authority)?;
    if let Some(len) = spec.number_display_length {
        writeln!(out, "  The number display shows the last {len} numbers.")?;
    }
    if let Some(tips) = &spec.tips_notice {
        writeln!(out, "  {tips}")?;
    }
    for rule in &spec.house_rules {
        writeln!(out, "  {rule}")?;
    }
    Ok(())
}
