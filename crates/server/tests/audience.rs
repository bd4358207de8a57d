//! Every kind of event against every audience, through the real channels:
//! each event is published as a table's writer publishes it, and what each
//! socket would take from its channels is compared with what that viewer
//! may see. A number display board sees the table's phases, results and
//! round totals; a player that and their own bets, chips and money; staff
//! everything. No staff member's name or licence, and no other player's
//! name or money, reaches a player or the board.

use std::collections::BTreeSet;

use bytes::Bytes;
use croupier_server::api::bodies::Events;
use croupier_server::api::{Correction, EventView, OutcomeSource, Role, Viewer};
use croupier_server::casino::Actor;
use croupier_server::http::streams::{subscribe_keys, Channels};
use croupier_server::runtime::Publish;
use serde_json::Value;

const TABLE: &str = "t1";
/// The player each event is about.
const CONCERNED: &str = "alice";
/// Another player a dispute corrects.
const ALSO_CORRECTED: &str = "bob";
/// A player at the table whom no event is about.
const BYSTANDER: &str = "carol";
const STAFF_NAME: &str = "pitboss";
const LICENCE: &str = "LIC-4242";

/// What a viewer sees of an event.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Sees {
    Nothing,
    Whole,
    /// The event without the staff member's name (`by`).
    Unnamed,
    /// A dispute without the staff member's name, with only the viewer's own corrections.
    OwnPart,
}

/// The decision, kind by kind: what (a display board, the player the event
/// is about, another player, staff) see. A match with no catch-all: a new
/// kind of event does not compile here until its audience is written down.
fn expected(e: &EventView) -> [Sees; 4] {
    use EventView as E;
    use Sees::*;
    match e {
        E::UserCreated { .. }
        | E::LoginFailed { .. }
        | E::LoginSucceeded { .. }
        | E::JournalFormatSet { .. }
        | E::CheckpointTaken { .. }
        | E::JournalRecovered { .. }
        | E::UserLocked { .. }
        | E::UserUnlocked { .. }
        | E::PasswordSet { .. }
        | E::UserRetired { .. }
        | E::UserEdited { .. }
        | E::LicenceSet { .. }
        // The operator's name reaches the pages through the layout, not a stream.
        | E::OperatorNamed { .. }
        | E::GamingDaySet { .. }
        | E::CashedIn { .. }
        | E::CashedOut { .. }
        // The cage's drawer and voids reach the cashier's page by its read.
        | E::DrawerCounted { .. }
        | E::CageTransactionVoided { .. }
        // A tournament's events reach its pages by their own reads, on no table's stream.
        | E::TournamentCreated { .. }
        | E::Tournament { .. } => [Nothing; 4],
        E::TableCreated { .. }
        | E::TableOpened { .. }
        | E::TableClosed { .. }
        | E::TableRetired { .. }
        | E::TableEdited { .. }
        | E::BettingOpened { .. }
        | E::NoMoreBets { .. }
        | E::NoSpin { .. }
        | E::SpinVoided { .. }
        | E::Result { .. }
        | E::RoundSettled { .. }
        // Maryland ch.3 F(16), (18): the bonus numbers are shown before the spin.
        | E::BonusDrawn { .. }
        | E::TablePlay { .. } => [Whole; 4],
        E::BoughtIn { .. }
        | E::ChipsSold { .. }
        | E::LeftTable { .. }
        | E::ChipsRevalued { .. }
        | E::Tipped { .. }
        | E::BetAccepted { .. }
        | E::BetCancelled { .. }
        | E::BetSettled { .. }
        | E::BetReturned { .. }
        | E::BetImprisoned { .. }
        | E::BonusWager { .. }
        // A match play coupon is its player's business (Colorado 2203(1)).
        | E::CouponIssued { .. } => [Nothing, Whole, Nothing, Whole],
        // Colorado 2212(5): the licence is written into the log, which is the staff's.
        E::InspectionRecorded { .. }
        | E::AdjustmentRecorded { .. }
        // The witness's confirmation and the pit's withdrawal, with licences (Colorado 2212(2), (5)).
        | E::AdjustmentWitnessed { .. }
        | E::AdjustmentWithdrawn { .. }
        | E::BallInspected { .. }
        | E::VerbalSeries { .. }
        // Who confirmed a player's chips, with their licence: the pit's log.
        | E::ChipsConfirmed { .. } => {
            [Nothing, Nothing, Nothing, Whole]
        }
        E::FloatFilled { .. } | E::FloatSlip { .. } | E::BetsAnnulled { .. } => [Nothing, Nothing, Nothing, Whole],
        E::EmergencyDeclared { .. } | E::EmergencyLifted { .. } => [Unnamed, Unnamed, Unnamed, Whole],
        // Colorado 2207: limits are posted for all; who set them, with their licence, is the staff's.
        E::LimitsSet { .. } => [Unnamed, Unnamed, Unnamed, Whole],
        // Colorado 2206(5): the pit's decision; each corrected player learns their own correction.
        E::DisputeDecided { .. } => [Nothing, OwnPart, Nothing, Whole],
        // european-casino 5.2: the player learns their chips were recorded taken away, not by whom.
        E::ChipsTakenAway { .. } => [Nothing, Unnamed, Nothing, Whole],
        // low-limit-house Irregularities (4): a late bet logged; its player sees it, others do not.
        E::PastPosting { .. } => [Nothing, Whole, Nothing, Whole],
    }
}

