//! Bonus variants: Roulette X Bonus (Maryland ch.3 F(18), ch.4 F) and the
//! Bonus Spin Xtreme progressive (Maryland ch.3 F(16)-(17), ch.4 D-E).
//!
//! The random draws of a round (lucky numbers and their odds, target
//! numbers, the bonus wheel's symbol) are configuration with weights; the
//! draws themselves come from the outcome source, and arrive here as
//! arguments. Exact RTPs are integer fractions.

use crate::money::Minor;
use crate::pocket::Pocket;
use crate::settle::PlacedBet;
use crate::spot::Kind;
use crate::wheel::Wheel;

/// The most entries and the largest total of a weighted table.
pub const WEIGHTED_ENTRIES_MAX: usize = 64;
pub const WEIGHT_TOTAL_MAX: u64 = u32::MAX as u64;

#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum BonusError {
    #[error("{field}: {message}")]
    Invalid { field: String, message: String },
}

fn invalid<T>(field: &str, message: impl Into<String>) -> Result<T, BonusError> {
    Err(BonusError::Invalid {
        field: field.to_string(),
        message: message.into(),
    })
}

/// Items with integer weights: item i is drawn with probability w_i / total.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Weighted<T> {
    entries: Vec<(T, u32)>,
    total: u64,
}

impl<T: Copy + PartialEq + std::fmt::Debug> Weighted<T> {
    pub fn new(field: &str, entries: Vec<(T, u32)>) -> Result<Weighted<T>, BonusError> {
        if entries.is_empty() || entries.len() > WEIGHTED_ENTRIES_MAX {
            return invalid(field, format!("list 1 to {WEIGHTED_ENTRIES_MAX} entries"));
        }
        for (i, (item, weight)) in entries.iter().enumerate() {
            if *weight == 0 {
                return invalid(field, format!("{item:?} has weight 0: leave it out instead"));
            }
            if entries[..i].iter().any(|(other, _)| other == item) {
                return invalid(field, format!("{item:?} is listed twice"));
            }
        }
        let total: u64 = entries.iter().map(|&(_, w)| u64::from(w)).sum();
        if total > WEIGHT_TOTAL_MAX {
            return invalid(
                field,
                format!("the weights add up to {total}, more than {WEIGHT_TOTAL_MAX}"),
            );
        }
        Ok(Weighted { entries, total })
    }

    pub fn entries(&self) -> &[(T, u32)] {
        &self.entries
    }

    pub fn total(&self) -> u64 {
        self.total
    }

    /// The item for a uniform draw below [`Weighted::total`].
    pub fn pick(&self, draw: u64) -> T {
        let mut left = draw % self.total;
        for &(item, weight) in &self.entries {
            if left < u64::from(weight) {
                return item;
            }
            left -= u64::from(weight);
        }
        self.entries[self.entries.len() - 1].0
    }

    /// Σ w·f(item), with the total: the exact expectation is the ratio.
    fn expectation(&self, f: impl Fn(T) -> u128) -> (u128, u128) {
        let sum = self.entries.iter().map(|&(item, w)| u128::from(w) * f(item)).sum();
        (sum, u128::from(self.total))
    }
}

/// The Roulette X Bonus paytables of Maryland ch.4 F(1)-(3).
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum XPaytable {
    A,
    B,
    C,
}

impl XPaytable {
    pub fn parse(text: &str) -> Option<XPaytable> {
        match text {
            "A" => Some(XPaytable::A),
            "B" => Some(XPaytable::B),
            "C" => Some(XPaytable::C),
            _ => None,
        }
    }

    /// A winning straight that is not a lucky number (ch.4 F(1)(a), (2)(a), (3)(a)).
    pub fn straight_odds(self) -> u32 {
        match self {
            XPaytable::A => 28,
            XPaytable::B => 26,
            XPaytable::C => 30,
        }
    }

    /// The first number selected (ch.4 F(1)(b), (2)(b), (3)(b)).
    pub fn first_odds(self) -> u32 {
        50
    }

    /// The second to fifth numbers selected (ch.4 F(1)(c), (2)(c), (3)(c)).
    pub fn later_odds(self) -> [u32; 4] {
        match self {
            XPaytable::A => [50, 100, 250, 500],
            XPaytable::B => [50, 100, 250, 1000],
            XPaytable::C => [50, 100, 175, 250],
        }
    }

