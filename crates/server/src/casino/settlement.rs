//! A core command's events at a table, and the transfers that move their
//! money: stakes onto the layout, bets returned, a round settled (losing
//! bets collected first, then winners paid, Colorado 2205(4)), dispute
//! corrections, and a fill from the house when the float cannot pay.

use std::collections::BTreeMap;

use croupier_core::round::{Command, CommandError, Event};
use croupier_core::{BetError, Outcome, SpotError, StakeError};
use croupier_ledger::Account;

use super::directory::Directory;
use super::err;
use super::journal::{self, JournalEvent};
use super::table::{transfer, Effect, Plan, TableSlot};
use crate::api::{ApiError, ErrorCode};

impl TableSlot {
    /// A core command's events, and the transfers that move their money.
    pub(super) fn plan_core(&self, dir: &Directory, plan: &mut Plan, command: Command) -> Result<(), ApiError> {
        let table = self.id.as_str();
        let events = self.table.decide(command).map_err(command_error)?;
        self.coupons_returned(&events, plan);
        let chips = |player: u64| self.stakes_of(&dir.name_ref(player));
        let (layout, float) = &self.round_accounts()?;
        // Points are the tournament's: the ledger judges a stake of them, and
        // its bank of points pays winners without a fill (2214(1)).
        let in_points = self.points.is_some();
        let round = self.table.round();
        // Fills and corrections are numbered by the table's own entries.
        let seq = self.entries;
        let mut collect = Vec::new();
        let mut pay = Vec::new();
        let mut float_in: u64 = 0;
        let mut float_out: u64 = 0;
        // Format 2 on settles a round in one transfer of the losing stakes,
        // and one of stakes back and one of winnings for each player paid.
        let mut per_player = (dir.rules().settles_per_player).then(BTreeMap::<u64, (u64, u64)>::new);
        let mut lost: u64 = 0;
        for e in &events {
            match e {
                Event::BetAccepted { bet, .. } => {
                    let from = chips(bet.player)?;
                    let stake = bet.bet.stake().get();
                    let held = self.balance_of(&from);
                    if !in_points && held < i128::from(stake) {
                        return Err(err(
                            ErrorCode::InsufficientChips,
                            format!(
                                "you hold {} in chips, less than the stake {}",
                                croupier_core::Minor::new(u64::try_from(held).unwrap_or(0)),
                                croupier_core::Minor::new(stake)
                            ),
                        ));
                    }
                    collect.push(transfer(
                        format!("{table}/{round}/{}/stake", bet.bet_id),
                        from,
                        layout.clone(),
                        stake,
                        "bet",
                    ));
                }
                Event::BetCancelled {
                    bet_id,
                    player,
                    returned,
                    ..
                }
                | Event::BetReturned {
                    bet_id,
                    player,
                    returned,
                    ..
                } if returned.get() > 0 => {
                    pay.push(transfer(
                        format!("{table}/{round}/{bet_id}/returned"),
                        layout.clone(),
                        chips(*player)?,
                        returned.get(),
                        "bet returned",
                    ));
                }
                Event::BetSettled {
                    bet_id,
                    player,
                    staked,
                    returned,
                    outcome,
                    ..
                } => {
                    debug_assert!(*outcome != Outcome::Prison, "imprisoned bets are not settled");
                    let (s, r) = (staked.get(), returned.get());
                    if let Some(settled) = per_player.as_mut() {
                        let (back, won) = settled.entry(*player).or_default();
                        *back += s.min(r);
                        *won += r.saturating_sub(s);
                        lost += s.saturating_sub(r);
                        continue;
                    }
                    let back = s.min(r);
                    if back > 0 {
                        pay.push(transfer(
                            format!("{table}/{round}/{bet_id}/back"),
                            layout.clone(),
                            chips(*player)?,
                            back,
                            outcome.name(),
                        ));
                    }
                    if s > r {
                        float_in += s - r;
                        collect.push(transfer(
                            format!("{table}/{round}/{bet_id}/lost"),
                            layout.clone(),
                            float.clone(),
                            s - r,
                            "losing bet collected",
                        ));
                    }
                    if r > s {
                        float_out += r - s;
                        pay.push(transfer(
                            format!("{table}/{round}/{bet_id}/won"),
                            float.clone(),
                            chips(*player)?,
                            r - s,
                            "winning bet paid",
                        ));
                    }
                }
                Event::BonusWagerAccepted { .. }
                | Event::BonusWagerReturned { .. }
                | Event::BonusWagerCollected { .. }
                | Event::BonusAwarded { .. }
                | Event::CommunityPaid { .. } => {
                    let flows = super::table::Flows {
                        collect: &mut collect,
                        pay: &mut pay,
                        float_in: &mut float_in,
                        float_out: &mut float_out,
                    };
                    self.bonus_transfers(dir, e, flows)?;
                }
                Event::DisputeDecided { corrections, .. } => {
                    for (i, &(player, amount)) in corrections.iter().enumerate() {
                        // From format 14 the client's id names them: a resend makes none twice.
                        let id = match &plan.dispute_id {
                            Some(id) => format!("{table}/dispute/{id}/{i}"),
                            None => format!("{table}/dispute/{seq}/{i}"),
                        };
                        let magnitude = amount.unsigned_abs() as u64;
                        if amount > 0 {
                            float_out += magnitude;
                            pay.push(transfer(
                                id,
                                float.clone(),
                                chips(player)?,
                                magnitude,
                                "dispute correction",
                            ));
                        } else if amount < 0 {
                            float_in += magnitude;
                            collect.push(transfer(
                                id,
                                chips(player)?,
                                float.clone(),
                                magnitude,
                                "dispute correction",
                            ));
                        }
                    }
                }
                _ => {}
            }
        }
        if lost > 0 {
            float_in += lost;
            collect.push(transfer(
                format!("{table}/{round}/lost"),
                layout.clone(),
                float.clone(),
                lost,
                "losing bets collected",
            ));
        }
        for (player, (back, won)) in per_player.into_iter().flatten() {
            let name = dir.name_ref(player);
            if back > 0 {
                pay.push(transfer(
                    format!("{table}/{round}/{name}/back"),
                    layout.clone(),
                    chips(player)?,
                    back,
                    "stakes back",
                ));
            }
            if won > 0 {
                float_out += won;
                pay.push(transfer(
                    format!("{table}/{round}/{name}/won"),
                    float.clone(),
                    chips(player)?,
                    won,
                    "winning bets paid",
                ));
            }
        }
        // Losing bets are collected first, then winners paid (Colorado 2205(4)); the
        // float is filled from the house when it cannot cover the payouts.
        let available = self.balance_of(float) + i128::from(float_in);
        plan.transfers.extend(collect);
        if !in_points && i128::from(float_out) > available {
            let shortfall = (i128::from(float_out) - available) as u64;
            plan.transfers.push(transfer(
                format!("fill/{table}/{seq}"),
                Account::House,
                float.clone(),
                shortfall,
                "fill",
            ));
            plan.events.push(JournalEvent::FloatFilled {
                table: table.to_string(),
                amount: shortfall,
            });
        }
        plan.transfers.extend(pay);
        let name_of = |p: u64| dir.name_of(p);
        plan.events
            .extend(events.iter().map(|e| journal::from_core(table, e, &name_of)));
        plan.effects.push(Effect::Core { events });
        Ok(())
    }
}

