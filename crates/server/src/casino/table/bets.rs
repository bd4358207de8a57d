//! Bets: placed and cancelled by their players.

use croupier_core::round::{Command, Phase, PLAYER_ROUND_BETS_MAX};
use croupier_core::{BetRequest, Kind, Minor, PocketSet, ZeroChoice};
use foldhash::{HashMap, HashMapExt};

use super::{Plan, TableSlot};
use crate::api::{ApiError, ErrorCode};
use crate::casino::actor::Actor;
use crate::casino::directory::Directory;
use crate::casino::err;
use crate::casino::request::{Request, StoredVerbalBet};

/// The most bets one verbal series may hold: what a croupier can hear and
/// repeat back before no more bets.
pub const VERBAL_SERIES_MAX: usize = 20;

/// Each player's bet ids in the earlier rounds the table keeps, with the
/// round, worked out from their records the first time a bet of the round
/// in play asks (journal format 14), and forgotten when betting opens.
/// Only this file reads it.
#[derive(Clone, Debug, Default)]
pub(super) struct EarlierBets(std::sync::OnceLock<std::collections::HashMap<(String, String), u64>>);

impl TableSlot {
    pub(super) fn plan_bet(
        &self,
        dir: &Directory,
        at_ms: u64,
        actor: &Actor,
        request: &Request,
        plan: &mut Plan,
    ) -> Result<(), ApiError> {
        let command = match request {
            Request::PlaceBet {
                bet_id,
                spot,
                stake,
                zero_choice,
                coupon,
                coupon_id,
                ..
            } => {
                let me = dir.player(&actor.username)?;
                self.check_chips_here(&actor.username)?;
                self.check_entrant(dir, &actor.username, coupon.is_some() || coupon_id.is_some())?;
                // In points a stake is whole points, and no limit applies (2214(1)).
                let chip_value = match (&self.points, self.colours.get(&actor.username)) {
                    (Some(_), _) => &1,
                    (None, Some((_, chip_value))) => chip_value,
                    (None, None) => return Err(err(ErrorCode::NotSeated, "buy colour chips at this table first")),
                };
                if stake.get() % chip_value != 0 {
                    // In points a stake is whole points; in money, chips of the chip value.
                    let what = match self.points {
                        Some(_) => "whole points".to_string(),
                        None => format!("whole chips of {}", croupier_core::Minor::new(*chip_value)),
                    };
                    return Err(err(ErrorCode::BadStake, format!("a stake is {what}")));
                }
                // Each of the bet's movements is named after it: the longest name must fit the ledger.
                let longest = bet_id_max_bytes(&self.id);
                if bet_id.len() > longest {
                    return Err(err(
                        ErrorCode::BadBetId,
                        format!("a bet id at table {} is at most {longest} bytes", self.id),
                    ));
                }
                let zero_choice = zero_choice
                    .as_deref()
                    .map(|c| {
                        ZeroChoice::parse(c)
                            .ok_or_else(|| err(ErrorCode::BadZeroChoice, "zero_choice is half or prison"))
                    })
                    .transpose()?;
                let coupon_minor = self.coupon_played(
                    dir,
                    at_ms,
                    &actor.username,
                    super::coupons::Claim {
                        bet_id,
                        value: *coupon,
                        id: coupon_id.as_deref(),
                    },
                    plan,
                )?;
                let placing = BetRequest {
                    spot,
                    stake_minor: i128::from(stake.get()),
                    zero_choice,
                    coupon_minor,
                };
                if self.is_resent(me.player_id, bet_id, &placing)? {
                    plan.effects.clear();
                    return Ok(());
                }
                self.check_not_resent_late(dir, &actor.username, bet_id)?;
                self.check_share(dir, me.player_id)?;
                self.check_spot_maximum(dir, me.player_id, &placing)?;
                Command::PlaceBet {
                    at_ms,
                    bet_id: bet_id.clone(),
                    player: me.player_id,
                    spot: spot.clone(),
                    stake_minor: placing.stake_minor,
                    zero_choice,
                    coupon_minor: placing.coupon_minor,
                }
            }
            Request::CancelBet { bet_id, .. } => {
                let player = dir.player(&actor.username)?.player_id;
                if self.table.bet(bet_id).is_some_and(|b| b.player == player) {
                    self.coupon_freed(bet_id, plan);
                }
                Command::CancelBet {
                    at_ms,
                    bet_id: bet_id.clone(),
                    player,
                }
            }
            Request::VerbalBets { player, bets, .. } => {
                let by = super::person(actor, actor.role.name());
                return self.plan_verbal(dir, at_ms, by, player, bets, plan);
            }
            _ => return Err(err(ErrorCode::Internal, "not a bet")),
        };
        self.plan_core(dir, plan, command)
    }

