//! The committer's tests.

use super::*;
use crate::runtime::metrics::Metrics;
use croupier_ledger::{MemoryStorage, Record, StreamEvent};

fn entry(seq: u64) -> Entry {
    let body = serde_json::value::RawValue::from_string(seq.to_string()).expect("JSON");
    let record = Record::Event(StreamEvent::new("test", body));
    Entry::new(seq, seq, record, [0; 32])
}

/// Hands one group of `entries` over; its answer comes on the receiver.
fn hand_over(pipeline: &mut Pipeline, committer: &Committer, entries: &[u64]) -> mpsc::Receiver<bool> {
    let (tx, rx) = mpsc::channel();
    pipeline.begin_group().expect("begin");
    for &seq in entries {
        pipeline.append(&[entry(seq)]).expect("buffered");
    }
    committer.attach(vec![Pending::Notify(tx)]);
    pipeline.end_group().expect("handed over");
    rx
}

/// Hands one group of `entries` over and waits for its answer.
fn group(pipeline: &mut Pipeline, committer: &Committer, entries: &[u64]) -> bool {
    hand_over(pipeline, committer, entries).recv().expect("answered")
}

fn writes(committer: &Committer) -> u64 {
    let text = Metrics::new(&committer.flush_times()).text();
    text.lines()
        .find_map(|l| l.strip_prefix("croupier_journal_flush_seconds_count "))
        .and_then(|n| n.parse().ok())
        .expect("a count")
}

#[test]
fn spaced_writes_take_what_arrived_meanwhile_in_one() {
    let spacing = Duration::from_millis(500);
    let (mut pipeline, committer) = Committer::start_spaced(MemoryStorage::default(), spacing).expect("start");
    pipeline.load().expect("loaded");
    // At a quiet moment a group is written by itself.
    assert!(group(&mut pipeline, &committer, &[1]));
    assert_eq!(writes(&committer), 1);
    // Three groups handed over at once, within the spacing of that write:
    // the first waits out the spacing and the other two join its write.
    let began = Instant::now();
    let answers: Vec<_> = [2, 3, 4]
        .into_iter()
        .map(|seq| hand_over(&mut pipeline, &committer, &[seq]))
        .collect();
    for answer in answers {
        assert!(answer.recv().expect("answered"), "durable");
    }
    assert_eq!(writes(&committer), 2, "one write for the three groups");
    assert!(began.elapsed() >= spacing / 2, "the write waited for the spacing");
    let mut reloaded = committer.reload().expect("reload");
    let durable: Vec<u64> = reloaded.load().expect("entries").iter().map(|e| e.seq).collect();
    assert_eq!(durable, [1, 2, 3, 4], "in order");
}

/// A store that notes, in one list shared with the answers, when each
/// group ends and when its upkeep runs.
struct Noted {
    inner: MemoryStorage,
    seen: Arc<Mutex<Vec<&'static str>>>,
}

impl Storage for Noted {
    fn load(&mut self) -> Result<Vec<Entry>, StorageError> {
        self.inner.load()
    }
    fn append(&mut self, entries: &[Entry]) -> Result<(), StorageError> {
        self.inner.append(entries)
    }
    fn begin_group(&mut self) -> Result<(), StorageError> {
        self.inner.begin_group()
    }
    fn end_group(&mut self) -> Result<(), StorageError> {
        self.seen.lock().expect("list").push("ended");
        self.inner.end_group()
    }
    fn abort_group(&mut self) -> Result<(), StorageError> {
        self.seen.lock().expect("list").push("taken back");
        self.inner.abort_group()
    }
    fn after_group(&mut self) {
        self.seen.lock().expect("list").push("upkeep");
    }
}

#[test]
fn upkeep_runs_after_the_groups_answers_and_only_once_durable() {
    let seen = Arc::new(Mutex::new(Vec::new()));
    let storage = Noted {
        inner: MemoryStorage::failing_every(2),
        seen: seen.clone(),
    };
    let (mut pipeline, committer) = Committer::start(storage).expect("start");
    pipeline.load().expect("loaded");
    for seq in [1, 2] {
        let (tx, rx) = mpsc::channel();
        let noted = seen.clone();
        pipeline.begin_group().expect("begin");
        pipeline.append(&[entry(seq)]).expect("buffered");
        committer.attach(vec![Pending::Test(Box::new(move |durable| {
            let said = if durable { "answered" } else { "refused" };
            noted.lock().expect("list").push(said);
            let _ = tx.send(());
        }))]);
        pipeline.end_group().expect("handed over");
        rx.recv().expect("answered");
        // The upkeep follows the answer on the committer's thread: a reload waits for it.
        pipeline = committer.reload().expect("reload");
    }
    // The second append fails: its group is taken back, refused, and no upkeep follows.
    assert_eq!(
        *seen.lock().expect("list"),
        ["ended", "answered", "upkeep", "taken back", "refused"]
    );
}

