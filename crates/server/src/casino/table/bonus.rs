//! A bonus table (Maryland ch.3 F(16)-(18), ch.4 D-F, journal format 11):
//! the draw after no more bets, by the server's RNG with its words kept;
//! a player's Bonus Spin Xtreme wager at their position, locked out once
//! the round is started; the bonus wheel's symbols drawn as the result
//! comes; and the jackpots the meters paid, for the pit and the board.

use std::collections::VecDeque;

use croupier_core::bonus::{BsxSymbol, TableBonus};
use croupier_core::round::{Command, Event};
use croupier_rng::bonus_draws::{self, Replaying};

use super::{bet_id_max_bytes, Plan, TableSlot};
use crate::api::{ApiError, ErrorCode};
use crate::casino::actor::Actor;
use crate::casino::directory::Directory;
use crate::casino::err;
use crate::casino::journal::{require_format, FORMAT_BONUS_TABLES};

/// How many jackpots a table keeps in memory for its history; the journal keeps them all.
pub const JACKPOTS_KEPT: usize = 100;

/// A progressive jackpot a table's meter paid (Maryland ch.4 D(1)(a)-(b), D(4)).
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Jackpot {
    pub at_ms: u64,
    pub round: u64,
    /// "primary" or "secondary".
    pub meter: String,
    pub amount: u64,
    pub player: String,
}

impl TableSlot {
    /// A player's Bonus Spin Xtreme wager, or the server's draw for the round.
    pub(super) fn plan_bonus(
        &self,
        dir: &Directory,
        at_ms: u64,
        actor: &Actor,
        request: &crate::casino::request::Request,
        plan: &mut Plan,
    ) -> Result<(), ApiError> {
        use crate::casino::request::Request;
        require_format(dir.journal_format(), FORMAT_BONUS_TABLES, "bonus wagers and draws are")?;
        let command = match request {
            Request::BonusWager { wager_id, .. } => {
                let Some(bsx) = self.table.bsx() else {
                    return Err(err(
                        ErrorCode::NotOffered,
                        "this table offers no Bonus Spin Xtreme wager (Maryland ch.3 F(16))",
                    ));
                };
                if self.points.is_some() {
                    return Err(err(
                        ErrorCode::NotOffered,
                        "a table playing a tournament's event in points takes no bonus wager",
                    ));
                }
                self.check_chips_here(&actor.username)?;
                let me = dir.player(&actor.username)?;
                let Some((_, chip_value)) = self.colours.get(&actor.username) else {
                    return Err(err(ErrorCode::NotSeated, "buy colour chips at this table first"));
                };
                if bsx.wager.get() % chip_value != 0 {
                    return Err(err(
                        ErrorCode::BadStake,
                        format!(
                            "the wager is {}, which chips of {} do not make up",
                            bsx.wager,
                            croupier_core::Minor::new(*chip_value)
                        ),
                    ));
                }
                let longest = bet_id_max_bytes(&self.id);
                if wager_id.len() > longest {
                    return Err(err(
                        ErrorCode::BadBetId,
                        format!("a wager id at table {} is at most {longest} bytes", self.id),
                    ));
                }
                // Sent again, the same wager places nothing twice.
                if self
                    .table
                    .bonus_wagers()
                    .iter()
                    .any(|w| w.wager_id == *wager_id && w.player == me.player_id)
                {
                    return Ok(());
                }
                self.check_not_resent_late(dir, &actor.username, wager_id)?;
                Command::PlaceBonusWager {
                    at_ms,
                    wager_id: wager_id.clone(),
                    player: me.player_id,
                }
            }
            Request::DrawBonus { words, .. } => {
                let Some(bonus) = self.table.bonus() else {
                    return Err(err(ErrorCode::NotOffered, "this table has no bonus to draw"));
                };
                let mut replay = Replaying::new(words);
                let draw = bonus_draws::draw(&mut replay, bonus, self.table.config().wheel)
                    .map_err(|e| err(ErrorCode::BadSpin, format!("the bonus draw's words: {e}")))?;
                if !replay.used_up() {
                    return Err(err(ErrorCode::BadSpin, "the bonus draw's words: some are left over"));
                }
                Command::DrawBonus { at_ms, draw }
            }
            _ => return Err(err(ErrorCode::Internal, "not a bonus request")),
        };
        self.plan_core(dir, plan, command)
    }

