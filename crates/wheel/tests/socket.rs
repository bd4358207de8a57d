//! The emulator and the monitor talk over a real socket.

use std::io::{BufReader, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::mpsc;

use croupier_core::round::NoSpinReason;
use croupier_core::{Pocket, Wheel};
use croupier_wheel::emulator::{serve, EmulatorConfig, Scripted};
use croupier_wheel::monitor::{follow, replay_game, GameResult};
use croupier_wheel::slingshot2::{
    HostCommand, WARN_BALL_NOT_SENSED, WARN_SAME_DIRECTION, WARN_SENSOR_FAULT, WARN_VOID_GAME,
};

fn pocket(label: &str) -> Pocket {
    Pocket::parse(label).expect("pocket")
}

#[test]
fn monitor_reads_every_game_the_emulator_plays() {
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
    let address = listener.local_addr().expect("address");
    let script = vec![
        Scripted::Pocket(pocket("6")),
        Scripted::Warnings(WARN_SAME_DIRECTION),
        Scripted::Pocket(pocket("00")),
        Scripted::Warnings(WARN_BALL_NOT_SENSED),
        Scripted::Warnings(WARN_SENSOR_FAULT),
        Scripted::Warnings(WARN_VOID_GAME),
        Scripted::Pocket(pocket("0")),
    ];
    let games = 12u64;
    let config = EmulatorConfig {
        wheel: Wheel::DoubleZero,
        frame_ms: 1,
        games: Some(games),
        manual_start: false,
        script,
        seed: Some([9; 32]),
        fault_per_mille: 0,
    };
    let (played_tx, played_rx) = mpsc::channel();
    let emulator = std::thread::spawn(move || {
        serve(listener, config, |g| {
            let _ = played_tx.send(g);
        })
    });
    let stream = TcpStream::connect(address).expect("connect");
    let mut seen = Vec::new();
    follow(BufReader::new(stream), Some(games), |g| {
        // Each game's kept frames are its evidence: they give its result again.
        assert_eq!(replay_game(&g.frames), Ok(g.result), "{:?}", g.frames);
        seen.push(g.result);
        Ok(())
    })
    .expect("follow");
    emulator.join().expect("emulator thread").expect("emulator");
    let played: Vec<GameResult> = played_rx.try_iter().collect();
    assert_eq!(seen, played);
    assert_eq!(seen.len(), games as usize);
    assert_eq!(
        seen[0],
        GameResult::Pocket {
            game: 1,
            pocket: pocket("6")
        }
    );
    assert_eq!(
        seen[1],
        GameResult::NoSpin {
            game: 2,
            reason: NoSpinReason::SameDirection
        }
    );
    assert_eq!(
        seen[2],
        GameResult::Pocket {
            game: 3,
            pocket: pocket("00")
        }
    );
    assert_eq!(
        seen[3],
        GameResult::NoSpin {
            game: 4,
            reason: NoSpinReason::BallNotSensed
        }
    );
    assert_eq!(
        seen[4],
        GameResult::NoSpin {
            game: 5,
            reason: NoSpinReason::SensorFault
        }
    );
    assert_eq!(
        seen[5],
        GameResult::NoSpin {
            game: 6,
            reason: NoSpinReason::VoidGame
        }
    );
}

#[test]
fn host_commands_close_and_start_games() {
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
    let address = listener.local_addr().expect("address");
    let config = EmulatorConfig {
        wheel: Wheel::SingleZero,
        frame_ms: 1,
        games: Some(3),
        manual_start: true,
        script: vec![],
        seed: Some([1; 32]),
        fault_per_mille: 0,
    };
    let emulator = std::thread::spawn(move || serve(listener, config, |_| {}));
    let stream = TcpStream::connect(address).expect("connect");
    let mut writer = stream.try_clone().expect("clone");
    let mut seen = 0;
    follow(BufReader::new(stream), Some(3), |_| {
        seen += 1;
        // In manual mode the wheel waits for "*u 1" before each next game.
        writer.write_all(HostCommand::StartNextGame.encode().as_bytes())
    })
    .expect("follow");
    assert_eq!(seen, 3);
    emulator.join().expect("thread").expect("emulator");
}