    /// ch.4 F(1)(d), (2)(d): single or double zero; F(3)(d): double zero.
    pub fn allows(self, wheel: Wheel) -> bool {
        match self {
            XPaytable::A | XPaytable::B => {
                matches!(
                    wheel,
                    Wheel::SingleZero | Wheel::DoubleZero | Wheel::DoubleZeroAsSingleZero | Wheel::DoubleZeroCovered
                )
            }
            XPaytable::C => wheel == Wheel::DoubleZero,
        }
    }
}

/// The lucky numbers of one round: the first pays the first-number odds,
/// each other one the odds drawn for it.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct LuckyNumbers {
    pub numbers: Vec<(Pocket, u32)>,
}

/// A Roulette X Bonus configuration.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct RouletteX {
    pub name: String,
    pub paytable: XPaytable,
    /// How many numbers are selected each round, 1 to 5.
    pub count: Weighted<u8>,
    /// The odds of the second to fifth numbers.
    pub later_odds: Weighted<u32>,
}

impl RouletteX {
    pub fn new(
        name: String,
        paytable: XPaytable,
        count: Weighted<u8>,
        later_odds: Weighted<u32>,
    ) -> Result<RouletteX, BonusError> {
        for &(c, _) in count.entries() {
            if !(1..=5).contains(&c) {
                return invalid("lucky_count", format!("{c} numbers: the paytable selects 1 to 5"));
            }
        }
        for &(odds, _) in later_odds.entries() {
            if !paytable.later_odds().contains(&odds) {
                return invalid(
                    "later_odds",
                    format!(
                        "{odds} to 1 is not in paytable {paytable:?} (Maryland ch.4 F): {:?}",
                        paytable.later_odds()
                    ),
                );
            }
        }
        let config = RouletteX {
            name,
            paytable,
            count,
            later_odds,
        };
        for wheel in [Wheel::SingleZero, Wheel::DoubleZero] {
            if paytable.allows(wheel) {
                let (num, den) = config.straight_rtp(wheel);
                if num >= den {
                    return invalid(
                        "later_odds",
                        format!(
                            "these weights return {:.4}% on the {}: the house would lose",
                            num as f64 * 100.0 / den as f64,
                            wheel.name()
                        ),
                    );
                }
            }
        }
        Ok(config)
    }

    /// Everything a straight bet hands back (stake included) when the ball
    /// lands in `landed` with `lucky` drawn for the round.
    pub fn straight_return(&self, stake: Minor, bet_on: Pocket, landed: Pocket, lucky: &LuckyNumbers) -> Minor {
        if bet_on != landed {
            return Minor::ZERO;
        }
        let odds = lucky
            .numbers
            .iter()
            .find(|(p, _)| *p == bet_on)
            .map(|&(_, odds)| odds)
            .unwrap_or(self.paytable.straight_odds());
        // Stakes and odds are bounded (STAKE_MAX_MINOR, 1000 to 1): no overflow.
        Minor::new(stake.get() * (u64::from(odds) + 1))
    }

    /// What a settled bet hands back at a Roulette X table: a plain straight
    /// by the paytable (its stake over a maximum back whatever happens,
    /// european-casino 3.12); any other bet the `returned` it settled for.
    pub fn bet_return(&self, bet: &PlacedBet, landed: Pocket, lucky: &LuckyNumbers, returned: Minor) -> Minor {
        let [part] = bet.components() else {
            return returned;
        };
        match part.covers.iter().next() {
            Some(on) if part.kind == Kind::Straight => {
                Minor::new(self.straight_return(part.stake, on, landed, lucky).get() + bet.excess().get())
            }
            _ => returned,
        }
    }

