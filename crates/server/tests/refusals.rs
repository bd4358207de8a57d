//! Refusals that keep a resend, a bet id or one player from going further
//! than the rules let them. Each refusal names what was wrong, writes
//! nothing, and leaves a journal that replays to itself.

mod common;

use croupier_core::round::PLAYER_ROUND_BETS_MAX;
use croupier_core::Minor;
use croupier_ledger::{verify, MemoryStorage};
use croupier_server::api::{ApiError, EventView, OutcomeSource, Role};
use croupier_server::casino::journal::event::StoredLimit;
use croupier_server::casino::journal::FORMAT_WITNESS_CONFIRMS;
use croupier_server::casino::{
    replay, Actor, Casino, Request, Spin, StoredCorrection, StoredVerbalBet, JOURNAL_FORMAT,
};

use common::actors::{actor, admin, alice, bob, cashier, dealer, floor, pit};
use common::requests::{buy_in, cash_in, cash_out, inspection, spin};

struct World {
    casino: Casino<MemoryStorage>,
    now: u64,
}

impl World {
    /// A casino writing journal `format`, its staff, players alice and bob,
    /// and table t1 of `profile`, inspected and open.
    fn in_format(format: u32, profile: &str) -> World {
        let (casino, _) = Casino::open_in_format(MemoryStorage::default(), 0, format).expect("open");
        let mut w = World { casino, now: 0 };
        for (who, name, role) in [
            (Actor::system(), "admin", Role::Admin),
            (admin(), "cashier", Role::Cashier),
            (admin(), "dealer", Role::Dealer),
            (admin(), "pit", Role::PitSupervisor),
            (admin(), "alice", Role::Player),
            (admin(), "bob", Role::Player),
            // Someone of every role, named for it.
            (admin(), "pit_supervisor", Role::PitSupervisor),
            (admin(), "floorperson", Role::Floorperson),
            (admin(), "floor_manager", Role::FloorManager),
            (admin(), "casino_manager", Role::CasinoManager),
            (admin(), "auditor", Role::Auditor),
            (admin(), "player", Role::Player),
            (admin(), "security", Role::Security),
        ] {
            // The security role is journaled from format 16.
            if role == Role::Security && format < FORMAT_WITNESS_CONFIRMS {
                continue;
            }
            w.ok(
                &who,
                Request::CreateUser {
                    username: name.into(),
                    role,
                    password_hash: "test-hash".into(),
                    licence: common::licence_of(name, role),
                },
            );
        }
        // Maryland ch.1 G(1): the layout shows the operator's name (from format 10).
        if format >= 10 {
            w.ok(
                &admin(),
                Request::NameOperator {
                    name: "Test House".into(),
                },
            );
        }
        w.ok(&admin(), table("t1", profile));
        w.ok(&pit(), inspection("t1"));
        w.ok(&dealer(), Request::OpenTable { table: "t1".into() });
        w
    }

    fn new() -> World {
        World::in_format(JOURNAL_FORMAT, "maryland")
    }

    /// Runs `request`; a table it makes posts its limits at once.
    fn run(&mut self, who: &Actor, request: Request) -> Result<Vec<EventView>, ApiError> {
        common::run_posting_limits(&mut self.casino, &mut self.now, who, request)
    }

    fn ok(&mut self, who: &Actor, request: Request) -> Vec<EventView> {
        let shown = format!("{request:?}");
        self.run(who, request).unwrap_or_else(|e| panic!("{shown}: {e}"))
    }

    /// Refused with `code`, and nothing written: the refusal.
    fn refused(&mut self, who: &Actor, request: Request, code: &str) -> ApiError {
        let before = self.entries();
        let shown = format!("{request:?}");
        let refused = self.run(who, request).expect_err(&shown);
        assert_eq!(refused.code, code, "{shown}: {refused}");
        assert_eq!(self.entries(), before, "{shown} wrote nothing");
        refused
    }

    /// Done, with no events and nothing written: a resend.
    fn resent(&mut self, who: &Actor, request: Request) {
        let before = self.entries();
        let shown = format!("{request:?}");
        assert_eq!(self.ok(who, request), Vec::new(), "{shown}");
        assert_eq!(self.entries(), before, "{shown} wrote nothing");
    }

    fn entries(&self) -> usize {
        self.casino.ledger().storage().entries.len()
    }

    fn balance(&self, account: &str) -> i128 {
        self.casino.balance(account)
    }

    /// The journal verifies, and replays to itself with the same balances.
    fn replays(&self) {
        let entries = &self.casino.ledger().storage().entries;
        assert_eq!(verify(entries).first_problem, None);
        let again = replay(entries).expect("the journal replays");
        // The replay compares every entry it writes with the journal's, byte for byte.
        assert_eq!(again.ledger().next_seq(), entries.len() as u64 + 1);
        assert_eq!(again.ledger().balances(), self.casino.ledger().balances());
    }

    /// The cashier cashes in `cash` for `player`, who buys in for `chips` in chips of 100.
    fn seat(&mut self, player: &str, cash: u64, chips: u64) {
        self.ok(&cashier(), cash_in(&format!("cash-{player}"), player, cash));
        self.ok(&actor(player, Role::Player), buy_in(&format!("buy-{player}"), chips));
    }
}

/// A dealer's table `id` of a shipped profile, on the profile's own wheel.
fn table(id: &str, profile: &str) -> Request {
    let wheel = croupier_profiles::load(profile)
        .expect("a shipped profile")
        .spec()
        .default_wheel;
    table_of(
        id,
        croupier_profiles::builtin_text(profile).expect("a shipped profile"),
        wheel.name(),
    )
}

fn table_of(id: &str, profile_text: &str, wheel: &str) -> Request {
    Request::CreateTable {
        bonus_text: None,
        table: id.into(),
        profile_text: profile_text.into(),
        wheel: wheel.into(),
        in_prison: false,
        betting_window_ms: 60_000,
        outcome: OutcomeSource::Dealer,
        shared_colours: false,
        wheel_address: None,
    }
}

fn bet(id: &str, spot: &str, stake: u64) -> Request {
    Request::PlaceBet {
        table: "t1".into(),
        bet_id: id.into(),
        spot: spot.into(),
        stake: Minor::new(stake),
        zero_choice: None,
        coupon: None,
        coupon_id: None,
    }
}

fn open_betting() -> Request {
    Request::OpenBetting { table: "t1".into() }
}

fn no_more_bets() -> Request {
    Request::NoMoreBets { table: "t1".into() }
}

/// A bet id stands for one bet: resent with another spot or stake it is
/// refused as a duplicate and the first bet stands (it was answered 200
/// while only the first counted); resent the same, it is acknowledged and
/// writes nothing; another player's use of the id tells nothing of the bet.
#[test]
fn a_bet_resent_with_other_contents_is_a_duplicate_and_the_first_stands() {
    let mut w = World::new();
    w.seat("alice", 10_000, 5_000);
    w.seat("bob", 10_000, 5_000);
    w.ok(&dealer(), open_betting());
    w.ok(&alice(), bet("a1", "17", 500));
    for (spot, stake) in [("18", 500), ("17", 1_000), ("red", 500), ("17-18", 500)] {
        let refused = w.refused(&alice(), bet("a1", spot, stake), "duplicate_bet");
        assert!(
            refused.message.contains("a1") && refused.message.contains("5.00 on 17"),
            "{refused}"
        );
    }
    // Another player's use of the id is refused without a word about alice's bet.
    let refused = w.refused(&bob(), bet("a1", "18", 500), "duplicate_bet");
    assert!(!refused.message.contains("17"), "{refused}");
    // The same bet sent again is acknowledged and writes nothing.
    w.resent(&alice(), bet("a1", "17", 500));
    assert_eq!(w.balance("chips:t1:alice"), 4_500);
    w.ok(&dealer(), no_more_bets());
    w.ok(&dealer(), spin("17"));
    // The first bet stood: 17 paid 35 to 1.
    assert_eq!(w.balance("chips:t1:alice"), 4_500 + 500 * 36);
    w.replays();
}

fn leave(id: &str) -> Request {
    Request::LeaveTable {
        id: id.into(),
        table: "t1".into(),
    }
}

fn tip(id: &str, amount: u64) -> Request {
    Request::Tip {
        id: id.into(),
        table: "t1".into(),
        amount: Minor::new(amount),
    }
}

fn sale(id: &str, player: &str, amount: u64) -> Request {
    Request::SellChips {
        id: id.into(),
        table: "t1".into(),
        player: player.into(),
        amount: Minor::new(amount),
        chip_value: Minor::new(100),
    }
}

/// How many journal entries hold `needle` in their text.
fn entries_with(w: &World, needle: &str) -> usize {
    w.casino
        .ledger()
        .storage()
        .entries
        .iter()
        .filter(|e| e.text.contains(needle))
        .count()
}

