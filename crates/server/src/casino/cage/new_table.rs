//! A new table: its id, profile, wheel and outcome source checked, and
//! from journal format 6 the rules of a table's configuration that the
//! core cannot see alone (the casino's one currency, In Prison where the
//! posted notice allows it, a half that goes to the player whole).

use croupier_core::profile::{EvenMoneyOnZero, Profile};
use croupier_core::round::{Readings, Table, TableConfig};
use croupier_core::{HalfRounding, Wheel};
use croupier_ledger::{Account, Storage};

use super::{Cage, Effect};
use crate::api::{ApiError, ErrorCode, OutcomeSource};
use crate::casino::directory::Directory;
use crate::casino::journal::{
    require_format, JournalEvent, FORMAT_BONUS_TABLES, FORMAT_COMPLETE_IN_A_DOZEN, FORMAT_IN_PRISON_ON_ZERO,
    FORMAT_UNDER_MINIMUM_ONCE,
};
use crate::casino::request::Request;
use crate::casino::table::TableSlot;
use crate::casino::{err, policy};

/// The most tables a casino runs.
pub const TABLES_MAX: usize = 256;
/// Words that begin ledger ids of their own (`tip/ID`, `sale/ID`, `fill/T/N`...): a
/// table's ids begin with the table's id, so no table takes one of these.
pub const RESERVED_TABLE_IDS: [&str; 7] = ["buyin", "sale", "leave", "tip", "cashin", "cashout", "fill"];

impl<S: Storage> Cage<S> {
    /// `create_table`'s events and effects, or why it is refused.
    pub(super) fn plan_new_table(
        &self,
        dir: &Directory,
        request: &Request,
        events: &mut Vec<JournalEvent>,
        effects: &mut Vec<Effect>,
    ) -> Result<(), ApiError> {
        let Request::CreateTable {
            table,
            profile_text,
            wheel,
            in_prison,
            betting_window_ms,
            outcome,
            shared_colours,
            wheel_address,
            bonus_text,
        } = request
        else {
            return Err(err(ErrorCode::Internal, "not a new table"));
        };
        match (outcome, wheel_address) {
            (OutcomeSource::Wheel, None) => {
                return Err(err(
                    ErrorCode::BadTable,
                    "a wheel table needs the wheel's address (wheel_address)",
                ))
            }
            (OutcomeSource::Rng | OutcomeSource::Dealer, Some(_)) => {
                return Err(err(ErrorCode::BadTable, "only a wheel table has a wheel_address"))
            }
            (_, Some(a)) if a.parse::<std::net::SocketAddr>().is_err() => {
                return Err(err(ErrorCode::BadTable, format!("wheel_address {a:?} is not IP:PORT")))
            }
            _ => {}
        }
        let starts_plainly = table.starts_with(|c: char| c.is_ascii_alphanumeric());
        if Account::of_table(croupier_ledger::TableAccount::Float, table).is_err()
            || table.len() > 32
            || !starts_plainly
        {
            return Err(err(
                ErrorCode::BadTable,
                "a table id is 1 to 32 of a-z, A-Z, 0-9, '-', '_', '.', beginning with a letter or digit",
            ));
        }
        if RESERVED_TABLE_IDS.contains(&table.as_str()) {
            return Err(err(
                ErrorCode::BadTable,
                format!("{table:?} names a kind of transfer in the ledger; choose another table id"),
            ));
        }
        if self.tables.contains_key(table) {
            return Err(err(ErrorCode::Exists, format!("table {table:?} exists")));
        }
        if self.tables.len() >= TABLES_MAX {
            return Err(err(ErrorCode::Full, "no more tables"));
        }
        let profile =
            croupier_profiles::parse(profile_text, table).map_err(|e| err(ErrorCode::BadProfile, e.to_string()))?;
        // Colorado 2206(5): disputes are decided by a role that supervises the game.
        if dir.rules().disputes_bound {
            policy::dispute_deciders(&profile.spec().dispute_authority, dir.journal_format()).map_err(|why| {
                err(
                    ErrorCode::BadProfile,
                    format!("profile {table}: dispute_authority: {why}"),
                )
            })?;
        }
        // european-casino 5.5: chips' face value is confirmed by a supervisor.
        if let Some(rule) = profile.spec().chips_past_day.as_ref() {
            for title in &rule.confirmed_by {
                policy::dispute_deciders(title, dir.journal_format()).map_err(|why| {
                    err(
                        ErrorCode::BadProfile,
                        format!("profile {table}: chips.past_gaming_day_confirmed_by: {why}"),
                    )
                })?;
            }
        }
        let wheel = Wheel::parse(wheel).ok_or_else(|| err(ErrorCode::BadWheel, format!("{wheel:?} is not a wheel")))?;
        if dir.rules().table_rules {
            table_rules(&profile, wheel, *in_prison, self.currency.as_deref())?;
        }
        // Maryland ch.1 F: "a double zero Roulette wheel and double zero table
        // layout may be used as a single zero" one, the 00 area covered.
        if dir.rules().covered_felt
            && wheel == Wheel::DoubleZeroAsSingleZero
            && profile.jurisdiction().double_zero_layout_covered
        {
            return Err(err(
                ErrorCode::BadWheel,
                format!(
                    "{} uses a double-zero wheel as single zero only on the double-zero layout with 00 covered \
                     (Maryland ch.1 F): choose wheel {:?}",
                    profile.jurisdiction().title,
                    Wheel::DoubleZeroCovered.name()
                ),
            ));
        }
        let profile_name = profile.name().to_string();
        let core = Table::new(
            profile,
            TableConfig {
                wheel,
                in_prison: *in_prison,
                betting_window_ms: *betting_window_ms,
            },
        )
        .map_err(|e| err(ErrorCode::BadTable, e.to_string()))?;
        let mut core = core;
        core.set_readings(readings(dir.journal_format()));
        let core = match bonus_text {
            Some(text) => {
                require_format(dir.journal_format(), FORMAT_BONUS_TABLES, "bonus tables are")?;
                // The dealer sees the round's targets or lucky numbers before the
                // spin: at a table whose pocket they keyed, they could key one.
                if *outcome == OutcomeSource::Dealer {
                    return Err(err(
                        ErrorCode::BadTable,
                        "a bonus table's results come from the RNG or an automated wheel: the dealer, who sees \
                         the round's bonus numbers before the spin, does not key its pocket",
                    ));
                }
                let core = with_bonus(core, text, table)?;
                // Maryland ch.3 F(16): "prior to each wheel spin, an electronic RNG
                // will be used to select 1, 2, or 3 target numbers". A wheel tells
                // the table betting is closed as it launches its ball, too late.
                if core.bsx().is_some() && *outcome == OutcomeSource::Wheel && dir.rules().bsx_not_at_wheel {
                    return Err(err(
                        ErrorCode::BadTable,
                        "a Bonus Spin Xtreme table's targets are drawn \"prior to each wheel spin\" (Maryland ch.3 \
                         F(16)); an automated wheel says betting is closed as it launches its ball, after the spin \
                         has begun: its results come from the RNG (outcome \"rng\")",
                    ));
                }
                core
            }
            None => core,
        };
        events.push(JournalEvent::TableCreated {
            table: table.clone(),
            profile: profile_name.clone(),
            wheel: wheel.name().to_string(),
            outcome: *outcome,
        });
        effects.push(Effect::AddTable(Box::new(TableSlot::new(
            table,
            core,
            *outcome,
            profile_name,
            *shared_colours,
            wheel_address.clone(),
        )?)));
        Ok(())
    }
}

