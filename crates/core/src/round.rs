//! The life of a table and its rounds, as the rule documents prescribe it.
//!
//! Pure: every command carries its time (`at_ms`) and every outcome arrives
//! as a [`SpinReport`]; nothing here reads a clock or draws a number.
//! [`Table::handle`] checks a command against the state and returns the
//! events it causes; [`Table::apply`] is the only code that changes state,
//! so replaying a table's events rebuilds it exactly.
//!
//! closed -> (inspection recorded) -> open -> betting open -> no more bets
//! -> spin: result, or no spin -> collect losing bets, pay winning bets
//! (Colorado 2205(4)) -> betting open again.
//!
//! The table and its state are here; what it is asked and what that
//! causes are in `commands` and `events`; `decide` and `spin` check a
//! command, `apply` changes the table, and `bonus_play` adds a bonus
//! table's rounds.

mod apply;
mod bonus_play;
mod commands;
mod decide;
mod events;
mod spin;

pub use crate::no_spin::NoSpinReason;
pub use commands::{Adjustment, AwaitedWitness, Command, CommandError, Inspection, Person, SpinReport};
pub use events::{Event, ReturnReason};

use crate::bonus::{BonusDraw, Meters, TableBonus};
use crate::money::Minor;
use crate::pocket::{Pocket, PocketSet};
use crate::profile::{Profile, StakeRange};
use crate::settle::{PlacedBet, RulesError, TableRules};
use crate::spot::Kind;
use crate::wheel::Wheel;

/// The longest bet id, in bytes.
pub const BET_ID_MAX_BYTES: usize = 64;
/// The most bets one round at a table may hold. Settling a round moves at
/// most two transfers per bet, and the ledger's batch limit is sized from
/// this, so a full round always settles in one batch.
pub const ROUND_BETS_MAX: usize = 100_000;
/// The most bets one player may place in one round, cancelled and annulled
/// ones included: a round's capacity is shared, and one player alone takes
/// at most a small part of it (the server holds players to it from journal
/// format 5).
pub const PLAYER_ROUND_BETS_MAX: usize = 500;
const _: () = assert!(PLAYER_ROUND_BETS_MAX * 100 <= ROUND_BETS_MAX);
/// The longest free text (names, reasons, descriptions), in bytes.
pub const TEXT_MAX_BYTES: usize = 512;
/// The shortest and longest betting window a table may use.
pub const BETTING_WINDOW_MIN_MS: u64 = 1_000;
pub const BETTING_WINDOW_MAX_MS: u64 = 600_000;

pub type PlayerId = u64;
pub type RoundId = u64;

#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct TableConfig {
    pub wheel: Wheel,
    pub in_prison: bool,
    pub betting_window_ms: u64,
}

/// Readings of the rule documents that changed after tables were made under
/// the earlier ones. The server sets them from its journal's format when it
/// makes a table; a table made before keeps them off, plays as it did, and
/// writes the state it wrote (each is left out of the state while off).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Readings {
    /// european-casino 3.13: "Bets below the table's minimum can be paid
    /// out or collected only once. After this, they are returned to the
    /// player regardless of whether they won or lost." Once a player's bet
    /// under the minimum is settled at the table, each later one of theirs
    /// there is returned. Off, every such bet settles.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub under_minimum_once: bool,
    /// Colorado 2204(2): "When the outcome is zero (0), the player may take
    /// back half of the bet or leave the bet (in prison)". In Prison acts on
    /// 0 alone; on 00 an even-money bet loses. Off, it acts on every zero.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub in_prison_on_zero_only: bool,
    /// Maryland ch.3 F(19): "A Complete Wager that the Roulette ball will
    /// come to rest in a compartment of the Roulette wheel that corresponds
    /// to any number or numbers within a dozen": no zero is in a dozen, so a
    /// complete wager on one is refused. Off, it is taken.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub complete_within_a_dozen: bool,
}

impl Readings {
    fn is_off(&self) -> bool {
        *self == Readings::default()
    }
}

/// A Bonus Spin Xtreme wager in the round.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct BonusWager {
    pub wager_id: String,
    pub player: PlayerId,
    pub stake: Minor,
}

/// A bet in the round, with what it has seen (an imprisoned bet carries the zero).
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct RoundBet {
    pub bet_id: String,
    pub player: PlayerId,
    pub bet: PlacedBet,
    pub spins: Vec<Pocket>,
    /// Accepted in an earlier round and carried in prison.
    pub carried: bool,
}

