//! croupier's table server, in four layers that depend one way:
//!
//! - [`api`]: the wire: what clients send, what the server answers, its
//!   event views and its refusals. Plain data.
//! - [`casino`]: the casino itself, pure and single-threaded: the cage, the
//!   tables, the role policy, settlement, the journal's own format, recall.
//! - [`runtime`]: everything that runs: the clock, the writers, the
//!   committer, the archive, the automated wheels, and the floor the edge
//!   talks to.
//! - [`http`]: the HTTP edge with axum, the pages and the table streams.
//!
//! `casino` never imports `runtime` or `http`, and `runtime` never imports
//! `http` (a tidy test checks it).

pub mod api;
pub mod casino;
pub mod http;
pub mod runtime;
