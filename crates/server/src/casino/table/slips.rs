//! A table's fill and credit slips, and the counts of its float (journal
//! format 15). No rule document croupier follows speaks of them; this is
//! house practice, as a casino's back office keeps it:
//!
//! - a **fill slip** moves chips from the cage to the table's float
//!   (`house` → `float:T`), a **credit slip** from the float back to the
//!   cage (`float:T` → `house`);
//! - each slip carries two signatures by two people: the pit's, who asks
//!   for it (`request_fill`, `request_credit`: a pit supervisor or another
//!   floor supervisor, or an admin), and the cage's, who issues or receives
//!   the chips (`sign_slip`: a cashier, or an admin who did not ask). Money
//!   moves only at the second; until then the pit may void the slip with a
//!   reason;
//! - a credit takes from the float no more than it holds, and only between
//!   rounds, when nothing on the layout may still be paid from it; under an
//!   emergency the floats are closed (european-casino 6.1-6.2) and no slip
//!   is asked for or signed;
//! - the pit counts the float at opening and closing (`count_float`): each
//!   count is kept beside the ledger's balance of the float then, and a
//!   count that differs is shown with its difference, never corrected.
//!
//! Each slip and count carries the client's id: sent again with the same
//! contents it writes nothing, and a slip's money moves under
//! `fill/{table}/slip/{id}` or `fill/{table}/credit/{id}`, ids the ledger
//! keeps for good (its `fill` kind), so it moves once. The automatic fill
//! of a float that cannot pay a round's winners stays as it was
//! (`settlement.rs`); the books count it among the fills.

use std::collections::BTreeMap;

use croupier_core::round::Phase;
use croupier_core::Minor;
use croupier_ledger::Account;

use super::{person, transfer, Effect, Plan, TableSlot};
use crate::api::bodies::{FloatCountView, SlipStep, SlipView};
use crate::api::{ApiError, ErrorCode};
use crate::casino::actor::Actor;
use crate::casino::directory::Directory;
use crate::casino::err;
use crate::casino::journal::event::SlipRecord;
use crate::casino::journal::{require_format, JournalEvent, FORMAT_FLOAT_SLIPS};
use crate::casino::request::Request;

/// The largest slip, in minor units (1,000,000.00).
pub const SLIP_MAX_MINOR: u64 = 100_000_000;
/// The largest count of a float, in minor units (100,000,000.00).
pub const COUNT_MAX_MINOR: u64 = 10_000_000_000;
/// The slips a table holds open at once, and asks for in a gaming day.
pub const SLIPS_OPEN_MAX: usize = 20;
pub const SLIPS_DAY_MAX: usize = 100;
/// The counts of its float a table takes in a gaming day.
pub const COUNTS_DAY_MAX: usize = 20;
/// The gaming days a table keeps its signed and voided slips and its
/// counts for: its books' ([`super::books::BOOK_DAYS_KEPT`]).
const DAYS_KEPT: u64 = super::books::BOOK_DAYS_KEPT as u64;
/// The longest client's id of a slip or count, and a void's reason, in bytes.
pub const SLIP_ID_MAX_BYTES: usize = 64;
pub const SLIP_REASON_MAX_BYTES: usize = 200;

/// One slip, as the table keeps it.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Slip {
    pub credit: bool,
    pub amount: u64,
    pub day: u64,
    pub at_ms: u64,
    pub by: String,
    pub licence: String,
    /// Signed (`reason` none) or voided, by whom and when; `None`: open.
    pub closed: Option<Closed>,
}

#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Closed {
    pub by: String,
    pub licence: String,
    pub at_ms: u64,
    pub reason: Option<String>,
}

/// One count of the float.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Count {
    pub id: String,
    pub day: u64,
    pub at_ms: u64,
    pub closing: bool,
    pub counted: u64,
    pub ledger: i128,
    pub by: String,
    pub licence: String,
}

/// A table's slips by client id, and its counts, oldest first. Only this
/// file changes them.
#[derive(Clone, Debug, Default, serde::Serialize, serde::Deserialize)]
pub struct Slips {
    slips: BTreeMap<String, Slip>,
    counts: Vec<Count>,
}

impl Slips {
    pub fn is_empty(&self) -> bool {
        self.slips.is_empty() && self.counts.is_empty()
    }

