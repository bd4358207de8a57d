//! The casino's gaming day: the day its books close, its daily limits begin
//! again and its dated rules count, in its own time zone from its own hour.
//! A Colorado casino whose day rolls at 06:00 in Denver counts 05:59 as the
//! day before, across a change of daylight saving time as on any other day.
//!
//! An admin sets it (`set_gaming_day`, journal format 14): an IANA time zone
//! and the local time the day starts. The time zones come from the tz
//! database bundled into the build (`jiff`'s, pinned by Cargo.lock), never the
//! machine's, so a replay anywhere counts the same days. Unset, a gaming day
//! is a UTC day from midnight, as journals before format 14 count it.
//!
//! A day is numbered as its local date's days since 1970-01-01, so its
//! number is also its label (`YYYY-MM-DD`).

use jiff::tz::TimeZone;

const DAY_MS: u64 = 86_400_000;

/// The latest a gaming day may start, in minutes after local midnight.
const STARTS_MAX_MIN: u16 = 23 * 60 + 59;

/// A gaming day's time zone and the local time it starts at.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
#[serde(try_from = "Stored", into = "Stored")]
pub struct GamingDay {
    zone: String,
    starts_min: u16,
    tz: TimeZone,
}

/// A gaming day as the journal and a checkpoint keep it.
#[derive(Clone, serde::Serialize, serde::Deserialize)]
struct Stored {
    time_zone: String,
    starts_at: String,
}

impl TryFrom<Stored> for GamingDay {
    type Error = String;

    fn try_from(stored: Stored) -> Result<GamingDay, String> {
        GamingDay::new(&stored.time_zone, &stored.starts_at)
    }
}

impl From<GamingDay> for Stored {
    fn from(day: GamingDay) -> Stored {
        Stored {
            time_zone: day.zone.clone(),
            starts_at: day.starts_at(),
        }
    }
}

impl Default for GamingDay {
    fn default() -> GamingDay {
        GamingDay::utc()
    }
}

impl PartialEq for GamingDay {
    fn eq(&self, other: &GamingDay) -> bool {
        self.zone == other.zone && self.starts_min == other.starts_min
    }
}

impl Eq for GamingDay {}

impl GamingDay {
    /// A UTC day from midnight: the casino's until an admin sets its own.
    pub fn utc() -> GamingDay {
        GamingDay {
            zone: "UTC".into(),
            starts_min: 0,
            tz: TimeZone::UTC,
        }
    }

    /// A gaming day in `zone` (an IANA name: `America/Denver`) starting at
    /// `starts_at` (`HH:MM`, 24-hour, local), or why not.
    pub fn new(zone: &str, starts_at: &str) -> Result<GamingDay, String> {
        let tz = jiff::tz::db().get(zone).map_err(|_| {
            format!("{zone:?} is not a time zone of the tz database (America/Denver, Europe/Riga, UTC...)")
        })?;
        let starts_min = parse_hh_mm(starts_at)
            .ok_or_else(|| format!("{starts_at:?} is not a time of day written HH:MM (06:00, 17:00)"))?;
        Ok(GamingDay {
            zone: zone.to_string(),
            starts_min,
            tz,
        })
    }

    /// Whether it is a UTC day from midnight (the days before format 14).
    pub fn is_utc_midnight(&self) -> bool {
        self.starts_min == 0 && self.zone == "UTC"
    }

    pub fn zone(&self) -> &str {
        &self.zone
    }

    /// The local time it starts at, `HH:MM`.
    pub fn starts_at(&self) -> String {
        format!("{:02}:{:02}", self.starts_min / 60, self.starts_min % 60)
    }

    /// The gaming day `at_ms` falls in: its local date's days since 1970-01-01.
    pub fn day(&self, at_ms: u64) -> u64 {
        if self.is_utc_midnight() {
            return at_ms / DAY_MS;
        }
        let Ok(at) = i64::try_from(at_ms)
            .map_err(|_| ())
            .and_then(|ms| jiff::Timestamp::from_millisecond(ms).map_err(|_| ()))
        else {
            return at_ms / DAY_MS;
        };
        let local = at.to_zoned(self.tz.clone()).datetime();
        let minute = u16::from(local.hour().unsigned_abs()) * 60 + u16::from(local.minute().unsigned_abs());
        let date = if minute < self.starts_min {
            local.date().yesterday().unwrap_or(local.date())
        } else {
            local.date()
        };
        days_since_1970(date)
    }
}

/// `HH:MM` as minutes after midnight.
fn parse_hh_mm(text: &str) -> Option<u16> {
    let (h, m) = text.split_once(':')?;
    if h.len() != 2 || m.len() != 2 {
        return None;
    }
    let (h, m): (u16, u16) = (h.parse().ok()?, m.parse().ok()?);
    (h < 24 && m < 60)
        .then_some(h * 60 + m)
        .filter(|min| *min <= STARTS_MAX_MIN)
}

/// A civil date's days since 1970-01-01.
fn days_since_1970(date: jiff::civil::Date) -> u64 {
    let epoch = jiff::civil::date(1970, 1, 1);
    date.since((jiff::Unit::Day, epoch))
        .map(|span| span.get_days())
        .ok()
        .and_then(|days| u64::try_from(days).ok())
        .unwrap_or(0)
}

/// The Julian day of 1970-01-01: days are counted from it.
const UNIX_EPOCH_JULIAN_DAY: i64 = 2_440_588;

