//! The croupier command, run as a test lab runs it.

use std::io::Write;
use std::process::{Command, Output, Stdio};

fn croupier(args: &[&str], stdin: &str) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_croupier"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("croupier runs");
    // A command refused on its arguments exits before reading its input; the
    // write may then meet a closed pipe, which is not a failure of the test.
    let mut input = child.stdin.take().expect("stdin");
    if let Err(e) = input.write_all(stdin.as_bytes()) {
        assert_eq!(e.kind(), std::io::ErrorKind::BrokenPipe, "write stdin: {e}");
    }
    drop(input);
    child.wait_with_output().expect("croupier finishes")
}

fn json_lines(out: &Output) -> Vec<serde_json::Value> {
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).expect("each line is JSON"))
        .collect()
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

#[test]
fn settle_writes_one_line_per_bet_in_input_order() {
    let input = r#"{"id":"b1","spot":"17-18","stake":500}
{"id":"b2","spot":"red","stake":500}

{"id":"b3","spot":"complete:17","stake":4000}
{"id":"b4","spot":"neighbours:17","stake":500}
{"id":"b5","spot":"21-17-20-18","stake":100}
"#;
    let out = croupier(
        &[
            "settle",
            "--profile",
            "maryland",
            "--wheel",
            "single-zero",
            "--pockets",
            "17",
        ],
        input,
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let lines = json_lines(&out);
    let ids: Vec<&str> = lines.iter().map(|l| l["id"].as_str().expect("id")).collect();
    assert_eq!(ids, ["b1", "b2", "b3", "b4", "b5"]);
    // Maryland ch.4 A(2): split 17 to 1.
    assert_eq!(lines[0]["kind"], "split");
    assert_eq!(lines[0]["spot"], "17-18");
    assert_eq!(lines[0]["staked"], 500);
    assert_eq!(lines[0]["returned"], 9000);
    assert_eq!(lines[0]["net"], 8500);
    assert_eq!(lines[0]["result"], "win");
    // 17 is black.
    assert_eq!(lines[1]["result"], "lose");
    assert_eq!(lines[1]["returned"], 0);
    assert_eq!(lines[1]["net"], -500);
    assert_eq!(lines[2]["kind"], "complete");
    assert_eq!(lines[2]["returned"], 43200);
    assert_eq!(lines[3]["kind"], "neighbours");
    assert_eq!(lines[3]["returned"], 3600);
    assert_eq!(lines[4]["kind"], "corner");
    assert_eq!(lines[4]["returned"], 900);
}

#[test]
fn settle_in_prison_over_consecutive_spins() {
    // Colorado 2204(2).
    let input = r#"{"id":"p1","spot":"red","stake":500,"zero_choice":"prison"}
{"id":"p2","spot":"red","stake":501,"zero_choice":"half"}
{"id":"p3","spot":"black","stake":500}
{"id":"p4","spot":"17","stake":100}
"#;
    let args = [
        "settle",
        "--profile",
        "colorado-2013",
        "--wheel",
        "single-zero",
        "--in-prison",
        "--pockets",
        "0,1",
    ];
    let out = croupier(&args, input);
    assert!(out.status.success(), "{}", stderr(&out));
    let lines = json_lines(&out);
    assert_eq!(lines[0]["result"], "released");
    assert_eq!(lines[0]["returned"], 500);
    assert_eq!(lines[0]["net"], 0);
    assert_eq!(lines[1]["result"], "half");
    // Half of 5.01 goes back whole: the odd cent is the player's (the profile's half_rounding = "up").
    assert_eq!(lines[1]["returned"], 251);
    assert_eq!(lines[2]["result"], "lose");
    assert_eq!(lines[3]["result"], "lose");
    assert_eq!(lines[3]["spin"], 1);
    // Still imprisoned after the last pocket.
    let out = croupier(
        &["settle", "--profile", "colorado-2013", "--in-prison", "--pockets", "0"],
        r#"{"id":"p","spot":"odd","stake":500}"#,
    );
    let lines = json_lines(&out);
    assert_eq!(lines[0]["result"], "prison");
    assert_eq!(lines[0]["held"], 500);
}

#[test]
fn settle_skips_void_spins_on_a_covered_double_zero() {
    // Colorado 2210(2)(c)(ii)(B): 00 voids the spin and the wheel is spun again.
    let input = "{\"id\":\"v\",\"spot\":\"red\",\"stake\":100}\n{\"id\":\"w\",\"spot\":\"17\",\"stake\":100}\n";
    let args = [
        "settle",
        "--profile",
        "colorado-2014",
        "--wheel",
        "double-zero-as-single-zero",
        "--pockets",
        "00",
    ];
    let lines = json_lines(&croupier(&args, input));
    assert_eq!(lines[0]["result"], "void");
    assert_eq!(lines[0]["returned"], 100);
    let args = [
        "settle",
        "--profile",
        "colorado-2014",
        "--wheel",
        "double-zero-as-single-zero",
        "--pockets",
        "00,17",
    ];
    let lines = json_lines(&croupier(&args, input));
    assert_eq!(lines[1]["result"], "win");
    assert_eq!(lines[1]["spin"], 2);
}

#[test]
fn invalid_input_gives_exit_2_and_no_results() {
    let input = r#"{"id":"ok","spot":"17","stake":100}
{"id":"b1","spot":"1-36","stake":500}
{"id":"b2","spot":"red","stake":0}
not json
{"id":"b4","spot":"red","stake":99999999999999}
{"id":"b5","spot":"green","stake":100}
{"id":"ok","spot":"18","stake":100}
{"id":"b7","spot":"red","stake":100,"zero_choice":"half"}
{"id":"b8","spot":"red","stake":100,"extra":1}
"#;
    let out = croupier(&["settle", "--profile", "maryland", "--pockets", "17"], input);
    assert_eq!(out.status.code(), Some(2));
    assert!(out.stdout.is_empty(), "no results at all on bad input");
    let err = stderr(&out);
    let lines: Vec<&str> = err.lines().collect();
    assert_eq!(lines.len(), 8, "{err}");
    for (line, needle) in [
        ("line 2 (id \"b1\")", "1-36"),
        ("line 3 (id \"b2\")", "positive"),
        ("line 4:", "JSON"),
        ("line 5 (id \"b4\")", "larger"),
        ("line 6 (id \"b5\")", "triple-zero"),
        ("line 7 (id \"ok\")", "earlier bet"),
        ("line 8 (id \"b7\")", "In Prison"),
        ("line 9 (id \"b8\")", "extra"),
    ] {
        assert!(
            err.lines().any(|l| l.contains(line) && l.contains(needle)),
            "{line} {needle}: {err}"
        );
    }
}

#[test]
fn refusals_for_the_table() {
    let run = |args: &[&str], input: &str| {
        let out = croupier(args, input);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(out.stdout.is_empty());
        stderr(&out)
    };
    let bet = r#"{"id":"x","spot":"red","stake":500}"#;
    assert!(run(&["settle", "--profile", "nevada", "--pockets", "1"], bet).contains("maryland"));
    assert!(run(&["settle", "--profile", "maryland", "--pockets", "37"], bet).contains("37"));
    assert!(run(
        &[
            "settle",
            "--profile",
            "maryland",
            "--wheel",
            "single-zero",
            "--pockets",
            "00"
        ],
        bet
    )
    .contains("00"));
    assert!(run(
        &["settle", "--profile", "maryland", "--in-prison", "--pockets", "1"],
        bet
    )
    .contains("In Prison"));
    assert!(run(
        &[
            "settle",
            "--profile",
            "european-casino",
            "--wheel",
            "double-zero",
            "--pockets",
            "1"
        ],
        bet
    )
    .contains("double-zero"));
    // A wager the profile does not offer: Colorado 2203(6) names no five-adjacent bet.
    let err = run(
        &["settle", "--profile", "colorado-2014", "--pockets", "1"],
        r#"{"id":"n","spot":"neighbours:17","stake":500}"#,
    );
    assert!(err.contains("does not offer neighbours"), "{err}");
    // low-limit-house wager amounts: $1 - $10 per straight.
    let err = run(
        &["settle", "--profile", "low-limit-house", "--pockets", "1"],
        r#"{"id":"s","spot":"17","stake":1100}"#,
    );
    assert!(
        err.contains("11.00 on a straight is over the table maximum 10.00"),
        "{err}"
    );
    let err = run(
        &["settle", "--profile", "low-limit-house", "--pockets", "1"],
        r#"{"id":"s","spot":"red","stake":100}"#,
    );
    assert!(err.contains("1.00 on a red is under the table minimum 5.00"), "{err}");
    // Colorado 2203(1): match play on even money and 2 to 1 wagers only.
    let err = run(
        &["settle", "--profile", "colorado-2014", "--pockets", "1"],
        r#"{"id":"c","spot":"17","stake":500,"coupon":500}"#,
    );
    assert!(err.contains("match play"), "{err}");
}

#[test]
fn math_json_has_exact_house_edges() {
    let out = croupier(&["math", "--profile", "european-casino", "--format", "json"], "");
    assert!(out.status.success(), "{}", stderr(&out));
    let rows: Vec<serde_json::Value> = serde_json::from_slice(&out.stdout).expect("JSON list");
    let kinds: Vec<&str> = rows.iter().map(|r| r["kind"].as_str().expect("kind")).collect();
    assert_eq!(
        kinds,
        [
            "straight",
            "split",
            "street",
            "trio",
            "corner",
            "first_four",
            "six_line",
            "column",
            "dozen",
            "red",
            "black",
            "odd",
            "even",
            "low",
            "high"
        ]
    );
    for row in &rows {
        assert_eq!(row["house_edge"], "1/37", "{row}");
        let percent = row["house_edge_percent"].as_f64().expect("percent");
        assert!((percent - 100.0 / 37.0).abs() < 1e-9);
        for field in ["pockets", "payout", "hit_frequency", "variance", "std_dev"] {
            assert!(!row[field].is_null(), "{field}");
        }
    }
    let out = croupier(
        &[
            "math",
            "--profile",
            "maryland",
            "--wheel",
            "double-zero",
            "--format",
            "json",
        ],
        "",
    );
    let rows: Vec<serde_json::Value> = serde_json::from_slice(&out.stdout).expect("JSON list");
    let first_five = rows.iter().find(|r| r["kind"] == "first_five").expect("first five");
    assert_eq!(first_five["house_edge"], "3/38");
    // Colorado 2204(2) In Prison on a single-zero wheel: 19/1369, or 1/74 taking half.
    let out = croupier(
        &[
            "math",
            "--profile",
            "colorado-2013",
            "--wheel",
            "single-zero",
            "--in-prison",
            "--format",
            "json",
        ],
        "",
    );
    let rows: Vec<serde_json::Value> = serde_json::from_slice(&out.stdout).expect("JSON list");
    assert_eq!(
        rows.iter().find(|r| r["kind"] == "red").expect("red")["house_edge"],
        "19/1369"
    );
    let args = [
        "math",
        "--profile",
        "colorado-2013",
        "--wheel",
        "single-zero",
        "--in-prison",
        "--zero-choice",
        "half",
        "--spot",
        "red",
        "--format",
        "json",
    ];
    let rows: Vec<serde_json::Value> = serde_json::from_slice(&croupier(&args, "").stdout).expect("JSON list");
    assert_eq!(rows[0]["house_edge"], "1/74");
}

#[test]
fn math_text_is_a_table() {
    let out = croupier(&["math", "--profile", "maryland", "--wheel", "triple-zero"], "");
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("house edge"));
    assert!(
        text.lines().any(|l| l.starts_with("green") && l.contains("1/13")),
        "{text}"
    );
}

