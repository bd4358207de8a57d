//! A bonus table's rounds (Maryland ch.3 F(16)-(18), ch.4 D-F): the draw
//! after no more bets, the Bonus Spin Xtreme side wager at each position
//! and its settlement, and Roulette X's paytable on a winning straight.

use super::{BonusWager, Command, CommandError, Event, Phase, Table};
use crate::bonus::{BonusDraw, BonusSpinXtreme, BsxSymbol, Meters, TableBonus};
use crate::money::Minor;
use crate::pocket::Pocket;
use crate::settle::PlacedBet;
use crate::spot::Kind;

impl Table {
    /// The table with a bonus; refused on a wheel its paytable is not for
    /// (Maryland ch.4 F(3)(d)). The meters start at their initial amounts.
    pub fn with_bonus(mut self, bonus: TableBonus) -> Result<Table, String> {
        if !bonus.allows(self.config.wheel) {
            return Err(format!(
                "{} is not played on the {} (Maryland ch.4 F(1)(d)-(3)(d))",
                bonus.name(),
                self.config.wheel.name()
            ));
        }
        if let TableBonus::BonusSpinXtreme(b) = &bonus {
            self.meters = Meters {
                primary: b.primary_reset,
                secondary: b.secondary_reset,
            };
        }
        self.bonus = Some(bonus);
        Ok(self)
    }

    pub fn bonus(&self) -> Option<&TableBonus> {
        self.bonus.as_ref()
    }

    /// The Bonus Spin Xtreme configuration, if the table offers it.
    pub fn bsx(&self) -> Option<&BonusSpinXtreme> {
        match &self.bonus {
            Some(TableBonus::BonusSpinXtreme(b)) => Some(b),
            _ => None,
        }
    }

    /// The round's draw, once made (kept until the next round opens).
    pub fn bonus_drawn(&self) -> Option<&BonusDraw> {
        self.bonus_drawn.as_ref()
    }

    /// Whether the round waits for its bonus draw: no more bets at a bonus
    /// table, and nothing drawn yet.
    pub fn bonus_draw_due(&self) -> bool {
        self.bonus.is_some() && self.phase == Phase::NoMoreBets && self.bonus_drawn.is_none()
    }

    /// The Bonus Spin Xtreme wagers of the round, in the order placed: the
    /// order the players' turns come in (ch.4 D(4)).
    pub fn bonus_wagers(&self) -> &[BonusWager] {
        &self.bonus_wagers
    }

    /// The progressive meters as they stand (ch.4 D(3)-(4)).
    pub fn meters(&self) -> Meters {
        self.meters
    }

    /// Whether the table's bonus takes no bet of `kind`: a Roulette X table
    /// pays straights by its paytable, not as a composite bet's parts.
    pub fn bonus_refuses(&self, kind: Kind) -> bool {
        matches!(self.bonus, Some(TableBonus::RouletteX(_))) && kind.is_composite()
    }

    /// A bet Roulette X cannot pay by its paytable is refused at its table:
    /// a composite bet's straights, and a coupon on a straight.
    pub(super) fn check_roulette_x_bet(&self, bet: &PlacedBet) -> Result<(), CommandError> {
        if !matches!(self.bonus, Some(TableBonus::RouletteX(_))) {
            return Ok(());
        }
        let kind = bet.kind();
        if self.bonus_refuses(kind) {
            return Err(CommandError::NotAtRouletteX(format!(
                "{kind} stands for straights, which Roulette X pays by its paytable: bet the straights themselves"
            )));
        }
        if kind == Kind::Straight && bet.coupon() > Minor::ZERO {
            return Err(CommandError::NotAtRouletteX(
                "a match play coupon is not played on a Roulette X straight".into(),
            ));
        }
        Ok(())
    }

    pub(super) fn decide_bonus(&self, command: Command) -> Result<Vec<Event>, CommandError> {
        match command {
            Command::DrawBonus { at_ms, draw } => {
                self.at(at_ms)?;
                let Some(bonus) = &self.bonus else {
                    return Err(CommandError::BonusNotOffered);
                };
                // ch.3 F(16), (18): drawn by the RNG after no more bets, once a round.
                if self.phase != Phase::NoMoreBets {
                    return Err(CommandError::NotSpinning);
                }
                if self.bonus_drawn.is_some() {
                    return Err(CommandError::BadBonusDraw("this round's bonus is drawn already".into()));
                }
                bonus
                    .check_draw(self.config.wheel, &draw)
                    .map_err(|e| CommandError::BadBonusDraw(e.to_string()))?;
                Ok(vec![Event::BonusDrawn {
                    at_ms,
                    round: self.round,
                    draw,
                }])
            }
            Command::PlaceBonusWager {
                at_ms,
                wager_id,
                player,
            } => {
                let Some(bsx) = self.bsx() else {
                    return Err(CommandError::BonusNotOffered);
                };
                self.check_placing(at_ms, &wager_id)?;
                // ch.3 F(17)(a): one wagering device at each betting position.
                if self.bonus_wagers.iter().any(|w| w.player == player) {
                    return Err(CommandError::BonusWagerPlaced);
                }
                if self.bonus_wagers.len() >= usize::from(bsx.positions) {
                    return Err(CommandError::PositionsFull(bsx.positions));
                }
                Ok(vec![Event::BonusWagerAccepted {
                    at_ms,
                    round: self.round,
                    wager_id,
                    player,
                    stake: bsx.wager,
                }])
            }
            _ => Err(CommandError::BonusNotOffered),
        }
    }

