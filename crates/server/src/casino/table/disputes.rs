//! Disputes from journal format 5. "The pit supervisor, and not the
//! dealer, must make all decisions concerning disputed play or the payment
//! or collection of wagers" (Colorado 2206(5)): a dispute is decided only by
//! the roles its profile's `dispute_authority` maps to
//! ([`policy::dispute_deciders`]), and it pays or collects wagers of the
//! round disputed. Each correction is for a player who bet in that round,
//! once, and leaves the round giving them in all (what it returned, every
//! correction of it so far, and this one) between nothing and the most
//! their bets in it could have returned. Up to format 4 any pit supervisor
//! could pay anyone at the table any amount.
//!
//! From format 14 a dispute carries the client's id: the same dispute sent
//! again decides nothing twice (it once paid twice), and its corrections'
//! transfers are named by it. At a table whose result is an RNG's or an
//! automated wheel's, the result is the certified source's, so a correction
//! is bounded by what the bets return on the recorded pocket with the
//! recorded bonus draws, not on any pocket. And no dispute pays a
//! progressive meter's jackpot: only the game does (Maryland ch.3 F(16)-(18)),
//! which also resets the meter; a floorperson once paid 32,700.30 in three
//! disputes for a bonus wager that won nothing, the meter never reset.

use croupier_core::round::Command;
use croupier_core::{BetRequest, TableRules};
use croupier_ledger::signed_money;

use super::{person, Effect, Plan, TableSlot};
use crate::api::OutcomeSource;
use crate::api::{ApiError, ErrorCode};
use crate::casino::actor::Actor;
use crate::casino::directory::Directory;
use crate::casino::journal::JournalEvent;
use crate::casino::recall::{BetRecord, RoundRecord, RECALL_BETS_KEPT, RECALL_ROUNDS_MAX};
use crate::casino::request::StoredCorrection;
use crate::casino::{err, policy};

/// Corrections as the round takes them: each player's number and amount.
type Corrections = Vec<(u64, i128)>;

/// A dispute as asked: why, the corrections, the round named (if any), and
/// the client's id (format 14 on).
pub(super) struct Dispute<'a> {
    pub reason: &'a str,
    pub corrections: &'a [StoredCorrection],
    pub round: Option<u64>,
    pub id: Option<&'a str>,
}

/// The longest id a client gives a dispute, in bytes.
pub const DISPUTE_ID_MAX_BYTES: usize = 64;

impl Dispute<'_> {
    /// What the decision asks, as a digest: a resend under its id asks the same.
    fn digest(&self) -> String {
        use sha2::{Digest, Sha256};
        let mut hash = Sha256::new();
        hash.update(self.round.map_or_else(|| "last".to_string(), |n| n.to_string()));
        hash.update([0]);
        hash.update(self.reason.as_bytes());
        for c in self.corrections {
            hash.update([0]);
            hash.update(c.player.as_bytes());
            hash.update([0]);
            hash.update(c.amount.to_string());
        }
        hex::encode(&hash.finalize()[..16])
    }
}

