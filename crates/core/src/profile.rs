//! Profiles: one jurisdiction's rule set as data, validated when built.
//!
//! A [`Jurisdiction`] holds what its rule document fixes and a profile may not
//! weaken: minimum payout odds, the wagers it permits, the minimum ball
//! revolutions, which zero rules are allowed. A [`Profile`] is what a casino
//! runs under that jurisdiction. [`Profile::new`] is the only way to get one,
//! and it refuses anything the jurisdiction does not allow.

use std::fmt;

use crate::money::{HalfRounding, Minor, PAYOUT_MAX_TO_ONE, STAKE_MAX_MINOR};
use crate::pocket::PocketSet;
use crate::spot::{inside_spots, Kind, ALL_KINDS, KIND_COUNT};
use crate::wheel::Wheel;

/// Payout odds "N to 1" for each non-composite kind; `None` where not stated.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Paytable([Option<u32>; KIND_COUNT]);

impl Paytable {
    pub fn get(&self, kind: Kind) -> Option<u32> {
        self.0[kind.index()]
    }

    pub fn set(&mut self, kind: Kind, to_one: u32) {
        self.0[kind.index()] = Some(to_one);
    }

    pub fn entries(&self) -> impl Iterator<Item = (Kind, u32)> + '_ {
        ALL_KINDS.into_iter().filter_map(|k| self.get(k).map(|odds| (k, odds)))
    }
}

/// What a rule document fixes. Shipped as data; never edited by a profile.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Jurisdiction {
    pub name: String,
    pub title: String,
    pub wheels: Vec<Wheel>,
    /// The wagers the document names; a profile may offer only these.
    pub permitted: Vec<Kind>,
    /// The three-number groups with a zero the document names.
    pub permitted_trios: Vec<PocketSet>,
    /// A profile may not pay less than these.
    pub minimum_payouts: Paytable,
    pub min_ball_revolutions: u8,
    pub in_prison_permitted: bool,
    pub half_back_permitted: bool,
    /// The document fixes its odds ("paid out 35 to 1"): a profile pays
    /// exactly `minimum_payouts`, not more.
    pub payouts_fixed: bool,
    /// Adjustments are made before a security department member, who is
    /// recorded (Colorado 2212(2), Maryland ch.2 B).
    pub adjustment_witness: bool,
    /// Kinds on which match play coupons may be accepted.
    pub match_play_kinds: Vec<Kind>,
    /// Bonus variants the document permits ("roulette-x", "bonus-spin-xtreme").
    pub bonuses: Vec<String>,
    /// After a no spin for one of these reasons the ball is inspected before
    /// the next spin (Colorado 2206(4): ball left the wheel; Maryland ch.6
    /// B-C: too few revolutions or ball left the wheel).
    pub ball_inspection_after: Vec<crate::no_spin::NoSpinReason>,
    /// Who inspects it: "pit supervisor" (Colorado 2206(4)) or "dealer"
    /// (Maryland ch.6 B(1), C(1)).
    pub ball_inspected_by: String,
    /// A replaced external movable part is inspected by the regulator (the
    /// Director or designee) before the table reopens (Colorado 2212(4)).
    pub external_replacement_inspected_by_regulator: bool,
    /// A double-zero wheel used as single zero keeps the double-zero layout
    /// with 00 covered (Maryland ch.1 F): a new table is set on
    /// `double-zero-covered`, never on the single-zero felt. A profile may
    /// still name `double-zero-as-single-zero`, so older tables replay.
    pub double_zero_layout_covered: bool,
    /// The layout shows the operator's name or logo (Maryland ch.1 G(1)).
    pub operator_on_layout: bool,
    /// The layout carries signage of the table's minimum and maximum
    /// wagers (Maryland ch.1 G(3)): the table opens only with a limit
    /// posted on every kind of bet it takes.
    pub limits_on_layout: bool,
    /// The inspection and adjustment log carries the licence number of who
    /// made the entry (Colorado 2212(5), Maryland ch.2 E(6)): only staff
    /// with a licence on their record inspect or adjust.
    pub licence_on_record: bool,
    /// A hanging ball's no spin is announced by the floor, not the dealer
    /// (low-limit-house Irregularities (5)).
    pub hanging_ball_called_by_floor: bool,
}

/// What happens to an even-money bet when the ball lands in a zero.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum EvenMoneyOnZero {
    /// The bet loses (Maryland ch.4 B).
    Lose,
    /// Half the bet is handed back.
    HalfBack,
}

