//! The recall archive's tests.

use super::*;
use crate::casino::BetRecord;

fn round(table: &str, n: u64, at: u64, players: &[&str]) -> Arc<RoundRecord> {
    Arc::new(RoundRecord {
        id: format!("{table}/{n}"),
        table: table.into(),
        round: n,
        opened_at_ms: at,
        pocket: Some("17".into()),
        no_spins: Vec::new(),
        bets: players
            .iter()
            .enumerate()
            .map(|(i, p)| BetRecord {
                bet_id: format!("{p}-{n}-{i}"),
                player: (*p).into(),
                spot: "red".into(),
                kind: "red".into(),
                stake: 100,
                result: Some("won".into()),
                returned: Some(200),
                symbol: None,
            })
            .collect(),
        settled: true,
        chips_before: players.iter().map(|p| ((*p).to_string(), 1_000)).collect(),
        chips_after: players.iter().map(|p| ((*p).to_string(), 1_100)).collect(),
        tournament: None,
        bonus_targets: Vec::new(),
        bonus_lucky: Vec::new(),
    })
}

const KEY: [u8; 32] = [4; 32];

fn empty_dir() -> tempfile::TempDir {
    tempfile::tempdir().expect("a temporary folder")
}

#[test]
fn archived_rounds_come_back_whole_by_id_and_by_player_newest_first() {
    let archive = Archive::in_memory().expect("archive");
    let rounds = vec![
        round("t1", 1, 100, &["p1", "p2", "p1"]),
        round("t2", 1, 150, &["p1"]),
        round("t1", 2, 200, &["p2"]),
        round("t1", 3, 300, &["p1"]),
    ];
    assert_eq!(archive.save(&rounds), Ok(4));
    assert_eq!(archive.round("t1", 1).expect("read").as_ref(), Some(&*rounds[0]));
    assert_eq!(archive.round("t1", 9).expect("read"), None);
    let ids = |v: Vec<RoundRecord>| v.into_iter().map(|r| r.id).collect::<Vec<_>>();
    assert_eq!(ids(archive.player("p1", 10).expect("read")), ["t1/3", "t2/1", "t1/1"]);
    assert_eq!(ids(archive.player("p1", 2).expect("read")), ["t1/3", "t2/1"]);
    assert_eq!(ids(archive.player("p2", 10).expect("read")), ["t1/2", "t1/1"]);
    assert!(archive.player("p9", 10).expect("read").is_empty());
}

#[test]
fn a_round_archived_already_is_not_written_again_and_a_reopened_archive_knows_its_newest() {
    let tmp = empty_dir();
    let dir = tmp.path();
    {
        let archive = Archive::open(dir, KEY).expect("archive");
        assert_eq!(
            archive.save(&[round("t1", 1, 1, &["p1"]), round("t1", 2, 2, &["p1"])]),
            Ok(2)
        );
        assert!(archive.holds("t1", 2) && !archive.holds("t1", 3) && !archive.holds("t2", 1));
    }
    let archive = Archive::open(dir, KEY).expect("reopen");
    assert!(archive.holds("t1", 1) && archive.holds("t1", 2));
    // A replay offers every round again: only the new one is written.
    let mut changed = round("t1", 2, 2, &["p2"]);
    Arc::make_mut(&mut changed).pocket = Some("0".into());
    assert_eq!(archive.save(&[changed, round("t1", 3, 3, &["p2"])]), Ok(1));
    assert_eq!(
        archive.round("t1", 2).expect("read").and_then(|r| r.pocket),
        Some("17".into())
    );
    let mut all = Vec::new();
    archive.each(|r| all.push(r.expect("readable").id)).expect("each");
    assert_eq!(all, ["t1/1", "t1/2", "t1/3"]);
    drop(archive);
    let read_only = Archive::open_read_only(dir).expect("open").expect("there");
    assert_eq!(read_only.player("p2", 5).expect("read").len(), 1);
    assert!(Archive::open_read_only(&dir.join("none")).expect("no file").is_none());
}

/// Makes the archive's file as full as a full disk would: no page more.
fn fill(archive: &Archive, full: bool) {
    let conn = archive.conn();
    let pages: i64 = conn.query_row("PRAGMA page_count", [], |r| r.get(0)).expect("pages");
    let max = if full { pages } else { 1 << 30 };
    conn.query_row(&format!("PRAGMA max_page_count = {max}"), [], |_| Ok(()))
        .expect("limit");
}

