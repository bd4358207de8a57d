//! A wheel emulator speaking SlingShot 2, for tests and demonstrations.

use std::io::{BufRead, BufReader, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::mpsc;
use std::time::Duration;

use croupier_core::{Pocket, Wheel};
use croupier_rng::{wheel_pockets, CasinoRng};

use crate::monitor::GameResult;
use crate::slingshot2::{encode_frame, no_spin_reason, pocket_text, Frame, HostCommand, WheelState};

/// The shortest and longest frame interval, in milliseconds.
pub const FRAME_MIN_MS: u64 = 1;
pub const FRAME_MAX_MS: u64 = 5_000;

/// A scripted game: a pocket, or warning flags that make it a no spin.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scripted {
    Pocket(Pocket),
    Warnings(u8),
}

#[derive(Clone, Debug)]
pub struct EmulatorConfig {
    pub wheel: Wheel,
    /// The real wheel sends a frame every 500 ms.
    pub frame_ms: u64,
    /// Stop after this many games.
    pub games: Option<u64>,
    /// Wait for `*u 1` before each next game.
    pub manual_start: bool,
    /// Played in order, then outcomes come from the generator.
    pub script: Vec<Scripted>,
    /// A fixed seed for reproducible outcomes; the OS otherwise.
    pub seed: Option<[u8; 32]>,
    /// Chance per thousand games of a fault (a random warning flag).
    pub fault_per_mille: u16,
}

/// Frames of each state in one game.
const FRAMES: [(WheelState, u32); 4] = [
    (WheelState::GameStart, 2),
    (WheelState::RotorTurning, 2),
    (WheelState::BallInTrack, 3),
    (WheelState::NoMoreBets, 2),
];
const RESULT_FRAMES: u32 = 3;

struct Wheelhouse {
    config: EmulatorConfig,
    rng: CasinoRng,
    pockets: Vec<Pocket>,
    game: u16,
    played: u64,
    last: Option<Pocket>,
    open: bool,
}

impl Wheelhouse {
    fn outcome(&mut self) -> std::io::Result<Scripted> {
        let io = |e: croupier_rng::RngError| std::io::Error::other(e.to_string());
        if let Some(s) = self.config.script.get(self.played as usize) {
            return Ok(*s);
        }
        let roll = self.rng.try_word().map_err(io)? % 1000;
        if roll < u32::from(self.config.fault_per_mille) {
            let flag = 1u8 << (self.rng.try_word().map_err(io)? % 4);
            return Ok(Scripted::Warnings(flag));
        }
        self.rng.pocket(&self.pockets).map(Scripted::Pocket).map_err(io)
    }

    fn frame(&self, state: WheelState, warnings: u8) -> String {
        encode_frame(&Frame {
            state,
            game: self.game,
            last: self.last,
            warnings,
            speed: "25".to_string(),
            direction: (self.game % 2) as u8,
        })
    }

    fn done(&self) -> bool {
        self.config.games.is_some_and(|n| self.played >= n)
    }
}

/// Serves connections one after another until the configured games are played.
/// `on_game` hears every finished game.
pub fn serve(
    listener: TcpListener,
    config: EmulatorConfig,
    mut on_game: impl FnMut(GameResult),
) -> std::io::Result<()> {
    let rng = match config.seed {
        Some(seed) => CasinoRng::from_seed(seed),
        None => CasinoRng::from_os().map_err(|e| std::io::Error::other(e.to_string()))?,
    };
    let mut house = Wheelhouse {
        pockets: wheel_pockets(config.wheel),
        config: EmulatorConfig {
            frame_ms: config.frame_ms.clamp(FRAME_MIN_MS, FRAME_MAX_MS),
            ..config
        },
        rng,
        game: 0,
        played: 0,
        last: None,
        open: true,
    };
    while !house.done() {
        let (stream, _) = listener.accept()?;
        // A client that goes away ends its session, not the emulator.
        let _ = session(stream, &mut house, &mut on_game);
    }
    Ok(())
}

fn session(stream: TcpStream, house: &mut Wheelhouse, on_game: &mut impl FnMut(GameResult)) -> std::io::Result<()> {
    stream.set_nodelay(true)?;
    let (tx, rx) = mpsc::channel();
    let reader = stream.try_clone()?;
    std::thread::spawn(move || {
        let mut lines = BufReader::new(reader);
        let mut line = String::new();
        while lines.read_line(&mut line).is_ok_and(|n| n > 0) {
            if let Some(command) = HostCommand::parse(&line) {
                if tx.send(command).is_err() {
                    break;
                }
            }
            line.clear();
        }
    });
    let mut out = stream;
    let frame = Duration::from_millis(house.config.frame_ms);
    let mut send = |text: &str| -> std::io::Result<()> {
        out.write_all(text.as_bytes())?;
        std::thread::sleep(frame);
        Ok(())
    };
    let mut start_requested = false;
    while !house.done() {
        for command in rx.try_iter() {
            match command {
                HostCommand::Open => house.open = true,
                HostCommand::Close => house.open = false,
                HostCommand::StartNextGame => start_requested = true,
            }
        }
        if !house.open {
            send(&house.frame(WheelState::TableClosed, 0))?;
            continue;
        }
        if house.config.manual_start && house.played > 0 && !start_requested {
            send(&house.frame(WheelState::WinningNumber, 0))?;
            continue;
        }
        start_requested = false;
        house.game = (house.game + 1) % 1000;
        let outcome = house.outcome()?;
        let warnings = match outcome {
            Scripted::Warnings(w) => w,
            Scripted::Pocket(_) => 0,
        };
        for (state, count) in FRAMES {
            for _ in 0..count {
                // A fault shows from the moment the ball is in the track.
                let shown = if state as u8 >= WheelState::BallInTrack as u8 {
                    warnings
                } else {
                    0
                };
                send(&house.frame(state, shown))?;
            }
        }
        let result = match outcome {
            Scripted::Pocket(pocket) => {
                house.last = Some(pocket);
                send(&format!("{}\r\n", pocket_text(Some(pocket))))?;
                GameResult::Pocket {
                    game: house.game,
                    pocket,
                }
            }
            Scripted::Warnings(w) => GameResult::NoSpin {
                game: house.game,
                reason: no_spin_reason(w).unwrap_or(croupier_core::round::NoSpinReason::VoidGame),
            },
        };
        // The game is finished at its first state-5 frame; the repeats that
        // follow are what a monitor must debounce.
        send(&house.frame(WheelState::WinningNumber, warnings))?;
        house.played += 1;
        on_game(result);
        for _ in 1..RESULT_FRAMES {
            send(&house.frame(WheelState::WinningNumber, warnings))?;
        }
    }
    Ok(())
}
