//! Turning the wheel's stream into finished games.

use croupier_core::round::NoSpinReason;
use croupier_core::Pocket;

use crate::slingshot2::{no_spin_reason, parse_line, Frame, Line, ParseError, WheelState};

/// Frames kept of one game for its evidence, besides those that add a
/// warning and the one that finishes it.
pub const FRAMES_KEPT_MAX: usize = 64;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GameResult {
    Pocket { game: u16, pocket: Pocket },
    NoSpin { game: u16, reason: NoSpinReason },
}

impl GameResult {
    pub fn game(self) -> u16 {
        match self {
            GameResult::Pocket { game, .. } | GameResult::NoSpin { game, .. } => game,
        }
    }
}

/// A finished game with its evidence: the frames of the game that say
/// what it was (each change of state, number or direction, each new
/// warning, and the frame that finished it), as the wheel sent them.
/// [`replay_game`] gives the result again from the frames alone.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FinishedGame {
    pub result: GameResult,
    pub frames: Vec<String>,
}

/// What one frame tells the table, in the order it must act on it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Said {
    /// Betting must close: the ball of `game` is launched, or the wheel
    /// called no more bets (Colorado 2205(2), Maryland ch.5 B,
    /// european-casino 3.1). Said once a game, at the first frame of state
    /// 3, 4 or 5 the monitor sees.
    BettingClosed {
        game: u16,
    },
    Finished(GameResult),
}

/// [`Said`] with a finished game's evidence.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum WheelEvent {
    BettingClosed { game: u16 },
    Finished(FinishedGame),
}

/// Debounces the stream: a game finishes at its first state-5 frame, and
/// the repeats of that frame every half second are ignored. Warnings seen
/// in any frame of the game make it a no spin. A game that ends without a
/// winning-number frame (the next game starts, or the wheel goes back to
/// idle or closes after the launch) is a no spin too, when its ball was
/// launched or it carried a warning: its reason is its warning's, or a
/// void game; the frame that ended it is the last of its evidence.
#[derive(Debug, Default)]
pub struct Debouncer {
    current_game: Option<u16>,
    warnings: u8,
    /// The current game was seen in state 3, 4 or 5: its ball was launched.
    launched: bool,
    /// The last game betting was closed for, and the last finished.
    closed: Option<u16>,
    finished: Option<u16>,
    bare: Option<Pocket>,
    /// The current game's frames kept for its evidence, and what the last of them said.
    frames: Vec<String>,
    last_kept: Option<(WheelState, Option<Pocket>, u8)>,
    /// Lines that could not be parsed, for the log.
    pub rejected_lines: u64,
    /// Games whose bare winning number disagreed with the state-5 frame.
    pub disagreements: u64,
}

/// The states in which a game's ball is launched.
fn past_launch(state: WheelState) -> bool {
    matches!(
        state,
        WheelState::BallInTrack | WheelState::NoMoreBets | WheelState::WinningNumber
    )
}

impl Debouncer {
    /// Whether `frame` ends the current game without a winning number.
    fn ends_unfinished(&self, frame: &Frame) -> bool {
        let Some(game) = self.current_game else {
            return false;
        };
        if self.finished == Some(game) {
            return false;
        }
        let idle = matches!(frame.state, WheelState::GameStart | WheelState::TableClosed);
        (frame.game != game || idle && self.launched) && (self.launched || self.warnings != 0)
    }