    /// The slips neither signed nor voided, by id.
    pub(super) fn open(&self) -> impl Iterator<Item = (&String, &Slip)> {
        self.slips.iter().filter(|(_, s)| s.closed.is_none())
    }
}

/// What a slip's request changes once durable.
pub(in crate::casino) enum SlipChange {
    Requested(String, Slip),
    Closed(String, Closed),
    Counted(Count),
}

fn check_id(id: &str) -> Result<(), ApiError> {
    let valid = !id.is_empty()
        && id.len() <= SLIP_ID_MAX_BYTES
        && id
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.'));
    if valid {
        return Ok(());
    }
    Err(err(
        ErrorCode::BadRequest,
        format!("id: 1 to {SLIP_ID_MAX_BYTES} of A-Z, a-z, 0-9, '-', '_', '.', not {id:?}"),
    ))
}

fn kind(credit: bool) -> &'static str {
    if credit {
        "credit"
    } else {
        "fill"
    }
}

impl TableSlot {
    fn between_rounds(&self, what: &str) -> Result<(), ApiError> {
        match self.table.phase() {
            Phase::Closed | Phase::Open => Ok(()),
            _ => Err(err(
                ErrorCode::RoundUnderWay,
                format!("a round is under way at table {}: {what} between rounds", self.id),
            )),
        }
    }

    fn check_float_holds(&self, amount: u64) -> Result<(), ApiError> {
        let float = self.balance_of(&self.float);
        if i128::from(amount) > float {
            return Err(err(
                ErrorCode::InsufficientFloat,
                format!(
                    "amount: the float of table {} holds {}, less than the credit {}",
                    self.id,
                    Minor::new(u64::try_from(float).unwrap_or(0)),
                    Minor::new(amount)
                ),
            ));
        }
        Ok(())
    }

    fn slip(&self, id: &str) -> Result<&Slip, ApiError> {
        self.slips
            .slips
            .get(id)
            .ok_or_else(|| err(ErrorCode::NoSlip, format!("id: table {} has no slip {id:?}", self.id)))
    }