    /// The exact return to player of a straight bet, as (numerator,
    /// denominator). With N equally likely pockets and K numbers selected
    /// from them, the pocket bet on is the first selected with chance 1/N and
    /// one of the others with chance (K-1)/N, so per unit staked:
    /// RTP = (1/N)·[(f+1)/N + (E[K]-1)/N · E[m+1] + (1 - E[K]/N)·(s+1)].
    pub fn straight_rtp(&self, wheel: Wheel) -> (u128, u128) {
        let n = u128::from(wheel.outcome_count());
        let (k_sum, k_total) = self.count.expectation(u128::from);
        let (m_sum, m_total) = self.later_odds.expectation(|odds| u128::from(odds) + 1);
        let f1 = u128::from(self.paytable.first_odds()) + 1;
        let s1 = u128::from(self.paytable.straight_odds()) + 1;
        // Over the common denominator n²·k_total·m_total.
        let first = f1 * k_total * m_total;
        let later = (k_sum - k_total) * m_sum;
        let plain = (n * k_total - k_sum) * s1 * m_total;
        (first + later + plain, n * n * k_total * m_total)
    }
}

/// A symbol on the Bonus Spin Xtreme wheels (Maryland ch.4 D(1)).
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum BsxSymbol {
    PrimaryJackpot,
    SecondaryJackpot,
    /// A fixed award, in minor units.
    Fixed(u64),
    /// A segment that pays nothing: the text lists the awards, not the
    /// wheels' whole make-up, which the operator's Rules Submission gives.
    Blank,
}

/// The fixed awards of Paytable A Hot Spot Pay, in dollars (Maryland ch.4 D(1)(c)-(j)).
pub const BSX_FIXED_DOLLARS: [u64; 8] = [1000, 750, 500, 400, 350, 300, 250, 200];
/// Community Pay, in dollars (Maryland ch.4 E(1)).
pub const BSX_COMMUNITY_DOLLARS: [u64; 8] = [150, 125, 100, 80, 75, 60, 50, 40];

/// The progressive meters.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Meters {
    pub primary: Minor,
    pub secondary: Minor,
}

#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct BonusSpinXtreme {
    pub name: String,
    /// Maryland ch.4 D: the paytable is for $5 wagers.
    pub wager: Minor,
    /// How many target numbers are selected before each spin: 1, 2 or 3 (ch.3 F(16)).
    pub targets: Weighted<u8>,
    pub symbols: Weighted<BsxSymbol>,
    /// Initial and reset amounts: at least $10,000 and $5,000 (ch.4 D(3)(b)(i)).
    pub primary_reset: Minor,
    pub secondary_reset: Minor,
    /// Rate of progression, thousandths of each wager (ch.4 D(3)(a)).
    pub primary_rate_per_mille: u32,
    pub secondary_rate_per_mille: u32,
    /// Community Pay (ch.4 D(5), E): the qualifying symbols the operator
    /// designated, each with what every other wager of the round is paid.
    pub community: Vec<(BsxSymbol, Minor)>,
    /// The table's betting positions: the most wagers one round takes, and
    /// the full table the return with Community Pay is checked at.
    pub positions: u8,
}

/// The most betting positions a Bonus Spin Xtreme table may have.
pub const BSX_POSITIONS_MAX: u8 = 12;

