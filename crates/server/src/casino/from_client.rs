//! A client's request as the casino takes it: each [`ClientRequest`] the
//! API reads becomes the journal's [`Request`], or first needs the server
//! to hash a password off the casino's thread.

use super::journal::event::StoredLimit;
use super::request::{Request, StoredCorrection, StoredVerbalBet};
use crate::api::{ClientRequest, PlaceBet, Role};

/// A client's request as the casino takes it: ready, or one with a
/// password the server must hash first (off the casino's thread), and for a
/// change of one's own password check the old one first.
pub enum FromClient {
    Ready(Request),
    NewUser {
        username: String,
        role: Role,
        password: String,
        must_change_password: bool,
        licence: Option<String>,
    },
    ResetPassword {
        username: String,
        password: String,
    },
    ChangePassword {
        password: String,
        new_password: String,
    },
}

/// A match over a client's request: each plain request's fields copied
/// into the journal's, then the arms given for the others.
macro_rules! from_client_of {
    ({ $request:expr, $($special:tt)* } $( $group:ident { $( $(#[$vm:meta])* $name:ident { $( $(#[$fm:meta])* $field:ident : $ty:ty ),* $(,)? } ),* $(,)? } )*) => {
        match $request {
            $( $( ClientRequest::$name { $($field),* } => Request::$name { $($field),* }, )* )*
            $($special)*
        }
    };
}

impl Request {
    /// What a client's request becomes.
    pub fn from_client(request: ClientRequest) -> FromClient {
        use ClientRequest as C;
        FromClient::Ready(crate::api::plain_requests!(from_client_of! {
            request,
            C::EditUser {
                username,
                display_name,
                role,
            } => Request::EditUser {
                username,
                display_name,
                role,
            },
            C::CreateUser {
                username,
                role,
                password,
                must_change_password,
                licence,
            } => {
                return FromClient::NewUser {
                    username,
                    role,
                    password,
                    must_change_password,
                    licence,
                }
            }
            C::ResetPassword { username, password } => return FromClient::ResetPassword { username, password },
            C::ChangePassword { password, new_password } => {
                return FromClient::ChangePassword { password, new_password }
            }
            C::CreateTable {
                table,
                profile_text,
                wheel,
                in_prison,
                betting_window_ms,
                outcome,
                shared_colours,
                wheel_address,
                bonus_text,
            } => Request::CreateTable {
                table,
                profile_text,
                wheel,
                in_prison,
                betting_window_ms,
                outcome,
                shared_colours,
                wheel_address,
                bonus_text,
            },
            C::InspectBall { table, damaged } => Request::InspectBall { table, damaged },
            C::Adjust {
                table,
                replacement,
                description,
                witness,
                witness_licence,
                external,
            } => Request::Adjust {
                table,
                replacement,
                description,
                witness,
                witness_licence,
                external,
            },
            C::SetLimits { table, limits } => Request::SetLimits {
                table,
                limits: limits.into_iter().map(StoredLimit::from).collect(),
            },
            C::CloseTable {
                table,
                wheel_cover_locked,
            } => Request::CloseTable {
                table,
                wheel_cover_locked,
            },
            C::Spin { table, spin } => Request::Spin {
                table,
                spin: spin.into(),
                bonus_words: Vec::new(),
            },
            C::CashIn { id, player, amount } => Request::CashIn { id, player, amount },
            C::CashOut { id, player, amount } => Request::CashOut { id, player, amount },
            C::CountDrawer { id, amount } => Request::CountDrawer { id, amount },
            C::Tournament { tournament, order } => Request::Tournament { tournament, order },
            C::TablePlay { table, tournament } => Request::TablePlay { table, tournament },
            C::IssueCoupon {
                id,
                player,
                table,
                value,
                expires_at_ms,
            } => Request::IssueCoupon {
                id,
                player,
                table,
                value,
                expires_at_ms,
            },
            C::BuyIn {
                id,
                table,
                amount,
                chip_value,
            } => Request::BuyIn {
                id,
                table,
                amount,
                chip_value,
            },
            C::SellChips {
                id,
                table,
                player,
                amount,
                chip_value,
            } => Request::SellChips {
                id,
                table,
                player,
                amount,
                chip_value,
            },
            C::Tip { id, table, amount } => Request::Tip { id, table, amount },
            C::PlaceBet(bet) => Request::from(bet),
            C::VerbalBets { table, player, bets } => Request::VerbalBets {
                table,
                player,
                bets: bets
                    .into_iter()
                    .map(|b| StoredVerbalBet {
                        bet_id: b.bet_id,
                        spot: b.spot,
                        stake: b.stake,
                    })
                    .collect(),
            },
            C::Dispute {
                table,
                reason,
                corrections,
                round,
                id,
            } => Request::Dispute {
                table,
                reason,
                corrections: corrections.into_iter().map(StoredCorrection::from).collect(),
                round,
                id,
            },
            C::RequestFill { table, id, amount } => Request::RequestSlip {
                table,
                id,
                credit: false,
                amount,
            },
            C::RequestCredit { table, id, amount } => Request::RequestSlip {
                table,
                id,
                credit: true,
                amount,
            },
            C::CountFloat {
                table,
                id,
                when,
                amount,
            } => Request::CountFloat {
                table,
                id,
                when,
                amount,
            },
        }))
    }
}

impl From<PlaceBet> for Request {
    fn from(bet: PlaceBet) -> Request {
        let PlaceBet {
            op: _,
            table,
            bet_id,
            spot,
            stake,
            zero_choice,
            coupon,
            coupon_id,
        } = bet;
        Request::PlaceBet {
            table,
            bet_id,
            spot,
            stake,
            zero_choice,
            coupon,
            coupon_id,
        }
    }
}
