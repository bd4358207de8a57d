//! Adjustments' security witness (Colorado 2212(2): adjustments "in the
//! presence of a licensed security department member"; Maryland ch.2 B: "in
//! the presence of a security department member"), from journal format 16:
//!
//! - `adjust` names the witness by username: a user of the security role,
//!   not locked, with a licence on record; no licence is typed;
//! - the adjustment is logged at once, numbered at its table, and awaits its
//!   witness, who confirms it signed in as themselves (`witness_adjustment`):
//!   the log shows their name and recorded licence from the confirmation;
//! - while an adjustment awaits its witness no inspection is recorded, and
//!   so the table does not open (2212(3), ch.2 C: "All adjustments shall be
//!   completed prior to the required inspections");
//! - the pit may withdraw an adjustment not yet witnessed, with a reason
//!   (`withdraw_adjustment`): the log keeps it, unwitnessed, and the
//!   inspection may follow. A witness who is away, locked or named by
//!   mistake would otherwise keep the table closed for good.

use std::collections::BTreeMap;

use croupier_core::round::AwaitedWitness;

use super::{Effect, Plan, TableSlot};
use crate::api::bodies::AwaitingWitness;
use crate::api::{ApiError, ErrorCode, Role};
use crate::casino::actor::Actor;
use crate::casino::directory::Directory;
use crate::casino::err;
use crate::casino::journal::{require_format, JournalEvent, FORMAT_WITNESS_CONFIRMS};
use crate::casino::request::Request;

/// The adjustments a table holds awaiting their witness at once.
pub const AWAITING_MAX: usize = 20;
/// The witnessed or withdrawn adjustments a table remembers, to refuse a
/// second confirmation by name rather than as unknown.
pub const CLOSED_KEPT: usize = 100;
/// The longest reason for withdrawing an adjustment, in bytes.
pub const WITHDRAW_REASON_MAX_BYTES: usize = 200;

/// How an adjustment that named a witness ended.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Closed {
    pub by: String,
    pub at_ms: u64,
    /// The pit's reason for withdrawing it; `None`: its witness confirmed it.
    pub withdrawn: Option<String>,
}

/// An adjustment that named its witness (journal format 16).
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Awaited {
    pub at_ms: u64,
    pub by: String,
    pub description: String,
    pub witness: String,
    pub closed: Option<Closed>,
}

/// A table's adjustments that named a witness, by number. Only this file
/// reads or changes them.
#[derive(Clone, Debug, Default, serde::Serialize, serde::Deserialize)]
pub struct Witnessing {
    /// The number of the last one.
    last: u64,
    adjustments: BTreeMap<u64, Awaited>,
}

impl Witnessing {
    pub fn is_empty(&self) -> bool {
        self.last == 0
    }

    fn awaiting(&self) -> impl Iterator<Item = (&u64, &Awaited)> {
        self.adjustments.iter().filter(|(_, a)| a.closed.is_none())
    }
}

/// What a witness's request changes once durable.
pub(in crate::casino) enum WitnessChange {
    Awaiting(u64, Awaited),
    /// Witnessed or withdrawn, with the log's entry.
    Closed(u64, Closed, JournalEvent),
}

impl TableSlot {
    /// The witness `adjust` names from format 16, checked: a security user,
    /// not locked, with a licence on record, and not the adjuster.
    pub(super) fn witness_named(
        &self,
        dir: &Directory,
        actor: &Actor,
        witness: &str,
        typed_licence: Option<&String>,
    ) -> Result<AwaitedWitness, ApiError> {
        let refuse = |why: String| err(ErrorCode::BadWitness, format!("witness: {why}"));
        if typed_licence.is_some() {
            return Err(refuse(
                "the witness's licence is taken from their record, never typed: name the witness by username \
                 alone, without witness_licence"
                    .into(),
            ));
        }
        if witness == actor.username {
            return Err(refuse(format!(
                "{witness} makes the adjustment: it is made in the presence of another, a security department \
                 member (Colorado 2212(2), Maryland ch.2 B)"
            )));
        }
        let Some(user) = dir.user(witness) else {
            return Err(refuse(format!(
                "no user is named {witness:?}; name the security member by username"
            )));
        };
        if user.role != Role::Security {
            return Err(refuse(format!(
                "{witness} is a {}, not a member of the security department (Colorado 2212(2), Maryland ch.2 B)",
                user.role.name().replace('_', " ")
            )));
        }
        if user.locked {
            return Err(refuse(format!("{witness}'s account is locked: they cannot confirm it")));
        }
        if user.licence.is_none() {
            return Err(err(
                ErrorCode::LicenceNotRecorded,
                format!(
                    "witness: {witness} has no licence number on record, and the log carries the witness's \
                     (Colorado 2212(2), (5)): an admin records it (set_licence) first"
                ),
            ));
        }
        if self.witnessing.awaiting().count() >= AWAITING_MAX {
            return Err(err(
                ErrorCode::Full,
                format!(
                    "table {} holds {AWAITING_MAX} adjustments awaiting their witness: have them confirmed or \
                     withdraw some first",
                    self.id
                ),
            ));
        }
        Ok(AwaitedWitness {
            adjustment: self.witnessing.last + 1,
            witness: witness.to_string(),
        })
    }

