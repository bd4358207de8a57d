//! Bets: placed and cancelled by their players.

use croupier_core::round::Command;
use croupier_core::ZeroChoice;

use super::{bet_id_max_bytes, Plan, TableSlot};
use crate::api::{ApiError, ErrorCode};
use crate::casino::actor::Actor;
use crate::casino::directory::Directory;
use crate::casino::err;
use crate::casino::request::Request;

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
                ..
            } => {
                let me = dir.player(&actor.username)?;
                let Some((_, chip_value)) = self.colours.get(&actor.username) else {
                    return Err(err(ErrorCode::NotSeated, "buy colour chips at this table first"));
                };
                if stake.get() % chip_value != 0 {
                    return Err(err(
                        ErrorCode::BadStake,
                        format!("a stake is whole chips of {chip_value}"),
                    ));
                }
                // Each of the bet's movements is named after it: the longest name must fit the ledger.
                let longest = bet_id_max_bytes(&self.id);
                if bet_id.len() > longest {
                    return Err(err(
                        ErrorCode::BadBetId,
                        format!("a bet id at table {} is at most {longest} bytes", self.id),
                    ));
                }
                // A resent bet that was already accepted is acknowledged again, not placed twice.
                if let Some(b) = self.table.bet(bet_id).filter(|b| !b.carried) {
                    if b.player == me.player_id && b.bet.stake().minor() == *stake {
                        return Ok(());
                    }
                }
                let zero_choice = zero_choice
                    .as_deref()
                    .map(|c| {
                        ZeroChoice::parse(c)
                            .ok_or_else(|| err(ErrorCode::BadZeroChoice, "zero_choice is half or prison"))
                    })
                    .transpose()?;
                Command::PlaceBet {
                    at_ms,
                    bet_id: bet_id.clone(),
                    player: me.player_id,
                    spot: spot.clone(),
                    stake_minor: i128::from(stake.get()),
                    zero_choice,
                    coupon_minor: coupon.map(|c| i128::from(c.get())),
                }
            }
            Request::CancelBet { bet_id, .. } => Command::CancelBet {
                at_ms,
                bet_id: bet_id.clone(),
                player: dir.player(&actor.username)?.player_id,
            },
            _ => return Err(err(ErrorCode::Internal, "not a bet")),
        };
        self.plan_core(dir, plan, command)
    }
}