/// One event of every kind at `TABLE`, about `CONCERNED` where it is about a player.
fn every_kind() -> Vec<EventView> {
    let t = || TABLE.to_string();
    let p = || CONCERNED.to_string();
    let by = || STAFF_NAME.to_string();
    vec![
        EventView::UserCreated {
            username: p(),
            role: Role::Player,
        },
        EventView::LoginFailed {
            username: p(),
            failures: 1,
            locked: false,
        },
        EventView::LoginSucceeded { username: p() },
        EventView::LicenceSet {
            username: "dealer".into(),
            licence: "D-9".into(),
        },
        EventView::OperatorNamed {
            name: "Test House".into(),
        },
        EventView::GamingDaySet {
            time_zone: "America/Denver".into(),
            starts_at: "06:00".into(),
        },
        EventView::JournalFormatSet { format: 4 },
        EventView::CheckpointTaken {
            through: 41,
            digest: "0".repeat(64),
            bytes: 1_000,
        },
        EventView::JournalRecovered {
            kept_through: 41,
            cut: 2,
            cut_head: "ab".repeat(32),
            backup: "recovered-1".into(),
            reason: "a disk fault".into(),
            damage: "entry 42: its contents do not match its hash".into(),
            sealed: "entry 43".into(),
        },
        EventView::UserLocked { username: p() },
        EventView::UserUnlocked { username: p() },
        EventView::PasswordSet { username: p() },
        EventView::UserRetired { username: p() },
        EventView::UserEdited {
            username: p(),
            display_name: Some("Ann".into()),
            role: Some(Role::Dealer),
        },
        EventView::TableCreated {
            table: t(),
            profile: "maryland".into(),
            wheel: "double-zero".into(),
            outcome: OutcomeSource::Rng,
        },
        EventView::CashedIn {
            player: p(),
            amount: 10_000,
        },
        EventView::TablePlay {
            table: t(),
            tournament: Some("winter".into()),
            event: Some("Heat".into()),
        },
        EventView::TournamentCreated {
            tournament: "winter".into(),
            name: "Winter".into(),
            profile: "colorado-2014".into(),
        },
        EventView::Tournament {
            tournament: "winter".into(),
            record: serde_json::json!({"what": "awarded", "player": p(), "value": 100}),
        },
        EventView::CashedOut {
            player: p(),
            amount: 9_000,
        },
        EventView::DrawerCounted {
            id: "shift-1".into(),
            cashier: "cashier".into(),
            counted: 37_000,
            expected: 38_000,
        },
        EventView::CageTransactionVoided {
            id: "v1".into(),
            transaction: "in-2".into(),
            kind: "cash_in".into(),
            player: p(),
            amount: 7_000,
            made_by: "cashier".into(),
            reason: "typed twice".into(),
        },
        EventView::CouponIssued {
            id: "mp-1".into(),
            player: p(),
            table: t(),
            value: 500,
            expires_at_ms: Some(86_400_000),
        },
        EventView::BoughtIn {
            table: t(),
            player: p(),
            amount: 5_000,
            colour: "pink".into(),
            chip_value: 100,
        },
        EventView::ChipsSold {
            table: t(),
            player: p(),
            amount: 2_000,
            colour: "pink".into(),
            chip_value: 100,
        },
        EventView::LeftTable {
            table: t(),
            player: p(),
            amount: 4_000,
            colour: "pink".into(),
        },
        EventView::ChipsConfirmed {
            table: t(),
            player: p(),
            at_ms: 9,
            by: by(),
            licence: "P-1".into(),
        },
        EventView::ChipsRevalued {
            table: t(),
            player: p(),
            face: 4_000,
            paid: 2_000,
            chips: 4,
            unit: 500,
            bought_day: 20_000,
            lots: vec![croupier_server::api::RevaluedLot {
                day: 20_000,
                chips: 4,
                unit: 500,
            }],
        },
        EventView::PastPosting {
            table: t(),
            player: p(),
            spot: "17".into(),
            stake: 500,
            at_ms: 9,
        },
        EventView::ChipsTakenAway {
            table: t(),
            player: p(),
            chips: 4_000,
            at_ms: 9,
            by: Some(by()),
            licence: Some("D-1".into()),
        },
        EventView::Tipped {
            table: t(),
            player: p(),
            amount: 100,
        },
        EventView::FloatSlip {
            table: t(),
            slip: croupier_server::api::bodies::SlipStep::Signed {
                id: "f1".into(),
                kind: "fill".into(),
                amount: 500,
                by: "cage".into(),
                licence: "C-1".into(),
            },
        },
        EventView::FloatFilled {
            table: t(),
            amount: 1_000_000,
        },
        EventView::InspectionRecorded {
            table: t(),
            at_ms: 1,
            by: by(),
            licence: LICENCE.into(),
            regulator: false,
        },
        EventView::VerbalSeries {
            table: t(),
            at_ms: 1,
            by: by(),
            licence: LICENCE.into(),
            player: CONCERNED.into(),
            bet_ids: vec!["v1".into()],
        },
        EventView::BallInspected {
            table: t(),
            at_ms: 1,
            by: by(),
            licence: LICENCE.into(),
            reason: "ball_left_wheel".into(),
            damaged: false,
        },
        EventView::AdjustmentRecorded {
            table: t(),
            at_ms: 2,
            by: by(),
            licence: LICENCE.into(),
            replacement: true,
            description: "new ball".into(),
            witness: Some("Sam Guard".into()),
            witness_licence: Some("S-77".into()),
            external: true,
            adjustment: None,
            awaiting_witness: None,
        },
        EventView::AdjustmentWitnessed {
            table: t(),
            at_ms: 3,
            adjustment: 1,
            by: by(),
            licence: LICENCE.into(),
        },
        EventView::AdjustmentWithdrawn {
            table: t(),
            at_ms: 3,
            adjustment: 2,
            by: by(),
            licence: LICENCE.into(),
            reason: "named by mistake".into(),
        },
        EventView::LimitsSet {
            table: t(),
            by: Some(by()),
            licence: Some(LICENCE.into()),
            limits: vec![croupier_server::api::KindLimit {
                kind: "straight".into(),
                min: 100,
                max: 10_000,
            }],
        },
        EventView::TableOpened { table: t() },
        EventView::TableClosed { table: t() },
        EventView::TableRetired { table: t() },
        EventView::TableEdited {
            table: t(),
            label: Some("High limit".into()),
            betting_window_ms: Some(20_000),
        },
        EventView::BettingOpened {
            table: t(),
            round: 7,
            deadline_ms: 60_000,
        },
        EventView::BetAccepted {
            table: t(),
            round: 7,
            bet_id: "a1".into(),
            player: p(),
            spot: "17".into(),
            kind: "straight".into(),
            stake: 300,
            under_minimum: false,
        },
        EventView::BetCancelled {
            table: t(),
            round: 7,
            bet_id: "a1".into(),
            player: p(),
            returned: 300,
        },
        EventView::NoMoreBets { table: t(), round: 7 },
        EventView::NoSpin {
            table: t(),
            round: 7,
            reason: "ball_left_wheel".into(),
        },
        EventView::SpinVoided {
            table: t(),
            round: 7,
            pocket: "0".into(),
        },
        EventView::Result {
            table: t(),
            round: 7,
            pocket: "17".into(),
            colour: "black".into(),
        },
        EventView::BetSettled {
            table: t(),
            round: 7,
            bet_id: "a2".into(),
            player: p(),
            result: "win".into(),
            staked: 300,
            returned: 10_800,
            net: 10_500,
        },
        EventView::BetReturned {
            table: t(),
            round: 7,
            bet_id: "a3".into(),
            player: p(),
            returned: 200,
            reason: "annulled".into(),
            why: "annulled as a collective bet".into(),
        },
        EventView::BonusDrawn {
            table: t(),
            round: 1,
            targets: vec!["17".into()],
            lucky: vec![],
        },
        EventView::BonusWager {
            table: t(),
            round: 1,
            wager_id: "w1".into(),
            player: p(),
            what: "awarded".into(),
            amount: 20_000,
            symbol: Some("20000".into()),
            for_wager: None,
        },
        EventView::BetImprisoned {
            table: t(),
            round: 7,
            bet_id: "a4".into(),
            player: p(),
            held: 100,
        },
        EventView::RoundSettled {
            table: t(),
            round: 7,
            pocket: Some("17".into()),
            staked: 900,
            returned: 10_800,
        },
        EventView::EmergencyDeclared {
            table: t(),
            by: Some(by()),
            reason: "smoke".into(),
        },
        EventView::EmergencyLifted {
            table: t(),
            by: Some(by()),
        },
        EventView::BetsAnnulled {
            table: t(),
            by: by(),
            bet_ids: vec!["a3".into(), "b9".into()],
            reason: "pooled".into(),
        },
        EventView::DisputeDecided {
            table: t(),
            by: Some(by()),
            reason: "chip knocked off 17".into(),
            corrections: vec![
                Correction {
                    player: p(),
                    amount: 250,
                },
                Correction {
                    player: ALSO_CORRECTED.into(),
                    amount: -100,
                },
            ],
            round: Some(1),
        },
    ]
}