#[test]
fn profiles_and_posted_rules() {
    let out = croupier(&["profiles"], "");
    let text = String::from_utf8_lossy(&out.stdout);
    for name in [
        "colorado-2013",
        "colorado-2014",
        "maryland",
        "european-casino",
        "low-limit-house",
    ] {
        assert!(text.contains(name), "{name}");
    }
    // Colorado 2210(2)(c)(ii): the signage for a double-zero wheel used as single zero.
    let out = croupier(&["rules", "--profile", "colorado-2014"], "");
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("being used as a single zero wheel"));
    assert!(text.contains("spin is void and the wheel is spun again"));
    assert!(text.contains("First five: 0, 00, 1, 2, 3") && text.contains("6 to 1"));
    assert!(text.contains("In Prison"));
    // Colorado 2207: any restriction on tip wagers for the dealers is posted.
    for profile in ["colorado-2013", "colorado-2014"] {
        let text = String::from_utf8_lossy(&croupier(&["rules", "--profile", profile], "").stdout).into_owned();
        assert!(
            text.contains("no wager is placed for a dealer (2207)"),
            "{profile}: {text}"
        );
    }
    // low-limit-house: the per-wager limits are posted.
    let text = String::from_utf8_lossy(&croupier(&["rules", "--profile", "low-limit-house"], "").stdout).into_owned();
    assert!(
        text.contains("USD 1.00 - USD 10.00") && text.contains("USD 5.00 - USD 10.00"),
        "{text}"
    );
}