    /// The effect of an adjustment logged awaiting its witness.
    pub(super) fn await_witness(
        &self,
        at_ms: u64,
        actor: &Actor,
        description: &str,
        awaited: AwaitedWitness,
    ) -> Effect {
        Effect::Witness(WitnessChange::Awaiting(
            awaited.adjustment,
            Awaited {
                at_ms,
                by: actor.username.clone(),
                description: description.to_string(),
                witness: awaited.witness,
                closed: None,
            },
        ))
    }

    /// Colorado 2212(3), Maryland ch.2 C: no inspection while an adjustment
    /// awaits its witness, for it is not yet completed.
    pub(super) fn check_adjustments_witnessed(&self, dir: &Directory) -> Result<(), ApiError> {
        if !dir.rules().witness_confirms {
            return Ok(());
        }
        let awaiting: Vec<String> = self
            .witnessing
            .awaiting()
            .map(|(n, a)| format!("{n} (witness {})", a.witness))
            .collect();
        if awaiting.is_empty() {
            return Ok(());
        }
        Err(err(
            ErrorCode::AdjustmentNotWitnessed,
            format!(
                "table {}: adjustment {} awaits its security witness, and all adjustments are completed before \
                 the inspection (Colorado 2212(3), Maryland ch.2 C): the witness confirms it, or the pit \
                 withdraws it, first",
                self.id,
                awaiting.join(", ")
            ),
        ))
    }

    /// Plans a witness's confirmation or the pit's withdrawal.
    /// The confirmation of adjustment `n` by `actor`, who must be its
    /// `witness`, with the licence on their record.
    fn witnessed(
        &self,
        dir: &Directory,
        at_ms: u64,
        actor: &Actor,
        n: u64,
        witness: &str,
    ) -> Result<JournalEvent, ApiError> {
        // Only the member named, on their own account.
        if actor.username != witness {
            return Err(err(
                ErrorCode::NotTheWitness,
                format!(
                    "adjustment {n} at table {} names {} as its security witness: only they confirm it, \
                     signed in as themselves, not {}",
                    self.id, witness, actor.username
                ),
            ));
        }
        // The record's licence, as the log carries it (Colorado 2212(5)).
        let Some(licence) = dir.user(&actor.username).and_then(|u| u.licence.clone()) else {
            return Err(err(
                ErrorCode::LicenceNotRecorded,
                format!(
                    "{} has no licence number on record, and the log carries the witness's (Colorado \
                     2212(2), (5)): an admin records it (set_licence) first",
                    actor.username
                ),
            ));
        };
        let event = JournalEvent::AdjustmentWitnessed {
            table: self.id.clone(),
            at_ms,
            adjustment: n,
            by: actor.username.clone(),
            licence,
        };
        Ok(event)
    }

    /// The withdrawal of adjustment `n` by `actor`, for `reason`.
    fn withdrawn(&self, at_ms: u64, actor: &Actor, n: u64, reason: &str) -> Result<JournalEvent, ApiError> {
        let text = reason.trim();
        if text.is_empty() || reason.len() > WITHDRAW_REASON_MAX_BYTES || reason.chars().any(char::is_control) {
            return Err(err(
                ErrorCode::BadText,
                format!(
                    "reason: why the adjustment is withdrawn, 1 to {WITHDRAW_REASON_MAX_BYTES} bytes of \
                     text on one line"
                ),
            ));
        }
        let event = JournalEvent::AdjustmentWithdrawn {
            table: self.id.clone(),
            at_ms,
            adjustment: n,
            by: actor.username.clone(),
            licence: super::person(actor, "").licence,
            reason: reason.to_string(),
        };
        Ok(event)
    }

