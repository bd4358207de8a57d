//! Automated wheels.
//!
//! [`slingshot2`] is the status format of the SlingShot 2 wheel: ASCII lines
//! ending CRLF, a frame `*X;state;game;last;warnings;speed;direction` every
//! half second, a bare winning-number line before the first state-5 frame,
//! and host commands `*P 1` / `*P 0` (open, close) and `*u 1` (start the next
//! game). [`monitor`] turns a stream of lines into finished games;
//! [`emulator`] speaks the format for tests and demonstrations.

pub mod emulator;
pub mod monitor;
pub mod slingshot2;
