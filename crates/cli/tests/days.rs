//! The casino's gaming day through the binary: a Colorado casino in Denver
//! whose day starts at 06:00 local, across the change to daylight saving
//! time on 8 March 2026, its server's clock set by libfaketime.

use croupier_testkit::{data_dir, free_port, Server};
use serde_json::json;

const BINARY: &str = env!("CARGO_BIN_EXE_croupier");

fn login(server: &Server, name: &str) -> String {
    server.login(name, &format!("{name}-password-1"))
}

// Issue: every daily limit, the books and the dates count the casino's own
// gaming day. 7 March 2026 in Denver runs from 06:00 MST (13:00 UTC) to
// 06:00 MDT on 8 March (12:00 UTC): 23 hours, across UTC midnight and the
// change of the clocks. A cashier's day for a player ends with it, not at
// UTC midnight, and the table's books are kept by it.
#[test]
fn a_denver_gaming_day_from_six_holds_the_cashiers_limit_across_utc_midnight_and_the_clock_change() {
    let data = data_dir();
    // 16:00 MST on 7 March.
    let server = Server::start_at(BINARY, data.path(), free_port(), &[], "2026-03-07 23:00:00");
    let [admin, cashier, dealer, pit, _, p2] = server.staff_and_players();
    for (zone, at, why) in [
        ("America/Denverr", "06:00", "America/Denverr"),
        ("America/Denver", "6:00", "HH:MM"),
    ] {
        let (status, code, message) = server.refused(
            &admin,
            json!({"op": "set_gaming_day", "time_zone": zone, "starts_at": at}),
        );
        assert_eq!((status, code.as_str()), (400, "bad_request"), "{message}");
        assert!(message.contains(why), "{message}");
    }
    let (status, code, _) = server.refused(
        &pit,
        json!({"op": "set_gaming_day", "time_zone": "America/Denver", "starts_at": "06:00"}),
    );
    assert_eq!((status, code.as_str()), (403, "forbidden"));
    server.ask(
        &admin,
        json!({"op": "set_gaming_day", "time_zone": "America/Denver", "starts_at": "06:00"}),
    );
    let again = server.ask(
        &admin,
        json!({"op": "set_gaming_day", "time_zone": "America/Denver", "starts_at": "06:00"}),
    );
    assert_eq!(
        again["done_before"],
        json!(true),
        "the same day again writes nothing: {again}"
    );
    server.ask(
        &cashier,
        json!({"op": "cash_in", "id": "c1", "player": "p1", "amount": 1_000_000}),
    );
    server.inspect_and_open(&pit, &dealer, "t2");
    server.ask(
        &cashier,
        json!({"op": "cash_in", "id": "c2", "player": "p2", "amount": 50_000}),
    );
    server.ask(
        &p2,
        json!({"op": "buy_in", "id": "b1", "table": "t2", "amount": 20_000, "chip_value": 100}),
    );
    drop(server);

    // 04:30 MDT on 8 March (10:30 UTC): a new UTC day, past the clock change, the same gaming day.
    let server = Server::start_at(BINARY, data.path(), free_port(), &[], "2026-03-08 10:30:00");
    let (cashier, pit) = (login(&server, "cashier"), login(&server, "pit"));
    let (status, code, message) = server.refused(
        &cashier,
        json!({"op": "cash_in", "id": "c3", "player": "p1", "amount": 1}),
    );
    assert_eq!((status, code.as_str()), (403, "over_role_limit"), "{message}");
    let (_, report) = server.http("GET", "/api/tables/t2/report", Some(&pit), None);
    assert_eq!(report["books"]["day"], "2026-03-07", "{report}");
    assert_eq!(report["books"]["drop_wallet"], 20_000, "{report}");
    drop(server);

    // 06:30 MDT on 8 March (12:30 UTC): the next gaming day.
    let server = Server::start_at(BINARY, data.path(), free_port(), &[], "2026-03-08 12:30:00");
    let (cashier, pit, p2) = (login(&server, "cashier"), login(&server, "pit"), login(&server, "p2"));
    server.ask(
        &cashier,
        json!({"op": "cash_in", "id": "c4", "player": "p1", "amount": 1}),
    );
    server.ask(
        &p2,
        json!({"op": "buy_in", "id": "b2", "table": "t2", "amount": 10_000, "chip_value": 100}),
    );
    let (_, report) = server.http("GET", "/api/tables/t2/report", Some(&pit), None);
    assert_eq!(report["books"]["day"], "2026-03-08", "{report}");
    assert_eq!(report["books"]["drop_wallet"], 10_000, "{report}");
    assert_eq!(report["book_days"], json!(["2026-03-07", "2026-03-08"]), "{report}");
    let (_, before) = server.http("GET", "/api/tables/t2/report?day=2026-03-07", Some(&pit), None);
    assert_eq!(before["books"]["drop_wallet"], 20_000, "{before}");
    drop(server);
    let (passed, report) = croupier_testkit::verify(BINARY, data.path(), &[]);
    assert!(passed, "{report}");
}
