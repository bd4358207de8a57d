//! The events the journal keeps and the API shows alike, declared once.
//!
//! Most events are what happened and nothing more: the journal stores them
//! as they are and the API shows the same fields. Each is declared here
//! once; [`plain_events!`] hands the list to a macro of each place that
//! needs it: the journal's `JournalEvent` and the API's `EventView` each
//! make a variant of it, and the view copies its fields. Events whose view
//! differs (words for codes, derived figures, a name hidden) are declared
//! in both types by hand.
//!
//! These variants are a stored format: their names and fields are the
//! journal's bytes, so changing one is a new journal format. Adding one
//! touches this list (which says who sees it), the rule that emits it, and
//! its test.

/// Calls `$callback!` with `{ $lead }` and then every plain event, as
/// `Name { field: Type, ... },` with their doc comments and attributes, in
/// groups by who sees them (`api/audience.rs`): `player` (fields `table`
/// and `player`), `everyone` and `staff` (field `table`), `staff_and_player`
/// (both), and `no_stream`.
macro_rules! plain_events {
    ($callback:ident! { $($lead:tt)* }) => {
        $callback! {
            { $($lead)* }
            // A player's own bets, chips and money: the table's staff and that player.
            player {
                BoughtIn {
                    table: String,
                    player: String,
                    amount: u64,
                    colour: String,
                    chip_value: u64,
                },
                /// Colour chips sold for cash at the table; the cash went into the drop box.
                ChipsSold {
                    table: String,
                    player: String,
                    amount: u64,
                    colour: String,
                    chip_value: u64,
                },
                LeftTable {
                    table: String,
                    player: String,
                    amount: u64,
                    colour: String,
                },
                Tipped {
                    table: String,
                    player: String,
                    amount: u64,
                },
                BetAccepted {
                    table: String,
                    round: u64,
                    bet_id: String,
                    player: String,
                    spot: String,
                    kind: String,
                    stake: u64,
                    /// Under the table's minimum, taken to be paid or collected once and
                    /// no more (european-casino 3.13); present only when true.
                    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
                    under_minimum: bool,
                },
                BetCancelled {
                    table: String,
                    round: u64,
                    bet_id: String,
                    player: String,
                    returned: u64,
                },
                BetImprisoned {
                    table: String,
                    round: u64,
                    bet_id: String,
                    player: String,
                    held: u64,
                },
                /// A match play coupon issued to a player for a table: theirs to play once.
                CouponIssued {
                    id: String,
                    player: String,
                    table: String,
                    value: u64,
                    /// Played only before this instant (Unix ms); absent: no end.
                    #[serde(default, skip_serializing_if = "Option::is_none")]
                    expires_at_ms: Option<u64>,
                },
            }
            // What a number display board shows: the table's phases and each round's totals.
            everyone {
                /// A table's label or betting window changed; what is left out stayed
                /// as it was (journal format 16).
                TableEdited {
                    table: String,
                    #[serde(default, skip_serializing_if = "Option::is_none")]
                    label: Option<String>,
                    #[serde(default, skip_serializing_if = "Option::is_none")]
                    betting_window_ms: Option<u64>,
                },
                /// A table retired for good: it takes no request again; its history
                /// stays (journal format 16).
                TableRetired {
                    table: String,
                },
                TableOpened {
                    table: String,
                },
                TableClosed {
                    table: String,
                },
                BettingOpened {
                    table: String,
                    round: u64,
                    deadline_ms: u64,
                },
                NoMoreBets {
                    table: String,
                    round: u64,
                },
                NoSpin {
                    table: String,
                    round: u64,
                    /// A no spin's reason code (`same_direction`, ...).
                    reason: String,
                },
                SpinVoided {
                    table: String,
                    round: u64,
                    pocket: String,
                },
                RoundSettled {
                    table: String,
                    round: u64,
                    pocket: Option<String>,
                    staked: u64,
                    returned: u64,
                },
            }
            // The table's staff alone: licences (Colorado 2212(5)): who inspected,
            // adjusted, entered a verbal series or confirmed chips at face value;
            // the table's float; and the bets of several players at once (each
            // player learns of their own annulled bets from its `bet_returned`).
            staff {
                InspectionRecorded {
                    table: String,
                    at_ms: u64,
                    by: String,
                    licence: String,
                    /// The regulator's inspection after an external part was replaced
                    /// (Colorado 2212(4)).
                    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
                    regulator: bool,
                },
                AdjustmentRecorded {
                    table: String,
                    at_ms: u64,
                    by: String,
                    licence: String,
                    replacement: bool,
                    description: String,
                    /// The security member present, and their licence; absent where none was recorded.
                    #[serde(default, skip_serializing_if = "Option::is_none")]
                    witness: Option<String>,
                    #[serde(default, skip_serializing_if = "Option::is_none")]
                    witness_licence: Option<String>,
                    /// An external part of the wheel (Colorado 2212(2), (4)).
                    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
                    external: bool,
                    /// Its number at the table and the security member named to
                    /// confirm it from their own account (journal format 16); absent
                    /// where the witness was typed, or none named.
                    #[serde(default, skip_serializing_if = "Option::is_none")]
                    adjustment: Option<u64>,
                    #[serde(default, skip_serializing_if = "Option::is_none")]
                    awaiting_witness: Option<String>,
                },
                /// The security witness an adjustment named confirmed it from their own
                /// account (Colorado 2212(2), Maryland ch.2 B; journal format 16): `by`
                /// is the witness, `licence` their licence on record.
                AdjustmentWitnessed {
                    table: String,
                    at_ms: u64,
                    adjustment: u64,
                    by: String,
                    licence: String,
                },
                /// The pit withdrew an adjustment its witness had not confirmed, and why
                /// (journal format 16).
                AdjustmentWithdrawn {
                    table: String,
                    at_ms: u64,
                    adjustment: u64,
                    by: String,
                    licence: String,
                    reason: String,
                },
                /// A no spin's ball inspected before it goes back into the wheel, and
                /// whether it was damaged and replaced (Colorado 2206(4), Maryland ch.6
                /// B-C).
                BallInspected {
                    table: String,
                    at_ms: u64,
                    by: String,
                    licence: String,
                    reason: String,
                    damaged: bool,
                },
                /// A croupier entered a player's announced series of verbal bets
                /// (european-casino 3.5): who, for whom, which bets.
                VerbalSeries {
                    table: String,
                    at_ms: u64,
                    by: String,
                    licence: String,
                    player: String,
                    bet_ids: Vec<String>,
                },
                /// A supervisor confirmed a player's colour chips at their face value
                /// past the gaming day (european-casino 5.5).
                ChipsConfirmed {
                    table: String,
                    player: String,
                    at_ms: u64,
                    by: String,
                    licence: String,
                },
                FloatFilled {
                    table: String,
                    amount: u64,
                },
                BetsAnnulled {
                    table: String,
                    by: String,
                    bet_ids: Vec<String>,
                    reason: String,
                },
            }
            // The table's staff, and the player it names: the player learns their
            // late bet was logged, as the staff do.
            staff_and_player {
                /// A player's bet sent after no more bets was refused and logged for the
                /// casino's management (low-limit-house Irregularities (4); format 15).
                PastPosting {
                    table: String,
                    player: String,
                    spot: String,
                    stake: u64,
                    at_ms: u64,
                },
            }
            // On no table's stream: accounts, the cage's cash, the server's own records,
            // tournaments (their pages read them).
            no_stream {
                /// An account retired for good: it signs in no more, its history
                /// stays (journal format 16).
                UserRetired {
                    username: String,
                },
                /// A tournament configured from its file (Colorado 2213).
                TournamentCreated {
                    tournament: String,
                    name: String,
                    profile: String,
                },
                LoginFailed {
                    username: String,
                    failures: u32,
                    locked: bool,
                },
                LoginSucceeded {
                    username: String,
                },
                JournalFormatSet {
                    format: u32,
                },
                /// A checkpoint of the casino's state after entry `through` (its
                /// SHA-256 `digest` and length in `bytes`) is bound into the journal:
                /// a start replays only what follows it.
                CheckpointTaken {
                    through: u64,
                    digest: String,
                    bytes: u64,
                },
                /// The journal's damaged end was cut off by `croupier recover`: the
                /// entries after `kept_through` are kept only in the copy `backup`.
                JournalRecovered {
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
                UserLocked {
                    username: String,
                },
                UserUnlocked {
                    username: String,
                },
                /// A password set; the journal's request holds its hash, never the event.
                PasswordSet {
                    username: String,
                },
                /// A staff member's licence number recorded (Colorado 2212(5), Maryland ch.2 E).
                LicenceSet {
                    username: String,
                    licence: String,
                },
                /// The casino's operator named, for every layout (Maryland ch.1 G(1)).
                OperatorNamed {
                    name: String,
                },
                /// The casino's gaming day: its time zone and the local time it starts.
                GamingDaySet {
                    time_zone: String,
                    starts_at: String,
                },
                CashedIn {
                    player: String,
                    amount: u64,
                },
                CashedOut {
                    player: String,
                    amount: u64,
                },
                /// A cashier counted their drawer: `counted` beside the `expected` of
                /// the cage's record (journal format 15).
                DrawerCounted {
                    id: String,
                    cashier: String,
                    counted: u64,
                    expected: i64,
                },
                /// A cash-in or cash-out (`kind`) voided by the reverse transfer (journal format 15).
                CageTransactionVoided {
                    id: String,
                    transaction: String,
                    kind: String,
                    player: String,
                    amount: u64,
                    made_by: String,
                    reason: String,
                },
            }
        }
    };
}
pub(crate) use plain_events;