    /// A spin at a table with Bonus Spin Xtreme wagers carries the bonus
    /// wheel's symbol for each, from the server's words.
    pub(super) fn with_bonus_symbols(&self, command: Command, words: &[u32]) -> Result<Command, ApiError> {
        let (Some(bsx), Command::Spin { at_ms, report }) = (self.table.bsx(), &command) else {
            return Ok(command);
        };
        let wagers = self.table.bonus_wagers().len();
        // Before the draw the core refuses the spin, saying why.
        if (wagers == 0 && words.is_empty()) || self.table.bonus_drawn().is_none() {
            return Ok(command);
        }
        let mut replay = Replaying::new(words);
        let symbols: Vec<BsxSymbol> = bonus_draws::symbols(&mut replay, bsx, wagers)
            .map_err(|e| err(ErrorCode::BadSpin, format!("the bonus wheel's words: {e}")))?;
        if !replay.used_up() {
            return Err(err(ErrorCode::BadSpin, "the bonus wheel's words: some are left over"));
        }
        Ok(Command::BonusSpin {
            at_ms: *at_ms,
            report: *report,
            symbols,
        })
    }

    /// Whether the round waits for the server's bonus draw.
    pub fn bonus_draw_due(&self) -> bool {
        self.table.bonus_draw_due()
    }

    /// How many bonus wheel symbols the next result needs.
    pub fn bonus_symbols_due(&self) -> usize {
        self.table.bonus_wagers().len()
    }

    /// The table's bonus, if it has one.
    pub fn bonus(&self) -> Option<&TableBonus> {
        self.table.bonus()
    }

    /// Keeps the jackpots a settlement paid, newest last.
    pub(super) fn keep_jackpots(&mut self, at_ms: u64, events: &[Event], name_of: &dyn Fn(u64) -> String) {
        // Every request's events pass here: a table without meters reads none of them.
        if self.table.bsx().is_none() {
            return;
        }
        for e in events {
            if let Event::BonusAwarded {
                round,
                player,
                symbol,
                award,
                ..
            } = e
            {
                let meter = match symbol {
                    BsxSymbol::PrimaryJackpot => "primary",
                    BsxSymbol::SecondaryJackpot => "secondary",
                    _ => continue,
                };
                self.jackpots.push_back(Jackpot {
                    at_ms,
                    round: *round,
                    meter: meter.to_string(),
                    amount: award.get(),
                    player: name_of(*player),
                });
                if self.jackpots.len() > JACKPOTS_KEPT {
                    self.jackpots.pop_front();
                }
            }
        }
    }
}

/// The jackpots a table keeps.
pub type Jackpots = VecDeque<Jackpot>;

/// Where a settlement's transfers go: collected first, then paid, and
/// what the float takes in and pays out.
pub(in crate::casino) struct Flows<'a> {
    pub collect: &'a mut Vec<croupier_ledger::Transfer>,
    pub pay: &'a mut Vec<croupier_ledger::Transfer>,
    pub float_in: &'a mut u64,
    pub float_out: &'a mut u64,
}