/// Where the table is in its life.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum Phase {
    Closed,
    /// Open for play, no round under way.
    Open,
    BettingOpen {
        deadline_ms: u64,
    },
    NoMoreBets,
}

/// A table: its profile, configuration and state. Built from events only.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct Table {
    profile: Profile,
    /// The limits the profile itself posts: the bounds of a table's own.
    posted: Vec<(Kind, StakeRange)>,
    config: TableConfig,
    phase: Phase,
    inspected: bool,
    emergency: bool,
    round: RoundId,
    bets: Vec<RoundBet>,
    /// Position of each bet in `bets`, by id.
    #[serde(with = "crate::canonical::map")]
    index: std::collections::HashMap<String, usize>,
    /// Ids of bets cancelled or returned this round: each names its stake's
    /// movement in the ledger, so it is not used again until the next round.
    #[serde(with = "crate::canonical::set")]
    withdrawn: std::collections::HashSet<String>,
    /// How many bets each player has placed this round, cancelled and
    /// annulled ones included.
    #[serde(with = "crate::canonical::map")]
    placed: std::collections::HashMap<PlayerId, usize>,
    /// What each player has on each spot (kind and pockets) on the layout,
    /// every bet's parts summed: a table's maximum holds per spot.
    #[serde(with = "crate::canonical::map")]
    staked_on: std::collections::HashMap<(PlayerId, Kind, PocketSet), u64>,
    last_ms: u64,
    last_pockets: Vec<Pocket>,
    /// The table plays a tournament event: its chips are points, and no
    /// wager size limit applies (Colorado 2214(1)).
    points_play: bool,
    /// A no spin whose ball is yet to be inspected (Colorado 2206(4),
    /// Maryland ch.6 B-C), and why.
    ball_awaits: Option<NoSpinReason>,
    /// An external movable part was replaced: the next inspection is the
    /// regulator's (Colorado 2212(4)).
    awaits_regulator: bool,
    bonus: Option<TableBonus>,
    /// The round's bonus draw, kept until the next round opens.
    bonus_drawn: Option<BonusDraw>,
    bonus_wagers: Vec<BonusWager>,
    /// Bonus Spin Xtreme's progressive meters.
    meters: Meters,
    #[serde(default, skip_serializing_if = "Readings::is_off")]
    readings: Readings,
    /// The players whose bet under the minimum was paid or collected here
    /// (european-casino 3.13, with [`Readings::under_minimum_once`]).
    #[serde(default, skip_serializing_if = "std::collections::BTreeSet::is_empty")]
    under_minimum_settled: std::collections::BTreeSet<PlayerId>,
}

/// How many past pockets a table remembers for displays.
pub const LAST_POCKETS_MAX: usize = 500;

impl Table {
    pub fn new(profile: Profile, config: TableConfig) -> Result<Table, RulesError> {
        TableRules::new(&profile, config.wheel, config.in_prison)?;
        Ok(Table {
            // A composite bet's own limit never acts (its parts' do): it bounds nothing.
            posted: profile
                .spec()
                .limits
                .per_kind
                .iter()
                .copied()
                .filter(|(k, _)| !matches!(k, Kind::Neighbours | Kind::Complete))
                .collect(),
            profile,
            config: TableConfig {
                betting_window_ms: config
                    .betting_window_ms
                    .clamp(BETTING_WINDOW_MIN_MS, BETTING_WINDOW_MAX_MS),
                ..config
            },
            phase: Phase::Closed,
            inspected: false,
            emergency: false,
            round: 0,
            bets: Vec::new(),
            index: std::collections::HashMap::new(),
            withdrawn: std::collections::HashSet::new(),
            placed: std::collections::HashMap::new(),
            staked_on: std::collections::HashMap::new(),
            last_ms: 0,
            last_pockets: Vec::new(),
            points_play: false,
            ball_awaits: None,
            awaits_regulator: false,
            bonus: None,
            bonus_drawn: None,
            bonus_wagers: Vec::new(),
            meters: Meters {
                primary: Minor::ZERO,
                secondary: Minor::ZERO,
            },
            readings: Readings::default(),
            under_minimum_settled: std::collections::BTreeSet::new(),
        })
    }

    /// The readings this table follows; set once, as it is made.
    pub fn set_readings(&mut self, readings: Readings) {
        self.readings = readings;
    }

    pub fn readings(&self) -> Readings {
        self.readings
    }

