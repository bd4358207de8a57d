//! A table's operations: inspections and adjustments (Colorado 2212,
//! Maryland ch.2), emergencies (european-casino 6.1-6.3), annulled pooled
//! bets (european-casino 3.7-3.8) and disputes up to journal format 4
//! (Colorado 2206(5); from format 5 in [`super::disputes`]).

use croupier_core::profile::StakeRange;
use croupier_core::round::{Adjustment, Command, Inspection, Person};
use croupier_core::{Kind, Minor};

use super::disputes::Dispute;
use super::{person, Plan, TableSlot};
use crate::api::{ApiError, ErrorCode, Role};
use crate::casino::actor::Actor;
use crate::casino::directory::Directory;
use crate::casino::request::Request;
use crate::casino::{err, policy};

impl TableSlot {
    /// Colorado 2212(1), (5) and Maryland ch.2 E(6): the log names "the
    /// license number" of who inspects or adjusts, so from journal format 15
    /// only staff whose licence is on their record do; the regulator's
    /// account (Colorado 2212(4)) holds the regulator's, not the casino's.
    fn check_licence_on_record(&self, dir: &Directory, actor: &Actor) -> Result<(), ApiError> {
        let recorded = dir.user(&actor.username).is_some_and(|u| u.licence.is_some());
        if recorded
            || actor.role == Role::Auditor
            || !self.table.profile().jurisdiction().licence_on_record
            || !dir.rules().licence_on_record
        {
            return Ok(());
        }
        Err(err(
            ErrorCode::LicenceNotRecorded,
            format!(
                "{} has no licence number on record, and the inspection and adjustment log carries it \
                 (Colorado 2212(5), Maryland ch.2 E(6)): an admin records it (set_licence) first",
                actor.username
            ),
        ))
    }

    /// An adjustment from journal format 16 (Colorado 2212(2), Maryland ch.2
    /// B): the security member present, by username, who confirms it from
    /// their own account.
    fn plan_witnessed_adjustment(
        &self,
        dir: &Directory,
        at_ms: u64,
        actor: &Actor,
        request: &Request,
        plan: &mut Plan,
    ) -> Result<(), ApiError> {
        let Request::Adjust {
            replacement,
            description,
            witness,
            witness_licence,
            external,
            ..
        } = request
        else {
            return Ok(());
        };
        let awaited = match witness {
            Some(name) => Some(self.witness_named(dir, actor, name, witness_licence.as_ref())?),
            None if witness_licence.is_some() => {
                return Err(err(
                    ErrorCode::BadWitness,
                    "witness_licence: a licence without the witness it is theirs: name the security \
                     member by username alone, and their record's licence is logged",
                ))
            }
            None => None,
        };
        if awaited.is_none() && self.table.profile().jurisdiction().adjustment_witness {
            return Err(err(
                ErrorCode::WitnessRequired,
                "an adjustment is made in the presence of a security department member: name them by \
                 username (witness), and they confirm it signed in as themselves (Colorado 2212(2), \
                 Maryland ch.2 B)",
            ));
        }
        let effect = awaited
            .clone()
            .map(|a| self.await_witness(at_ms, actor, description, a));
        let command = Command::RecordAdjustment(Adjustment {
            at_ms,
            by: person(actor, actor.role.name()),
            replacement: *replacement,
            description: description.clone(),
            witness: None,
            external: *external,
            awaiting_witness: awaited,
        });
        self.plan_core(dir, plan, command)?;
        plan.effects.extend(effect);
        Ok(())
    }