/// Every kind of event the API documents, by its `type`: the OpenAPI schema of `EventView`.
fn documented_kinds() -> BTreeSet<String> {
    use utoipa::PartialSchema;
    let schema = serde_json::to_value(EventView::schema()).expect("the schema as JSON");
    schema["oneOf"]
        .as_array()
        .expect("one schema per kind")
        .iter()
        .map(|kind| {
            kind["properties"]["type"]["enum"][0]
                .as_str()
                .unwrap_or_else(|| panic!("a kind without its type: {kind}"))
                .to_string()
        })
        .collect()
}

/// The event as a viewer who `sees` it should receive it: its JSON, or nothing.
fn form(e: &EventView, sees: Sees) -> Option<Value> {
    let mut v = serde_json::to_value(e).expect("JSON");
    match sees {
        Sees::Nothing => return None,
        Sees::Whole => {}
        Sees::Unnamed => {
            let fields = v.as_object_mut().expect("an object");
            fields.remove("by");
            fields.remove("licence");
        }
        Sees::OwnPart => {
            v.as_object_mut().expect("an object").remove("by");
            let corrections = v["corrections"].as_array_mut().expect("corrections");
            corrections.retain(|c| c["player"] == CONCERNED);
        }
    }
    Some(v)
}

/// A socket's channels, subscribed as the stream subscribes a viewer's socket.
struct Listener {
    name: &'static str,
    receivers: Vec<tokio::sync::broadcast::Receiver<axum::extract::ws::Utf8Bytes>>,
}

