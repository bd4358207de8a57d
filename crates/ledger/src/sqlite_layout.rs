//! The SQLite journal on disk: its file in a data directory and the
//! layout it is written in, which the live database and its closed
//! segments share.

/// The layout of the journal's database this build writes (SQLite's
/// `user_version`): 3, each entry carries its MAC under the secret
/// ([`crate::macs`]; rows written before read with none); 2, the journal may
/// be cut into segments, its first entries in their files
/// ([`crate::segments`]); 1, records compressed ([`crate::compact`]); 0,
/// before. A build of an earlier layout refuses it: it would write entries
/// without their MACs.
pub const LAYOUT: i64 = 3;

/// The database file inside a data directory.
pub const DATABASE_FILE: &str = "croupier.db";
