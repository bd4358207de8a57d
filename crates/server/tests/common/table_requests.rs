//! The requests the casino's tests send at their tables: bets, buy-ins and
//! sales of chips at any table, a ball's landing, a draw, and the tables
//! themselves.

use croupier_core::Minor;
use croupier_server::api::OutcomeSource;
use croupier_server::casino::{Request, Spin};

/// A bet of `stake` on `spot` at `table`, under the bet id `id`.
pub fn bet(table: &str, id: &str, spot: &str, stake: u64) -> Request {
    Request::PlaceBet {
        table: table.into(),
        bet_id: id.into(),
        spot: spot.into(),
        stake: Minor::new(stake),
        zero_choice: None,
        coupon: None,
        coupon_id: None,
    }
}

/// A buy-in at `table` for chips of 100 each.
pub fn buy_in_at(id: String, table: &str, amount: u64) -> Request {
    Request::BuyIn {
        id,
        table: table.into(),
        amount: Minor::new(amount),
        chip_value: Minor::new(100),
    }
}

/// A dealer's spin whose ball lands in `pocket`, thrown against the wheel
/// for six revolutions.
pub fn ball(pocket: &str) -> Spin {
    Spin::Ball {
        pocket: pocket.into(),
        direction: "opposite".into(),
        revolutions: 6,
    }
}

/// A Maryland double-zero table whose dealer enters each result.
pub fn maryland_dealer_table(id: &str) -> Request {
    Request::CreateTable {
        bonus_text: None,
        table: id.into(),
        profile_text: include_str!("../../../../profiles/maryland.toml").into(),
        wheel: "double-zero".into(),
        in_prison: false,
        betting_window_ms: 60_000,
        outcome: OutcomeSource::Dealer,
        shared_colours: false,
        wheel_address: None,
    }
}

/// A dealer's sale to `player` of `amount` in colour chips worth `chip_value` each, for cash at t1.
pub fn sale(id: &str, player: &str, amount: u64, chip_value: u64) -> Request {
    Request::SellChips {
        id: id.into(),
        table: "t1".into(),
        player: player.into(),
        amount: Minor::new(amount),
        chip_value: Minor::new(chip_value),
    }
}

/// `create_table` for `profile_text` on `wheel`, a dealer's table.
pub fn new_table(table: &str, profile_text: &str, wheel: &str, in_prison: bool) -> Request {
    Request::CreateTable {
        bonus_text: None,
        table: table.into(),
        profile_text: profile_text.into(),
        wheel: wheel.into(),
        in_prison,
        betting_window_ms: 60_000,
        outcome: OutcomeSource::Dealer,
        shared_colours: false,
        wheel_address: None,
    }
}

/// The RNG's draw of `pocket` at the double-zero table t1, with the bonus wheel's words.
pub fn rng_draw(pocket: &str, bonus_words: Vec<u32>) -> Request {
    let pockets = croupier_rng::wheel_pockets(croupier_core::Wheel::DoubleZero);
    let word = pockets
        .iter()
        .position(|p| p.label() == pocket)
        .expect("a pocket of the wheel") as u32;
    Request::Draw {
        table: "t1".into(),
        pocket: pocket.into(),
        word,
        bonus_words,
    }
}
