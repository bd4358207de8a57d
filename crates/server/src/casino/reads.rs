//! What can be read of a table, as the API shows it: each query answered
//! from the table's own state, on the table's writer, so that it sees the
//! table between two requests, never in the middle of one.

use croupier_core::round::Phase;
use croupier_ledger::TableAccount;

use super::actor::Actor;
use super::day_report::kept_day;
use super::directory::Directory;
use super::floor::phase_code;
pub use super::gaming_day::day_text;
use super::layout::pocket_colours;
use super::policy::{self, Act};
use super::table::TableSlot;
use super::views;
use crate::api::bodies::{
    BallToInspect, CouponCount, CouponTotals, DayBooksView, IssuedCoupon, Layout, LogEntry, OpenBet, PublicTable,
    RecalledRound, ReportTotals, RoundTotals, Seat, SeatedChips, TableBets, TableLog, TableReport, TableSummary,
};

use super::layout::layout;

/// A question about one table.
#[derive(Clone, Debug)]
pub enum TableQuery {
    /// Its profile, wheel, phase, last numbers, and the colours `viewer` may see.
    Summary { viewer: Actor },
    /// What a display board shows: nothing about players.
    Public,
    /// Its felt and posted rules.
    Layout,
    /// Its operations log, newest first.
    Log,
    /// The round under way and its bets, as `viewer` may see them.
    Bets { viewer: Actor },
    /// Its accounts, the books of gaming day `day` (days since 1970;
    /// `None`: today's) and the recent rounds' totals.
    Report { day: Option<u64> },
    /// Its figures of gaming day `day` for the casino's report (`None`: today's).
    Day { day: Option<u64> },
    /// Its last `n` rounds, newest first, as `viewer` may see them.
    Recall { n: usize, viewer: Actor },
    /// The last `n` rounds `player` bet in here, newest first, whole.
    RecallPlayer { player: String, n: usize },
    /// One round, whole.
    Round { id: String },
    /// The least revolutions a ball must make for a spin to count.
    MinRevolutions,
    /// Whether `player`'s colour chips here were recorded taken away.
    ChipsAway { player: String },
    /// Its slips waiting for the cage's signature.
    OpenSlips,
    /// What `player` holds here beyond their chips, at `at_ms`: stakes on
    /// the layout and coupons not yet played (before they are retired).
    Held { player: String, at_ms: u64 },
    /// How it stands for the floor overview.
    Floor,
}

/// The answer to a [`TableQuery`].
#[derive(Clone, Debug)]
pub enum TableAnswer {
    Summary(TableSummary),
    Public(PublicTable),
    Layout(Box<Layout>),
    Log(TableLog),
    Bets(TableBets),
    Report(TableReport),
    Day(Box<super::day_report::TableDayBooks>),
    /// The question refused (a report of a day whose books the table does not keep).
    Refused(crate::api::ApiError),
    Rounds(Vec<RecalledRound>),
    Round(Option<RecalledRound>),
    MinRevolutions(u8),
    ChipsAway(Option<crate::api::bodies::AwayChips>),
    Slips(Vec<crate::api::bodies::SlipView>),
    Held(super::table::HeldAtTable),
    Floor(Box<crate::api::bodies::FloorTable>),
}

/// A table as the floor overview shows it; a retired one is off the floor,
/// as it is off the tables' list.
fn floor_answer(slot: &TableSlot, dir: &Directory, now_ms: u64) -> TableAnswer {
    if slot.retired {
        let why = format!("table {} is retired", slot.id);
        return TableAnswer::Refused(super::err(crate::api::ErrorCode::Retired, why));
    }
    TableAnswer::Floor(Box::new(super::floor::floor_table(slot, dir, now_ms)))
}

/// The round the table's newest pocket came up in, if the table keeps that
/// round: the newest kept round with a result, when its pocket is the newest.
fn last_round(slot: &TableSlot) -> Option<u64> {
    let newest = slot.table.last_pockets().last()?.label();
    slot.rounds
        .iter()
        .rev()
        .find(|r| r.pocket.is_some())
        .filter(|r| r.pocket.as_deref() == Some(newest))
        .map(|r| r.round)
}

