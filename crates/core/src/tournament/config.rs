//! A tournament's configuration and the checks it passes when it is created.
//!
//! Every refusal names the field at fault and the clause it breaks. Which
//! clauses apply is the profile's [`TournamentRules`]: the Colorado texts of
//! 2013 and 2014 differ (escrow in one, the $100,000 cap, the five days'
//! notice, vouchers and splits in the other).

use time::{Date, Duration, Month};

use crate::money::Minor;

/// The most events a tournament runs.
pub const EVENTS_MAX: usize = 32;
/// The most prizes one event awards.
pub const PRIZES_MAX: usize = 64;
/// The most re-buys an event may allow one entry.
pub const REBUYS_MAX: u32 = 100;
/// The most licensees that may conduct one tournament together.
pub const LICENSEES_MAX: usize = 8;
/// The most chip colours a tournament's table notice lists (2214(2)).
pub const CHIP_COLOURS_MAX: usize = 16;
/// The longest text in a configuration: a name, a prize, a house rule.
pub const TEXT_MAX_BYTES: usize = 2_000;
/// No amount of a tournament (a fee, a buy-in, a prize) may be larger.
pub const AMOUNT_MAX_MINOR: u64 = 10_000_000_000;
/// The most points an entry may start an event with, or get by a re-buy.
pub const POINTS_MAX: u64 = 1_000_000_000;
/// The longest tournament id: its ledger accounts are named after it.
const ID_MAX_BYTES: usize = 32;

/// What a profile's rule document says of tournaments.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct TournamentRules {
    /// A tournament concludes no later than this many months after its
    /// first day of play (2213(1)).
    pub conclude_within_months: u32,
    /// Prizes are escrowed before the start when the tournament runs past
    /// this many days (2213(1) as amended to 7/1/13).
    pub escrow_after_days: Option<u32>,
    /// An entry's fee and every buy-in it may make together at most this
    /// (2213.05 as amended to 7/15/14).
    pub fee_and_buy_ins_max: Option<Minor>,
    /// The written rules reach the Division at least this many days before
    /// the start (2213.06 as amended to 7/15/14).
    pub rules_filed_days_before: Option<u32>,
    /// The licensee may let the remaining players split the cash prizes
    /// (2213.07(3) as amended to 7/15/14).
    pub split_permitted: bool,
    /// Prize vouchers for later events may be awarded (2213.05 as amended to 7/15/14).
    pub vouchers_permitted: bool,
}

/// When an entry may buy more chips.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum RebuyWhen {
    /// Only once out of chips.
    OutOfChips,
    /// Between any two games of the event.
    BetweenGames,
}

impl RebuyWhen {
    pub fn name(self) -> &'static str {
        match self {
            RebuyWhen::OutOfChips => "out_of_chips",
            RebuyWhen::BetweenGames => "between_games",
        }
    }

    pub fn parse(text: &str) -> Option<RebuyWhen> {
        [RebuyWhen::OutOfChips, RebuyWhen::BetweenGames]
            .into_iter()
            .find(|w| w.name() == text)
    }
}

/// An event's re-buys (2213.08(2)): none when `max` is 0.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Rebuys {
    pub max: u32,
    pub amount: Minor,
    pub points: u64,
    pub when: RebuyWhen,
}

/// What one place of an event wins (2213.08(4)).
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum PrizeKind {
    /// A fixed amount of cash.
    Cash { amount: Minor },
    /// A share of the event's prize pool, in whole per cent.
    PoolShare { percent: u32 },
    /// Merchandise or another non-cash prize, at its predetermined cash value.
    NonCash { description: String, value: Minor },
    /// Entry to a later event of the same tournament (2213.05). `value` is
    /// that event's entry fee and buy-in; for an event with neither, the
    /// configured value goes to the pool as a buy-in when the voucher is used.
    Voucher { event: usize, value: Minor },
}

#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Prize {
    pub place: u32,
    pub kind: PrizeKind,
}

impl Prize {
    /// Whether the prize is cash (fixed or a share of the pool).
    pub fn is_cash(&self) -> bool {
        matches!(self.kind, PrizeKind::Cash { .. } | PrizeKind::PoolShare { .. })
    }
}