#[test]
fn bench_reports_bets_per_second() {
    let args = [
        "bench",
        "settle",
        "--bets",
        "20000",
        "--players",
        "50",
        "--seconds",
        "0.2",
        "--format",
        "json",
    ];
    let out = croupier(&args, "");
    assert!(out.status.success(), "{}", stderr(&out));
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    assert_eq!(report["bets"], 20000);
    assert!(report["bets_per_second"].as_f64().expect("number") > 0.0);
    let out = croupier(&["bench", "settle", "--bets", "0", "--players", "1"], "");
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn a_profile_file_can_be_given_by_path() {
    let dir = croupier_testkit::data_dir();
    let path = dir.path().join("house.toml");
    let text = include_str!("../../../profiles/european-casino.toml")
        .replace("name = \"european-casino\"", "name = \"our-house\"");
    std::fs::write(&path, text).expect("write profile");
    let path_text = path.to_str().expect("utf-8 path");
    let out = croupier(
        &["settle", "--profile", path_text, "--pockets", "3"],
        r#"{"id":"f","spot":"0-1-2-3","stake":100}"#,
    );
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(json_lines(&out)[0]["returned"], 900);
    // A broken file is refused with the field named.
    std::fs::write(
        &path,
        include_str!("../../../profiles/european-casino.toml").replace("split = 17", "split = 15"),
    )
    .expect("write");
    let out = croupier(&["settle", "--profile", path_text, "--pockets", "3"], "");
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("paytable.split"), "{}", stderr(&out));
}

#[test]
fn rng_pockets_and_raw_output() {
    // A fixed seed reproduces; labels are pockets of the wheel.
    let seed = "ab".repeat(32);
    let args = [
        "rng",
        "pockets",
        "--wheel",
        "triple-zero",
        "--count",
        "2000",
        "--seed",
        &seed,
    ];
    let a = croupier(&args, "");
    let b = croupier(&args, "");
    assert!(a.status.success(), "{}", stderr(&a));
    assert_eq!(a.stdout, b.stdout);
    let text = String::from_utf8_lossy(&a.stdout);
    let labels: std::collections::BTreeSet<&str> = text.lines().collect();
    assert_eq!(text.lines().count(), 2000);
    assert_eq!(labels.len(), 39, "all 39 pockets appear in 2000 draws");
    assert!(labels.contains("000"));
    // From the operating system: two runs differ.
    let os1 = croupier(&["rng", "pockets", "--wheel", "single-zero", "--count", "64"], "");
    let os2 = croupier(&["rng", "pockets", "--wheel", "single-zero", "--count", "64"], "");
    assert_ne!(os1.stdout, os2.stdout);
    let raw = croupier(&["rng", "raw", "--bytes", "100000"], "");
    assert_eq!(raw.stdout.len(), 100_000);
    let bad = croupier(&["rng", "pockets", "--wheel", "quad-zero", "--count", "1"], "");
    assert_eq!(bad.status.code(), Some(2));
}