/// The UTC day of a time in milliseconds since 1970.
pub fn day_of(at_ms: u64) -> time::Date {
    let days = i64::try_from(at_ms / DAY_MS).unwrap_or(i64::MAX);
    i32::try_from(UNIX_EPOCH_JULIAN_DAY.saturating_add(days))
        .ok()
        .and_then(|julian| time::Date::from_julian_day(julian).ok())
        .unwrap_or(time::Date::MAX)
}

/// A gaming day (days since 1970) as `YYYY-MM-DD`.
pub fn day_text(day: u64) -> String {
    let d = day_of(day.saturating_mul(86_400_000));
    format!("{:04}-{:02}-{:02}", d.year(), u8::from(d.month()), d.day())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Unix ms of a local wall time in `zone`.
    fn at(zone: &str, text: &str) -> u64 {
        let civil: jiff::civil::DateTime = text.parse().expect("a civil time");
        let zoned = civil.to_zoned(jiff::tz::db().get(zone).expect("zone")).expect("zoned");
        zoned.timestamp().as_millisecond() as u64
    }

    fn label(day: u64) -> String {
        let date = jiff::civil::date(1970, 1, 1)
            .checked_add(jiff::Span::new().days(day as i64))
            .expect("a date");
        date.to_string()
    }

    // Issue: a Colorado casino's day starts at 06:00 in Denver, across a
    // change of daylight saving time as on any other day.
    #[test]
    fn a_denver_gaming_day_from_six_holds_across_the_changes_of_daylight_saving_time() {
        let day = GamingDay::new("America/Denver", "06:00").expect("a gaming day");
        let of = |text: &str| label(day.day(at("America/Denver", text)));
        // Sunday 8 March 2026: clocks go forward at 02:00 (a 23-hour night).
        assert_eq!(of("2026-03-08T01:59"), "2026-03-07");
        assert_eq!(of("2026-03-08T03:00"), "2026-03-07");
        assert_eq!(of("2026-03-08T05:59"), "2026-03-07");
        assert_eq!(of("2026-03-08T06:00"), "2026-03-08");
        // Sunday 1 November 2026: clocks go back at 02:00 (a 25-hour night).
        assert_eq!(of("2026-11-01T01:30"), "2026-10-31");
        assert_eq!(of("2026-11-01T05:59"), "2026-10-31");
        assert_eq!(of("2026-11-01T06:00"), "2026-11-01");
        // The gaming day of 7 March holds 23 hours, that of 31 October 25.
        let length = |from: &str, to: &str| (at("America/Denver", to) - at("America/Denver", from)) / 3_600_000;
        assert_eq!(length("2026-03-07T06:00", "2026-03-08T06:00"), 23);
        assert_eq!(length("2026-10-31T06:00", "2026-11-01T06:00"), 25);
    }

    // A 31 December evening belongs to the year's last gaming day, and the
    // small hours of 1 January too, until the day starts.
    #[test]
    fn a_new_years_eve_belongs_to_the_last_gaming_day_until_the_day_starts() {
        let day = GamingDay::new("America/Denver", "06:00").expect("a gaming day");
        let of = |text: &str| label(day.day(at("America/Denver", text)));
        assert_eq!(of("2026-12-31T23:30"), "2026-12-31");
        assert_eq!(of("2027-01-01T05:59"), "2026-12-31");
        assert_eq!(of("2027-01-01T06:00"), "2027-01-01");
        // A day that rolls at 17:00 begins the new year's first day on New Year's Eve.
        let evening = GamingDay::new("America/Denver", "17:00").expect("a gaming day");
        assert_eq!(
            label(evening.day(at("America/Denver", "2026-12-31T16:59"))),
            "2026-12-30"
        );
        assert_eq!(
            label(evening.day(at("America/Denver", "2026-12-31T17:00"))),
            "2026-12-31"
        );
    }

    #[test]
    fn utc_from_midnight_counts_days_as_before() {
        let day = GamingDay::utc();
        for ms in [0, 86_399_999, 86_400_000, 1_796_083_200_000] {
            assert_eq!(day.day(ms), ms / DAY_MS);
        }
        let utc = GamingDay::new("UTC", "00:00").expect("utc");
        assert!(utc.is_utc_midnight());
        assert_eq!(utc, GamingDay::utc());
    }

    #[test]
    fn a_zone_or_a_time_not_understood_is_refused_by_name() {
        let e = GamingDay::new("America/Denverr", "06:00").expect_err("no such zone");
        assert!(e.contains("America/Denverr"), "{e}");
        for bad in ["6:00", "24:00", "06:60", "0600", "", "06:00:00"] {
            let e = GamingDay::new("America/Denver", bad).expect_err(bad);
            assert!(e.contains("HH:MM"), "{e}");
        }
    }

    #[test]
    fn it_is_kept_as_its_zone_and_hour_and_read_back_alike() {
        let day = GamingDay::new("Europe/Riga", "08:30").expect("a gaming day");
        let text = serde_json::to_string(&day).expect("json");
        assert_eq!(text, r#"{"time_zone":"Europe/Riga","starts_at":"08:30"}"#);
        let back: GamingDay = serde_json::from_str(&text).expect("read");
        assert_eq!(back, day);
        assert!(serde_json::from_str::<GamingDay>(r#"{"time_zone":"Nowhere/City","starts_at":"08:30"}"#).is_err());
    }
}