    /// Plans a slip's request, signature or void, or a count of the float.
    pub(super) fn plan_slip(
        &self,
        dir: &Directory,
        at_ms: u64,
        actor: &Actor,
        request: &Request,
        plan: &mut Plan,
    ) -> Result<(), ApiError> {
        require_format(
            dir.journal_format(),
            FORMAT_FLOAT_SLIPS,
            "fill and credit slips and float counts",
        )?;
        let signer = person(actor, "");
        let (by, licence) = (signer.name, signer.licence);
        let day = dir.gaming_day(at_ms);
        let record = match request {
            Request::RequestSlip { id, credit, amount, .. } => {
                check_id(id)?;
                let amount = amount.get();
                if let Some(slip) = self.slips.slips.get(id) {
                    if slip.credit == *credit && slip.amount == amount {
                        return Ok(()); // A resend: written once.
                    }
                    return Err(err(
                        ErrorCode::Refused,
                        format!(
                            "id: slip {id} at table {} is another slip; a new slip takes a new id",
                            self.id
                        ),
                    ));
                }
                if amount == 0 || amount > SLIP_MAX_MINOR {
                    return Err(err(
                        ErrorCode::BadAmount,
                        format!(
                            "amount: a slip is more than 0 and at most {}",
                            Minor::new(SLIP_MAX_MINOR)
                        ),
                    ));
                }
                self.check_floats_open(dir, "slip is asked for")?;
                if *credit {
                    self.between_rounds("a credit is asked for")?;
                    self.check_float_holds(amount)?;
                }
                let open = self.slips.slips.values().filter(|s| s.closed.is_none()).count();
                let today = self.slips.slips.values().filter(|s| s.day == day).count();
                if open >= SLIPS_OPEN_MAX || today >= SLIPS_DAY_MAX {
                    return Err(err(
                        ErrorCode::Full,
                        format!(
                            "table {} holds {open} slips open (at most {SLIPS_OPEN_MAX}) and asked for {today} today \
                             (at most {SLIPS_DAY_MAX}): sign or void some first",
                            self.id
                        ),
                    ));
                }
                let slip = Slip {
                    credit: *credit,
                    amount,
                    day,
                    at_ms,
                    by: by.clone(),
                    licence: licence.clone(),
                    closed: None,
                };
                plan.effects.push(Effect::Slip(SlipChange::Requested(id.clone(), slip)));
                SlipRecord::Requested {
                    id: id.clone(),
                    kind: kind(*credit).into(),
                    amount,
                    by,
                    licence,
                }
            }
            Request::SignSlip { id, .. } => {
                let slip = self.slip(id)?;
                match &slip.closed {
                    Some(c) if c.reason.is_none() && c.by == by => return Ok(()), // A resend.
                    Some(c) => {
                        let how = if c.reason.is_some() { "voided" } else { "signed" };
                        return Err(err(
                            ErrorCode::SlipClosed,
                            format!("id: slip {id} at table {} was {how} by {}", self.id, c.by),
                        ));
                    }
                    None => {}
                }
                if slip.by == by {
                    return Err(err(
                        ErrorCode::SameSigner,
                        format!("{by} asked for slip {id}: its second signature is another person's, the cage's"),
                    ));
                }
                self.check_floats_open(dir, "slip is signed")?;
                let (from, to, word) = if slip.credit {
                    self.between_rounds("a credit is signed")?;
                    self.check_float_holds(slip.amount)?;
                    (self.float.clone(), Account::House, "credit")
                } else {
                    (Account::House, self.float.clone(), "slip")
                };
                let transfer_id = format!("fill/{}/{word}/{id}", self.id);
                if transfer_id.len() > croupier_ledger::ID_MAX_BYTES {
                    return Err(err(
                        ErrorCode::BadRequest,
                        format!("id: {id:?} is too long for table {}", self.id),
                    ));
                }
                plan.transfers.push(transfer(
                    transfer_id,
                    from,
                    to,
                    slip.amount,
                    &format!("{} slip", kind(slip.credit)),
                ));
                let closed = Closed {
                    by: by.clone(),
                    licence: licence.clone(),
                    at_ms,
                    reason: None,
                };
                plan.effects.push(Effect::Slip(SlipChange::Closed(id.clone(), closed)));
                SlipRecord::Signed {
                    id: id.clone(),
                    kind: kind(slip.credit).into(),
                    amount: slip.amount,
                    by,
                    licence,
                }
            }
            Request::VoidSlip { id, reason, .. } => {
                let slip = self.slip(id)?;
                match &slip.closed {
                    Some(c) if c.reason.as_ref() == Some(reason) => return Ok(()), // A resend.
                    Some(c) => {
                        return Err(err(
                            ErrorCode::SlipClosed,
                            format!("id: slip {id} at table {} was closed by {}", self.id, c.by),
                        ))
                    }
                    None => {}
                }
                let text = reason.trim();
                if text.is_empty() || reason.len() > SLIP_REASON_MAX_BYTES || reason.chars().any(char::is_control) {
                    return Err(err(
                        ErrorCode::BadText,
                        format!("reason: a void's reason is 1 to {SLIP_REASON_MAX_BYTES} bytes of text on one line"),
                    ));
                }
                let closed = Closed {
                    by: by.clone(),
                    licence,
                    at_ms,
                    reason: Some(reason.clone()),
                };
                plan.effects.push(Effect::Slip(SlipChange::Closed(id.clone(), closed)));
                SlipRecord::Voided {
                    id: id.clone(),
                    by,
                    reason: reason.clone(),
                }
            }
            Request::CountFloat { id, when, amount, .. } => {
                check_id(id)?;
                let closing = match when.as_str() {
                    "opening" => false,
                    "closing" => true,
                    other => {
                        return Err(err(
                            ErrorCode::BadRequest,
                            format!("when: a float is counted at \"opening\" or \"closing\", not {other:?}"),
                        ))
                    }
                };
                let counted = amount.get();
                if let Some(c) = self.slips.counts.iter().find(|c| c.id == *id) {
                    if c.closing == closing && c.counted == counted {
                        return Ok(()); // A resend.
                    }
                    return Err(err(
                        ErrorCode::Refused,
                        format!(
                            "id: count {id} at table {} counted otherwise; a new count takes a new id",
                            self.id
                        ),
                    ));
                }
                if counted > COUNT_MAX_MINOR {
                    return Err(err(
                        ErrorCode::BadAmount,
                        format!("amount: a count is at most {}", Minor::new(COUNT_MAX_MINOR)),
                    ));
                }
                self.between_rounds("the float is counted")?;
                if self.slips.counts.iter().filter(|c| c.day == day).count() >= COUNTS_DAY_MAX {
                    return Err(err(
                        ErrorCode::Full,
                        format!("table {} was counted {COUNTS_DAY_MAX} times today", self.id),
                    ));
                }
                let ledger = self.balance_of(&self.float);
                plan.effects.push(Effect::Slip(SlipChange::Counted(Count {
                    id: id.clone(),
                    day,
                    at_ms,
                    closing,
                    counted,
                    ledger,
                    by: by.clone(),
                    licence: licence.clone(),
                })));
                SlipRecord::Counted {
                    id: id.clone(),
                    when: when.clone(),
                    counted,
                    ledger: ledger as i64,
                    by,
                    licence,
                }
            }
            _ => return Err(err(ErrorCode::Internal, "not a slip")),
        };
        plan.events.push(JournalEvent::FloatSlip {
            table: self.id.clone(),
            slip: record,
        });
        Ok(())
    }

