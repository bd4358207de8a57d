//! The archiver: a thread of its own, at low priority, behind a bounded
//! queue, that hands finished rounds to the [`Archive`] and tries again
//! while rounds wait for its disk.

use std::sync::{mpsc, Arc};

use super::{Archive, ARCHIVE_RETRY_MS};
use crate::casino::RoundRecord;

/// Batches of finished rounds the archiver's queue holds. A batch is what
/// one job finished (a round, most often); the archive writes what waits in
/// one transaction, so the queue fills only if the archive's disk stops.
pub const ARCHIVE_QUEUE_BATCHES: usize = 4_096;

/// The thread that archives rounds off the writers' path: a table hands it
/// each finished round once the round's entries are durable.
#[derive(Clone)]
pub struct Archiver {
    archive: Arc<Archive>,
    queue: mpsc::SyncSender<Vec<Arc<RoundRecord>>>,
}

impl Archiver {
    pub fn start(archive: Arc<Archive>) -> Result<Archiver, String> {
        let (queue, rounds) = mpsc::sync_channel::<Vec<Arc<RoundRecord>>>(ARCHIVE_QUEUE_BATCHES);
        let own = archive.clone();
        std::thread::Builder::new()
            .name("archive".into())
            .spawn(move || {
                // No answer waits on the archive: the bets come first.
                crate::runtime::lower_this_threads_priority();
                let retry = std::time::Duration::from_millis(ARCHIVE_RETRY_MS);
                loop {
                    // While rounds wait for the disk, a quiet spell is a try again.
                    let mut batch = if own.rounds_waiting() > 0 {
                        match rounds.recv_timeout(retry) {
                            Ok(batch) => batch,
                            Err(mpsc::RecvTimeoutError::Timeout) => Vec::new(),
                            Err(mpsc::RecvTimeoutError::Disconnected) => break,
                        }
                    } else {
                        let Ok(batch) = rounds.recv() else { break };
                        batch
                    };
                    while let Ok(more) = rounds.try_recv() {
                        batch.extend(more);
                    }
                    // A failure is told to the server's health once, not logged at every try.
                    let _ = own.save(&batch);
                }
            })
            .map_err(|e| format!("cannot start the recall archive's thread: {e}"))?;
        Ok(Archiver { archive, queue })
    }

    pub fn archive(&self) -> &Arc<Archive> {
        &self.archive
    }

    /// Archives `rounds`, durable already, in the background. A writer never
    /// waits for the archive: if its queue is full, the archive stops as after
    /// a failed write (the rounds of a table are archived in order, with no
    /// gap), and the next start fills it in from the journal.
    pub fn send(&self, rounds: Vec<Arc<RoundRecord>>) {
        if rounds.is_empty() {
            return;
        }
        if let Err(mpsc::TrySendError::Full(_)) = self.queue.try_send(rounds) {
            self.archive
                .stop("its queue is full: the archive's disk has not kept up");
        }
    }

    /// For a casino opening on its journal: archives a finished round unless it is already.
    pub fn offer(&self, round: Arc<RoundRecord>) {
        if !self.archive.holds(&round.table, round.round) {
            self.send(vec![round]);
        }
    }
}