impl Listener {
    fn new(channels: &Channels, name: &'static str, viewer: Option<&Actor>) -> Listener {
        Listener {
            name,
            receivers: subscribe_keys(TABLE, viewer)
                .into_iter()
                .map(|key| channels.subscribe(key))
                .collect(),
        }
    }

    /// Every frame waiting on the socket's channels.
    fn take(&mut self) -> Vec<String> {
        let mut frames = Vec::new();
        for rx in &mut self.receivers {
            while let Ok(text) = rx.try_recv() {
                frames.push(text.as_str().to_string());
            }
        }
        frames
    }
}

#[test]
fn every_kind_of_event_reaches_only_its_audience() {
    let events = every_kind();
    let sampled: BTreeSet<String> = events
        .iter()
        .map(|e| {
            serde_json::to_value(e).expect("JSON")["type"]
                .as_str()
                .expect("type")
                .to_string()
        })
        .collect();
    assert_eq!(sampled, documented_kinds(), "one event of every kind, each once");
    assert_eq!(sampled.len(), events.len(), "each kind once");

    let channels = Channels::default();
    let concerned = Actor::new(CONCERNED, Role::Player, "");
    let bystander = Actor::new(BYSTANDER, Role::Player, "");
    let staff: Vec<Actor> = [
        Role::Admin,
        Role::PitSupervisor,
        Role::Dealer,
        Role::Cashier,
        Role::Auditor,
    ]
    .into_iter()
    .map(|role| Actor::new(&format!("staff-{}", role.name().replace(' ', "-")), role, "L-1"))
    .collect();
    let mut board = Listener::new(&channels, "a display board", None);
    let mut mine = Listener::new(&channels, "the player it is about", Some(&concerned));
    let mut other = Listener::new(&channels, "another player", Some(&bystander));
    let mut staff: Vec<Listener> = staff
        .iter()
        .map(|a| Listener::new(&channels, "staff", Some(a)))
        .collect();

    for e in &events {
        let [to_board, to_concerned, to_other, to_staff] = expected(e);
        // As the cage publishes (serialised here) and as a table's writer does (its own texts).
        let texts = [Bytes::from(serde_json::to_vec(e).expect("JSON"))];
        for texts in [&[][..], &texts[..]] {
            channels.publish(std::slice::from_ref(e), texts);
            let mut listeners: Vec<(&mut Listener, Sees)> = vec![
                (&mut board, to_board),
                (&mut mine, to_concerned),
                (&mut other, to_other),
            ];
            listeners.extend(staff.iter_mut().map(|l| (l, to_staff)));
            for (listener, sees) in listeners {
                let got: Vec<Value> = listener
                    .take()
                    .iter()
                    .map(|f| serde_json::from_str(f).expect("JSON"))
                    .collect();
                let want: Vec<Value> = form(e, sees).into_iter().collect();
                assert_eq!(got, want, "{} and {e:?}", listener.name);
            }
        }
        // What each viewer is shown is what `seen_by` says they see.
        let shown = |viewer| {
            e.seen_by(viewer)
                .map(|seen| serde_json::to_value(&*seen).expect("JSON"))
        };
        assert_eq!(shown(Viewer::Public), form(e, to_board), "{e:?}");
        assert_eq!(shown(Viewer::Player(CONCERNED)), form(e, to_concerned), "{e:?}");
        assert_eq!(shown(Viewer::Player(BYSTANDER)), form(e, to_other), "{e:?}");
        assert_eq!(shown(Viewer::Staff), form(e, to_staff), "{e:?}");
    }
}