/// What disputes from journal format 5 corrected, by round and player, for
/// the rounds the table keeps. Only this file reads or changes it.
#[derive(Clone, Debug, Default, serde::Serialize, serde::Deserialize)]
#[serde(transparent)]
pub(super) struct Corrected(#[serde(with = "croupier_core::canonical::map")] foldhash::HashMap<(u64, u64), i128>);

impl Corrected {
    /// Once durable: a dispute's corrections of `round`; only the rounds
    /// from `oldest`, those still kept, can be disputed again.
    pub(super) fn add(&mut self, round: u64, corrections: Vec<(u64, i128)>, oldest: u64) {
        for (player, amount) in corrections {
            *self.0.entry((round, player)).or_default() += amount;
        }
        self.0.retain(|(r, _), _| *r >= oldest);
    }
}

/// The disputes decided under a client's id, each with its contents'
/// digest (journal format 14): a resend decides nothing twice. Only this
/// file reads or changes them.
#[derive(Clone, Debug, Default, serde::Serialize, serde::Deserialize)]
#[serde(transparent)]
pub(super) struct DisputeIds(#[serde(with = "croupier_core::canonical::map")] foldhash::HashMap<String, String>);

impl DisputeIds {
    pub(super) fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// Once durable: dispute `id` decided, its contents' digest `digest`.
    pub(super) fn decided(&mut self, id: String, digest: String) {
        self.0.insert(id, digest);
    }
}

impl TableSlot {
    pub(super) fn plan_dispute(
        &self,
        dir: &Directory,
        at_ms: u64,
        actor: &Actor,
        dispute: Dispute<'_>,
        plan: &mut Plan,
    ) -> Result<(), ApiError> {
        self.check_floats_open(dir, "correction is paid or collected")?;
        let authority = &self.table.profile().spec().dispute_authority;
        // A table made before format 5 may name no one who decides disputes.
        let deciders = policy::dispute_deciders(authority, dir.journal_format()).map_err(|why| {
            err(
                ErrorCode::Forbidden,
                format!(
                    "no one decides disputes at table {}: its profile's dispute_authority {why}",
                    self.id
                ),
            )
        })?;
        if !deciders.contains(&actor.role) {
            let roles: Vec<&str> = deciders.iter().map(|r| r.name()).collect();
            let what = format!(
                "decide disputes at table {}: its profile gives them to the {authority} (a user of role {}; \
                 an admin adds one on the admin page)",
                self.id,
                roles.join(" or ")
            );
            return Err(ApiError::forbidden(&what, actor.role));
        }
        if dir.rules().dispute_ids {
            let digest = dispute.digest();
            let id = self.dispute_id(dispute.id)?;
            match self.disputes.0.get(id) {
                // Sent again as it was: decided already, nothing to write.
                Some(decided) if *decided == digest => return Ok(()),
                Some(_) => {
                    return Err(err(
                        ErrorCode::Refused,
                        format!(
                            "dispute id {id} decided another dispute at table {}; a new decision takes a new id",
                            self.id
                        ),
                    ))
                }
                None => {}
            }
            plan.dispute_id = Some(id.to_string());
            plan.effects.push(Effect::DisputeId {
                id: id.to_string(),
                digest,
            });
        }
        let (round, corrections) = self.checked_corrections(dir, dispute.round, dispute.corrections)?;
        let command = Command::DecideDispute {
            at_ms,
            by: person(actor, authority),
            reason: dispute.reason.to_string(),
            corrections: corrections.clone(),
        };
        self.plan_core(dir, plan, command)?;
        if let Some(n) = round {
            for event in &mut plan.events {
                if let JournalEvent::DisputeDecided { round, .. } = event {
                    *round = Some(n);
                }
            }
            if !corrections.is_empty() {
                plan.effects.push(Effect::Corrected { round: n, corrections });
            }
        }
        Ok(())
    }

    /// The round disputed (the one named, or the table's last settled
    /// round) and the corrections, each checked against it.
    fn checked_corrections(
        &self,
        dir: &Directory,
        round: Option<u64>,
        corrections: &[StoredCorrection],
    ) -> Result<(Option<u64>, Corrections), ApiError> {
        let record: Option<&RoundRecord> = match round {
            Some(n) => Some(self.round_kept(n)?),
            None => self.rounds.iter().rev().find(|r| r.settled).map(|r| r.as_ref()),
        };
        if corrections.is_empty() {
            return Ok((record.map(|r| r.round), Vec::new()));
        }
        let Some(record) = record else {
            return Err(err(
                ErrorCode::BadCorrection,
                format!(
                    "table {} has no settled round: a correction pays or collects what a round paid",
                    self.id
                ),
            ));
        };
        if !record.settled {
            return Err(err(
                ErrorCode::BadCorrection,
                format!(
                    "round {} at table {} is not settled: a correction pays or collects what a settled round paid",
                    record.round, self.id
                ),
            ));
        }
        if record.pocket.is_none() {
            return Err(err(
                ErrorCode::BadCorrection,
                format!(
                    "round {} at table {} had no result: its bets went back, and there is nothing to correct",
                    record.round, self.id
                ),
            ));
        }
        self.check_same_play(record.round)?;
        self.check_points_dispute(dir)?;
        let rules = self.table.rules().ignoring_limits();
        // A certified source's result is the round's (format 14): the bound is its pocket's.
        let certified = dir.rules().dispute_ids && self.outcome != OutcomeSource::Dealer;
        let mut checked: Corrections = Vec::with_capacity(corrections.len());
        for c in corrections {
            let player = dir.player(&c.player)?.player_id;
            let refuse = |why: String| {
                err(
                    ErrorCode::BadCorrection,
                    format!("{} in round {} at table {}: {why}", c.player, record.round, self.id),
                )
            };
            if checked.iter().any(|(p, _)| *p == player) {
                return Err(refuse(
                    "corrected twice in one dispute; give one correction of the sum".into(),
                ));
            }
            if c.amount == 0 {
                return Err(refuse("a correction of 0 changes nothing".into()));
            }
            let bets: Vec<&BetRecord> = record.bets.iter().filter(|b| b.player == c.player).collect();
            if bets.is_empty() {
                return Err(refuse(
                    "they had no bet in it, and a dispute corrects only the round's own wagers".into(),
                ));
            }
            let returned: i128 = bets.iter().map(|b| i128::from(b.returned.unwrap_or(0))).sum();
            let most = self.most_returned(dir, &rules, record, &bets);
            let earlier = self.corrected.0.get(&(record.round, player)).copied().unwrap_or(0);
            let given = returned + earlier;
            let total = given + i128::from(c.amount);
            if total < 0 {
                return Err(refuse(format!(
                    "collecting {} would take back more than the {} the round gave them",
                    signed_money(&i128::from(c.amount.unsigned_abs())),
                    signed_money(&given)
                )));
            }
            if total > most {
                let bound = if certified {
                    format!(
                        "the {} their bets in it returned on the pocket the table's {} recorded ({})",
                        signed_money(&most),
                        if self.outcome == OutcomeSource::Rng {
                            "RNG"
                        } else {
                            "wheel"
                        },
                        record.pocket.as_deref().unwrap_or("-")
                    )
                } else {
                    format!(
                        "the {} their bets in it could return at most together on any one pocket",
                        signed_money(&most)
                    )
                };
                return Err(refuse(format!(
                    "paying {} would give them {} from the round, more than {bound}",
                    signed_money(&i128::from(c.amount)),
                    signed_money(&total),
                )));
            }
            checked.push((player, i128::from(c.amount)));
        }
        Ok((Some(record.round), checked))
    }

    /// A dispute's id as the client gave it, checked (format 14 on).
    fn dispute_id<'a>(&self, id: Option<&'a str>) -> Result<&'a str, ApiError> {
        let Some(id) = id else {
            return Err(err(
                ErrorCode::BadRequest,
                "a dispute carries an id (\"id\"), chosen when its form is filled: sent again under it, the \
                 decision is made once",
            ));
        };
        let valid = !id.is_empty()
            && id.len() <= DISPUTE_ID_MAX_BYTES
            && id
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.'));
        if !valid {
            return Err(err(
                ErrorCode::BadRequest,
                format!("a dispute's id is 1 to {DISPUTE_ID_MAX_BYTES} of A-Z, a-z, 0-9, '-', '_', '.', not {id:?}"),
            ));
        }
        Ok(id)
    }

    /// Round `n` of this table, if the table still keeps it.
    fn round_kept(&self, n: u64) -> Result<&RoundRecord, ApiError> {
        self.rounds
            .iter()
            .find(|r| r.round == n)
            .map(|r| r.as_ref())
            .ok_or_else(|| {
                let kept = match (self.rounds.front(), self.rounds.back()) {
                    (Some(first), Some(last)) => format!("rounds {} to {}", first.round, last.round),
                    _ => "no rounds".into(),
                };
                err(
                    ErrorCode::NoRound,
                    format!(
                        "table {} has no round {n} among those it keeps for disputes ({kept}: its last \
                         {RECALL_ROUNDS_MAX} at most, fewer where they hold over {RECALL_BETS_KEPT} bets)",
                        self.id
                    ),
                )
            })
    }

    /// The most `bets` (one player's, in round `record`) could have handed
    /// back together on any one pocket of the wheel: each stake with what
    /// it wins there, a match play coupon's win included where one was
    /// played on the bet (up to format 4, which kept no coupons, wherever
    /// the profile takes one). A bet carried from prison into this round is
    /// at most released: its stake, as is a bet handed back (annulled). A
    /// bet the rules no longer place counts
    /// its stake on every pocket.
    fn most_returned(
        &self,
        dir: &Directory,
        rules: &TableRules<'_>,
        record: &RoundRecord,
        bets: &[&BetRecord],
    ) -> i128 {
        let before = record
            .round
            .checked_sub(1)
            .and_then(|n| self.rounds.iter().find(|r| r.round == n));
        let carried = |bet: &BetRecord| {
            before.is_some_and(|r| {
                r.bets
                    .iter()
                    .any(|b| b.bet_id == bet.bet_id && b.player == bet.player && b.result.as_deref() == Some("prison"))
            })
        };
        let coupons_known = dir.rules().coupons_issued;
        let coupon_on = |bet: &BetRecord| -> Option<i128> {
            self.coupons_played
                .on_bet(&bet.bet_id, record.round)
                .and_then(|id| dir.coupon(id))
                .map(|c| i128::from(c.value))
        };
        // From format 14 a certified source's result is the result: an RNG's
        // or a wheel's round is corrected only within what it recorded.
        let recorded_only = dir.rules().dispute_ids && self.outcome != OutcomeSource::Dealer;
        let mut anywhere: i128 = 0;
        let mut placed = Vec::with_capacity(bets.len());
        for bet in bets {
            let stake = i128::from(bet.stake);
            // A bet handed back (annulled, or its round void) played for nothing: its stake at
            // most; one carried from prison, its stake released at most (where the result is a
            // certified source's, what the recorded pocket gave it).
            if carried(bet) || bet.result.as_deref() == Some("returned") {
                anywhere += if recorded_only {
                    i128::from(bet.returned.unwrap_or(0))
                } else {
                    stake
                };
                continue;
            }
            // A Bonus Spin Xtreme wager wins on any pocket a target may be;
            // where the draws are the certified source's, what it won.
            if let Some(most) = self.bonus_wager_most(dir, bet) {
                anywhere += if recorded_only {
                    i128::from(bet.returned.unwrap_or(0))
                } else {
                    most
                };
                continue;
            }
            let coupons = if coupons_known {
                vec![coupon_on(bet)]
            } else {
                vec![Some(stake), None]
            };
            let found = coupons.into_iter().find_map(|coupon| {
                let request = BetRequest {
                    spot: &bet.spot,
                    stake_minor: stake,
                    zero_choice: None,
                    coupon_minor: coupon,
                };
                rules.place(&request).ok()
            });
            match found {
                Some(p) => placed.push(p),
                None => anywhere += stake,
            }
        }
        // A Roulette X straight pays by its paytable and the round's lucky numbers.
        let roulette_x = self.roulette_x_of(record);
        let recorded = record.pocket.as_deref().and_then(croupier_core::Pocket::parse);
        let pockets: Vec<croupier_core::Pocket> = match recorded {
            Some(pocket) if recorded_only => vec![pocket],
            _ => self.table.config().wheel.pockets().iter().collect(),
        };
        let best = pockets
            .into_iter()
            .map(|pocket| {
                placed
                    .iter()
                    .map(|p| {
                        let returned = rules.settle(p, &[pocket]).returned;
                        let returned = match &roulette_x {
                            Some((x, lucky)) => x.bet_return(p, pocket, lucky, returned),
                            None => returned,
                        };
                        i128::from(returned.get())
                    })
                    .sum::<i128>()
            })
            .max()
            .unwrap_or(0);
        anywhere + best
    }
}
