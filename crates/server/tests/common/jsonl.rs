//! A journal as JSON lines, one entry a line with its text and hashes: the
//! form the fixtures keep journals in.

use croupier_ledger::{Entry, Record};

/// The entries, one JSON line each.
pub fn to_lines(entries: &[Entry]) -> String {
    entries
        .iter()
        .map(|e| {
            serde_json::json!({
                "seq": e.seq,
                "at_ms": e.at_ms,
                "text": e.text,
                "prev_hash": hex::encode(e.prev_hash),
                "hash": hex::encode(e.hash),
            })
            .to_string()
                + "\n"
        })
        .collect()
}

/// The entries the lines hold, each record parsed from its text.
pub fn from_lines(lines: &str) -> Vec<Entry> {
    lines
        .lines()
        .map(|line| {
            let v: serde_json::Value = serde_json::from_str(line).expect("a line of JSON");
            let text = v["text"].as_str().expect("text").to_string();
            let hash = |key: &str| -> [u8; 32] {
                hex::decode(v[key].as_str().expect("hash"))
                    .expect("hex")
                    .try_into()
                    .expect("32 bytes")
            };
            Entry {
                seq: v["seq"].as_u64().expect("seq"),
                at_ms: v["at_ms"].as_u64().expect("at_ms"),
                record: serde_json::from_str::<Record>(&text).expect("a record"),
                text,
                prev_hash: hash("prev_hash"),
                hash: hash("hash"),
            }
        })
        .collect()
}