    pub(super) fn plan_operation(
        &self,
        dir: &Directory,
        at_ms: u64,
        actor: &Actor,
        request: &Request,
        plan: &mut Plan,
    ) -> Result<(), ApiError> {
        let by = || person(actor, actor.role.name());
        if matches!(request, Request::Inspect { .. } | Request::Adjust { .. }) {
            self.check_licence_on_record(dir, actor)?;
        }
        if matches!(request, Request::Inspect { .. }) {
            self.check_adjustments_witnessed(dir)?;
        }
        let command = match request {
            Request::Inspect {
                no_magnet_or_contrivance,
                wheel_level_and_rotating_freely,
                parts_secure,
                ball_non_magnetic,
                layout_and_signage_comply,
                ..
            } => {
                // The regulator's account inspects only a wheel whose external
                // part was replaced (Colorado 2212(4)); the licensee's staff
                // make every other inspection (2212(1)).
                let by_regulator = actor.role == Role::Auditor;
                if by_regulator && !self.table.awaits_regulator() {
                    return Err(err(
                        ErrorCode::Forbidden,
                        "an auditor, the regulator's designee, records an inspection only of a wheel whose \
                         external movable part was replaced (Colorado 2212(4)); the pit makes the others",
                    ));
                }
                Command::RecordInspection(Inspection {
                    at_ms,
                    by: if by_regulator { person(actor, "regulator") } else { by() },
                    no_magnet_or_contrivance: *no_magnet_or_contrivance,
                    wheel_level_and_rotating_freely: *wheel_level_and_rotating_freely,
                    parts_secure: *parts_secure,
                    ball_non_magnetic: *ball_non_magnetic,
                    layout_and_signage_comply: *layout_and_signage_comply,
                    by_regulator,
                })
            }
            Request::InspectBall { damaged, .. } => {
                let inspector = self.table.profile().jurisdiction().ball_inspected_by.as_str();
                if actor.role == Role::Dealer && inspector == "pit supervisor" {
                    return Err(err(
                        ErrorCode::Forbidden,
                        "a dealer may not inspect the ball: the pit supervisor inspects a ball that left the wheel \
                         (Colorado 2206(4))",
                    ));
                }
                if actor.role == Role::Dealer && *damaged {
                    return Err(err(
                        ErrorCode::Forbidden,
                        "a dealer may not record a new ball: a damaged ball is replaced by the floorperson or \
                         above, and the pit records it (Maryland ch.6 B(2), C(2))",
                    ));
                }
                Command::InspectBall {
                    at_ms,
                    by: by(),
                    damaged: *damaged,
                }
            }
            Request::Adjust { .. } if dir.rules().witness_confirms => {
                return self.plan_witnessed_adjustment(dir, at_ms, actor, request, plan);
            }
            Request::Adjust {
                replacement,
                description,
                witness,
                witness_licence,
                external,
                ..
            } => {
                // Up to journal format 15: the witness as the adjuster typed them.
                let witness = match (witness, witness_licence) {
                    (Some(name), Some(licence)) => Some(Person {
                        name: name.clone(),
                        role: "security".into(),
                        licence: licence.clone(),
                    }),
                    (None, None) => None,
                    _ => {
                        return Err(err(
                            ErrorCode::BadText,
                            "a witness is named with their licence number: witness and witness_licence together",
                        ))
                    }
                };
                // Colorado 2212(2), Maryland ch.2 B: adjustments are made in the
                // presence of a security department member, who is recorded.
                if witness.is_none()
                    && dir.rules().table_rules
                    && self.table.profile().jurisdiction().adjustment_witness
                {
                    return Err(err(
                        ErrorCode::WitnessRequired,
                        "an adjustment is made in the presence of a security department member: name them and their \
                         licence (witness, witness_licence; Colorado 2212(2), Maryland ch.2 B)",
                    ));
                }
                Command::RecordAdjustment(Adjustment {
                    at_ms,
                    by: by(),
                    replacement: *replacement,
                    description: description.clone(),
                    witness,
                    external: *external,
                    awaiting_witness: None,
                })
            }
            Request::SetLimits { limits, .. } => {
                let mut core_limits = Vec::with_capacity(limits.len());
                for l in limits {
                    let kind = Kind::parse(&l.kind).ok_or_else(|| {
                        err(
                            ErrorCode::BadLimits,
                            format!("limits: {:?} is not a kind of bet", l.kind),
                        )
                    })?;
                    let range = StakeRange {
                        min: Minor::new(l.min),
                        max: Minor::new(l.max),
                    };
                    core_limits.push((kind, range));
                }
                // Maryland ch.1 G(3): once a sign is required, no posting leaves a kind off it.
                if self.table.profile().jurisdiction().limits_on_layout && dir.rules().limits_posted {
                    let kinds: Vec<Kind> = core_limits.iter().map(|(k, _)| *k).collect();
                    self.check_sign_complete(&kinds, "the table's sign shows")?;
                }
                Command::SetLimits {
                    at_ms,
                    by: by(),
                    limits: core_limits,
                }
            }
            Request::DeclareEmergency { reason, .. } => Command::DeclareEmergency {
                at_ms,
                by: by(),
                reason: reason.clone(),
            },
            Request::LiftEmergency { .. } => Command::LiftEmergency { at_ms, by: by() },
            Request::AnnulBets { bet_ids, reason, .. } => Command::AnnulBets {
                at_ms,
                by: by(),
                bet_ids: bet_ids.clone(),
                reason: reason.clone(),
            },
            Request::Dispute {
                reason,
                corrections,
                round,
                id,
                ..
            } if dir.rules().disputes_bound => {
                let dispute = Dispute {
                    reason,
                    corrections,
                    round: *round,
                    id: id.as_deref(),
                };
                return self.plan_dispute(dir, at_ms, actor, dispute, plan);
            }
            Request::Dispute {
                reason, corrections, ..
            } => {
                // Up to journal format 4.
                let authority = self.table.profile().spec().dispute_authority.clone();
                // Colorado 2206(5): the pit supervisor, not the dealer.
                let role_text = if policy::acts_as_authority(actor.role, &authority) {
                    authority.as_str()
                } else {
                    actor.role.name()
                };
                let mut core_corrections = Vec::new();
                for c in corrections {
                    core_corrections.push((dir.player(&c.player)?.player_id, i128::from(c.amount)));
                }
                Command::DecideDispute {
                    at_ms,
                    by: person(actor, role_text),
                    reason: reason.clone(),
                    corrections: core_corrections,
                }
            }
            _ => return Err(err(ErrorCode::Internal, "not a table operation")),
        };
        self.plan_core(dir, plan, command)
    }
}
