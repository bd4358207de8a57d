//! A checkpoint's bindings in the journal: where a start, the writer's
//! prune and `croupier verify` find which checkpoint files are the casino's.

use croupier_ledger::SqliteStorage;

/// Each binding of a checkpoint (a `checkpoint_taken` event, stored as text as it moves no money)
/// in the journal's entries after `after`, newest first or oldest first, until `more` says
/// enough. Only entries that name one are parsed.
pub fn each_binding(
    storage: &SqliteStorage,
    after: u64,
    newest_first: bool,
    more: &mut dyn FnMut(crate::casino::checkpoint::Binding) -> bool,
) -> Result<(), String> {
    use crate::casino::journal::{is_legacy, read_events, JournalEvent, STREAM};
    let order = if newest_first { "DESC" } else { "ASC" };
    let mut statement = storage
        .connection()
        .prepare(&format!(
            "SELECT seq, record FROM journal WHERE seq > ?1 AND typeof(record) = 'text' AND instr(record, '\"checkpoint_taken\"') > 0 ORDER BY seq {order}"
        ))
        .map_err(|e| e.to_string())?;
    let after = i64::try_from(after).unwrap_or(i64::MAX);
    let rows = statement
        .query_map([after], |r| Ok((r.get::<_, i64>(0)?, r.get::<_, String>(1)?)))
        .map_err(|e| e.to_string())?;
    for row in rows {
        let (seq, text) = row.map_err(|e| e.to_string())?;
        let Ok(record) = serde_json::from_str::<croupier_ledger::Record>(&text) else {
            continue;
        };
        let events = record
            .events()
            .iter()
            .filter(|e| e.stream == STREAM && !is_legacy(e))
            .flat_map(|e| read_events(e).unwrap_or_default());
        for event in events {
            if let JournalEvent::CheckpointTaken { through, digest, bytes } = event {
                let binding = crate::casino::checkpoint::Binding {
                    entry: seq as u64,
                    through,
                    digest,
                    bytes,
                };
                if !more(binding) {
                    return Ok(());
                }
            }
        }
    }
    Ok(())
}
