//! Journal formats as one table: each format, what it brought, and the rules
//! in force in a journal of that format. A journal replays as its format
//! says; `Rules::of(format)` is read as `dir.rules().x`, and each rule's
//! `FORMAT_X` is the first format it holds in (for refusals that name it).
//! The history in words is in docs/formats.md.

/// Declares the table: per format, its rules (a field of [`Rules`]) and
/// their `FORMAT_X` constants.
macro_rules! formats {
    ($( $format:literal => { $( $(#[$doc:meta])* $field:ident: $name:ident, )* } )*) => {
        $( $( $(#[$doc])* pub const $name: u32 = $format; )* )*

        /// The rules in force in a journal of one format: each true from the
        /// format that brought it.
        #[derive(Clone, Copy, Debug, PartialEq, Eq)]
        pub struct Rules {
            $( $( $(#[$doc])* pub $field: bool, )* )*
        }

        impl Rules {
            /// The rules of a journal of `format`.
            pub const fn of(format: u32) -> Rules {
                Rules { $( $( $field: format >= $format, )* )* }
            }
        }
    };
}

formats! {
    2 => {
        /// The format from which a round settles per player (see [`super::JOURNAL_FORMAT`]).
        settles_per_player: FORMAT_SETTLES_PER_PLAYER,
    }
    3 => {
        /// The first format whose bodies are [`super::JournalEvent`]s stored as JSON.
        journal_events: FORMAT_JOURNAL_EVENTS,
    }
    4 => {
        /// The first format in which a result comes only from its table's source.
        results_from_source: FORMAT_RESULTS_FROM_SOURCE,
    }
    5 => {
        /// The first format whose every actor is the server or a user in their own role.
        actors_known: FORMAT_ACTORS_KNOWN,
        /// The first format in which a request whose transfers were all made
        /// before (a resend with the same id) writes no entry.
        resends_write_nothing: FORMAT_RESENDS_WRITE_NOTHING,
        /// The first format in which a match play coupon is played only as issued,
        /// once (`issue_coupon`, then a bet's `coupon_id`).
        coupons_issued: FORMAT_COUPONS_ISSUED,
        /// The first format in which a dealer alone sells at most
        /// [`crate::casino::table::DEALER_SALE_MAX`] in chips at once.
        dealer_sales_capped: FORMAT_DEALER_SALES_CAPPED,
        /// The first format in which a cashier moves at most
        /// [`crate::casino::cage::cash::CASHIER_DAY_MAX`] of one player's cash in, and as
        /// much out, in a UTC day.
        cash_capped: FORMAT_CASH_CAPPED,
        /// The first format in which a tip is whole chips of the player's chip value.
        tips_in_chips: FORMAT_TIPS_IN_CHIPS,
        /// The first format in which a damaged end of the journal may be cut off
        /// (`croupier recover`), the cut journaled as a `journal_recovered` event.
        journal_recovery: FORMAT_JOURNAL_RECOVERY,
        /// The first format in which a player places at most
        /// [`croupier_core::round::PLAYER_ROUND_BETS_MAX`] bets in a round: up to
        /// format 4 one player could fill a round's [`croupier_core::round::ROUND_BETS_MAX`].
        player_bets_capped: FORMAT_PLAYER_BETS_CAPPED,
        /// The first format in which a profile's `dispute_authority` must name a
        /// role that decides disputes, only that role decides them, and a
        /// correction pays or collects only what the disputed round could have
        /// paid its player: up to format 4 a pit supervisor decided any table's
        /// disputes, for any player, of any amount.
        disputes_bound: FORMAT_DISPUTES_BOUND,
    }
    6 => {
        /// The first format in which an automated wheel's game counts only when its
        /// frames show the ball launched after the table started watching
        /// ([`croupier_wheel::monitor::launch_witnessed`]): up to format 5 a game
        /// first seen in flight, after a reconnection, settled bets placed while
        /// the ball may already have been rolling.
        wheel_launch_witnessed: FORMAT_WHEEL_LAUNCH_WITNESSED,
        /// The first format in which one player's bets on one spot in a round stay
        /// within the table's maximum together, not each bet alone.
        spot_maximum: FORMAT_SPOT_MAXIMUM,
        /// The first format in which a new table keeps the rules of
        /// `casino/new_table.rs`: the casino's one currency, no In Prison on a
        /// double-zero wheel used as single zero, a half taken back rounded up.
        table_rules: FORMAT_TABLE_RULES,
    }
    7 => {
        /// The first format with tournaments: their requests, events and money.
        tournaments: FORMAT_TOURNAMENTS,
    }
    8 => {
        /// The first format in which a tournament's event plays at a table, its
        /// points in the ledger (Colorado 2213.07, 2214).
        tournament_tables: FORMAT_TOURNAMENT_TABLES,
    }
    9 => {
        /// The first format in which a no spin's ball is inspected before the next
        /// spin (Colorado 2206(4), Maryland ch.6 B-C), and a replaced external part
        /// waits for the regulator's inspection (Colorado 2212(4)).
        ball_inspection: FORMAT_BALL_INSPECTION,
        /// The first format in which the croupier enters a player's series of
        /// verbal bets, all or none (european-casino 3.5-3.6).
        verbal_bets: FORMAT_VERBAL_BETS,
        /// The first format in which a table's floats close under an emergency:
        /// nothing is bought, sold, cashed, tipped or paid there until it is lifted
        /// (european-casino 6.1-6.3).
        floats_close: FORMAT_FLOATS_CLOSE,
    }
    10 => {
        /// The first format in which a new table under a document that keeps the
        /// double-zero layout for a double-zero wheel used as single zero (Maryland
        /// ch.1 F) is refused on the single-zero felt.
        covered_felt: FORMAT_COVERED_FELT,
        /// The first format in which an admin names the casino's operator, and a
        /// table under a document that puts it on the layout (Maryland ch.1 G(1))
        /// opens only once it is named.
        operator_named: FORMAT_OPERATOR_NAMED,
        /// The first format in which disputes go to the role each document names
        /// (european-casino's casino manager, Maryland's floorperson, the low-limit
        /// house's floor manager), and the low-limit house's hanging ball is the
        /// floor's no spin to call, not the dealer's (Irregularities (5)).
        authority_titles: FORMAT_AUTHORITY_TITLES,
        /// The first format in which colour chips kept past the gaming day they
        /// were bought on are cashed in at that day's table minimum, or $1 each,
        /// unless a supervisor confirms their face value (european-casino 5.4-5.5).
        chips_past_day: FORMAT_CHIPS_PAST_DAY,
    }
    11 => {
        /// The first format with bonus tables (Maryland ch.3 F(16)-(18), ch.4 D-F):
        /// a table made with Roulette X or Bonus Spin Xtreme, the server's draw
        /// after no more bets, Bonus Spin Xtreme wagers and their settlement.
        bonus_tables: FORMAT_BONUS_TABLES,
    }
    12 => {
        /// The first format with checkpoints: the casino's state after an entry,
        /// kept beside the journal and bound into it by its hash, so that a start
        /// replays only what follows the last one.
        checkpoints: FORMAT_CHECKPOINTS,
    }
    13 => {
        /// The first format in which a table keeps its newest rounds for game
        /// recall and disputes only while they hold
        /// [`crate::casino::recall::RECALL_BETS_KEPT`] bets together (the round in
        /// play and the one before it whatever they hold): up to format 12 it kept its 100
        /// newest whatever they held, 3.9 million bets at 4 tables of 9,700 bets a
        /// round, most of a start's memory. Rounds no longer kept are read from the
        /// recall archive.
        recall_bets_kept: FORMAT_RECALL_BETS_KEPT,
    }
    14 => {
        /// The first format in which colour chips keep their face value while
        /// their player is seated: only chips a player took away from the table
        /// (recorded by the staff, european-casino 5.2) and brought back are
        /// revalued (5.4; the low-limit house's "Roulette Chips"), each purchase
        /// dated on its own, and never above their face value. Up to format 13 a
        /// seated player who bought chips of 0.01 and left after midnight was paid
        /// each at the table minimum.
        chips_taken_away: FORMAT_CHIPS_TAKEN_AWAY,
        /// The first format in which a dispute carries the client's id (a resend
        /// decides nothing twice) and, at a table whose result is an RNG's or an
        /// automated wheel's, corrects only within what the recorded pocket and
        /// bonus draws return; no dispute pays a progressive meter's jackpot.
        dispute_ids: FORMAT_DISPUTE_IDS,
        /// The first format in which a bet's id its player used in the table's
        /// round before is refused: a terminal resending a bet whose answer was
        /// lost, once the next round had opened, placed it again in that round.
        bet_ids_across_rounds: FORMAT_BET_IDS_ACROSS_ROUNDS,
        /// The first format in which a tournament's registration and re-buy, which
        /// charge a player, carry the client's id: without one, a resend charged
        /// the fee and the buy-in twice.
        order_ids_required: FORMAT_ORDER_IDS_REQUIRED,
        /// The first format in which colour chips are sold for cash only at an
        /// open table: a closed table, its wheel covered, once took cash into its
        /// drop box.
        chips_at_open_tables: FORMAT_CHIPS_AT_OPEN_TABLES,
        /// The first format in which an admin sets the casino's gaming day (its
        /// time zone and the hour it starts): every daily limit, the books, colour
        /// chips' days and the tournaments' dates count it. Before, a UTC day.
        gaming_day: FORMAT_GAMING_DAY,
        /// The first format in which match play coupons a cashier issues count
        /// against the cashier's day for the player, and dealers' chip sales to a
        /// player are capped across every table, not at each.
        caps_casino_wide: FORMAT_CAPS_CASINO_WIDE,
        /// The first format in which a table keeps the books of its gaming day
        /// (drop, fills, credits, win) from the transfers it makes.
        table_books: FORMAT_TABLE_BOOKS,
        /// The first format in which the cage keeps its own record of the cash it
        /// moved and the coupons it issued (`casino/cage_record.rs`): up to format
        /// 13 the cashier's page kept that list in its own memory, lost on a reload.
        cage_record: FORMAT_CAGE_RECORD,
        /// The first format in which a filing of a tournament's written rules that
        /// came too late for its scheduled start is refused as it is recorded, and
        /// a filing recorded may be corrected before the start (Colorado 2213.06).
        filing_checked: FORMAT_FILING_CHECKED,
        /// The first format in which a player's bet under the table minimum is
        /// paid or collected once at a table, and each later one of theirs there is
        /// returned whatever the result (european-casino 3.13: "only once. After
        /// this, they are returned to the player"). Up to format 13 every such bet
        /// settled.
        under_minimum_once: FORMAT_UNDER_MINIMUM_ONCE,
        /// The first format in which In Prison acts on 0 alone (Colorado 2204(2):
        /// "When the outcome is zero (0)"): on a double-zero wheel an even-money bet
        /// loses on 00. Up to format 13 In Prison acted on 00 too.
        in_prison_on_zero: FORMAT_IN_PRISON_ON_ZERO,
        /// The first format in which a complete wager on a zero is refused
        /// (Maryland ch.3 F(19): "any number or numbers within a dozen", and no
        /// zero is in a dozen). Up to format 13 it was taken, and those journals'
        /// tables replay so.
        complete_in_a_dozen: FORMAT_COMPLETE_IN_A_DOZEN,
    }
    15 => {
        /// The first format in which a table whose layout carries signage of its
        /// limits opens only with a limit posted on every kind of bet it takes
        /// (Maryland ch.1 G(3): "Signage indicating the minimum and maximum wagers
        /// permitted at that table"), and `set_limits` there never leaves a kind off
        /// the sign. Up to format 14 it opened without, and those journals' tables
        /// replay so.
        limits_posted: FORMAT_LIMITS_POSTED,
        /// The first format in which a Bonus Spin Xtreme table's results come only
        /// from the RNG: its targets are drawn "prior to each wheel spin" (Maryland
        /// ch.3 F(16)), and an automated wheel launches its ball before it tells
        /// the table betting is closed, when the targets are drawn. Up to format
        /// 14 such a table could follow a wheel, and those journals replay so.
        bsx_not_at_wheel: FORMAT_BSX_NOT_AT_WHEEL,
        /// The first format in which only staff with a licence on their record
        /// inspect or adjust a table whose log carries licence numbers (Colorado
        /// 2212(5): "the name, license number and signature of the person making
        /// the adjustment"; Maryland ch.2 E(6)). Up to format 14 a user with none
        /// recorded signed the log with the licence typed at sign-in.
        licence_on_record: FORMAT_LICENCE_ON_RECORD,
        /// The first format in which a player's bet sent after no more bets is
        /// logged, with the player, spot, stake and time, as well as refused
        /// (low-limit-house Irregularities (4): "This is Past Posting and will be
        /// addressed accordingly by casino management"): the server journals
        /// `record_past_posting`, its own request, once a player a round.
        past_posting_logged: FORMAT_PAST_POSTING_LOGGED,
        /// The first format in which an event's end and a tournament's conclusion
        /// are checked against the four months of Colorado 2213(1) ("A tournament
        /// must conclude no later than four months following the first day of
        /// tournament play") on the day they are recorded, and a refund of an
        /// entry fee carries its day, leaving that month's proceeds (2213.01). Up
        /// to format 14 they carried no day: an event could end, and the
        /// tournament conclude, at any time, and a refund changed the proceeds of
        /// the month its fee was collected in, though that month was reported.
        tournament_days_checked: FORMAT_TOURNAMENT_DAYS_CHECKED,
        /// The first format in which a tournament under the 2013 text that runs
        /// past 31 days keeps its prizes' value in an escrow account of the ledger,
        /// funded before the start, pays its prizes from it and returns what is
        /// left at the conclusion (Colorado 2213(1) as amended to 7/1/13). Up to
        /// format 14 the escrow was only a figure in its file.
        tournament_escrow: FORMAT_TOURNAMENT_ESCROW,
        /// The first format in which the Division's objection to a tournament's
        /// written rules is recorded, and no event starts while it stands (Colorado
        /// 2213.06: "the licensee shall not offer a tournament using the rules
        /// found unacceptable").
        division_objection: FORMAT_DIVISION_OBJECTION,
        /// The first format in which a table's books of a gaming day keep its open
        /// play and each dealer's share (the day report, `GET /api/reports/day`):
        /// the dealer on duty and the time since the table's last entry are counted
        /// from it. Up to format 14 neither was kept, and those journals' tables
        /// replay without, so the state a checkpoint holds is the same bytes until a
        /// format-15 entry fills them.
        day_report: FORMAT_DAY_REPORT,
        /// The first format with fill and credit slips, each signed by the pit
        /// that asks and the cage that issues or receives, and the pit's counts of
        /// a table's float at opening and closing (`casino/table/slips.rs`; house
        /// practice: no rule document croupier follows speaks of them). Up to
        /// format 14 only the house's automatic fill moved money into a float.
        float_slips: FORMAT_FLOAT_SLIPS,
        /// The first format in which a cashier counts their drawer at shift end,
        /// the count kept beside what the cage's record says the drawer holds, and
        /// a second person (the pit or an admin) voids a mistaken cash-in or
        /// cash-out by the reverse transfer (`casino/cage_drawer.rs`; house
        /// practice: no rule document croupier follows speaks of them).
        cage_drawer: FORMAT_CAGE_DRAWER,
    }
    16 => {
        /// The first format in which an admin retires and edits users and tables
        /// (`casino/user_edits.rs`, `casino/table/retire.rs`): new requests, so no
        /// older journal holds one.
        back_office: FORMAT_BACK_OFFICE,
        /// The first format in which each dealer's share of a table's gaming day
        /// also keeps their shift there: the open play and the tips while they were
        /// on duty, and the times of the first and last entries written while they
        /// were (the shift report, `GET /api/reports/shift`). A format-15 journal's
        /// shares replay without, so its checkpoints keep their bytes.
        dealer_shifts: FORMAT_DEALER_SHIFTS,
        /// The first format in which the security department member present at
        /// an adjustment (Colorado 2212(2), Maryland ch.2 B: "in the presence of a
        /// licensed security department member") is named by username, a user of
        /// the security role with a licence on record, and confirms the adjustment
        /// from their own account (`witness_adjustment`); the log shows their name
        /// and recorded licence from the confirmation, and no inspection is made
        /// while an adjustment awaits its witness (2212(3), ch.2 C: "All
        /// adjustments shall be completed prior to the required inspections"). Up
        /// to format 15 the adjuster typed the witness's name and licence, and
        /// those journals replay so.
        witness_confirms: FORMAT_WITNESS_CONFIRMS,
    }
}
