//! Who sees an event: the decision for each kind of event, in one match
//! ([`EventView::audience`]), and the event as each viewer sees it
//! ([`EventView::seen_by`]). A number display board sees what a table shows
//! the room: its phases, its results and each round's totals. A player sees
//! that and their own bets, chips and money. The table's staff see
//! everything. No staff member's name or licence, and no player's name or
//! money, reaches anyone else.

use std::borrow::Cow;

use super::EventView;

/// Who follows a table's stream, or reads a write's answer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Viewer<'a> {
    /// A number display board: anyone, without a session.
    Public,
    /// A signed-in player, by username.
    Player(&'a str),
    /// Whoever may follow everything at a table (the policy's `WatchTable`).
    Staff,
}

/// Where an event goes: the decision taken for its kind.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Audience<'a> {
    /// On no table's stream: accounts, the cage's cash, the server's own records.
    NoStream,
    /// Everyone at `table`, a display board included: the round's course and results.
    Everyone { table: &'a str },
    /// Everyone at `table`, but only its staff see which of them did it (an emergency).
    EveryoneStaffUnnamed { table: &'a str },
    /// `table`'s staff and `player`, whose bet, chips or money it is.
    Player { table: &'a str, player: &'a str },
    /// `table`'s staff alone: a staff member's licence, the table's own money,
    /// several players' bets at once.
    Staff { table: &'a str },
    /// `table`'s staff whole, and each of `players` only their own part of it,
    /// without the staff's name: a dispute's corrections.
    StaffAndEachNamed { table: &'a str, players: Vec<&'a str> },
}

impl Audience<'_> {
    /// The table whose stream shows the event, if any.
    pub fn table(&self) -> Option<&str> {
        match self {
            Audience::NoStream => None,
            Audience::Everyone { table }
            | Audience::EveryoneStaffUnnamed { table }
            | Audience::Player { table, .. }
            | Audience::Staff { table }
            | Audience::StaffAndEachNamed { table, .. } => Some(table),
        }
    }

    /// The players the event is about, each of whom sees their own form of it.
    pub fn players(&self) -> &[&str] {
        match self {
            Audience::Player { player, .. } => std::slice::from_ref(player),
            Audience::StaffAndEachNamed { players, .. } => players,
            Audience::NoStream
            | Audience::Everyone { .. }
            | Audience::EveryoneStaffUnnamed { .. }
            | Audience::Staff { .. } => &[],
        }
    }
}

impl EventView {
    /// Who may see this event: one arm per kind, with no catch-all, so that
    /// a new kind of event does not compile until its audience is decided.
    pub fn audience(&self) -> Audience<'_> {
        use Audience as A;
        use EventView as E;
        match self {
            // A player's own bets, chips and money.
            E::BoughtIn { table, player, .. }
            | E::ChipsSold { table, player, .. }
            | E::LeftTable { table, player, .. }
            | E::ChipsRevalued { table, player, .. }
            | E::Tipped { table, player, .. }
            | E::BetAccepted { table, player, .. }
            | E::BetCancelled { table, player, .. }
            | E::BetSettled { table, player, .. }
            | E::BetReturned { table, player, .. }
            | E::BetImprisoned { table, player, .. }
            | E::BonusWager { table, player, .. }
            | E::CouponIssued { table, player, .. } => A::Player { table, player },
            // What a number display board shows: the table's phases, results and each round's totals.
            E::TableCreated { table, .. }
            | E::TableOpened { table }
            | E::TableClosed { table }
            | E::BettingOpened { table, .. }
            | E::NoMoreBets { table, .. }
            | E::NoSpin { table, .. }
            | E::SpinVoided { table, .. }
            | E::Result { table, .. }
            | E::RoundSettled { table, .. }
            // Maryland ch.3 F(16), (18): the numbers are shown to the table before the spin.
            | E::BonusDrawn { table, .. }
            // Everyone at the table learns it plays in points (Colorado 2214).
            | E::TablePlay { table, .. } => A::Everyone { table },
            // Play stops and resumes for everyone; who called it is the staff's business.
            E::EmergencyDeclared { table, .. } | E::EmergencyLifted { table, .. } => A::EveryoneStaffUnnamed { table },
            // The limits are posted for all (Colorado 2207); who set them is the staff's business.
            E::LimitsSet { table, .. } => A::EveryoneStaffUnnamed { table },
            // Licences (Colorado 2212(5)), the table's float, and the bets of
            // several players at once: each player learns of their own annulled
            // bets from its `bet_returned`.
            E::InspectionRecorded { table, .. }
            | E::AdjustmentRecorded { table, .. }
            | E::AdjustmentWitnessed { table, .. }
            | E::AdjustmentWithdrawn { table, .. }
            | E::BallInspected { table, .. }
            // Who entered a player's verbal series, with their licence: the pit's log.
            | E::VerbalSeries { table, .. }
            // Who confirmed a player's chips at face value, with their licence.
            | E::ChipsConfirmed { table, .. }
            | E::FloatFilled { table, .. }
            // The table's float and who signed for it.
            | E::FloatSlip { table, .. }
            | E::BetsAnnulled { table, .. } => A::Staff { table },
            // The player learns their late bet was logged, as the staff do.
            E::PastPosting { table, player, .. } => A::StaffAndEachNamed {
                table,
                players: vec![player.as_str()],
            },
            // The player learns their chips were recorded taken away, not who recorded it.
            E::ChipsTakenAway { table, player, .. } => A::StaffAndEachNamed {
                table,
                players: vec![player.as_str()],
            },
            // Colorado 2206(5): each corrected player learns their own correction.
            E::DisputeDecided { table, corrections, .. } => {
                let mut players: Vec<&str> = Vec::with_capacity(corrections.len());
                for c in corrections {
                    if !players.contains(&c.player.as_str()) {
                        players.push(&c.player);
                    }
                }
                A::StaffAndEachNamed { table, players }
            }
            E::UserCreated { .. }
            | E::LoginFailed { .. }
            | E::LoginSucceeded { .. }
            | E::JournalFormatSet { .. }
            | E::CheckpointTaken { .. }
            | E::JournalRecovered { .. }
            | E::UserLocked { .. }
            | E::UserUnlocked { .. }
            | E::PasswordSet { .. }
            | E::LicenceSet { .. }
            | E::OperatorNamed { .. }
            | E::GamingDaySet { .. }
            | E::CashedIn { .. }
            | E::CashedOut { .. }
            | E::DrawerCounted { .. }
            | E::CageTransactionVoided { .. }
            // A tournament's events go to those who ask for them: its pages read them.
            | E::TournamentCreated { .. }
            | E::Tournament { .. } => A::NoStream,
        }
    }

    /// The event as `viewer` sees it on its table's stream, or `None` where
    /// they do not see it at all.
    pub fn seen_by(&self, viewer: Viewer<'_>) -> Option<Cow<'_, EventView>> {
        use Audience as A;
        match (self.audience(), viewer) {
            (A::NoStream, _) => None,
            (_, Viewer::Staff) | (A::Everyone { .. }, _) => Some(Cow::Borrowed(self)),
            (A::EveryoneStaffUnnamed { .. }, _) => Some(Cow::Owned(self.part_for(None))),
            (A::Player { player, .. }, Viewer::Player(viewer)) if player == viewer => Some(Cow::Borrowed(self)),
            (A::StaffAndEachNamed { players, .. }, Viewer::Player(viewer)) if players.contains(&viewer) => {
                Some(Cow::Owned(self.part_for(Some(viewer))))
            }
            (A::Player { .. } | A::Staff { .. } | A::StaffAndEachNamed { .. }, _) => None,
        }
    }

    /// The event without the staff's name, and with only `player`'s own
    /// corrections (none for `None`).
    fn part_for(&self, player: Option<&str>) -> EventView {
        let mut part = self.clone();
        match &mut part {
            EventView::EmergencyDeclared { by, .. } | EventView::EmergencyLifted { by, .. } => *by = None,
            EventView::LimitsSet { by, licence, .. } => {
                *by = None;
                *licence = None;
            }
            EventView::ChipsTakenAway { by, licence, .. } => {
                *by = None;
                *licence = None;
            }
            EventView::DisputeDecided { by, corrections, .. } => {
                *by = None;
                corrections.retain(|c| Some(c.player.as_str()) == player);
            }
            // Every other kind is seen whole or not at all (see `audience`).
            _ => {}
        }
        part
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::{Correction, Role};

    /// The audience names the same table and player as the event's own JSON:
    /// a player's event that named no player would reach the public.
    #[test]
    fn the_audience_names_the_events_own_table_and_player() {
        let t = || "t1".to_string();
        let p = || "p1".to_string();
        let events = [
            EventView::UserCreated {
                username: p(),
                role: Role::Player,
            },
            EventView::CashedIn { player: p(), amount: 1 },
            EventView::ChipsSold {
                table: t(),
                player: p(),
                amount: 1,
                colour: "pink".into(),
                chip_value: 1,
            },
            EventView::BetSettled {
                table: t(),
                round: 1,
                bet_id: "b".into(),
                player: p(),
                result: "win".into(),
                staked: 1,
                returned: 36,
                net: 35,
            },
            EventView::Result {
                table: t(),
                round: 1,
                pocket: "17".into(),
                colour: "black".into(),
            },
            EventView::DisputeDecided {
                table: t(),
                by: Some("pit".into()),
                reason: "r".into(),
                corrections: vec![Correction { player: p(), amount: 5 }],
                round: Some(1),
            },
        ];
        for e in &events {
            let v = serde_json::to_value(e).expect("JSON");
            let audience = e.audience();
            assert_eq!(audience.table(), v["table"].as_str(), "{v}");
            if audience.table().is_none() {
                continue;
            }
            let named: Vec<&str> = v["player"]
                .as_str()
                .into_iter()
                .chain(
                    v["corrections"]
                        .as_array()
                        .into_iter()
                        .flatten()
                        .filter_map(|c| c["player"].as_str()),
                )
                .collect();
            assert_eq!(audience.players(), named.as_slice(), "{v}");
        }
    }
}
