//! The back office's edits and retirements (journal format 16): who may
//! make them, what money stops them, what a retired user or table may no
//! longer do, and that the journal replays them. Each refusal names what
//! was wrong and writes nothing.

mod common;

use croupier_core::Minor;
use croupier_ledger::{verify, MemoryStorage};
use croupier_server::api::{ApiError, EventView, OutcomeSource, Role};
use croupier_server::casino::{replay, Actor, Casino, Request, JOURNAL_FORMAT};

use common::actors::{actor, admin, alice, cashier, dealer, pit};
use common::requests::{buy_in, cash_in, cash_out, inspection, spin};

struct World {
    casino: Casino<MemoryStorage>,
    now: u64,
}

impl World {
    /// A casino in the newest format, its staff, players alice and bob, and
    /// Maryland table t1, inspected and open.
    fn new() -> World {
        let (casino, _) = Casino::open_in_format(MemoryStorage::default(), 0, JOURNAL_FORMAT).expect("open");
        let mut w = World { casino, now: 0 };
        for (who, name, role) in [
            (Actor::system(), "admin", Role::Admin),
            (admin(), "cashier", Role::Cashier),
            (admin(), "dealer", Role::Dealer),
            (admin(), "pit", Role::PitSupervisor),
            (admin(), "alice", Role::Player),
            (admin(), "bob", Role::Player),
            (admin(), "auditor", Role::Auditor),
        ] {
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
        w.ok(
            &admin(),
            Request::NameOperator {
                name: "Test House".into(),
            },
        );
        w.ok(&admin(), table("t1"));
        w.ok(&pit(), inspection("t1"));
        w.ok(&dealer(), Request::OpenTable { table: "t1".into() });
        w
    }

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

    /// `player` locked, their retirement refused with `code`, and unlocked again.
    fn refused_while_locked(&mut self, player: &str, code: &str) -> ApiError {
        self.ok(&admin(), lock(player));
        let refused = self.refused(&admin(), retire_user(player), code);
        self.ok(
            &admin(),
            Request::UnlockUser {
                username: player.into(),
            },
        );
        refused
    }

    fn entries(&self) -> usize {
        self.casino.ledger().storage().entries.len()
    }

    fn balance(&self, account: &str) -> i128 {
        self.casino.balance(account)
    }

    /// The journal verifies and replays to itself: the casino it rebuilds.
    fn replays(&self) -> Casino<MemoryStorage> {
        let entries = &self.casino.ledger().storage().entries;
        assert_eq!(verify(entries).first_problem, None);
        let again = replay(entries).expect("the journal replays");
        assert_eq!(again.ledger().next_seq(), entries.len() as u64 + 1);
        assert_eq!(again.ledger().balances(), self.casino.ledger().balances());
        again
    }

    /// Closes t1 with its wheel covered.
    fn close(&mut self) {
        self.ok(
            &dealer(),
            Request::CloseTable {
                table: "t1".into(),
                wheel_cover_locked: true,
            },
        );
    }

    /// A round at t1 in which `player` stakes `stake` on 17 and the ball rests in `pocket`.
    fn round(&mut self, player: &Actor, id: &str, stake: u64, pocket: &str) {
        self.ok(&dealer(), Request::OpenBetting { table: "t1".into() });
        self.ok(player, bet(id, stake));
        self.ok(&dealer(), Request::NoMoreBets { table: "t1".into() });
        self.ok(&dealer(), spin(pocket));
    }
}

fn table(id: &str) -> Request {
    let profile = "maryland";
    Request::CreateTable {
        bonus_text: None,
        table: id.into(),
        profile_text: croupier_profiles::builtin_text(profile).expect("shipped").into(),
        wheel: croupier_profiles::load(profile)
            .expect("shipped")
            .spec()
            .default_wheel
            .name()
            .into(),
        in_prison: false,
        betting_window_ms: 60_000,
        outcome: OutcomeSource::Dealer,
        shared_colours: false,
        wheel_address: None,
    }
}

fn bet(id: &str, stake: u64) -> Request {
    Request::PlaceBet {
        table: "t1".into(),
        bet_id: id.into(),
        spot: "17".into(),
        stake: Minor::new(stake),
        zero_choice: None,
        coupon: None,
        coupon_id: None,
    }
}

fn retire_user(name: &str) -> Request {
    Request::RetireUser { username: name.into() }
}

fn lock(name: &str) -> Request {
    Request::LockUser { username: name.into() }
}

fn make(name: &str, role: Role) -> Request {
    Request::EditUser {
        username: name.into(),
        display_name: None,
        role: Some(role),
    }
}

fn retire_table() -> Request {
    Request::RetireTable { table: "t1".into() }
}

fn edit_table(label: Option<&str>, window: Option<u64>) -> Request {
    Request::EditTable {
        table: "t1".into(),
        label: label.map(str::to_string),
        betting_window_ms: window,
    }
}

/// Retiring and editing are the admin's alone: every other role is refused
/// by name, a player included, and nothing is written.
#[test]
fn only_an_admin_retires_or_edits_users_and_tables() {
    let mut w = World::new();
    w.close();
    for who in [dealer(), pit(), cashier(), alice(), actor("auditor", Role::Auditor)] {
        for request in [
            retire_user("bob"),
            make("bob", Role::Dealer),
            retire_table(),
            edit_table(Some("High limit"), None),
        ] {
            let refused = w.refused(&who, request, "forbidden");
            assert!(refused.message.contains("may not"), "{refused}");
        }
    }
    assert!(!w.casino.user("bob").expect("bob").retired);
    assert!(!w.casino.table("t1").expect("t1").retired);
}

/// A player holding money is not retired: the refusal names each balance
/// (wallet, chips at a table, a stake on the layout, a coupon not played).
/// Once all of it is settled and cashed out, they are; and a retired
/// account is not retired twice.
#[test]
fn a_player_holding_money_is_not_retired_and_the_refusal_names_it() {
    let mut w = World::new();
    w.ok(&cashier(), cash_in("c1", "alice", 10_000));
    let refused = w.refused_while_locked("alice", "money_held");
    assert!(refused.message.contains("wallet:alice 100.00"), "{refused}");
    w.ok(&alice(), buy_in("b1", 10_000));
    let refused = w.refused_while_locked("alice", "money_held");
    assert!(refused.message.contains("chips:t1:alice 100.00"), "{refused}");
    // All her chips on the layout: her accounts hold nothing, the layout her stake.
    w.ok(&dealer(), Request::OpenBetting { table: "t1".into() });
    w.ok(&alice(), bet("a1", 10_000));
    assert_eq!(w.balance("chips:t1:alice"), 0);
    let refused = w.refused_while_locked("alice", "money_held");
    assert!(
        refused.message.contains("100.00 staked on the layout at table t1"),
        "{refused}"
    );
    w.ok(&dealer(), Request::NoMoreBets { table: "t1".into() });
    w.ok(&dealer(), spin("18"));
    // A match play coupon issued to her for t1 and not played.
    w.ok(
        &cashier(),
        Request::IssueCoupon {
            id: "mp-1".into(),
            player: "alice".into(),
            table: "t1".into(),
            value: Minor::new(500),
            expires_at_ms: Some(1_000_000),
        },
    );
    let refused = w.refused_while_locked("alice", "money_held");
    assert!(refused.message.contains("coupon mp-1 worth 5.00"), "{refused}");
    // Expired, it is worth nothing: she is retired.
    w.now = 1_000_000;
    w.ok(&admin(), lock("alice"));
    w.ok(&admin(), retire_user("alice"));
    assert!(w.casino.user("alice").expect("alice").retired);
    let refused = w.refused(&admin(), retire_user("alice"), "retired");
    assert!(refused.message.contains("alice is retired"), "{refused}");
    w.replays();
}

/// A retired player signs in no more and acts no more; no money moves to
/// them; their name is never given again, and their account is never
/// changed again. Their history stays: the round they lost is in recall.
#[test]
fn a_retired_player_acts_no_more_and_keeps_their_name_and_history() {
    let mut w = World::new();
    w.ok(&cashier(), cash_in("c1", "alice", 1_000));
    w.ok(&alice(), buy_in("b1", 1_000));
    w.round(&alice(), "a1", 1_000, "18");
    w.ok(&admin(), lock("alice"));
    w.ok(&admin(), retire_user("alice"));
    let refused = w.refused(&alice(), buy_in("b2", 100), "locked");
    assert!(refused.message.contains("retired"), "{refused}");
    w.ok(&dealer(), Request::OpenBetting { table: "t1".into() });
    w.refused(&alice(), bet("a2", 100), "locked");
    let refused = w.refused(&cashier(), cash_in("c2", "alice", 1_000), "retired");
    assert!(refused.message.contains("no money moves"), "{refused}");
    let refused = w.refused(
        &admin(),
        Request::CreateUser {
            username: "alice".into(),
            role: Role::Player,
            password_hash: "h".into(),
            licence: None,
        },
        "exists",
    );
    assert!(refused.message.contains("never given again"), "{refused}");
    for request in [
        Request::UnlockUser {
            username: "alice".into(),
        },
        Request::LockUser {
            username: "alice".into(),
        },
        Request::SetPassword {
            username: "alice".into(),
            password_hash: "h2".into(),
            must_change: true,
        },
        make("alice", Role::Dealer),
    ] {
        w.refused(&admin(), request, "retired");
    }
    assert_eq!(
        w.casino.recall_player("alice", 10).len(),
        1,
        "her round stays in recall"
    );
    let again = w.replays();
    assert!(
        again.user("alice").expect("alice").retired,
        "the journal keeps the retirement"
    );
}

/// An admin does not retire themselves, nor anyone the last admin who can
/// sign in; a cashier whose drawer holds cash since its last count is
/// retired only once it is counted.
#[test]
fn no_one_retires_themselves_the_last_admin_or_a_drawer_not_counted() {
    let mut w = World::new();
    let refused = w.refused(&admin(), retire_user("admin"), "forbidden");
    assert!(refused.message.contains("yourself"), "{refused}");
    let refused = w.refused(&admin(), make("admin", Role::Dealer), "forbidden");
    assert!(refused.message.contains("yourself"), "{refused}");
    let refused = w.refused(&Actor::system(), retire_user("admin"), "forbidden");
    assert!(refused.message.contains("last admin"), "{refused}");
    w.ok(&cashier(), cash_in("c1", "bob", 2_500));
    w.ok(&cashier(), cash_out("o1", "bob", 2_500));
    w.ok(&cashier(), cash_in("c2", "bob", 1_000));
    let refused = w.refused(&admin(), retire_user("cashier"), "money_held");
    assert!(
        refused.message.contains("drawer holds 10.00") && refused.message.contains("count_drawer"),
        "{refused}"
    );
    // Nor made a dealer, who could count it no more.
    let refused = w.refused(&admin(), make("cashier", Role::Dealer), "money_held");
    assert!(refused.message.contains("drawer holds 10.00"), "{refused}");
    w.ok(
        &cashier(),
        Request::CountDrawer {
            id: "count-1".into(),
            amount: Minor::new(1_000),
        },
    );
    w.ok(&admin(), retire_user("cashier"));
    w.replays();
}

/// A new role: a player holding money is not made staff; once they hold
/// nothing they are, and staff made a player loses their licence and
/// plays under their own number. The same role again writes nothing.
#[test]
fn a_role_changes_only_with_nothing_held() {
    let mut w = World::new();
    w.ok(&cashier(), cash_in("c1", "alice", 1_000));
    let refused = w.refused(&admin(), make("alice", Role::Dealer), "money_held");
    assert!(refused.message.contains("wallet:alice 10.00"), "{refused}");
    w.ok(&cashier(), cash_out("o1", "alice", 1_000));
    w.ok(&admin(), make("alice", Role::Dealer));
    assert_eq!(w.casino.user("alice").expect("alice").role, Role::Dealer);
    // Her old sessions act in a role she no longer has.
    w.refused(&alice(), buy_in("b1", 100), "forbidden");
    let before = w.entries();
    assert_eq!(w.ok(&admin(), make("alice", Role::Dealer)), Vec::new());
    assert_eq!(w.entries(), before, "the same role again writes nothing");
    w.ok(&admin(), make("dealer", Role::Player));
    let was_dealer = w.casino.user("dealer").expect("dealer");
    assert_eq!((was_dealer.role, was_dealer.licence), (Role::Player, None));
    w.ok(&cashier(), cash_in("c2", "dealer", 500));
    w.ok(
        &admin(),
        Request::EditUser {
            username: "bob".into(),
            display_name: Some("Bob Marley".into()),
            role: None,
        },
    );
    assert_eq!(
        w.casino.user("bob").expect("bob").display_name.as_deref(),
        Some("Bob Marley")
    );
    w.refused(
        &admin(),
        Request::EditUser {
            username: "bob".into(),
            display_name: Some(" spaced ".into()),
            role: None,
        },
        "bad_request",
    );
    let again = w.replays();
    assert_eq!(again.user("alice").expect("alice").role, Role::Dealer);
}

/// A table is retired only closed with nothing of anyone's on it: the
/// refusal names the float, which a credit slip returns to the cage first.
/// A retired table takes no request again, a second retirement included;
/// its rounds stay in recall, and the journal keeps it retired.
#[test]
fn a_table_retires_only_closed_and_empty_and_takes_nothing_after() {
    let mut w = World::new();
    let refused = w.refused(&admin(), retire_table(), "money_held");
    assert!(refused.message.contains("close it first"), "{refused}");
    w.ok(&cashier(), cash_in("c1", "alice", 1_000));
    w.ok(&alice(), buy_in("b1", 1_000));
    w.round(&alice(), "a1", 1_000, "18");
    w.close();
    assert_eq!(w.balance("float:t1"), 1_000);
    let refused = w.refused(&admin(), retire_table(), "money_held");
    assert!(
        refused
            .message
            .contains("10.00 (the float holds chips: credit them back"),
        "{refused}"
    );
    w.ok(
        &pit(),
        Request::RequestSlip {
            table: "t1".into(),
            id: "cr-1".into(),
            credit: true,
            amount: Minor::new(1_000),
        },
    );
    let refused = w.refused(&admin(), retire_table(), "money_held");
    assert!(refused.message.contains("open credit slip cr-1"), "{refused}");
    w.ok(
        &cashier(),
        Request::SignSlip {
            table: "t1".into(),
            id: "cr-1".into(),
        },
    );
    w.ok(&admin(), retire_table());
    let refused = w.refused(&admin(), retire_table(), "retired");
    assert!(refused.message.contains("retired already"), "{refused}");
    w.refused(&pit(), inspection("t1"), "retired");
    let refused = w.refused(&dealer(), Request::OpenTable { table: "t1".into() }, "retired");
    assert!(
        refused.message.contains("log, report and recall stay readable"),
        "{refused}"
    );
    w.refused(&alice(), buy_in("b2", 100), "retired");
    w.refused(&alice(), bet("a2", 100), "retired");
    w.refused(&admin(), edit_table(Some("Back"), None), "retired");
    assert_eq!(w.casino.recall_table("t1", 10).len(), 1, "its round stays in recall");
    let again = w.replays();
    assert!(
        again.table("t1").expect("t1").retired,
        "the journal keeps the retirement"
    );
}

/// A table's label and betting window change, the window between rounds
/// only and within its bounds; nothing named, or the same again, writes
/// nothing or is refused with what may change.
#[test]
fn a_table_edit_changes_its_label_and_window_and_nothing_of_its_game() {
    let mut w = World::new();
    let refused = w.refused(&admin(), edit_table(None, None), "bad_request");
    assert!(
        refused.message.contains("make a new table and retire this one"),
        "{refused}"
    );
    w.refused(&admin(), edit_table(None, Some(999)), "bad_request");
    w.refused(&admin(), edit_table(Some("  "), None), "bad_request");
    w.ok(&admin(), edit_table(Some("High limit"), Some(20_000)));
    let t1 = w.casino.table("t1").expect("t1");
    assert_eq!(t1.label.as_deref(), Some("High limit"));
    assert_eq!(t1.table.config().betting_window_ms, 20_000);
    let before = w.entries();
    assert_eq!(w.ok(&admin(), edit_table(Some("High limit"), Some(20_000))), Vec::new());
    assert_eq!(w.entries(), before, "the same again writes nothing");
    w.ok(&dealer(), Request::OpenBetting { table: "t1".into() });
    let refused = w.refused(&admin(), edit_table(None, Some(30_000)), "round_under_way");
    assert!(refused.message.contains("between rounds"), "{refused}");
    // The label may change at any time; an empty one clears it.
    w.ok(&admin(), edit_table(Some(""), None));
    assert_eq!(w.casino.table("t1").expect("t1").label, None);
    let again = w.replays();
    assert_eq!(again.table("t1").expect("t1").table.config().betting_window_ms, 20_000);
}

/// A start from a checkpoint taken after the retirements and edits keeps
/// them, as a replay of the whole journal does, to the same bytes.
#[test]
fn a_checkpoint_keeps_retirements_and_edits() {
    let mut w = World::new();
    w.close();
    w.ok(&admin(), edit_table(Some("High limit"), Some(20_000)));
    w.ok(&admin(), retire_table());
    w.ok(&admin(), lock("bob"));
    w.ok(&admin(), retire_user("bob"));
    w.ok(
        &admin(),
        Request::EditUser {
            username: "alice".into(),
            display_name: Some("Alice A".into()),
            role: Some(Role::Dealer),
        },
    );
    let taken = w.casino.checkpoint().expect("a checkpoint");
    w.ok(
        &Actor::system(),
        Request::Checkpoint {
            through: taken.through,
            digest: taken.digest(),
            bytes: taken.bytes.len() as u64,
        },
    );
    let entries = w.casino.ledger().storage().entries.clone();
    let (opened, _) = Casino::open_from(MemoryStorage::with_entries(entries), w.now + 10, None, Some(taken))
        .expect("opens from the checkpoint");
    let t1 = opened.table("t1").expect("t1");
    assert!(t1.retired);
    assert_eq!(t1.label.as_deref(), Some("High limit"));
    assert_eq!(t1.table.config().betting_window_ms, 20_000);
    assert!(opened.user("bob").expect("bob").retired);
    let alice = opened.user("alice").expect("alice");
    assert_eq!(
        (alice.role, alice.display_name.as_deref()),
        (Role::Dealer, Some("Alice A"))
    );
    let whole = w.replays().checkpoint().expect("a checkpoint");
    assert_eq!(opened.checkpoint().expect("a checkpoint").bytes, whole.bytes);
}

/// A player is retired only once locked: meanwhile nothing is played for
/// them (no chips sold them, no verbal series entered for them) while the
/// tables are asked what they hold, so no stake lands on a layout between
/// that question and the retirement.
#[test]
fn a_player_is_retired_only_once_locked_and_nothing_is_played_for_them_meanwhile() {
    let mut w = World::new();
    let refused = w.refused(&admin(), retire_user("bob"), "not_locked");
    assert!(refused.message.contains("lock bob first"), "{refused}");
    w.ok(&admin(), lock("bob"));
    let sale = Request::SellChips {
        id: "s1".into(),
        table: "t1".into(),
        player: "bob".into(),
        amount: Minor::new(1_000),
        chip_value: Minor::new(100),
    };
    let refused = w.refused(&dealer(), sale, "locked");
    assert!(refused.message.contains("bob"), "{refused}");
    w.ok(&admin(), retire_user("bob"));
    assert!(w.casino.user("bob").expect("bob").retired);
}

/// Nothing is played for a locked player: no coupon is issued them.
#[test]
fn a_locked_player_gets_no_coupon() {
    let mut w = World::new();
    w.ok(&admin(), lock("bob"));
    let coupon = Request::IssueCoupon {
        id: "mp-9".into(),
        player: "bob".into(),
        table: "t1".into(),
        value: Minor::new(500),
        expires_at_ms: None,
    };
    let refused = w.refused(&cashier(), coupon, "locked");
    assert!(refused.message.contains("bob"), "{refused}");
}