impl TableSlot {
    /// The money of a Bonus Spin Xtreme event. A wager goes onto the layout;
    /// collected, its shares go to the meters' accounts and the rest to the
    /// float; a fixed award and Community Pay come from the float; a jackpot
    /// is its meter's reset amount from the float and, from the meter's
    /// account, all that wagers fed it since it last paid.
    pub(in crate::casino) fn bonus_transfers(&self, dir: &Directory, e: &Event, flows: Flows) -> Result<(), ApiError> {
        use croupier_ledger::TableAccount;
        let table = self.id.as_str();
        let round = self.table.round();
        let chips = |player: u64| self.chips_of(&dir.name_ref(player));
        let (layout, float) = (&self.layout, &self.float);
        let transfer = super::transfer;
        match e {
            Event::BonusWagerAccepted {
                wager_id,
                player,
                stake,
                ..
            } => {
                let from = chips(*player)?;
                let held = self.balance_of(&from);
                if held < i128::from(stake.get()) {
                    return Err(err(
                        ErrorCode::InsufficientChips,
                        format!(
                            "you hold {} in chips, less than the wager {stake}",
                            croupier_core::Minor::new(u64::try_from(held).unwrap_or(0))
                        ),
                    ));
                }
                let id = format!("{table}/{round}/{wager_id}/stake");
                flows
                    .collect
                    .push(transfer(id, from, layout.clone(), stake.get(), "bonus wager"));
            }
            Event::BonusWagerReturned {
                wager_id,
                player,
                stake,
                ..
            } => {
                let id = format!("{table}/{round}/{wager_id}/returned");
                flows.pay.push(transfer(
                    id,
                    layout.clone(),
                    chips(*player)?,
                    stake.get(),
                    "bonus wager returned",
                ));
            }
            Event::BonusWagerCollected {
                wager_id,
                stake,
                to_primary,
                to_secondary,
                ..
            } => {
                let mut rest = stake.get();
                for (kind, share, name) in [
                    (TableAccount::MeterPrimary, to_primary, "meter1"),
                    (TableAccount::MeterSecondary, to_secondary, "meter2"),
                ] {
                    if share.get() > 0 {
                        rest -= share.get();
                        let id = format!("{table}/{round}/{wager_id}/{name}");
                        flows.collect.push(transfer(
                            id,
                            layout.clone(),
                            self.own(kind)?,
                            share.get(),
                            "to the meter",
                        ));
                    }
                }
                *flows.float_in += rest;
                let id = format!("{table}/{round}/{wager_id}/lost");
                flows.collect.push(transfer(
                    id,
                    layout.clone(),
                    float.clone(),
                    rest,
                    "bonus wager collected",
                ));
            }
            Event::BonusAwarded {
                wager_id,
                player,
                symbol,
                award,
                ..
            } => {
                let reset = match (symbol, self.table.bsx()) {
                    (BsxSymbol::PrimaryJackpot, Some(b)) => Some((TableAccount::MeterPrimary, b.primary_reset)),
                    (BsxSymbol::SecondaryJackpot, Some(b)) => Some((TableAccount::MeterSecondary, b.secondary_reset)),
                    _ => None,
                };
                let from_float = match reset {
                    Some((kind, reset)) => {
                        let fed = award.get().saturating_sub(reset.get());
                        if fed > 0 {
                            let id = format!("{table}/{round}/{wager_id}/jackpot");
                            flows.pay.push(transfer(
                                id,
                                self.own(kind)?,
                                chips(*player)?,
                                fed,
                                "progressive jackpot",
                            ));
                        }
                        award.get() - fed
                    }
                    None => award.get(),
                };
                if from_float > 0 {
                    *flows.float_out += from_float;
                    let id = format!("{table}/{round}/{wager_id}/award");
                    flows
                        .pay
                        .push(transfer(id, float.clone(), chips(*player)?, from_float, "bonus award"));
                }
            }
            Event::CommunityPaid {
                wager_id,
                player,
                for_wager,
                award,
                ..
            } => {
                let turn = self
                    .table
                    .bonus_wagers()
                    .iter()
                    .position(|w| w.wager_id == *for_wager)
                    .unwrap_or(usize::MAX);
                *flows.float_out += award.get();
                let id = format!("{table}/{round}/{wager_id}/c{turn}");
                flows.pay.push(transfer(
                    id,
                    float.clone(),
                    chips(*player)?,
                    award.get(),
                    "community pay",
                ));
            }
            _ => {}
        }
        Ok(())
    }
}

