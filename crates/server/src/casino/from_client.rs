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

impl Request {
    /// What a client's request becomes.
    pub fn from_client(request: ClientRequest) -> FromClient {
        use ClientRequest as C;
        FromClient::Ready(match request {
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
            C::SetLicence { username, licence } => Request::SetLicence { username, licence },
            C::NameOperator { name } => Request::NameOperator { name },
            C::SetGamingDay { time_zone, starts_at } => Request::SetGamingDay { time_zone, starts_at },
            C::ResetPassword { username, password } => return FromClient::ResetPassword { username, password },
            C::ChangePassword { password, new_password } => {
                return FromClient::ChangePassword { password, new_password }
            }
            C::LockUser { username } => Request::LockUser { username },
            C::UnlockUser { username } => Request::UnlockUser { username },
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
            C::Inspect {
                table,
                no_magnet_or_contrivance,
                wheel_level_and_rotating_freely,
                parts_secure,
                ball_non_magnetic,
                layout_and_signage_comply,
            } => Request::Inspect {
                table,
                no_magnet_or_contrivance,
                wheel_level_and_rotating_freely,
                parts_secure,
                ball_non_magnetic,
                layout_and_signage_comply,
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
            C::WitnessAdjustment { table, adjustment } => Request::WitnessAdjustment { table, adjustment },
            C::WithdrawAdjustment {
                table,
                adjustment,
                reason,
            } => Request::WithdrawAdjustment {
                table,
                adjustment,
                reason,
            },
            C::SetLimits { table, limits } => Request::SetLimits {
                table,
                limits: limits.into_iter().map(StoredLimit::from).collect(),
            },
            C::OpenTable { table } => Request::OpenTable { table },
            C::CloseTable {
                table,
                wheel_cover_locked,
            } => Request::CloseTable {
                table,
                wheel_cover_locked,
            },
            C::OpenBetting { table } => Request::OpenBetting { table },
            C::NoMoreBets { table } => Request::NoMoreBets { table },
            C::Spin { table, spin } => Request::Spin {
                table,
                spin: spin.into(),
                bonus_words: Vec::new(),
            },
            C::BonusWager { table, wager_id } => Request::BonusWager { table, wager_id },
            C::CashIn { id, player, amount } => Request::CashIn { id, player, amount },
            C::CashOut { id, player, amount } => Request::CashOut { id, player, amount },
            C::CountDrawer { id, amount } => Request::CountDrawer { id, amount },
            C::VoidCageTransaction {
                id,
                transaction,
                reason,
            } => Request::VoidCageTransaction {
                id,
                transaction,
                reason,
            },
            C::CreateTournament { config } => Request::CreateTournament { config },
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
            C::LeaveTable { id, table } => Request::LeaveTable { id, table },
            C::ConfirmChips { table, player } => Request::ConfirmChips { table, player },
            C::ChipsTakenAway { table, player } => Request::ChipsTakenAway { table, player },
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
            C::CancelBet { table, bet_id } => Request::CancelBet { table, bet_id },
            C::DeclareEmergency { table, reason } => Request::DeclareEmergency { table, reason },
            C::LiftEmergency { table } => Request::LiftEmergency { table },
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
            C::AnnulBets { table, bet_ids, reason } => Request::AnnulBets { table, bet_ids, reason },
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
            C::SignSlip { table, id } => Request::SignSlip { table, id },
            C::VoidSlip { table, id, reason } => Request::VoidSlip { table, id, reason },
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
        })
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
