//! Deciding a spin: whether the reported ball counts, and, when it does,
//! every bet on the layout settled on its pocket, losers collected before
//! winners are paid (Colorado 2205(4)).

use std::collections::BTreeSet;

use super::{CommandError, Event, Phase, PlayerId, ReturnReason, RoundBet, SpinReport, Table};
use crate::bonus::BsxSymbol;
use crate::money::Minor;
use crate::no_spin::NoSpinReason;
use crate::pocket::Pocket;
use crate::profile::NoSpinBets;
use crate::settle::{Outcome, TableRules};

/// What a reported spin comes to before any bet is looked at.
enum Counted {
    /// The ball's pocket is the round's result.
    Result(Pocket),
    /// The spin does not count (a no spin, or a pocket that voids it):
    /// these are its events.
    Not(Vec<Event>),
}

/// A spin's bets settled, in the groups the events list them in.
struct Settled {
    /// Bets handed back whole, neither won nor lost (european-casino 3.13).
    handed_back: Vec<Event>,
    losers: Vec<Event>,
    /// The winners, and the bets left in prison.
    winners: Vec<Event>,
    staked: Minor,
    returned: Minor,
    /// european-casino 3.13: the players whose bet under the minimum this
    /// spin settles, in the order the bets were placed.
    once: BTreeSet<PlayerId>,
}

impl Table {
    pub(super) fn decide_spin(
        &self,
        at_ms: u64,
        report: SpinReport,
        symbols: &[BsxSymbol],
    ) -> Result<Vec<Event>, CommandError> {
        self.check_spin_due(at_ms)?;
        let pocket = match self.count_spin(at_ms, report)? {
            Counted::Result(pocket) => pocket,
            Counted::Not(events) => return Ok(events),
        };
        let round = self.round;
        let settled = self.settle_bets(pocket);
        let mut events = vec![Event::ResultRecorded { at_ms, round, pocket }];
        events.extend(settled.handed_back);
        // Colorado 2205(4): first collect all losing wagers, then pay the winning ones.
        events.extend(settled.losers);
        events.extend(settled.winners);
        events.extend(self.settle_bonus(pocket, symbols)?);
        events.push(Event::RoundSettled {
            at_ms,
            round,
            pocket: Some(pocket),
            staked: settled.staked,
            returned: settled.returned,
        });
        Ok(events)
    }

    /// A spin is reported once a round, after no more bets, with no
    /// emergency declared and the round's bonus drawn.
    fn check_spin_due(&self, at_ms: u64) -> Result<(), CommandError> {
        self.at(at_ms)?;
        if self.phase != Phase::NoMoreBets {
            return Err(CommandError::NotSpinning);
        }
        if self.emergency {
            return Err(CommandError::Emergency);
        }
        // Maryland ch.3 F(16), (18): the bonus numbers are drawn before the spin.
        if self.bonus.is_some() && self.bonus_drawn.is_none() {
            return Err(CommandError::BonusNotDrawn);
        }
        Ok(())
    }

    /// Whether the reported ball is the round's result, or what it is
    /// instead: a no spin, or a spin voided by its pocket.
    fn count_spin(&self, at_ms: u64, report: SpinReport) -> Result<Counted, CommandError> {
        let (pocket, opposite, revolutions) = match report {
            SpinReport::NoSpin(reason) => return Ok(Counted::Not(self.no_spin(at_ms, reason))),
            SpinReport::Ball {
                pocket,
                opposite_direction,
                revolutions,
            } => (pocket, opposite_direction, revolutions),
        };
        if !self.config.wheel.pockets().contains(pocket) {
            return Err(CommandError::PocketNotOnWheel(pocket));
        }
        // Colorado 2205(1), 2206(1)-(2); Maryland ch.5 A, ch.6 A-B; european-casino 4.4.
        if !opposite {
            return Ok(Counted::Not(self.no_spin(at_ms, NoSpinReason::SameDirection)));
        }
        if revolutions < self.profile.spec().min_ball_revolutions {
            return Ok(Counted::Not(self.no_spin(at_ms, NoSpinReason::TooFewRevolutions)));
        }
        // Colorado 2210(2)(c)(ii)(B), Maryland ch.4 C(2): 00 voids the spin; spin again.
        if self.config.wheel.voids_spin(pocket) {
            return Ok(Counted::Not(vec![Event::SpinVoided {
                at_ms,
                round: self.round,
                pocket,
            }]));
        }
        Ok(Counted::Result(pocket))
    }

    /// Every bet on the layout settled on `pocket`, in the order placed.
    fn settle_bets(&self, pocket: Pocket) -> Settled {
        let rules = self.rules();
        let mut settled = Settled {
            handed_back: Vec::new(),
            losers: Vec::new(),
            winners: Vec::new(),
            staked: Minor::ZERO,
            returned: Minor::ZERO,
            once: BTreeSet::new(),
        };
        for b in &self.bets {
            if self.readings.under_minimum_once
                && b.bet.under_minimum()
                && (self.under_minimum_settled.contains(&b.player) || settled.once.contains(&b.player))
            {
                // "After this, they are returned to the player regardless
                // of whether they won or lost."
                settled.handed_back.push(Event::BetReturned {
                    round: self.round,
                    bet_id: b.bet_id.clone(),
                    player: b.player,
                    returned: b.bet.stake().minor(),
                    why: ReturnReason::UnderMinimum,
                });
                continue;
            }
            self.settle_bet(&rules, b, pocket, &mut settled);
        }
        settled
    }

    /// One bet settled on `pocket`, with the spins it has seen before.
    fn settle_bet(&self, rules: &TableRules<'_>, b: &RoundBet, pocket: Pocket, settled: &mut Settled) {
        let round = self.round;
        let mut spins = b.spins.clone();
        spins.push(pocket);
        let mut s = rules.settle(&b.bet, &spins);
        s.returned = self.roulette_x_return(&b.bet, pocket, s.returned);
        if !b.carried {
            settled.staked = Minor::new(settled.staked.get() + s.staked.get());
        }
        match s.outcome {
            Outcome::Prison => settled.winners.push(Event::BetImprisoned {
                round,
                bet_id: b.bet_id.clone(),
                player: b.player,
                held: s.held,
            }),
            outcome => {
                if self.readings.under_minimum_once && b.bet.under_minimum() {
                    settled.once.insert(b.player);
                }
                settled.returned = Minor::new(settled.returned.get() + s.returned.get());
                let event = Event::BetSettled {
                    round,
                    bet_id: b.bet_id.clone(),
                    player: b.player,
                    outcome,
                    staked: s.staked,
                    returned: s.returned,
                };
                if outcome == Outcome::Lose {
                    settled.losers.push(event);
                } else {
                    settled.winners.push(event);
                }
            }
        }
    }

    fn no_spin(&self, at_ms: u64, reason: NoSpinReason) -> Vec<Event> {
        let mut events = vec![Event::NoSpin {
            at_ms,
            round: self.round,
            reason,
        }];
        let spec = self.profile.spec();
        if spec.no_spin_bets == NoSpinBets::Returned
            && (spec.no_spin_returned_for.is_empty() || spec.no_spin_returned_for.contains(&reason))
        {
            // european-casino 4.5-4.8: the spin is invalid, as are all bets.
            events.extend(self.return_all(ReturnReason::NoSpin(reason)));
            events.push(Event::RoundSettled {
                at_ms,
                round: self.round,
                pocket: None,
                staked: Minor::ZERO,
                returned: Minor::ZERO,
            });
        }
        events
    }
}
