//! Deciding a command: each command's checks against the table as it
//! stands, and the events it would cause. Nothing here changes the table.

use super::{
    Adjustment, Command, CommandError, Event, Inspection, Person, Phase, PlayerId, ReturnReason, RoundBet, Table,
    BET_ID_MAX_BYTES, ROUND_BETS_MAX, TEXT_MAX_BYTES,
};
use crate::money::{Minor, STAKE_MAX_MINOR};
use crate::no_spin::NoSpinReason;
use crate::profile::StakeRange;
use crate::settle::BetRequest;
use crate::spot::Kind;

fn check_text(what: &'static str, text: &str) -> Result<(), CommandError> {
    if text.trim().is_empty() || text.len() > TEXT_MAX_BYTES {
        return Err(CommandError::BadText(what));
    }
    Ok(())
}

fn check_person(by: &Person) -> Result<(), CommandError> {
    check_text("name", &by.name)?;
    check_text("role", &by.role)?;
    check_text("licence number", &by.licence)
}

impl Table {
    /// The events a command would cause, without changing the table: a
    /// caller that must make the money durable first decides, commits, then
    /// applies.
    pub fn decide(&self, command: Command) -> Result<Vec<Event>, CommandError> {
        use Command as C;
        match command {
            C::RecordInspection(inspection) => self.decide_inspection(inspection),
            C::RecordAdjustment(adjustment) => self.decide_adjustment(adjustment),
            C::SetLimits { at_ms, by, limits } => self.decide_limits(at_ms, by, limits),
            C::Open { at_ms } => self.decide_open(at_ms),
            C::Close { at_ms } => self.decide_close(at_ms),
            C::OpenBetting { at_ms } => self.decide_open_betting(at_ms),
            C::PlaceBet {
                at_ms,
                bet_id,
                player,
                spot,
                stake_minor,
                zero_choice,
                coupon_minor,
            } => {
                let request = BetRequest {
                    spot: &spot,
                    stake_minor,
                    zero_choice,
                    coupon_minor,
                };
                self.decide_bet(at_ms, bet_id, player, &request)
            }
            C::CancelBet { at_ms, bet_id, player } => self.decide_cancel(at_ms, bet_id, player),
            C::NoMoreBets { at_ms } => self.decide_no_more_bets(at_ms),
            C::Spin { at_ms, report } => self.decide_spin(at_ms, report, &[]),
            C::BonusSpin { at_ms, report, symbols } => self.decide_spin(at_ms, report, &symbols),
            command @ (C::DrawBonus { .. } | C::PlaceBonusWager { .. }) => self.decide_bonus(command),
            C::PlaceSeries {
                at_ms,
                by,
                player,
                bets,
            } => self.decide_series(at_ms, by, player, bets),
            C::InspectBall { at_ms, by, damaged } => self.decide_ball_inspection(at_ms, by, damaged),
            C::DeclareEmergency { at_ms, by, reason } => self.decide_emergency(at_ms, by, reason),
            C::LiftEmergency { at_ms, by } => self.decide_lift_emergency(at_ms, by),
            C::AnnulBets {
                at_ms,
                by,
                bet_ids,
                reason,
            } => self.decide_annul(at_ms, by, bet_ids, reason),
            C::VoidRound { at_ms, reason } => self.decide_void(at_ms, reason),
            C::DecideDispute {
                at_ms,
                by,
                reason,
                corrections,
            } => self.decide_dispute(at_ms, by, reason, corrections),
        }
    }

