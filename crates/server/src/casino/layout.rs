//! A table's layout as the terminal draws it: each spot with the pockets it
//! covers and a composite spot's parts, the limits posted, the bonus on
//! offer. It follows from the profile, the wheel and the table's settings.

use croupier_core::round::NoSpinReason;
use croupier_core::{BetRequest, Kind, Minor, Spot, TableRules};

use super::directory::Directory;
use super::table::TableSlot;
use crate::api::bodies::{Layout, LayoutKind, LayoutPart, LayoutSpot};

/// A composite spot's parts: the one-unit-per-part bet, split as the rules split it.
fn parts(rules: TableRules<'_>, notation: &str, units: u64) -> Vec<LayoutPart> {
    let probe = BetRequest {
        spot: notation,
        stake_minor: i128::from(units),
        zero_choice: None,
        coupon_minor: None,
    };
    rules.ignoring_limits().place(&probe).map_or_else(
        |_| Vec::new(),
        |bet| {
            bet.components()
                .iter()
                .map(|c| LayoutPart {
                    spot: c.covers.notation(),
                    units: c.stake.get(),
                })
                .collect()
        },
    )
}

/// A table's spots: each with the pockets it covers and, for a composite
/// one, its parts. They follow from the profile and the wheel alone.
fn felt(slot: &TableSlot) -> Vec<LayoutSpot> {
    let wheel = slot.table.config().wheel;
    let rules = slot.table.rules();
    rules
        .legal_spots()
        .into_iter()
        .filter_map(|notation| {
            let spot = Spot::parse(&notation, wheel).ok()?;
            // A Roulette X table takes no composite bet.
            if slot.table.bonus_refuses(spot.kind()) {
                return None;
            }
            // A stake must be a multiple of this many units (neighbours, complete).
            let units = rules.stake_units(&notation).unwrap_or(1);
            Some(LayoutSpot {
                kind: spot.kind().name().to_string(),
                covers: spot.covers().iter().map(|p| p.label().to_string()).collect(),
                parts: if spot.kind().is_composite() {
                    parts(rules, &notation, units)
                } else {
                    Vec::new()
                },
                units,
                spot: notation,
            })
        })
        .collect()
}

pub(super) fn layout(slot: &TableSlot, dir: &Directory) -> Layout {
    let config = slot.table.config();
    let wheel = config.wheel;
    let profile = slot.table.profile();
    let spec = profile.spec();
    let spots = slot.felt.get_or_init(|| felt(slot)).clone();
    let kinds = profile
        .kinds_on(wheel)
        .into_iter()
        .filter(|k| !slot.table.bonus_refuses(*k))
        .map(|k| {
            let limit = profile.limit(k);
            LayoutKind {
                kind: k.name().to_string(),
                description: k.description().to_string(),
                inside: k.is_inside(),
                pays: match k {
                    Kind::Neighbours | Kind::Complete => None,
                    // Maryland ch.4 F: a Roulette X straight pays its paytable's odds.
                    Kind::Straight => slot.roulette_x_straight_odds().or(profile.payout(k)),
                    k => profile.payout(k),
                },
                min: limit.map(|r| r.min.get()),
                max: limit.map(|r| r.max.get()),
                match_play: spec.match_play.contains(&k),
            }
        })
        .collect();
    Layout {
        table: slot.id.clone(),
        profile: slot.profile_name.clone(),
        title: spec.title.clone(),
        currency: spec.currency.clone(),
        wheel: wheel.name().to_string(),
        wheel_description: wheel.description().to_string(),
        layout: wheel.layout().name().to_string(),
        bettable: wheel.bettable().iter().map(|p| p.label().to_string()).collect(),
        order: wheel.order().map(|p| p.label().to_string()).collect(),
        pocket_colours: pocket_colours(slot),
        outcome: slot.outcome,
        in_prison: config.in_prison,
        betting_window_ms: config.betting_window_ms,
        chip_colours: spec.chip_colours.clone(),
        kinds,
        spots,
        no_spin_reasons: NoSpinReason::ALL
            .iter()
            .filter(|r| r.keyed_by_hand())
            .map(|r| r.name().to_string())
            .collect(),
        // low-limit-house Irregularities (5): a hanging ball's no spin is the floor's.
        pit_no_spin_reasons: NoSpinReason::ALL
            .iter()
            .filter(|r| {
                r.pit_only() || (**r == NoSpinReason::BallHangs && profile.jurisdiction().hanging_ball_called_by_floor)
            })
            .map(|r| r.name().to_string())
            .collect(),
        min_ball_revolutions: spec.min_ball_revolutions,
        dispute_authority: spec.dispute_authority.clone(),
        dispute_roles: crate::casino::policy::dispute_deciders(&spec.dispute_authority, dir.journal_format())
            .map(<[_]>::to_vec)
            .unwrap_or_default(),
        chips_confirmed_by: spec
            .chips_past_day
            .iter()
            .flat_map(|rule| rule.confirmed_by.iter())
            .flat_map(|title| crate::casino::policy::dispute_deciders(title, dir.journal_format()).unwrap_or(&[]))
            .copied()
            .collect(),
        verbal_bets: spec.verbal_bets,
        house_rules: croupier_profiles::posted::house_rules_text(profile, &[wheel]),
        tips_notice: spec.tips_notice.clone(),
        operator: dir.operator().map(str::to_string),
        chips_notice: spec.chips_past_day.as_ref().map(|rule| {
            let value = match rule.value {
                croupier_core::profile::PastDayValue::TableMinimum => {
                    "the table minimum of the day they were bought".to_string()
                }
                croupier_core::profile::PastDayValue::Each(each) => format!("{} each", Minor::new(each)),
            };
            let who = rule.confirmed_by.join(" or ");
            if !dir.rules().chips_taken_away {
                format!(
                    "Colour chips are cashed in before leaving the table. Chips kept past the gaming day \
                     (UTC) are cashed in at {value}, unless the {who} confirms their face value."
                )
            } else if rule.always {
                format!(
                    "Colour chips stay on the table and are cashed in at their face value before leaving. \
                     Chips removed from the table come back at {value}, never above their face value, unless \
                     the {who} confirms their value."
                )
            } else {
                format!(
                    "Colour chips stay on the table and are cashed in at their face value before leaving. \
                     Chips taken away and brought back after the gaming day they were bought on come \
                     back at {value}, never above their face value, unless the {who} confirms their face value."
                )
            }
        }),
        bonus: slot.layout_bonus(),
    }
}

/// Each pocket's colour by its label, as the felt and the board draw them.
pub(super) fn pocket_colours(slot: &TableSlot) -> std::collections::BTreeMap<String, String> {
    slot.table
        .config()
        .wheel
        .pockets()
        .iter()
        .map(|p| {
            (
                p.label().to_string(),
                super::journal::event::colour_of(p.label()).to_string(),
            )
        })
        .collect()
}
