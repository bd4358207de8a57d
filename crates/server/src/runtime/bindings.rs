//! A checkpoint's bindings in the journal: where a start, the writer's
//! prune and `croupier verify` find which checkpoint files are the casino's.

use croupier_ledger::Opened;

/// Each binding of a checkpoint (a `checkpoint_taken` event, in a record that moves no money)
/// in the journal's entries after `after`, newest first or oldest first, until `more` says
/// enough. Only entries that name one are parsed.
pub fn each_binding(
    storage: &mut Opened,
    after: u64,
    newest_first: bool,
    more: &mut dyn FnMut(crate::casino::checkpoint::Binding) -> bool,
) -> Result<(), String> {
    use crate::casino::journal::{is_legacy, read_events, JournalEvent, STREAM};
    let mut go_on = true;
    storage
        .each_holding(after, "\"checkpoint_taken\"", newest_first, &mut |seq, text| {
            let Ok(record) = serde_json::from_str::<croupier_ledger::Record>(text) else {
                return true;
            };
            // Only the server binds a checkpoint, in an entry that moves no money.
            if !record.transfers().is_empty() {
                return true;
            }
            let events = record
                .events()
                .iter()
                .filter(|e| e.stream == STREAM && !is_legacy(e))
                .flat_map(|e| read_events(e).unwrap_or_default());
            for event in events {
                if let JournalEvent::CheckpointTaken { through, digest, bytes } = event {
                    let binding = crate::casino::checkpoint::Binding {
                        entry: seq,
                        through,
                        digest,
                        bytes,
                    };
                    if !more(binding) {
                        go_on = false;
                        return false;
                    }
                }
            }
            go_on
        })
        .map_err(|e| e.to_string())
}