/// `query` about `slot`; the report counts `dir`'s coupons as of `now_ms`.
pub fn read(slot: &TableSlot, dir: &Directory, now_ms: u64, query: TableQuery) -> TableAnswer {
    match query {
        TableQuery::Summary { viewer } => TableAnswer::Summary(TableSummary {
            table: slot.id.clone(),
            label: slot.label.clone(),
            retired: slot.retired,
            betting_window_ms: slot.table.config().betting_window_ms,
            profile: slot.profile_name.clone(),
            wheel: slot.table.config().wheel.name().to_string(),
            outcome: slot.outcome,
            phase: phase_code(slot.table.phase()).to_string(),
            round: slot.table.round(),
            last_pockets: slot
                .table
                .last_pockets()
                .iter()
                .rev()
                .take(16)
                .map(|p| p.label().to_string())
                .collect(),
            // Who sits at a table, in which colour, is the staff's to see; a player sees their own seat.
            colours: slot
                .colours
                .iter()
                .filter(|(p, _)| policy::allows(viewer.role, Act::WatchTable) || **p == viewer.username)
                .map(|(p, (c, v))| Seat {
                    player: p.clone(),
                    colour: c.clone(),
                    chip_value: *v,
                })
                .collect(),
            bonus: slot.bonus().map(|b| b.name().to_string()),
            tournament: slot.points_notice(dir),
        }),
        TableQuery::Public => TableAnswer::Public(public_table(slot, dir)),
        TableQuery::Layout => TableAnswer::Layout(Box::new(layout(slot, dir))),
        TableQuery::Log => TableAnswer::Log(TableLog {
            log: slot
                .log
                .iter()
                .rev()
                .map(|(at_ms, event, signed)| LogEntry {
                    at_ms: *at_ms,
                    event: views::view(event),
                    by: signed.as_ref().map(|s| s.by.clone()),
                    licence: signed.as_ref().map(|s| s.licence.clone()),
                })
                .collect(),
            awaiting_witness: slot.awaiting_witness(),
        }),
        TableQuery::Bets { viewer } => {
            let current = slot
                .rounds
                .back()
                .filter(|r| !r.settled && r.round == slot.table.round());
            let every = policy::allows(viewer.role, Act::RecallEveryPlayer);
            TableAnswer::Bets(TableBets {
                table: slot.id.clone(),
                round: slot.table.round(),
                phase: phase_code(slot.table.phase()).to_string(),
                emergency: slot.table.emergency(),
                inspected: slot.table.inspected(),
                outcome: slot.outcome,
                wheel: None,
                bets: current
                    .map(|r| {
                        r.bets
                            .iter()
                            .filter(|b| every || b.player == viewer.username)
                            .map(|b| OpenBet {
                                bet_id: b.bet_id.clone(),
                                player: b.player.clone(),
                                spot: b.spot.clone(),
                                kind: b.kind.clone(),
                                stake: b.stake,
                            })
                            .collect()
                    })
                    .unwrap_or_default(),
                coupons: playable_coupons(slot, dir, now_ms, &viewer.username),
            })
        }
        TableQuery::OpenSlips => TableAnswer::Slips(slot.slip_views(None)),
        TableQuery::Floor => floor_answer(slot, dir, now_ms),
        TableQuery::Report { day } => match day.map(|d| kept_day(slot, dir, now_ms, d)).transpose() {
            Ok(_) => TableAnswer::Report(report(slot, dir, now_ms, day)),
            Err(refused) => TableAnswer::Refused(refused),
        },
        TableQuery::Day { day } => match super::day_report::table_day(slot, dir, now_ms, day) {
            Ok(books) => TableAnswer::Day(Box::new(books)),
            Err(refused) => TableAnswer::Refused(refused),
        },
        TableQuery::Recall { n, viewer } => {
            let every = policy::allows(viewer.role, Act::RecallEveryPlayer);
            TableAnswer::Rounds(
                slot.recall(n)
                    .into_iter()
                    .map(|r| {
                        let round = RecalledRound::from(r);
                        if every {
                            round
                        } else {
                            round.redacted_for(&viewer.username)
                        }
                    })
                    .collect(),
            )
        }
        TableQuery::RecallPlayer { player, n } => TableAnswer::Rounds(
            slot.recall_player(&player, n)
                .into_iter()
                .map(RecalledRound::from)
                .collect(),
        ),
        TableQuery::Round { id } => TableAnswer::Round(slot.round(&id).map(RecalledRound::from)),
        TableQuery::MinRevolutions => TableAnswer::MinRevolutions(slot.table.profile().spec().min_ball_revolutions),
        TableQuery::Held { player, at_ms } => TableAnswer::Held(slot.held_by(dir, at_ms, &player)),
        TableQuery::ChipsAway { player } => {
            TableAnswer::ChipsAway(slot.chips_away(&player).map(|a| crate::api::bodies::AwayChips {
                at_ms: a.at_ms,
                confirmed: a.confirmed,
            }))
        }
    }
}

