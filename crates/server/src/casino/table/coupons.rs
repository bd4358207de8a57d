//! Match play coupons at the table: only a coupon issued to the player for
//! this table, once (Colorado 2203(1): "valid match play coupons"). A bet
//! once took a coupon's value on the player's word, so a hedged red and
//! black with coupons won every round.

use croupier_core::Minor;
use foldhash::HashMap;
use serde::{Deserialize, Serialize};

use super::{Effect, Plan, TableSlot};
use crate::api::{ApiError, ErrorCode};
use crate::casino::directory::Directory;
use crate::casino::err;

/// The issued match play coupons played at a table, each with the bet and
/// round it was played on: each is played once (journal format 5). Only
/// this file reads or changes them.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
#[serde(transparent)]
pub(super) struct CouponsPlayed(#[serde(with = "croupier_core::canonical::map")] HashMap<String, (String, u64)>);

impl CouponsPlayed {
    /// The coupon played on `bet_id` in `round`, if one was.
    pub(super) fn on_bet(&self, bet_id: &str, round: u64) -> Option<&str> {
        self.0
            .iter()
            .find(|(_, (bet, r))| bet == bet_id && *r == round)
            .map(|(id, _)| id.as_str())
    }

    /// Once durable: `coupon` played on a bet (its id and round), or freed.
    pub(super) fn set(&mut self, coupon: String, played_on: Option<(String, u64)>) {
        match played_on {
            Some(on) => self.0.insert(coupon, on),
            None => self.0.remove(&coupon),
        };
    }
}

/// A bet's claim to play a coupon: the bet, and the value and id it names.
pub(super) struct Claim<'a> {
    pub bet_id: &'a str,
    pub value: Option<Minor>,
    pub id: Option<&'a str>,
}

impl TableSlot {
    /// Whether coupon `id` was played here (and not freed since).
    pub(in crate::casino) fn coupon_played_here(&self, id: &str) -> bool {
        self.coupons_played.0.contains_key(id)
    }

    /// The value of the coupon a bet plays, checked: issued to `player` for
    /// this table, of the value the bet names if it names one, and not
    /// played before on another bet. Up to journal format 4 a coupon was
    /// its value alone, and replays as it was. Plans the coupon's play.
    pub(super) fn coupon_played(
        &self,
        dir: &Directory,
        at_ms: u64,
        player: &str,
        claim: Claim<'_>,
        plan: &mut Plan,
    ) -> Result<Option<i128>, ApiError> {
        let Claim {
            bet_id,
            value: coupon,
            id: coupon_id,
        } = claim;
        if !dir.rules().coupons_issued {
            return Ok(coupon.map(|c| i128::from(c.get())));
        }
        let Some(id) = coupon_id else {
            return match coupon {
                None => Ok(None),
                Some(_) => Err(err(
                    ErrorCode::CouponNotIssued,
                    "a match play coupon is played by its id (coupon_id), as issued to you for this table",
                )),
            };
        };
        let issued = dir
            .coupon(id)
            .filter(|c| c.player == player)
            .ok_or_else(|| err(ErrorCode::CouponNotIssued, format!("no coupon {id} was issued to you")))?;
        if issued.table != self.id {
            return Err(err(
                ErrorCode::CouponNotIssued,
                format!("coupon {id} is for table {}, not {}", issued.table, self.id),
            ));
        }
        let round = self.table.round();
        let resent = matches!(self.coupons_played.0.get(id), Some((bet, r)) if bet == bet_id && *r == round);
        // A bet accepted before the coupon's end, sent again after it, is the
        // round's to call a resend: the coupon's end does not refuse it.
        if let Some(end) = issued.expires_at_ms.filter(|end| at_ms >= *end && !resent) {
            return Err(err(
                ErrorCode::CouponExpired,
                format!("coupon {id} expired at {end} (Unix ms); it is no longer valid (Colorado 2203(1))"),
            ));
        }
        if let Some(named) = coupon.filter(|v| v.get() != issued.value) {
            return Err(err(
                ErrorCode::CouponNotMatched,
                format!("coupon {id} is worth {}, not {}", Minor::new(issued.value), named),
            ));
        }
        match self.coupons_played.0.get(id) {
            // The same bet sent again: it is the round's to call a resend.
            Some((bet, r)) if bet == bet_id && *r == round => {}
            Some((bet, r)) => {
                return Err(err(
                    ErrorCode::CouponUsed,
                    format!("coupon {id} was played already, on bet {bet} in round {r}"),
                ))
            }
            None => plan.effects.push(Effect::Coupon {
                coupon: id.to_string(),
                played_on: Some((bet_id.to_string(), round)),
            }),
        }
        Ok(Some(i128::from(issued.value)))
    }

    /// Plans the coupons of bets handed back unplayed (the table closed, the
    /// round voided, the bets annulled or returned on a no spin) back to
    /// their players, to play again: the coupon was not played. One pass
    /// over the table's played coupons, however many bets come back.
    pub(in crate::casino) fn coupons_returned(&self, events: &[croupier_core::round::Event], plan: &mut Plan) {
        let returned: std::collections::HashSet<&str> = events
            .iter()
            .filter_map(|e| match e {
                croupier_core::round::Event::BetReturned { bet_id, .. } => Some(bet_id.as_str()),
                _ => None,
            })
            .collect();
        if returned.is_empty() {
            return;
        }
        let round = self.table.round();
        for (coupon, (bet, r)) in &self.coupons_played.0 {
            if *r == round && returned.contains(bet.as_str()) {
                plan.effects.push(Effect::Coupon {
                    coupon: coupon.clone(),
                    played_on: None,
                });
            }
        }
    }

    /// Plans a cancelled bet's coupon back to its player, to play again.
    pub(super) fn coupon_freed(&self, bet_id: &str, plan: &mut Plan) {
        let round = self.table.round();
        if let Some(coupon) = self.coupons_played.on_bet(bet_id, round) {
            plan.effects.push(Effect::Coupon {
                coupon: coupon.to_string(),
                played_on: None,
            });
        }
    }
}