/// A cash-in resent with its id after a crash moved no money, but was
/// journaled a second time with the same event: anyone summing the
/// journal's cash events counted it twice. Every request that moves money
/// under a client's id now writes nothing when resent, and is refused when
/// the id comes back with other contents.
#[test]
fn a_resend_that_changes_nothing_writes_nothing() {
    let mut w = World::new();
    w.seat("alice", 10_000, 5_000);
    w.ok(&dealer(), sale("s1", "bob", 2_000));
    w.ok(&alice(), tip("t1-tip", 100));
    w.ok(&cashier(), cash_out("out1", "alice", 1_000));
    let balances = w.casino.ledger().balances().clone();
    for (who, request) in [
        (cashier(), cash_in("cash-alice", "alice", 10_000)),
        (cashier(), cash_out("out1", "alice", 1_000)),
        (alice(), buy_in("buy-alice", 5_000)),
        (dealer(), sale("s1", "bob", 2_000)),
        (alice(), tip("t1-tip", 100)),
    ] {
        w.resent(&who, request);
    }
    assert_eq!(w.casino.ledger().balances(), &balances, "nothing moved");
    // The journal holds each cash movement once: summing it gives the wallets.
    assert_eq!(entries_with(&w, r#""op":"cash_in""#), 1);
    assert_eq!(entries_with(&w, r#""op":"cash_out""#), 1);
    assert_eq!(entries_with(&w, r#""op":"buy_in""#), 1);
    assert_eq!(entries_with(&w, r#""op":"sell_chips""#), 1);
    assert_eq!(entries_with(&w, r#""op":"tip""#), 1);
    // The same ids with other contents are refused, naming the id.
    for (who, request, id) in [
        (cashier(), cash_in("cash-alice", "alice", 10_001), "cashin/cash-alice"),
        (cashier(), cash_in("cash-alice", "bob", 10_000), "cashin/cash-alice"),
        (cashier(), cash_out("out1", "alice", 999), "cashout/out1"),
        (alice(), buy_in("buy-alice", 4_000), "buyin/buy-alice"),
        (dealer(), sale("s1", "alice", 2_000), "sale/s1"),
        (alice(), tip("t1-tip", 200), "tip/t1-tip"),
    ] {
        let refused = w.refused(&who, request, "refused");
        assert!(refused.message.contains(id), "{refused}");
    }
    // Another player's id is refused too: bob cannot move money under it.
    w.ok(&cashier(), cash_in("cash-bob", "bob", 1_000));
    let refused = w.refused(&bob(), buy_in("buy-alice", 5_000), "refused");
    assert!(refused.message.contains("buyin/buy-alice"), "{refused}");
    assert_eq!(w.balance("wallet:bob"), 1_000);
    w.replays();
}

/// Maryland ch.3 C: leaving cashes the colour chips in. A leave's id used
/// again once the player sat down again found its transfer "made before"
/// (the same amount) and unseated the player while their chips stayed on
/// the table. A used leave id is now refused and the player keeps seat and
/// chips; a resend after leaving finds no seat and writes nothing.
#[test]
fn a_used_leave_id_is_refused_and_leaves_the_player_seated_with_their_chips() {
    let mut w = World::new();
    w.seat("alice", 10_000, 5_000);
    w.ok(&alice(), leave("l1"));
    assert_eq!(w.balance("chips:t1:alice"), 0);
    w.refused(&alice(), leave("l1"), "not_seated");
    w.ok(&alice(), buy_in("buy-again", 5_000));
    let refused = w.refused(&alice(), leave("l1"), "refused");
    assert!(refused.message.contains("l1"), "{refused}");
    let table = w.casino.table("t1").expect("t1");
    assert!(table.colours.contains_key("alice"), "still seated");
    assert_eq!(w.balance("chips:t1:alice"), 5_000);
    // With other chips the old id is refused as well.
    w.ok(&alice(), buy_in("buy-more", 1_000));
    w.refused(&alice(), leave("l1"), "refused");
    w.ok(&alice(), leave("l2"));
    assert_eq!(w.balance("chips:t1:alice"), 0);
    assert_eq!(w.balance("wallet:alice"), 10_000);
    w.replays();
}

/// A journal of format 4 keeps what format 4 wrote: a resent cash-in's
/// second entry, and a leave that reused its id. It replays byte for byte,
/// and once a server goes on in format 5 a resend writes nothing.
#[test]
fn a_format_4_journal_with_resends_replays_and_goes_on_writing_none() {
    let mut w = World::in_format(4, "maryland");
    w.seat("alice", 10_000, 5_000);
    let before = w.entries();
    w.ok(&cashier(), cash_in("cash-alice", "alice", 10_000));
    assert_eq!(w.entries(), before + 1, "format 4 journaled the resend");
    w.ok(&alice(), leave("l1"));
    w.ok(&alice(), buy_in("buy-again", 5_000));
    w.ok(&alice(), leave("l1"));
    assert_eq!(w.balance("chips:t1:alice"), 5_000, "format 4 left the chips behind");
    w.replays();
    let entries = w.casino.ledger().storage().entries.clone();
    let (casino, _) = Casino::open(MemoryStorage::with_entries(entries.clone()), w.now + 10).expect("opens");
    let mut w = World {
        casino,
        now: w.now + 10,
    };
    assert_eq!(w.casino.ledger().storage().entries[..entries.len()], entries[..]);
    w.resent(&cashier(), cash_in("cash-alice", "alice", 10_000));
    w.replays();
}

fn cancel(id: &str) -> Request {
    Request::CancelBet {
        table: "t1".into(),
        bet_id: id.into(),
    }
}

/// One player sent 100,000 one-unit bets in seconds, filled the round
/// (`ROUND_BETS_MAX`) and every other player was refused. A player now
/// places at most `PLAYER_ROUND_BETS_MAX` bets in a round, cancelled ones
/// included; a resend of one is still acknowledged, the others still bet,
/// and the next round gives the player a new share.
#[test]
fn one_player_places_at_most_their_share_of_a_round() {
    let mut w = World::new();
    w.seat("alice", 100_000, 100_000);
    w.seat("bob", 10_000, 5_000);
    w.ok(&dealer(), open_betting());
    for i in 0..PLAYER_ROUND_BETS_MAX {
        w.ok(&alice(), bet(&format!("a{i}"), "red", 100));
    }
    w.ok(&alice(), cancel("a0"));
    let refused = w.refused(&alice(), bet("one-more", "black", 100), "too_many_bets");
    assert!(
        refused.message.contains(&PLAYER_ROUND_BETS_MAX.to_string()) && refused.message.contains("cancelled"),
        "{refused}"
    );
    w.resent(&alice(), bet("a1", "red", 100));
    w.ok(&bob(), bet("b1", "red", 100));
    w.ok(&dealer(), no_more_bets());
    w.ok(&dealer(), spin("2"));
    w.ok(&dealer(), open_betting());
    w.ok(&alice(), bet("next-round", "red", 100));
    w.replays();
}

/// Up to journal format 4 a player's bets were not counted: such a journal
/// replays as it was, with more bets of one player in a round than format 5 takes.
#[test]
fn a_format_4_journal_with_more_bets_of_one_player_replays() {
    let mut w = World::in_format(4, "maryland");
    w.seat("alice", 100_000, 100_000);
    w.ok(&dealer(), open_betting());
    for i in 0..=PLAYER_ROUND_BETS_MAX {
        w.ok(&alice(), bet(&format!("a{i}"), "red", 100));
    }
    w.replays();
}

/// The table minimum is the profile's per-kind minimum, which the round
/// already enforces on each bet and each part of a composite one
/// (low-limit-house "The wager amounts for the game": $1-$10 inside, $5-$10
/// outside; Colorado 2207: the table minimum is set and posted).
#[test]
fn a_bet_under_the_table_minimum_is_refused() {
    let mut w = World::in_format(JOURNAL_FORMAT, "low-limit-house");
    w.seat("alice", 10_000, 5_000);
    w.ok(&dealer(), open_betting());
    for (spot, stake) in [("red", 100), ("dozen1", 400), ("column2", 100)] {
        let refused = w.refused(&alice(), bet(spot, spot, stake), "under_minimum");
        assert!(
            refused.message.contains("under the table minimum 5.00"),
            "{spot}: {refused}"
        );
    }
    w.ok(&alice(), bet("straight", "17", 100));
    w.ok(&alice(), bet("red", "red", 500));
    let refused = w.refused(&alice(), bet("over", "17", 1_100), "over_maximum");
    assert!(refused.message.contains("over the table maximum 10.00"), "{refused}");
    w.replays();
}

thread_local! {
    static DISPUTES: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
}

/// A new dispute's id (journal format 14): one a call, in the order of the test's own thread.
fn dispute_id() -> String {
    DISPUTES.with(|n| {
        n.set(n.get() + 1);
        format!("dispute-{}", n.get())
    })
}

fn dispute(corrections: &[(&str, i64)], round: Option<u64>) -> Request {
    Request::Dispute {
        table: "t1".into(),
        reason: "a chip knocked off 17 by the dealer".into(),
        corrections: corrections
            .iter()
            .map(|&(player, amount)| StoredCorrection {
                player: player.into(),
                amount,
            })
            .collect(),
        round,
        id: Some(dispute_id()),
    }
}

/// Maryland's profile text with another `dispute_authority`.
fn maryland_decided_by(authority: &str) -> String {
    let text = croupier_profiles::builtin_text("maryland").expect("maryland");
    let named = text.replace(
        r#"dispute_authority = "floorperson""#,
        &format!("dispute_authority = {authority:?}"),
    );
    assert_ne!(named, text, "the profile names its authority");
    named
}

/// Colorado 2206(5): "The pit supervisor, and not the dealer, must make all
/// decisions concerning disputed play". A profile whose `dispute_authority`
/// is no role that supervises the game (a player, the dealer, a name no role
/// acts as) is refused when a table takes it, naming the field and the value.
#[test]
fn a_profile_whose_dispute_authority_is_no_supervising_role_is_refused() {
    let mut w = World::new();
    for authority in ["player", "dealer", "cashier", "the croupier"] {
        let request = table_of("t2", &maryland_decided_by(authority), "double-zero");
        let refused = w.refused(&admin(), request, "bad_profile");
        assert!(
            refused.message.contains("dispute_authority") && refused.message.contains(&format!("{authority:?}")),
            "{refused}"
        );
    }
    for (i, authority) in ["pit supervisor", "Pit_Supervisor", "floor manager", "casino manager"]
        .iter()
        .enumerate()
    {
        w.ok(
            &admin(),
            table_of(&format!("t{}", i + 2), &maryland_decided_by(authority), "double-zero"),
        );
    }
    w.replays();
}

/// A table a format 4 journal made with an authority no role acts as still
/// replays, and so do the disputes format 4 let the pit decide there (any
/// player, any amount); from format 5 no one decides that table's disputes.
#[test]
fn a_format_4_table_without_a_dispute_authority_replays_and_decides_no_more() {
    let mut w = World::in_format(4, "maryland");
    w.ok(&admin(), table_of("t2", &maryland_decided_by("player"), "double-zero"));
    w.seat("alice", 10_000, 5_000);
    w.seat("bob", 10_000, 5_000);
    // Format 4: bob, who never bet, is paid 10^12 by a dispute.
    w.ok(&pit(), dispute(&[("bob", 1_000_000_000_000)], None));
    assert_eq!(w.balance("chips:t1:bob"), 5_000 + 1_000_000_000_000);
    w.replays();
    let entries = w.casino.ledger().storage().entries.clone();
    let (casino, _) = Casino::open(MemoryStorage::with_entries(entries), w.now + 10).expect("opens");
    let mut w = World {
        casino,
        now: w.now + 10,
    };
    let at_t2 = Request::Dispute {
        table: "t2".into(),
        reason: "a chip on the line".into(),
        corrections: Vec::new(),
        round: None,
        id: Some(dispute_id()),
    };
    let refused = w.refused(&pit(), at_t2, "forbidden");
    assert!(refused.message.contains("\"player\""), "{refused}");
    w.refused(&floor(), dispute(&[("bob", 100)], None), "bad_correction");
    w.replays();
}

/// Colorado 2206(5): the pit supervisor decides disputes, not the dealer;
/// european-casino: "the casino manager's decision is final"; Maryland's
/// profile names the floorperson (ch.6 B(2)), the low-limit house's the
/// floor manager (Irregularities (4)-(5)). From journal format 10 each is a
/// role of its own, and each table's disputes go to it and to no one else:
/// not an admin, nor a pit supervisor logged under another's title.
#[test]
fn only_the_roles_a_profile_names_decide_its_disputes() {
    for (profile, deciders) in [
        ("maryland", vec![Role::Floorperson]),
        ("colorado-2014", vec![Role::PitSupervisor]),
        ("low-limit-house", vec![Role::FloorManager]),
        ("european-casino", vec![Role::CasinoManager]),
    ] {
        let mut w = World::in_format(JOURNAL_FORMAT, profile);
        w.seat("alice", 10_000, 5_000);
        w.ok(&dealer(), open_betting());
        w.ok(&alice(), bet("a1", "17", 500));
        w.ok(&dealer(), no_more_bets());
        w.ok(&dealer(), spin("2"));
        for role in Role::ALL {
            let who = actor(role.name(), role);
            let asked = dispute(&[("alice", 100)], None);
            if deciders.contains(&role) {
                w.ok(&who, asked);
            } else {
                let refused = w.refused(&who, asked, "forbidden");
                assert!(refused.message.contains(role.name()), "{profile}: {refused}");
            }
        }
        assert_eq!(w.balance("chips:t1:alice"), 5_000 - 500 + 100, "{profile}");
        w.replays();
    }
}

/// Colorado 2206(5): disputes concern "disputed play or the payment or
/// collection of wagers". One correction once paid 2^50 to a player who was
/// not even seated. A correction is now for a player who bet in the round
/// disputed (the one named, or the table's last settled round), once per
/// dispute, and the round gives that player in all, earlier corrections
/// included, between nothing and the most their bets in it could return.
#[test]
fn a_dispute_corrects_only_the_disputed_rounds_wagers_within_what_they_could_return() {
    let mut w = World::new();
    w.seat("alice", 10_000, 5_000);
    w.seat("bob", 10_000, 5_000);
    // No round has settled: there is nothing to correct.
    w.refused(&floor(), dispute(&[("alice", 100)], None), "bad_correction");
    w.ok(&dealer(), open_betting());
    w.ok(&alice(), bet("a1", "17", 100));
    w.ok(&alice(), bet("a2", "red", 200));
    w.ok(&dealer(), no_more_bets());
    w.ok(&dealer(), spin("17"));
    // 17 is black: a1 returned 3,600, a2 nothing. No one pocket pays both
    // (a red 17 would), so the most the round could give alice is 3,600.
    assert_eq!(w.balance("chips:t1:alice"), 5_000 - 300 + 3_600);
    let most: i64 = 3_600;
    for (corrections, why) in [
        (vec![("bob", 100)], "no bet"),
        (vec![("alice", 1 << 50)], "at most"),
        (vec![("alice", 1)], "at most"),
        (vec![("alice", -3_601)], "take back"),
        (vec![("alice", i64::MIN)], "take back"),
        (vec![("alice", 0)], "changes nothing"),
        (vec![("alice", -100), ("alice", -100)], "twice"),
    ] {
        let refused = w.refused(&floor(), dispute(&corrections, None), "bad_correction");
        assert!(
            refused.message.contains(why) && refused.message.contains("round 1"),
            "{corrections:?}: {refused}"
        );
    }
    w.refused(&floor(), dispute(&[("nobody", 100)], None), "no_player");
    w.refused(&floor(), dispute(&[("alice", -100)], Some(7)), "no_round");
    // The ball was in 19, a red, not 17: the straight's 3,600 comes back,
    // the red bet's 400 is paid.
    let events = w.ok(&floor(), dispute(&[("alice", -3_200)], Some(1)));
    assert!(
        events
            .iter()
            .any(|e| matches!(e, EventView::DisputeDecided { round: Some(1), .. })),
        "{events:?}"
    );
    assert_eq!(w.balance("chips:t1:alice"), 5_000 - 300 + 400);
    w.refused(&floor(), dispute(&[("alice", most - 400 + 1)], None), "bad_correction");
    // It can be taken back, down to nothing from the round and no further.
    w.ok(&floor(), dispute(&[("alice", -400)], None));
    w.refused(&floor(), dispute(&[("alice", -1)], None), "bad_correction");
    w.ok(&floor(), dispute(&[("alice", most)], None));
    assert_eq!(w.balance("chips:t1:alice"), 5_000 - 300 + i128::from(most));
    // A round under way is not settled: no correction of it yet; left
    // unnamed, the dispute is about the last settled round.
    w.ok(&dealer(), open_betting());
    w.ok(&bob(), bet("b1", "red", 100));
    let refused = w.refused(&floor(), dispute(&[("bob", 100)], Some(2)), "bad_correction");
    assert!(refused.message.contains("not settled"), "{refused}");
    w.refused(&floor(), dispute(&[("bob", 100)], None), "bad_correction");
    w.ok(&floor(), dispute(&[("alice", -100)], None));
    w.ok(&floor(), dispute(&[], None));
    w.replays();
}

// Colorado 2206(5), 2203(1), 2204(2): a correction is bounded by what the
// round's own wagers could have returned. Once, every even-money bet was
// priced as if a match play coupon rode on it, and a bet carried from prison
// was priced as a live bet in both rounds: a pit could pay half as much
// again on a plain red, and six times a prison bet's stake.
#[test]
fn a_dispute_prices_a_coupon_only_where_one_was_played_and_a_prison_bet_as_released() {
    let mut w = World::in_format(JOURNAL_FORMAT, "colorado-2014");
    w.seat("alice", 10_000, 5_000);
    // A red with no coupon that lost: the most it could return is 2 x 1,000.
    w.ok(&dealer(), open_betting());
    w.ok(&alice(), bet("a1", "red", 1_000));
    w.ok(&dealer(), no_more_bets());
    w.ok(&dealer(), spin("2"));
    w.refused(&pit(), dispute(&[("alice", 2_001)], Some(1)), "bad_correction");
    w.ok(&pit(), dispute(&[("alice", 2_000)], Some(1)));
    // With a coupon played on it, the coupon's win counts too.
    w.ok(&cashier(), issue("mp-1", "alice", "t1", 1_000));
    w.ok(&dealer(), open_betting());
    w.ok(&alice(), coupon_bet("a2", "red", 1_000, None, Some("mp-1")));
    w.ok(&dealer(), no_more_bets());
    w.ok(&dealer(), spin("2"));
    w.refused(&pit(), dispute(&[("alice", 3_001)], Some(2)), "bad_correction");
    w.ok(&pit(), dispute(&[("alice", 3_000)], Some(2)));

    // In prison (Colorado 2204(2)): the round it went in could have paid
    // it as a live bet; the round it is carried into, at most release it.
    let on = |request: Request| match request {
        Request::PlaceBet {
            bet_id, spot, stake, ..
        } => Request::PlaceBet {
            table: "pz".into(),
            bet_id,
            spot,
            stake,
            zero_choice: Some("prison".into()),
            coupon: None,
            coupon_id: None,
        },
        Request::Spin { spin, .. } => Request::Spin {
            bonus_words: Vec::new(),
            table: "pz".into(),
            spin,
        },
        Request::OpenBetting { .. } => Request::OpenBetting { table: "pz".into() },
        Request::NoMoreBets { .. } => Request::NoMoreBets { table: "pz".into() },
        Request::Dispute {
            reason,
            corrections,
            round,
            id,
            ..
        } => Request::Dispute {
            table: "pz".into(),
            reason,
            corrections,
            round,
            id,
        },
        other => other,
    };
    w.ok(
        &admin(),
        Request::CreateTable {
            bonus_text: None,
            table: "pz".into(),
            profile_text: croupier_profiles::builtin_text("colorado-2014")
                .expect("a shipped profile")
                .into(),
            wheel: "single-zero".into(),
            in_prison: true,
            betting_window_ms: 60_000,
            outcome: OutcomeSource::Dealer,
            shared_colours: false,
            wheel_address: None,
        },
    );
    w.ok(&pit(), inspection("pz"));
    w.ok(&dealer(), Request::OpenTable { table: "pz".into() });
    w.ok(
        &alice(),
        Request::BuyIn {
            id: "buy-pz".into(),
            table: "pz".into(),
            amount: Minor::new(5_000),
            chip_value: Minor::new(100),
        },
    );
    w.ok(&dealer(), on(open_betting()));
    w.ok(&alice(), on(bet("p1", "red", 1_000)));
    w.ok(&dealer(), on(no_more_bets()));
    w.ok(&dealer(), on(spin("0")));
    w.refused(&pit(), on(dispute(&[("alice", 2_001)], Some(1))), "bad_correction");
    w.ok(&dealer(), on(open_betting()));
    w.ok(&dealer(), on(no_more_bets()));
    w.ok(&dealer(), on(spin("1")));
    // Released: 1,000 back, the most a prison bet returns.
    w.refused(&pit(), on(dispute(&[("alice", 1)], Some(2))), "bad_correction");
    w.ok(&pit(), on(dispute(&[("alice", -1_000)], Some(2))));
    w.replays();
}

fn issue(id: &str, player: &str, table: &str, value: u64) -> Request {
    issue_until(id, player, table, value, None)
}

fn issue_until(id: &str, player: &str, table: &str, value: u64, expires_at_ms: Option<u64>) -> Request {
    Request::IssueCoupon {
        id: id.into(),
        player: player.into(),
        table: table.into(),
        value: Minor::new(value),
        expires_at_ms,
    }
}

// Colorado 2203(1): "valid match play coupons". A coupon says until when it
// is valid; played at or after that instant it is refused as expired, and
// one that would never be valid is not issued. Its play is journaled, so a
// replay refuses and accepts the same.
#[test]
fn a_match_play_coupon_past_its_end_is_refused() {
    let mut w = World::in_format(JOURNAL_FORMAT, "colorado-2014");
    w.seat("alice", 10_000, 5_000);
    let soon = w.now + 200;
    w.refused(
        &cashier(),
        issue_until("mp-0", "alice", "t1", 500, Some(w.now)),
        "bad_coupon",
    );
    w.ok(&cashier(), issue_until("mp-1", "alice", "t1", 500, Some(soon)));
    w.ok(
        &cashier(),
        issue_until("mp-2", "alice", "t1", 500, Some(soon + 100_000)),
    );
    w.ok(&dealer(), open_betting());
    while w.now < soon {
        w.ok(&alice(), coupon_bet(&format!("x{}", w.now), "17", 100, None, None));
    }
    let expired = w.refused(
        &alice(),
        coupon_bet("late", "red", 500, None, Some("mp-1")),
        "coupon_expired",
    );
    assert!(expired.message.contains("mp-1"), "{expired}");
    w.ok(&alice(), coupon_bet("in-time", "red", 500, None, Some("mp-2")));
    w.replays();
}

fn coupon_bet(id: &str, spot: &str, stake: u64, coupon: Option<u64>, coupon_id: Option<&str>) -> Request {
    Request::PlaceBet {
        table: "t1".into(),
        bet_id: id.into(),
        spot: spot.into(),
        stake: Minor::new(stake),
        zero_choice: None,
        coupon: coupon.map(Minor::new),
        coupon_id: coupon_id.map(str::to_string),
    }
}

// Colorado 2203(1): "valid match play coupons may be accepted ... on the even
// money and 2 to 1 wagers only". A coupon was once taken on the player's
// word: a hedged red and black, each with a coupon, won every round. Now a
// coupon is played only as issued to its player for its table, and once.
#[test]
fn a_match_play_coupon_is_played_only_as_issued_to_its_player_and_once() {
    let mut w = World::in_format(JOURNAL_FORMAT, "colorado-2014");
    w.ok(&admin(), table("t2", "colorado-2014"));
    w.seat("alice", 10_000, 5_000);
    w.seat("bob", 10_000, 5_000);

    // Issued by the cage or the pit, to a player, for a table; once.
    let issued = w.ok(&cashier(), issue("mp-1", "alice", "t1", 500));
    assert!(
        matches!(&issued[..], [EventView::CouponIssued { value: 500, .. }]),
        "{issued:?}"
    );
    w.resent(&cashier(), issue("mp-1", "alice", "t1", 500));
    w.refused(&cashier(), issue("mp-1", "alice", "t1", 600), "exists");
    w.refused(&alice(), issue("mp-9", "alice", "t1", 500), "forbidden");
    w.refused(&cashier(), issue("not a coupon", "alice", "t1", 500), "bad_coupon");
    w.refused(&cashier(), issue("mp-9", "dealer", "t1", 500), "no_player");
    w.refused(&cashier(), issue("mp-9", "alice", "t9", 500), "no_table");
    w.refused(&cashier(), issue("mp-9", "alice", "t1", 0), "bad_amount");
    w.ok(&pit(), issue("mp-2", "alice", "t2", 500));
    w.ok(&pit(), issue("mp-3", "bob", "t1", 500));

    w.ok(&dealer(), open_betting());
    // A coupon by its value alone, one no one issued, another's, another table's, another value.
    w.refused(
        &alice(),
        coupon_bet("a1", "red", 500, Some(500), None),
        "coupon_not_issued",
    );
    w.refused(
        &alice(),
        coupon_bet("a1", "red", 500, None, Some("mp-404")),
        "coupon_not_issued",
    );
    w.refused(
        &alice(),
        coupon_bet("a1", "red", 500, None, Some("mp-3")),
        "coupon_not_issued",
    );
    let elsewhere = w.refused(
        &alice(),
        coupon_bet("a1", "red", 500, None, Some("mp-2")),
        "coupon_not_issued",
    );
    assert!(elsewhere.message.contains("for table t2"), "{elsewhere}");
    w.refused(
        &alice(),
        coupon_bet("a1", "red", 500, Some(400), Some("mp-1")),
        "coupon_not_matched",
    );
    // Played once: the hedge on black with the same coupon is refused.
    w.ok(&alice(), coupon_bet("a1", "red", 500, None, Some("mp-1")));
    w.resent(&alice(), coupon_bet("a1", "red", 500, None, Some("mp-1")));
    let again = w.refused(
        &alice(),
        coupon_bet("a2", "black", 500, None, Some("mp-1")),
        "coupon_used",
    );
    assert!(again.message.contains("bet a1"), "{again}");
    // A bet cancelled gives its coupon back, to play once.
    w.ok(
        &alice(),
        Request::CancelBet {
            table: "t1".into(),
            bet_id: "a1".into(),
        },
    );
    w.ok(&alice(), coupon_bet("a3", "black", 500, None, Some("mp-1")));
    w.ok(&bob(), coupon_bet("b1", "red", 500, Some(500), Some("mp-3")));
    w.ok(&dealer(), no_more_bets());
    w.ok(&dealer(), spin("17"));
    // 17 is black: the coupon's stake of 500 wins even money with the coupon's 500.
    assert_eq!(w.balance("chips:t1:alice"), 5_000 - 500 + 1_500);
    assert_eq!(w.balance("chips:t1:bob"), 5_000 - 500);
    // Not in the next round either.
    w.ok(&dealer(), open_betting());
    w.refused(
        &alice(),
        coupon_bet("a4", "red", 500, None, Some("mp-1")),
        "coupon_used",
    );
    w.replays();
}

// A tip is chips placed in the dealers' tip box (european-casino glossary
// TIP BOX, Colorado 2210(2)(f)): whole chips of the player's chip value, as a stake is. The
// documents do not say it; colour chips are whole by their nature.
#[test]
fn a_tip_is_whole_chips() {
    let mut w = World::new();
    w.seat("alice", 10_000, 5_000);
    let tip = |id: &str, amount: u64| Request::Tip {
        id: id.into(),
        table: "t1".into(),
        amount: Minor::new(amount),
    };
    let refused = w.refused(&alice(), tip("tip-1", 150), "bad_stake");
    assert!(refused.message.contains("whole chips of 1.00"), "{refused}");
    w.ok(&alice(), tip("tip-2", 200));
    assert_eq!(w.balance("chips:t1:alice"), 5_000 - 200);
    w.replays();
}

/// `set_limits` at t1 for `kinds`, each from `min` to `max`.
fn limits(kinds: &[&str], min: u64, max: u64) -> Request {
    Request::SetLimits {
        table: "t1".into(),
        limits: kinds
            .iter()
            .map(|k| croupier_server::casino::journal::event::StoredLimit {
                kind: k.to_string(),
                min,
                max,
            })
            .collect(),
    }
}

// Colorado 2207, Maryland ch.1 G(3): a table's maximum holds per spot. From
// journal format 6 one player's bets on a spot in a round count together,
// a composite bet's parts on their own spots (Maryland ch.3 F(19)); up to
// format 5 each bet stood alone, and such a journal replays as it was.
#[test]
fn a_players_bets_on_one_spot_stay_within_its_maximum_together_from_format_6() {
    for format in [JOURNAL_FORMAT, 5] {
        let mut w = World::in_format(format, "maryland");
        // 1.00 to 10.00 inside; outside bets bounded only as Maryland's sign
        // must bound every kind (ch.1 G(3), from format 15).
        let wheel = croupier_profiles::load("maryland")
            .expect("shipped")
            .spec()
            .default_wheel;
        let sign = croupier_server::casino::journal::event::StoredLimit::on_every_kind(
            croupier_profiles::builtin_text("maryland").expect("shipped"),
            wheel.name(),
            (100, 1_000),
            (100, croupier_core::STAKE_MAX_MINOR),
        )
        .expect("limits");
        w.ok(
            &pit(),
            Request::SetLimits {
                table: "t1".into(),
                limits: sign,
            },
        );
        w.seat("alice", 100_000, 50_000);
        w.seat("bob", 100_000, 50_000);
        w.ok(&dealer(), open_betting());
        w.ok(&alice(), coupon_bet("a1", "17", 800, None, None));
        // Another player's bet on the same spot is theirs.
        w.ok(&bob(), coupon_bet("b1", "17", 1_000, None, None));
        // Complete on 17 puts 1.00 on 17 itself (and on each split, street...): 8.00 + 1.00 fits 10.00.
        w.ok(&alice(), coupon_bet("a2", "complete:17", 4_000, None, None));
        let more = coupon_bet("a3", "17", 200, None, None);
        if format >= 6 {
            let refused = w.refused(&alice(), more, "over_maximum");
            assert!(refused.message.contains("9.00 on the straight 17"), "{refused}");
        } else {
            w.ok(&alice(), more);
        }
        w.ok(&alice(), coupon_bet("a4", "18", 1_000, None, None));
        w.replays();
    }
}

/// An adjustment at t1 naming its witness by username (journal format 16).
fn adjust_by(witness: Option<&str>) -> Request {
    Request::Adjust {
        table: "t1".into(),
        replacement: false,
        description: "levelled the wheel".into(),
        witness: witness.map(str::to_string),
        witness_licence: None,
        external: false,
    }
}

fn witness(table: &str, adjustment: u64) -> Request {
    Request::WitnessAdjustment {
        table: table.into(),
        adjustment,
    }
}

fn withdraw(adjustment: u64, reason: &str) -> Request {
    Request::WithdrawAdjustment {
        table: "t1".into(),
        adjustment,
        reason: reason.into(),
    }
}

fn security() -> Actor {
    actor("security", Role::Security)
}

/// An adjustment at t1 with its witness's name and licence typed, as up to journal format 15.
fn adjust(witness: Option<(&str, &str)>) -> Request {
    Request::Adjust {
        table: "t1".into(),
        replacement: false,
        description: "levelled the wheel".into(),
        witness: witness.map(|(name, _)| name.to_string()),
        witness_licence: witness.map(|(_, licence)| licence.to_string()),
        external: false,
    }
}

fn close(wheel_cover_locked: bool) -> Request {
    Request::CloseTable {
        table: "t1".into(),
        wheel_cover_locked,
    }
}

// Colorado 2212(2), Maryland ch.2 B: an adjustment is made in the presence
// of a security department member, recorded by name and licence; the
// european-casino rules ask for none. Maryland ch.2 F: a table not open for
// play has its wheel covered and locked. From journal format 6; a format-5
// journal replays as it was. From format 16 the witness is named by
// username; up to format 15 the adjuster typed their name and licence, and
// such a journal replays so.
#[test]
fn adjustments_name_their_security_witness_and_a_closed_wheel_is_locked() {
    let mut w = World::in_format(JOURNAL_FORMAT, "colorado-2014");
    w.refused(&pit(), close(false), "cover_not_locked");
    w.ok(&pit(), close(true));
    w.refused(&pit(), adjust(None), "witness_required");
    // A licence typed for the witness is no record of theirs (Colorado 2212(5)).
    let typed = w.refused(&pit(), adjust(Some(("security", "S-77"))), "bad_witness");
    assert!(typed.message.contains("witness_licence"), "{typed}");
    let logged = w.ok(&pit(), adjust_by(Some("security")));
    assert!(
        matches!(&logged[..], [EventView::AdjustmentRecorded { witness: None, witness_licence: None, adjustment: Some(1), awaiting_witness: Some(name), .. }] if name == "security"),
        "{logged:?}"
    );
    w.replays();

    let mut typed = World::in_format(15, "colorado-2014");
    typed.ok(&pit(), close(true));
    typed.refused(
        &pit(),
        Request::Adjust {
            table: "t1".into(),
            replacement: false,
            description: "levelled the wheel".into(),
            witness: Some("Sam Guard".into()),
            witness_licence: None,
            external: false,
        },
        "bad_text",
    );
    let logged = typed.ok(&pit(), adjust(Some(("Sam Guard", "S-77"))));
    assert!(
        matches!(&logged[..], [EventView::AdjustmentRecorded { witness: Some(name), witness_licence: Some(l), awaiting_witness: None, .. }] if name == "Sam Guard" && l == "S-77"),
        "{logged:?}"
    );
    // Format 15 inspects after it at once: no witness is awaited.
    typed.ok(&pit(), inspection("t1"));
    typed.replays();

    let mut house = World::in_format(JOURNAL_FORMAT, "european-casino");
    house.ok(&pit(), close(true));
    house.ok(&pit(), adjust(None));
    house.ok(&pit(), inspection("t1"));

    let mut old = World::in_format(5, "colorado-2014");
    old.ok(&pit(), close(false));
    old.ok(&pit(), adjust(None));
    old.replays();
}

// Colorado 2212(2): adjustments "in the presence of a licensed security
// department member"; 2212(5): the log's "name, license number and
// signature"; Maryland ch.2 B: "in the presence of a security department
// member", E(6): "The signature and license number of the individual". From
// journal format 16 the witness is a security user with a licence on record,
// named by username, who confirms the adjustment signed in as themselves:
// the log shows their name and recorded licence from the confirmation, and
// no one else's confirmation counts.
#[test]
fn an_adjustment_awaits_its_security_witness_who_confirms_it_from_their_own_account() {
    for profile in ["colorado-2014", "maryland"] {
        let mut w = World::in_format(JOURNAL_FORMAT, profile);
        w.ok(
            &admin(),
            Request::CreateUser {
                username: "guard2".into(),
                role: Role::Security,
                password_hash: "test-hash".into(),
                licence: None,
            },
        );
        w.ok(&pit(), close(true));
        // Who the adjustment may name: a security member with a licence on record.
        for (named, code, said) in [
            ("alice", "bad_witness", "player"),
            (
                "pit_supervisor",
                "bad_witness",
                "not a member of the security department",
            ),
            ("nobody", "bad_witness", "no user"),
            ("pit", "bad_witness", "another"),
            ("guard2", "licence_not_recorded", "guard2 has no licence"),
        ] {
            let refused = w.refused(&pit(), adjust_by(Some(named)), code);
            assert!(refused.message.contains(said), "{profile} {named}: {refused}");
        }
        // Security witnesses; it makes no adjustment of its own (2212(2): "made by
        // a key manager ... or pit supervisor in the presence of" security).
        w.refused(&security(), adjust_by(Some("security")), "forbidden");
        w.ok(&pit(), adjust_by(Some("security")));
        // Colorado 2212(3), Maryland ch.2 C: "All adjustments shall be completed
        // prior to the required inspections": none while it awaits its witness.
        let early = w.refused(&pit(), inspection("t1"), "adjustment_not_witnessed");
        assert!(early.message.contains("1 (witness security)"), "{early}");
        w.refused(&security(), inspection("t1"), "adjustment_not_witnessed");
        w.refused(&dealer(), Request::OpenTable { table: "t1".into() }, "not_inspected");
        // No one but the witness named confirms it, on their own account.
        for who in [pit(), admin(), alice(), dealer(), actor("auditor", Role::Auditor)] {
            w.refused(&who, witness("t1", 1), "forbidden");
        }
        let other = w.refused(&actor("guard2", Role::Security), witness("t1", 1), "not_the_witness");
        assert!(other.message.contains("names security"), "{other}");
        w.refused(&security(), witness("t1", 2), "no_adjustment");
        // Another table's adjustment of that number is another adjustment.
        w.ok(&admin(), table("t2", profile));
        w.refused(&security(), witness("t2", 1), "no_adjustment");
        // The licence logged is the record's, whatever the session typed.
        let typed = Actor::new("security", Role::Security, "TYPED-1");
        let confirmed = w.ok(&typed, witness("t1", 1));
        assert!(
            matches!(&confirmed[..], [EventView::AdjustmentWitnessed { adjustment: 1, by, licence, .. }] if by == "security" && licence == "L-security"),
            "{confirmed:?}"
        );
        // Confirming twice is refused, by name.
        let twice = w.refused(&security(), witness("t1", 1), "adjustment_closed");
        assert!(twice.message.contains("witnessed by security"), "{twice}");
        // The log: the adjustment, then its witness's confirmation with their licence.
        let log: Vec<_> = w
            .casino
            .table("t1")
            .expect("t1")
            .log
            .iter()
            .rev()
            .take(2)
            .cloned()
            .collect();
        assert!(
            matches!(&log[0].1, croupier_server::casino::JournalEvent::AdjustmentWitnessed { by, licence, .. } if by == "security" && licence == "L-security"),
            "{log:?}"
        );
        assert!(
            matches!(&log[1].1, croupier_server::casino::JournalEvent::AdjustmentRecorded { awaiting_witness: Some(s), .. } if s == "security"),
            "{log:?}"
        );
        w.ok(&security(), inspection("t1"));
        w.ok(&dealer(), Request::OpenTable { table: "t1".into() });
        w.replays();
    }
}

// A witness away, locked or named by mistake would keep the table closed
// for good (Colorado 2212(3): no inspection before the adjustments are
// completed): the pit withdraws an adjustment not yet witnessed, with its
// reason, and the log keeps it unwitnessed. The journal replays across a
// restart with the adjustment still awaiting its witness.
#[test]
fn an_unwitnessed_adjustment_is_withdrawn_by_the_pit_and_awaits_across_a_restart() {
    let mut w = World::in_format(JOURNAL_FORMAT, "maryland");
    w.ok(&pit(), close(true));
    w.ok(&pit(), adjust_by(Some("security")));
    w.ok(&pit(), adjust_by(Some("security")));
    // A restart: the journal replays, and both still await their witness.
    let entries = w.casino.ledger().storage().entries.clone();
    let (casino, _) = Casino::open(croupier_ledger::MemoryStorage::with_entries(entries), w.now + 10).expect("reopens");
    w.casino = casino;
    w.now += 10;
    let awaiting: Vec<u64> = w
        .casino
        .table("t1")
        .expect("t1")
        .awaiting_witness()
        .iter()
        .map(|a| a.adjustment)
        .collect();
    assert_eq!(awaiting, vec![1, 2]);
    w.refused(&floor(), inspection("t1"), "adjustment_not_witnessed");
    w.refused(&security(), withdraw(1, "named by mistake"), "forbidden");
    // A second person withdraws it: the adjuster alone would skip the witness (2212(2)-(3)).
    let own = w.refused(&pit(), withdraw(1, "named by mistake"), "forbidden");
    assert!(own.message.contains("another supervisor withdraws it"), "{own}");
    w.refused(&floor(), withdraw(1, " "), "bad_text");
    w.ok(&floor(), withdraw(1, "named by mistake"));
    w.refused(&floor(), withdraw(1, "named by mistake"), "adjustment_closed");
    let gone = w.refused(&security(), witness("t1", 1), "adjustment_closed");
    assert!(gone.message.contains("withdrawn by floor"), "{gone}");
    // The other still waits; its witness confirms it after the restart.
    w.refused(&floor(), inspection("t1"), "adjustment_not_witnessed");
    w.ok(&security(), witness("t1", 2));
    w.ok(&floor(), inspection("t1"));
    w.replays();
}

// Colorado 2203(1): a coupon is used once it is played. A bet handed back
// unplayed (the table closed, the round voided, the bet annulled) did not
// play its coupon, which goes back to its player; a bet accepted before the
// coupon's end and sent again after it is a resend, not a refusal.
#[test]
fn a_coupon_on_a_bet_handed_back_unplayed_can_be_played_again() {
    let mut w = World::in_format(JOURNAL_FORMAT, "colorado-2014");
    w.seat("alice", 10_000, 5_000);
    let end = w.now + 100;
    w.ok(&cashier(), issue_until("mp-1", "alice", "t1", 500, Some(end)));
    w.ok(&cashier(), issue("mp-2", "alice", "t1", 500));
    w.ok(&dealer(), open_betting());
    w.ok(&alice(), coupon_bet("a1", "red", 500, None, Some("mp-1")));
    w.ok(&alice(), coupon_bet("a2", "black", 500, None, Some("mp-2")));
    while w.now <= end {
        w.ok(&alice(), coupon_bet(&format!("x{}", w.now), "17", 100, None, None));
    }
    w.resent(&alice(), coupon_bet("a1", "red", 500, None, Some("mp-1")));
    // The pit annuls a2: its coupon comes back, and plays on the next bet.
    w.ok(
        &pit(),
        Request::AnnulBets {
            table: "t1".into(),
            bet_ids: vec!["a2".into()],
            reason: "pooled".into(),
        },
    );
    w.ok(&alice(), coupon_bet("a3", "black", 500, None, Some("mp-2")));
    // The table closes: both bets come back; mp-2 plays again, mp-1 is past its end.
    w.ok(&dealer(), close(true));
    w.ok(&pit(), inspection("t1"));
    w.ok(&dealer(), Request::OpenTable { table: "t1".into() });
    w.ok(&dealer(), open_betting());
    w.ok(&alice(), coupon_bet("a4", "red", 500, None, Some("mp-2")));
    w.refused(
        &alice(),
        coupon_bet("a5", "black", 500, None, Some("mp-1")),
        "coupon_expired",
    );
    w.replays();
}

fn no_spin(reason: &str) -> Request {
    Request::Spin {
        bonus_words: Vec::new(),
        table: "t1".into(),
        spin: Spin::NoSpin { no_spin: reason.into() },
    }
}

// Colorado 2206(4): from journal format 9 a ball that left the wheel is
// inspected before the next spin. A format-8 journal spun on without one and
// replays as it was; opened by this server, the ball it spun again is not
// waiting for an inspection that its result already made moot.
#[test]
fn a_ball_inspection_binds_from_format_9_and_an_older_spin_needs_none() {
    let mut old = World::in_format(8, "colorado-2014");
    old.ok(&dealer(), open_betting());
    old.ok(&dealer(), no_more_bets());
    old.ok(&dealer(), no_spin("ball_left_wheel"));
    old.ok(&dealer(), spin("17"));
    old.replays();
    let upgraded = replay(old.casino.ledger().storage().entries.as_slice()).expect("replays");
    assert_eq!(upgraded.table("t1").expect("t1").table.ball_awaits_inspection(), None);

    let mut w = World::in_format(JOURNAL_FORMAT, "colorado-2014");
    w.ok(&dealer(), open_betting());
    w.ok(&dealer(), no_more_bets());
    w.ok(&dealer(), no_spin("ball_left_wheel"));
    w.refused(&dealer(), spin("17"), "ball_inspection_required");
    // Another no spin does not stand in for the inspection.
    w.refused(&dealer(), no_spin("ball_hangs"), "ball_inspection_required");
    w.ok(
        &pit(),
        Request::InspectBall {
            table: "t1".into(),
            damaged: false,
        },
    );
    w.ok(&dealer(), spin("17"));
    w.replays();
}

// A dealer keys the no spins they saw at the wheel: an emergency is declared
// (european-casino 6.1), a supervisor's command is the pit's (glossary NO
// SPIN 4), and an automated wheel's sensor reports are never keyed by hand.
#[test]
fn a_dealer_keys_only_the_no_spins_seen_at_the_wheel() {
    let mut w = World::in_format(JOURNAL_FORMAT, "colorado-2014");
    w.ok(&dealer(), open_betting());
    w.ok(&dealer(), no_more_bets());
    for reason in [
        "emergency",
        "supervisor_command",
        "ball_not_sensed",
        "sensor_fault",
        "void_game",
        "launch_unseen",
    ] {
        let refused = w.refused(&dealer(), no_spin(reason), "forbidden");
        assert!(refused.message.starts_with("dealer"), "{refused}");
    }
    w.refused(&pit(), no_spin("emergency"), "forbidden");
    w.ok(&pit(), no_spin("supervisor_command"));
    w.ok(&dealer(), no_spin("same_direction"));
    w.replays();
}

fn verbal(player: &str, bets: &[(&str, &str, u64)]) -> Request {
    Request::VerbalBets {
        table: "t1".into(),
        player: player.into(),
        bets: bets
            .iter()
            .map(|&(bet_id, spot, stake)| StoredVerbalBet {
                bet_id: bet_id.into(),
                spot: spot.into(),
                stake: Minor::new(stake),
            })
            .collect(),
    }
}

// european-casino 3.5-3.6: the croupier enters a player's announced series
// of verbal bets, and "all the consecutively listed bets should be either
// accepted or returned"; 3.3: none after no more bets. Colorado 2203(1) and
// Maryland ch.3 A take no verbal wagers. From journal format 9.
#[test]
fn a_verbal_series_is_taken_whole_or_not_at_all() {
    let mut w = World::in_format(JOURNAL_FORMAT, "european-casino");
    w.seat("alice", 10_000, 5_000);
    w.ok(&dealer(), open_betting());
    // Not seated, not the croupier's to enter, one bad bet, more than the
    // chips held: each refuses the whole series, and nothing moves.
    w.refused(&dealer(), verbal("bob", &[("v1", "17", 500)]), "not_seated");
    w.refused(&alice(), verbal("alice", &[("v1", "17", 500)]), "forbidden");
    w.refused(
        &dealer(),
        verbal("alice", &[("v1", "17", 500), ("v2", "17-35", 500)]),
        "not_on_layout",
    );
    w.refused(
        &dealer(),
        verbal("alice", &[("v1", "17", 3_000), ("v2", "red", 3_000)]),
        "insufficient_chips",
    );
    assert_eq!(w.balance("chips:t1:alice"), 5_000);
    let series = verbal("alice", &[("v1", "17", 500), ("v2", "red", 1_000), ("v3", "0-1", 500)]);
    let taken = w.ok(&dealer(), series.clone());
    assert_eq!(
        taken
            .iter()
            .filter(|e| matches!(e, EventView::BetAccepted { .. }))
            .count(),
        3
    );
    assert_eq!(w.balance("chips:t1:alice"), 3_000);
    // Sent again whole, it is a resend; in part, it is refused.
    w.resent(&dealer(), series);
    w.refused(
        &dealer(),
        verbal("alice", &[("v1", "17", 500), ("v4", "black", 500)]),
        "duplicate_bet",
    );
    w.ok(&dealer(), no_more_bets());
    w.refused(&dealer(), verbal("alice", &[("v5", "black", 500)]), "past_posting");
    w.ok(&dealer(), spin("17"));
    // 17 is black: 17 straight up pays 35 to 1; red and 0-1 lose.
    assert_eq!(w.balance("chips:t1:alice"), 3_000 + 500 * 36);
    w.replays();

    let mut colorado = World::in_format(JOURNAL_FORMAT, "colorado-2014");
    colorado.seat("alice", 10_000, 5_000);
    colorado.ok(&dealer(), open_betting());
    let refused = colorado.refused(&dealer(), verbal("alice", &[("v1", "17", 500)]), "not_offered");
    assert!(refused.message.contains("2203(1)"), "{refused}");
}

// european-casino 6.1-6.2: "the floats are closed" and "no payouts are made"
// until the emergency is declared over (6.3 likewise for a power loss). From
// journal format 9 nothing is bought, sold, cashed, tipped or paid at the
// table meanwhile; a format-8 journal replays as it was.
#[test]
fn an_emergency_closes_the_floats_until_it_is_lifted() {
    let emergency = || Request::DeclareEmergency {
        table: "t1".into(),
        reason: "security alert".into(),
    };
    let lift = || Request::LiftEmergency { table: "t1".into() };
    let mut w = World::in_format(JOURNAL_FORMAT, "european-casino");
    w.seat("alice", 10_000, 5_000);
    w.ok(&pit(), emergency());
    let refused = w.refused(&alice(), buy_in("more", 1_000), "emergency");
    assert!(refused.message.contains("6.1-6.2"), "{refused}");
    w.refused(
        &alice(),
        Request::LeaveTable {
            id: "leave".into(),
            table: "t1".into(),
        },
        "emergency",
    );
    w.refused(
        &alice(),
        Request::Tip {
            id: "tip".into(),
            table: "t1".into(),
            amount: Minor::new(100),
        },
        "emergency",
    );
    w.refused(
        &pit(),
        Request::Dispute {
            table: "t1".into(),
            reason: "paid short".into(),
            corrections: vec![StoredCorrection {
                player: "alice".into(),
                amount: 100,
            }],
            round: None,
            id: Some(dispute_id()),
        },
        "emergency",
    );
    assert_eq!(w.balance("chips:t1:alice"), 5_000);
    w.ok(&pit(), lift());
    w.ok(&alice(), buy_in("more", 1_000));
    assert_eq!(w.balance("chips:t1:alice"), 6_000);
    w.replays();

    let mut old = World::in_format(8, "european-casino");
    old.seat("alice", 10_000, 5_000);
    old.ok(&pit(), emergency());
    old.ok(&alice(), buy_in("more", 1_000));
    old.replays();
}

// Maryland ch.1 F(1): "a double zero Roulette wheel and double zero table
// layout may be used as a single zero" one, the 00 area covered. From
// journal format 10 a Maryland table of that wheel is on the covered
// double-zero felt: its zero spots are 0-1, 0-2 and 0-1-2, never the
// single-zero felt's 0-3, 0-2-3 or 0-1-2-3. A format-9 journal that set one
// on the single-zero felt replays as it was.
#[test]
fn a_maryland_double_zero_wheel_used_as_single_zero_keeps_its_covered_felt() {
    let maryland = croupier_profiles::builtin_text("maryland").expect("shipped");
    let old_text = maryland.replace("\"double-zero-covered\"]", "\"double-zero-as-single-zero\"]");
    assert_ne!(old_text, maryland);
    let mut w = World::new();
    let refused = w.refused(
        &admin(),
        table_of("sz", &old_text, "double-zero-as-single-zero"),
        "bad_wheel",
    );
    assert!(refused.message.contains("ch.1 F"), "{refused}");
    assert!(refused.message.contains("double-zero-covered"), "{refused}");
    // Colorado 2210(2)(c)(i) allows either felt.
    let colorado = croupier_profiles::builtin_text("colorado-2014").expect("shipped");
    w.ok(&admin(), table_of("co", colorado, "double-zero-as-single-zero"));

    w.ok(&admin(), table_of("dz", maryland, "double-zero-covered"));
    w.ok(&pit(), inspection("dz"));
    w.ok(&dealer(), Request::OpenTable { table: "dz".into() });
    w.ok(&dealer(), Request::OpenBetting { table: "dz".into() });
    w.ok(&cashier(), cash_in("cash-alice", "alice", 100_000));
    let buy = match buy_in("buy-alice", 10_000) {
        Request::BuyIn {
            id, amount, chip_value, ..
        } => Request::BuyIn {
            id,
            table: "dz".into(),
            amount,
            chip_value,
        },
        _ => unreachable!(),
    };
    w.ok(&alice(), buy);
    let on_dz = |id: &str, spot: &str| match bet(id, spot, 100) {
        Request::PlaceBet {
            bet_id, spot, stake, ..
        } => Request::PlaceBet {
            table: "dz".into(),
            bet_id,
            spot,
            stake,
            zero_choice: None,
            coupon: None,
            coupon_id: None,
        },
        _ => unreachable!(),
    };
    for (i, spot) in ["0", "0-1", "0-2", "0-1-2"].into_iter().enumerate() {
        w.ok(&alice(), on_dz(&format!("b{i}"), spot));
    }
    w.refused(&alice(), on_dz("x00", "00"), "pocket_not_on_wheel");
    for spot in ["0-3", "0-2-3", "0-1-2-3", "0-00", "0-2-00", "00-2-3", "0-00-1-2-3"] {
        let refused = w.run(&alice(), on_dz(&format!("x{spot}"), spot)).expect_err(spot);
        assert!(
            refused.message.contains("not a bet on the double-zero-covered layout") || refused.message.contains("00"),
            "{spot}: {refused}"
        );
    }
    w.replays();

    // In format 9 the single-zero felt was taken, and replays.
    let mut old = World::in_format(9, "maryland");
    old.ok(&admin(), table_of("sz", &old_text, "double-zero-as-single-zero"));
    old.replays();
}

// low-limit-house Irregularities (5): "If the ball hangs ... the dealer
// shall call floor. If the ball continues to hang, the floor manager will
// announce 'No Spin'". From journal format 10 the dealer's no spin for a
// hanging ball is refused there and the floor manager's is taken; at a
// table whose document says nothing of it the dealer calls it.
#[test]
fn a_hanging_balls_no_spin_is_the_floor_managers_at_the_low_limit_house() {
    let hanging = || Request::Spin {
        bonus_words: Vec::new(),
        table: "t1".into(),
        spin: Spin::NoSpin {
            no_spin: "ball_hangs".into(),
        },
    };
    let mut w = World::in_format(JOURNAL_FORMAT, "low-limit-house");
    w.seat("alice", 10_000, 5_000);
    w.ok(&dealer(), open_betting());
    w.ok(&alice(), bet("a1", "17", 500));
    w.ok(&dealer(), no_more_bets());
    let refused = w.refused(&dealer(), hanging(), "forbidden");
    assert!(refused.message.contains("Irregularities (5)"), "{refused}");
    // The floor manager, by that title: not another supervisor.
    for role in [Role::PitSupervisor, Role::Floorperson, Role::CasinoManager] {
        w.refused(&actor(role.name(), role), hanging(), "forbidden");
    }
    w.ok(&actor("floor_manager", Role::FloorManager), hanging());
    // The bet stands for the spin again (no_spin_bets = "stay"), which the dealer reports.
    w.ok(&dealer(), spin("17"));
    assert_eq!(w.balance("chips:t1:alice"), 5_000 - 500 + 18_000);
    w.replays();

    let mut colorado = World::in_format(JOURNAL_FORMAT, "colorado-2014");
    colorado.ok(&dealer(), open_betting());
    colorado.ok(&dealer(), no_more_bets());
    colorado.ok(&dealer(), hanging());
    // In format 9 the low-limit house's dealer called it.
    let mut old = World::in_format(9, "low-limit-house");
    old.ok(&dealer(), open_betting());
    old.ok(&dealer(), no_more_bets());
    old.ok(&dealer(), hanging());
    old.replays();
}

const DAY_MS: u64 = 86_400_000;

// european-casino 5.4: "If a player takes colour chips away from the table
// and returns them after the gaming day has ended, these chips are cashed
// in according to their face value equal to the table minimum for the
// gaming day when the chips were bought"; 5.5: "Exceptions may be made
// with the confirmation of the pit boss or the upper management". A gaming
// day is a UTC day. Chips cashed in the day they were bought keep their face.
// Journal formats 10 to 13 read it of a seated player the clock passed, and
// replay as they were written; format 14 reads it as it is written (below).
#[test]
fn colour_chips_kept_past_the_gaming_day_are_cashed_at_that_days_table_minimum() {
    let mut w = World::in_format(13, "european-casino");
    // The table's minimum on day 0 is 2.00; alice buys 10 chips of 1.00.
    w.ok(&pit(), limits(&["straight", "red"], 200, 10_000));
    w.seat("alice", 10_000, 1_000);
    w.seat("bob", 10_000, 1_000);
    // The next day the minimum is 5.00: alice's chips are each worth the day-0 minimum.
    w.now = DAY_MS + 1_000;
    w.ok(&pit(), limits(&["straight", "red"], 500, 10_000));
    let events = w.ok(&alice(), leave("leave-alice"));
    assert!(
        events.iter().any(|e| matches!(
            e,
            EventView::ChipsRevalued {
                face: 1_000,
                paid: 2_000,
                chips: 10,
                unit: 200,
                ..
            }
        )),
        "{events:?}"
    );
    assert_eq!(w.balance("wallet:alice"), 10_000 - 1_000 + 2_000);
    // The casino manager confirms bob's chips at face value (5.5); a dealer or
    // a floorperson may not, and there is nothing to confirm for a player
    // without chips.
    let confirm = |player: &str| Request::ConfirmChips {
        table: "t1".into(),
        player: player.into(),
    };
    w.refused(&dealer(), confirm("bob"), "forbidden");
    let refused = w.refused(&floor(), confirm("bob"), "forbidden");
    assert!(refused.message.contains("pit boss or casino manager"), "{refused}");
    w.refused(
        &actor("casino_manager", Role::CasinoManager),
        confirm("alice"),
        "not_seated",
    );
    w.ok(&actor("casino_manager", Role::CasinoManager), confirm("bob"));
    // Sent again, it writes nothing.
    w.resent(&actor("casino_manager", Role::CasinoManager), confirm("bob"));
    w.ok(&bob(), leave("leave-bob"));
    assert_eq!(w.balance("wallet:bob"), 10_000);
    // Bought and cashed the same day: face value.
    w.ok(&alice(), buy_in("buy-alice-2", 1_000));
    w.ok(&alice(), leave("leave-alice-2"));
    assert_eq!(w.balance("wallet:alice"), 10_000 - 1_000 + 2_000);
    w.replays();
}

// low-limit-house "Roulette Chips": "If Roulette-specific chips are removed
// from the table and need to be returned at any value other than $1, then
// the floor manager must be called". Kept past the gaming day, each chip
// is cashed at 1.00 unless the floor manager confirms its value.
#[test]
fn low_limit_chips_kept_past_the_gaming_day_come_back_at_a_dollar_each() {
    let mut w = World::in_format(13, "low-limit-house");
    w.ok(&cashier(), cash_in("cash-alice", "alice", 10_000));
    w.ok(
        &alice(),
        Request::BuyIn {
            id: "buy-alice".into(),
            table: "t1".into(),
            amount: Minor::new(2_500),
            chip_value: Minor::new(500),
        },
    );
    w.now = 3 * DAY_MS;
    let refused = w.refused(
        &pit(),
        Request::ConfirmChips {
            table: "t1".into(),
            player: "alice".into(),
        },
        "forbidden",
    );
    assert!(refused.message.contains("floor manager"), "{refused}");
    w.ok(&alice(), leave("leave-alice"));
    // Five chips of 5.00 come back at 1.00 each: the house keeps 20.00.
    assert_eq!(w.balance("wallet:alice"), 10_000 - 2_500 + 500);
    w.replays();
}

fn add_player(w: &mut World, name: &str) {
    w.ok(
        &admin(),
        Request::CreateUser {
            username: name.into(),
            role: Role::Player,
            password_hash: "test-hash".into(),
            licence: None,
        },
    );
}

fn taken_away(player: &str) -> Request {
    Request::ChipsTakenAway {
        table: "t1".into(),
        player: player.into(),
    }
}

fn seat_in_chips_of(w: &mut World, player: &str, amount: u64, chip_value: u64) {
    w.ok(&cashier(), cash_in(&format!("cash-{player}"), player, 100_000));
    w.ok(
        &actor(player, Role::Player),
        Request::BuyIn {
            id: format!("buy-{player}-{amount}-{chip_value}"),
            table: "t1".into(),
            amount: Minor::new(amount),
            chip_value: Minor::new(chip_value),
        },
    );
}

// european-casino 5.4, as written: "If a player takes colour chips away from
// the table and returns them after the gaming day has ended, these chips are
// cashed in according to their face value equal to the table minimum for the
// gaming day when the chips were bought". From journal format 14: a seated
// player is paid face value whenever they leave (5.2: chips cannot leave the
// table); chips the staff record taken away come back at the minimum of the
// day each purchase was made, never above their face; 5.5 the pit boss or
// the casino manager may confirm their face value.
#[test]
fn only_chips_taken_away_are_revalued_each_purchase_at_its_days_minimum_never_above_face() {
    let mut w = World::in_format(JOURNAL_FORMAT, "european-casino");
    add_player(&mut w, "carol");
    // Day 0: the minimum is 2.00.
    w.ok(&pit(), limits(&["straight", "red"], 200, 10_000));
    // The attack: 200.00 in chips of 0.01, held past midnight while seated.
    seat_in_chips_of(&mut w, "carol", 20_000, 1);
    // alice buys ten chips of 5.00 on day 0 and ten more on day 1, when the minimum is 3.00.
    seat_in_chips_of(&mut w, "alice", 5_000, 500);
    seat_in_chips_of(&mut w, "bob", 5_000, 500);
    w.now = DAY_MS + 1_000;
    w.ok(&pit(), limits(&["straight", "red"], 300, 10_000));
    w.ok(
        &alice(),
        Request::BuyIn {
            id: "buy-alice-2".into(),
            table: "t1".into(),
            amount: Minor::new(5_000),
            chip_value: Minor::new(500),
        },
    );
    // A seated player is paid face value, whatever the day: no chip of 0.01 comes back as 2.00.
    let carol = actor("carol", Role::Player);
    let events = w.ok(&carol, leave("leave-carol"));
    assert!(
        !events.iter().any(|e| matches!(e, EventView::ChipsRevalued { .. })),
        "{events:?}"
    );
    assert_eq!(w.balance("wallet:carol"), 100_000);
    // Nothing to confirm for a seated player.
    let manager = actor("casino_manager", Role::CasinoManager);
    let refused = w.refused(
        &manager,
        Request::ConfirmChips {
            table: "t1".into(),
            player: "alice".into(),
        },
        "bad_request",
    );
    assert!(
        refused.message.contains("always cashed in at their face value"),
        "{refused}"
    );
    // Only the table's staff record chips taken away; a player cannot.
    w.refused(&alice(), taken_away("alice"), "forbidden");
    w.refused(&cashier(), taken_away("alice"), "forbidden");
    // A supervisor's record, whom the dealer calls: a dealer alone could devalue a player's chips.
    w.refused(&dealer(), taken_away("alice"), "forbidden");
    w.refused(&pit(), taken_away("carol"), "not_seated");
    w.ok(&pit(), taken_away("alice"));
    // Recorded once: sent again, it writes nothing.
    w.resent(&pit(), taken_away("alice"));
    // Away, alice's chips play no more, buy nothing and tip nothing until cashed in.
    w.ok(&dealer(), open_betting());
    let refused = w.refused(&alice(), bet("away", "red", 500), "chips_away");
    assert!(refused.message.contains("european-casino 5.2"), "{refused}");
    w.refused(&alice(), tip("tip-away", 500), "chips_away");
    w.refused(&alice(), buy_in("buy-away", 500), "chips_away");
    w.ok(&dealer(), no_more_bets());
    w.ok(&dealer(), spin("17"));
    // Brought back on day 2: day 0's ten chips at 2.00, day 1's at 3.00.
    w.now = 2 * DAY_MS + 1_000;
    let events = w.ok(&alice(), leave("leave-alice"));
    let revalued = events
        .iter()
        .find_map(|e| match e {
            EventView::ChipsRevalued { face, paid, lots, .. } => Some((*face, *paid, lots.clone())),
            _ => None,
        })
        .expect("revalued");
    assert_eq!(revalued.0, 10_000);
    assert_eq!(revalued.1, 10 * 200 + 10 * 300);
    let lots: Vec<(u64, u64, u64)> = revalued.2.iter().map(|l| (l.day, l.chips, l.unit)).collect();
    assert_eq!(lots, [(0, 10, 200), (1, 10, 300)]);
    assert_eq!(w.balance("wallet:alice"), 100_000 - 10_000 + 5_000);
    // bob's chips, taken away and confirmed by the casino manager (5.5), come back at face.
    w.ok(&pit(), taken_away("bob"));
    w.refused(
        &floor(),
        Request::ConfirmChips {
            table: "t1".into(),
            player: "bob".into(),
        },
        "forbidden",
    );
    w.ok(
        &manager,
        Request::ConfirmChips {
            table: "t1".into(),
            player: "bob".into(),
        },
    );
    w.ok(&bob(), leave("leave-bob"));
    assert_eq!(w.balance("wallet:bob"), 100_000);
    // Taken away and brought back the day they were bought: face value.
    seat_in_chips_of(&mut w, "carol", 1_000, 500);
    w.ok(&pit(), taken_away("carol"));
    w.ok(&carol, leave("leave-carol-2"));
    assert_eq!(w.balance("wallet:carol"), 100_000);
    // A purchase dated on its own: chips of 1.00 under a 3.00 minimum are never worth more than 1.00.
    w.replays();
}

// The low-limit house: "Roulette-specific chips must stay on or above the
// Roulette table at all times. If Roulette-specific chips are removed from
// the table and need to be returned at any value other than $1, then the
// floor manager must be called." From journal format 14: a seated player's
// chips keep their face; chips removed come back at $1 each whenever they
// come back (the profile's `taken_away_revalued = "always"`), never above
// their face, unless the floor manager confirms their value.
#[test]
fn low_limit_chips_removed_from_the_table_come_back_at_a_dollar_never_above_their_face() {
    let mut w = World::in_format(JOURNAL_FORMAT, "low-limit-house");
    add_player(&mut w, "carol");
    seat_in_chips_of(&mut w, "alice", 2_500, 500);
    seat_in_chips_of(&mut w, "bob", 2_500, 500);
    seat_in_chips_of(&mut w, "carol", 100, 25);
    // Seated three days: face value.
    w.now = 3 * DAY_MS;
    w.ok(&alice(), leave("leave-alice"));
    assert_eq!(w.balance("wallet:alice"), 100_000);
    // Removed and brought back the same day: $1 each.
    w.ok(&actor("floor_manager", Role::FloorManager), taken_away("bob"));
    w.ok(&bob(), leave("leave-bob"));
    assert_eq!(w.balance("wallet:bob"), 100_000 - 2_500 + 500);
    // Chips of 0.25 removed come back at 0.25, not $1.
    w.ok(&pit(), taken_away("carol"));
    let carol = actor("carol", Role::Player);
    let events = w.ok(&carol, leave("leave-carol"));
    assert!(
        !events.iter().any(|e| matches!(e, EventView::ChipsRevalued { .. })),
        "{events:?}"
    );
    assert_eq!(w.balance("wallet:carol"), 100_000);
    w.replays();
}

// A bet sent again after its round, its answer lost: from journal format
// 14 its id, used by its player in a round the table keeps, is refused,
// never placed in a round the player did not mean; in format 13 it was
// placed again, and such a journal replays as it was.
#[test]
fn a_bet_sent_again_after_its_round_is_not_placed_in_a_later_one() {
    for format in [JOURNAL_FORMAT, 13] {
        let mut w = World::in_format(format, "maryland");
        w.seat("alice", 10_000, 5_000);
        w.seat("bob", 10_000, 5_000);
        w.ok(&dealer(), open_betting());
        w.ok(&alice(), bet("b1", "red", 500));
        // Sent again in its own round: a resend, nothing written.
        w.resent(&alice(), bet("b1", "red", 500));
        w.ok(&dealer(), no_more_bets());
        w.ok(&dealer(), spin("17"));
        for round in 2..=3 {
            w.ok(&dealer(), open_betting());
            if format >= 14 {
                let refused = w.refused(&alice(), bet("b1", "red", 500), "duplicate_bet");
                assert!(refused.message.contains("round 1"), "{refused}");
            } else {
                w.ok(&alice(), bet("b1", "red", 500));
            }
            // bob may use the same id (in format 13 alice's bet took it this round).
            if round == 2 && format >= 14 {
                w.ok(&bob(), bet("b1", "black", 500));
            }
            w.ok(&dealer(), no_more_bets());
            w.ok(&dealer(), spin("17"));
        }
        w.replays();
    }
}

// A closed table sold chips for cash into its drop box, its wheel covered:
// from journal format 14 chips are sold for cash only while it is open, and
// a player still cashes theirs in after it closes.
#[test]
fn a_closed_table_sells_no_chips_for_cash_and_cashes_them_in() {
    let mut w = World::new();
    w.seat("alice", 10_000, 1_000);
    w.ok(&dealer(), close(true));
    w.refused(&dealer(), sale("sale-after-close", "bob", 500), "table_closed");
    w.ok(&alice(), leave("leave-after-close"));
    assert_eq!(w.balance("wallet:alice"), 10_000);
    assert_eq!(w.balance("drop:t1"), 0);
    w.replays();
}

/// Maryland ch.1 G(3): the layout carries "Signage indicating the minimum
/// and maximum wagers permitted at that table", so a Maryland table opens
/// only with a limit posted on every kind of bet it takes (a composite bet
/// is limited by the bets it stands for). Colorado 2207's limits "may be
/// set": its table opens without. A format-14 journal's tables opened
/// without and replay so.
#[test]
fn a_maryland_table_opens_only_with_its_limits_posted() {
    let mut w = World::new();
    let create = table("m2", "maryland");
    w.casino.execute(w.now, &admin(), create).expect("made");
    w.ok(&pit(), inspection("m2"));
    let refused = w.refused(
        &dealer(),
        Request::OpenTable { table: "m2".into() },
        "limits_not_posted",
    );
    assert!(refused.message.contains("Maryland ch.1 G(3)"), "{refused}");
    assert!(
        refused.message.contains("straight, split"),
        "names the kinds: {refused}"
    );
    assert!(
        !refused.message.contains("neighbours"),
        "a composite bet is not named: {refused}"
    );
    // In plain words, as the pit's console says them: no API code.
    assert!(
        refused.message.contains("first five, six line") && !refused.message.contains('_'),
        "the kinds and the way to post them in words: {refused}"
    );
    let limit = |kind: &str| StoredLimit {
        kind: kind.into(),
        min: 100,
        max: 10_000,
    };
    // A sign that leaves kinds off is refused as it is posted, naming them.
    let partial = Request::SetLimits {
        table: "m2".into(),
        limits: vec![limit("straight"), limit("red")],
    };
    let refused = w.refused(&pit(), partial, "limits_not_posted");
    assert!(refused.message.contains("no limit is posted on split,"), "{refused}");
    assert!(
        !refused.message.contains("straight") && !refused.message.contains("red,"),
        "{refused}"
    );
    let every = StoredLimit::on_every_kind(
        croupier_profiles::builtin_text("maryland").expect("shipped"),
        "double-zero",
        (100, 10_000),
        (500, 50_000),
    )
    .expect("limits");
    w.ok(
        &pit(),
        Request::SetLimits {
            table: "m2".into(),
            limits: every,
        },
    );
    w.ok(&dealer(), Request::OpenTable { table: "m2".into() });
    // Open, its sign is never emptied nor a kind taken off it.
    for limits in [Vec::new(), vec![limit("straight")]] {
        let taken_off = Request::SetLimits {
            table: "m2".into(),
            limits,
        };
        w.refused(&pit(), taken_off, "limits_not_posted");
    }

    // Colorado 2207: "may be set by the licensee": no limits, and it opens.
    w.casino
        .execute(w.now + 10, &admin(), table("c1", "colorado-2014"))
        .expect("made");
    w.now += 10;
    w.ok(&pit(), inspection("c1"));
    w.ok(&dealer(), Request::OpenTable { table: "c1".into() });

    // Format 14 opened a Maryland table without its limits; it still does.
    let mut old = World::in_format(14, "colorado-2014");
    old.casino
        .execute(old.now, &admin(), table("m2", "maryland"))
        .expect("made");
    old.ok(&pit(), inspection("m2"));
    old.ok(&dealer(), Request::OpenTable { table: "m2".into() });
    old.replays();
    w.replays();
}

// Colorado 2212(5): the log holds "the name, license number and signature
// of the person making the adjustment" (2212(1): inspections by a
// "licensed" member or a pit supervisor); Maryland ch.2 E(6): "The
// signature and license number of the individual making the adjustment or
// replacement". From journal format 15 only staff with a licence on their
// record inspect or adjust there; the european-casino rules keep no such
// log. Up to format 14 the licence typed at sign-in signed it.
#[test]
fn only_staff_with_a_licence_on_record_inspect_or_adjust_where_the_log_names_it() {
    let unlicensed = actor("pit3", Role::PitSupervisor);
    let add_pit3 = |w: &mut World| {
        w.ok(
            &admin(),
            Request::CreateUser {
                username: "pit3".into(),
                role: Role::PitSupervisor,
                password_hash: "test-hash".into(),
                licence: None,
            },
        );
    };
    for profile in ["colorado-2014", "maryland"] {
        let mut w = World::in_format(JOURNAL_FORMAT, profile);
        add_pit3(&mut w);
        w.ok(&pit(), close(true));
        let refused = w.refused(&unlicensed, inspection("t1"), "licence_not_recorded");
        assert!(
            refused.message.contains("pit3") && refused.message.contains("2212(5)"),
            "{refused}"
        );
        w.refused(&unlicensed, adjust_by(Some("security")), "licence_not_recorded");
        w.ok(
            &admin(),
            Request::SetLicence {
                username: "pit3".into(),
                licence: "P-3003".into(),
            },
        );
        w.ok(&unlicensed, adjust_by(Some("security")));
        w.ok(&security(), witness("t1", 1));
        w.ok(&unlicensed, inspection("t1"));
        w.replays();
    }
    let mut european = World::in_format(JOURNAL_FORMAT, "european-casino");
    add_pit3(&mut european);
    european.ok(&pit(), close(true));
    european.ok(&unlicensed, inspection("t1"));
    let mut older = World::in_format(14, "colorado-2014");
    add_pit3(&mut older);
    older.ok(&pit(), close(true));
    older.ok(&unlicensed, inspection("t1"));
    older.replays();
}

// low-limit-house Irregularities (4): "If a player attempts to place a
// wager after the dealer states 'No More Bets' the late bet will not be
// honored ... This is Past Posting and will be addressed accordingly by
// casino management." From journal format 15 the refused bet is logged
// with its player, spot, stake and time, once a player a round (a
// thousand late bets write one entry), for a spot the wheel has.
#[test]
fn a_late_bet_is_refused_and_logged_once_a_player_a_round_for_management() {
    let past_postings = |w: &World| -> Vec<(String, String, u64)> {
        let slot = w.casino.table("t1").expect("t1");
        slot.log
            .iter()
            .filter_map(|(_, e, _)| match e {
                croupier_server::casino::JournalEvent::PastPosting {
                    player, spot, stake, ..
                } => Some((player.clone(), spot.clone(), *stake)),
                _ => None,
            })
            .collect()
    };
    let mut w = World::in_format(JOURNAL_FORMAT, "low-limit-house");
    w.seat("alice", 10_000, 5_000);
    w.seat("bob", 10_000, 5_000);
    w.ok(&dealer(), open_betting());
    w.ok(&alice(), bet("a1", "17", 500));
    w.ok(&dealer(), no_more_bets());
    let before = w.entries();
    let refused = w.run(&bob(), bet("b1", "8-9", 1_000)).expect_err("past posting");
    assert_eq!(refused.code, "past_posting", "{refused}");
    assert_eq!(w.entries(), before + 1, "the attempt is logged");
    assert_eq!(past_postings(&w), vec![("bob".to_string(), "8-9".to_string(), 1_000)]);
    assert_eq!(w.balance("chips:t1:bob"), 5_000, "nothing of bob's moved");
    // Again and again in the round: refused, logged no more.
    for n in 0..20 {
        let again = w
            .run(&bob(), bet(&format!("b{n}x"), "red", 500))
            .expect_err("past posting");
        assert_eq!(again.code, "past_posting");
    }
    // A spot the wheel has not is refused and not logged; alice's resend of her bet is no attempt.
    w.run(&alice(), bet("a2", "99", 500)).expect_err("past posting");
    w.ok(&alice(), bet("a1", "17", 500));
    assert_eq!(w.entries(), before + 1, "one entry for the round");
    w.ok(&dealer(), spin("17"));
    // The next round logs the next attempt.
    w.ok(&dealer(), open_betting());
    w.ok(&dealer(), no_more_bets());
    w.run(&bob(), bet("b2", "red", 500)).expect_err("past posting");
    assert_eq!(past_postings(&w).len(), 2);
    // Only the server records one (the API has no such request; here an admin
    // stands for the server's own account): a player or a dealer may not.
    let record = Request::RecordPastPosting {
        table: "t1".into(),
        player: "bob".into(),
        spot: "17".into(),
        stake: Minor::new(100),
    };
    for who in [bob(), dealer()] {
        w.refused(&who, record.clone(), "forbidden");
    }
    w.replays();

    let mut older = World::in_format(14, "low-limit-house");
    older.seat("bob", 10_000, 5_000);
    older.ok(&dealer(), open_betting());
    older.ok(&dealer(), no_more_bets());
    older.refused(&bob(), bet("b1", "red", 500), "past_posting");
    older.replays();
}