    /// Every Bonus Spin Xtreme wager back whole: the round was void.
    pub(super) fn return_bonus_wagers(&self) -> impl Iterator<Item = Event> + '_ {
        self.bonus_wagers.iter().map(|w| Event::BonusWagerReturned {
            round: self.round,
            wager_id: w.wager_id.clone(),
            player: w.player,
            stake: w.stake,
        })
    }

    /// Roulette X's return of a settled straight (ch.4 F): its paytable's
    /// straight odds, or the odds drawn for a lucky number.
    pub(super) fn roulette_x_return(&self, bet: &PlacedBet, landed: Pocket, returned: Minor) -> Minor {
        let (Some(TableBonus::RouletteX(x)), Some(BonusDraw::Lucky(lucky))) = (&self.bonus, &self.bonus_drawn) else {
            return returned;
        };
        x.bet_return(bet, landed, lucky, returned)
    }

    /// The Bonus Spin Xtreme wagers settled on `landed`, each with the
    /// bonus wheel's `symbols[i]` for the i-th wager: every wager collected
    /// and its shares fed to the meters first, then, in the order placed,
    /// each wager on a target paid its award at the meter as it stands when
    /// its turn comes (ch.4 D(4)), a jackpot resetting its meter (D(3)(b)),
    /// and each qualifying symbol's Community Pay to every other wager (D(5), E).
    pub(super) fn settle_bonus(&self, landed: Pocket, symbols: &[BsxSymbol]) -> Result<Vec<Event>, CommandError> {
        let Some(bsx) = self.bsx() else {
            return Ok(Vec::new());
        };
        if symbols.len() != self.bonus_wagers.len() {
            return Err(CommandError::BonusSymbols {
                wagers: self.bonus_wagers.len(),
                symbols: symbols.len(),
            });
        }
        let round = self.round;
        let targets: &[Pocket] = match &self.bonus_drawn {
            Some(BonusDraw::Targets(t)) => t,
            _ => &[],
        };
        let (to_primary, to_secondary) = bsx.shares();
        let mut meters = self.meters;
        let mut events = Vec::new();
        for w in &self.bonus_wagers {
            meters = bsx.contribute(meters);
            events.push(Event::BonusWagerCollected {
                round,
                wager_id: w.wager_id.clone(),
                player: w.player,
                stake: w.stake,
                to_primary,
                to_secondary,
            });
        }
        if !targets.contains(&landed) {
            return Ok(events);
        }
        for (i, (w, &symbol)) in self.bonus_wagers.iter().zip(symbols).enumerate() {
            let award = bsx.award(targets, landed, symbol, meters);
            events.push(Event::BonusAwarded {
                round,
                wager_id: w.wager_id.clone(),
                player: w.player,
                symbol,
                award,
            });
            match symbol {
                BsxSymbol::PrimaryJackpot => meters.primary = bsx.primary_reset,
                BsxSymbol::SecondaryJackpot => meters.secondary = bsx.secondary_reset,
                _ => {}
            }
            if let Some(pays) = bsx.community_pay(symbol) {
                for (j, other) in self.bonus_wagers.iter().enumerate() {
                    if j != i {
                        events.push(Event::CommunityPaid {
                            round,
                            wager_id: other.wager_id.clone(),
                            player: other.player,
                            for_wager: w.wager_id.clone(),
                            award: pays,
                        });
                    }
                }
            }
        }
        Ok(events)
    }

    /// Applies a bonus event.
    pub(super) fn apply_bonus(&mut self, event: &Event) {
        match event {
            Event::BonusDrawn { at_ms, draw, .. } => {
                self.last_ms = self.last_ms.max(*at_ms);
                self.bonus_drawn = Some(draw.clone());
            }
            Event::BonusWagerAccepted {
                at_ms,
                wager_id,
                player,
                stake,
                ..
            } => {
                self.last_ms = self.last_ms.max(*at_ms);
                self.bonus_wagers.push(BonusWager {
                    wager_id: wager_id.clone(),
                    player: *player,
                    stake: *stake,
                });
            }
            Event::BonusWagerReturned { wager_id, .. } => {
                self.bonus_wagers.retain(|w| w.wager_id != *wager_id);
            }
            Event::BonusWagerCollected {
                to_primary,
                to_secondary,
                ..
            } => {
                self.meters.primary = Minor::new(self.meters.primary.get() + to_primary.get());
                self.meters.secondary = Minor::new(self.meters.secondary.get() + to_secondary.get());
            }
            Event::BonusAwarded { symbol, .. } => {
                if let Some(bsx) = self.bsx() {
                    let reset = (bsx.primary_reset, bsx.secondary_reset);
                    match symbol {
                        BsxSymbol::PrimaryJackpot => self.meters.primary = reset.0,
                        BsxSymbol::SecondaryJackpot => self.meters.secondary = reset.1,
                        _ => {}
                    }
                }
            }
            _ => {}
        }
    }
}
