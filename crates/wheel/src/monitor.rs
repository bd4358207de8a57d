//! Turning the wheel's stream into finished games.

use croupier_core::round::NoSpinReason;
use croupier_core::Pocket;

use crate::slingshot2::{no_spin_reason, parse_line, Line, ParseError, WheelState};

/// Frames kept of one game for its evidence, besides those that add a
/// warning and the one that finishes it.
pub const FRAMES_KEPT_MAX: usize = 64;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GameResult {
    Pocket { game: u16, pocket: Pocket },
    NoSpin { game: u16, reason: NoSpinReason },
}

/// Debounces the stream: a game finishes at its first state-5 frame, and
/// the repeats of that frame every half second are ignored. Warnings seen
/// in any frame of the game make it a no spin.
/// A finished game with its evidence: the frames of the game that say
/// what it was (each change of state, number or direction, each new
/// warning, and the frame that finished it), as the wheel sent them.
/// [`replay_game`] gives the result again from the frames alone.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FinishedGame {
    pub result: GameResult,
    pub frames: Vec<String>,
}

#[derive(Debug, Default)]
pub struct Debouncer {
    current_game: Option<u16>,
    warnings: u8,
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

impl Debouncer {
    /// One line as the wheel sent it: [`Debouncer::push`], keeping the
    /// game's frames for the evidence of its result.
    pub fn push_text(&mut self, raw: &str) -> Option<FinishedGame> {
        let parsed = parse_line(raw);
        if let Ok(Line::Frame(frame)) = &parsed {
            if self.current_game != Some(frame.game) {
                self.frames.clear();
                self.last_kept = None;
            }
            let says = (frame.state, frame.last, frame.direction);
            let warns_anew = self.current_game == Some(frame.game) && frame.warnings & !self.warnings != 0
                || self.current_game != Some(frame.game) && frame.warnings != 0;
            let finishing = frame.state == WheelState::WinningNumber && self.finished != Some(frame.game);
            let changed = self.last_kept != Some(says) && self.frames.len() < FRAMES_KEPT_MAX;
            if changed || warns_anew || finishing {
                self.frames.push(raw.trim_end_matches(['\r', '\n']).to_string());
                self.last_kept = Some(says);
            }
        }
        self.push(parsed).map(|result| FinishedGame {
            result,
            frames: self.frames.clone(),
        })
    }

    pub fn push(&mut self, line: Result<Line, crate::slingshot2::ParseError>) -> Option<GameResult> {
        let frame = match line {
            Err(_) => {
                self.rejected_lines += 1;
                return None;
            }
            Ok(Line::BareNumber(p)) => {
                self.bare = Some(p);
                return None;
            }
            Ok(Line::Frame(frame)) => frame,
        };
        if self.current_game != Some(frame.game) {
            self.current_game = Some(frame.game);
            self.warnings = 0;
        }
        self.warnings |= frame.warnings;
        if frame.state != WheelState::WinningNumber || self.finished == Some(frame.game) {
            return None;
        }
        self.finished = Some(frame.game);
        let bare = self.bare.take();
        if let Some(reason) = no_spin_reason(self.warnings) {
            return Some(GameResult::NoSpin {
                game: frame.game,
                reason,
            });
        }
        match frame.last {
            Some(pocket) => {
                if bare.is_some_and(|b| b != pocket) {
                    self.disagreements += 1;
                }
                Some(GameResult::Pocket {
                    game: frame.game,
                    pocket,
                })
            }
            // A state-5 frame with no number: the wheel could not read it.
            None => Some(GameResult::NoSpin {
                game: frame.game,
                reason: NoSpinReason::BallNotSensed,
            }),
        }
    }
}

/// Reads the wheel's lines from `input` and reports each finished game to
/// `on_game`, until `games` games have finished or the stream ends. Lines
/// longer than the format allows are skipped, never buffered without bound.
pub fn follow(
    input: impl std::io::BufRead,
    games: Option<u64>,
    mut on_game: impl FnMut(FinishedGame) -> std::io::Result<()>,
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
            // An over-long line: drop the rest of it.
            let mut rest = Vec::new();
            input.read_until(b'\n', &mut rest)?;
            debouncer.rejected_lines += 1;
            continue;
        }
        let text = String::from_utf8_lossy(&buf);
        if let Some(game) = debouncer.push_text(&text) {
            finished += 1;
            on_game(game)?;
        }
    }
    Ok(debouncer)
}

/// The result a game's kept frames give, checked as its evidence: every
/// frame a status frame of one game, and the game finished by the last.
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
        if *game.get_or_insert(frame.game) != frame.game {
            return Err(format!(
                "frame {} is of game {}, not {}",
                i + 1,
                frame.game,
                game.unwrap_or(0)
            ));
        }
        if let Some(result) = debouncer.push(Ok(Line::Frame(frame))) {
            return if i + 1 == frames.len() {
                Ok(result)
            } else {
                Err(format!("the game finished at frame {} of {}", i + 1, frames.len()))
            };
        }
    }
    Err("the frames do not finish a game".to_string())
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
        lines.iter().filter_map(|l| d.push(parse_line(l))).collect()
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
        lines.iter().filter_map(|l| d.push_text(l)).collect()
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
}