    /// Whether `player`'s bet under the minimum was paid or collected here
    /// already, so that the next is returned (european-casino 3.13).
    pub fn under_minimum_settled(&self, player: PlayerId) -> bool {
        self.under_minimum_settled.contains(&player)
    }

    /// Switches the table between cash play and a tournament event's play
    /// in points, between rounds only: a round is played under one set of
    /// rules. In points no wager size limit applies (Colorado 2214(1)).
    pub fn set_points_play(&mut self, on: bool) -> Result<(), CommandError> {
        if !matches!(self.phase, Phase::Closed | Phase::Open) {
            return Err(CommandError::RoundUnderWay);
        }
        self.points_play = on;
        Ok(())
    }

    /// Whether the table plays a tournament event in points.
    pub fn points_play(&self) -> bool {
        self.points_play
    }

    /// The limits posted at the table now, per kind (the profile's until a table sets its own).
    pub fn limits(&self) -> &[(Kind, StakeRange)] {
        &self.profile.spec().limits.per_kind
    }

    pub fn rules(&self) -> TableRules<'_> {
        match TableRules::new(&self.profile, self.config.wheel, self.config.in_prison) {
            Ok(mut rules) => {
                // A table keeps the readings it was made with.
                if !self.readings.in_prison_on_zero_only {
                    rules = rules.in_prison_on_every_zero();
                }
                if !self.readings.complete_within_a_dozen {
                    rules = rules.complete_on_zero_taken();
                }
                if self.points_play {
                    rules = rules.ignoring_limits();
                }
                rules
            }
            // Checked in `new`; the profile and configuration never change.
            Err(e) => unreachable!("table rules were valid at creation: {e}"),
        }
    }

    pub fn profile(&self) -> &Profile {
        &self.profile
    }

    /// A new betting window, within the bounds every table keeps, for the
    /// rounds that open from now on.
    pub fn set_betting_window_ms(&mut self, ms: u64) {
        self.config.betting_window_ms = ms.clamp(BETTING_WINDOW_MIN_MS, BETTING_WINDOW_MAX_MS);
    }

    pub fn config(&self) -> &TableConfig {
        &self.config
    }

    pub fn phase(&self) -> Phase {
        self.phase
    }

    pub fn round(&self) -> RoundId {
        self.round
    }

    pub fn bets(&self) -> &[RoundBet] {
        &self.bets
    }

    /// How many bets `player` has placed in this round, cancelled and
    /// annulled ones included; bets carried in prison from an earlier round
    /// are not.
    pub fn placed_by(&self, player: PlayerId) -> usize {
        self.placed.get(&player).copied().unwrap_or(0)
    }

    /// The bet on the layout with this id.
    pub fn bet(&self, bet_id: &str) -> Option<&RoundBet> {
        self.index.get(bet_id).map(|&i| &self.bets[i])
    }

    pub fn emergency(&self) -> bool {
        self.emergency
    }

    pub fn inspected(&self) -> bool {
        self.inspected
    }

    /// The no spin whose ball is yet to be inspected, if any (Colorado
    /// 2206(4), Maryland ch.6 B-C).
    pub fn ball_awaits_inspection(&self) -> Option<NoSpinReason> {
        self.ball_awaits
    }

    /// An external movable part was replaced and the regulator has not yet
    /// inspected the wheel (Colorado 2212(4)).
    pub fn awaits_regulator(&self) -> bool {
        self.awaits_regulator
    }

    /// The most recent pockets, newest last.
    pub fn last_pockets(&self) -> &[Pocket] {
        &self.last_pockets
    }

    /// Checks a command and returns the events it causes, already applied.
    pub fn handle(&mut self, command: Command) -> Result<Vec<Event>, CommandError> {
        let events = self.decide(command)?;
        self.apply_all(&events);
        Ok(events)
    }

    fn at(&self, at_ms: u64) -> Result<(), CommandError> {
        if at_ms < self.last_ms {
            return Err(CommandError::TimeWentBackwards {
                at_ms,
                last_ms: self.last_ms,
            });
        }
        Ok(())
    }

    /// What `player` has on the layout on the spot of `kind` covering
    /// `covers`, all their bets' parts there summed, in minor units.
    pub fn staked_on(&self, player: PlayerId, kind: Kind, covers: PocketSet) -> u64 {
        self.staked_on.get(&(player, kind, covers)).copied().unwrap_or(0)
    }
}
