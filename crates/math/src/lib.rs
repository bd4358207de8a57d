//! Exact game math: hit frequency, house edge and variance of every bet as
//! exact fractions.
//!
//! Nothing here restates a payout rule. Every figure comes from enumerating
//! the equally likely outcomes of valid spins and settling the bet on each
//! through the core's own [`TableRules::settle`], so the math and the
//! settlement cannot disagree. A bet sent to prison by a zero is followed
//! through every outcome of the next spin.
//!
//! [`monitor`] holds the running tests of a wheel's results (game integrity
//! monitoring): pure functions of the results in order.

pub mod monitor;

use croupier_core::{BetError, BetRequest, Kind, Outcome, Pocket, TableRules, ZeroChoice};
use num_rational::Ratio;
use num_traits::Zero;

pub type Fraction = Ratio<i128>;

/// The math of one bet per unit staked.
#[derive(Clone, Debug, PartialEq)]
pub struct BetMath {
    pub kind: Kind,
    /// The spot the figures were computed for, in spot notation.
    pub spot: String,
    /// Pockets on which some part of the bet wins.
    pub pockets: u32,
    /// "35 to 1", or the payout of the bets a composite bet stands for.
    pub payout: String,
    /// The chance that one spin lands in a covered pocket.
    pub hit_frequency: Fraction,
    /// Expected loss per unit staked: positive favours the house.
    pub house_edge: Fraction,
    /// Variance of the net result per unit staked.
    pub variance: Fraction,
    /// The In Prison choice assumed for an even-money bet, where it applies.
    pub zero_choice: Option<ZeroChoice>,
}

impl BetMath {
    pub fn house_edge_percent(&self) -> f64 {
        to_f64(self.house_edge) * 100.0
    }

    pub fn rtp(&self) -> Fraction {
        Fraction::from_integer(1) - self.house_edge
    }

    pub fn std_dev(&self) -> f64 {
        to_f64(self.variance).sqrt()
    }
}

/// A fraction as the nearest `f64`, for percentages and square roots only.
pub fn to_f64(f: Fraction) -> f64 {
    *f.numer() as f64 / *f.denom() as f64
}

/// Writes a fraction as "p/q", or "p" when whole.
pub fn fraction_text(f: Fraction) -> String {
    if f.is_integer() {
        f.numer().to_string()
    } else {
        format!("{}/{}", f.numer(), f.denom())
    }
}

/// A spot of each kind to compute figures for. All spots of a plain kind
/// share their figures; for neighbours and complete the figures depend on the
/// number, and 17 is the customary one (a complete bet on 17 is 40 units).
pub fn representative_spot(rules: &TableRules<'_>, kind: Kind) -> Option<String> {
    let wheel = rules.wheel();
    let candidates: Vec<String> = match kind {
        Kind::Column => vec!["column1".into()],
        Kind::Dozen => vec!["dozen1".into()],
        Kind::Neighbours => vec!["neighbours:17".into()],
        Kind::Complete => vec!["complete:17".into()],
        k if k.is_inside() => croupier_core::inside_spots(wheel.layout())
            .iter()
            .filter(|&&(kk, covers)| kk == k && rules.profile().offers_inside(k, covers))
            .filter(|&&(_, covers)| covers.is_subset_of(wheel.bettable()))
            .map(|&(_, covers)| covers.notation())
            .collect(),
        k => vec![k.name().into()],
    };
    candidates.into_iter().find(|spot| rules.stake_units(spot).is_ok())
}

/// The math of a bet on `spot` under `rules`, with `zero_choice` for an
/// even-money bet at an In Prison table (the profile's default if `None`).
pub fn bet_math(rules: &TableRules<'_>, spot: &str, zero_choice: Option<ZeroChoice>) -> Result<BetMath, BetError> {
    let rules = rules.ignoring_limits();
    // A stake that divides evenly among the bet's parts and halves exactly.
    let units = rules.stake_units(spot)?;
    let stake = 2 * units;
    let even_money_in_prison = rules.in_prison() && is_even_money(&rules, spot);
    let choice = zero_choice.filter(|_| even_money_in_prison);
    let bet = rules.place(&request(spot, i128::from(stake), choice))?;

    let wheel = rules.wheel();
    let outcomes: Vec<Pocket> = wheel.bettable().iter().collect();
    let n = outcomes.len() as i128;
    let stake_f = Fraction::from_integer(i128::from(stake));
    let mut mean = Fraction::zero();
    let mut second_moment = Fraction::zero();
    let mut add = |probability: Fraction, net: i128| {
        let x = Fraction::from_integer(net) / stake_f;
        mean += probability * x;
        second_moment += probability * x * x;
    };
    for &first in &outcomes {
        let p1 = Fraction::new(1, n);
        let settled = rules.settle(&bet, &[first]);
        if settled.outcome == Outcome::Prison {
            for &second in &outcomes {
                let s = rules.settle(&bet, &[first, second]);
                add(p1 * Fraction::new(1, n), s.net());
            }
        } else {
            add(p1, settled.net());
        }
    }
    let covers = bet.spot().covers().intersection(wheel.bettable());
    let payout = match bet.kind() {
        Kind::Neighbours => format!("{} to 1 on each of five straights", payout_of(&rules, Kind::Straight)),
        Kind::Complete => {
            let parts: Vec<String> = bet
                .components()
                .iter()
                .map(|c| format!("{} {}:1", c.covers.notation(), c.payout))
                .collect();
            format!("each part at its own odds ({})", parts.join(", "))
        }
        kind => format!("{} to 1", payout_of(&rules, kind)),
    };
    Ok(BetMath {
        kind: bet.kind(),
        spot: bet.spot().notation(),
        pockets: covers.len(),
        payout,
        hit_frequency: Fraction::new(i128::from(covers.len()), n),
        house_edge: -mean,
        variance: second_moment - mean * mean,
        zero_choice: even_money_in_prison.then(|| choice.unwrap_or(rules.profile().spec().zero.in_prison_default)),
    })
}

/// The math of every kind the profile offers on the rules' wheel.
pub fn profile_math(rules: &TableRules<'_>, zero_choice: Option<ZeroChoice>) -> Result<Vec<BetMath>, BetError> {
    rules
        .profile()
        .kinds_on(rules.wheel())
        .into_iter()
        .filter_map(|kind| representative_spot(rules, kind))
        .map(|spot| bet_math(rules, &spot, zero_choice))
        .collect()
}

fn payout_of(rules: &TableRules<'_>, kind: Kind) -> u32 {
    rules.profile().payout(kind).unwrap_or(0)
}

fn request(spot: &str, stake_minor: i128, zero_choice: Option<ZeroChoice>) -> BetRequest<'_> {
    BetRequest {
        spot,
        stake_minor,
        zero_choice,
        coupon_minor: None,
    }
}

fn is_even_money(rules: &TableRules<'_>, spot: &str) -> bool {
    croupier_core::Spot::parse(spot, rules.wheel()).is_ok_and(|s| s.kind().is_even_money())
}