impl TableSlot {
    /// A Roulette X table's odds on a straight that is not a lucky number (Maryland ch.4 F).
    pub fn roulette_x_straight_odds(&self) -> Option<u32> {
        match self.table.bonus() {
            Some(TableBonus::RouletteX(x)) => Some(x.paytable.straight_odds()),
            _ => None,
        }
    }

    /// The bonus as the table shows it to the room.
    pub fn bonus_state(&self) -> Option<crate::api::bodies::BonusState> {
        use crate::api::bodies::{BonusState, JackpotView, MetersView};
        use croupier_core::bonus::BonusDraw;
        let bonus = self.table.bonus()?;
        let (targets, lucky) = match self.table.bonus_drawn() {
            Some(BonusDraw::Targets(t)) => (t.iter().map(|p| p.label().to_string()).collect(), Vec::new()),
            Some(BonusDraw::Lucky(l)) => (
                Vec::new(),
                l.numbers
                    .iter()
                    .map(|&(p, odds)| crate::api::LuckyView {
                        pocket: p.label().to_string(),
                        odds,
                    })
                    .collect(),
            ),
            None => (Vec::new(), Vec::new()),
        };
        let bsx = self.table.bsx();
        Some(BonusState {
            kind: bonus.kind().to_string(),
            name: bonus.name().to_string(),
            currency: self.table.profile().spec().currency.clone(),
            drawn_round: self.table.bonus_drawn().map(|_| self.table.round()),
            targets,
            lucky,
            meters: bsx.map(|_| {
                let m = self.table.meters();
                MetersView {
                    primary: m.primary.get(),
                    secondary: m.secondary.get(),
                }
            }),
            wagers: self.table.bonus_wagers().len(),
            positions: bsx.map_or(0, |b| b.positions),
            jackpots: self
                .jackpots
                .iter()
                .rev()
                .map(|j| JackpotView {
                    at_ms: j.at_ms,
                    round: j.round,
                    meter: j.meter.clone(),
                    amount: j.amount,
                })
                .collect(),
        })
    }

    /// The bonus and its paytable, as the table posts them.
    pub fn layout_bonus(&self) -> Option<crate::api::bodies::LayoutBonus> {
        use croupier_core::Minor;
        let bonus = self.table.bonus()?;
        let (wager, rules) = match bonus {
            TableBonus::RouletteX(x) => {
                let p = x.paytable;
                let later: Vec<String> = x.later_odds.entries().iter().map(|(o, _)| o.to_string()).collect();
                (
                    None,
                    vec![
                        format!("Roulette X, paytable {p:?} (Maryland ch.4 F)."),
                        format!(
                            "After no more bets the RNG selects lucky numbers: a straight on one pays its odds, \
                             the first selected {} to 1, the others {} to 1 as drawn.",
                            p.first_odds(),
                            later.join(", ")
                        ),
                        format!("A straight on any other number pays {} to 1.", p.straight_odds()),
                        "Neighbours and complete bets are not taken at this table: bet the straights.".into(),
                    ],
                )
            }
            TableBonus::BonusSpinXtreme(b) => {
                let mut rules = vec![
                    format!(
                        "Bonus Spin Xtreme: a {} wager at each position, before no more bets (Maryland ch.3 F(16)-(17)).",
                        b.wager
                    ),
                    "After no more bets the RNG selects 1, 2 or 3 target numbers. If the ball lands on one, every \
                     wager gets a spin of the bonus wheel, paid in the order the wagers were placed."
                        .into(),
                    "The wheel pays the primary or secondary progressive as the meter stands when the player's \
                     turn comes (ch.4 D(4)), or $1,000, $750, $500, $400, $350, $300, $250 or $200 (ch.4 D(1))."
                        .into(),
                    {
                        let blank: u32 = b
                            .symbols
                            .entries()
                            .iter()
                            .filter(|(s, _)| *s == BsxSymbol::Blank)
                            .map(|&(_, w)| w)
                            .sum();
                        format!(
                            "{blank} of the bonus wheel's {} segments are blank and pay nothing.",
                            b.symbols.total()
                        )
                    },
                    format!(
                        "The meters grow by {}.{}% and {}.{}% of each wager, and reset to {} and {} after paying (ch.4 D(3)).",
                        b.primary_rate_per_mille / 10,
                        b.primary_rate_per_mille % 10,
                        b.secondary_rate_per_mille / 10,
                        b.secondary_rate_per_mille % 10,
                        b.primary_reset,
                        b.secondary_reset
                    ),
                    "The wager is collected whether or not it wins; an award is paid besides.".into(),
                ];
                if !b.community.is_empty() {
                    let pays: Vec<String> = b
                        .community
                        .iter()
                        .map(|(s, m)| {
                            let what = match s {
                                BsxSymbol::PrimaryJackpot => "the primary jackpot".to_string(),
                                BsxSymbol::SecondaryJackpot => "the secondary jackpot".to_string(),
                                BsxSymbol::Fixed(minor) => Minor::new(*minor).to_string(),
                                BsxSymbol::Blank => "a blank".to_string(),
                            };
                            format!("{what} pays every other wager {m}")
                        })
                        .collect();
                    rules.push(format!("Community Pay (ch.4 D(5), E): {}.", pays.join("; ")));
                }
                (Some(b.wager.get()), rules)
            }
        };
        Some(crate::api::bodies::LayoutBonus {
            kind: bonus.kind().to_string(),
            name: bonus.name().to_string(),
            wager,
            rules,
        })
    }
}

