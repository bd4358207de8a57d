//! Turning the wheel's stream into finished games.

use croupier_core::round::NoSpinReason;
use croupier_core::Pocket;

use crate::slingshot2::{no_spin_reason, Line, WheelState};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GameResult {
    Pocket { game: u16, pocket: Pocket },
    NoSpin { game: u16, reason: NoSpinReason },
}

/// Debounces the stream: a game finishes at its first state-5 frame, and
/// the repeats of that frame every half second are ignored. Warnings seen
/// in any frame of the game make it a no spin.
#[derive(Debug, Default)]
pub struct Debouncer {
    current_game: Option<u16>,
    warnings: u8,
    finished: Option<u16>,
    bare: Option<Pocket>,
    /// Lines that could not be parsed, for the log.
    pub rejected_lines: u64,
    /// Games whose bare winning number disagreed with the state-5 frame.
    pub disagreements: u64,
}

impl Debouncer {
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
    mut on_game: impl FnMut(GameResult) -> std::io::Result<()>,
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
        let parsed = crate::slingshot2::parse_line(&text);
        if matches!(parsed, Err(crate::slingshot2::ParseError::Empty)) {
            continue;
        }
        if let Some(result) = debouncer.push(parsed) {
            finished += 1;
            on_game(result)?;
        }
    }
    Ok(debouncer)
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
}