#[test]
fn rounds_a_full_disk_refused_wait_are_recalled_and_written_once_it_has_room() {
    let tmp = empty_dir();
    let archive = Archive::open(tmp.path(), KEY).expect("archive");
    let health = Health::new(Arc::new(crate::runtime::SimClock::at(1_000)));
    archive.report_to(health.clone());
    archive.save(&[round("t1", 1, 1, &["p1"])]).expect("save");
    fill(&archive, true);
    // Enough to need new pages: the write fails, and the rounds wait.
    let many: Vec<_> = (2..=60).map(|n| round("t1", n, n, &["p1", "p2"])).collect();
    let refused = archive.save(&many).expect_err("full");
    assert!(refused.contains("full"), "{refused}");
    assert_eq!(archive.rounds_waiting(), 59);
    assert!(archive.holds("t1", 60), "held, in memory");
    let report = health.report();
    assert_eq!(report.status, "degraded");
    assert_eq!(report.archive.map(|a| a.rounds_waiting), Some(59));
    // Recall finds them meanwhile, by id and by player, newest first.
    assert_eq!(archive.round("t1", 30).expect("read").map(|r| r.round), Some(30));
    let mine: Vec<u64> = archive.player("p1", 3).expect("read").iter().map(|r| r.round).collect();
    assert_eq!(mine, [60, 59, 58]);
    // The integrity monitor reads them in order after those on disk.
    let after: Vec<u64> = archive
        .after("t1", None, 4)
        .expect("read")
        .iter()
        .map(|r| r.round)
        .collect();
    assert_eq!(after, [1, 2, 3, 4]);
    let after: Vec<u64> = archive
        .after("t1", Some(57), 10)
        .expect("read")
        .iter()
        .map(|r| r.round)
        .collect();
    assert_eq!(after, [58, 59, 60]);
    // A round offered again is not kept twice; a try with nothing new fails too.
    assert!(archive.save(&many[..2]).is_err());
    assert_eq!(archive.rounds_waiting(), 59);
    // Room again: the next try writes them all, in one transaction.
    fill(&archive, false);
    assert_eq!(archive.save(&[]), Ok(59));
    assert_eq!(archive.rounds_waiting(), 0);
    assert_eq!(health.report().status, "ok");
    drop(archive);
    let reopened = Archive::open(tmp.path(), KEY).expect("reopen");
    let mut all = Vec::new();
    reopened.each(|r| all.push(r.expect("readable").round)).expect("each");
    assert_eq!(all, (1..=60).collect::<Vec<_>>());
}

#[test]
fn too_many_rounds_waiting_stop_the_archive_until_the_next_start() {
    let tmp = empty_dir();
    let archive = Archive::open(tmp.path(), KEY).expect("archive");
    let health = Health::new(Arc::new(crate::runtime::SimClock::at(1_000)));
    archive.report_to(health.clone());
    fill(&archive, true);
    let too_many: Vec<_> = (1..=ARCHIVE_WAITING_ROUNDS_MAX as u64 + 1)
        .map(|n| round("t1", n, n, &["p1"]))
        .collect();
    assert!(archive.save(&too_many).is_err());
    assert_eq!(archive.rounds_waiting(), 0, "let go of");
    let later = archive.save(&[round("t1", 200_000, 1, &["p1"])]).expect_err("stopped");
    assert!(later.contains("next start"), "{later}");
    let said = health.report().archive.expect("behind").trouble.why;
    assert!(said.contains("restart"), "{said}");
}

#[test]
fn a_round_changed_in_the_file_is_not_served_nor_another_players() {
    let tmp = empty_dir();
    let dir = tmp.path();
    let archive = Archive::open(dir, KEY).expect("archive");
    archive
        .save(&[round("t1", 1, 1, &["p1"]), round("t1", 2, 2, &["p2"])])
        .expect("save");
    let db = Connection::open(dir.join(ARCHIVE_FILE)).expect("the file");
    // The pocket changed in round 1; round 2 listed as p1's too.
    db.execute(
        "UPDATE recall_rounds SET record = replace(record, '\"17\"', '\"0\"') WHERE round = 1",
        [],
    )
    .expect("changed");
    db.execute(
        "INSERT INTO recall_players (player, opened_at_ms, table_id, round) VALUES ('p1', 2, 't1', 2)",
        [],
    )
    .expect("listed");
    let refused = archive.round("t1", 1).expect_err("not served");
    assert!(refused.contains("changed after it was archived"), "{refused}");
    assert!(archive.player("p1", 5).is_err());
    assert_eq!(archive.round("t1", 2).expect("untouched").map(|r| r.round), Some(2));
    // A round listed as p1's that p1 did not bet in is not p1's.
    db.execute("DELETE FROM recall_rounds WHERE round = 1", [])
        .expect("gone");
    assert!(archive.player("p1", 5).expect("read").is_empty());
    // Under another key nothing reads; rows kept without a MAC are dropped for the journal.
    drop(archive);
    let other = Archive::open(dir, [5; 32]).expect("open");
    assert!(other.round("t1", 2).is_err());
    db.execute("UPDATE recall_rounds SET mac = NULL", []).expect("unkept");
    let reopened = Archive::open(dir, KEY).expect("open");
    assert!(!reopened.holds("t1", 2));
    assert_eq!(reopened.round("t1", 2).expect("read"), None);
}