    fn decide_inspection(&self, inspection: Inspection) -> Result<Vec<Event>, CommandError> {
        self.at(inspection.at_ms)?;
        check_person(&inspection.by)?;
        let failed: Vec<&'static str> = [
            (inspection.no_magnet_or_contrivance, "no magnet or other contrivance"),
            (
                inspection.wheel_level_and_rotating_freely,
                "the wheel level and rotating freely",
            ),
            (inspection.parts_secure, "the wheel's parts secure"),
            (inspection.ball_non_magnetic, "the balls non-magnetic"),
            (
                inspection.layout_and_signage_comply || !self.config.wheel.used_as_single_zero(),
                "the 00 cover and signage for a double-zero wheel used as single zero in place",
            ),
        ]
        .into_iter()
        .filter(|(ok, _)| !ok)
        .map(|(_, why)| why)
        .collect::<Vec<_>>();
        if self.awaits_regulator && !inspection.by_regulator {
            return Err(CommandError::RegulatorInspectionRequired);
        }
        // Every item that failed is named, not only the first.
        if !failed.is_empty() {
            return Err(CommandError::InspectionFailed(failed));
        }
        Ok(vec![Event::InspectionRecorded(inspection)])
    }

    fn decide_adjustment(&self, adjustment: Adjustment) -> Result<Vec<Event>, CommandError> {
        self.at(adjustment.at_ms)?;
        check_person(&adjustment.by)?;
        check_text("description", &adjustment.description)?;
        if let Some(witness) = &adjustment.witness {
            check_person(witness)?;
        }
        if let Some(awaited) = &adjustment.awaiting_witness {
            check_text("witness", &awaited.witness)?;
        }
        // Colorado 2212(2)(a): adjustments only when the game is not open.
        if self.phase != Phase::Closed {
            return Err(CommandError::RoundUnderWay);
        }
        Ok(vec![Event::AdjustmentRecorded(adjustment)])
    }

    fn decide_limits(
        &self,
        at_ms: u64,
        by: Person,
        limits: Vec<(Kind, StakeRange)>,
    ) -> Result<Vec<Event>, CommandError> {
        self.at(at_ms)?;
        check_person(&by)?;
        if !matches!(self.phase, Phase::Closed | Phase::Open) {
            return Err(CommandError::LimitsInRound);
        }
        self.check_limits(&limits)?;
        Ok(vec![Event::LimitsSet { at_ms, by, limits }])
    }

    /// The limits a table may post: each kind offered on its wheel, listed
    /// once, 0 < min <= max, and within what the profile itself posts.
    fn check_limits(&self, limits: &[(Kind, StakeRange)]) -> Result<(), CommandError> {
        let offered = self.profile.kinds_on(self.config.wheel);
        for (i, &(kind, range)) in limits.iter().enumerate() {
            let bad = |why: String| CommandError::BadLimits {
                kind: kind.name().to_string(),
                why,
            };
            if limits[..i].iter().any(|(k, _)| *k == kind) {
                return Err(bad("listed twice".into()));
            }
            if !offered.contains(&kind) {
                return Err(bad(format!("{kind} is not offered at this table")));
            }
            // A composite bet plays as the bets it stands for, and their limits are its.
            if matches!(kind, Kind::Neighbours | Kind::Complete) {
                return Err(bad(format!(
                    "{kind} is limited by the bets it stands for; post their limits instead"
                )));
            }
            if range.min == Minor::ZERO || range.min > range.max || range.max.get() > STAKE_MAX_MINOR {
                return Err(bad(format!(
                    "the minimum {} and maximum {} must satisfy 0 < minimum <= maximum <= {}",
                    range.min,
                    range.max,
                    Minor::new(STAKE_MAX_MINOR)
                )));
            }
            if let Some((_, bound)) = self.posted.iter().find(|(k, _)| *k == kind) {
                if range.min < bound.min || range.max > bound.max {
                    return Err(bad(format!(
                        "{} to {} is outside the profile's own {} to {}",
                        range.min, range.max, bound.min, bound.max
                    )));
                }
            }
        }
        // The profile's own limits cannot be taken away, only narrowed.
        if let Some((kind, _)) = self.posted.iter().find(|(k, _)| !limits.iter().any(|(l, _)| l == k)) {
            return Err(CommandError::BadLimits {
                kind: kind.name().to_string(),
                why: "the profile posts a limit for it; the table narrows it, never removes it".into(),
            });
        }
        Ok(())
    }

    fn decide_open(&self, at_ms: u64) -> Result<Vec<Event>, CommandError> {
        self.at(at_ms)?;
        match self.phase {
            Phase::Closed if !self.inspected => Err(CommandError::NotInspected),
            Phase::Closed => Ok(vec![Event::TableOpened { at_ms }]),
            _ => Err(CommandError::AlreadyOpen),
        }
    }

    fn decide_close(&self, at_ms: u64) -> Result<Vec<Event>, CommandError> {
        self.at(at_ms)?;
        match self.phase {
            Phase::Closed => Err(CommandError::Closed),
            Phase::NoMoreBets => Err(CommandError::RoundUnderWay),
            Phase::Open | Phase::BettingOpen { .. } => {
                let mut events = self.return_all(ReturnReason::TableClosed);
                events.push(Event::TableClosed { at_ms });
                Ok(events)
            }
        }
    }

    fn decide_open_betting(&self, at_ms: u64) -> Result<Vec<Event>, CommandError> {
        self.at(at_ms)?;
        match self.phase {
            Phase::Closed => Err(CommandError::Closed),
            Phase::Open => Ok(vec![Event::BettingOpened {
                at_ms,
                round: self.round + 1,
                deadline_ms: at_ms + self.config.betting_window_ms,
            }]),
            _ => Err(CommandError::RoundUnderWay),
        }
    }

    fn decide_bet(
        &self,
        at_ms: u64,
        bet_id: String,
        player: PlayerId,
        request: &BetRequest<'_>,
    ) -> Result<Vec<Event>, CommandError> {
        self.check_placing(at_ms, &bet_id)?;
        if self.bets.len() >= ROUND_BETS_MAX {
            return Err(CommandError::RoundFull);
        }
        let bet = self.rules().place(request)?;
        self.check_roulette_x_bet(&bet)?;
        Ok(vec![Event::BetAccepted {
            at_ms,
            round: self.round,
            bet: RoundBet {
                bet_id,
                player,
                bet,
                spins: Vec::new(),
                carried: false,
            },
        }])
    }

    /// Whether a bet or a Bonus Spin Xtreme wager with this id may be placed
    /// now: betting open before its deadline, no emergency, and an id of its
    /// own this round (it names the movements of its money).
    pub(super) fn check_placing(&self, at_ms: u64, id: &str) -> Result<(), CommandError> {
        self.at(at_ms)?;
        match self.phase {
            Phase::BettingOpen { deadline_ms } if at_ms < deadline_ms => {}
            // low-limit-house Irregularities (4); european-casino 3.3-3.4;
            // Maryland ch.3 F(17)(b): a wager is locked out once the round is started.
            Phase::BettingOpen { .. } | Phase::NoMoreBets => return Err(CommandError::PastPosting),
            Phase::Closed => return Err(CommandError::Closed),
            Phase::Open => return Err(CommandError::BettingNotOpen),
        }
        if self.emergency {
            return Err(CommandError::Emergency);
        }
        if id.is_empty() || id.len() > BET_ID_MAX_BYTES {
            return Err(CommandError::BadBetId);
        }
        if self.index.contains_key(id)
            || self.withdrawn.contains(id)
            || self.bonus_wagers.iter().any(|w| w.wager_id == id)
        {
            return Err(CommandError::DuplicateBet(id.to_string()));
        }
        Ok(())
    }

    fn decide_cancel(&self, at_ms: u64, bet_id: String, player: PlayerId) -> Result<Vec<Event>, CommandError> {
        self.at(at_ms)?;
        match self.phase {
            Phase::BettingOpen { deadline_ms } if at_ms < deadline_ms => {}
            // Maryland ch.5 C: after no more bets no one touches a chip.
            Phase::BettingOpen { .. } | Phase::NoMoreBets => return Err(CommandError::PastPosting),
            _ => return Err(CommandError::BettingNotOpen),
        }
        let bet = self
            .bets
            .iter()
            .find(|b| b.bet_id == bet_id && b.player == player && !b.carried)
            .ok_or_else(|| CommandError::NoSuchBet(bet_id.clone()))?;
        Ok(vec![Event::BetCancelled {
            at_ms,
            round: self.round,
            bet_id,
            player,
            returned: bet.bet.stake().minor(),
        }])
    }

    fn decide_no_more_bets(&self, at_ms: u64) -> Result<Vec<Event>, CommandError> {
        self.at(at_ms)?;
        match self.phase {
            Phase::BettingOpen { .. } => Ok(vec![Event::NoMoreBets {
                at_ms,
                round: self.round,
            }]),
            Phase::Closed => Err(CommandError::Closed),
            _ => Err(CommandError::BettingNotOpen),
        }
    }

    fn decide_series(
        &self,
        at_ms: u64,
        by: Person,
        player: PlayerId,
        bets: Vec<(String, String, i128)>,
    ) -> Result<Vec<Event>, CommandError> {
        check_person(&by)?;
        // Each bet is judged after those before it, on a copy: the
        // first refusal refuses the whole series.
        let mut scratch = self.clone();
        let mut events = Vec::with_capacity(bets.len() + 1);
        events.push(Event::SeriesEntered {
            at_ms,
            by,
            player,
            bet_ids: bets.iter().map(|(id, _, _)| id.clone()).collect(),
        });
        for (bet_id, spot, stake_minor) in bets {
            let accepted = scratch.decide(Command::PlaceBet {
                at_ms,
                bet_id,
                player,
                spot,
                stake_minor,
                zero_choice: None,
                coupon_minor: None,
            })?;
            scratch.apply_all(&accepted);
            events.extend(accepted);
        }
        Ok(events)
    }

    fn decide_ball_inspection(&self, at_ms: u64, by: Person, damaged: bool) -> Result<Vec<Event>, CommandError> {
        self.at(at_ms)?;
        check_person(&by)?;
        let reason = self.ball_awaits.ok_or(CommandError::NoBallToInspect)?;
        Ok(vec![Event::BallInspected {
            at_ms,
            by,
            reason,
            damaged,
        }])
    }

    fn decide_emergency(&self, at_ms: u64, by: Person, reason: String) -> Result<Vec<Event>, CommandError> {
        self.at(at_ms)?;
        check_person(&by)?;
        check_text("reason", &reason)?;
        let mut events = vec![Event::EmergencyDeclared { at_ms, by, reason }];
        // european-casino 6.1, 6.3: every spin under way is invalid.
        if self.phase == Phase::NoMoreBets {
            events.push(Event::NoSpin {
                at_ms,
                round: self.round,
                reason: NoSpinReason::Emergency,
            });
        }
        Ok(events)
    }

    fn decide_lift_emergency(&self, at_ms: u64, by: Person) -> Result<Vec<Event>, CommandError> {
        self.at(at_ms)?;
        check_person(&by)?;
        if !self.emergency {
            return Err(CommandError::NoEmergency);
        }
        Ok(vec![Event::EmergencyLifted { at_ms, by }])
    }

    fn decide_annul(
        &self,
        at_ms: u64,
        by: Person,
        bet_ids: Vec<String>,
        reason: String,
    ) -> Result<Vec<Event>, CommandError> {
        self.at(at_ms)?;
        check_person(&by)?;
        check_text("reason", &reason)?;
        for id in &bet_ids {
            if !self.index.contains_key(id) {
                return Err(CommandError::NoSuchBet(id.clone()));
            }
        }
        let mut events = vec![Event::BetsAnnulled {
            at_ms,
            by,
            bet_ids: bet_ids.clone(),
            reason,
        }];
        for b in self.bets.iter().filter(|b| bet_ids.contains(&b.bet_id)) {
            events.push(Event::BetReturned {
                round: self.round,
                bet_id: b.bet_id.clone(),
                player: b.player,
                returned: b.bet.stake().minor(),
                why: ReturnReason::Annulled,
            });
        }
        Ok(events)
    }

    fn decide_void(&self, at_ms: u64, reason: String) -> Result<Vec<Event>, CommandError> {
        self.at(at_ms)?;
        check_text("reason", &reason)?;
        if !matches!(self.phase, Phase::BettingOpen { .. } | Phase::NoMoreBets) {
            return Err(CommandError::NotSpinning);
        }
        let mut events = vec![Event::NoSpin {
            at_ms,
            round: self.round,
            reason: NoSpinReason::VoidGame,
        }];
        events.extend(self.return_all(ReturnReason::RoundVoided));
        events.push(Event::RoundSettled {
            at_ms,
            round: self.round,
            pocket: None,
            staked: Minor::ZERO,
            returned: Minor::ZERO,
        });
        Ok(events)
    }

    fn decide_dispute(
        &self,
        at_ms: u64,
        by: Person,
        reason: String,
        corrections: Vec<(PlayerId, i128)>,
    ) -> Result<Vec<Event>, CommandError> {
        self.at(at_ms)?;
        check_person(&by)?;
        check_text("reason", &reason)?;
        let authority = &self.profile.spec().dispute_authority;
        if !by.role.eq_ignore_ascii_case(authority) {
            return Err(CommandError::NotDisputeAuthority {
                authority: authority.clone(),
                role: by.role.clone(),
            });
        }
        Ok(vec![Event::DisputeDecided {
            at_ms,
            by,
            reason,
            corrections,
        }])
    }

    /// Every bet on the layout back whole, and every Bonus Spin Xtreme wager.
    pub(super) fn return_all(&self, why: ReturnReason) -> Vec<Event> {
        self.bets
            .iter()
            .map(|b| Event::BetReturned {
                round: self.round,
                bet_id: b.bet_id.clone(),
                player: b.player,
                // An imprisoned bet goes back whole; nothing decided it.
                returned: b.bet.stake().minor(),
                why,
            })
            .chain(self.return_bonus_wagers())
            .collect()
    }
}