/// `player`'s coupons for the table that a bet may play now, as the table
/// checks a bet's (`TableSlot::coupon_played`): not played on a bet it holds,
/// not past their end. None at a table playing points: it takes no coupon
/// (Colorado 2214(1)).
fn playable_coupons(slot: &TableSlot, dir: &Directory, now_ms: u64, player: &str) -> Vec<IssuedCoupon> {
    if slot.points.is_some() {
        return Vec::new();
    }
    dir.coupons_of(player)
        .into_iter()
        .filter(|(id, c)| {
            c.table == slot.id && !slot.coupon_played_here(id) && c.expires_at_ms.is_none_or(|end| now_ms < end)
        })
        .map(|(id, c)| IssuedCoupon {
            id,
            table: c.table,
            value: c.value,
            expires_at_ms: c.expires_at_ms,
        })
        .collect()
}

/// The table's coupons, each counted once: redeemed, expired or outstanding.
fn coupon_totals(slot: &TableSlot, dir: &Directory, now_ms: u64) -> CouponTotals {
    let mut totals = CouponTotals::default();
    let add = |c: &mut CouponCount, value: u64| {
        c.count += 1;
        c.value = c.value.saturating_add(value);
    };
    for (id, coupon) in dir.coupons_for_table(&slot.id) {
        add(&mut totals.issued, coupon.value);
        if slot.coupon_played_here(id) {
            add(&mut totals.redeemed, coupon.value);
        } else if coupon.expires_at_ms.is_some_and(|end| now_ms >= end) {
            add(&mut totals.expired, coupon.value);
        } else {
            add(&mut totals.outstanding, coupon.value);
        }
    }
    totals
}

/// The books of `slot`'s gaming day `day`, as the report shows them.
fn books_view(slot: &TableSlot, day: u64) -> DayBooksView {
    let b = slot.books_of(day);
    let win = b.win();
    let drop = b.drop();
    let hold = (drop > 0).then(|| (win * 10_000 / i128::from(drop)) as i64);
    DayBooksView {
        day: day_text(day),
        float_open: b.float_open as i64,
        float_close: b.float_close() as i64,
        drop,
        drop_cash: b.drop_cash,
        drop_wallet: b.drop_wallet,
        fills: b.fills,
        credits: b.credits,
        win: win as i64,
        hold_basis_points: hold,
        staked: b.staked,
        returned_unplayed: b.returned_unplayed,
        disputes_paid: b.disputes_paid,
        disputes_collected: b.disputes_collected,
        cashed_out: b.cashed_out,
        revalued_kept: b.revalued_kept,
        tips: b.tips,
        meters_fed: b.meters_fed,
        jackpots: b.jackpots,
        rounds: b.rounds,
    }
}

