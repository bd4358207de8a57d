//! A table's round: opening and closing the table, betting, no more bets,
//! the spin and its settlement, and an interrupted round voided.

use croupier_core::round::Command;

use super::{Plan, TableSlot};
use crate::api::{ApiError, ErrorCode};
use crate::casino::directory::Directory;
use crate::casino::err;
use crate::casino::request::Request;

impl TableSlot {
    pub(super) fn plan_round(
        &self,
        dir: &Directory,
        at_ms: u64,
        request: &Request,
        plan: &mut Plan,
    ) -> Result<(), ApiError> {
        let command = match request {
            Request::OpenTable { .. } => Command::Open { at_ms },
            Request::CloseTable { .. } => Command::Close { at_ms },
            Request::OpenBetting { .. } => Command::OpenBetting { at_ms },
            Request::NoMoreBets { .. } => Command::NoMoreBets { at_ms },
            Request::Spin { spin, .. } => Command::Spin {
                at_ms,
                report: spin.to_report().map_err(|e| err(ErrorCode::BadSpin, e))?,
            },
            Request::VoidRound { reason, .. } => Command::VoidRound {
                at_ms,
                reason: reason.clone(),
            },
            _ => return Err(err(ErrorCode::Internal, "not a request about the round")),
        };
        self.plan_core(dir, plan, command)
    }
}
