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
use super::journal::event::StoredLimit;
use crate::api::{ClientRequest, OutcomeSource, PlaceBet, Role};

/// Everything a casino can be asked to do.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "op", rename_all = "snake_case", deny_unknown_fields)]
pub enum Request {
    /// A tournament from its file's text (journal format 7).
    CreateTournament {
        config: String,
    },
    /// An order to a tournament: the director's, or a player's agreement to a split.
    Tournament {
        tournament: String,
        order: super::journal::tournament::TournamentOrder,
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
    SetLicence {
        username: String,
        licence: String,
    },
    NameOperator {
        name: String,
    },
    LoginFailed {
        username: String,
    },
    LoginSucceeded {
        username: String,
    },
    /// An admin locks an account: it signs in no more, its sessions end.
    LockUser {
        username: String,
    },
    /// An admin unlocks an account (an older server locked accounts after
    /// failed logins; this one only throttles them).
    UnlockUser {
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
    Inspect {
        table: String,
        no_magnet_or_contrivance: bool,
        wheel_level_and_rotating_freely: bool,
        parts_secure: bool,
        ball_non_magnetic: bool,
        layout_and_signage_comply: bool,
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
    OpenTable {
        table: String,
    },
    CloseTable {
        table: String,
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        wheel_cover_locked: bool,
    },
    OpenBetting {
        table: String,
    },
    NoMoreBets {
        table: String,
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
    DrawBonus {
        table: String,
        words: Vec<u32>,
    },
    /// A player's Bonus Spin Xtreme wager at their position (journal format 11).
    BonusWager {
        table: String,
        wager_id: String,
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
    LeaveTable {
        id: String,
        table: String,
    },
    ConfirmChips {
        table: String,
        player: String,
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
    CancelBet {
        table: String,
        bet_id: String,
    },
    DeclareEmergency {
        table: String,
        reason: String,
    },
    LiftEmergency {
        table: String,
    },
    Dispute {
        table: String,
        reason: String,
        corrections: Vec<StoredCorrection>,
        /// The round disputed, at this table; none: its last settled round
        /// (journal format 5 on; before it, no round was named).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        round: Option<u64>,
    },
    AnnulBets {
        table: String,
        bet_ids: Vec<String>,
        reason: String,
    },
    VoidRound {
        table: String,
        reason: String,
    },
}

pub use super::stored::{stored_outcome, Spin, StoredCorrection, StoredVerbalBet};

/// A client's request as the casino takes it: ready, or one with a
/// password the server must hash first (off the casino's thread), and for a
/// change of one's own password check the old one first.
pub enum FromClient {
    Ready(Request),
    NewUser {
        username: String,
        role: Role,
        password: String,
        must_change_password: bool,
        licence: Option<String>,
    },
    ResetPassword {
        username: String,
        password: String,
    },
    ChangePassword {
        password: String,
        new_password: String,
    },
}

impl Request {
    /// What a client's request becomes.
    pub fn from_client(request: ClientRequest) -> FromClient {
        use ClientRequest as C;
        FromClient::Ready(match request {
            C::CreateUser {
                username,
                role,
                password,
                must_change_password,
                licence,
            } => {
                return FromClient::NewUser {
                    username,
                    role,
                    password,
                    must_change_password,
                    licence,
                }
            }
            C::SetLicence { username, licence } => Request::SetLicence { username, licence },
            C::NameOperator { name } => Request::NameOperator { name },
            C::ResetPassword { username, password } => return FromClient::ResetPassword { username, password },
            C::ChangePassword { password, new_password } => {
                return FromClient::ChangePassword { password, new_password }
            }
            C::LockUser { username } => Request::LockUser { username },
            C::UnlockUser { username } => Request::UnlockUser { username },
            C::CreateTable {
                table,
                profile_text,
                wheel,
                in_prison,
                betting_window_ms,
                outcome,
                shared_colours,
                wheel_address,
                bonus_text,
            } => Request::CreateTable {
                table,
                profile_text,
                wheel,
                in_prison,
                betting_window_ms,
                outcome,
                shared_colours,
                wheel_address,
                bonus_text,
            },
            C::Inspect {
                table,
                no_magnet_or_contrivance,
                wheel_level_and_rotating_freely,
                parts_secure,
                ball_non_magnetic,
                layout_and_signage_comply,
            } => Request::Inspect {
                table,
                no_magnet_or_contrivance,
                wheel_level_and_rotating_freely,
                parts_secure,
                ball_non_magnetic,
                layout_and_signage_comply,
            },
            C::InspectBall { table, damaged } => Request::InspectBall { table, damaged },
            C::Adjust {
                table,
                replacement,
                description,
                witness,
                witness_licence,
                external,
            } => Request::Adjust {
                table,
                replacement,
                description,
                witness,
                witness_licence,
                external,
            },
            C::SetLimits { table, limits } => Request::SetLimits {
                table,
                limits: limits.into_iter().map(StoredLimit::from).collect(),
            },
            C::OpenTable { table } => Request::OpenTable { table },
            C::CloseTable {
                table,
                wheel_cover_locked,
            } => Request::CloseTable {
                table,
                wheel_cover_locked,
            },
            C::OpenBetting { table } => Request::OpenBetting { table },
            C::NoMoreBets { table } => Request::NoMoreBets { table },
            C::Spin { table, spin } => Request::Spin {
                table,
                spin: spin.into(),
                bonus_words: Vec::new(),
            },
            C::BonusWager { table, wager_id } => Request::BonusWager { table, wager_id },
            C::CashIn { id, player, amount } => Request::CashIn { id, player, amount },
            C::CashOut { id, player, amount } => Request::CashOut { id, player, amount },
            C::CreateTournament { config } => Request::CreateTournament { config },
            C::Tournament { tournament, order } => Request::Tournament { tournament, order },
            C::TablePlay { table, tournament } => Request::TablePlay { table, tournament },
            C::IssueCoupon {
                id,
                player,
                table,
                value,
                expires_at_ms,
            } => Request::IssueCoupon {
                id,
                player,
                table,
                value,
                expires_at_ms,
            },
            C::BuyIn {
                id,
                table,
                amount,
                chip_value,
            } => Request::BuyIn {
                id,
                table,
                amount,
                chip_value,
            },
            C::SellChips {
                id,
                table,
                player,
                amount,
                chip_value,
            } => Request::SellChips {
                id,
                table,
                player,
                amount,
                chip_value,
            },
            C::LeaveTable { id, table } => Request::LeaveTable { id, table },
            C::ConfirmChips { table, player } => Request::ConfirmChips { table, player },
            C::Tip { id, table, amount } => Request::Tip { id, table, amount },
            C::PlaceBet(bet) => Request::from(bet),
            C::VerbalBets { table, player, bets } => Request::VerbalBets {
                table,
                player,
                bets: bets
                    .into_iter()
                    .map(|b| StoredVerbalBet {
                        bet_id: b.bet_id,
                        spot: b.spot,
                        stake: b.stake,
                    })
                    .collect(),
            },
            C::CancelBet { table, bet_id } => Request::CancelBet { table, bet_id },
            C::DeclareEmergency { table, reason } => Request::DeclareEmergency { table, reason },
            C::LiftEmergency { table } => Request::LiftEmergency { table },
            C::Dispute {
                table,
                reason,
                corrections,
                round,
            } => Request::Dispute {
                table,
                reason,
                corrections: corrections.into_iter().map(StoredCorrection::from).collect(),
                round,
            },
            C::AnnulBets { table, bet_ids, reason } => Request::AnnulBets { table, bet_ids, reason },
        })
    }

    /// The table a request is for; `None` for the casino's own (users,
    /// logins, cash, new tables).
    pub fn table(&self) -> Option<&str> {
        use Request as R;
        match self {
            R::CreateUser { .. }
            | R::SetLicence { .. }
            | R::NameOperator { .. }
            | R::LockUser { .. }
            | R::UnlockUser { .. }
            | R::SetPassword { .. }
            | R::LoginFailed { .. }
            | R::LoginSucceeded { .. }
            | R::JournalFormat { .. }
            | R::Checkpoint { .. }
            | R::RecoverJournal { .. }
            | R::CreateTable { .. }
            | R::CashIn { .. }
            | R::CashOut { .. }
            | R::IssueCoupon { .. }
            | R::CreateTournament { .. }
            | R::Tournament { .. } => None,
            R::TablePlay { table, .. }
            | R::Inspect { table, .. }
            | R::Adjust { table, .. }
            | R::InspectBall { table, .. }
            | R::SetLimits { table, .. }
            | R::OpenTable { table }
            | R::CloseTable { table, .. }
            | R::OpenBetting { table }
            | R::NoMoreBets { table }
            | R::Spin { table, .. }
            | R::Draw { table, .. }
            | R::DrawBonus { table, .. }
            | R::BonusWager { table, .. }
            | R::WheelGame { table, .. }
            | R::BuyIn { table, .. }
            | R::SellChips { table, .. }
            | R::LeaveTable { table, .. }
            | R::ConfirmChips { table, .. }
            | R::Tip { table, .. }
            | R::PlaceBet { table, .. }
            | R::VerbalBets { table, .. }
            | R::CancelBet { table, .. }
            | R::DeclareEmergency { table, .. }
            | R::LiftEmergency { table }
            | R::Dispute { table, .. }
            | R::AnnulBets { table, .. }
            | R::VoidRound { table, .. } => Some(table),
        }
    }
}

impl From<PlaceBet> for Request {
    fn from(bet: PlaceBet) -> Request {
        let PlaceBet {
            op: _,
            table,
            bet_id,
            spot,
            stake,
            zero_choice,
            coupon,
            coupon_id,
        } = bet;
        Request::PlaceBet {
            table,
            bet_id,
            spot,
            stake,
            zero_choice,
            coupon,
            coupon_id,
        }
    }
}