/// One event of a tournament: a single event, or one of a series.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct EventSpec {
    pub name: String,
    pub day: Date,
    pub entry_fee: Minor,
    pub buy_in: Minor,
    /// The chips every entry starts the event with (2213.07(1)), in points.
    pub starting_points: u64,
    pub rebuys: Rebuys,
    pub prizes: Vec<Prize>,
}

/// A tournament as configured, before its checks.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct TournamentSpec {
    pub id: String,
    pub name: String,
    /// The casino whose house rules play follows (2213.08(1)).
    pub house: String,
    /// The licensees conducting it (2213(2)).
    pub licensees: Vec<String>,
    /// The one of them responsible for the prizes and the accounting (2213(2)(b)).
    pub responsible: String,
    pub first_day: Date,
    pub last_day: Date,
    /// What was placed in escrow for the prizes before the start (2213(1), 2013).
    pub escrowed: Minor,
    /// Whether an eliminated player may enter again, as a new entry (2213(2)(c)).
    pub reentry: bool,
    /// Who may play (2213.04); `None`: anyone.
    pub qualification: Option<String>,
    /// Whether the remaining players may agree to split the cash prizes (2213.07(3)).
    pub split_permitted: bool,
    pub events: Vec<EventSpec>,
    /// How the final round is decided (2213.08(3)).
    pub final_round: String,
    /// How the tournament ends (2213.08(3)).
    pub conclusion: String,
    /// Each tournament chip colour and the points it stands for (2214(2)).
    pub chip_values: Vec<(String, u64)>,
    /// House rules that change the normal play of the game (2213.08(5)).
    pub house_rules: Vec<String>,
}

/// A configuration that cannot be used: the field at fault, and why, with the clause.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{field}: {message}")]
pub struct ConfigError {
    pub field: String,
    pub message: String,
}

fn refuse<T>(field: impl Into<String>, message: impl Into<String>) -> Result<T, ConfigError> {
    Err(ConfigError {
        field: field.into(),
        message: message.into(),
    })
}

/// A tournament's configuration that passed every check of its profile's rules.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct TournamentConfig {
    spec: TournamentSpec,
    rules: TournamentRules,
}

/// `day` plus `months` calendar months, the day clamped to the month's
/// length (31 October and four months is 28 or 29 February).
pub fn add_months(day: Date, months: u32) -> Option<Date> {
    let index = i64::from(day.year()) * 12 + i64::from(u8::from(day.month())) - 1 + i64::from(months);
    let year = i32::try_from(index.div_euclid(12)).ok()?;
    let month = Month::try_from(u8::try_from(index.rem_euclid(12) + 1).ok()?).ok()?;
    let last = time::util::days_in_month(month, year);
    Date::from_calendar_date(year, month, day.day().min(last)).ok()
}

fn text(field: &str, value: &str) -> Result<(), ConfigError> {
    if value.trim().is_empty() {
        return refuse(field, "must not be empty");
    }
    if value.len() > TEXT_MAX_BYTES {
        return refuse(field, format!("is longer than {TEXT_MAX_BYTES} bytes"));
    }
    Ok(())
}

fn amount(field: &str, value: Minor) -> Result<(), ConfigError> {
    if value.get() > AMOUNT_MAX_MINOR {
        return refuse(field, format!("{value} is more than {}", Minor::new(AMOUNT_MAX_MINOR)));
    }
    Ok(())
}

fn points(field: &str, value: u64) -> Result<(), ConfigError> {
    if value == 0 || value > POINTS_MAX {
        return refuse(field, format!("must be 1 to {POINTS_MAX} points"));
    }
    Ok(())
}

impl TournamentConfig {
    pub fn new(spec: TournamentSpec, rules: TournamentRules) -> Result<TournamentConfig, ConfigError> {
        check_names(&spec)?;
        check_licensees(&spec)?;
        check_days(&spec, &rules)?;
        for (i, event) in spec.events.iter().enumerate() {
            check_event(&spec, &rules, i, event)?;
        }
        check_cap(&spec, &rules)?;
        check_escrow(&spec, &rules)?;
        check_chips(&spec.chip_values)?;
        if spec.split_permitted && !rules.split_permitted {
            return refuse(
                "split_permitted",
                "the profile's rules give no split of prizes by agreement (2213.07(3) is not in its text)",
            );
        }
        Ok(TournamentConfig { spec, rules })
    }

    pub fn spec(&self) -> &TournamentSpec {
        &self.spec
    }