#[test]
fn rng_battery_passes_on_the_generator() {
    let out = croupier(
        &[
            "rng",
            "test",
            "--wheel",
            "double-zero",
            "--samples",
            "500000",
            "--seed",
            &"11".repeat(32),
            "--format",
            "json",
        ],
        "",
    );
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stdout));
    let rows: Vec<serde_json::Value> = serde_json::from_slice(&out.stdout).expect("JSON");
    let names: Vec<&str> = rows.iter().map(|r| r["test"].as_str().expect("test")).collect();
    assert_eq!(names.len(), 5);
    assert!(names.iter().any(|n| n.contains("pairs")) && names.iter().any(|n| n.contains("gap")));
    for r in &rows {
        assert_eq!(r["pass"], true, "{r}");
    }
}

#[test]
fn provably_fair_round_trip() {
    let out = croupier(
        &[
            "rng",
            "fair",
            "--wheel",
            "single-zero",
            "--client-seed",
            "player-7",
            "--count",
            "5",
        ],
        "",
    );
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    let field = |prefix: &str| {
        text.lines()
            .find_map(|l| l.strip_prefix(prefix))
            .map(|s| s.trim().to_string())
            .expect("field")
    };
    let commitment = field("commitment (publish before play):");
    let seed = field("server seed (reveal after play):");
    let pockets: Vec<String> = text
        .lines()
        .filter_map(|l| {
            l.strip_prefix("nonce ")
                .and_then(|r| r.split_once(": "))
                .map(|(_, p)| p.to_string())
        })
        .collect();
    assert_eq!(pockets.len(), 5);
    let joined = pockets.join(",");
    let verify = |commitment: &str, pockets: &str| {
        croupier(
            &[
                "verify-fair",
                "--server-seed",
                &seed,
                "--commitment",
                commitment,
                "--client-seed",
                "player-7",
                "--nonce",
                "0",
                "--count",
                "5",
                "--wheel",
                "single-zero",
                "--pockets",
                pockets,
            ],
            "",
        )
    };
    let ok = verify(&commitment, &joined);
    assert!(ok.status.success(), "{}", stderr(&ok));
    assert!(String::from_utf8_lossy(&ok.stdout).contains("verified"));
    // A changed outcome or a changed commitment is caught.
    let mut tampered = pockets.clone();
    tampered[2] = if tampered[2] == "17" { "18".into() } else { "17".into() };
    assert!(!verify(&commitment, &tampered.join(",")).status.success());
    assert!(!verify(&"0".repeat(64), &joined).status.success());
}