/// The player's choice for an even-money bet on zero under In Prison
/// (Colorado 2204(2)).
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum ZeroChoice {
    /// Take back half of the bet.
    Half,
    /// Leave the bet in prison for the next spin.
    Prison,
}

impl ZeroChoice {
    pub fn parse(text: &str) -> Option<ZeroChoice> {
        match text {
            "half" => Some(ZeroChoice::Half),
            "prison" => Some(ZeroChoice::Prison),
            _ => None,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            ZeroChoice::Half => "half",
            ZeroChoice::Prison => "prison",
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct ZeroRules {
    pub even_money_on_zero: EvenMoneyOnZero,
    /// Whether the table may offer In Prison; a table turns it on.
    pub in_prison_offered: bool,
    /// The choice taken when a player makes none: the chips stay where they
    /// are, so a bet left alone goes to prison.
    pub in_prison_default: ZeroChoice,
    pub half_rounding: HalfRounding,
}

/// A bet over the maximum (european-casino 3.12).
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum OverMaximum {
    Refuse,
    /// Only the part up to the maximum plays; the excess is returned.
    PlayMaximumReturnExcess,
}

/// A bet under the minimum (european-casino 3.13).
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum UnderMinimum {
    Refuse,
    /// Paid or collected once, then returned whatever the outcome.
    SettleOnce,
}

/// What happens to bets when a spin is declared no spin.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum NoSpinBets {
    /// Bets stay on the layout for the re-spin.
    Stay,
    /// The spin is invalid "as are all bets": they are returned (european-casino 4.5-4.8).
    Returned,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct StakeRange {
    pub min: Minor,
    pub max: Minor,
}

#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Limits {
    /// Per-bet limits by kind (low-limit-house "The wager amounts").
    pub per_kind: Vec<(Kind, StakeRange)>,
    pub over_maximum: OverMaximum,
    pub under_minimum: UnderMinimum,
}

/// A profile as written, before validation.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct ProfileSpec {
    pub name: String,
    pub title: String,
    pub source: String,
    pub currency: String,
    pub wheels: Vec<Wheel>,
    pub default_wheel: Wheel,
    pub offered: Vec<Kind>,
    pub trios: Vec<PocketSet>,
    pub paytable: Paytable,
    pub zero: ZeroRules,
    pub min_ball_revolutions: u8,
    pub limits: Limits,
    pub match_play: Vec<Kind>,
    pub chip_colours: Vec<String>,
    pub number_display_length: Option<u8>,
    pub verbal_bets: bool,
    pub no_spin_bets: NoSpinBets,
    /// Where bets are returned on a no spin: for these reasons only, the
    /// others being spun again with the bets standing (european-casino
    /// 4.5-4.8 against its glossary's NO SPIN); empty: for every reason.
    pub no_spin_returned_for: Vec<crate::no_spin::NoSpinReason>,
    pub dispute_authority: String,
    /// Further lines of posted house rules the document requires.
    pub house_rules: Vec<String>,
    /// The restriction on tip wagers for the dealers, posted at the table
    /// with its limits (Colorado 2207); `None` where the profile states none.
    pub tips_notice: Option<String>,
    /// What the document says of tournaments; `None`: it gives none.
    pub tournaments: Option<crate::tournament::TournamentRules>,
    /// Colour chips kept past the gaming day they were bought on: what
    /// each is cashed in at (european-casino 5.4; low-limit-house "Roulette
    /// Chips"); `None`: at its face value, whenever.
    pub chips_past_day: Option<ChipsPastDay>,
}

/// What colour chips kept past the gaming day are cashed in at, and who
/// may confirm their face value instead (european-casino 5.5: "the pit
/// boss or the upper management"; low-limit-house: the floor manager).
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct ChipsPastDay {
    pub value: PastDayValue,
    /// The titles, as a profile names its dispute authority.
    pub confirmed_by: Vec<String>,
    /// Chips taken away from the table are revalued on their return
    /// whenever it is (the low-limit house: "If Roulette-specific chips are
    /// removed from the table and need to be returned at any value other
    /// than $1, then the floor manager must be called"), not only after the
    /// gaming day they were bought on (european-casino 5.4). Left out of a
    /// checkpoint when false, as profiles made before it wrote it.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub always: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum PastDayValue {
    /// The table minimum of the gaming day the chips were bought on (european-casino 5.4).
    TableMinimum,
    /// So much each, in minor units (low-limit-house: $1).
    Each(u64),
}

/// A validated profile.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Profile {
    spec: ProfileSpec,
    jurisdiction: Jurisdiction,
}

