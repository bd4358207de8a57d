//! The cage's plan of a checkpoint's binding: the entry that ties a
//! checkpoint's bytes (see [`crate::casino::checkpoint`]) into the journal.

use crate::api::{ApiError, ErrorCode};
use crate::casino::directory::Directory;
use crate::casino::err;
use crate::casino::journal::{require_format, JournalEvent, FORMAT_CHECKPOINTS};

/// The entry that binds a checkpoint (`Request::Checkpoint`): of a state
/// after an entry already written (the next is `next_seq`), by its SHA-256.
pub(super) fn plan_bind(
    dir: &Directory,
    next_seq: u64,
    through: u64,
    digest: &str,
    bytes: u64,
) -> Result<JournalEvent, ApiError> {
    require_format(dir.journal_format(), FORMAT_CHECKPOINTS, "checkpoints are")?;
    if through == 0 || through >= next_seq {
        return Err(err(
            ErrorCode::BadRequest,
            format!(
                "a checkpoint binds a state after an entry written before it, 1 to {}, not {through}",
                next_seq - 1
            ),
        ));
    }
    if digest.len() != 64 || !digest.bytes().all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b)) {
        return Err(err(
            ErrorCode::BadRequest,
            "a checkpoint's digest is 64 lower-case hex digits",
        ));
    }
    Ok(JournalEvent::CheckpointTaken {
        through,
        digest: digest.to_string(),
        bytes,
    })
}