impl BonusSpinXtreme {
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        name: String,
        wager: Minor,
        targets: Weighted<u8>,
        symbols: Weighted<BsxSymbol>,
        primary_reset: Minor,
        secondary_reset: Minor,
        primary_rate_per_mille: u32,
        secondary_rate_per_mille: u32,
    ) -> Result<BonusSpinXtreme, BonusError> {
        if wager != Minor::new(500) {
            return invalid(
                "wager",
                "the Paytable A awards are for $5 wagers (Maryland ch.4 D): wager = 500",
            );
        }
        for &(t, _) in targets.entries() {
            if !(1..=3).contains(&t) {
                return invalid(
                    "targets",
                    format!("{t} targets: 1, 2 or 3 are selected (Maryland ch.3 F(16))"),
                );
            }
        }
        for &(symbol, _) in symbols.entries() {
            if let BsxSymbol::Fixed(minor) = symbol {
                if minor % 100 != 0 || !BSX_FIXED_DOLLARS.contains(&(minor / 100)) {
                    return invalid(
                        "symbols",
                        format!("{minor} is not an award of Paytable A Hot Spot Pay (Maryland ch.4 D(1))"),
                    );
                }
            }
        }
        if primary_reset < Minor::new(1_000_000) {
            return invalid("primary_reset", "at least $10,000 (Maryland ch.4 D(3)(b)(i))");
        }
        if secondary_reset < Minor::new(500_000) {
            return invalid("secondary_reset", "at least $5,000 (Maryland ch.4 D(3)(b)(i))");
        }
        if primary_rate_per_mille + secondary_rate_per_mille >= 1000 {
            return invalid("rates", "the meters cannot take the whole wager");
        }
        // Every contribution is a whole number of minor units: nothing is rounded away.
        for (field, rate) in [
            ("primary_rate_per_mille", primary_rate_per_mille),
            ("secondary_rate_per_mille", secondary_rate_per_mille),
        ] {
            if !(wager.get() * u64::from(rate)).is_multiple_of(1000) {
                return invalid(
                    field,
                    format!(
                        "{rate} per mille of {} is not a whole number of minor units",
                        wager.get()
                    ),
                );
            }
        }
        let config = BonusSpinXtreme {
            name,
            wager,
            targets,
            symbols,
            primary_reset,
            secondary_reset,
            primary_rate_per_mille,
            secondary_rate_per_mille,
            community: Vec::new(),
            positions: 1,
        };
        config.check_return()?;
        Ok(config)
    }

    /// The configuration with Community Pay (Maryland ch.4 D(5), E) at a
    /// table of `positions` betting positions: each listed symbol pays every
    /// other wager of the round the amount beside it, one of Paytable A
    /// Community Pay's. Checked again, with every position wagering.
    pub fn with_community(
        mut self,
        community: Vec<(BsxSymbol, Minor)>,
        positions: u8,
    ) -> Result<BonusSpinXtreme, BonusError> {
        if !(1..=BSX_POSITIONS_MAX).contains(&positions) {
            return invalid(
                "positions",
                format!("a table has 1 to {BSX_POSITIONS_MAX} betting positions"),
            );
        }
        for (i, &(symbol, pays)) in community.iter().enumerate() {
            if symbol == BsxSymbol::Blank || !self.symbols.entries().iter().any(|&(s, _)| s == symbol) {
                return invalid(
                    "community",
                    format!("{symbol:?} is not a paying symbol of this bonus wheel"),
                );
            }
            if community[..i].iter().any(|&(s, _)| s == symbol) {
                return invalid("community", format!("{symbol:?} is listed twice"));
            }
            if pays.get() % 100 != 0 || !BSX_COMMUNITY_DOLLARS.contains(&(pays.get() / 100)) {
                return invalid(
                    "community",
                    format!(
                        "{} is not a Community Pay of Paytable A (Maryland ch.4 E(1)): $150, $125, $100, $80, $75, $60, $50 or $40",
                        pays.get()
                    ),
                );
            }
        }
        self.community = community;
        self.positions = positions;
        self.check_return()?;
        Ok(self)
    }

    /// What a qualifying `symbol` pays every other wager as Community Pay.
    pub fn community_pay(&self, symbol: BsxSymbol) -> Option<Minor> {
        self.community
            .iter()
            .find(|&&(s, _)| s == symbol)
            .map(|&(_, pays)| pays)
    }

    /// Refuses a configuration that returns 100% or more, on the wheel with
    /// the fewest outcomes it may be played on (37), where a target is likeliest.
    fn check_return(&self) -> Result<(), BonusError> {
        let (num, den) = self.rtp(Wheel::SingleZero);
        if num >= den {
            return invalid(
                "symbols",
                format!(
                    "this bonus wheel returns {:.2}% of the wager on a 37-pocket wheel: list its every \
                     segment with its weight, non-paying ones as \"blank\", so that it returns less than 100%",
                    num as f64 * 100.0 / den as f64
                ),
            );
        }
        Ok(())
    }

    /// The award for a spin landing in `landed`: if it is a target, the
    /// symbol the bonus wheel stopped on, paid at the meter as it stands
    /// when the player is paid (ch.4 D(4)).
    pub fn award(&self, targets: &[Pocket], landed: Pocket, symbol: BsxSymbol, meters: Meters) -> Minor {
        if !targets.contains(&landed) {
            return Minor::ZERO;
        }
        match symbol {
            BsxSymbol::PrimaryJackpot => meters.primary,
            BsxSymbol::SecondaryJackpot => meters.secondary,
            BsxSymbol::Fixed(minor) => Minor::new(minor),
            BsxSymbol::Blank => Minor::ZERO,
        }
    }

    /// The meters after one wager is placed. Exact: `new` refuses rates
    /// whose share of the wager is not whole minor units.
    pub fn contribute(&self, meters: Meters) -> Meters {
        let share = |rate: u32| Minor::new(self.wager.get() * u64::from(rate) / 1000);
        Meters {
            primary: Minor::new(meters.primary.get() + share(self.primary_rate_per_mille).get()),
            secondary: Minor::new(meters.secondary.get() + share(self.secondary_rate_per_mille).get()),
        }
    }

    /// The long-run return to player, as (numerator, denominator): the
    /// chance of a target, times the bonus wheel's expected award with the
    /// meters at reset, over the wager, plus the share of every wager fed to
    /// the meters (all of it is paid out as jackpots in the long run), plus
    /// Community Pay at a full table: a target hit gives every position a
    /// bonus spin, and each other position's qualifying symbol pays this one.
    pub fn rtp(&self, wheel: Wheel) -> (u128, u128) {
        let n = u128::from(wheel.outcome_count());
        let (t_sum, t_total) = self.targets.expectation(u128::from);
        let (a_sum, a_total) = self.symbols.expectation(|s| match s {
            BsxSymbol::PrimaryJackpot => u128::from(self.primary_reset.get()),
            BsxSymbol::SecondaryJackpot => u128::from(self.secondary_reset.get()),
            BsxSymbol::Fixed(minor) => u128::from(minor),
            BsxSymbol::Blank => 0,
        });
        let wager = u128::from(self.wager.get());
        let rates = u128::from(self.primary_rate_per_mille + self.secondary_rate_per_mille);
        let den = n * t_total * a_total * wager * 1000;
        let (c_sum, _) = self
            .symbols
            .expectation(|s| self.community_pay(s).map_or(0, |m| u128::from(m.get())));
        let others = u128::from(self.positions.saturating_sub(1));
        let num = t_sum * (a_sum + others * c_sum) * 1000 + rates * n * t_total * a_total * wager;
        (num, den)
    }
}