    /// A player's announced series of verbal bets, entered by the croupier
    /// (european-casino 3.5-3.6): each bet the player's own, from their
    /// chips, and the whole series taken or none of it. Sent again whole
    /// with the same ids, it is a resend and writes nothing.
    fn plan_verbal(
        &self,
        dir: &Directory,
        at_ms: u64,
        by: croupier_core::round::Person,
        player: &str,
        bets: &[StoredVerbalBet],
        plan: &mut Plan,
    ) -> Result<(), ApiError> {
        if !dir.rules().verbal_bets || !self.table.profile().spec().verbal_bets {
            return Err(err(
                ErrorCode::NotOffered,
                "this table takes no verbal bets: every wager is made with chips on the layout (Colorado 2203(1), \
                 Maryland ch.3 A)",
            ));
        }
        self.check_chips_here(player)?;
        if self.points.is_some() {
            return Err(err(
                ErrorCode::NotOffered,
                "a tournament's entrants bet their own points at the terminal (Colorado 2213.07(4))",
            ));
        }
        if bets.is_empty() || bets.len() > VERBAL_SERIES_MAX {
            return Err(err(
                ErrorCode::BadRequest,
                format!(
                    "a verbal series holds 1 to {VERBAL_SERIES_MAX} bets, not {}",
                    bets.len()
                ),
            ));
        }
        let me = dir.player_in_play(player)?;
        let Some((_, chip_value)) = self.colours.get(player) else {
            return Err(err(
                ErrorCode::NotSeated,
                format!("{player} has no colour chips at this table: they buy in before they bet"),
            ));
        };
        let longest = bet_id_max_bytes(&self.id);
        let mut resent = 0;
        let mut total: u64 = 0;
        let mut on_spots = HashMap::new();
        for b in bets {
            if b.stake.get() % chip_value != 0 {
                return Err(err(
                    ErrorCode::BadStake,
                    format!(
                        "the stake on {} is whole chips of {}",
                        b.spot,
                        croupier_core::Minor::new(*chip_value)
                    ),
                ));
            }
            if b.bet_id.len() > longest {
                return Err(err(
                    ErrorCode::BadBetId,
                    format!("a bet id at table {} is at most {longest} bytes", self.id),
                ));
            }
            let placing = BetRequest {
                spot: &b.spot,
                stake_minor: i128::from(b.stake.get()),
                zero_choice: None,
                coupon_minor: None,
            };
            if self.is_resent(me.player_id, &b.bet_id, &placing)? {
                resent += 1;
                continue;
            }
            self.check_not_resent_late(dir, player, &b.bet_id)?;
            self.check_spot_maximum_after(dir, me.player_id, &placing, &mut on_spots)?;
            total = total.saturating_add(b.stake.get());
        }
        if resent == bets.len() {
            plan.effects.clear();
            return Ok(());
        }
        if resent > 0 {
            return Err(err(
                ErrorCode::DuplicateBet,
                "part of this series was placed before: a series is entered whole, each bet with a new id",
            ));
        }
        let placed = self.table.placed_by(me.player_id);
        if placed + bets.len() > PLAYER_ROUND_BETS_MAX {
            return Err(err(
                ErrorCode::TooManyBets,
                format!(
                    "a player places at most {PLAYER_ROUND_BETS_MAX} bets in a round; {player} has placed {placed}, \
                     and the series holds {}",
                    bets.len()
                ),
            ));
        }
        let held = self.chips(player);
        if held < i128::from(total) {
            return Err(err(
                ErrorCode::InsufficientChips,
                format!(
                    "{player} holds {} in chips, less than the series' {}: none of it is taken (european-casino 3.5)",
                    Minor::new(u64::try_from(held).unwrap_or(0)),
                    Minor::new(total)
                ),
            ));
        }
        let command = Command::PlaceSeries {
            at_ms,
            by,
            player: me.player_id,
            bets: bets
                .iter()
                .map(|b| (b.bet_id.clone(), b.spot.clone(), i128::from(b.stake.get())))
                .collect(),
        };
        self.plan_core(dir, plan, command)
    }

    /// From journal format 6 one player's bets on one spot in a round stay
    /// within its maximum together (Colorado 2207, Maryland ch.1 G(3)):
    /// three straight bets of 100.00 on 17 at a table whose straight
    /// maximum is 100.00 played 300.00. Each part of a composite bet counts
    /// on its own spot. A bet the core refuses anyway is left to the core.
    fn check_spot_maximum(&self, dir: &Directory, player: u64, placing: &BetRequest<'_>) -> Result<(), ApiError> {
        self.check_spot_maximum_after(dir, player, placing, &mut HashMap::new())
    }

