//! A table's round: opening and closing the table, betting, no more bets,
//! the spin and its settlement, and an interrupted round voided.

use croupier_core::round::{Command, NoSpinReason, SpinReport};

use super::{Plan, TableSlot};
use crate::api::{ApiError, ErrorCode, OutcomeSource, Role};
use crate::casino::actor::Actor;
use crate::casino::directory::Directory;
use crate::casino::err;
use crate::casino::request::Request;

/// Why a table is not closed with its wheel uncovered (Maryland ch.2 F).
const COVER_NOT_LOCKED: &str =
    "cover the wheel and lock the cover before closing the table, and tick \"wheel cover on \
                                and locked\" (Maryland ch.2 F; asked at every table)";

impl TableSlot {
    pub(super) fn plan_round(
        &self,
        dir: &Directory,
        at_ms: u64,
        actor: &Actor,
        request: &Request,
        plan: &mut Plan,
    ) -> Result<(), ApiError> {
        // Colorado 2206(4), Maryland ch.6 B-C: a no spin's ball is inspected
        // before it is spun again. (An automated wheel's games are its own.)
        if let (Some(reason), Request::Spin { .. } | Request::Draw { .. }) =
            (self.table.ball_awaits_inspection(), request)
        {
            if dir.rules().ball_inspection {
                let who = match self.table.profile().jurisdiction().ball_inspected_by.as_str() {
                    "dealer" => "the dealer inspects it, and a damaged one is replaced (Maryland ch.6 B-C)",
                    _ => "the pit supervisor inspects it (Colorado 2206(4))",
                };
                return Err(err(
                    ErrorCode::BallInspectionRequired,
                    format!(
                        "the ball is inspected before the next spin after a no spin for {}: {who}; then inspect_ball",
                        reason.name().replace('_', " ")
                    ),
                ));
            }
        }
        let command = match request {
            // Maryland ch.1 G(1): the layout shows the operator's name or logo.
            Request::OpenTable { .. }
                if dir.operator().is_none()
                    && self.table.profile().jurisdiction().operator_on_layout
                    && dir.rules().operator_named =>
            {
                return Err(err(
                    ErrorCode::OperatorNotNamed,
                    "this table opens once an admin has named the operator, whose name its layout shows \
                         (Maryland ch.1 G(1)): under \"The casino\" on the admin page",
                ))
            }
            // Maryland ch.1 G(3): the layout carries "Signage indicating the
            // minimum and maximum wagers permitted at that table".
            Request::OpenTable { .. }
                if self.table.profile().jurisdiction().limits_on_layout && dir.rules().limits_posted =>
            {
                self.check_limits_posted()?;
                Command::Open { at_ms }
            }
            Request::OpenTable { .. } => Command::Open { at_ms },
            // Maryland ch.2 F: a table not open for play has its wheel covered and the cover locked.
            Request::CloseTable {
                wheel_cover_locked: false,
                ..
            } if dir.rules().table_rules => return Err(err(ErrorCode::CoverNotLocked, COVER_NOT_LOCKED)),
            Request::CloseTable { .. } => Command::Close { at_ms },
            // Colorado 2205(2), Maryland ch.5 B: at an automated wheel betting
            // opens only as the wheel's game finishes, never by hand while its
            // ball may be rolling (the wheel closes betting once a game).
            Request::OpenBetting { .. }
                if self.outcome == OutcomeSource::Wheel
                    && *actor != Actor::system()
                    && dir.rules().wheel_launch_witnessed =>
            {
                return Err(err(
                    ErrorCode::NotDealerTable,
                    "betting at an automated wheel's table opens by itself as each game of the wheel finishes",
                ))
            }
            Request::OpenBetting { .. } => Command::OpenBetting { at_ms },
            Request::NoMoreBets { .. } => Command::NoMoreBets { at_ms },
            Request::Spin { spin, bonus_words, .. } => {
                if dir.rules().results_from_source && self.outcome != OutcomeSource::Dealer {
                    return Err(err(
                        ErrorCode::NotDealerTable,
                        format!(
                            "this table's results come from {}; no one may enter one{}",
                            source_name(self.outcome),
                            match self.outcome {
                                OutcomeSource::Rng => " (after no more bets, POST /api/tables/T/draw has it draw)",
                                _ => "",
                            }
                        ),
                    ));
                }
                let report = spin.to_report().map_err(|e| err(ErrorCode::BadSpin, e))?;
                if let SpinReport::NoSpin(reason) = report {
                    if dir.rules().ball_inspection {
                        let hang_by_floor = self.table.profile().jurisdiction().hanging_ball_called_by_floor
                            && dir.rules().authority_titles;
                        check_no_spin_caller(actor, reason, hang_by_floor)?;
                    }
                }
                self.with_bonus_symbols(Command::Spin { at_ms, report }, bonus_words)?
            }
            Request::Draw {
                pocket,
                word,
                bonus_words,
                ..
            } => self.with_bonus_symbols(
                Command::Spin {
                    at_ms,
                    report: self.drawn(pocket, *word)?,
                },
                bonus_words,
            )?,
            Request::WheelGame {
                game,
                frames,
                bonus_words,
                ..
            } => self.with_bonus_symbols(
                Command::Spin {
                    at_ms,
                    report: self.wheel_game(dir, *game, frames)?,
                },
                bonus_words,
            )?,
            Request::VoidRound { reason, .. } => Command::VoidRound {
                at_ms,
                reason: reason.clone(),
            },
            _ => return Err(err(ErrorCode::Internal, "not a request about the round")),
        };
        self.plan_core(dir, plan, command)
    }

