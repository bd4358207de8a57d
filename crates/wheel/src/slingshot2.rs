//! The SlingShot 2 line format.

use croupier_core::round::NoSpinReason;
use croupier_core::Pocket;

/// The longest line accepted, in bytes; anything longer is noise.
pub const LINE_MAX_BYTES: usize = 256;

/// Warning flags, summed in the frame's warnings field.
pub const WARN_BALL_NOT_SENSED: u8 = 1;
pub const WARN_SAME_DIRECTION: u8 = 2;
pub const WARN_SENSOR_FAULT: u8 = 4;
pub const WARN_VOID_GAME: u8 = 8;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WheelState {
    GameStart = 1,
    RotorTurning = 2,
    BallInTrack = 3,
    NoMoreBets = 4,
    WinningNumber = 5,
    TableClosed = 6,
}

impl WheelState {
    fn from_digit(d: u8) -> Option<WheelState> {
        Some(match d {
            1 => WheelState::GameStart,
            2 => WheelState::RotorTurning,
            3 => WheelState::BallInTrack,
            4 => WheelState::NoMoreBets,
            5 => WheelState::WinningNumber,
            6 => WheelState::TableClosed,
            _ => return None,
        })
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Frame {
    pub state: WheelState,
    /// 0-999; the wheel counts games modulo 1000.
    pub game: u16,
    /// The previous winning number (in a state-5 frame: this game's).
    pub last: Option<Pocket>,
    pub warnings: u8,
    pub speed: String,
    /// 0 or 1: the rotor's direction.
    pub direction: u8,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Line {
    Frame(Frame),
    /// The winning number alone, sent before the first state-5 frame.
    BareNumber(Pocket),
}

#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ParseError {
    #[error("line longer than {LINE_MAX_BYTES} bytes")]
    TooLong,
    #[error("empty line")]
    Empty,
    #[error("{0:?} is neither a status frame nor a winning number")]
    Unrecognised(String),
    #[error("frame {line:?}: {field} {value:?} is not valid")]
    BadField {
        line: String,
        field: &'static str,
        value: String,
    },
}

fn pocket_field(text: &str) -> Option<Option<Pocket>> {
    let trimmed = text.trim();
    if trimmed.is_empty() || trimmed == "-" {
        return Some(None);
    }
    Pocket::parse(trimmed).map(Some)
}

/// Parses one line, without its CRLF.
pub fn parse_line(raw: &str) -> Result<Line, ParseError> {
    if raw.len() > LINE_MAX_BYTES {
        return Err(ParseError::TooLong);
    }
    let line = raw.trim_end_matches(['\r', '\n']);
    if line.trim().is_empty() {
        return Err(ParseError::Empty);
    }
    let Some(body) = line.strip_prefix("*X;") else {
        return match Pocket::parse(line.trim()) {
            Some(p) => Ok(Line::BareNumber(p)),
            None => Err(ParseError::Unrecognised(line.to_string())),
        };
    };
    let fields: Vec<&str> = body.split(';').collect();
    let bad = |field: &'static str, value: &str| ParseError::BadField {
        line: line.to_string(),
        field,
        value: value.to_string(),
    };
    let [state, game, last, warnings, speed, direction] = fields[..] else {
        return Err(bad("field count", &fields.len().to_string()));
    };
    let state = state
        .trim()
        .parse::<u8>()
        .ok()
        .and_then(WheelState::from_digit)
        .ok_or_else(|| bad("state", state))?;
    let game_ok = game.len() == 3 && game.bytes().all(|b| b.is_ascii_digit());
    let game = game
        .parse::<u16>()
        .ok()
        .filter(|_| game_ok)
        .ok_or_else(|| bad("game", game))?;
    let last = pocket_field(last)
        .filter(|_| last.len() == 2)
        .ok_or_else(|| bad("last", last))?;
    let warnings = warnings
        .trim()
        .parse::<u8>()
        .ok()
        .filter(|w| *w < 16)
        .ok_or_else(|| bad("warnings", warnings))?;
    let speed_ok = !speed.trim().is_empty() && speed.trim().bytes().all(|b| b.is_ascii_digit() || b == b'.');
    if !speed_ok {
        return Err(bad("speed", speed));
    }
    let direction = match direction.trim() {
        "0" => 0,
        "1" => 1,
        other => return Err(bad("direction", other)),
    };
    Ok(Line::Frame(Frame {
        state,
        game,
        last,
        warnings,
        speed: speed.trim().to_string(),
        direction,
    }))
}

/// A pocket in the two-character, space-padded field.
pub fn pocket_text(pocket: Option<Pocket>) -> String {
    match pocket {
        Some(p) => format!("{:>2}", p.label()),
        None => "  ".to_string(),
    }
}

/// The frame as the wheel sends it, CRLF included.
pub fn encode_frame(frame: &Frame) -> String {
    format!(
        "*X;{};{:03};{};{};{};{}\r\n",
        frame.state as u8,
        frame.game % 1000,
        pocket_text(frame.last),
        frame.warnings,
        frame.speed,
        frame.direction
    )
}

/// The no-spin reason for a set of warning flags, most specific first.
pub fn no_spin_reason(warnings: u8) -> Option<NoSpinReason> {
    [
        (WARN_SAME_DIRECTION, NoSpinReason::SameDirection),
        (WARN_BALL_NOT_SENSED, NoSpinReason::BallNotSensed),
        (WARN_SENSOR_FAULT, NoSpinReason::SensorFault),
        (WARN_VOID_GAME, NoSpinReason::VoidGame),
    ]
    .into_iter()
    .find(|(flag, _)| warnings & flag != 0)
    .map(|(_, reason)| reason)
}

/// A command from the host to the wheel.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HostCommand {
    Open,
    Close,
    StartNextGame,
}

