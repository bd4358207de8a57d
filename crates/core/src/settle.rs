//! Placing and settling bets.
//!
//! [`TableRules`] is a profile narrowed to one wheel and the table's options.
//! It turns a request into a [`PlacedBet`] (or a [`BetError`] saying why not),
//! and settles a placed bet over consecutive spins. [`Book`] compiles a whole
//! round of placed bets into flat arrays and settles them with no allocation.

use crate::money::{Minor, Stake, StakeError};
use crate::pocket::{Pocket, PocketSet};
use crate::profile::{EvenMoneyOnZero, OverMaximum, Profile, UnderMinimum, ZeroChoice};
use crate::spot::{inside_spots, Kind, Spot, SpotError};
use crate::wheel::Wheel;

/// The most bets one round may hold. With [`crate::money::STAKE_MAX_MINOR`]
/// and [`crate::money::PAYOUT_MAX_TO_ONE`] this keeps every total in a `u64`.
pub const BETS_PER_ROUND_MAX: usize = 1 << 20;

/// A neighbours bet stands for this many straights (Maryland ch.3 F(1)(c)).
pub const NEIGHBOURS_COUNT: u64 = 5;

#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum RulesError {
    #[error("profile {profile} does not offer the {wheel}; it offers {offered}", wheel = .wheel.name())]
    WheelNotOffered {
        profile: String,
        wheel: Wheel,
        offered: String,
    },
    #[error("profile {profile} does not offer In Prison")]
    InPrisonNotOffered { profile: String },
}

/// Why a bet is refused. Each message is for the person who made the bet.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum BetError {
    #[error("{0}")]
    Spot(#[from] SpotError),
    #[error("{0}")]
    Stake(#[from] StakeError),
    #[error("profile {profile} does not offer {what}")]
    NotOffered { profile: String, what: String },
    #[error("{spot} stands for {parts} units: a stake of {} does not divide evenly among them", Minor::new(*.stake))]
    Indivisible { spot: String, parts: u64, stake: u64 },
    #[error("{} on {} is under the table minimum {}", Minor::new(*.stake), a(*.kind), Minor::new(*.min))]
    UnderMinimum { kind: Kind, stake: u64, min: u64 },
    #[error("{} on {} is over the table maximum {}", Minor::new(*.stake), a(*.kind), Minor::new(*.max))]
    OverMaximum { kind: Kind, stake: u64, max: u64 },
    #[error("zero_choice applies only when the table offers In Prison (run with In Prison on)")]
    ZeroChoiceWithoutInPrison,
    #[error("zero_choice applies only to even-money bets (red, black, odd, even, low, high), not {0}")]
    ZeroChoiceNotEvenMoney(Kind),
    #[error("profile {profile} accepts match play coupons only on {allowed}, not on {kind}")]
    CouponNotAccepted {
        profile: String,
        kind: Kind,
        allowed: String,
    },
    #[error(
        "a match play coupon of {} must be matched by an equal stake, not {}",
        Minor::new(u64::try_from(*.coupon).unwrap_or(0)),
        Minor::new(*.stake)
    )]
    CouponNotMatched { coupon: i128, stake: u64 },
    #[error("a match play bet cannot also choose In Prison: it loses on zero")]
    CouponWithZeroChoice,
    #[error(
        "a complete wager is on \"any number or numbers within a dozen\" (Maryland ch.3 F(19)): {0} is in no dozen"
    )]
    CompleteOnZero(String),
}

/// A kind of bet in words, with its article: "a six line", "an odd".
fn a(kind: Kind) -> String {
    let words = kind.name().replace('_', " ");
    let article = if words.starts_with(['a', 'e', 'i', 'o', 'u']) {
        "an"
    } else {
        "a"
    };
    format!("{article} {words}")
}

/// One bet a composite bet stands for, or the bet itself.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Component {
    pub kind: Kind,
    pub covers: PocketSet,
    /// The part of the stake that plays on this component.
    pub stake: Minor,
    /// "N to 1".
    pub payout: u32,
}

/// A bet accepted under a table's rules.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct PlacedBet {
    spot: Spot,
    stake: Stake,
    components: Vec<Component>,
    /// Over the maximum under "play the maximum": returned whatever happens
    /// (european-casino 3.12).
    excess: Minor,
    zero_choice: Option<ZeroChoice>,
    coupon: Minor,
    under_minimum: bool,
}

