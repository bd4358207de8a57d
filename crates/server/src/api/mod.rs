//! The wire, in one place: what clients send ([`ClientRequest`]), what the
//! server answers ([`bodies`]), the events it shows ([`EventView`]) and to
//! whom ([`Audience`]), and its refusals ([`ErrorCode`]). Plain data:
//! nothing here knows the casino, the runtime or HTTP, and the journal
//! keeps types of its own.

mod audience;
pub mod bodies;
mod day_report;
mod error;
mod event;
mod floor;
pub mod integrity;
mod layout;
mod plain_events;
mod plain_requests;
pub mod player_search;
mod recall;
mod report;
mod request;
mod role;
mod shift_report;
pub mod tournament;

pub use audience::{Audience, Viewer};
pub use day_report::decimal;
pub use error::{a_role, ApiError, ErrorBody, ErrorCode};
pub use event::{EventView, LuckyView, RevaluedLot};
pub(crate) use plain_events::plain_events;
pub(crate) use plain_requests::{plain_requests, table_of};
pub use request::{BetOp, ClientRequest, Correction, KindLimit, OutcomeSource, PlaceBet, Role, SpinView};
pub use tournament::{PaidWith, TournamentOrder};