fn report(slot: &TableSlot, dir: &Directory, now_ms: u64, day: Option<u64>) -> TableReport {
    let day = day.unwrap_or_else(|| dir.gaming_day(now_ms));
    let accounts = [
        ("float", TableAccount::Float),
        ("drop", TableAccount::Drop),
        ("tips", TableAccount::Tips),
        ("coupons", TableAccount::Coupons),
        ("layout", TableAccount::Layout),
        // What Bonus Spin Xtreme wagers fed the meters since they last paid: the players' money.
        ("meter-primary", TableAccount::MeterPrimary),
        ("meter-secondary", TableAccount::MeterSecondary),
    ]
    .into_iter()
    .filter(|(name, _)| !name.starts_with("meter") || slot.table.bsx().is_some())
    .map(|(name, kind)| (name.to_string(), slot.own_balance(kind) as i64))
    .collect();
    let rounds: Vec<RoundTotals> = slot
        .rounds
        .iter()
        .rev()
        // A tournament's rounds are played in points: no money of the table's.
        .filter(|r| r.settled && r.tournament.is_none())
        .map(|r| {
            // A bet held in prison is staked and settled in the round that releases it.
            let played = || r.bets.iter().filter(|b| b.result.as_deref() != Some("prison"));
            let staked: u64 = played().map(|b| b.stake).sum();
            let returned: u64 = played().filter_map(|b| b.returned).sum();
            RoundTotals {
                round: r.round,
                pocket: r.pocket.clone(),
                bets: r.bets.len(),
                staked,
                returned,
                house: staked as i64 - returned as i64,
            }
        })
        .collect();
    let totals = ReportTotals {
        staked: rounds.iter().map(|r| r.staked as i64).sum(),
        house: rounds.iter().map(|r| r.house).sum(),
    };
    TableReport {
        table: slot.id.clone(),
        profile: slot.profile_name.clone(),
        books: books_view(slot, day),
        book_days: slot.book_days().map(day_text).collect(),
        accounts,
        players: slot
            .colours
            .iter()
            .map(|(p, (colour, value))| SeatedChips {
                player: p.clone(),
                colour: colour.clone(),
                chip_value: *value,
                chips: slot.chips(p) as i64,
                away: slot.chips_away(p).map(|a| crate::api::bodies::AwayChips {
                    at_ms: a.at_ms,
                    confirmed: a.confirmed,
                }),
            })
            .collect(),
        rounds,
        totals,
        coupons: coupon_totals(slot, dir, now_ms),
        slips: slot.slip_views(Some(day)),
        float_counts: slot.count_views(day),
        // The runtime's monitor fills it in: the casino keeps no such state.
        integrity: None,
    }
}

/// A table as anyone sees it without signing in: a display board's.
fn public_table(slot: &TableSlot, dir: &Directory) -> PublicTable {
    let phase = slot.table.phase();
    let wheel = slot.table.config().wheel;
    PublicTable {
        table: slot.id.clone(),
        retired: slot.retired,
        profile: slot.profile_name.clone(),
        wheel: wheel.description().to_string(),
        wheel_name: wheel.name().to_string(),
        wheel_pockets: wheel.bettable().iter().map(|p| p.label().to_string()).collect(),
        pocket_colours: pocket_colours(slot),
        round: slot.table.round(),
        phase: phase_code(phase).to_string(),
        deadline_ms: match phase {
            Phase::BettingOpen { deadline_ms } => Some(deadline_ms),
            _ => None,
        },
        phase_text: match phase {
            Phase::Closed => "Table closed",
            Phase::Open => "Waiting for the next round",
            Phase::BettingOpen { .. } => "Place your bets",
            Phase::NoMoreBets => "No more bets",
        }
        .to_string(),
        display_length: slot.table.profile().spec().number_display_length.unwrap_or(16),
        last_pockets: slot
            .table
            .last_pockets()
            .iter()
            .rev()
            .map(|p| p.label().to_string())
            .collect(),
        last_round: last_round(slot),
        tournament: slot.points_notice(dir),
        ball_to_inspect: slot.table.ball_awaits_inspection().map(|reason| BallToInspect {
            reason: reason.name().to_string(),
            inspected_by: slot.table.profile().jurisdiction().ball_inspected_by.clone(),
        }),
        awaits_regulator: slot.table.awaits_regulator(),
        operator: dir.operator().map(str::to_string),
        bonus: slot.bonus_state().map(Box::new),
    }
}