impl TableSlot {
    /// The most a Bonus Spin Xtreme wager of a past round could have
    /// returned, for a dispute's bound: the largest award its wheel has
    /// (up to format 13 the meters as they stand; from 14 no meter, which
    /// only the game pays), or what the wager was paid, if more, and
    /// Community Pay from every other position.
    pub(super) fn bonus_wager_most(
        &self,
        dir: &crate::casino::directory::Directory,
        bet: &crate::casino::recall::BetRecord,
    ) -> Option<i128> {
        let bsx = self.table.bsx().filter(|_| bet.kind == "bonus-spin-xtreme")?;
        // From format 14 only the game pays a meter's jackpot (and resets the meter).
        let meters = if dir.rules().dispute_ids {
            croupier_core::bonus::Meters {
                primary: croupier_core::Minor::new(0),
                secondary: croupier_core::Minor::new(0),
            }
        } else {
            self.table.meters()
        };
        let fixed = bsx
            .symbols
            .entries()
            .iter()
            .map(|&(s, _)| match s {
                BsxSymbol::Fixed(minor) => minor,
                _ => 0,
            })
            .max()
            .unwrap_or(0);
        let award = [
            meters.primary.get(),
            meters.secondary.get(),
            fixed,
            bet.returned.unwrap_or(0),
        ]
        .into_iter()
        .max()
        .unwrap_or(0);
        let community = bsx.community.iter().map(|&(_, m)| m.get()).max().unwrap_or(0);
        let others = u64::from(bsx.positions.saturating_sub(1));
        Some(i128::from(award) + i128::from(community) * i128::from(others))
    }

    /// A Roulette X table's paytable and a past round's lucky numbers, by
    /// which its straights were paid (Maryland ch.4 F).
    pub(super) fn roulette_x_of(
        &self,
        record: &crate::casino::recall::RoundRecord,
    ) -> Option<(&croupier_core::bonus::RouletteX, croupier_core::bonus::LuckyNumbers)> {
        let Some(TableBonus::RouletteX(x)) = self.table.bonus() else {
            return None;
        };
        let numbers = record
            .bonus_lucky
            .iter()
            .filter_map(|l| croupier_core::Pocket::parse(&l.pocket).map(|p| (p, l.odds)))
            .collect();
        Some((x, croupier_core::bonus::LuckyNumbers { numbers }))
    }
}