    /// One line as the wheel sent it: [`Debouncer::push`], keeping the
    /// game's frames for the evidence of each finished game.
    pub fn push_text(&mut self, raw: &str) -> Vec<WheelEvent> {
        let parsed = parse_line(raw);
        let raw = raw.trim_end_matches(['\r', '\n']);
        let mut unfinished = None;
        if let Ok(Line::Frame(frame)) = &parsed {
            if self.ends_unfinished(frame) {
                let mut frames = self.frames.clone();
                frames.push(raw.to_string());
                unfinished = Some(frames);
            }
            if self.current_game != Some(frame.game) {
                self.frames.clear();
                self.last_kept = None;
            }
            let says = (frame.state, frame.last, frame.direction);
            let warns_anew = self.current_game == Some(frame.game) && frame.warnings & !self.warnings != 0
                || self.current_game != Some(frame.game) && frame.warnings != 0;
            let finishing = frame.state == WheelState::WinningNumber && self.finished != Some(frame.game);
            // The launch is kept past the cap: replay must see the ball launched.
            let launching = past_launch(frame.state) && (self.current_game != Some(frame.game) || !self.launched);
            let changed = self.last_kept != Some(says) && self.frames.len() < FRAMES_KEPT_MAX;
            if changed || warns_anew || finishing || launching {
                self.frames.push(raw.to_string());
                self.last_kept = Some(says);
            }
        }
        self.push(parsed)
            .into_iter()
            .map(|said| match said {
                Said::BettingClosed { game } => WheelEvent::BettingClosed { game },
                Said::Finished(result) => WheelEvent::Finished(FinishedGame {
                    result,
                    frames: unfinished.take().unwrap_or_else(|| self.frames.clone()),
                }),
            })
            .collect()
    }

    /// What one line says, in order: the end of a game left unfinished,
    /// betting closed, a game finished.
    pub fn push(&mut self, line: Result<Line, ParseError>) -> Vec<Said> {
        let frame = match line {
            Err(_) => {
                self.rejected_lines += 1;
                return Vec::new();
            }
            Ok(Line::BareNumber(p)) => {
                self.bare = Some(p);
                return Vec::new();
            }
            Ok(Line::Frame(frame)) => frame,
        };
        let mut said = Vec::new();
        if let (true, Some(game)) = (self.ends_unfinished(&frame), self.current_game) {
            let reason = no_spin_reason(self.warnings).unwrap_or(NoSpinReason::VoidGame);
            said.push(Said::Finished(GameResult::NoSpin { game, reason }));
            self.finished = Some(game);
            self.bare = None;
        }
        if self.current_game != Some(frame.game) {
            self.current_game = Some(frame.game);
            self.warnings = 0;
            self.launched = false;
        }
        self.warnings |= frame.warnings;
        self.launched |= past_launch(frame.state);
        if self.launched && self.closed != Some(frame.game) && self.finished != Some(frame.game) {
            self.closed = Some(frame.game);
            said.push(Said::BettingClosed { game: frame.game });
        }
        if frame.state != WheelState::WinningNumber || self.finished == Some(frame.game) {
            return said;
        }
        self.finished = Some(frame.game);
        let bare = self.bare.take();
        let result = if let Some(reason) = no_spin_reason(self.warnings) {
            GameResult::NoSpin {
                game: frame.game,
                reason,
            }
        } else {
            match frame.last {
                Some(pocket) => {
                    if bare.is_some_and(|b| b != pocket) {
                        self.disagreements += 1;
                    }
                    GameResult::Pocket {
                        game: frame.game,
                        pocket,
                    }
                }
                // A state-5 frame with no number: the wheel could not read it.
                None => GameResult::NoSpin {
                    game: frame.game,
                    reason: NoSpinReason::BallNotSensed,
                },
            }
        };
        said.push(Said::Finished(result));
        said
    }
}

/// Reads the wheel's lines from `input` and reports each finished game to
/// `on_game`, until `games` games have finished or the stream ends.
pub fn follow(
    input: impl std::io::BufRead,
    games: Option<u64>,
    mut on_game: impl FnMut(FinishedGame) -> std::io::Result<()>,
) -> std::io::Result<Debouncer> {
    follow_events(input, games, |event| match event {
        WheelEvent::Finished(game) => on_game(game),
        WheelEvent::BettingClosed { .. } => Ok(()),
    })
}