/// The readings of the rule documents a table made in a journal of
/// `format` follows: a table keeps those of its journal's format.
fn readings(format: u32) -> Readings {
    Readings {
        under_minimum_once: format >= FORMAT_UNDER_MINIMUM_ONCE,
        in_prison_on_zero_only: format >= FORMAT_IN_PRISON_ON_ZERO,
        complete_within_a_dozen: format >= FORMAT_COMPLETE_IN_A_DOZEN,
    }
}

/// The table with the bonus its configuration text gives, where its
/// document permits that bonus (Maryland ch.3 F(16)-(18)).
fn with_bonus(core: Table, text: &str, table: &str) -> Result<Table, ApiError> {
    let bonus = croupier_profiles::bonus::parse(text, table).map_err(|e| err(ErrorCode::BadProfile, e.to_string()))?;
    let permitted = &core.profile().jurisdiction().bonuses;
    if !permitted.iter().any(|k| k == bonus.kind()) {
        return Err(err(
            ErrorCode::NotOffered,
            format!(
                "{} permits no {} (it permits {})",
                core.profile().jurisdiction().title,
                bonus.kind(),
                if permitted.is_empty() {
                    "no bonus".to_string()
                } else {
                    permitted.join(", ")
                }
            ),
        ));
    }
    core.with_bonus(bonus).map_err(|why| err(ErrorCode::BadWheel, why))
}

/// The rules a table's configuration keeps from journal format 6.
fn table_rules(profile: &Profile, wheel: Wheel, in_prison: bool, currency: Option<&str>) -> Result<(), ApiError> {
    let spec = profile.spec();
    // One casino, one currency: a player's wallet serves every table, so a
    // table in another currency would turn dollars into euros one to one.
    if let Some(currency) = currency.filter(|c| *c != spec.currency) {
        return Err(err(
            ErrorCode::BadTable,
            format!(
                "this casino plays in {currency} (its first table's currency); profile {} is in {}: \
                 one wallet never serves two currencies",
                profile.name(),
                spec.currency
            ),
        ));
    }
    // Colorado 2210(2)(c)(ii)(C), Maryland ch.1 F(2)(c) and ch.5 C(3): on a
    // double-zero wheel used as single zero the posted notice says even-money
    // wagers are lost on 0, so In Prison cannot be offered there.
    if in_prison && wheel.used_as_single_zero() {
        return Err(err(
            ErrorCode::BadTable,
            "In Prison is not offered on a double-zero wheel used as single zero: its notice says \
             even-money wagers are lost on 0 (Colorado 2210(2)(c)(ii)(C), Maryland ch.5 C(3))",
        ));
    }
    // Colorado 2204(2): the player "may take back half of the bet". Half of
    // an odd number of cents, rounded down, keeps a cent the rule gives the
    // player: where a half can go back, it is rounded up.
    let half_goes_back = in_prison || spec.zero.even_money_on_zero == EvenMoneyOnZero::HalfBack;
    if half_goes_back && spec.zero.half_rounding == HalfRounding::Down {
        return Err(err(
            ErrorCode::BadProfile,
            format!(
                "profile {}: zero_rules.half_rounding is \"down\", which keeps the odd cent of a half \
                 the player takes back (Colorado 2204(2)); use \"up\" at a table where a half goes back",
                profile.name()
            ),
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use crate::casino::RESERVED_TABLE_IDS;

    /// The ledger remembers a table's transfers for its newest rounds only
    /// (`{table}/{round}/...`); an id that begins with a word no table takes
    /// is never a round's, so a client's cash or buy-in id is kept for good.
    #[test]
    fn every_word_no_table_takes_is_a_kind_the_ledger_keeps_for_good() {
        for word in RESERVED_TABLE_IDS {
            assert!(croupier_ledger::KINDS.contains(&word), "{word}");
            assert_eq!(croupier_ledger::round_of(&format!("{word}/1/x")), None, "{word}");
        }
    }
}
