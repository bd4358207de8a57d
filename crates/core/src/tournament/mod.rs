//! Roulette tournaments (Colorado 2213-2214, 2213.01-.08): a tournament's
//! configuration, checked against its profile's rules when it is created,
//! and its life as commands in and events out, like a table's round.
//!
//! Money here is integer minor units of the casino's currency: entry fees
//! (adjusted gross proceeds, 2213.01), buy-ins (the prize pool, 2213.05) and
//! prizes. Tournament chips are points (2214(1)) and never money: they live at
//! the tables, and this model only learns a player's points when a rule needs
//! them (a re-buy, an elimination, the standings at an event's end). Days are
//! arguments: the model reads no clock.

mod config;
mod forms;
mod play;
mod prizes;

pub use config::{
    add_months, check_chip_values, ConfigError, EventSpec, Prize, PrizeKind, RebuyWhen, Rebuys, TournamentConfig,
    TournamentRules, TournamentSpec, AMOUNT_MAX_MINOR, CHIP_COLOURS_MAX, EVENTS_MAX, LICENSEES_MAX, POINTS_MAX,
    PRIZES_MAX, REBUYS_MAX, TEXT_MAX_BYTES,
};
pub use forms::{EntryLine, PayoutLine, PoolLine};
pub use play::{
    Award, Command, Entry, EntryStatus, Event, EventState, EventStatus, Objection, Paid, Payment, Split, Tournament,
    TournamentError, Voucher, ENTRIES_MAX,
};
pub use prizes::{place_standings, Awarded, Standing};
