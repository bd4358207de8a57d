//! A wheel table follows its automated wheel: betting closes when the
//! wheel's ball is launched or it calls no more bets, every finished game
//! settles the round on the wheel's result (or its no spin), and betting
//! opens for the next game. A thread of its own per wheel, which keeps
//! reconnecting; the first game after the table opens only opens betting.

use croupier_wheel::monitor::{GameResult, WheelEvent};

use super::Floor;
use crate::api::EventView;
use crate::casino::{Actor, Request};

/// Seconds between attempts to reach an automated wheel.
pub const WHEEL_RETRY_SECONDS: u64 = 2;

/// Starts following `table`'s wheel at `address`.
pub fn follow(floor: Floor, table: String, address: String) {
    let name = table.clone();
    let spawned = std::thread::Builder::new()
        .name(format!("wheel-{name}"))
        .spawn(move || loop {
            floor.update_wheel(&table, |w| address.clone_into(&mut w.address));
            match std::net::TcpStream::connect(&address) {
                Ok(stream) => {
                    floor.update_wheel(&table, |w| {
                        w.connected = true;
                        w.last_error = None;
                    });
                    let _ = stream.set_read_timeout(Some(std::time::Duration::from_secs(30)));
                    let reader = std::io::BufReader::new(stream);
                    let ended = croupier_wheel::monitor::follow_events(reader, None, |event| {
                        floor.runtime.clone().block_on(heard(&floor, &table, event));
                        Ok(())
                    });
                    floor.update_wheel(&table, |w| {
                        w.connected = false;
                        w.last_error = Some(match ended {
                            Ok(_) => "the wheel closed the connection".to_string(),
                            Err(e) => e.to_string(),
                        });
                    });
                }
                Err(e) => {
                    tracing::warn!(table, address, "cannot reach the wheel: {e}; retrying");
                    floor.update_wheel(&table, |w| {
                        w.connected = false;
                        w.last_error = Some(e.to_string());
                    });
                }
            }
            std::thread::sleep(std::time::Duration::from_secs(WHEEL_RETRY_SECONDS));
        });
    if let Err(e) = spawned {
        tracing::error!(table = name, "cannot follow the wheel: {e}");
    }
}

/// What the wheel said: betting closes the moment its ball is launched (a
/// bet the table takes after that is past posting, refused), and a
/// finished game is played.
async fn heard(floor: &Floor, table: &str, event: WheelEvent) {
    match event {
        WheelEvent::BettingClosed { game } => {
            let closed = floor
                .execute(
                    Actor::system(),
                    Request::NoMoreBets {
                        table: table.to_string(),
                    },
                )
                .await;
            if closed.is_ok() {
                tracing::debug!(table, game, "the wheel's ball is launched: no more bets");
            }
        }
        WheelEvent::Finished(game) => play(floor, table, game).await,
    }
}

/// One finished game of the wheel: no more bets (if the launch was not
/// seen), the game with its frames (the table reads its result from them),
/// and betting for the next game.
async fn play(floor: &Floor, table: &str, finished: croupier_wheel::monitor::FinishedGame) {
    let (game, result) = match finished.result {
        GameResult::Pocket { game, pocket } => (game, pocket.label().to_string()),
        GameResult::NoSpin { game, reason } => (game, format!("no spin: {}", reason.name())),
    };
    floor.update_wheel(table, |w| {
        w.games += 1;
        w.last_result = Some(result);
    });
    let system = Actor::system();
    let t = || table.to_string();
    // Each step may not apply (no round yet, table closed): that is fine.
    let _ = floor.execute(system.clone(), Request::NoMoreBets { table: t() }).await;
    let spun = floor
        .execute(
            system.clone(),
            Request::WheelGame {
                table: t(),
                game,
                frames: finished.frames,
                bonus_words: Vec::new(),
            },
        )
        .await;
    let settled = match &spun {
        Ok(events) => events.iter().any(|e| matches!(e, EventView::RoundSettled { .. })),
        Err(e) => {
            tracing::warn!(table, game, "the wheel's game was not taken: {}", e.message);
            true
        }
    };
    if settled {
        let _ = floor.execute(system, Request::OpenBetting { table: t() }).await;
    }
}
