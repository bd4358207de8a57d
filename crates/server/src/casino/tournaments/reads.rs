//! What clients read of the tournaments: the list, one tournament as its
//! reader may see it, its written rules, its forms.

use super::Held;
use crate::api::tournament::{
    PayoutLineView, SplitShare, SplitView, TournamentBrief, TournamentEntryLine, TournamentEventBrief,
    TournamentStandings, TournamentView,
};
use crate::api::Role;
use croupier_core::tournament::{EventStatus, Tournament};

/// What a client reads of the tournaments.
#[derive(Debug)]
pub enum TournamentRead {
    /// Every tournament, in brief.
    List,
    /// One tournament as `role` (and, for a player, `username`) may see it.
    One { id: String, role: Role, username: String },
    /// Its written rules, for anyone (2213.06: a copy to every player).
    Rules { id: String },
    /// Its forms as CSV (2213.01-.02, 2213.05), for those who read its books.
    Forms { id: String },
    /// The standings of its events under way at the tables, by entry
    /// number and points, for a display board: no player's name.
    Standings { id: String },
}

/// What a read answers.
#[derive(Debug)]
pub enum TournamentAnswer {
    List(Vec<TournamentBrief>),
    One(Box<TournamentView>),
    Standings(TournamentStandings),
    Text(String),
}

pub(in crate::casino) fn brief(held: &Held) -> TournamentBrief {
    let t = &held.tournament;
    let spec = t.config().spec();
    let status = if t.concluded {
        "concluded"
    } else if t.events.iter().any(|e| e.started) {
        "running"
    } else {
        "announced"
    };
    TournamentBrief {
        id: spec.id.clone(),
        name: spec.name.clone(),
        profile: held.profile.clone(),
        currency: held.currency.clone(),
        first_day: spec.first_day.to_string(),
        last_day: spec.last_day.to_string(),
        status: status.into(),
        events: spec
            .events
            .iter()
            .zip(&t.events)
            .enumerate()
            .map(|(i, (e, s))| TournamentEventBrief {
                name: e.name.clone(),
                table: held.tables.by_event.get(&i).cloned(),
                day: e.day.to_string(),
                entry_fee: e.entry_fee.get(),
                buy_in: e.buy_in.get(),
                starting_points: e.starting_points,
                rebuys_max: e.rebuys.max,
                status: match s.status() {
                    // A concluded tournament's event never started was not played (a cancel).
                    EventStatus::Open if t.concluded => "not played",
                    EventStatus::Open => "open",
                    EventStatus::Running => "running",
                    EventStatus::Ended => "ended",
                }
                .into(),
            })
            .collect(),
        // 2214(2): the notice of each colour's points, as posted now.
        chips: held
            .tables
            .chip_values
            .iter()
            .map(|(colour, points)| crate::api::bodies::ChipValue {
                colour: colour.clone(),
                points: *points,
            })
            .collect(),
        split_permitted: spec.split_permitted,
        rules_filed_days_before: t.config().rules().rules_filed_days_before,
        escrow_required: t.config().escrow_required(),
    }
}

pub(in crate::casino) fn entry_line(e: &croupier_core::tournament::EntryLine) -> TournamentEntryLine {
    TournamentEntryLine {
        entry: e.entry,
        player: e.player.clone(),
        event: e.event.clone(),
        day: e.day.clone(),
        status: e.status.into(),
        fee_paid: e.fee_paid.into(),
        fee: e.fee_minor,
        buy_in_paid: e.buy_in_paid.into(),
        buy_in: e.buy_in_minor,
        rebuys: e.rebuys,
        rebuys_paid: e.rebuys_minor,
        note: e.note.clone(),
    }
}

pub(in crate::casino) fn payout_line(p: &croupier_core::tournament::PayoutLine) -> PayoutLineView {
    PayoutLineView {
        event: p.event.clone(),
        place: p.place,
        entry: p.entry,
        player: p.player.clone(),
        prize: p.prize.clone(),
        value: p.value_minor,
        payout: p.payout,
        by_split: p.by_split,
    }
}

pub(in crate::casino) fn split_view(t: &Tournament) -> Option<SplitView> {
    t.split.as_ref().map(|s| SplitView {
        event: t.config().event(s.event).map(|e| e.name.clone()),
        places: s.places.clone(),
        shares: s
            .shares
            .iter()
            .map(|&(entry, amount)| SplitShare { entry, amount })
            .collect(),
        agreed: s.agreed.clone(),
    })
}