/// Whatever the decision table says, no board or player frame names a staff
/// member or their licence, and none names a player other than the viewer.
#[test]
fn no_frame_names_staff_or_another_player_to_the_public_or_a_player() {
    let channels = Channels::default();
    let concerned = Actor::new(CONCERNED, Role::Player, "");
    let bystander = Actor::new(BYSTANDER, Role::Player, "");
    let mut board = Listener::new(&channels, "a display board", None);
    let mut mine = Listener::new(&channels, "the player", Some(&concerned));
    let mut other = Listener::new(&channels, "another player", Some(&bystander));
    let events = every_kind();
    channels.publish(&events, &[]);
    let never =
        |who: &[&'static str]| -> Vec<&'static str> { [STAFF_NAME, LICENCE].iter().chain(who).copied().collect() };
    for (listener, forbidden) in [
        (&mut board, never(&[CONCERNED, ALSO_CORRECTED, BYSTANDER])),
        (&mut mine, never(&[ALSO_CORRECTED, BYSTANDER])),
        (&mut other, never(&[CONCERNED, ALSO_CORRECTED])),
    ] {
        let frames = listener.take();
        assert!(!frames.is_empty(), "{} saw nothing at all", listener.name);
        for frame in frames {
            for word in &forbidden {
                assert!(!frame.contains(word), "{} was shown {word:?}: {frame}", listener.name);
            }
        }
    }
}

/// A write's answer shows a player no more than their stream does: the
/// events of a table as `seen_by` gives them, and those at no table (their
/// own doing at the cage) as they are. Staff are answered with every
/// event but each player's own, which are on the streams.
#[test]
fn a_writes_answer_shows_each_caller_only_what_they_may_see() {
    for e in every_kind() {
        let answered = |viewer| Events::answering(viewer, vec![e.clone()]).events;
        let at_no_table = e.audience().table().is_none();
        for viewer in [Viewer::Player(CONCERNED), Viewer::Player(BYSTANDER)] {
            let want: Vec<EventView> = match at_no_table {
                true => vec![e.clone()],
                false => e.seen_by(viewer).map(|s| s.into_owned()).into_iter().collect(),
            };
            assert_eq!(answered(viewer), want, "{viewer:?}");
        }
        let staff_want = match (at_no_table, e.audience().players().is_empty()) {
            (true, _) | (false, true) => vec![e.clone()],
            // A dispute, or chips recorded taken away, is the staff's whole;
            // a player's bet is on the streams.
            (false, false) => match e {
                EventView::DisputeDecided { .. } | EventView::ChipsTakenAway { .. } | EventView::PastPosting { .. } => {
                    vec![e.clone()]
                }
                _ => vec![],
            },
        };
        assert_eq!(answered(Viewer::Staff), staff_want, "{e:?}");
    }
}
