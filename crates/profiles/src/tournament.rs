//! Tournament configuration files (TOML) and the written rules made from
//! them (Colorado 2213.06-.08).
//!
//! Amounts are minor units of the casino's currency (`_minor`); days are
//! `YYYY-MM-DD` strings. A file names its profile, whose `[tournaments]`
//! section decides which clauses apply.

use std::fmt::Write as _;

use croupier_core::tournament::{EventSpec, Prize, PrizeKind, RebuyWhen, Rebuys, TournamentConfig, TournamentSpec};
use croupier_core::{Minor, Profile};
use serde::Deserialize;
use time::{Date, Month};

use crate::LoadError;

/// The example tournaments shipped with croupier, by id: a new casino tries
/// one from the tournaments page, its days moved to begin when it wants.
pub const EXAMPLE_TOURNAMENTS: &[(&str, &str)] = &[(
    "winter-classic",
    include_str!("../../../profiles/tournaments/winter-classic.toml"),
)];

/// The largest tournament file read.
pub const TOURNAMENT_FILE_SIZE_MAX_BYTES: usize = 256 * 1024;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct TournamentFile {
    id: String,
    name: String,
    profile: String,
    house: String,
    licensees: Vec<String>,
    responsible: String,
    first_day: String,
    last_day: String,
    #[serde(default)]
    escrowed_minor: u64,
    reentry: bool,
    #[serde(default)]
    qualification: Option<String>,
    #[serde(default)]
    split_permitted: bool,
    final_round: String,
    conclusion: String,
    chips: Vec<ChipFile>,
    #[serde(default)]
    house_rules: Vec<String>,
    events: Vec<EventFile>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ChipFile {
    colour: String,
    points: u64,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct EventFile {
    name: String,
    day: String,
    entry_fee_minor: u64,
    buy_in_minor: u64,
    starting_points: u64,
    #[serde(default)]
    rebuys: Option<RebuysFile>,
    prizes: Vec<PrizeFile>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RebuysFile {
    max: u32,
    amount_minor: u64,
    points: u64,
    when: String,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct PrizeFile {
    place: u32,
    #[serde(default)]
    cash_minor: Option<u64>,
    #[serde(default)]
    pool_percent: Option<u32>,
    #[serde(default)]
    non_cash: Option<String>,
    #[serde(default)]
    value_minor: Option<u64>,
    /// The name of the later event a voucher enters.
    #[serde(default)]
    voucher_for: Option<String>,
}

fn invalid(origin: &str, field: impl Into<String>, message: impl Into<String>) -> LoadError {
    LoadError::Tournament {
        origin: origin.to_string(),
        field: field.into(),
        message: message.into(),
    }
}

/// A day written `YYYY-MM-DD`.
pub fn parse_day(text: &str) -> Result<Date, String> {
    let refused = || format!("{text:?} is not a day written YYYY-MM-DD");
    let mut parts = text.split('-');
    let (Some(y), Some(m), Some(d), None) = (parts.next(), parts.next(), parts.next(), parts.next()) else {
        return Err(refused());
    };
    if y.len() != 4 || m.len() != 2 || d.len() != 2 {
        return Err(refused());
    }
    let year: i32 = y.parse().map_err(|_| refused())?;
    let month: u8 = m.parse().map_err(|_| refused())?;
    let day: u8 = d.parse().map_err(|_| refused())?;
    let month = Month::try_from(month).map_err(|_| refused())?;
    Date::from_calendar_date(year, month, day).map_err(|_| format!("{text:?} is not a day of the calendar"))
}

/// Reads a tournament file's text: its profile (loaded by `load_profile`)
/// and its configuration, checked against that profile's rules.
pub fn parse_tournament(
    text: &str,
    origin: &str,
    load_profile: impl FnOnce(&str) -> Result<Profile, LoadError>,
) -> Result<(Profile, TournamentConfig), LoadError> {
    if text.len() > TOURNAMENT_FILE_SIZE_MAX_BYTES {
        return Err(invalid(
            origin,
            "file",
            format!("is larger than the {TOURNAMENT_FILE_SIZE_MAX_BYTES} bytes a tournament file may be"),
        ));
    }
    let file: TournamentFile = toml::from_str(text).map_err(|e| LoadError::TournamentSyntax {
        origin: origin.to_string(),
        message: e.to_string(),
    })?;
    let profile = load_profile(&file.profile)?;
    let Some(rules) = profile.spec().tournaments.clone() else {
        return Err(invalid(
            origin,
            "profile",
            format!("{:?} gives no rules for tournaments", file.profile),
        ));
    };
    let spec = file.into_spec(origin)?;
    let config = TournamentConfig::new(spec, rules).map_err(|e| invalid(origin, e.field, e.message))?;
    Ok((profile, config))
}

impl TournamentFile {
    fn into_spec(self, origin: &str) -> Result<TournamentSpec, LoadError> {
        let day = |field: &str, text: &str| parse_day(text).map_err(|m| invalid(origin, field, m));
        let names: Vec<String> = self.events.iter().map(|e| e.name.clone()).collect();
        let mut events = Vec::new();
        for (i, e) in self.events.iter().enumerate() {
            let rebuys = match &e.rebuys {
                None => Rebuys {
                    max: 0,
                    amount: Minor::ZERO,
                    points: 0,
                    when: RebuyWhen::OutOfChips,
                },
                Some(r) => Rebuys {
                    max: r.max,
                    amount: Minor::new(r.amount_minor),
                    points: r.points,
                    when: RebuyWhen::parse(&r.when).ok_or_else(|| {
                        invalid(
                            origin,
                            format!("events[{i}].rebuys.when"),
                            format!("{:?} is not one of out_of_chips, between_games", r.when),
                        )
                    })?,
                },
            };
            let mut prizes = Vec::new();
            for (p, prize) in e.prizes.iter().enumerate() {
                prizes.push(prize_of(
                    origin,
                    &format!("events[{i}].prizes[{p}]"),
                    prize,
                    &names,
                    &self.events,
                )?);
            }
            events.push(EventSpec {
                name: e.name.clone(),
                day: day(&format!("events[{i}].day"), &e.day)?,
                entry_fee: Minor::new(e.entry_fee_minor),
                buy_in: Minor::new(e.buy_in_minor),
                starting_points: e.starting_points,
                rebuys,
                prizes,
            });
        }
        Ok(TournamentSpec {
            first_day: day("first_day", &self.first_day)?,
            last_day: day("last_day", &self.last_day)?,
            id: self.id,
            name: self.name,
            house: self.house,
            licensees: self.licensees,
            responsible: self.responsible,
            escrowed: Minor::new(self.escrowed_minor),
            reentry: self.reentry,
            qualification: self.qualification,
            split_permitted: self.split_permitted,
            events,
            final_round: self.final_round,
            conclusion: self.conclusion,
            chip_values: self.chips.into_iter().map(|c| (c.colour, c.points)).collect(),
            house_rules: self.house_rules,
        })
    }
}

fn prize_of(
    origin: &str,
    field: &str,
    prize: &PrizeFile,
    names: &[String],
    events: &[EventFile],
) -> Result<Prize, LoadError> {
    let kind = match (
        &prize.cash_minor,
        &prize.pool_percent,
        &prize.non_cash,
        &prize.voucher_for,
    ) {
        (Some(amount), None, None, None) if prize.value_minor.is_none() => PrizeKind::Cash {
            amount: Minor::new(*amount),
        },
        (None, Some(percent), None, None) if prize.value_minor.is_none() => PrizeKind::PoolShare { percent: *percent },
        (None, None, Some(description), None) => PrizeKind::NonCash {
            description: description.clone(),
            value: Minor::new(prize.value_minor.ok_or_else(|| {
                invalid(
                    origin,
                    format!("{field}.value_minor"),
                    "a non-cash prize has a predetermined cash value (2213.08(4))",
                )
            })?),
        },
        (None, None, None, Some(target)) => {
            let Some(index) = names.iter().position(|n| n == target) else {
                return Err(invalid(
                    origin,
                    format!("{field}.voucher_for"),
                    format!("{target:?} is not an event of this tournament (2213.05)"),
                ));
            };
            let price = events[index].entry_fee_minor.saturating_add(events[index].buy_in_minor);
            PrizeKind::Voucher {
                event: index,
                value: Minor::new(prize.value_minor.unwrap_or(price)),
            }
        }
        _ => {
            return Err(invalid(
                origin,
                field,
                "a prize is one of cash_minor, pool_percent, non_cash (with value_minor) or voucher_for",
            ))
        }
    };
    Ok(Prize {
        place: prize.place,
        kind,
    })
}

fn money(amount: u64, currency: &str) -> String {
    format!("{} {currency}", Minor::new(amount))
}

fn ordinal(n: u32) -> String {
    let suffix = match (n % 10, n % 100) {
        (1, 11) | (2, 12) | (3, 13) => "th",
        (1, _) => "st",
        (2, _) => "nd",
        (3, _) => "rd",
        _ => "th",
    };
    format!("{n}{suffix}")
}

/// A prize in the words of the written rules (2213.08(4)).
pub fn describe_prize(config: &TournamentConfig, prize: &Prize, currency: &str) -> String {
    match &prize.kind {
        PrizeKind::Cash { amount } => format!("{} in cash", money(amount.get(), currency)),
        PrizeKind::PoolShare { percent } => format!("{percent}% of the event's prize pool, in cash"),
        PrizeKind::NonCash { description, value } => {
            format!("{description} (cash value {})", money(value.get(), currency))
        }
        PrizeKind::Voucher { event, value } => {
            let name = config.event(*event).map_or("?", |e| e.name.as_str());
            format!(
                "a prize voucher entering {name:?} (value {}), for the winner only",
                money(value.get(), currency)
            )
        }
    }
}

/// The written rules of a tournament, in plain words: what 2213.07(1)-(5)
/// and 2213.08(1)-(5) require, and what croupier decides where they are silent.
pub fn written_rules(config: &TournamentConfig, profile: &Profile) -> String {
    let mut out = String::new();
    // Writing to a String cannot fail.
    let _ = write_rules(&mut out, config, profile, &profile.spec().currency);
    out
}

fn write_rules(out: &mut String, config: &TournamentConfig, profile: &Profile, currency: &str) -> std::fmt::Result {
    let spec = config.spec();
    let rules = config.rules();
    writeln!(out, "{}", spec.name)?;
    writeln!(out, "{}", "=".repeat(spec.name.chars().count()))?;
    writeln!(out)?;
    writeln!(
        out,
        "Roulette tournament {} under {}. Conducted by {}; {} is responsible for the award of all prizes and the tournament's records (2213(2)).",
        spec.id,
        profile.spec().title,
        spec.licensees.join(", "),
        spec.responsible
    )?;
    writeln!(
        out,
        "Play runs from {} to {} and the tournament concludes no later than that: within {} months of its first day (2213(1)).",
        spec.first_day, spec.last_day, rules.conclude_within_months
    )?;
    if config.escrow_required() {
        writeln!(
            out,
            "It runs past {} days, so every prize, non-cash prizes at their cash value, is in escrow before the start: {} (2213(1)).",
            rules.escrow_after_days.unwrap_or_default(),
            money(spec.escrowed.get(), currency)
        )?;
    }
    if spec.licensees.len() > 1 {
        writeln!(
            out,
            "It is conducted jointly, so it takes no entry fee: all monies collected are returned to the players as prizes (2213(2)(a))."
        )?;
    }
    writeln!(out)?;
    writeln!(out, "1. House rules (2213.08(1), 2213.06)")?;
    writeln!(
        out,
        "Except as changed by these tournament rules, tournament play shall follow the house rules of {}.",
        spec.house
    )?;
    writeln!(
        out,
        "Each game is played by the standard rules of roulette of {} (2213.06).",
        profile.spec().title
    )?;
    writeln!(out)?;
    writeln!(out, "2. Entry fee, buy-in and re-buys (2213.08(2))")?;
    for event in &spec.events {
        writeln!(
            out,
            "- {} ({}): entry fee {}, initial buy-in {}, for {} points of tournament chips.",
            event.name,
            event.day,
            money(event.entry_fee.get(), currency),
            money(event.buy_in.get(), currency),
            event.starting_points
        )?;
        let r = &event.rebuys;
        if r.max == 0 {
            writeln!(out, "  Re-buys are not permitted.")?;
        } else {
            let when = match r.when {
                RebuyWhen::OutOfChips => "once out of chips",
                RebuyWhen::BetweenGames => "between any two games",
            };
            writeln!(
                out,
                "  Re-buys are permitted {when}: at most {} per entry, each {} for {} points, on the same terms for every player (2213.07(1)).",
                r.max,
                money(r.amount.get(), currency),
                r.points
            )?;
        }
    }
    writeln!(
        out,
        "Entry fees are not part of the prize pool. All buy-ins form the prize pool and are paid out as prizes by the conclusion (2213.05)."
    )?;
    if let Some(cap) = rules.fee_and_buy_ins_max {
        writeln!(
            out,
            "A player's entry fees and buy-ins together, re-entries and re-buys included, may not exceed {} (2213.05).",
            money(cap.get(), currency)
        )?;
    }
    writeln!(
        out,
        "Fees and buy-ins may be paid in cash, with a non-cash item at its set cash value, or as a complimentary entry from the house; each is recorded at its dollar value (2213.01, 2213.05)."
    )?;
    writeln!(out)?;
    writeln!(out, "3. The final round and the conclusion (2213.08(3))")?;
    writeln!(out, "{}", spec.final_round)?;
    writeln!(out, "{}", spec.conclusion)?;
    writeln!(out)?;
    writeln!(out, "4. Prizes (2213.08(4))")?;
    for event in &spec.events {
        writeln!(out, "{}: {} prize(s).", event.name, event.prizes.len())?;
        for prize in &event.prizes {
            writeln!(
                out,
                "- {} place: {}",
                ordinal(prize.place),
                describe_prize(config, prize, currency)
            )?;
        }
    }
    writeln!(
        out,
        "Fixed prizes are paid first; shares of the pool divide the rest, rounded down to the cent. Cents left over go to the best-placed cash prize of the last event; an earlier event carries them, and the share of a place no one holds, to the next event (2213.05)."
    )?;
    writeln!(
        out,
        "Players tied on points share the cash prizes of the places they hold equally, the odd cents going in order of entry; a non-cash prize among those places goes to the tied player who entered first."
    )?;
    writeln!(
        out,
        "Players eliminated from an event place after those still playing at its end, the last out first; a player who entered again places by the later entry only. A place no one holds is not awarded."
    )?;
    if rules.vouchers_permitted {
        writeln!(
            out,
            "A prize voucher may be used only by the player who won it, to pay the entry fee and buy-in of the event it names; it does not pay a re-buy. A voucher for an event with no fee or buy-in adds its value to that event's prize pool. A voucher still unused at the conclusion is paid to its holder in cash (2213.05)."
        )?;
    }
    writeln!(out)?;
    writeln!(out, "5. Conduct of the tournament (2213.07)")?;
    writeln!(
        out,
        "(1) Every player receives the same number of tournament chips for the entry fee and initial buy-in at the start of each event, and every player has the same opportunity to buy more."
    )?;
    writeln!(
        out,
        "(2) A player who loses all their chips and does not, or may not, buy more is eliminated."
    )?;
    if spec.split_permitted {
        writeln!(
            out,
            "(3) The remaining players may agree among themselves to split the cash prizes without playing to the end. No agreement divides a non-cash prize: non-cash prizes go by the standings when the director confirms the agreement. The agreement must be voluntary and unanimous; the tournament director does not encourage it, and refuses it if any player appears pressed into it. Each recipient is recorded with the prize actually awarded."
        )?;
    } else {
        writeln!(
            out,
            "(3) Players may not agree to split the prizes: the tournament is played to its end."
        )?;
    }
    writeln!(
        out,
        "(4) No player may let anyone sit in on their behalf, and no player may wager for another."
    )?;
    writeln!(
        out,
        "(5) Only tournament chips on the table at the start of a game play in it: chips are bought between games. Concealed chips may not be used."
    )?;
    writeln!(out)?;
    writeln!(out, "6. Entries (2213(2)(c), 2213.04)")?;
    writeln!(
        out,
        "No player holds more than one active entry at a time. A player found with two or more is disqualified and receives no prize."
    )?;
    if spec.reentry {
        writeln!(
            out,
            "A player eliminated from an event may enter it again, as a new and separate entry, paying again."
        )?;
    } else {
        writeln!(out, "A player eliminated from an event may not enter it again.")?;
    }
    match &spec.qualification {
        Some(q) => writeln!(out, "To play, a player must: {q}")?,
        None => writeln!(out, "Every player may enter.")?,
    }
    writeln!(out)?;
    writeln!(out, "7. Tournament chips (2214)")?;
    writeln!(
        out,
        "Wagers are made only with approved tournament chips provided by the house; currency and coins are exchanged for them before play, and no currency, coins, other chips or thing of value may be wagered (2214(1)). They are points, not money: they have no cash value, are never redeemed or exchanged for anything of value, are never mixed with cash chips, and no limit applies to the size of a wager. Points decide the winners and places."
    )?;
    let values: Vec<String> = spec
        .chip_values
        .iter()
        .map(|(colour, points)| format!("{colour} = {points} points"))
        .collect();
    writeln!(
        out,
        "Chip values at the start: {}. Values may change between rounds; the table always shows the current ones.",
        values.join(", ")
    )?;
    if !spec.house_rules.is_empty() {
        writeln!(out)?;
        writeln!(out, "8. Further house rules (2213.08(5))")?;
        for rule in &spec.house_rules {
            writeln!(out, "- {rule}")?;
        }
    }
    if let Some(days) = rules.rules_filed_days_before {
        writeln!(out)?;
        writeln!(
            out,
            "These rules are given to every player, and reach the Division of Gaming at least {days} days before the start (2213.06)."
        )?;
    }
    Ok(())
}

/// A CSV field of text, quoted when it must be (RFC 4180). A text a
/// spreadsheet would take for a formula (`=`, `+`, `-`, `@`, a tab or a
/// carriage return first) is kept as text by a leading `'`. The tournament
/// forms and the server's day report both write their text cells with it.
pub fn csv_field(text: &str) -> String {
    let text = if text.starts_with(['=', '+', '-', '@', '\t', '\r']) {
        format!("'{text}")
    } else {
        text.to_string()
    };
    if text.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", text.replace('"', "\"\""))
    } else {
        text
    }
}

/// A tournament's forms as CSV, one after another, each under a line
/// naming it: the tournament form (2213.01), the prize payout form
/// (2213.02), adjusted gross proceeds by month (2213.01) and the prize
/// pool's account (2213.05).
pub fn forms_csv(t: &croupier_core::tournament::Tournament) -> String {
    let mut out = String::new();
    // Writing to a String cannot fail.
    let _ = write_forms_csv(&mut out, t);
    out
}

fn write_forms_csv(out: &mut String, t: &croupier_core::tournament::Tournament) -> std::fmt::Result {
    writeln!(out, "# tournament form (2213.01)")?;
    writeln!(
        out,
        "entry,player,event,day,status,fee_paid,fee_minor,buy_in_paid,buy_in_minor,rebuys,rebuys_minor,note"
    )?;
    for e in t.entry_form() {
        writeln!(
            out,
            "{},{},{},{},{},{},{},{},{},{},{},{}",
            e.entry,
            csv_field(&e.player),
            csv_field(&e.event),
            e.day,
            e.status,
            e.fee_paid,
            e.fee_minor,
            e.buy_in_paid,
            e.buy_in_minor,
            e.rebuys,
            e.rebuys_minor,
            csv_field(&e.note)
        )?;
    }
    writeln!(out, "# prize payout form (2213.02)")?;
    writeln!(out, "event,place,entry,player,prize,value_minor,payout,by_split")?;
    for p in t.payout_form() {
        writeln!(
            out,
            "{},{},{},{},{},{},{},{}",
            csv_field(&p.event),
            p.place,
            p.entry,
            csv_field(&p.player),
            csv_field(&p.prize),
            p.value_minor,
            p.payout,
            p.by_split
        )?;
    }
    writeln!(out, "# adjusted gross proceeds by month (2213.01)")?;
    writeln!(out, "month,proceeds_minor")?;
    for (month, proceeds) in t.proceeds_by_month() {
        writeln!(out, "{month},{proceeds}")?;
    }
    writeln!(out, "# prize pool account (2213.05)")?;
    writeln!(out, "what,amount_minor,balance_minor")?;
    for l in t.pool_account() {
        writeln!(out, "{},{},{}", csv_field(&l.what), l.amount_minor, l.balance_minor)?;
    }
    Ok(())
}