    pub(super) fn plan_witness(
        &self,
        dir: &Directory,
        at_ms: u64,
        actor: &Actor,
        request: &Request,
        plan: &mut Plan,
    ) -> Result<(), ApiError> {
        require_format(
            dir.journal_format(),
            FORMAT_WITNESS_CONFIRMS,
            "an adjustment's witness confirming it is",
        )?;
        let (Request::WitnessAdjustment { adjustment, .. } | Request::WithdrawAdjustment { adjustment, .. }) = request
        else {
            return Err(err(ErrorCode::Internal, "not a witness's request"));
        };
        let n = *adjustment;
        let Some(awaited) = self.witnessing.adjustments.get(&n) else {
            return Err(err(
                ErrorCode::NoAdjustment,
                format!("adjustment: table {} has no adjustment {n} awaiting a witness", self.id),
            ));
        };
        if let Some(closed) = &awaited.closed {
            let how = if closed.withdrawn.is_some() {
                "withdrawn"
            } else {
                "witnessed"
            };
            return Err(err(
                ErrorCode::AdjustmentClosed,
                format!(
                    "adjustment: adjustment {n} at table {} was {how} by {} already",
                    self.id, closed.by
                ),
            ));
        }
        let (event, withdrawn) = match request {
            Request::WitnessAdjustment { .. } => (self.witnessed(dir, at_ms, actor, n, &awaited.witness)?, None),
            Request::WithdrawAdjustment { reason, .. } => {
                // A second person: the adjuster alone could otherwise withdraw
                // what no witness saw and inspect the table again (2212(2)-(3)).
                if actor.username == awaited.by || actor.username == awaited.witness {
                    return Err(err(
                        ErrorCode::Forbidden,
                        format!(
                            "adjustment {n} at table {} was made by {} with {} named as witness: another \
                             supervisor withdraws it, not {}",
                            self.id, awaited.by, awaited.witness, actor.username
                        ),
                    ));
                }
                (self.withdrawn(at_ms, actor, n, reason)?, Some(reason.clone()))
            }
            _ => return Err(err(ErrorCode::Internal, "not a witness's request")),
        };
        let closed = Closed {
            by: actor.username.clone(),
            at_ms,
            withdrawn,
        };
        plan.events.push(event.clone());
        plan.effects
            .push(Effect::Witness(WitnessChange::Closed(n, closed, event)));
        Ok(())
    }

    /// Applies a witness's change, logging a confirmation or withdrawal, and
    /// forgets the oldest closed adjustments past [`CLOSED_KEPT`].
    pub(super) fn change_witnessing(&mut self, at_ms: u64, change: WitnessChange) {
        match change {
            WitnessChange::Awaiting(n, awaited) => {
                self.witnessing.last = self.witnessing.last.max(n);
                self.witnessing.adjustments.insert(n, awaited);
            }
            WitnessChange::Closed(n, closed, event) => {
                if let Some(a) = self.witnessing.adjustments.get_mut(&n) {
                    a.closed = Some(closed);
                }
                self.log_event(at_ms, event);
            }
        }
        let closed: Vec<u64> = self
            .witnessing
            .adjustments
            .iter()
            .filter(|(_, a)| a.closed.is_some())
            .map(|(n, _)| *n)
            .collect();
        for n in closed.iter().take(closed.len().saturating_sub(CLOSED_KEPT)) {
            self.witnessing.adjustments.remove(n);
        }
    }

    /// The adjustments awaiting their witness, oldest first.
    pub fn awaiting_witness(&self) -> Vec<AwaitingWitness> {
        self.witnessing
            .awaiting()
            .map(|(n, a)| AwaitingWitness {
                table: self.id.clone(),
                adjustment: *n,
                at_ms: a.at_ms,
                by: a.by.clone(),
                description: a.description.clone(),
                witness: a.witness.clone(),
            })
            .collect()
    }
}