#[test]
fn wheel_monitor_follows_the_emulator_over_a_socket() {
    let port = {
        let probe = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
        probe.local_addr().expect("addr").port()
    };
    let address = format!("127.0.0.1:{port}");
    let mut emulator = Command::new(env!("CARGO_BIN_EXE_croupier"))
        .args([
            "wheel",
            "emulate",
            "--listen",
            &address,
            "--frame-ms",
            "2",
            "--games",
            "4",
            "--script",
            "6,same_direction,00,void_game",
            "--seed",
            &"01".repeat(32),
        ])
        .stderr(Stdio::null())
        .spawn()
        .expect("emulator starts");
    let mut monitor = None;
    for _ in 0..100 {
        let out = croupier(
            &[
                "wheel",
                "monitor",
                "--protocol",
                "slingshot2",
                "--connect",
                &address,
                "--games",
                "4",
            ],
            "",
        );
        if out.status.success() {
            monitor = Some(out);
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    let out = monitor.expect("the monitor connected");
    let _ = emulator.wait();
    let lines = json_lines(&out);
    assert_eq!(lines.len(), 4);
    assert_eq!(lines[0], serde_json::json!({"game": 1, "pocket": "6"}));
    assert_eq!(lines[1], serde_json::json!({"game": 2, "no_spin": "same_direction"}));
    assert_eq!(lines[2], serde_json::json!({"game": 3, "pocket": "00"}));
    assert_eq!(lines[3], serde_json::json!({"game": 4, "no_spin": "void_game"}));
}

#[test]
fn sim_flat_rtp_agrees_with_the_exact_math() {
    for (profile, wheel, spot, extra) in [
        ("european-casino", "single-zero", "red", None),
        ("maryland", "double-zero", "0-00-1-2-3", None),
        ("maryland", "triple-zero", "complete:17", None),
        ("colorado-2013", "single-zero", "odd", Some("--in-prison")),
    ] {
        let stake = if spot.starts_with("complete") { "4000" } else { "100" };
        let mut args = vec![
            "sim",
            "--profile",
            profile,
            "--wheel",
            wheel,
            "--spot",
            spot,
            "--spins",
            "4000000",
            "--seed",
            "lab",
            "--stake",
            stake,
            "--format",
            "json",
        ];
        args.extend(extra);
        let out = croupier(&args, "");
        assert!(out.status.success(), "{}", stderr(&out));
        let r: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
        let exact = r["expected_rtp"].as_f64().expect("exact");
        let (lo, hi) = (
            r["rtp_ci95"][0].as_f64().expect("lo"),
            r["rtp_ci95"][1].as_f64().expect("hi"),
        );
        // A 99.99% interval (3.9 sigma) so a fixed seed cannot flake, still narrow.
        let half = (hi - lo) / 2.0 * 3.9 / 1.96;
        let rtp = r["rtp"].as_f64().expect("rtp");
        assert!(
            (rtp - exact).abs() <= half,
            "{profile} {spot}: rtp {rtp} exact {exact} ± {half}"
        );
        assert_eq!(r["spins"], 4_000_000);
        // The same seed gives the same run.
        let again: serde_json::Value = serde_json::from_slice(&croupier(&args, "").stdout).expect("JSON");
        assert_eq!(again["returned"], r["returned"]);
    }
}

#[test]
fn sim_strategies_write_a_plot() {
    let dir = croupier_testkit::data_dir();
    let svg = dir.path().join("martingale.svg");
    let svg_text = svg.to_str().expect("path");
    for strategy in ["flat", "martingale", "dalembert", "fibonacci", "paroli", "labouchere"] {
        let out = croupier(
            &[
                "sim",
                "--profile",
                "low-limit-house",
                "--strategy",
                strategy,
                "--spins",
                "500",
                "--sessions",
                "300",
                "--bankroll",
                "20000",
                "--stake",
                "500",
                "--seed",
                "9",
                "--format",
                "json",
                "--plot",
                svg_text,
            ],
            "",
        );
        assert!(out.status.success(), "{strategy}: {}", stderr(&out));
        let r: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
        assert_eq!(r["sessions"], 300);
        // low-limit-house: $5 - $10 on red, so no bet above 1000 was ever made.
        assert!(r["rtp"].as_f64().expect("rtp") > 0.5);
        let text = std::fs::read_to_string(&svg).expect("svg written");
        assert!(text.starts_with("<svg") && text.contains("bankroll"), "{strategy}");
    }
    let bad = croupier(
        &[
            "sim",
            "--profile",
            "maryland",
            "--strategy",
            "hope",
            "--spins",
            "5",
            "--seed",
            "1",
        ],
        "",
    );
    assert_eq!(bad.status.code(), Some(2));
}

#[test]
fn math_of_bonus_variants() {
    // Maryland ch.4 F(1): Roulette X paytable A under the shipped weights: 1343/1369 on a single-zero wheel.
    let out = croupier(
        &[
            "math",
            "--profile",
            "maryland",
            "--wheel",
            "single-zero",
            "--bonus",
            "roulette-x-a",
            "--format",
            "json",
        ],
        "",
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let rows: Vec<serde_json::Value> = serde_json::from_slice(&out.stdout).expect("JSON");
    assert_eq!(rows[0]["rtp"], "1343/1369");
    assert_eq!(rows[0]["house_edge"], "26/1369");
    // Maryland ch.4 F(3)(d): paytable C is for double-zero wheels only.
    let out = croupier(
        &[
            "math",
            "--profile",
            "maryland",
            "--wheel",
            "single-zero",
            "--bonus",
            "roulette-x-c",
        ],
        "",
    );
    assert_eq!(out.status.code(), Some(2));
    // Only Maryland names the bonus variants.
    let out = croupier(&["math", "--profile", "colorado-2014", "--bonus", "roulette-x-a"], "");
    assert_eq!(out.status.code(), Some(2));
    // Bonus Spin Xtreme: the exact long-run return of the shipped wheel, blanks included (ch.4 D).
    let out = croupier(
        &[
            "math",
            "--profile",
            "maryland",
            "--bonus",
            "bonus-spin-xtreme",
            "--format",
            "json",
        ],
        "",
    );
    let rows: Vec<serde_json::Value> = serde_json::from_slice(&out.stdout).expect("JSON");
    assert_eq!(rows[0]["kind"], "bonus-spin-xtreme");
    assert!(
        !rows[0]["note"].as_str().expect("note").contains("above 100%"),
        "{}",
        rows[0]
    );
    assert!(rows[0]["rtp_percent"].as_f64().expect("rtp") < 100.0, "{}", rows[0]);
}

#[test]
fn verify_checks_a_journal() {
    use croupier_ledger::Minor;
    use croupier_ledger::{Account, Ledger, SqliteStorage, Transfer};
    use croupier_server::api::Role;
    use croupier_server::casino::{Actor, Casino, Request};
    let dir = croupier_testkit::data_dir();
    {
        let (mut casino, _) = Casino::open(SqliteStorage::open(dir.path()).expect("db"), 0).expect("casino");
        let admin = Actor::new("admin", Role::Admin, "");
        for (who, name, role) in [
            (Actor::system(), "admin", Role::Admin),
            (admin.clone(), "cash", Role::Cashier),
            (admin, "p1", Role::Player),
        ] {
            casino
                .execute(
                    1,
                    &who,
                    Request::CreateUser {
                        username: name.into(),
                        role,
                        password_hash: "h".into(),
                        licence: None,
                    },
                )
                .expect("user");
        }
        let cashier = Actor::new("cash", Role::Cashier, "");
        casino
            .execute(
                2,
                &cashier,
                Request::CashIn {
                    id: "c1".into(),
                    player: "p1".into(),
                    amount: Minor::new(10_000),
                },
            )
            .expect("cash in");
    }
    let data = dir.path().to_str().expect("path");
    let out = croupier(&["verify", "--data", data, "--format", "json"], "");
    assert!(out.status.success(), "{}", stderr(&out));
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    assert_eq!(report["ok"], true);
    assert_eq!(report["balances"]["wallet:p1"], 10000);
    assert_eq!(report["total"], 0);
    // A forged transfer with a perfectly valid hash chain is still caught: no request explains it.
    {
        let mut ledger = Ledger::open(SqliteStorage::open(dir.path()).expect("db")).expect("ledger");
        let forged = Transfer {
            id: "forged".into(),
            from: Account::parse("house").expect("account"),
            to: Account::parse("wallet:p1").expect("account"),
            amount: Minor::new(500),
            memo: String::new(),
        };
        ledger.commit(3, &[forged], Vec::new()).expect("append");
    }
    let out = croupier(&["verify", "--data", data], "");
    assert_eq!(out.status.code(), Some(1));
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("JOURNAL BROKEN"),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    // One byte of history changed is caught by the chain itself.
    let raw = SqliteStorage::open(dir.path()).expect("db");
    raw.connection()
        .execute("UPDATE journal SET at_ms = 9 WHERE seq = 1", [])
        .expect("tamper");
    drop(raw);
    let out = croupier(&["verify", "--data", data], "");
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stdout).contains("JOURNAL BROKEN at entry 1"));
    let out = croupier(&["verify", "--data", "/nonexistent/croupier"], "");
    assert_eq!(out.status.code(), Some(2));
}

/// A load small enough for a test: one table, four terminals, 1.5 s.
const SMALL_LOAD: &[&str] = &[
    "bench",
    "load",
    "--tables",
    "1",
    "--terminals",
    "4",
    "--duration",
    "1.5",
    "--window-ms",
    "300",
];

#[test]
fn bench_history_measures_a_journal_a_load_kept() {
    let tmp = croupier_testkit::data_dir();
    let kept = tmp.parent().join("history");
    let kept_text = kept.to_str().expect("path");
    let load = [SMALL_LOAD, &["--format", "json", "--keep-data", kept_text]].concat();
    let out = croupier(&load, "");
    assert!(out.status.success(), "{}", stderr(&out));
    let loaded: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    // A directory that exists already is refused: a load starts a casino of its own.
    let again = croupier(&load, "");
    assert_eq!(again.status.code(), Some(2));
    assert!(stderr(&again).contains("exists already"), "{}", stderr(&again));
    let out = croupier(&["bench", "history", "--data", kept_text, "--format", "json"], "");
    assert!(out.status.success(), "{}", stderr(&out));
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    assert_eq!(report["bets"], loaded["bets_accepted"], "{report}");
    assert_eq!(report["verified"], true);
    for field in [
        "start_seconds",
        "verify_seconds",
        "disk_bytes_per_bet",
        "journal_bytes_per_bet",
    ] {
        assert!(report[field].as_f64().expect(field) > 0.0, "{report}");
    }
    for field in ["start_peak_bytes", "verify_peak_bytes"] {
        assert!(report[field].as_u64().expect(field) > 1 << 20, "{report}");
    }
    let none = croupier(&["bench", "history", "--data", tmp.path().to_str().expect("path")], "");
    assert_eq!(none.status.code(), Some(2));
    assert!(stderr(&none).contains("no journal"), "{}", stderr(&none));
}

#[test]
fn bench_week_plays_gaming_days_on_its_clock_and_cuts_each_into_a_segment() {
    let tmp = croupier_testkit::data_dir();
    let kept = tmp.parent().join("week");
    let kept_text = kept.to_str().expect("path");
    let week = [
        "bench",
        "week",
        "--days",
        "3",
        "--tables",
        "1",
        "--players-per-table",
        "2",
        "--hours-a-day",
        "1",
        "--format",
        "json",
        "--keep-data",
        kept_text,
    ];
    let out = croupier(&week, "");
    assert!(out.status.success(), "{}", stderr(&out));
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    let days = report["days"].as_array().expect("days");
    assert_eq!(days.len(), 3, "{report}");
    // 200 rounds a day at the one table, each with its 2 players' bets.
    assert_eq!(days[2]["rounds"], 600);
    assert_eq!(days[2]["bets"], 1_200);
    assert!(
        days[2]["resident_bytes"].as_u64().expect("memory") > 1 << 20,
        "{report}"
    );
    // Each gaming day over is cut at the next day's first entry: two by the third day's end.
    assert_eq!(days[2]["segments"], 2, "{report}");
    assert_eq!(report["days_played"], 3, "{report}");
    // The recall archive keeps every round: it is reported, and it grows.
    let recall = |d: usize| days[d]["recall_bytes"].as_u64().expect("recall archive");
    assert!(recall(0) > 0 && recall(2) > recall(0), "{report}");
    let out = croupier(&["verify", "--data", kept_text, "--format", "json"], "");
    assert!(out.status.success(), "the week's journal verifies: {}", stderr(&out));
    let refused = croupier(&["bench", "week", "--hours-a-day", "23"], "");
    assert_eq!(refused.status.code(), Some(2));
    assert!(stderr(&refused).contains("--hours-a-day"), "{}", stderr(&refused));
}

#[test]
fn bench_load_runs_over_real_sockets() {
    let out = croupier(&[SMALL_LOAD, &["--format", "json"]].concat(), "");
    assert!(out.status.success(), "{}", stderr(&out));
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    assert!(report["bets_accepted"].as_u64().expect("bets") > 0, "{report}");
    assert!(report["rounds"].as_u64().expect("rounds") > 0, "{report}");
    assert!(report["echo_messages_per_second"].as_f64().expect("echo") > 0.0);
    // Every refusal is betting closed between rounds; timing a round from the dealer asking
    // for its result can only take longer than from the dealer's answer.
    assert_eq!(report["bets_refused_other"].as_u64(), Some(0), "{report}");
    let (whole, fanout) = (
        report["settlement_whole_max_ms"].as_f64().expect("whole"),
        report["settlement_fanout_max_ms"].as_f64().expect("fan-out"),
    );
    assert!(whole >= fanout, "{report}");
    // The run's bets were written to the journal, and the bare flush loop ran after it.
    assert!(
        report["journal"]["flushes"].as_u64().expect("journal writes") > 0,
        "{report}"
    );
    assert!(report["journal"]["stalled_ms_at_least"].as_f64().expect("stalled") >= 0.0);
    // The acknowledgements were grouped over the run by when their bets were due.
    let behind = &report["ack_behind"];
    let windows = behind["windows"].as_u64().expect("windows");
    assert!(windows > 0, "{report}");
    assert!(
        behind["windows_behind"].as_u64().expect("behind") <= windows,
        "{report}"
    );
    let share = behind["slow_share_in_behind"].as_f64().expect("share");
    assert!((0.0..=1.0).contains(&share), "{report}");
    // The machine's speed was measured before the run and after it.
    for when in ["before_ms", "after_ms"] {
        assert!(report["processor"][when].as_f64().expect("speed") > 0.0, "{report}");
    }
    assert!(
        report["bare_flush"]["flushes_per_second"]
            .as_f64()
            .expect("bare flushes")
            > 0.0
    );
    // The three targets, each judged on the run's own figure (four terminals cannot offer 20,000 a second).
    let targets = report["targets"].as_array().expect("targets");
    let judged: Vec<(f64, bool)> = targets
        .iter()
        .map(|t| {
            (
                t["measured"].as_f64().expect("measured"),
                t["met"].as_bool().expect("met"),
            )
        })
        .collect();
    assert_eq!(
        judged[0],
        (report["bets_per_second"].as_f64().expect("rate"), false),
        "{report}"
    );
    assert_eq!(judged[1].0, report["ack_p99_ms"].as_f64().expect("p99"), "{report}");
    assert_eq!(judged[2].0, fanout, "{report}");
    let bad = croupier(&["bench", "load", "--terminals", "0"], "");
    assert_eq!(bad.status.code(), Some(2));
}

// A flat bet has no sessions to draw: --plot with it says so instead of
// writing nothing; a strategy's text speaks money, as its plot does.
#[test]
fn sim_says_what_it_plots_and_speaks_money() {
    let dir = croupier_testkit::data_dir();
    let svg = dir.path().join("flat.svg");
    let svg_text = svg.to_str().expect("path");
    let flat = croupier(
        &[
            "sim",
            "--profile",
            "maryland",
            "--spins",
            "1000",
            "--seed",
            "1",
            "--plot",
            svg_text,
        ],
        "",
    );
    assert_eq!(flat.status.code(), Some(2), "{}", stderr(&flat));
    assert!(stderr(&flat).contains("--strategy flat"), "{}", stderr(&flat));
    assert!(!svg.exists());
    let sessions = croupier(
        &[
            "sim",
            "--profile",
            "low-limit-house",
            "--strategy",
            "flat",
            "--spins",
            "50",
            "--sessions",
            "20",
            "--bankroll",
            "20000",
            "--stake",
            "500",
            "--seed",
            "9",
        ],
        "",
    );
    let text = String::from_utf8_lossy(&sessions.stdout);
    assert!(text.contains("(start 200.00)"), "{text}");
}

// `croupier rules | head`: the reader goes away, and nothing is wrong.
#[test]
fn a_reader_that_stops_early_is_no_error() {
    let mut child = Command::new(env!("CARGO_BIN_EXE_croupier"))
        .args(["rules", "--profile", "maryland"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("croupier runs");
    // Gone before the first line: every write meets a closed pipe.
    drop(child.stdout.take());
    let out = child.wait_with_output().expect("croupier finishes");
    assert!(
        out.status.success(),
        "{:?}: {}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(out.stderr.is_empty(), "{}", String::from_utf8_lossy(&out.stderr));
}

#[test]
fn tournament_files_are_checked_against_their_profile_and_give_written_rules() {
    // Colorado 2213(1), 2213.05, 2213.06-.08: through the command.
    let example = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../profiles/tournaments/winter-classic.toml"
    );
    let out = croupier(&["tournament", "check", "--config", example, "--format", "json"], "");
    assert!(out.status.success(), "{}", stderr(&out));
    let checked: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
    assert_eq!(checked["most_one_entry_pays_minor"], 35_000);
    assert_eq!(checked["cap_minor"], 10_000_000);
    let out = croupier(&["tournament", "rules", "--config", example], "");
    assert!(out.status.success(), "{}", stderr(&out));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("shall follow the house rules of The Example Casino"),
        "{text}"
    );

    let dir = croupier_testkit::data_dir();
    let text = std::fs::read_to_string(example).expect("example");
    for (from, to, clause) in [
        ("last_day = \"2027-02-13\"", "last_day = \"2027-05-01\"", "2213(1)"),
        (
            "rebuys = { max = 1, amount_minor = 10000,",
            "rebuys = { max = 100, amount_minor = 10000000,",
            "2213.05",
        ),
        (
            "responsible = \"The Example Casino\"",
            "responsible = \"Nobody\"",
            "2213(2)(b)",
        ),
        (
            "{ place = 2, voucher_for = \"Final\" }",
            "{ place = 2, voucher_for = \"Semi\" }",
            "2213.05",
        ),
        (
            "first_day = \"2026-12-12\"",
            "first_day = \"2026-02-30\"",
            "not a day of the calendar",
        ),
    ] {
        assert!(text.contains(from), "{from}");
        let path = dir.parent().join("t.toml");
        std::fs::write(&path, text.replace(from, to)).expect("write");
        let out = croupier(&["tournament", "check", "--config", path.to_str().expect("path")], "");
        assert_eq!(out.status.code(), Some(2), "{to}: {}", stderr(&out));
        assert!(stderr(&out).contains(clause), "{to}: {}", stderr(&out));
        assert!(out.stdout.is_empty());
    }
}

#[test]
fn a_scripted_tournament_gives_its_forms_and_every_refusal_its_clause() {
    // Colorado 2213(2)(c), 2213.01, 2213.02, 2213.05, 2213.06, 2213.07(3)(a)-(c)
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../../profiles/tournaments/");
    let config = format!("{dir}winter-classic.toml");
    let script = format!("{dir}winter-classic.script.jsonl");
    let out = croupier(
        &[
            "tournament",
            "forms",
            "--config",
            &config,
            "--script",
            &script,
            "--format",
            "json",
        ],
        "",
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let forms: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
    let refused: Vec<String> = forms["lines"]
        .as_array()
        .expect("lines")
        .iter()
        .filter_map(|l| l["refused"].as_str().map(str::to_string))
        .collect();
    for clause in ["(2213(2)(c))", "(2213.06)", "(2213.07(3)(a))"] {
        assert!(refused.iter().any(|r| r.contains(clause)), "{clause} in {refused:?}");
    }
    assert_eq!(forms["concluded"], true);
    assert_eq!(forms["pool_left_minor"], 0);
    // Seven entries, each with its fee's dollar value however paid (2213.01).
    let fees: Vec<(String, u64)> = forms["entries"]
        .as_array()
        .expect("entries")
        .iter()
        .map(|e| {
            (
                e["fee_paid"].as_str().unwrap_or("").to_string(),
                e["fee_minor"].as_u64().unwrap_or(0),
            )
        })
        .collect();
    assert_eq!(fees.len(), 7);
    assert!(fees.iter().all(|(_, v)| *v == 2_500));
    assert_eq!(forms["proceeds"][0]["month"], "2026-12");
    assert_eq!(forms["proceeds"][0]["proceeds_minor"], 10_000);
    assert_eq!(forms["proceeds"][1]["proceeds_minor"], 7_500);
    // Every buy-in paid out (2213.05): four buy-ins, a re-buy and three
    // buy-ins (one by voucher) are 800.00; the prizes, the voucher among
    // them at 125.00, are 800.00 too.
    let paid: u64 = forms["payouts"]
        .as_array()
        .expect("payouts")
        .iter()
        .filter(|p| p["payout"] == true)
        .map(|p| p["value_minor"].as_u64().unwrap_or(0))
        .sum();
    assert_eq!(paid, 80_000);
    let split = forms["payouts"]
        .as_array()
        .expect("payouts")
        .iter()
        .filter(|p| p["by_split"] == true)
        .count();
    assert_eq!(split, 3, "each recipient of the split is recorded (2213.07(3)(c))");

    // A line that is not a command stops the run before anything is printed.
    let data = croupier_testkit::data_dir();
    let bad = data.parent().join("bad.jsonl");
    std::fs::write(&bad, "{\"command\":\"register\",\"day\":\"2026-12-01\"}\n").expect("write");
    let out = croupier(
        &[
            "tournament",
            "forms",
            "--config",
            &config,
            "--script",
            bad.to_str().expect("path"),
        ],
        "",
    );
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("line 1"), "{}", stderr(&out));
    assert!(out.stdout.is_empty());
}