/// A core refusal, with its own code.
pub(super) fn command_error(e: CommandError) -> ApiError {
    use CommandError as C;
    use ErrorCode as K;
    let code = match &e {
        C::Closed => K::TableClosed,
        C::NotInspected => K::NotInspected,
        C::InspectionFailed(_) => K::InspectionFailed,
        C::NoBallToInspect => K::NoBallToInspect,
        C::RegulatorInspectionRequired => K::RegulatorInspectionRequired,
        C::AlreadyOpen => K::AlreadyOpen,
        C::RoundUnderWay => K::RoundUnderWay,
        C::BettingNotOpen => K::BettingNotOpen,
        C::PastPosting => K::PastPosting,
        C::NoSuchBet(_) => K::NoSuchBet,
        C::DuplicateBet(_) => K::DuplicateBet,
        C::BadBetId => K::BadBetId,
        C::Bet(b) => bet_code(b),
        C::RoundFull => K::RoundFull,
        C::NotSpinning => K::NotSpinning,
        C::Emergency => K::Emergency,
        C::NoEmergency => K::NoEmergency,
        C::PocketNotOnWheel(_) => K::PocketNotOnWheel,
        C::NotDisputeAuthority { .. } => K::Forbidden,
        C::BadText(_) => K::BadText,
        C::TimeWentBackwards { .. } => K::TimeWentBackwards,
        C::LimitsInRound => K::RoundUnderWay,
        C::BadLimits { .. } => K::BadLimits,
        C::BonusNotOffered | C::NotAtRouletteX(_) => K::NotOffered,
        C::BonusNotDrawn => K::BonusNotDrawn,
        C::BadBonusDraw(_) | C::BonusSymbols { .. } => K::BadSpin,
        C::BonusWagerPlaced => K::BonusWagerPlaced,
        C::PositionsFull(_) => K::RoundFull,
    };
    err(code, e.to_string())
}

fn bet_code(e: &BetError) -> ErrorCode {
    use ErrorCode as K;
    match e {
        BetError::Spot(s) => match s {
            SpotError::Empty => K::EmptySpot,
            SpotError::UnknownPocket(_) => K::UnknownPocket,
            SpotError::Unknown(_) => K::UnknownSpot,
            SpotError::Repeated(_) => K::RepeatedPocket,
            SpotError::PocketNotOnWheel { .. } => K::PocketNotOnWheel,
            SpotError::NotOnLayout { .. } => K::NotOnLayout,
            SpotError::GreenNeedsTripleZero => K::GreenNeedsTripleZero,
            SpotError::NeighbourNotBettable { .. } => K::NeighbourNotBettable,
            SpotError::CompleteDozenSection(_) => K::NotOffered,
        },
        BetError::Stake(StakeError::NotPositive(_)) => K::StakeNotPositive,
        BetError::Stake(StakeError::TooLarge(_)) => K::StakeTooLarge,
        BetError::NotOffered { .. } => K::NotOffered,
        BetError::Indivisible { .. } => K::StakeIndivisible,
        BetError::UnderMinimum { .. } => K::UnderMinimum,
        BetError::OverMaximum { .. } => K::OverMaximum,
        BetError::ZeroChoiceWithoutInPrison => K::ZeroChoiceWithoutInPrison,
        BetError::ZeroChoiceNotEvenMoney(_) => K::ZeroChoiceNotEvenMoney,
        BetError::CouponNotAccepted { .. } => K::CouponNotAccepted,
        BetError::CouponNotMatched { .. } => K::CouponNotMatched,
        BetError::CouponWithZeroChoice => K::CouponWithZeroChoice,
        BetError::CompleteOnZero(_) => K::NotOffered,
    }
}