/// A table's bonus: Roulette X's paytable on its straights, or the Bonus
/// Spin Xtreme side wager.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum TableBonus {
    RouletteX(RouletteX),
    BonusSpinXtreme(BonusSpinXtreme),
}

impl TableBonus {
    /// The kind as a jurisdiction lists it: "roulette-x" or "bonus-spin-xtreme".
    pub fn kind(&self) -> &'static str {
        match self {
            TableBonus::RouletteX(_) => "roulette-x",
            TableBonus::BonusSpinXtreme(_) => "bonus-spin-xtreme",
        }
    }

    pub fn name(&self) -> &str {
        match self {
            TableBonus::RouletteX(x) => &x.name,
            TableBonus::BonusSpinXtreme(b) => &b.name,
        }
    }

    /// Whether the bonus may be played on `wheel` (Maryland ch.4 F(1)(d)-(3)(d)).
    pub fn allows(&self, wheel: Wheel) -> bool {
        match self {
            TableBonus::RouletteX(x) => x.paytable.allows(wheel),
            TableBonus::BonusSpinXtreme(_) => true,
        }
    }

    /// Checks a round's draw against the configuration: what the RNG may
    /// have drawn, and nothing else.
    pub fn check_draw(&self, wheel: Wheel, draw: &BonusDraw) -> Result<(), BonusError> {
        let pockets: Vec<Pocket> = match draw {
            BonusDraw::Lucky(l) => l.numbers.iter().map(|&(p, _)| p).collect(),
            BonusDraw::Targets(t) => t.clone(),
        };
        for (i, p) in pockets.iter().enumerate() {
            if !wheel.bettable().contains(*p) || pockets[..i].contains(p) {
                return invalid("draw", format!("{} is not a distinct number of the wheel", p.label()));
            }
        }
        let count_ok = |counts: &[(u8, u32)]| counts.iter().any(|&(c, _)| usize::from(c) == pockets.len());
        match (self, draw) {
            (TableBonus::RouletteX(x), BonusDraw::Lucky(l)) => {
                if !count_ok(x.count.entries()) {
                    return invalid(
                        "draw",
                        format!("{} lucky numbers is not a count this paytable draws", pockets.len()),
                    );
                }
                for (i, &(_, odds)) in l.numbers.iter().enumerate() {
                    let ok = if i == 0 {
                        odds == x.paytable.first_odds()
                    } else {
                        x.later_odds.entries().iter().any(|&(o, _)| o == odds)
                    };
                    if !ok {
                        return invalid("draw", format!("{odds} to 1 is not drawn for number {}", i + 1));
                    }
                }
                Ok(())
            }
            (TableBonus::BonusSpinXtreme(b), BonusDraw::Targets(_)) if count_ok(b.targets.entries()) => Ok(()),
            (TableBonus::BonusSpinXtreme(_), BonusDraw::Targets(t)) => invalid(
                "draw",
                format!("{} target numbers is not a count this wheel draws", t.len()),
            ),
            _ => invalid("draw", "the draw is not of this table's bonus"),
        }
    }
}