    /// Applies a slip's change on gaming day `day`, and forgets the closed
    /// slips and the counts of days the table no longer keeps.
    pub(super) fn change_slips(&mut self, day: u64, change: SlipChange) {
        match change {
            SlipChange::Requested(id, slip) => {
                self.slips.slips.insert(id, slip);
            }
            SlipChange::Closed(id, closed) => {
                if let Some(slip) = self.slips.slips.get_mut(&id) {
                    slip.closed = Some(closed);
                }
            }
            SlipChange::Counted(count) => self.slips.counts.push(count),
        }
        let kept = |d: u64| d + DAYS_KEPT > day;
        self.slips.slips.retain(|_, s| s.closed.is_none() || kept(s.day));
        self.slips.counts.retain(|c| kept(c.day));
    }

    /// The slips asked for on gaming day `day` and every one still open
    /// (`None`: the open ones alone), oldest first.
    pub fn slip_views(&self, day: Option<u64>) -> Vec<SlipView> {
        let mut views: Vec<SlipView> = self
            .slips
            .slips
            .iter()
            .filter(|(_, s)| s.closed.is_none() || Some(s.day) == day)
            .map(|(id, s)| SlipView {
                table: self.id.clone(),
                id: id.clone(),
                kind: kind(s.credit).into(),
                amount: s.amount,
                state: match &s.closed {
                    None => "open",
                    Some(c) if c.reason.is_some() => "voided",
                    Some(_) => "signed",
                }
                .into(),
                day: crate::casino::gaming_day::day_text(s.day),
                requested_at_ms: s.at_ms,
                requested_by: s.by.clone(),
                requested_licence: s.licence.clone(),
                closed_by: s.closed.as_ref().map(|c| c.by.clone()),
                closed_licence: s.closed.as_ref().map(|c| c.licence.clone()),
                closed_at_ms: s.closed.as_ref().map(|c| c.at_ms),
                reason: s.closed.as_ref().and_then(|c| c.reason.clone()),
            })
            .collect();
        views.sort_by_key(|v| (v.requested_at_ms, v.id.clone()));
        views
    }

    /// The counts of the float on gaming day `day`, oldest first.
    pub fn count_views(&self, day: u64) -> Vec<FloatCountView> {
        self.slips
            .counts
            .iter()
            .filter(|c| c.day == day)
            .map(|c| FloatCountView {
                id: c.id.clone(),
                when: if c.closing { "closing" } else { "opening" }.into(),
                at_ms: c.at_ms,
                by: c.by.clone(),
                licence: c.licence.clone(),
                counted: c.counted,
                ledger: c.ledger as i64,
                difference: (i128::from(c.counted) - c.ledger) as i64,
            })
            .collect()
    }
}

impl From<SlipRecord> for SlipStep {
    fn from(r: SlipRecord) -> SlipStep {
        match r {
            SlipRecord::Requested {
                id,
                kind,
                amount,
                by,
                licence,
            } => SlipStep::Requested {
                id,
                kind,
                amount,
                by,
                licence,
            },
            SlipRecord::Signed {
                id,
                kind,
                amount,
                by,
                licence,
            } => SlipStep::Signed {
                id,
                kind,
                amount,
                by,
                licence,
            },
            SlipRecord::Voided { id, by, reason } => SlipStep::Voided { id, by, reason },
            SlipRecord::Counted {
                id,
                when,
                counted,
                ledger,
                by,
                licence,
            } => SlipStep::Counted {
                id,
                when,
                counted,
                ledger,
                by,
                licence,
            },
        }
    }
}