/// A profile that cannot be used, naming the field at fault.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct ProfileError {
    pub field: String,
    pub message: String,
}

impl fmt::Display for ProfileError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.field, self.message)
    }
}

impl std::error::Error for ProfileError {}

fn fail<T>(field: impl Into<String>, message: impl Into<String>) -> Result<T, ProfileError> {
    Err(ProfileError {
        field: field.into(),
        message: message.into(),
    })
}

/// The longest number display a profile may ask for.
pub const NUMBER_DISPLAY_LENGTH_MAX: u8 = 100;
/// The most chip colours a profile may list.
pub const CHIP_COLOURS_MAX: usize = 64;

impl Profile {
    pub fn new(spec: ProfileSpec, jurisdiction: Jurisdiction) -> Result<Profile, ProfileError> {
        validate(&spec, &jurisdiction)?;
        Ok(Profile { spec, jurisdiction })
    }

    pub fn spec(&self) -> &ProfileSpec {
        &self.spec
    }

    pub fn name(&self) -> &str {
        &self.spec.name
    }

    pub fn jurisdiction(&self) -> &Jurisdiction {
        &self.jurisdiction
    }

    pub fn offers(&self, kind: Kind) -> bool {
        self.spec.offered.contains(&kind)
    }

    pub fn offers_wheel(&self, wheel: Wheel) -> bool {
        self.spec.wheels.contains(&wheel)
    }

    /// Whether an inside spot is offered: its kind, and for a trio the group.
    pub fn offers_inside(&self, kind: Kind, covers: PocketSet) -> bool {
        self.offers(kind) && (kind != Kind::Trio || self.spec.trios.contains(&covers))
    }

    pub fn payout(&self, kind: Kind) -> Option<u32> {
        self.spec.paytable.get(kind)
    }

    /// The per-kind limits a table posts, in place of the profile's own
    /// (`round::Table` checks them against the profile's first).
    pub(crate) fn set_limits(&mut self, per_kind: Vec<(Kind, StakeRange)>) {
        self.spec.limits.per_kind = per_kind;
    }

    pub fn limit(&self, kind: Kind) -> Option<StakeRange> {
        self.spec
            .limits
            .per_kind
            .iter()
            .find(|(k, _)| *k == kind)
            .map(|&(_, range)| range)
    }

    /// The kinds this profile offers on a wheel, in the canonical order.
    pub fn kinds_on(&self, wheel: Wheel) -> Vec<Kind> {
        ALL_KINDS
            .into_iter()
            .filter(|&k| self.offers(k) && kind_possible_on(k, wheel, &self.spec.trios))
            .collect()
    }
}

/// Whether a kind can exist on a wheel given the trio groups a profile offers.
pub fn kind_possible_on(kind: Kind, wheel: Wheel, trios: &[PocketSet]) -> bool {
    match kind {
        Kind::Green => wheel == Wheel::TripleZero,
        Kind::Trio => inside_spots(wheel.layout())
            .iter()
            .any(|&(k, set)| k == Kind::Trio && trios.contains(&set) && set.is_subset_of(wheel.bettable())),
        k if k.is_inside() => inside_spots(wheel.layout())
            .iter()
            .any(|&(kk, set)| kk == k && set.is_subset_of(wheel.bettable())),
        _ => true,
    }
}