/// Reads the wheel's lines from `input` and reports what each says to
/// `on_event`, until `games` games have finished or the stream ends. Lines
/// longer than the format allows are skipped, never buffered without bound.
pub fn follow_events(
    input: impl std::io::BufRead,
    games: Option<u64>,
    mut on_event: impl FnMut(WheelEvent) -> std::io::Result<()>,
) -> std::io::Result<Debouncer> {
    use std::io::{BufRead, Read};
    let mut debouncer = Debouncer::default();
    let mut finished = 0u64;
    let mut input = input;
    let mut buf = Vec::with_capacity(crate::slingshot2::LINE_MAX_BYTES + 2);
    while games.is_none_or(|n| finished < n) {
        buf.clear();
        let read = (&mut input)
            .take(crate::slingshot2::LINE_MAX_BYTES as u64 + 2)
            .read_until(b'\n', &mut buf)?;
        if read == 0 {
            break;
        }
        if buf.last() != Some(&b'\n') {
            // An over-long line: drop the rest of it, a bounded piece at a
            // time, so that a stream without line ends holds no memory.
            loop {
                buf.clear();
                let read = (&mut input)
                    .take(crate::slingshot2::LINE_MAX_BYTES as u64 + 2)
                    .read_until(b'\n', &mut buf)?;
                if read == 0 || buf.last() == Some(&b'\n') {
                    break;
                }
            }
            debouncer.rejected_lines += 1;
            continue;
        }
        let text = String::from_utf8_lossy(&buf);
        for event in debouncer.push_text(&text) {
            if matches!(event, WheelEvent::Finished(_)) {
                if games.is_some_and(|n| finished >= n) {
                    break;
                }
                finished += 1;
            }
            on_event(event)?;
        }
    }
    Ok(debouncer)
}

/// The result a game's kept frames give, checked as its evidence: every
/// frame a status frame of one game, and the game finished by the last
/// (which may be the next game's first, when it ended the game unfinished).
pub fn replay_game(frames: &[String]) -> Result<GameResult, String> {
    let mut debouncer = Debouncer::default();
    let mut game = None;
    for (i, text) in frames.iter().enumerate() {
        let frame = match parse_line(text) {
            Ok(Line::Frame(frame)) => frame,
            Ok(Line::BareNumber(_)) | Err(ParseError::Empty) => {
                return Err(format!("frame {} is not a status frame: {text:?}", i + 1))
            }
            Err(e) => return Err(format!("frame {}: {e}", i + 1)),
        };
        let last = i + 1 == frames.len();
        let first = *game.get_or_insert(frame.game);
        if first != frame.game && !last {
            return Err(format!("frame {} is of game {}, not {first}", i + 1, frame.game));
        }
        let finished = debouncer
            .push(Ok(Line::Frame(frame)))
            .into_iter()
            .find_map(|s| match s {
                Said::Finished(result) => Some(result),
                Said::BettingClosed { .. } => None,
            });
        if let Some(result) = finished {
            return if last && result.game() == first {
                Ok(result)
            } else {
                Err(format!("the game finished at frame {} of {}", i + 1, frames.len()))
            };
        }
    }
    Err("the frames do not finish a game".to_string())
}

/// Whether a game's kept frames show its ball launched while the monitor
/// watched: its first frame is before the launch (game start, rotor
/// turning, or the table closed). A game first seen with its ball already
/// in the track, as after a reconnection, may have been bet on after the
/// launch.
pub fn launch_witnessed(frames: &[String]) -> bool {
    frames
        .first()
        .is_some_and(|text| matches!(parse_line(text), Ok(Line::Frame(frame)) if !past_launch(frame.state)))
}