    /// The spin the RNG's `word` gives, checked against the `pocket` recorded with it.
    fn drawn(&self, pocket: &str, word: u32) -> Result<SpinReport, ApiError> {
        if self.outcome != OutcomeSource::Rng {
            return Err(err(ErrorCode::NotRng, "this table's outcomes do not come from the RNG"));
        }
        let report = croupier_rng::drawn_spin(word, &self.table).ok_or_else(|| {
            err(
                ErrorCode::BadSpin,
                format!("the word {word} is one the draw throws away"),
            )
        })?;
        match report {
            SpinReport::Ball { pocket: p, .. } if p.label() == pocket => Ok(report),
            SpinReport::Ball { pocket: p, .. } => Err(err(
                ErrorCode::BadSpin,
                format!("the word {word} draws {}, not {pocket}", p.label()),
            )),
            SpinReport::NoSpin(_) => Err(err(ErrorCode::BadSpin, "a draw is never a no spin")),
        }
    }

    /// The spin a wheel's finished `game` gives, from its frames alone.
    fn wheel_game(&self, dir: &Directory, game: u16, frames: &[String]) -> Result<SpinReport, ApiError> {
        if self.outcome != OutcomeSource::Wheel {
            return Err(err(
                ErrorCode::NotWheel,
                "this table's outcomes do not come from an automated wheel",
            ));
        }
        let result = croupier_wheel::monitor::replay_game(frames)
            .map_err(|why| err(ErrorCode::BadSpin, format!("the wheel's frames of game {game}: {why}")))?;
        let (croupier_wheel::monitor::GameResult::Pocket { game: g, .. }
        | croupier_wheel::monitor::GameResult::NoSpin { game: g, .. }) = result;
        if g != game {
            return Err(err(
                ErrorCode::BadSpin,
                format!("the frames are of game {g}, not {game}"),
            ));
        }
        // Colorado 2205(2), Maryland ch.5 B: bets close before the ball is
        // launched; a launch the table did not see may have been bet after.
        if matches!(result, croupier_wheel::monitor::GameResult::Pocket { .. })
            && dir.rules().wheel_launch_witnessed
            && !croupier_wheel::monitor::launch_witnessed(frames)
        {
            return Ok(SpinReport::NoSpin(NoSpinReason::LaunchUnseen));
        }
        Ok(croupier_wheel::monitor::spin_report(
            result,
            self.table.profile().spec().min_ball_revolutions,
        ))
    }

    /// Refuses to open a table whose sign leaves a kind of bet it takes
    /// without a posted minimum and maximum (Maryland ch.1 G(3)).
    fn check_limits_posted(&self) -> Result<(), ApiError> {
        let posted: Vec<croupier_core::Kind> = self.table.limits().iter().map(|(k, _)| *k).collect();
        self.check_sign_complete(&posted, "this table opens once its sign shows")
    }

    /// Refuses a sign that leaves a kind of bet the table takes without a
    /// posted minimum and maximum (Maryland ch.1 G(3)): at opening, and from
    /// then on whenever the limits are posted again (`set_limits`).
    pub(super) fn check_sign_complete(&self, posted: &[croupier_core::Kind], what: &str) -> Result<(), ApiError> {
        let wheel = self.table.config().wheel;
        let missing: Vec<String> = self
            .table
            .profile()
            .kinds_on(wheel)
            .into_iter()
            // A composite bet is limited by the bets it stands for.
            .filter(|kind| !kind.is_composite() && !posted.contains(kind))
            // In words, as the pit's console names them: "first four", not the API's code.
            .map(|kind| kind.name().replace('_', " "))
            .collect();
        if missing.is_empty() {
            return Ok(());
        }
        Err(err(
            ErrorCode::LimitsNotPosted,
            format!(
                "{what} the minimum and maximum wagers permitted at this table (Maryland ch.1 G(3)); \
                 no limit is posted on {}: the pit posts one on every kind of bet under \"Table limits\" on its console",
                missing.join(", ")
            ),
        ))
    }
}

/// Who may call a no spin for `reason` at a dealer's table (from journal
/// format 9): the dealer calls what they saw at the wheel; an inspector's
/// or pit boss's command (european-casino glossary NO SPIN 4) is the pit's;
/// an emergency is declared, not called (european-casino 6.1); what only
/// an automated wheel's sensors report is never keyed by hand; and where
/// `hang_by_floor` (from format 10), a hanging ball's is the floor
/// manager's alone (low-limit-house Irregularities (5): "the dealer shall
/// call floor ... the floor manager will announce 'No Spin'").
fn check_no_spin_caller(actor: &Actor, reason: NoSpinReason, hang_by_floor: bool) -> Result<(), ApiError> {
    let why = match reason {
        NoSpinReason::BallHangs if hang_by_floor && actor.role != Role::FloorManager => {
            "the dealer calls the floor for a hanging ball; the floor manager announces the no spin \
             (low-limit-house Irregularities (5))"
        }
        r if r.pit_only() && actor.role == Role::Dealer => {
            "a supervisor's command is the pit's to call, not the dealer's (european-casino glossary NO SPIN 4)"
        }
        NoSpinReason::Emergency => {
            "an emergency is declared (declare_emergency), which voids the spin: it is not a no spin to key"
        }
        r if !r.keyed_by_hand() => "that no spin is an automated wheel's report, not one a dealer keys",
        _ => return Ok(()),
    };
    Err(err(ErrorCode::Forbidden, format!("{}: {why}", actor.role.name())))
}

/// A table's outcome source, in words.
fn source_name(source: OutcomeSource) -> &'static str {
    match source {
        OutcomeSource::Rng => "the RNG",
        OutcomeSource::Wheel => "its automated wheel",
        OutcomeSource::Dealer => "its dealer",
    }
}