fn validate(spec: &ProfileSpec, j: &Jurisdiction) -> Result<(), ProfileError> {
    let name_ok = !spec.name.is_empty()
        && spec.name.len() <= 64
        && spec
            .name
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-');
    if !name_ok {
        return fail(
            "name",
            format!("{:?} must be 1 to 64 characters of a-z, 0-9 and '-'", spec.name),
        );
    }
    if spec.title.trim().is_empty() {
        return fail("title", "must not be empty");
    }
    if spec.currency.len() != 3 || !spec.currency.bytes().all(|b| b.is_ascii_uppercase()) {
        return fail(
            "currency",
            format!("{:?} is not a three-letter currency code", spec.currency),
        );
    }

    if spec.wheels.is_empty() {
        return fail("wheels", "a profile needs at least one wheel");
    }
    for (i, wheel) in spec.wheels.iter().enumerate() {
        if spec.wheels[..i].contains(wheel) {
            return fail("wheels", format!("{} is listed twice", wheel.name()));
        }
        if !j.wheels.contains(wheel) {
            return fail("wheels", format!("{} is not permitted by {}", wheel.name(), j.title));
        }
    }
    if !spec.wheels.contains(&spec.default_wheel) {
        return fail(
            "default_wheel",
            format!("{} is not one of the profile's wheels", spec.default_wheel.name()),
        );
    }

    if spec.offered.is_empty() {
        return fail("spots", "a profile must offer at least one wager");
    }
    if spec.offered.contains(&Kind::Trio) && spec.trios.is_empty() {
        return fail("trios", "trio is offered but no three-numbers group is listed");
    }
    for (i, &kind) in spec.offered.iter().enumerate() {
        if spec.offered[..i].contains(&kind) {
            return fail("spots", format!("{kind} is listed twice"));
        }
        if !j.permitted.contains(&kind) {
            return fail("spots", format!("{kind} is not a wager {} names", j.title));
        }
        if !spec.wheels.iter().any(|&w| kind_possible_on(kind, w, &spec.trios)) {
            let wheels: Vec<&str> = spec.wheels.iter().map(|w| w.name()).collect();
            return fail(
                "spots",
                format!(
                    "{kind} cannot be placed on any of the profile's wheels ({})",
                    wheels.join(", ")
                ),
            );
        }
    }
    for (i, trio) in spec.trios.iter().enumerate() {
        let field = format!("trios[{i}]");
        if spec.trios[..i].contains(trio) {
            return fail(field, format!("{} is listed twice", trio.notation()));
        }
        if !j.permitted_trios.contains(trio) {
            return fail(
                field,
                format!("{} is not a three-numbers group {} names", trio.notation(), j.title),
            );
        }
        if !spec.offered.contains(&Kind::Trio) {
            return fail(field, "trio groups are listed but trio is not in spots");
        }
    }

    for kind in ALL_KINDS {
        let field = format!("paytable.{kind}");
        let offered = spec.offered.contains(&kind);
        match (spec.paytable.get(kind), offered, kind.is_composite()) {
            (Some(_), _, true) => {
                return fail(
                    field,
                    format!("{kind} is paid by the bets it stands for; it takes no paytable entry"),
                )
            }
            (None, true, false) => return fail(field, format!("{kind} is offered but has no payout")),
            (Some(_), false, false) => return fail(field, format!("{kind} has a payout but is not in spots")),
            (Some(odds), true, false) => {
                if odds == 0 || odds > PAYOUT_MAX_TO_ONE {
                    return fail(field, format!("{odds} to 1 is outside 1 to {PAYOUT_MAX_TO_ONE}"));
                }
                if let Some(min) = j.minimum_payouts.get(kind) {
                    if j.payouts_fixed && odds != min {
                        return fail(field, format!("pays {odds} to 1; {} fixes it at {min} to 1", j.title));
                    }
                    if odds < min {
                        return fail(
                            field,
                            format!("pays {odds} to 1, less than the {min} to 1 {} requires", j.title),
                        );
                    }
                }
                // A bet the house expects to lose on, or only to break even on
                // (100% to the player), would be no game on any table running
                // the profile: that is a mistake, not a rule.
                for &wheel in &spec.wheels {
                    let covered = covered_for_edge(kind, wheel, &spec.trios);
                    if covered > 0 && u64::from(covered) * (u64::from(odds) + 1) >= u64::from(wheel.outcome_count()) {
                        return fail(
                            field,
                            format!(
                                "{odds} to 1 gives the player the edge on the {} ({covered} of {} pockets)",
                                wheel.name(),
                                wheel.outcome_count()
                            ),
                        );
                    }
                }
            }
            (None, false, _) | (None, true, true) => {}
        }
    }
    for kind in [Kind::Neighbours, Kind::Complete] {
        if spec.offered.contains(&kind) && spec.paytable.get(Kind::Straight).is_none() {
            return fail("spots", format!("{kind} needs straight, whose payout it uses"));
        }
    }

    if spec.min_ball_revolutions < j.min_ball_revolutions {
        return fail(
            "min_ball_revolutions",
            format!(
                "{} is fewer than the {} {} requires",
                spec.min_ball_revolutions, j.min_ball_revolutions, j.title
            ),
        );
    }
    if spec.min_ball_revolutions > 20 {
        return fail(
            "min_ball_revolutions",
            format!("{} is not a plausible minimum", spec.min_ball_revolutions),
        );
    }

    if spec.zero.in_prison_offered && !j.in_prison_permitted {
        return fail("zero_rules.in_prison", format!("{} does not permit In Prison", j.title));
    }
    if spec.zero.even_money_on_zero == EvenMoneyOnZero::HalfBack && !j.half_back_permitted {
        return fail(
            "zero_rules.even_money_on_zero",
            format!("{} requires even-money bets to lose on zero", j.title),
        );
    }
    if spec.zero.in_prison_offered && spec.zero.even_money_on_zero == EvenMoneyOnZero::HalfBack {
        return fail("zero_rules", "In Prison and half back on zero cannot both apply");
    }

    for (i, (kind, range)) in spec.limits.per_kind.iter().enumerate() {
        let field = format!("limits.{kind}");
        if spec.limits.per_kind[..i].iter().any(|(k, _)| k == kind) {
            return fail(field, "listed twice");
        }
        if !spec.offered.contains(kind) {
            return fail(field, format!("{kind} is not offered"));
        }
        if range.min == Minor::ZERO || range.min > range.max || range.max.get() > STAKE_MAX_MINOR {
            return fail(
                field,
                format!(
                    "min {} and max {} must satisfy 0 < min <= max <= {STAKE_MAX_MINOR}",
                    range.min.get(),
                    range.max.get()
                ),
            );
        }
    }

    for (i, kind) in spec.match_play.iter().enumerate() {
        let field = "match_play";
        if spec.match_play[..i].contains(kind) {
            return fail(field, format!("{kind} is listed twice"));
        }
        if !j.match_play_kinds.contains(kind) {
            return fail(
                field,
                format!("{} does not allow match play coupons on {kind}", j.title),
            );
        }
        if !spec.offered.contains(kind) {
            return fail(field, format!("{kind} is not offered"));
        }
    }

    if spec.chip_colours.is_empty() || spec.chip_colours.len() > CHIP_COLOURS_MAX {
        return fail("chips.colours", format!("list 1 to {CHIP_COLOURS_MAX} colours"));
    }
    for (i, colour) in spec.chip_colours.iter().enumerate() {
        if colour.trim().is_empty() {
            return fail("chips.colours", "a colour name is empty");
        }
        if spec.chip_colours[..i].iter().any(|c| c.eq_ignore_ascii_case(colour)) {
            return fail(
                "chips.colours",
                format!("{colour:?} is listed twice: every player needs a colour no one else has"),
            );
        }
    }
    if let Some(len) = spec.number_display_length {
        if len == 0 || len > NUMBER_DISPLAY_LENGTH_MAX {
            return fail(
                "number_display_length",
                format!("{len} is outside 1 to {NUMBER_DISPLAY_LENGTH_MAX}"),
            );
        }
    }
    if spec.dispute_authority.trim().is_empty() {
        return fail("dispute_authority", "must name who decides disputes");
    }
    if let Some(t) = &spec.tournaments {
        if !(1..=TOURNAMENT_MONTHS_MAX).contains(&t.conclude_within_months) {
            return fail(
                "tournaments.conclude_within_months",
                format!("{} is outside 1 to {TOURNAMENT_MONTHS_MAX}", t.conclude_within_months),
            );
        }
    }
    Ok(())
}

/// The longest a profile may let a tournament run, in months.
pub const TOURNAMENT_MONTHS_MAX: u32 = 24;

/// How many pockets a kind covers on a wheel, for the edge check; zero where
/// the kind cannot be placed there.
fn covered_for_edge(kind: Kind, wheel: Wheel, trios: &[PocketSet]) -> u32 {
    if !kind_possible_on(kind, wheel, trios) {
        return 0;
    }
    match kind {
        Kind::Column | Kind::Dozen => 12,
        k if k.is_even_money() => 18,
        Kind::Green => wheel.zeros().len(),
        k => inside_spots(wheel.layout())
            .iter()
            .filter(|&&(kk, set)| kk == k && set.is_subset_of(wheel.bettable()))
            .map(|&(_, set)| set.len())
            .max()
            .unwrap_or(0),
    }
}
