//! The requests every test casino sends alike: an inspection passed, cash
//! in and out at the cage, a buy-in of chips of 1.00 at t1, a dealer's spin.

use croupier_core::Minor;
use croupier_server::casino::{Request, Spin};

/// A passing pre-opening inspection (Colorado 2212(1), Maryland ch.2 A).
pub fn inspection(table: &str) -> Request {
    Request::Inspect {
        table: table.into(),
        no_magnet_or_contrivance: true,
        wheel_level_and_rotating_freely: true,
        parts_secure: true,
        ball_non_magnetic: true,
        layout_and_signage_comply: true,
    }
}

pub fn cash_in(id: &str, player: &str, amount: u64) -> Request {
    Request::CashIn {
        id: id.into(),
        player: player.into(),
        amount: Minor::new(amount),
    }
}

pub fn cash_out(id: &str, player: &str, amount: u64) -> Request {
    Request::CashOut {
        id: id.into(),
        player: player.into(),
        amount: Minor::new(amount),
    }
}

pub fn buy_in(id: &str, amount: u64) -> Request {
    Request::BuyIn {
        id: id.into(),
        table: "t1".into(),
        amount: Minor::new(amount),
        chip_value: Minor::new(100),
    }
}

pub fn spin(pocket: &str) -> Request {
    Request::Spin {
        bonus_words: Vec::new(),
        table: "t1".into(),
        spin: Spin::Ball {
            pocket: pocket.into(),
            direction: "opposite".into(),
            revolutions: 6,
        },
    }
}
