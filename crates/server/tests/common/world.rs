//! The casino most of the casino's tests play in: a Maryland dealer's
//! table t1 and one user of every role, set up as a first run would, with
//! what those tests do there again and again.

use croupier_core::Minor;
use croupier_ledger::{MemoryStorage, Storage};
use croupier_server::api::{ApiError, EventView, Role};
use croupier_server::casino::journal::FORMAT_WITNESS_CONFIRMS;
use croupier_server::casino::{Actor, Casino, Request, JOURNAL_FORMAT};

use super::actors::{actor, admin};
use super::requests::inspection;
use super::table_requests::{ball, bet, buy_in_at, maryland_dealer_table};

thread_local! {
    static DISPUTES: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
}

/// A new dispute's id (journal format 14): one a call, in the order of the test's own thread.
pub fn dispute_id() -> String {
    DISPUTES.with(|n| {
        n.set(n.get() + 1);
        format!("dispute-{}", n.get())
    })
}

/// A test casino and its clock in ms, which each request moves on.
pub struct World<S: Storage> {
    pub casino: Casino<S>,
    pub now: u64,
}

impl<S: Storage> World<S> {
    /// Runs `request`; a table it makes posts its limits at once.
    pub fn run(&mut self, who: &Actor, request: Request) -> Result<Vec<EventView>, ApiError> {
        super::run_posting_limits(&mut self.casino, &mut self.now, who, request)
    }

    pub fn ok(&mut self, who: &Actor, request: Request) -> Vec<EventView> {
        let shown = format!("{request:?}");
        self.run(who, request).unwrap_or_else(|e| panic!("{shown}: {e}"))
    }

    pub fn chips(&self, player: &str) -> i128 {
        self.casino.balance(&format!("chips:t1:{player}"))
    }
}

pub fn setup<S: Storage>(storage: S) -> World<S> {
    setup_in_format(storage, JOURNAL_FORMAT)
}

/// [`setup`] on a casino that writes journal `format`.
pub fn setup_in_format<S: Storage>(storage: S, format: u32) -> World<S> {
    setup_with_table(storage, format, maryland_dealer_table("t1"))
}

/// [`setup_in_format`] with `t1` made by `table`.
pub fn setup_with_table<S: Storage>(storage: S, format: u32, table: Request) -> World<S> {
    let (casino, _) = Casino::open_in_format(storage, 0, format).expect("open");
    let mut w = World { casino, now: 0 };
    // The first admin, as a first run makes one: every actor is a user.
    w.ok(
        &Actor::system(),
        Request::CreateUser {
            username: "admin".into(),
            role: Role::Admin,
            password_hash: "test-hash".into(),
            licence: None,
        },
    );
    for (name, role) in [
        ("cashier", Role::Cashier),
        ("dealer", Role::Dealer),
        ("pit", Role::PitSupervisor),
        ("audit", Role::Auditor),
        ("floor", Role::Floorperson),
        ("floorman", Role::FloorManager),
        ("manager", Role::CasinoManager),
        ("alice", Role::Player),
        ("bob", Role::Player),
        // The security department member (journal format 16).
        ("guard", Role::Security),
    ] {
        if role == Role::Security && format < FORMAT_WITNESS_CONFIRMS {
            continue;
        }
        w.ok(
            &admin(),
            Request::CreateUser {
                username: name.into(),
                role,
                password_hash: "test-hash".into(),
                licence: super::licence_of(name, role),
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
    w.ok(&admin(), table);
    w
}

pub fn inspect_and_open<S: Storage>(w: &mut World<S>) {
    let pit = actor("pit", Role::PitSupervisor);
    w.ok(&pit, inspection("t1"));
    w.ok(
        &actor("dealer", Role::Dealer),
        Request::OpenTable { table: "t1".into() },
    );
}

pub fn fund<S: Storage>(w: &mut World<S>, player: &str, amount: u64, bought: u64) {
    let cashier = actor("cashier", Role::Cashier);
    w.ok(
        &cashier,
        Request::CashIn {
            id: format!("ci-{player}-{}", w.now),
            player: player.into(),
            amount: Minor::new(amount),
        },
    );
    w.ok(
        &actor(player, Role::Player),
        buy_in_at(format!("bi-{player}-{}", w.now), "t1", bought),
    );
}

/// One round at t1, bets `a{n}` (alice, 17, 500), `a{n}x` (alice, red,
/// 1,000) and `b{n}` (bob, black, 1,000), on 17: the transfers of its settlement.
pub fn round_on_17(w: &mut World<MemoryStorage>, n: u32) -> Vec<(String, String, String, u64)> {
    let dealer = actor("dealer", Role::Dealer);
    w.ok(&dealer, Request::OpenBetting { table: "t1".into() });
    w.ok(&actor("alice", Role::Player), bet("t1", &format!("a{n}"), "17", 500));
    w.ok(
        &actor("alice", Role::Player),
        bet("t1", &format!("a{n}x"), "red", 1_000),
    );
    w.ok(&actor("bob", Role::Player), bet("t1", &format!("b{n}"), "black", 1_000));
    w.ok(&dealer, Request::NoMoreBets { table: "t1".into() });
    w.ok(
        &dealer,
        Request::Spin {
            bonus_words: Vec::new(),
            table: "t1".into(),
            spin: ball("17"),
        },
    );
    let entry = w
        .casino
        .ledger()
        .storage()
        .entries
        .last()
        .expect("the settlement")
        .clone();
    entry
        .record
        .transfers()
        .iter()
        .map(|t| (t.id.clone(), t.from.to_string(), t.to.to_string(), t.amount.get()))
        .collect()
}

pub fn moves(list: &[(&str, &str, &str, u64)]) -> Vec<(String, String, String, u64)> {
    list.iter()
        .map(|&(id, from, to, amount)| (id.to_string(), from.to_string(), to.to_string(), amount))
        .collect()
}

pub fn refused_as(w: &mut World<MemoryStorage>, who: &Actor, request: Request, code: &str) {
    let before = w.casino.ledger().storage().entries.len();
    let shown = format!("{request:?}");
    let refused = w.run(who, request).expect_err(&shown);
    assert_eq!(refused.code, code, "{shown}: {refused}");
    assert_eq!(
        w.casino.ledger().storage().entries.len(),
        before,
        "{shown} wrote nothing"
    );
}

pub fn settles(events: &[EventView]) -> bool {
    events.iter().any(|e| matches!(e, EventView::RoundSettled { .. }))
}
