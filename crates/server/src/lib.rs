//! The table server's service layer.
//!
//! A [`casino::Casino`] executes [`api::Request`]s for authenticated
//! [`api::Actor`]s. Each accepted request is journaled together with the
//! events it caused and the transfers that move its money, in one atomic,
//! durable ledger batch; only then does the state change. Opening a casino
//! replays its journal request by request, checks that every request gives
//! the same events and transfers again, and voids any round that was
//! interrupted before its result.

pub mod api;
pub mod archive;
pub mod casino;
pub mod committer;
pub mod http;
pub mod sessions;
pub mod users;
pub mod writers;
