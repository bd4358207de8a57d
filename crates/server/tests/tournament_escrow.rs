//! A tournament's escrow in the ledger (Colorado-2013 2213(1)): funded by
//! an admin before the start, the prizes paid from it, and brought to zero
//! by the conclusion, as `croupier verify` reconciles it.

use croupier_ledger::MemoryStorage;
use croupier_server::api::{PaidWith, Role, TournamentOrder};
use croupier_server::casino::tournaments::{TournamentAnswer, TournamentRead};
use croupier_server::casino::{Actor, Casino, Request, JOURNAL_FORMAT};

const DAY_MS: u64 = 86_400_000;

fn actor(name: &str, role: Role) -> Actor {
    Actor::new(name, role, "L-77")
}

/// The shipped 2013 example, its days moved to the first weeks of 1970,
/// where the test's clock runs: still past 31 days, so its prizes are escrowed.
fn autumn() -> String {
    include_str!("../../../profiles/tournaments/autumn-2013.toml")
        .replace("2026-09-05", "1970-01-05")
        .replace("2026-11-28", "1970-03-28")
}

fn order(tournament: &str, order: TournamentOrder) -> Request {
    Request::Tournament {
        tournament: tournament.into(),
        order,
    }
}

#[test]
fn the_escrow_holds_the_prizes_before_the_start_pays_them_and_ends_empty() {
    // Colorado-2013 2213(1), 2213(2)(b)
    let (mut casino, _) = Casino::open_in_format(MemoryStorage::default(), 0, JOURNAL_FORMAT).expect("open");
    let (admin, pit) = (actor("admin", Role::Admin), actor("pit", Role::PitSupervisor));
    let mut run = |at_ms: u64, who: &Actor, request: Request| casino.execute(at_ms, who, request).map(|_| ());
    run(
        1,
        &Actor::system(),
        Request::CreateUser {
            username: "admin".into(),
            role: Role::Admin,
            password_hash: "h".into(),
            licence: None,
        },
    )
    .expect("admin");
    for (name, role) in [
        ("pit", Role::PitSupervisor),
        ("ann", Role::Player),
        ("bob", Role::Player),
    ] {
        run(
            2,
            &admin,
            Request::CreateUser {
                username: name.into(),
                role,
                password_hash: "h".into(),
                licence: None,
            },
        )
        .expect("user");
    }
    run(3, &admin, Request::CreateTournament { config: autumn() }).expect("created");
    let t = "autumn-2013";
    for (i, player) in ["ann", "bob"].into_iter().enumerate() {
        let register = TournamentOrder::Register {
            player: player.into(),
            event: "September".into(),
            fee: PaidWith::Cash,
            buy_in: PaidWith::Cash,
            qualified: false,
            id: Some(format!("r{i}")),
        };
        run(DAY_MS, &pit, order(t, register)).expect("registered");
    }
    let start = |event: &str| order(t, TournamentOrder::Start { event: event.into() });
    let refused = run(4 * DAY_MS + 1, &pit, start("September")).expect_err("no escrow yet");
    assert!(refused.to_string().contains("2213(1)"), "{refused}");
    let director = run(4 * DAY_MS + 2, &pit, order(t, TournamentOrder::FundEscrow)).expect_err("the house's money");
    assert!(director.to_string().contains("admin"), "{director}");
    run(4 * DAY_MS + 3, &admin, order(t, TournamentOrder::FundEscrow)).expect("funded");
    let books = |casino: &Casino<MemoryStorage>| casino.tournament_books().into_iter().next().expect("books");
    // The director reads the escrow beside the prizes' value it must hold;
    // a player reads no books. The 2013 text asks for no filing of the rules.
    let view = |casino: &Casino<MemoryStorage>, who: &Actor| {
        let read = TournamentRead::One {
            id: t.into(),
            role: who.role,
            username: who.username.clone(),
        };
        match casino.read_tournament(read).expect("read") {
            TournamentAnswer::One(view) => serde_json::to_value(*view).expect("JSON"),
            other => panic!("{other:?}"),
        }
    };
    let seen = view(&casino, &pit);
    assert_eq!(
        (&seen["escrow"], &seen["escrow_account"], &seen["escrow_funded"]),
        (&300_000.into(), &300_000.into(), &true.into())
    );
    assert_eq!(
        (&seen["escrow_required"], &seen["rules_filed_days_before"]),
        (&true.into(), &serde_json::Value::Null)
    );
    let ann = view(&casino, &actor("ann", Role::Player));
    assert!(ann.get("escrow").is_none() && ann.get("pool").is_none(), "{ann}");
    let mut run = |at_ms: u64, who: &Actor, request: Request| casino.execute(at_ms, who, request).map(|_| ());
    run(4 * DAY_MS + 4, &pit, start("September")).expect("started");
    run(
        4 * DAY_MS + 5,
        &pit,
        order(
            t,
            TournamentOrder::End {
                event: "September".into(),
                points: vec![(1, 2_000), (2, 10)],
            },
        ),
    )
    .expect("ended");
    let mid = books(&casino);
    assert_eq!((mid.escrow, mid.escrow_account, mid.problem), (200_000, 200_000, None));
    let mut run = |at_ms: u64, who: &Actor, request: Request| casino.execute(at_ms, who, request).map(|_| ());
    let register = TournamentOrder::Register {
        player: "ann".into(),
        event: "November".into(),
        fee: PaidWith::Cash,
        buy_in: PaidWith::Cash,
        qualified: false,
        id: Some("r3".into()),
    };
    run(80 * DAY_MS, &pit, order(t, register)).expect("registered");
    run(86 * DAY_MS, &pit, start("November")).expect("started");
    run(
        86 * DAY_MS + 1,
        &pit,
        order(
            t,
            TournamentOrder::End {
                event: "November".into(),
                points: vec![(3, 900)],
            },
        ),
    )
    .expect("ended");
    run(86 * DAY_MS + 2, &pit, order(t, TournamentOrder::Conclude)).expect("concluded");
    let end = books(&casino);
    assert!(end.concluded);
    assert_eq!((end.escrow, end.escrow_account, end.problem), (0, 0, None));
    assert_eq!(
        casino.balance("wallet:ann"),
        250_000,
        "both first prizes, paid from the escrow"
    );
}