impl PlacedBet {
    pub fn spot(&self) -> Spot {
        self.spot
    }

    pub fn kind(&self) -> Kind {
        self.spot.kind()
    }

    pub fn stake(&self) -> Stake {
        self.stake
    }

    pub fn components(&self) -> &[Component] {
        &self.components
    }

    pub fn excess(&self) -> Minor {
        self.excess
    }

    pub fn coupon(&self) -> Minor {
        self.coupon
    }

    /// Settled once and then returned (european-casino 3.13).
    pub fn under_minimum(&self) -> bool {
        self.under_minimum
    }

    fn playing_stake(&self) -> Minor {
        Minor::new(self.stake.get() - self.excess.get())
    }
}

/// A request to place a bet, as it arrives from the edge.
#[derive(Clone, Copy, Debug)]
pub struct BetRequest<'a> {
    pub spot: &'a str,
    pub stake_minor: i128,
    pub zero_choice: Option<ZeroChoice>,
    pub coupon_minor: Option<i128>,
}

/// How a bet ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub enum Outcome {
    Win,
    Lose,
    /// Half the stake handed back on zero.
    Half,
    /// Still in prison after the last spin; the stake is held.
    Prison,
    /// An imprisoned bet freed by a win: the stake is returned.
    Released,
    /// No valid spin decided it; the stake is returned.
    Void,
}

impl Outcome {
    pub fn name(self) -> &'static str {
        match self {
            Outcome::Win => "win",
            Outcome::Lose => "lose",
            Outcome::Half => "half",
            Outcome::Prison => "prison",
            Outcome::Released => "released",
            Outcome::Void => "void",
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Settlement {
    pub outcome: Outcome,
    pub staked: Minor,
    /// Everything handed back to the player, stake included.
    pub returned: Minor,
    /// Still on the layout (a bet in prison).
    pub held: Minor,
    /// The index of the spin that decided the bet, if one did.
    pub decided_by: Option<usize>,
}

impl Settlement {
    /// `returned - staked`.
    pub fn net(&self) -> i128 {
        self.returned.signed_diff(self.staked)
    }
}

/// A profile narrowed to one wheel and one table's options.
#[derive(Clone, Copy, Debug)]
pub struct TableRules<'p> {
    profile: &'p Profile,
    wheel: Wheel,
    in_prison: bool,
    /// Off only for game math, where the size of a stake does not matter.
    apply_limits: bool,
    /// In Prison acts on every zero of the wheel (00 and 000 too), as tables
    /// made before journal format 14 read Colorado 2204(2).
    in_prison_every_zero: bool,
    /// A complete wager may be on a zero, as tables made before journal
    /// format 14 took it.
    complete_on_zero: bool,
}

impl<'p> TableRules<'p> {
    pub fn new(profile: &'p Profile, wheel: Wheel, in_prison: bool) -> Result<TableRules<'p>, RulesError> {
        if !profile.offers_wheel(wheel) {
            let offered: Vec<&str> = profile.spec().wheels.iter().map(|w| w.name()).collect();
            return Err(RulesError::WheelNotOffered {
                profile: profile.name().to_string(),
                wheel,
                offered: offered.join(", "),
            });
        }
        if in_prison && !profile.spec().zero.in_prison_offered {
            return Err(RulesError::InPrisonNotOffered {
                profile: profile.name().to_string(),
            });
        }
        Ok(TableRules {
            profile,
            wheel,
            in_prison,
            apply_limits: true,
            in_prison_every_zero: false,
            complete_on_zero: false,
        })
    }

    /// The same rules taking a complete wager on a zero: how a table made
    /// before journal format 14 read Maryland ch.3 F(19), whose "any number
    /// or numbers within a dozen" no zero is.
    pub fn complete_on_zero_taken(self) -> TableRules<'p> {
        TableRules {
            complete_on_zero: true,
            ..self
        }
    }

    /// The same rules with In Prison acting on every zero of the wheel, 00
    /// included: how a table made before journal format 14 read Colorado
    /// 2204(2), which names "zero (0)" only.
    pub fn in_prison_on_every_zero(self) -> TableRules<'p> {
        TableRules {
            in_prison_every_zero: true,
            ..self
        }
    }