impl HostCommand {
    pub fn encode(self) -> &'static str {
        match self {
            HostCommand::Open => "*P 1\r\n",
            HostCommand::Close => "*P 0\r\n",
            HostCommand::StartNextGame => "*u 1\r\n",
        }
    }

    pub fn parse(line: &str) -> Option<HostCommand> {
        match line.trim() {
            "*P 1" => Some(HostCommand::Open),
            "*P 0" => Some(HostCommand::Close),
            "*u 1" => Some(HostCommand::StartNextGame),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frames_round_trip() {
        let frame = Frame {
            state: WheelState::WinningNumber,
            game: 7,
            last: Pocket::parse("6"),
            warnings: 0,
            speed: "25".into(),
            direction: 1,
        };
        let text = encode_frame(&frame);
        assert_eq!(text, "*X;5;007; 6;0;25;1\r\n");
        assert_eq!(parse_line(&text), Ok(Line::Frame(frame)));
    }

    #[test]
    fn bare_numbers_and_garbage() {
        assert_eq!(
            parse_line("17\r\n"),
            Ok(Line::BareNumber(Pocket::parse("17").expect("17")))
        );
        assert_eq!(parse_line(" 0\r\n"), Ok(Line::BareNumber(Pocket::ZERO)));
        assert_eq!(parse_line("00"), Ok(Line::BareNumber(Pocket::DOUBLE_ZERO)));
        assert!(parse_line("hello").is_err());
        assert!(parse_line("*X;9;001; 6;0;25;1").is_err());
        assert!(parse_line("*X;5;01; 6;0;25;1").is_err());
        assert!(parse_line("*X;5;001;37;0;25;1").is_err());
        assert!(parse_line("*X;5;001; 6;16;25;1").is_err());
        assert!(parse_line("*X;5;001; 6;0;25;2").is_err());
        assert!(parse_line("*X;5;001; 6;0;25").is_err());
        assert_eq!(parse_line(&"1".repeat(300)), Err(ParseError::TooLong));
    }

    #[test]
    fn warnings_map_to_no_spin_reasons() {
        assert_eq!(no_spin_reason(0), None);
        assert_eq!(no_spin_reason(WARN_SAME_DIRECTION), Some(NoSpinReason::SameDirection));
        assert_eq!(no_spin_reason(WARN_BALL_NOT_SENSED), Some(NoSpinReason::BallNotSensed));
        assert_eq!(no_spin_reason(WARN_SENSOR_FAULT), Some(NoSpinReason::SensorFault));
        assert_eq!(no_spin_reason(WARN_VOID_GAME), Some(NoSpinReason::VoidGame));
        assert_eq!(
            no_spin_reason(WARN_VOID_GAME | WARN_SAME_DIRECTION),
            Some(NoSpinReason::SameDirection)
        );
    }

    #[test]
    fn host_commands() {
        for c in [HostCommand::Open, HostCommand::Close, HostCommand::StartNextGame] {
            assert_eq!(HostCommand::parse(c.encode()), Some(c));
        }
    }
}