/// A finished game as the round's spin report. The wheel checks the ball's
/// direction and travel itself and reports a failure as a warning, so a
/// reported number is a valid spin.
pub fn spin_report(result: GameResult, min_revolutions: u8) -> croupier_core::round::SpinReport {
    use croupier_core::round::SpinReport;
    match result {
        GameResult::Pocket { pocket, .. } => SpinReport::Ball {
            pocket,
            opposite_direction: true,
            revolutions: min_revolutions,
        },
        GameResult::NoSpin { reason, .. } => SpinReport::NoSpin(reason),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::slingshot2::parse_line;

    fn feed(lines: &[&str]) -> Vec<GameResult> {
        let mut d = Debouncer::default();
        lines
            .iter()
            .flat_map(|l| d.push(parse_line(l)))
            .filter_map(|s| match s {
                Said::Finished(result) => Some(result),
                Said::BettingClosed { .. } => None,
            })
            .collect()
    }

    #[test]
    fn one_result_per_game_from_the_state_5_frame() {
        let results = feed(&[
            "*X;1;012;17;0;25;1",
            "*X;3;012;17;0;25;1",
            "*X;4;012;17;0;24;1",
            " 6",
            "*X;5;012; 6;0;22;1",
            "*X;5;012; 6;0;22;1",
            "*X;5;012; 6;0;22;1",
            "*X;1;013; 6;0;25;1",
            "*X;3;013; 6;2;25;1",
            "*X;5;013;14;0;22;1",
        ]);
        assert_eq!(
            results,
            [
                GameResult::Pocket {
                    game: 12,
                    pocket: Pocket::parse("6").expect("6")
                },
                GameResult::NoSpin {
                    game: 13,
                    reason: NoSpinReason::SameDirection
                },
            ]
        );
    }

    fn finished(lines: &[&str]) -> Vec<FinishedGame> {
        let mut d = Debouncer::default();
        lines
            .iter()
            .flat_map(|l| d.push_text(l))
            .filter_map(|e| match e {
                WheelEvent::Finished(game) => Some(game),
                WheelEvent::BettingClosed { .. } => None,
            })
            .collect()
    }

    #[test]
    fn a_games_kept_frames_give_its_result_again_and_nothing_else() {
        let mut lines = vec!["*X;6;011;17;0;0;1", "*X;1;012;17;0;25;1"];
        lines.extend(std::iter::repeat_n("*X;2;012;17;0;25;1", 40));
        lines.extend(["*X;3;012;17;0;24;1", "*X;4;012;17;0;23;1", " 6"]);
        lines.extend(std::iter::repeat_n("*X;5;012; 6;0;22;1", 5));
        let games = finished(&lines);
        assert_eq!(games.len(), 1);
        let game = &games[0];
        assert_eq!(
            game.result,
            GameResult::Pocket {
                game: 12,
                pocket: Pocket::parse("6").expect("6")
            }
        );
        // Each change kept once; the repeats, the other game and the bare number are not.
        assert_eq!(
            game.frames,
            [
                "*X;1;012;17;0;25;1",
                "*X;2;012;17;0;25;1",
                "*X;3;012;17;0;24;1",
                "*X;4;012;17;0;23;1",
                "*X;5;012; 6;0;22;1"
            ]
        );
        assert_eq!(replay_game(&game.frames), Ok(game.result));

        // Another number in the finishing frame is another result; frames cut short finish nothing.
        let mut changed = game.frames.clone();
        changed[4] = "*X;5;012;26;0;22;1".to_string();
        assert_eq!(
            replay_game(&changed),
            Ok(GameResult::Pocket {
                game: 12,
                pocket: Pocket::parse("26").expect("26")
            })
        );
        assert!(replay_game(&game.frames[..4]).is_err());
        let mut two_games = game.frames.clone();
        two_games[0] = "*X;1;013;17;0;25;1".to_string();
        assert!(replay_game(&two_games).is_err());
        let mut after = game.frames.clone();
        after.push("*X;5;012; 6;0;22;1".to_string());
        assert!(replay_game(&after).is_err(), "nothing after the finishing frame");
        assert!(replay_game(&["17".to_string()]).is_err());
    }

    #[test]
    fn a_warning_in_any_frame_is_kept_so_the_no_spin_replays() {
        let mut lines = vec!["*X;1;040;17;0;25;1"];
        lines.extend(std::iter::repeat_n("*X;2;040;17;0;25;1", 100));
        // A warning mid-game, in a frame that otherwise repeats the last.
        lines.push("*X;2;040;17;2;25;1");
        lines.extend(std::iter::repeat_n("*X;2;040;17;0;25;1", 100));
        lines.push("*X;5;040;12;0;22;1");
        let games = finished(&lines);
        assert!(
            matches!(games[0].result, GameResult::NoSpin { game: 40, .. }),
            "{games:?}"
        );
        assert!(games[0].frames.len() <= 5, "{:?}", games[0].frames);
        assert_eq!(replay_game(&games[0].frames), Ok(games[0].result));
    }

    /// Everything a stream says, in order, as (game, what): "closed", or the result.
    fn said(lines: &[&str]) -> Vec<(u16, String)> {
        let mut d = Debouncer::default();
        lines
            .iter()
            .flat_map(|l| d.push_text(l))
            .map(|e| match e {
                WheelEvent::BettingClosed { game } => (game, "closed".to_string()),
                WheelEvent::Finished(FinishedGame {
                    result: GameResult::Pocket { game, pocket },
                    ..
                }) => (game, pocket.label().to_string()),
                WheelEvent::Finished(FinishedGame {
                    result: GameResult::NoSpin { game, reason },
                    ..
                }) => (game, reason.name().to_string()),
            })
            .collect()
    }

    // Colorado 2205(2), Maryland ch.5 B, european-casino 3.1, low-limit-house
    // Rotation (2): betting closes when the ball is launched, at the latest.
    #[test]
    fn betting_closes_once_a_game_at_the_launch_before_the_result() {
        let lines = [
            "*X;1;020;17;0;25;1",
            "*X;2;020;17;0;25;1",
            "*X;3;020;17;0;24;1",
            "*X;3;020;17;0;24;1",
            "*X;4;020;17;0;23;1",
            "*X;5;020; 9;0;22;1",
            "*X;5;020; 9;0;22;1",
            // The wheel calls no more bets before the ball is in the track.
            "*X;1;021; 9;0;25;1",
            "*X;4;021; 9;0;25;1",
            "*X;3;021; 9;0;25;1",
            "*X;5;021;30;0;22;1",
        ];
        assert_eq!(
            said(&lines),
            [
                (20, "closed".to_string()),
                (20, "9".to_string()),
                (21, "closed".to_string()),
                (21, "30".to_string())
            ]
        );
        // First seen already finishing (a reconnection): closed, then the result.
        assert_eq!(
            said(&["*X;5;030;12;0;22;1"]),
            [(30, "closed".to_string()), (30, "12".to_string())]
        );
    }

    // A wheel stream written by hand, not by the emulator (which always
    // ends a game with a winning-number frame): a game the wheel voids and
    // leaves without a winning number is a no spin with its reason.
    #[test]
    fn a_game_ended_without_a_winning_number_is_a_no_spin_whatever_ends_it() {
        // Warning, then the next game starts.
        let next = [
            "*X;1;050;17;0;25;1",
            "*X;3;050;17;0;24;1",
            "*X;3;050;17;8;24;1",
            "*X;1;051;17;0;25;1",
            "*X;3;051;17;0;24;1",
            "*X;5;051; 4;0;22;1",
        ];
        assert_eq!(
            said(&next),
            [
                (50, "closed".to_string()),
                (50, "void_game".to_string()),
                (51, "closed".to_string()),
                (51, "4".to_string())
            ]
        );
        // Warning, then back to idle in the same game: the later frames of that game say nothing.
        let idle = [
            "*X;2;060;17;0;25;1",
            "*X;3;060;17;2;24;1",
            "*X;1;060;17;0;25;1",
            "*X;3;060;17;0;25;1",
            "*X;5;060;11;0;25;1",
        ];
        assert_eq!(
            said(&idle),
            [(60, "closed".to_string()), (60, "same_direction".to_string())]
        );
        // No warning, but the ball was launched and the table closed: a void game.
        assert_eq!(
            said(&["*X;2;070;17;0;25;1", "*X;4;070;17;0;24;1", "*X;6;070;17;0;0;1"]),
            [(70, "closed".to_string()), (70, "void_game".to_string())]
        );
        // A warning before any launch, and the next game: a no spin too.
        assert_eq!(
            said(&["*X;1;080;17;1;25;1", "*X;1;081;17;0;25;1"]),
            [(80, "ball_not_sensed".to_string())]
        );
        // A game that neither launched nor warned, left for the next: nothing happened.
        assert_eq!(
            said(&["*X;1;090;17;0;25;1", "*X;2;090;17;0;25;1", "*X;1;091;17;0;25;1"]),
            []
        );
    }

    #[test]
    fn an_unfinished_games_evidence_ends_with_the_frame_that_ended_it() {
        let games = finished(&[
            "*X;1;050;17;0;25;1",
            "*X;3;050;17;0;24;1",
            "*X;3;050;17;8;24;1",
            "*X;1;051;17;0;25;1",
            "*X;5;051; 4;0;22;1",
        ]);
        assert_eq!(games.len(), 2);
        assert_eq!(
            games[0].frames,
            [
                "*X;1;050;17;0;25;1",
                "*X;3;050;17;0;24;1",
                "*X;3;050;17;8;24;1",
                "*X;1;051;17;0;25;1"
            ]
        );
        assert_eq!(replay_game(&games[0].frames), Ok(games[0].result));
        assert_eq!(games[1].frames, ["*X;1;051;17;0;25;1", "*X;5;051; 4;0;22;1"]);
        assert_eq!(replay_game(&games[1].frames), Ok(games[1].result));
        // Without the ending frame the game is not finished; with a frame of a third game in the middle it is not one game.
        assert!(replay_game(&games[0].frames[..3]).is_err());
        let mut mixed = games[0].frames.clone();
        mixed.insert(1, "*X;2;052;17;0;25;1".to_string());
        assert!(replay_game(&mixed).is_err());
        // A frame of another game that does not end this one finishes nothing.
        assert!(replay_game(&["*X;1;050;17;0;25;1".to_string(), "*X;1;051;17;0;25;1".to_string()]).is_err());
    }

    #[test]
    fn a_launch_is_witnessed_only_when_the_frames_begin_before_it() {
        let of = |lines: &[&str]| launch_witnessed(&lines.iter().map(|l| l.to_string()).collect::<Vec<_>>());
        assert!(of(&["*X;1;012;17;0;25;1", "*X;5;012; 6;0;22;1"]));
        assert!(of(&["*X;2;012;17;0;25;1", "*X;5;012; 6;0;22;1"]));
        assert!(!of(&["*X;3;012;17;0;25;1", "*X;5;012; 6;0;22;1"]));
        assert!(!of(&["*X;5;012; 6;0;22;1"]));
        assert!(!of(&[]));
    }

    // A game with more changes than the frames kept still keeps its launch
    // and what ended it, so the table replays it as the monitor saw it.
    #[test]
    fn a_long_games_launch_is_kept_past_the_cap() {
        let mut lines: Vec<String> = (0..FRAMES_KEPT_MAX + 6)
            .map(|i| format!("*X;{};012;17;0;25;1", 1 + i % 2))
            .collect();
        lines.push("*X;3;012;17;0;24;1".to_string());
        lines.push("*X;1;013;17;0;25;1".to_string());
        let lines: Vec<&str> = lines.iter().map(String::as_str).collect();
        let games = finished(&lines);
        assert_eq!(games.len(), 1, "{games:?}");
        assert!(matches!(games[0].result, GameResult::NoSpin { game: 12, .. }));
        assert_eq!(replay_game(&games[0].frames), Ok(games[0].result));
    }

    #[test]
    fn a_stream_without_line_ends_holds_no_memory() {
        // 4 MB with no line end, then a game: skipped in bounded pieces, the game still read.
        let mut stream = vec![b'x'; 4 << 20];
        stream.extend_from_slice(b"\n*X;1;020;17;0;25;1\r\n*X;3;020;17;0;24;1\r\n*X;5;020; 9;0;22;1\r\n");
        let mut games = Vec::new();
        let d = follow(std::io::Cursor::new(stream), None, |g| {
            games.push(g.result);
            Ok(())
        })
        .expect("read");
        assert_eq!(d.rejected_lines, 1);
        assert_eq!(games.len(), 1);
    }
}
