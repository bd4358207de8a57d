//! Helpers for the conformance suite: reading the settlement case tables.

/// One row of a case table.
#[derive(Debug, Clone)]
pub struct Case {
    pub line: usize,
    pub profile: String,
    pub wheel: String,
    pub in_prison: bool,
    pub spot: String,
    pub zero_choice: Option<String>,
    pub coupon: bool,
    pub stake: i128,
    pub pockets: Vec<String>,
    pub result: String,
    pub returned: u64,
    pub held: u64,
    pub cite: String,
}

/// Parses a case table: `|`-separated columns
/// `profile | wheel | table | spot | stake | pockets | result | returned | cite`.
/// The table column is `-` or `in-prison`; a spot may end in `/half`,
/// `/prison` (the zero choice) or `/coupon` (a matched match play coupon);
/// `returned` may be `N held M` for a bet still in prison.
pub fn parse_cases(text: &str) -> Result<Vec<Case>, String> {
    let mut cases = Vec::new();
    for (i, raw) in text.lines().enumerate() {
        let line = raw.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let cols: Vec<&str> = line.split('|').map(str::trim).collect();
        let [profile, wheel, table, spot, stake, pockets, result, returned, cite] = cols[..] else {
            return Err(format!("line {}: expected 9 columns, got {}", i + 1, cols.len()));
        };
        if cite.is_empty() {
            return Err(format!("line {}: every case cites its rule", i + 1));
        }
        let (spot, suffix) = match spot.split_once('/') {
            Some((s, x)) => (s, Some(x)),
            None => (spot, None),
        };
        let (returned, held) = match returned.split_once(" held ") {
            Some((r, h)) => (r, h),
            None => (returned, "0"),
        };
        let number = |what: &str, s: &str| {
            s.parse::<u64>()
                .map_err(|e| format!("line {}: {what} {s:?}: {e}", i + 1))
        };
        cases.push(Case {
            line: i + 1,
            profile: profile.to_string(),
            wheel: wheel.to_string(),
            in_prison: match table {
                "-" => false,
                "in-prison" => true,
                other => return Err(format!("line {}: table {other:?}", i + 1)),
            },
            spot: spot.to_string(),
            zero_choice: suffix.filter(|s| *s != "coupon").map(str::to_string),
            coupon: suffix == Some("coupon"),
            stake: i128::from(number("stake", stake)?),
            pockets: pockets.split(',').map(|p| p.trim().to_string()).collect(),
            result: result.to_string(),
            returned: number("returned", returned)?,
            held: number("held", held)?,
            cite: cite.to_string(),
        });
    }
    Ok(cases)
}
