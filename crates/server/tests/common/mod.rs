//! What every test casino does as a casino would before its tables open.
#![allow(dead_code)] // each test file uses what it needs

pub mod actors;
pub mod jsonl;
pub mod requests;
pub mod table_requests;
pub mod world;

use croupier_ledger::Storage;
use croupier_server::api::{ApiError, ErrorCode, EventView, Role};
use croupier_server::casino::journal::event::StoredLimit;
use croupier_server::casino::journal::FORMAT_LIMITS_POSTED;
use croupier_server::casino::{Actor, Casino, Request};

/// Runs `request` at `*now`; a table it makes whose layout carries its
/// limits then posts them (Maryland ch.1 G(3), from the format that asks
/// for them): 0.01 up to the largest stake on every kind of bet, so that they
/// bound nothing a test bets. A storage that fails on purpose is tried
/// again for the limits, as such tests retry.
pub fn run_posting_limits<S: Storage>(
    casino: &mut Casino<S>,
    now: &mut u64,
    who: &Actor,
    request: Request,
) -> Result<Vec<EventView>, ApiError> {
    *now += 10;
    let signage = signage(&request, casino.journal_format());
    let events = casino.execute(*now, who, request)?;
    if let Some(limits) = signage {
        let pit = Actor::new("pit", Role::PitSupervisor, "L-77");
        let mut tries = 0;
        loop {
            *now += 10;
            match casino.execute(*now, &pit, limits.clone()) {
                Err(e) if e.code == ErrorCode::Storage && tries < 100 => tries += 1,
                posted => break posted.map(drop).expect("limits posted"),
            }
        }
    }
    Ok(events)
}

/// The limits a table made by `create` posts before it opens, where its
/// layout carries them and the journal's `format` asks for them.
pub fn signage(create: &Request, format: u32) -> Option<Request> {
    let Request::CreateTable {
        table,
        profile_text,
        wheel,
        ..
    } = create
    else {
        return None;
    };
    let profile = croupier_profiles::parse(profile_text, table).ok()?;
    let wide = (1, croupier_core::STAKE_MAX_MINOR);
    (format >= FORMAT_LIMITS_POSTED && profile.jurisdiction().limits_on_layout).then(|| Request::SetLimits {
        table: table.clone(),
        limits: StoredLimit::on_every_kind(profile_text, wheel, wide, wide).expect("limits"),
    })
}

/// The licence number a test records for staff member `name` (Colorado
/// 2212(5), Maryland ch.2 E(6): only staff with one on record inspect or
/// adjust); players hold none.
pub fn licence_of(name: &str, role: Role) -> Option<String> {
    (role != Role::Player).then(|| format!("L-{name}"))
}