    /// [`Self::check_spot_maximum`] for a bet that follows `before`, what the
    /// earlier bets of the same request put on each spot; adds this bet's parts
    /// to it. A verbal series of three 5.00 bets on 17 at a 5.00 maximum
    /// played 15.00 when each was judged alone.
    fn check_spot_maximum_after(
        &self,
        dir: &Directory,
        player: u64,
        placing: &BetRequest<'_>,
        before: &mut HashMap<(Kind, PocketSet), u64>,
    ) -> Result<(), ApiError> {
        if !dir.rules().spot_maximum || self.table.limits().is_empty() || self.points.is_some() {
            return Ok(());
        }
        let Ok(placed) = self.table.rules().place(placing) else {
            return Ok(());
        };
        for part in placed.components() {
            let Some(range) = self.table.profile().limit(part.kind) else {
                continue;
            };
            let earlier = before.get(&(part.kind, part.covers)).copied().unwrap_or(0);
            let already = self
                .table
                .staked_on(player, part.kind, part.covers)
                .saturating_add(earlier);
            if already > 0 && already.saturating_add(part.stake.get()) > range.max.get() {
                let spot: Vec<&str> = part.covers.iter().map(|p| p.label()).collect();
                return Err(err(
                    ErrorCode::OverMaximum,
                    format!(
                        "you have {} on the {} {} this round: {} more is over the table maximum {} there",
                        Minor::new(already),
                        part.kind,
                        spot.join("-"),
                        part.stake,
                        range.max
                    ),
                ));
            }
        }
        for part in placed.components() {
            *before.entry((part.kind, part.covers)).or_default() += part.stake.get();
        }
        Ok(())
    }

    /// From journal format 5 a player places at most
    /// [`PLAYER_ROUND_BETS_MAX`] bets in a round, cancelled ones included:
    /// one player sending 100,000 one-unit bets filled the round and every
    /// other player was refused.
    fn check_share(&self, dir: &Directory, player: u64) -> Result<(), ApiError> {
        let betting = matches!(self.table.phase(), Phase::BettingOpen { .. });
        let placed = self.table.placed_by(player);
        if dir.rules().player_bets_capped && betting && placed >= PLAYER_ROUND_BETS_MAX {
            return Err(err(
                ErrorCode::TooManyBets,
                format!(
                    "a player places at most {PLAYER_ROUND_BETS_MAX} bets in a round, cancelled ones included; \
                     you have placed {placed} in round {} at table {}",
                    self.table.round(),
                    self.id
                ),
            ));
        }
        Ok(())
    }

    /// Whether a bet is one this player placed already in this round under
    /// the same id: a resend, acknowledged again with nothing written. The
    /// same id with any other contents (spot, stake, zero choice, coupon) is
    /// refused as a duplicate, as a conflicting resend of money is: the
    /// bet that stands is the first.
    /// From journal format 14, refuses a bet under an id its player used in
    /// an earlier round the table keeps: a resend of a bet whose answer was
    /// lost, arriving once a later round opened, would be placed in a round
    /// its player did not mean. Terminals give each bet a new id.
    pub(super) fn check_not_resent_late(&self, dir: &Directory, player: &str, bet_id: &str) -> Result<(), ApiError> {
        if !dir.rules().bet_ids_across_rounds {
            return Ok(());
        }
        let now = self.table.round();
        // Built once a round, at its first bet: about one insert a bet kept.
        let used = self.earlier_bets.0.get_or_init(|| {
            self.rounds
                .iter()
                .filter(|r| r.round < now)
                .flat_map(|r| r.bets.iter().map(|b| ((b.player.clone(), b.bet_id.clone()), r.round)))
                .collect()
        });
        if let Some(round) = used.get(&(player.to_string(), bet_id.to_string())) {
            return Err(err(
                ErrorCode::DuplicateBet,
                format!(
                    "bet id {bet_id} was your bet in round {round}: a bet sent again after its round is not \
                     placed in a later one, and a new bet needs a new id"
                ),
            ));
        }
        Ok(())
    }

    fn is_resent(&self, player: u64, bet_id: &str, placing: &BetRequest<'_>) -> Result<bool, ApiError> {
        let Some(placed) = self.table.bet(bet_id) else {
            return Ok(false);
        };
        if placed.player != player || placed.carried {
            // Someone else's bet, or one carried in prison from an earlier
            // round: the round refuses the id without saying whose it is.
            return Ok(false);
        }
        let same = self.table.rules().place(placing).is_ok_and(|b| b == placed.bet);
        if same {
            return Ok(true);
        }
        let was = &placed.bet;
        Err(err(
            ErrorCode::DuplicateBet,
            format!(
                "bet id {bet_id} is already your bet of {} on {} in this round; a resend must be the same bet, \
                 and a new bet needs a new id",
                croupier_core::Minor::new(was.stake().get()),
                was.spot().notation()
            ),
        ))
    }
}

/// The longest bet id a table takes: its movements are named
/// `{table}/{round}/{bet_id}/returned`, for any round number to come, and
/// must fit the ledger's ids.
pub fn bet_id_max_bytes(table: &str) -> usize {
    let round_digits = u64::MAX.to_string().len();
    croupier_ledger::ID_MAX_BYTES.saturating_sub(table.len() + round_digits + "//".len() + "/returned".len())
}