#[test]
fn a_failed_append_takes_back_the_groups_written_with_it() {
    // The second append fails: the first group, in the same write, is
    // taken back, so that its refusal ("nothing was changed") is true.
    let (mut pipeline, committer) = Committer::stepped(MemoryStorage::failing_every(2)).expect("start");
    pipeline.load().expect("loaded");
    let first = hand_over(&mut pipeline, &committer, &[1]);
    let second = hand_over(&mut pipeline, &committer, &[2]);
    assert!(committer.stepper().expect("stepped").run_ready());
    assert!(!first.recv().expect("answered"), "refused with the other");
    assert!(!second.recv().expect("answered"));
    let mut reloaded = committer.reload().expect("reload");
    assert!(reloaded.load().expect("entries").is_empty(), "neither landed");
}

#[test]
fn groups_are_answered_once_durable_and_a_failure_holds_until_reloaded() {
    // The third append fails.
    let (mut pipeline, committer) = Committer::start(MemoryStorage::failing_every(3)).expect("start");
    assert!(pipeline.load().expect("loaded").is_empty());
    assert!(
        pipeline.load().expect("read again").is_empty(),
        "read again, as an open from a checkpoint that fails does"
    );
    assert!(group(&mut pipeline, &committer, &[1]));
    assert!(group(&mut pipeline, &committer, &[2]));
    assert!(!group(&mut pipeline, &committer, &[3]), "the write failed");
    assert!(committer.failed());
    // A group executed after the failure is not written, though the storage would take it.
    assert!(!group(&mut pipeline, &committer, &[3]));
    // A group of reads waits its turn and fails with the rest.
    assert!(!group(&mut pipeline, &committer, &[]));
    let mut reloaded = committer.reload().expect("reload");
    assert!(!committer.failed());
    let durable: Vec<u64> = reloaded.load().expect("entries").iter().map(|e| e.seq).collect();
    assert_eq!(durable, [1, 2]);
    assert!(group(&mut reloaded, &committer, &[3]));
    // Outside a group an append returns once durable.
    reloaded.append(&[entry(4)]).expect("durable");
    let mut again = committer.reload().expect("reload");
    assert_eq!(again.load().expect("entries").len(), 4);
    // Timed: the writes of 1, 2, the failed 3, 3 after the reload, and 4. Not timed:
    // the group skipped while failed, and the group of reads, which wrote nothing.
    assert_eq!(writes(&committer), 5);
}

/// A store whose commit is sent and its answer lost.
struct AnswerLost(MemoryStorage);

impl Storage for AnswerLost {
    fn load(&mut self) -> Result<Vec<Entry>, StorageError> {
        self.0.load()
    }
    fn append(&mut self, entries: &[Entry]) -> Result<(), StorageError> {
        self.0.append(entries)
    }
    fn end_group(&mut self) -> Result<(), StorageError> {
        Err(StorageError::OutcomeUnknown(
            "the connection dropped after COMMIT".into(),
        ))
    }
}

#[test]
fn a_commit_whose_answer_was_lost_is_answered_unknown_and_a_read_with_it_unchanged() {
    use crate::api::ErrorCode;
    use crate::runtime::reply::{Answer, ReplyTo};
    let (mut pipeline, committer) = Committer::stepped(AnswerLost(MemoryStorage::default())).expect("start");
    pipeline.load().expect("loaded");
    let mut answers = Vec::new();
    for entries in [&[1][..], &[]] {
        let (tx, rx) = tokio::sync::oneshot::channel();
        pipeline.begin_group().expect("begin");
        for &seq in entries {
            pipeline.append(&[entry(seq)]).expect("buffered");
        }
        committer.attach(vec![Pending::Answer {
            answer: Answer::Balance(1),
            to: ReplyTo::Caller(tx),
        }]);
        pipeline.end_group().expect("handed over");
        answers.push(rx);
    }
    assert!(committer.stepper().expect("stepped").run_ready());
    let codes: Vec<ErrorCode> = answers
        .into_iter()
        .map(|rx| rx.blocking_recv().expect("answered").expect_err("not durable").code)
        .collect();
    // The group that wrote may be in the journal; the one that wrote nothing changed nothing.
    assert_eq!(codes, [ErrorCode::OutcomeUnknown, ErrorCode::Storage]);
}
