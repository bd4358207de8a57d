//! The requests a client sends and the journal keeps alike, declared once.
//!
//! Most requests are stored as the client sent them. Each is declared here
//! once; [`plain_requests!`] hands the list to a macro of each place that
//! needs it: the API's `ClientRequest` and the journal's `Request` each make
//! a variant of it, and `Request::from_client` copies its fields. Requests
//! the casino takes otherwise (a password to hash, a spin's words, money in
//! minor units) are declared in both types by hand; those only the server
//! makes are in `Request` alone.
//!
//! These variants are a stored format: their names and fields are the
//! journal's bytes, so changing one is a new journal format. Adding one
//! touches this list, who may send it (`casino/policy.rs`), the rule that
//! runs it, and its test.

/// Calls `$callback!` with `{ $lead }` and then every plain request, as
/// `Name { field: Type, ... },` with their doc comments and attributes, in
/// two groups: `cage` (the cage runs them) and `table` (the table in their
/// field `table` runs them).
macro_rules! plain_requests {
    ($callback:ident! { $($lead:tt)* }) => {
        $callback! {
            { $($lead)* }
            // The cage's: users, cash, tournaments.
            cage {
                /// An admin retires an account for good: it signs in no more, its
                /// sessions end, its name is never given again, and its history stays.
                /// Refused while it holds money (a player's wallet, chips, stakes or
                /// coupons; a cashier's drawer uncounted), for oneself, and for the
                /// last admin who can sign in (journal format 16).
                RetireUser {
                    username: String,
                },
                /// An admin records a staff member's licence number (Colorado 2212(5), Maryland ch.2 E).
                SetLicence {
                    username: String,
                    licence: String,
                },
                /// An admin locks an account: it signs in no more, and its sessions end.
                LockUser {
                    username: String,
                },
                /// An admin unlocks an account.
                UnlockUser {
                    username: String,
                },
                /// An admin names the casino's operator, shown on every table's layout
                /// (Maryland ch.1 G(1): "the name or logo of the facility operator").
                NameOperator {
                    name: String,
                },
                /// An admin sets the casino's gaming day (journal format 14): the day its
                /// books close and its daily limits begin again, in `time_zone` (an IANA
                /// name, `America/Denver`) from `starts_at` (`HH:MM`, local). A UTC day
                /// from midnight until set.
                SetGamingDay {
                    time_zone: String,
                    starts_at: String,
                },
                /// A mistaken cash-in or cash-out, `transaction` its reference, undone
                /// by the reverse transfer: the pit's or an admin's, never its cashier's.
                VoidCageTransaction {
                    id: String,
                    transaction: String,
                    reason: String,
                },
                /// A tournament from its file's text (TOML, as `croupier tournament
                /// check` reads it): checked against its profile, each refusal naming
                /// its clause (Colorado 2213-2214). An admin's.
                CreateTournament {
                    config: String,
                },
            }
            // A table's, named by its field `table`.
            table {
                /// The security witness named by an adjustment confirms it, signed in
                /// as themselves (Colorado 2212(2), Maryland ch.2 B; journal format 16).
                /// `adjustment`: its number at the table, as the log shows it.
                WitnessAdjustment {
                    table: String,
                    adjustment: u64,
                },
                /// The pit withdraws an adjustment its witness has not confirmed, with
                /// the reason (journal format 16): the log keeps it, unwitnessed.
                WithdrawAdjustment {
                    table: String,
                    adjustment: u64,
                    reason: String,
                },
                /// An admin changes a table's label (empty clears it) or betting window
                /// (between rounds); a field left out stays. Its profile, wheel, In
                /// Prison and outcome source are its game and never change (journal
                /// format 16).
                EditTable {
                    table: String,
                    #[serde(default, skip_serializing_if = "Option::is_none")]
                    label: Option<String>,
                    #[serde(default, skip_serializing_if = "Option::is_none")]
                    betting_window_ms: Option<u64>,
                },
                /// An admin retires a closed table with nothing of anyone's on it: it
                /// takes no request again and leaves the lists; its history stays
                /// (journal format 16).
                RetireTable {
                    table: String,
                },
                Inspect {
                    table: String,
                    no_magnet_or_contrivance: bool,
                    wheel_level_and_rotating_freely: bool,
                    parts_secure: bool,
                    ball_non_magnetic: bool,
                    layout_and_signage_comply: bool,
                },
                OpenTable {
                    table: String,
                },
                OpenBetting {
                    table: String,
                },
                NoMoreBets {
                    table: String,
                },
                /// A player's $5 Bonus Spin Xtreme wager at their position, before no
                /// more bets (Maryland ch.3 F(16)-(17)): one a round; `wager_id` as a bet's id.
                BonusWager {
                    table: String,
                    wager_id: String,
                },
                LeaveTable {
                    id: String,
                    table: String,
                },
                /// A supervisor confirms a player's colour chips at their face value
                /// past the gaming day they were bought on (european-casino 5.5; the
                /// low-limit house's floor manager): they are not cashed at the table
                /// minimum, or at $1 each, when the player leaves.
                ConfirmChips {
                    table: String,
                    player: String,
                },
                /// The dealer or a supervisor records that a seated player took their
                /// colour chips away from the table (european-casino 5.2): they play no
                /// more until cashed in, and come back as the profile values chips
                /// taken away (5.4; the low-limit house's $1 each), unless confirmed.
                ChipsTakenAway {
                    table: String,
                    player: String,
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
                AnnulBets {
                    table: String,
                    bet_ids: Vec<String>,
                    reason: String,
                },
                /// The cage's second signature on an open slip: its money moves.
                SignSlip {
                    table: String,
                    id: String,
                },
                /// The pit voids an open slip.
                VoidSlip {
                    table: String,
                    id: String,
                    reason: String,
                },
            }
        }
    };
}
pub(crate) use plain_requests;

/// A match over a request for the table it is for: the plain requests by
/// their group, then the arms given for the others.
macro_rules! table_of {
    ({ $enum:ident, $request:expr, $($special:tt)* }
     cage { $( $(#[$cm:meta])* $cage:ident { $($cf:tt)* } ),* $(,)? }
     table { $( $(#[$tm:meta])* $table:ident { $($tf:tt)* } ),* $(,)? }) => {
        match $request {
            $( $enum::$cage { .. } => None, )*
            $( $enum::$table { table, .. } => Some(table), )*
            $($special)*
        }
    };
}
pub(crate) use table_of;