    /// The same rules with the table limits switched off, for game math:
    /// the odds of a bet do not depend on its size.
    pub fn ignoring_limits(self) -> TableRules<'p> {
        TableRules {
            apply_limits: false,
            ..self
        }
    }

    pub fn profile(&self) -> &'p Profile {
        self.profile
    }

    pub fn wheel(&self) -> Wheel {
        self.wheel
    }

    pub fn in_prison(&self) -> bool {
        self.in_prison
    }

    fn not_offered(&self, what: impl Into<String>) -> BetError {
        BetError::NotOffered {
            profile: self.profile.name().to_string(),
            what: what.into(),
        }
    }

    /// The inside spots a complete bet on `centre` stands for: every inside
    /// spot containing it that the profile offers on this wheel.
    fn complete_components(&self, centre: Pocket) -> Vec<(Kind, PocketSet)> {
        inside_spots(self.wheel.layout())
            .iter()
            .filter(|&&(kind, covers)| {
                covers.contains(centre)
                    && covers.is_subset_of(self.wheel.bettable())
                    && self.profile.offers_inside(kind, covers)
            })
            .copied()
            .collect()
    }

    /// Every spot these rules accept, in spot notation: the inside spots the
    /// profile offers on the wheel's layout, then the outside and composite ones.
    pub fn legal_spots(&self) -> Vec<String> {
        let wheel = self.wheel;
        let mut spots: Vec<String> = inside_spots(wheel.layout())
            .iter()
            .filter(|&&(kind, covers)| {
                self.profile.offers_inside(kind, covers) && covers.is_subset_of(wheel.bettable())
            })
            .map(|&(_, covers)| covers.notation())
            .collect();
        for kind in self.profile.kinds_on(wheel) {
            match kind {
                Kind::Column => spots.extend((1..=3).map(|g| format!("column{g}"))),
                Kind::Dozen => spots.extend((1..=3).map(|g| format!("dozen{g}"))),
                Kind::Neighbours | Kind::Complete => spots.extend(
                    wheel
                        .bettable()
                        .iter()
                        .filter(|p| kind != Kind::Complete || self.complete_on_zero || !p.is_zero())
                        .map(|p| format!("{}:{}", kind.name(), p.label()))
                        .filter(|s| Spot::parse(s, wheel).is_ok()),
                ),
                k if !k.is_inside() => spots.push(k.name().to_string()),
                _ => {}
            }
        }
        spots
    }

    /// How many equal units a stake on `spot` is divided into: 1 for a plain
    /// bet, 5 for neighbours, the numbers covered by each part for complete.
    /// A stake must be a multiple of it.
    pub fn stake_units(&self, spot: &str) -> Result<u64, BetError> {
        let probe = BetRequest {
            spot,
            stake_minor: 1,
            zero_choice: None,
            coupon_minor: None,
        };
        match self.ignoring_limits().place(&probe) {
            Ok(_) => Ok(1),
            Err(BetError::Indivisible { parts, .. }) => Ok(parts),
            Err(e) => Err(e),
        }
    }

    fn payout(&self, kind: Kind) -> Result<u32, BetError> {
        self.profile.payout(kind).ok_or_else(|| self.not_offered(kind.name()))
    }

    pub fn place(&self, request: &BetRequest<'_>) -> Result<PlacedBet, BetError> {
        let spot = Spot::parse(request.spot, self.wheel)?;
        let kind = spot.kind();
        let offered = if kind.is_inside() {
            self.profile.offers_inside(kind, spot.covers())
        } else {
            self.profile.offers(kind)
        };
        if !offered {
            let what = if kind == Kind::Trio && self.profile.offers(Kind::Trio) {
                format!("the three-numbers group {}", spot.covers().notation())
            } else {
                kind.name().to_string()
            };
            return Err(self.not_offered(what));
        }
        let stake = Stake::new(request.stake_minor)?;

        // Split the stake among the bets it stands for: (kind, covers, units).
        let parts: Vec<(Kind, PocketSet, u64)> = match (kind, spot.centre()) {
            (Kind::Neighbours, _) => spot
                .covers()
                .iter()
                .map(|p| (Kind::Straight, PocketSet::EMPTY.with(p), 1))
                .collect(),
            // Maryland ch.3 F(19): "any number or numbers within a dozen".
            (Kind::Complete, Some(centre)) if centre.is_zero() && !self.complete_on_zero => {
                return Err(BetError::CompleteOnZero(centre.label().to_string()))
            }
            (Kind::Complete, Some(centre)) => self
                .complete_components(centre)
                .into_iter()
                .map(|(k, covers)| (k, covers, u64::from(covers.len())))
                .collect(),
            _ => vec![(kind, spot.covers(), 1)],
        };
        let units: u64 = parts.iter().map(|&(_, _, u)| u).sum();
        if units == 0 || stake.get() % units != 0 {
            return Err(BetError::Indivisible {
                spot: spot.notation(),
                parts: units,
                stake: stake.get(),
            });
        }
        let unit = stake.get() / units;

        let limits = &self.profile.spec().limits;
        let mut components = Vec::with_capacity(parts.len());
        let mut excess = 0u64;
        let mut under_minimum = false;
        for (part_kind, covers, part_units) in parts {
            let mut part_stake = unit * part_units;
            if let Some(range) = self.profile.limit(part_kind).filter(|_| self.apply_limits) {
                if part_stake < range.min.get() {
                    match limits.under_minimum {
                        UnderMinimum::Refuse => {
                            return Err(BetError::UnderMinimum {
                                kind: part_kind,
                                stake: part_stake,
                                min: range.min.get(),
                            })
                        }
                        UnderMinimum::SettleOnce => under_minimum = true,
                    }
                }
                if part_stake > range.max.get() {
                    match limits.over_maximum {
                        OverMaximum::Refuse => {
                            return Err(BetError::OverMaximum {
                                kind: part_kind,
                                stake: part_stake,
                                max: range.max.get(),
                            })
                        }
                        OverMaximum::PlayMaximumReturnExcess => {
                            excess += part_stake - range.max.get();
                            part_stake = range.max.get();
                        }
                    }
                }
            }
            components.push(Component {
                kind: part_kind,
                covers,
                stake: Minor::new(part_stake),
                payout: self.payout(part_kind)?,
            });
        }

        if let Some(_choice) = request.zero_choice {
            if !self.in_prison {
                return Err(BetError::ZeroChoiceWithoutInPrison);
            }
            if !kind.is_even_money() {
                return Err(BetError::ZeroChoiceNotEvenMoney(kind));
            }
        }
        let coupon = match request.coupon_minor {
            None => Minor::ZERO,
            Some(coupon) => {
                let allowed = &self.profile.spec().match_play;
                if !allowed.contains(&kind) {
                    let names: Vec<&str> = allowed.iter().map(|k| k.name()).collect();
                    return Err(BetError::CouponNotAccepted {
                        profile: self.profile.name().to_string(),
                        kind,
                        allowed: if names.is_empty() {
                            "nothing".to_string()
                        } else {
                            names.join(", ")
                        },
                    });
                }
                if coupon != i128::from(stake.get()) || excess != 0 {
                    return Err(BetError::CouponNotMatched {
                        coupon,
                        stake: stake.get(),
                    });
                }
                if request.zero_choice.is_some() {
                    return Err(BetError::CouponWithZeroChoice);
                }
                stake.minor()
            }
        };

        Ok(PlacedBet {
            spot,
            stake,
            components,
            excess: Minor::new(excess),
            zero_choice: request.zero_choice,
            coupon,
            under_minimum,
        })
    }

    /// Everything the bet hands back if `pocket` decides it as a plain win or
    /// loss, excess included.
    fn paid_on(&self, bet: &PlacedBet, pocket: Pocket) -> (bool, Minor) {
        let mut won = false;
        let mut returned = bet.excess.get();
        for c in &bet.components {
            if c.covers.contains(pocket) {
                won = true;
                // Bounded by STAKE_MAX_MINOR * (PAYOUT_MAX_TO_ONE + 1): no overflow.
                returned += c.stake.get() * (u64::from(c.payout) + 1);
                returned += bet.coupon.get() * u64::from(c.payout);
            }
        }
        (won, Minor::new(returned))
    }

    /// What an even-money bet does on zero under this table's rules, or
    /// `None` where it simply loses.
    fn zero_rule(&self, bet: &PlacedBet) -> Option<ZeroChoice> {
        if !bet.kind().is_even_money() || bet.coupon != Minor::ZERO {
            return None;
        }
        let zero = &self.profile.spec().zero;
        if self.in_prison {
            // Colorado 2204(2): the player may take back half or leave the bet in prison.
            Some(bet.zero_choice.unwrap_or(zero.in_prison_default))
        } else if zero.even_money_on_zero == EvenMoneyOnZero::HalfBack {
            Some(ZeroChoice::Half)
        } else {
            None
        }
    }

    /// The pockets on which [`Self::zero_rule`] acts: In Prison on 0 alone
    /// (Colorado 2204(2): "When the outcome is zero (0)"), so an even-money
    /// bet loses on 00 and 000 as on any pocket it does not cover; half back
    /// on every zero.
    fn zero_rule_acts_on(&self, pocket: Pocket) -> bool {
        if self.in_prison && !self.in_prison_every_zero {
            pocket == Pocket::ZERO
        } else {
            pocket.is_zero()
        }
    }

    fn half_back(&self, bet: &PlacedBet) -> Minor {
        let half = self.profile.spec().zero.half_rounding.half_of(bet.playing_stake());
        Minor::new(half.get() + bet.excess.get())
    }

    /// Settles a bet over consecutive spins. The bet is decided by the first
    /// valid spin, except that an even-money bet sent to prison by a zero is
    /// decided by the next valid spin; void spins are skipped.
    pub fn settle(&self, bet: &PlacedBet, spins: &[Pocket]) -> Settlement {
        let staked = bet.stake.minor();
        let done = |outcome, returned, i| Settlement {
            outcome,
            staked,
            returned,
            held: Minor::ZERO,
            decided_by: Some(i),
        };
        let mut imprisoned = false;
        for (i, &pocket) in spins.iter().enumerate() {
            if self.wheel.voids_spin(pocket) {
                continue;
            }
            let (won, paid) = self.paid_on(bet, pocket);
            if imprisoned {
                // Colorado 2204(2): a win frees the stake; anything else,
                // a second zero included, loses the whole bet.
                return if won {
                    done(Outcome::Released, Minor::new(bet.stake.get()), i)
                } else {
                    done(Outcome::Lose, bet.excess, i)
                };
            }
            if self.zero_rule_acts_on(pocket) {
                match self.zero_rule(bet) {
                    Some(ZeroChoice::Half) => return done(Outcome::Half, self.half_back(bet), i),
                    Some(ZeroChoice::Prison) => {
                        imprisoned = true;
                        continue;
                    }
                    None => {}
                }
            }
            return done(if won { Outcome::Win } else { Outcome::Lose }, paid, i);
        }
        if imprisoned {
            Settlement {
                outcome: Outcome::Prison,
                staked,
                returned: bet.excess,
                held: bet.playing_stake(),
                decided_by: None,
            }
        } else {
            Settlement {
                outcome: Outcome::Void,
                staked,
                returned: staked,
                held: Minor::ZERO,
                decided_by: None,
            }
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum BookError {
    #[error("a round holds at most {BETS_PER_ROUND_MAX} bets")]
    Full,
    #[error("player {player} is not at this table of {players} players")]
    NoSuchPlayer { player: u32, players: u32 },
    #[error("a ball in {0} voids the spin: spin again")]
    VoidSpin(Pocket),
}

/// One round's bets compiled into flat arrays, one entry per component, so
/// that settling a spin is a single pass of multiply-and-add with no branch
/// on the outcome and no allocation.
#[derive(Clone, Debug)]
pub struct Book {
    wheel: Wheel,
    players: u32,
    component_covers: Vec<u64>,
    component_stake: Vec<u64>,
    /// payout + 1 for a stake, payout alone for a match play coupon.
    component_multiplier: Vec<u64>,
    component_bet: Vec<u32>,
    bet_player: Vec<u32>,
    bet_excess: Vec<u64>,
    /// Bets whose fate on zero is not a plain loss: (bet, choice, half-back
    /// amount, the zeros it acts on).
    zero_rules: Vec<(u32, ZeroChoice, u64, PocketSet)>,
}

/// The settlement of one spin of a [`Book`]; allocate once, reuse every round.
#[derive(Clone, Debug, Default)]
pub struct BookResults {
    /// Everything handed back per bet, stake included (0 for a bet in prison).
    pub returned: Vec<u64>,
    pub outcome: Vec<Outcome>,
    /// Everything handed back per player.
    pub per_player: Vec<u64>,
}

impl Book {
    pub fn new(wheel: Wheel, players: u32, bets_capacity: usize) -> Book {
        let components = bets_capacity.min(BETS_PER_ROUND_MAX);
        Book {
            wheel,
            players,
            component_covers: Vec::with_capacity(components),
            component_stake: Vec::with_capacity(components),
            component_multiplier: Vec::with_capacity(components),
            component_bet: Vec::with_capacity(components),
            bet_player: Vec::with_capacity(components),
            bet_excess: Vec::with_capacity(components),
            zero_rules: Vec::new(),
        }
    }

    pub fn len(&self) -> usize {
        self.bet_player.len()
    }

    pub fn is_empty(&self) -> bool {
        self.bet_player.is_empty()
    }

    pub fn clear(&mut self) {
        self.component_covers.clear();
        self.component_stake.clear();
        self.component_multiplier.clear();
        self.component_bet.clear();
        self.bet_player.clear();
        self.bet_excess.clear();
        self.zero_rules.clear();
    }

    /// Adds a bet placed under `rules` (which must be for this book's wheel).
    pub fn add(&mut self, rules: &TableRules<'_>, player: u32, bet: &PlacedBet) -> Result<(), BookError> {
        assert_eq!(rules.wheel(), self.wheel, "a book holds bets of one wheel");
        if self.bet_player.len() >= BETS_PER_ROUND_MAX {
            return Err(BookError::Full);
        }
        if player >= self.players {
            return Err(BookError::NoSuchPlayer {
                player,
                players: self.players,
            });
        }
        let index = self.bet_player.len() as u32;
        for c in &bet.components {
            self.component_covers.push(c.covers.bits());
            self.component_stake.push(c.stake.get());
            self.component_multiplier.push(u64::from(c.payout) + 1);
            self.component_bet.push(index);
            if bet.coupon != Minor::ZERO {
                self.component_covers.push(c.covers.bits());
                self.component_stake.push(bet.coupon.get());
                self.component_multiplier.push(u64::from(c.payout));
                self.component_bet.push(index);
            }
        }
        self.bet_player.push(player);
        self.bet_excess.push(bet.excess.get());
        if let Some(choice) = rules.zero_rule(bet) {
            let on = self
                .wheel
                .pockets()
                .iter()
                .filter(|&p| rules.zero_rule_acts_on(p))
                .fold(PocketSet::EMPTY, |set, p| set.with(p));
            self.zero_rules.push((index, choice, rules.half_back(bet).get(), on));
        }
        Ok(())
    }

    /// Settles the round on `pocket` into `out`, reusing its buffers.
    pub fn settle(&self, pocket: Pocket, out: &mut BookResults) -> Result<(), BookError> {
        if self.wheel.voids_spin(pocket) {
            return Err(BookError::VoidSpin(pocket));
        }
        let bets = self.bet_player.len();
        out.returned.clear();
        out.returned.resize(bets, 0);
        out.outcome.clear();
        out.outcome.resize(bets, Outcome::Lose);
        out.per_player.clear();
        out.per_player.resize(self.players as usize, 0);

        let shift = pocket.index() as u32;
        let returned = &mut out.returned[..];
        for (((&covers, &stake), &multiplier), &bet) in self
            .component_covers
            .iter()
            .zip(&self.component_stake)
            .zip(&self.component_multiplier)
            .zip(&self.component_bet)
        {
            let hit = (covers >> shift) & 1;
            returned[bet as usize] += stake * multiplier * hit;
        }
        for (((r, outcome), &excess), &player) in returned
            .iter_mut()
            .zip(out.outcome.iter_mut())
            .zip(&self.bet_excess)
            .zip(&self.bet_player)
        {
            if *r > 0 {
                *outcome = Outcome::Win;
            }
            *r += excess;
            out.per_player[player as usize] += *r;
        }
        if pocket.is_zero() {
            for &(bet, choice, half, on) in &self.zero_rules {
                if !on.contains(pocket) {
                    continue;
                }
                let b = bet as usize;
                let player = self.bet_player[b] as usize;
                out.per_player[player] -= out.returned[b];
                let (outcome, amount) = match choice {
                    ZeroChoice::Half => (Outcome::Half, half),
                    ZeroChoice::Prison => (Outcome::Prison, self.bet_excess[b]),
                };
                out.outcome[b] = outcome;
                out.returned[b] = amount;
                out.per_player[player] += amount;
            }
        }
        Ok(())
    }
}