    pub fn rules(&self) -> &TournamentRules {
        &self.rules
    }

    pub fn event(&self, index: usize) -> Option<&EventSpec> {
        self.spec.events.get(index)
    }

    /// Whether the prizes must be in escrow before the start (2213(1), 2013).
    pub fn escrow_required(&self) -> bool {
        escrow_required(&self.spec, &self.rules)
    }

    /// What is placed in escrow before the start (2213(1), 2013): every
    /// prize, non-cash ones at their cash value; 0 when none need be.
    pub fn escrow_amount(&self) -> u64 {
        if !self.escrow_required() {
            return 0;
        }
        self.spec
            .events
            .iter()
            .flat_map(|e| &e.prizes)
            .map(|p| match &p.kind {
                PrizeKind::Cash { amount } => amount.get(),
                PrizeKind::NonCash { value, .. } | PrizeKind::Voucher { value, .. } => value.get(),
                // Refused when the escrow is required (check_escrow).
                PrizeKind::PoolShare { .. } => 0,
            })
            .sum()
    }

    /// Everything an entry may pay over the whole tournament: each event's
    /// fee, buy-in and every allowed re-buy (2213.05).
    pub fn most_one_entry_pays(&self) -> u64 {
        most_one_entry_pays(&self.spec)
    }
}

fn check_names(spec: &TournamentSpec) -> Result<(), ConfigError> {
    let id_ok = !spec.id.is_empty()
        && spec.id.len() <= ID_MAX_BYTES
        && spec
            .id
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.'));
    if !id_ok {
        return refuse(
            "id",
            format!(
                "{:?} is not a tournament id: 1 to {ID_MAX_BYTES} of a-z, A-Z, 0-9, '-', '_', '.'",
                spec.id
            ),
        );
    }
    text("name", &spec.name)?;
    text("house", &spec.house)?;
    text("final_round", &spec.final_round)?;
    text("conclusion", &spec.conclusion)?;
    if let Some(q) = &spec.qualification {
        text("qualification", q)?;
    }
    for (i, rule) in spec.house_rules.iter().enumerate() {
        text(&format!("house_rules[{i}]"), rule)?;
    }
    Ok(())
}

fn check_licensees(spec: &TournamentSpec) -> Result<(), ConfigError> {
    if spec.licensees.is_empty() || spec.licensees.len() > LICENSEES_MAX {
        return refuse(
            "licensees",
            format!("list the 1 to {LICENSEES_MAX} licensees conducting it (2213(2))"),
        );
    }
    for (i, name) in spec.licensees.iter().enumerate() {
        text(&format!("licensees[{i}]"), name)?;
        if spec.licensees[..i].contains(name) {
            return refuse("licensees", format!("{name:?} is listed twice"));
        }
    }
    if !spec.licensees.contains(&spec.responsible) {
        return refuse(
            "responsible",
            format!(
                "{:?} is not one of the licensees; one of them is responsible for the prizes and the records (2213(2)(b))",
                spec.responsible
            ),
        );
    }
    if spec.licensees.len() > 1 {
        if let Some(event) = spec.events.iter().find(|e| e.entry_fee > Minor::ZERO) {
            return refuse(
                "licensees",
                format!(
                    "a tournament of several licensees must return everything it collects as prizes, but {:?} takes an entry fee of {} (2213(2)-(2)(a))",
                    event.name, event.entry_fee
                ),
            );
        }
    }
    Ok(())
}

fn check_days(spec: &TournamentSpec, rules: &TournamentRules) -> Result<(), ConfigError> {
    if spec.last_day < spec.first_day {
        return refuse(
            "last_day",
            format!("{} is before the first day {}", spec.last_day, spec.first_day),
        );
    }
    let latest = add_months(spec.first_day, rules.conclude_within_months);
    if latest.is_none_or(|latest| spec.last_day > latest) {
        return refuse(
            "last_day",
            format!(
                "{} is more than {} months after the first day {}: a tournament concludes within {} months (2213(1))",
                spec.last_day, rules.conclude_within_months, spec.first_day, rules.conclude_within_months
            ),
        );
    }
    if spec.events.is_empty() || spec.events.len() > EVENTS_MAX {
        return refuse("events", format!("list 1 to {EVENTS_MAX} events (2213(1))"));
    }
    if spec.events[0].day != spec.first_day {
        return refuse(
            "events[0].day",
            format!(
                "the first event is on {}, but the first day of play is {}",
                spec.events[0].day, spec.first_day
            ),
        );
    }
    for (i, event) in spec.events.iter().enumerate() {
        if event.day > spec.last_day {
            return refuse(
                format!("events[{i}].day"),
                format!("{} is after the last day {} (2213(1))", event.day, spec.last_day),
            );
        }
        if i > 0 && event.day < spec.events[i - 1].day {
            return refuse(
                format!("events[{i}].day"),
                "events are listed in the order they are played",
            );
        }
    }
    Ok(())
}