/// What the RNG draws for a bonus table's round after no more bets: Roulette
/// X's lucky numbers with their odds, or Bonus Spin Xtreme's target numbers.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum BonusDraw {
    Lucky(LuckyNumbers),
    Targets(Vec<Pocket>),
}

impl BonusSpinXtreme {
    /// Each meter's share of one wager.
    pub fn shares(&self) -> (Minor, Minor) {
        let share = |rate: u32| Minor::new(self.wager.get() * u64::from(rate) / 1000);
        (share(self.primary_rate_per_mille), share(self.secondary_rate_per_mille))
    }
}

impl BsxSymbol {
    /// How a symbol is written: "primary", "secondary", "blank" or an amount in minor units.
    pub fn code(self) -> String {
        match self {
            BsxSymbol::PrimaryJackpot => "primary".into(),
            BsxSymbol::SecondaryJackpot => "secondary".into(),
            BsxSymbol::Blank => "blank".into(),
            BsxSymbol::Fixed(minor) => minor.to_string(),
        }
    }

    pub fn parse(text: &str) -> Option<BsxSymbol> {
        match text {
            "primary" => Some(BsxSymbol::PrimaryJackpot),
            "secondary" => Some(BsxSymbol::SecondaryJackpot),
            "blank" => Some(BsxSymbol::Blank),
            amount if !amount.is_empty() && amount.bytes().all(|b| b.is_ascii_digit()) => {
                amount.parse().ok().map(BsxSymbol::Fixed)
            }
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn x(paytable: XPaytable, counts: Vec<(u8, u32)>, later: Vec<(u32, u32)>) -> Result<RouletteX, BonusError> {
        RouletteX::new(
            "test".into(),
            paytable,
            Weighted::new("lucky_count", counts)?,
            Weighted::new("later_odds", later)?,
        )
    }

    #[test]
    fn roulette_x_rtp_by_hand() {
        // Maryland ch.4 F(1): paytable A, five numbers always, later odds 50 (65), 100 (25), 250 (7), 500 (3).
        let config = x(
            XPaytable::A,
            vec![(5, 1)],
            vec![(50, 65), (100, 25), (250, 7), (500, 3)],
        )
        .expect("valid");
        // E[m+1] = (51·65 + 101·25 + 251·7 + 501·3)/100 = 91;
        // RTP = (51 + 4·91 + 32·29)/37² = 1343/1369.
        let (num, den) = config.straight_rtp(Wheel::SingleZero);
        assert_eq!(num * 1369, 1343 * den);
    }

    #[test]
    fn roulette_x_refuses_what_the_paytable_does_not_have() {
        // Maryland ch.4 F(3): paytable C pays 175, not 500.
        assert!(x(XPaytable::C, vec![(5, 1)], vec![(500, 1)]).is_err());
        assert!(x(XPaytable::A, vec![(6, 1)], vec![(50, 1)]).is_err());
        // A weighting that gives the player the edge is refused.
        assert!(x(XPaytable::B, vec![(5, 1)], vec![(1000, 1)]).is_err());
        // ch.4 F(3)(d): paytable C on a double-zero wheel only.
        assert!(!XPaytable::C.allows(Wheel::SingleZero));
    }

    #[test]
    fn roulette_x_settles_a_straight() {
        let config = x(
            XPaytable::A,
            vec![(5, 1)],
            vec![(50, 65), (100, 25), (250, 7), (500, 3)],
        )
        .expect("valid");
        let p = |s| Pocket::parse(s).expect("pocket");
        let lucky = LuckyNumbers {
            numbers: vec![(p("7"), 50), (p("17"), 500)],
        };
        let stake = Minor::new(100);
        // ch.4 F(1)(a): 28 to 1 on a number that is not lucky.
        assert_eq!(config.straight_return(stake, p("3"), p("3"), &lucky), Minor::new(2900));
        assert_eq!(config.straight_return(stake, p("7"), p("7"), &lucky), Minor::new(5100));
        assert_eq!(
            config.straight_return(stake, p("17"), p("17"), &lucky),
            Minor::new(50100)
        );
        assert_eq!(config.straight_return(stake, p("17"), p("18"), &lucky), Minor::ZERO);
    }

    #[test]
    fn bonus_spin_xtreme() {
        let config = BonusSpinXtreme::new(
            "test".into(),
            Minor::new(500),
            Weighted::new("targets", vec![(1, 1)]).expect("targets"),
            Weighted::new("symbols", vec![(BsxSymbol::Fixed(20_000), 1), (BsxSymbol::Blank, 1)]).expect("symbols"),
            Minor::new(1_000_000),
            Minor::new(500_000),
            0,
            0,
        )
        .expect("valid");
        // One target on 38 pockets, $200 on a $5 wager half the time: 20/38.
        let (num, den) = config.rtp(Wheel::DoubleZero);
        assert_eq!(num * 38, 20 * den);
        // Always $200: 40/37 on a single-zero wheel, refused (100% or more).
        let always = BonusSpinXtreme::new(
            "t".into(),
            Minor::new(500),
            Weighted::new("targets", vec![(1, 1)]).expect("targets"),
            Weighted::new("symbols", vec![(BsxSymbol::Fixed(20_000), 1)]).expect("symbols"),
            Minor::new(1_000_000),
            Minor::new(500_000),
            0,
            0,
        );
        assert!(matches!(always, Err(BonusError::Invalid { message, .. }) if message.contains("108.11%")));
        let p = |s| Pocket::parse(s).expect("pocket");
        let meters = Meters {
            primary: Minor::new(1_234_500),
            secondary: Minor::new(500_000),
        };
        assert_eq!(
            config.award(&[p("9")], p("9"), BsxSymbol::PrimaryJackpot, meters),
            Minor::new(1_234_500)
        );
        assert_eq!(
            config.award(&[p("9")], p("8"), BsxSymbol::PrimaryJackpot, meters),
            Minor::ZERO
        );
        // Maryland ch.4 D(1): $123 is not on the paytable; ch.4 D(3)(b)(i): resets of at least $10,000 / $5,000.
        let symbols = Weighted::new("symbols", vec![(BsxSymbol::Fixed(12_300), 1)]).expect("symbols");
        let targets = Weighted::new("targets", vec![(1, 1)]).expect("targets");
        let refused = BonusSpinXtreme::new(
            "t".into(),
            Minor::new(500),
            targets.clone(),
            symbols,
            Minor::new(1_000_000),
            Minor::new(500_000),
            0,
            0,
        );
        assert!(matches!(refused, Err(BonusError::Invalid { message, .. }) if message.contains("not an award")));
        let symbols = Weighted::new("symbols", vec![(BsxSymbol::PrimaryJackpot, 1)]).expect("symbols");
        let refused = BonusSpinXtreme::new(
            "t".into(),
            Minor::new(500),
            targets,
            symbols,
            Minor::new(999_999),
            Minor::new(500_000),
            0,
            0,
        );
        assert!(matches!(refused, Err(BonusError::Invalid { field, .. }) if field == "primary_reset"));
    }

    #[test]
    fn weighted_picks_follow_the_weights() {
        let w = Weighted::new("w", vec![(1u8, 2), (2, 1)]).expect("valid");
        assert_eq!([0, 1, 2].map(|d| w.pick(d)), [1, 1, 2]);
        assert!(Weighted::new("w", vec![(1u8, 0)]).is_err());
        assert!(Weighted::new("w", vec![(1u8, 1), (1, 2)]).is_err());
        assert!(Weighted::<u8>::new("w", vec![]).is_err());
    }
}
