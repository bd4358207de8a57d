//! The requests the casino executes, as the journal keeps them. This is a
//! stored format: each field is written as journals since format 1 hold it,
//! and a change to it is a new journal format, never an edit. Clients send
//! [`ClientRequest`](crate::api::ClientRequest)s, which become these; the
//! server alone makes the rest (logins recorded, an interrupted round
//! voided, the journal's format).

use croupier_core::Minor;
use croupier_ledger::minor;
use serde::{Deserialize, Serialize};

use super::actor::stored_role;
use crate::api::{OutcomeSource, Role};

macro_rules! request {
    ({ $($special:tt)* } $( $group:ident { $( $(#[$vm:meta])* $name:ident { $( $(#[$fm:meta])* $field:ident : $ty:ty ),* $(,)? } ),* $(,)? } )*) => {
        /// Everything a casino can be asked to do.
        #[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
        #[serde(tag = "op", rename_all = "snake_case", deny_unknown_fields)]
        pub enum Request {
            $($special)*
            $( $( $(#[$vm])* $name { $( $(#[$fm])* $field: $ty ),* }, )* )*
        }
    };
}

// Everything a casino can be asked to do: the plain requests of
// `api/plain_requests.rs`, and the others, declared here.
crate::api::plain_requests!(request! {
    /// An admin changes a user's display name or role (journal format 16);
    /// a field left out is left as it is.
    EditUser {
        username: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        display_name: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none", with = "stored_role::option")]
        role: Option<Role>,
    },
    /// An order to a tournament: the director's, or a player's agreement to a split.
    Tournament {
        tournament: String,
        order: crate::api::TournamentOrder,
    },
    /// A table switches to its tournament event's play in points, or back
    /// to cash play (journal format 8).
    TablePlay {
        table: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        tournament: Option<String>,
    },
    CreateUser {
        username: String,
        #[serde(with = "stored_role")]
        role: Role,
        /// The password's argon2 hash: the journal never holds a password.
        password_hash: String,
        /// A staff member's licence number, recorded with them in the same entry.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        licence: Option<String>,
    },
    LoginFailed {
        username: String,
    },
    LoginSucceeded {
        username: String,
    },
    /// A password set: by an admin for anyone, or by a user for themself
    /// (whose old password the server checked first). The journal keeps only the hash.
    SetPassword {
        username: String,
        password_hash: String,
        /// A password someone else chose (the first admin's, printed once;
        /// an admin's reset): its holder changes it before anything else.
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        must_change: bool,
    },
    /// From this entry on, the journal is in `format` (see
    /// [`super::journal::JOURNAL_FORMAT`]). Only the server makes it, when it
    /// opens a journal in an older format.
    JournalFormat {
        format: u32,
    },
    /// The casino's state after entry `through` was written beside the
    /// journal as a checkpoint (`runtime/checkpoints.rs`); this entry binds
    /// it into the chain by its SHA-256 (`digest`, hex) and its length.
    /// Only the server makes it (journal format 12).
    Checkpoint {
        through: u64,
        digest: String,
        bytes: u64,
    },
    /// The journal's damaged end was cut off by `croupier recover`, with the
    /// server stopped: entries after `kept_through` (`cut` of them, the last
    /// with hash `cut_head`, or "" where it was unreadable) are kept only in
    /// the copy `backup`. Only the server makes it, right after the cut.
    RecoverJournal {
        kept_through: u64,
        cut: u64,
        cut_head: String,
        backup: String,
        reason: String,
        /// What `croupier verify` found broken, at the entry after `kept_through`.
        damage: String,
        /// The entry and hash the secret had sealed ("" where the seal was not the secret's).
        sealed: String,
    },
    CreateTable {
        table: String,
        /// The profile file's text, so the journal replays whatever happens to files.
        profile_text: String,
        wheel: String,
        in_prison: bool,
        betting_window_ms: u64,
        #[serde(with = "stored_outcome")]
        outcome: OutcomeSource,
        #[serde(default)]
        shared_colours: bool,
        #[serde(default)]
        wheel_address: Option<String>,
        /// The bonus configuration file's text (journal format 11).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        bonus_text: Option<String>,
    },
    Adjust {
        table: String,
        replacement: bool,
        description: String,
        /// The security department member present (Colorado 2212(2),
        /// Maryland ch.2 B): their name and licence; written only when given.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        witness: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        witness_licence: Option<String>,
        /// An external part (journal format 9); written only when it is.
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        external: bool,
    },
    /// The ball of a no spin inspected (journal format 9).
    InspectBall {
        table: String,
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        damaged: bool,
    },
    SetLimits {
        table: String,
        limits: Vec<StoredLimit>,
    },
    CloseTable {
        table: String,
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        wheel_cover_locked: bool,
    },
    /// The outcome as a dealer keys it. Up to journal format 3 also what the
    /// RNG drew and a wheel read; from format 4 only at a dealer's table.
    Spin {
        table: String,
        spin: Spin,
        /// The server's words for the bonus wheel's symbol of each Bonus
        /// Spin Xtreme wager, drawn as the result comes (journal format 11).
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        bonus_words: Vec<u32>,
    },
    /// The RNG's outcome at an RNG table, with the word it came from: the
    /// word gives the pocket again (journal format 4). The server alone
    /// makes it, when a dealer asks for the draw.
    Draw {
        table: String,
        pocket: String,
        word: u32,
        /// The server's words for the bonus wheel's symbol of each Bonus
        /// Spin Xtreme wager, drawn as the result comes (journal format 11).
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        bonus_words: Vec<u32>,
    },
    /// A bonus table's draw after no more bets, by the server's RNG, with
    /// the words it came from: they give the draw again (journal format 11).
    /// A player's bet sent after no more bets, refused and logged (journal
    /// format 15): the server's own request, never a client's.
    RecordPastPosting {
        table: String,
        player: String,
        spot: String,
        #[serde(with = "minor")]
        stake: Minor,
    },
    DrawBonus {
        table: String,
        words: Vec<u32>,
    },
    /// An automated wheel's finished game at its table, with the frames of
    /// the game that say what it was: they give the result again (journal
    /// format 4). The server alone makes it, from the wheel's stream.
    WheelGame {
        table: String,
        game: u16,
        frames: Vec<String>,
        /// The server's words for the bonus wheel's symbol of each Bonus
        /// Spin Xtreme wager, drawn as the result comes (journal format 11).
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        bonus_words: Vec<u32>,
    },
    CashIn {
        id: String,
        player: String,
        #[serde(with = "minor")]
        amount: Minor,
    },
    CashOut {
        id: String,
        player: String,
        #[serde(with = "minor")]
        amount: Minor,
    },
    /// A cashier's count of their drawer, under the client's id (journal format 15).
    CountDrawer {
        id: String,
        #[serde(with = "minor")]
        amount: Minor,
    },
    /// A match play coupon issued to `player` for `table` (journal format 5).
    IssueCoupon {
        id: String,
        player: String,
        table: String,
        #[serde(with = "minor")]
        value: Minor,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        expires_at_ms: Option<u64>,
    },
    BuyIn {
        id: String,
        table: String,
        #[serde(with = "minor")]
        amount: Minor,
        #[serde(with = "minor")]
        chip_value: Minor,
    },
    SellChips {
        id: String,
        table: String,
        player: String,
        #[serde(with = "minor")]
        amount: Minor,
        #[serde(with = "minor")]
        chip_value: Minor,
    },
    Tip {
        id: String,
        table: String,
        #[serde(with = "minor")]
        amount: Minor,
    },
    PlaceBet {
        table: String,
        bet_id: String,
        spot: String,
        #[serde(with = "minor")]
        stake: Minor,
        #[serde(default)]
        zero_choice: Option<String>,
        #[serde(default, with = "minor::option")]
        coupon: Option<Minor>,
        /// The issued coupon played (journal format 5); left out of bets without one.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        coupon_id: Option<String>,
    },
    /// A verbal series entered by the croupier (journal format 9).
    VerbalBets {
        table: String,
        player: String,
        bets: Vec<StoredVerbalBet>,
    },
    Dispute {
        table: String,
        reason: String,
        corrections: Vec<StoredCorrection>,
        /// The round disputed, at this table; none: its last settled round
        /// (journal format 5 on; before it, no round was named).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        round: Option<u64>,
        /// The client's id for the decision (journal format 14 on).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        id: Option<String>,
    },
    VoidRound {
        table: String,
        reason: String,
    },
    /// The pit's fill slip (`credit` false) or credit slip, under the
    /// client's id: the first signature; no money moves until the cage
    /// signs (journal format 15).
    RequestSlip {
        table: String,
        id: String,
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        credit: bool,
        #[serde(with = "minor")]
        amount: Minor,
    },
    /// The pit's count of the float, `when` `opening` or `closing`.
    CountFloat {
        table: String,
        id: String,
        when: String,
        #[serde(with = "minor")]
        amount: Minor,
    },
});

pub use super::stored::{stored_outcome, Spin, StoredCorrection, StoredVerbalBet};

/// A table's limit for one kind of bet, as the journal keeps it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct StoredLimit {
    pub kind: String,
    pub min: u64,
    pub max: u64,
}

impl StoredLimit {
    /// A limit on every kind of bet a table of `profile_text` on `wheel`
    /// takes, as its sign shows them (Colorado 2207, Maryland ch.1 G(3)):
    /// `inside` on each inside bet, `outside` on each outside bet, each a
    /// (minimum, maximum) in minor units. Composite bets (neighbours,
    /// complete) keep the limits of the bets they stand for.
    pub fn on_every_kind(
        profile_text: &str,
        wheel: &str,
        inside: (u64, u64),
        outside: (u64, u64),
    ) -> Result<Vec<StoredLimit>, String> {
        let profile = croupier_profiles::parse(profile_text, "table").map_err(|e| e.to_string())?;
        let wheel = croupier_core::Wheel::parse(wheel).ok_or_else(|| format!("{wheel:?} is not a wheel"))?;
        Ok(profile
            .kinds_on(wheel)
            .into_iter()
            .filter(|k| !k.is_composite())
            .map(|k| {
                let (min, max) = if k.is_inside() { inside } else { outside };
                StoredLimit {
                    kind: k.name().to_string(),
                    min,
                    max,
                }
            })
            .collect())
    }
}

impl From<crate::api::KindLimit> for StoredLimit {
    fn from(l: crate::api::KindLimit) -> StoredLimit {
        StoredLimit {
            kind: l.kind,
            min: l.min,
            max: l.max,
        }
    }
}

impl Request {
    /// The table a request is for; `None` for the casino's own (users,
    /// logins, cash, new tables).
    pub fn table(&self) -> Option<&str> {
        use crate::api::table_of;
        use Request as R;
        crate::api::plain_requests!(table_of! {
            Request, self,
                R::CreateUser { .. }
                | R::EditUser { .. }
                | R::SetPassword { .. }
                | R::LoginFailed { .. }
                | R::LoginSucceeded { .. }
                | R::JournalFormat { .. }
                | R::Checkpoint { .. }
                | R::RecoverJournal { .. }
                | R::CreateTable { .. }
                | R::CashIn { .. }
                | R::CashOut { .. }
                | R::CountDrawer { .. }
                | R::IssueCoupon { .. }
                | R::Tournament { .. } => None,
                R::TablePlay { table, .. }
                | R::Adjust { table, .. }
                | R::InspectBall { table, .. }
                | R::SetLimits { table, .. }
                | R::CloseTable { table, .. }
                | R::Spin { table, .. }
                | R::Draw { table, .. }
                | R::DrawBonus { table, .. }
                | R::RecordPastPosting { table, .. }
                | R::WheelGame { table, .. }
                | R::BuyIn { table, .. }
                | R::SellChips { table, .. }
                | R::Tip { table, .. }
                | R::PlaceBet { table, .. }
                | R::VerbalBets { table, .. }
                | R::Dispute { table, .. }
                | R::VoidRound { table, .. }
                | R::RequestSlip { table, .. }
                | R::CountFloat { table, .. } => Some(table),
        })
    }
}