fn check_event(spec: &TournamentSpec, rules: &TournamentRules, i: usize, event: &EventSpec) -> Result<(), ConfigError> {
    let field = |name: &str| format!("events[{i}].{name}");
    text(&field("name"), &event.name)?;
    if spec.events[..i].iter().any(|e| e.name == event.name) {
        return refuse(field("name"), format!("{:?} names two events", event.name));
    }
    amount(&field("entry_fee_minor"), event.entry_fee)?;
    amount(&field("buy_in_minor"), event.buy_in)?;
    points(&field("starting_points"), event.starting_points)?;
    let rebuys = &event.rebuys;
    if rebuys.max > REBUYS_MAX {
        return refuse(field("rebuys.max"), format!("at most {REBUYS_MAX} re-buys"));
    }
    if rebuys.max > 0 {
        amount(&field("rebuys.amount_minor"), rebuys.amount)?;
        points(&field("rebuys.points"), rebuys.points)?;
    }
    if event.prizes.is_empty() || event.prizes.len() > PRIZES_MAX {
        return refuse(field("prizes"), format!("list 1 to {PRIZES_MAX} prizes (2213.08(4))"));
    }
    let mut percent = 0u32;
    for (p, prize) in event.prizes.iter().enumerate() {
        let pfield = format!("events[{i}].prizes[{p}]");
        if prize.place != p as u32 + 1 {
            return refuse(
                format!("{pfield}.place"),
                format!("prizes are listed by place from 1st; this one is place {}", prize.place),
            );
        }
        match &prize.kind {
            PrizeKind::Cash { amount: a } => {
                if *a == Minor::ZERO {
                    return refuse(
                        format!("{pfield}.cash_minor"),
                        "a cash prize is more than 0 (2213.08(4))",
                    );
                }
                amount(&format!("{pfield}.cash_minor"), *a)?;
            }
            PrizeKind::PoolShare { percent: share } => {
                if *share == 0 || *share > 100 {
                    return refuse(
                        format!("{pfield}.pool_percent"),
                        "a share of the pool is 1 to 100 per cent",
                    );
                }
                percent += share;
            }
            PrizeKind::NonCash { description, value } => {
                text(&format!("{pfield}.non_cash"), description)?;
                if *value == Minor::ZERO {
                    return refuse(
                        format!("{pfield}.value_minor"),
                        "a non-cash prize has a predetermined cash value (2213.05, 2213.08(4))",
                    );
                }
                amount(&format!("{pfield}.value_minor"), *value)?;
            }
            PrizeKind::Voucher { event: target, value } => {
                check_voucher(spec, rules, i, &pfield, *target, *value)?;
            }
        }
    }
    if percent > 100 {
        return refuse(
            field("prizes"),
            format!("the shares of the pool add up to {percent} per cent"),
        );
    }
    let last = i + 1 == spec.events.len();
    if last && !event.prizes.iter().any(Prize::is_cash) {
        return refuse(
            field("prizes"),
            "the last event awards at least one cash prize: what remains of the pool goes to it, so no buy-in is kept (2213.05)",
        );
    }
    Ok(())
}