/// A player entered in a tournament still running holds money there (its
/// fee and buy-in, Colorado-2013 2213(2)(b)): they are neither retired nor
/// made staff until the entry is played out or withdrawn; and a locked
/// player is not entered, nothing being played for them.
#[test]
fn a_live_tournament_entry_holds_its_players_retirement() {
    let (mut casino, _) = Casino::open_in_format(MemoryStorage::default(), 0, JOURNAL_FORMAT).expect("open");
    let admin = actor("admin", Role::Admin);
    let pit = actor("pit", Role::PitSupervisor);
    let mut run = |at_ms: u64, who: &Actor, request: Request| casino.execute(at_ms, who, request).map(|_| ());
    let user = |name: &str, role| Request::CreateUser {
        username: name.into(),
        role,
        password_hash: "h".into(),
        licence: None,
    };
    run(1, &Actor::system(), user("admin", Role::Admin)).expect("admin");
    run(2, &admin, user("pit", Role::PitSupervisor)).expect("pit");
    run(2, &admin, user("ann", Role::Player)).expect("ann");
    run(2, &admin, user("bob", Role::Player)).expect("bob");
    run(3, &admin, Request::CreateTournament { config: autumn() }).expect("created");
    let register = |player: &str, id: &str| {
        order(
            "autumn-2013",
            TournamentOrder::Register {
                player: player.into(),
                event: "September".into(),
                fee: PaidWith::Cash,
                buy_in: PaidWith::Cash,
                qualified: false,
                id: Some(id.into()),
            },
        )
    };
    run(DAY_MS, &pit, register("ann", "r1")).expect("registered");
    run(DAY_MS + 1, &admin, Request::LockUser { username: "bob".into() }).expect("locked");
    let refused = run(DAY_MS + 2, &pit, register("bob", "r2")).expect_err("locked");
    assert!(refused.to_string().contains("locked"), "{refused}");
    run(DAY_MS + 3, &admin, Request::LockUser { username: "ann".into() }).expect("locked");
    let refused = run(DAY_MS + 4, &admin, Request::RetireUser { username: "ann".into() }).expect_err("entered");
    assert!(
        refused.to_string().contains("entry 1 of tournament autumn-2013"),
        "{refused}"
    );
    let edit = Request::EditUser {
        username: "ann".into(),
        display_name: None,
        role: Some(Role::Dealer),
    };
    let refused = run(DAY_MS + 5, &admin, edit).expect_err("entered");
    assert!(refused.to_string().contains("entry 1"), "{refused}");
    // Withdrawn before its event, its fee and buy-in go back: she holds nothing there.
    run(
        DAY_MS + 6,
        &pit,
        order("autumn-2013", TournamentOrder::Withdraw { entry: 1 }),
    )
    .expect("withdrawn");
    run(DAY_MS + 7, &admin, Request::RetireUser { username: "ann".into() }).expect("retired");
}