fn check_voucher(
    spec: &TournamentSpec,
    rules: &TournamentRules,
    from: usize,
    field: &str,
    target: usize,
    value: Minor,
) -> Result<(), ConfigError> {
    if !rules.vouchers_permitted {
        return refuse(
            field,
            "the profile's rules give no prize vouchers (2213.05 is not in its text)",
        );
    }
    let Some(later) = spec.events.get(target).filter(|_| target > from) else {
        return refuse(
            format!("{field}.voucher_for"),
            "a prize voucher enters a later event of the same tournament (2213.05)",
        );
    };
    let price = later.entry_fee.get() + later.buy_in.get();
    if price > 0 && value.get() != price {
        return refuse(
            format!("{field}.value_minor"),
            format!(
                "a voucher for {:?} is worth its entry fee and buy-in, {} (2213.05)",
                later.name,
                Minor::new(price)
            ),
        );
    }
    if value == Minor::ZERO {
        return refuse(
            format!("{field}.value_minor"),
            format!(
                "{:?} takes no entry fee or buy-in: give the voucher the value it adds to the pool (2213.05)",
                later.name
            ),
        );
    }
    amount(&format!("{field}.value_minor"), value)
}

fn most_one_entry_pays(spec: &TournamentSpec) -> u64 {
    spec.events
        .iter()
        .map(|e| e.entry_fee.get() + e.buy_in.get() + u64::from(e.rebuys.max) * e.rebuys.amount.get())
        .sum()
}

fn check_cap(spec: &TournamentSpec, rules: &TournamentRules) -> Result<(), ConfigError> {
    let Some(cap) = rules.fee_and_buy_ins_max else {
        return Ok(());
    };
    let most = most_one_entry_pays(spec);
    if most > cap.get() {
        return refuse(
            "events",
            format!(
                "an entry may pay {} in entry fees and buy-ins, re-buys included; together they may not exceed {} (2213.05)",
                Minor::new(most),
                cap
            ),
        );
    }
    Ok(())
}

fn escrow_required(spec: &TournamentSpec, rules: &TournamentRules) -> bool {
    rules
        .escrow_after_days
        .is_some_and(|days| spec.last_day > spec.first_day + Duration::days(i64::from(days)))
}

fn check_escrow(spec: &TournamentSpec, rules: &TournamentRules) -> Result<(), ConfigError> {
    if !escrow_required(spec, rules) {
        return Ok(());
    }
    let days = rules.escrow_after_days.unwrap_or_default();
    let mut total = 0u64;
    for (i, event) in spec.events.iter().enumerate() {
        for (p, prize) in event.prizes.iter().enumerate() {
            total += match &prize.kind {
                PrizeKind::Cash { amount } => amount.get(),
                PrizeKind::NonCash { value, .. } | PrizeKind::Voucher { value, .. } => value.get(),
                PrizeKind::PoolShare { .. } => {
                    return refuse(
                        format!("events[{i}].prizes[{p}]"),
                        format!(
                            "a tournament past {days} days escrows all prizes before the start, so each is a fixed amount, not a share of the pool (2213(1))"
                        ),
                    );
                }
            };
        }
    }
    if spec.escrowed.get() < total {
        return refuse(
            "escrowed_minor",
            format!(
                "{} is escrowed but the prizes are worth {}; a tournament past {days} days escrows them all, non-cash at their cash value, before the start (2213(1))",
                spec.escrowed,
                Minor::new(total)
            ),
        );
    }
    Ok(())
}

/// New values for the tournament's chip colours, posted between games
/// (2214(2)): the configured colours, each once, each worth 1 to
/// [`POINTS_MAX`] points.
pub fn check_chip_values(spec: &TournamentSpec, values: &[(String, u64)]) -> Result<(), ConfigError> {
    check_chips(values)?;
    let same = values.len() == spec.chip_values.len()
        && spec.chip_values.iter().all(|(c, _)| values.iter().any(|(v, _)| v == c));
    if !same {
        let colours: Vec<&str> = spec.chip_values.iter().map(|(c, _)| c.as_str()).collect();
        return refuse(
            "chips",
            format!(
                "give a value to each of the tournament's colours, and to no other: {}",
                colours.join(", ")
            ),
        );
    }
    Ok(())
}

fn check_chips(values: &[(String, u64)]) -> Result<(), ConfigError> {
    if values.is_empty() || values.len() > CHIP_COLOURS_MAX {
        return refuse(
            "chips",
            format!("list 1 to {CHIP_COLOURS_MAX} tournament chip colours with their points (2214(2))"),
        );
    }
    for (i, (colour, value)) in values.iter().enumerate() {
        text(&format!("chips.{colour}"), colour)?;
        points(&format!("chips.{colour}"), *value)?;
        if values[..i].iter().any(|(c, _)| c == colour) {
            return refuse("chips", format!("{colour:?} is listed twice"));
        }
    }
    Ok(())
}
