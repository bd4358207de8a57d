//! The casino: tables, players, money and the journal, one request at a time.

use std::borrow::Cow;
use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::sync::{Arc, RwLock};

use bytes::Bytes;
use croupier_core::round::{Adjustment, Command, Event, Inspection, Person, Phase, Table, TableConfig};
use croupier_core::{Outcome, Wheel, ZeroChoice};
use croupier_ledger::{
    Account, Applied, Ledger, LedgerError, MemoryStorage, Record, Recorded, Refusal, Storage, StreamEvent, Transfer,
};
use foldhash::{HashMap, HashMapExt, HashSet, HashSetExt};
use serde::{Deserialize, Serialize};

use crate::api::{view, Actor, ApiError, EventView, OutcomeSource, Request};
use crate::users::{valid_username, Role, User, LOGIN_FAILURES_MAX};

/// Rounds kept in memory per table for game recall, the newest; every round
/// before them is in the recall archive ([`crate::archive`]).
pub const RECALL_ROUNDS_MAX: usize = 100;
/// The most tables a casino runs.
pub const TABLES_MAX: usize = 256;
/// The most users a casino knows.
pub const USERS_MAX: usize = 1_000_000;
/// Words that begin ledger ids of their own (`tip/ID`, `sale/ID`, `fill/T/N`...): a
/// table's ids begin with the table's id, so no table takes one of these.
pub const RESERVED_TABLE_IDS: [&str; 7] = ["buyin", "sale", "leave", "tip", "cashin", "cashout", "fill"];
/// The journal stream casino requests are written to.
pub const STREAM: &str = "casino";

/// One journal entry's body: who asked for what, when, and what happened.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct JournalBody {
    pub at_ms: u64,
    pub actor: Actor,
    pub request: Request,
    pub events: Vec<EventView>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct BetRecord {
    pub bet_id: String,
    pub player: String,
    pub spot: String,
    pub kind: String,
    pub stake: u64,
    pub result: Option<String>,
    pub returned: Option<u64>,
}

/// A round as game recall shows it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RoundRecord {
    pub id: String,
    pub table: String,
    pub round: u64,
    pub opened_at_ms: u64,
    pub pocket: Option<String>,
    pub no_spins: Vec<String>,
    pub bets: Vec<BetRecord>,
    pub settled: bool,
    /// Each player's chips at the table when betting opened, and when the round settled.
    pub chips_before: BTreeMap<String, i128>,
    pub chips_after: BTreeMap<String, i128>,
}

pub struct TableSlot {
    pub id: String,
    pub table: Table,
    pub outcome: OutcomeSource,
    pub profile_name: String,
    /// Each seated player's colour and chip value (european-casino 5.1, Colorado 2203(3)).
    pub colours: BTreeMap<String, (String, u64)>,
    /// Colours may repeat: electronic terminals with no central screen (Colorado 2203(3)).
    pub shared_colours: bool,
    /// Where a wheel table's automated wheel streams its games.
    pub wheel_address: Option<String>,
    /// Shared once final, with the archive: a round's record is never copied.
    pub rounds: VecDeque<Arc<RoundRecord>>,
    /// The table's operations log, newest last: inspections and adjustments
    /// (Colorado 2212(5), Maryland ch.2 E), opening and closing, no spins,
    /// emergencies, annulments and disputes. Rebuilt from the journal on open.
    pub log: VecDeque<(u64, EventView)>,
    /// The balances of the table's own accounts (see [`TableSlot::balance`]):
    /// the table plans with them; the ledger holds them too, and checks again.
    books: HashMap<Account, i128>,
    /// Entries written for this table: they number its fills and dispute corrections.
    entries: u64,
    /// Rounds whose record is final (the next round has opened), for the
    /// recall archive; `None` while no one takes them.
    finished: Option<Vec<Arc<RoundRecord>>>,
    /// The table's layout and float accounts, named once: every bet moves its
    /// stake to the layout.
    layout: Account,
    float: Account,
}

/// How many entries of a table's operations log the server keeps in memory;
/// the journal keeps them all.
pub const TABLE_LOG_MAX: usize = 1_000;

/// Whether an event belongs in a table's operations log.
fn logged(event: &Event) -> bool {
    matches!(
        event,
        Event::InspectionRecorded(_)
            | Event::AdjustmentRecorded(_)
            | Event::TableOpened { .. }
            | Event::TableClosed { .. }
            | Event::NoSpin { .. }
            | Event::SpinVoided { .. }
            | Event::EmergencyDeclared { .. }
            | Event::EmergencyLifted { .. }
            | Event::BetsAnnulled { .. }
            | Event::DisputeDecided { .. }
    )
}

/// What a request does once its batch is durable.
enum Effect {
    AddUser(User),
    Login {
        username: String,
        failures: u32,
        locked: bool,
    },
    AddTable(Box<TableSlot>),
    JournalFormat(u32),
    Core {
        events: Vec<Event>,
    },
    Seat {
        player: String,
        colour: Option<(String, u64)>,
    },
}

struct Plan {
    transfers: Vec<Transfer>,
    views: Vec<EventView>,
    effects: Vec<Effect>,
}

impl Plan {
    fn new() -> Plan {
        Plan {
            transfers: Vec::new(),
            views: Vec::new(),
            effects: Vec::new(),
        }
    }

    fn is_empty(&self) -> bool {
        self.transfers.is_empty() && self.views.is_empty() && self.effects.is_empty()
    }

    /// A player got colour chips (`view` says how): they sit at the table in `colour`, each chip worth `chip_value`.
    fn seat(&mut self, view: EventView, player: &str, colour: String, chip_value: u64) {
        self.views.push(view);
        self.effects.push(Effect::Seat {
            player: player.to_string(),
            colour: Some((colour, chip_value)),
        });
    }
}

/// What a request at a table did: its events, and each one's text as the journal holds it.
#[derive(Default)]
pub struct Executed {
    pub views: Vec<EventView>,
    pub texts: Vec<Bytes>,
}

/// A journal body as it is written, borrowing what it shows.
#[derive(Serialize)]
struct JournalText<'a> {
    at_ms: u64,
    actor: &'a Actor,
    request: &'a Request,
    events: &'a [EventView],
}

fn journal_text(at_ms: u64, actor: &Actor, request: &Request, events: &[EventView]) -> Result<String, ApiError> {
    serde_json::to_string(&JournalText {
        at_ms,
        actor,
        request,
        events,
    })
    .map_err(|e| err("internal", e.to_string()))
}

/// What a request's entry says, and each of its events' JSON, written once:
/// the streams send the very text the journal holds, where serialising each
/// event again cost a twentieth of the work of placing a bet.
pub struct Rendered {
    /// The journal body, byte for byte what [`JournalText`] serialises to.
    pub journal: String,
    /// Each event's text, in order, sharing one buffer.
    pub events: Vec<Bytes>,
}

fn render(at_ms: u64, actor: &Actor, request: &Request, events: &[EventView]) -> Result<Rendered, ApiError> {
    /// The body's fields before its events, in [`JournalText`]'s order.
    #[derive(Serialize)]
    struct Head<'a> {
        at_ms: u64,
        actor: &'a Actor,
        request: &'a Request,
    }
    let failed = |e: serde_json::Error| err("internal", e.to_string());
    let mut texts = Vec::with_capacity(160 * events.len());
    let mut ends = Vec::with_capacity(events.len());
    for e in events {
        serde_json::to_writer(&mut texts, e).map_err(failed)?;
        ends.push(texts.len());
    }
    let mut journal = Vec::with_capacity(256 + texts.len() + events.len());
    serde_json::to_writer(&mut journal, &Head { at_ms, actor, request }).map_err(failed)?;
    // `{...}` becomes `{...,"events":[...]}`, as serde_json writes a fourth field.
    journal.pop();
    journal.extend_from_slice(b",\"events\":[");
    let texts = Bytes::from(texts);
    let mut start = 0;
    let mut rendered = Vec::with_capacity(events.len());
    for (i, &end) in ends.iter().enumerate() {
        if i > 0 {
            journal.push(b',');
        }
        journal.extend_from_slice(&texts[start..end]);
        rendered.push(texts.slice(start..end));
        start = end;
    }
    journal.extend_from_slice(b"]}");
    let journal = String::from_utf8(journal).map_err(|e| err("internal", e.to_string()))?;
    Ok(Rendered {
        journal,
        events: rendered,
    })
}

/// The journal's format that this server writes. Format 1 moved each
/// settled bet's money in transfers of its own: a round of 3,000 bets wrote
/// about 4,000 transfers, a megabyte for the cage to check and the disk to
/// take while every table's bets waited behind it. Format 2 settles a round
/// in one transfer of all its losing stakes, and for each player paid one of
/// their stakes back and one of their winnings; each bet's settlement stays
/// in the entry's events. A journal that starts in format 1 goes on in
/// format 2 from a `journal_format` entry, which the server writes when it
/// opens it.
pub const JOURNAL_FORMAT: u32 = 2;

/// The people the casino knows, and the journal's format. The cage changes
/// it; every table reads it (a player's number and name, how to settle), so
/// the server shares it.
#[derive(Clone)]
pub struct Directory {
    users: BTreeMap<String, User>,
    player_names: BTreeMap<u64, String>,
    /// The format of the entries written from now on: 1 until a
    /// `journal_format` entry says otherwise.
    journal_format: u32,
}

impl Default for Directory {
    fn default() -> Directory {
        Directory {
            users: BTreeMap::new(),
            player_names: BTreeMap::new(),
            journal_format: 1,
        }
    }
}

/// The directory as the cage last left it. A reader takes the current
/// version and holds no lock while it reads, so a table settling a round at
/// low priority never holds up the cage's next change (a login), nor, behind
/// that change, every other table.
pub type SharedDirectory = Arc<RwLock<Arc<Directory>>>;

/// The directory as it is now. A writer that panicked left it whole (each
/// change is one insert), so a poisoned lock is read all the same.
pub fn read(directory: &SharedDirectory) -> Arc<Directory> {
    directory.read().unwrap_or_else(|p| p.into_inner()).clone()
}

/// How long a change of the directory waits for the readers of the current
/// version to let go before it changes a copy instead. A bet reads it for
/// microseconds; a round settling at low priority, for milliseconds or more.
pub const DIRECTORY_WAIT_MS: u64 = 2;

/// Changes the directory: in place once no one reads the current version
/// (no new reader starts meanwhile), or on a copy if some reader holds it
/// past [`DIRECTORY_WAIT_MS`]; those readers keep theirs. A copy costs about
/// 0.3 ms for 1,000 users, 5 ms for 10,000 and 55 ms for 100,000.
fn change(directory: &SharedDirectory, f: impl FnOnce(&mut Directory)) {
    let mut current = directory.write().unwrap_or_else(|p| p.into_inner());
    let since = std::time::Instant::now();
    while Arc::strong_count(&current) > 1 && since.elapsed().as_millis() < u128::from(DIRECTORY_WAIT_MS) {
        std::thread::yield_now();
    }
    f(Arc::make_mut(&mut current));
}

impl Directory {
    pub fn user(&self, username: &str) -> Option<&User> {
        self.users.get(username)
    }

    pub fn users(&self) -> impl Iterator<Item = &User> {
        self.users.values()
    }

    fn name_of(&self, player: u64) -> String {
        self.name_ref(player).into_owned()
    }

    /// A player's name, borrowed where the directory has it.
    fn name_ref(&self, player: u64) -> Cow<'_, str> {
        match self.player_names.get(&player) {
            Some(name) => Cow::Borrowed(name),
            None => Cow::Owned(format!("#{player}")),
        }
    }

    fn player(&self, username: &str) -> Result<&User, ApiError> {
        match self.users.get(username) {
            Some(u) if u.role == Role::Player => Ok(u),
            _ => Err(err("no_player", format!("no player {username:?}"))),
        }
    }
}

/// The cage: the ledger with its journal, the people, and the list of tables.
/// Requests that belong to no table (users, logins, cash, new tables) run
/// here. A table's requests run at the table, its single writer; only their
/// journal entries come here, and the order they arrive in is the journal's.
pub struct Cage<S: Storage> {
    ledger: Ledger<S>,
    directory: SharedDirectory,
    tables: BTreeSet<String>,
    /// Tables created and not yet taken by whoever runs them.
    opened: Vec<TableSlot>,
}

/// The most a table's request may refer to before the ledger must say
/// whether it can be done: money out of a wallet, or a transfer id the
/// client chose (which the ledger may already hold).
fn needs_verdict(request: &Request) -> bool {
    matches!(
        request,
        Request::BuyIn { .. } | Request::SellChips { .. } | Request::LeaveTable { .. } | Request::Tip { .. }
    )
}

/// What a table's request comes to before its entry is written: the table's
/// writer builds it, the cage commits it.
struct Prepared {
    transfers: Vec<Transfer>,
    text: String,
    views: Vec<EventView>,
    texts: Vec<Bytes>,
    effects: Vec<Effect>,
    needs_verdict: bool,
}

/// A table's entry that needs no verdict: its transfers and its request's
/// text, serialised where the table runs (see [`Cage::write_checked`]).
pub fn checked_entry(transfers: Vec<Transfer>, text: String) -> Recorded {
    Recorded::new(Record::Commit {
        transfers,
        events: vec![StreamEvent {
            stream: STREAM.to_string(),
            body: text,
        }],
    })
}

/// A write the ledger did not take, as an answer: its refusal, or a storage failure.
fn ledger_error(e: LedgerError) -> ApiError {
    match e {
        LedgerError::Refused { refusal, .. } => err("refused", refusal.to_string()),
        other => err("storage", format!("nothing was changed: {other}")),
    }
}

/// How a table's entry is written: the transfers, the journal text, and
/// whether the table waits for the ledger's verdict (the transfers' fates),
/// or has checked everything itself and goes on.
pub trait Commit {
    fn commit(
        &mut self,
        at_ms: u64,
        transfers: Vec<Transfer>,
        text: String,
        verdict: bool,
    ) -> Result<Vec<Applied>, ApiError>;
}

impl<S: Storage> Commit for Cage<S> {
    fn commit(
        &mut self,
        at_ms: u64,
        transfers: Vec<Transfer>,
        text: String,
        verdict: bool,
    ) -> Result<Vec<Applied>, ApiError> {
        if verdict {
            self.write(at_ms, &transfers, text)
        } else {
            let created = vec![Applied::Created; transfers.len()];
            self.write_checked(at_ms, checked_entry(transfers, text))?;
            Ok(created)
        }
    }
}

impl<S: Storage> Cage<S> {
    pub fn ledger(&self) -> &Ledger<S> {
        &self.ledger
    }

    pub fn directory(&self) -> &SharedDirectory {
        &self.directory
    }

    pub fn user(&self, username: &str) -> Option<User> {
        read(&self.directory).user(username).cloned()
    }

    /// See [`Casino::begin_group`].
    pub fn begin_group(&mut self) -> Result<(), croupier_ledger::StorageError> {
        self.ledger.begin_group()
    }

    pub fn end_group(&mut self) -> Result<(), croupier_ledger::StorageError> {
        self.ledger.end_group()
    }

    /// The tables created since the last call, for whoever runs them.
    pub fn take_opened(&mut self) -> Vec<TableSlot> {
        std::mem::take(&mut self.opened)
    }

    /// Executes a request that belongs to no table.
    pub fn execute(&mut self, at_ms: u64, actor: &Actor, request: Request) -> Result<Vec<EventView>, ApiError> {
        let plan = self.plan(&read(&self.directory), actor, &request)?;
        if plan.is_empty() {
            return Ok(Vec::new());
        }
        let text = journal_text(at_ms, actor, &request, &plan.views)?;
        self.write(at_ms, &plan.transfers, text)?;
        for effect in plan.effects {
            self.apply(effect);
        }
        Ok(plan.views)
    }

    /// Writes one request's transfers and journal text as one entry, all or nothing.
    fn write(&mut self, at_ms: u64, transfers: &[Transfer], text: String) -> Result<Vec<Applied>, ApiError> {
        self.ledger
            .commit(at_ms, transfers, &[(STREAM.to_string(), text)])
            .map_err(ledger_error)
    }

    /// Writes a table's entry that the table has checked itself and counts as
    /// done: refused, with nothing written, unless every transfer is new.
    pub fn write_checked(&mut self, at_ms: u64, entry: Recorded) -> Result<(), ApiError> {
        self.ledger.commit_new(at_ms, entry).map_err(ledger_error)
    }

    fn plan(&self, dir: &Directory, actor: &Actor, request: &Request) -> Result<Plan, ApiError> {
        use Request as R;
        let mut plan = Plan::new();
        match request {
            R::CreateUser {
                username,
                role,
                password_hash,
            } => {
                require(actor, &[Role::Admin], "create users")?;
                if !valid_username(username) {
                    return Err(err("bad_username", "a username is 1 to 32 of a-z, 0-9, '-', '_', '.'"));
                }
                if dir.users.contains_key(username) || username == "system" {
                    return Err(err("exists", format!("user {username:?} exists")));
                }
                if dir.users.len() >= USERS_MAX {
                    return Err(err("full", "no more users"));
                }
                plan.views.push(EventView::UserCreated {
                    username: username.clone(),
                    role: *role,
                });
                plan.effects.push(Effect::AddUser(User {
                    username: username.clone(),
                    role: *role,
                    password_hash: password_hash.clone(),
                    failures: 0,
                    locked: false,
                    player_id: dir.users.len() as u64,
                }));
            }
            R::LoginFailed { username } | R::LoginSucceeded { username } => {
                require(actor, &[Role::Admin], "record logins")?;
                let user = dir.users.get(username).ok_or_else(|| err("no_user", "no such user"))?;
                let failed = matches!(request, R::LoginFailed { .. });
                let failures = if failed { user.failures + 1 } else { 0 };
                let locked = user.locked || failures >= LOGIN_FAILURES_MAX;
                plan.views.push(if failed {
                    EventView::LoginFailed {
                        username: username.clone(),
                        failures,
                        locked,
                    }
                } else {
                    EventView::LoginSucceeded {
                        username: username.clone(),
                    }
                });
                plan.effects.push(Effect::Login {
                    username: username.clone(),
                    failures,
                    locked,
                });
            }
            R::JournalFormat { format } => {
                require(actor, &[Role::Admin], "set the journal's format")?;
                if *format <= dir.journal_format || *format > JOURNAL_FORMAT {
                    return Err(err(
                        "bad_format",
                        format!(
                            "the journal is in format {}; it can go on only in a later one up to {JOURNAL_FORMAT}, not {format}",
                            dir.journal_format
                        ),
                    ));
                }
                plan.views.push(EventView::JournalFormatSet { format: *format });
                plan.effects.push(Effect::JournalFormat(*format));
            }
            R::CreateTable {
                table,
                profile_text,
                wheel,
                in_prison,
                betting_window_ms,
                outcome,
                shared_colours,
                wheel_address,
            } => {
                require(actor, &[Role::Admin], "create tables")?;
                match (outcome, wheel_address) {
                    (OutcomeSource::Wheel, None) => {
                        return Err(err(
                            "bad_table",
                            "a wheel table needs the wheel's address (wheel_address)",
                        ))
                    }
                    (OutcomeSource::Rng | OutcomeSource::Dealer, Some(_)) => {
                        return Err(err("bad_table", "only a wheel table has a wheel_address"))
                    }
                    (_, Some(a)) if a.parse::<std::net::SocketAddr>().is_err() => {
                        return Err(err("bad_table", format!("wheel_address {a:?} is not IP:PORT")))
                    }
                    _ => {}
                }
                if Account::parse(&format!("float:{table}")).is_err() || table.len() > 32 {
                    return Err(err(
                        "bad_table",
                        "a table id is 1 to 32 of a-z, A-Z, 0-9, '-', '_', '.'",
                    ));
                }
                if RESERVED_TABLE_IDS.contains(&table.as_str()) {
                    return Err(err(
                        "bad_table",
                        format!("{table:?} names a kind of transfer in the ledger; choose another table id"),
                    ));
                }
                if self.tables.contains(table) {
                    return Err(err("exists", format!("table {table:?} exists")));
                }
                if self.tables.len() >= TABLES_MAX {
                    return Err(err("full", "no more tables"));
                }
                let profile =
                    croupier_profiles::parse(profile_text, table).map_err(|e| err("bad_profile", e.to_string()))?;
                let wheel = Wheel::parse(wheel).ok_or_else(|| err("bad_wheel", format!("{wheel:?} is not a wheel")))?;
                let profile_name = profile.name().to_string();
                let core = Table::new(
                    profile,
                    TableConfig {
                        wheel,
                        in_prison: *in_prison,
                        betting_window_ms: *betting_window_ms,
                    },
                )
                .map_err(|e| err("bad_table", e.to_string()))?;
                plan.views.push(EventView::TableCreated {
                    table: table.clone(),
                    profile: profile_name.clone(),
                    wheel: wheel.name().to_string(),
                    outcome: *outcome,
                });
                plan.effects.push(Effect::AddTable(Box::new(TableSlot {
                    id: table.clone(),
                    table: core,
                    outcome: *outcome,
                    profile_name,
                    colours: BTreeMap::new(),
                    shared_colours: *shared_colours,
                    wheel_address: wheel_address.clone(),
                    rounds: VecDeque::new(),
                    log: VecDeque::new(),
                    books: HashMap::new(),
                    entries: 0,
                    finished: None,
                    layout: account(format!("layout:{table}"))?,
                    float: account(format!("float:{table}"))?,
                })));
            }
            R::CashIn { id, player, amount } | R::CashOut { id, player, amount } => {
                require(actor, &[Role::Cashier], "handle cash")?;
                dir.player(player)?;
                let wallet = account(format!("wallet:{player}"))?;
                let outside = account("outside".into())?;
                let cash_in = matches!(request, R::CashIn { .. });
                let (from, to, tag) = if cash_in {
                    (outside, wallet, "cashin")
                } else {
                    (wallet, outside, "cashout")
                };
                plan.transfers
                    .push(transfer(format!("{tag}/{id}"), from, to, *amount, tag));
                plan.views.push(if cash_in {
                    EventView::CashedIn {
                        player: player.clone(),
                        amount: *amount,
                    }
                } else {
                    EventView::CashedOut {
                        player: player.clone(),
                        amount: *amount,
                    }
                });
            }
            _ => return Err(err("internal", "a table's request reached the cage")),
        }
        Ok(plan)
    }

    fn apply(&mut self, effect: Effect) {
        match effect {
            Effect::AddUser(user) => change(&self.directory, |dir| {
                if user.role == Role::Player {
                    dir.player_names.insert(user.player_id, user.username.clone());
                }
                dir.users.insert(user.username.clone(), user);
            }),
            Effect::Login {
                username,
                failures,
                locked,
            } => change(&self.directory, |dir| {
                if let Some(u) = dir.users.get_mut(&username) {
                    u.failures = failures;
                    u.locked = locked;
                }
            }),
            Effect::AddTable(slot) => {
                self.tables.insert(slot.id.clone());
                self.opened.push(*slot);
            }
            Effect::JournalFormat(format) => change(&self.directory, |dir| dir.journal_format = format),
            Effect::Core { .. } | Effect::Seat { .. } => {
                debug_assert!(false, "a table's effect reached the cage");
            }
        }
    }
}

/// The longest bet id a table takes: its movements are named
/// `{table}/{round}/{bet_id}/returned`, for any round number to come, and
/// must fit the ledger's ids.
pub fn bet_id_max_bytes(table: &str) -> usize {
    let round_digits = u64::MAX.to_string().len();
    croupier_ledger::ID_MAX_BYTES.saturating_sub(table.len() + round_digits + "//".len() + "/returned".len())
}

fn require(actor: &Actor, allowed: &[Role], what: &str) -> Result<(), ApiError> {
    if allowed.contains(&actor.role) {
        Ok(())
    } else {
        Err(ApiError::forbidden(what, actor.role))
    }
}

fn person(actor: &Actor, role_text: &str) -> Person {
    Person {
        name: actor.username.clone(),
        role: role_text.to_string(),
        licence: if actor.licence.is_empty() {
            "-".to_string()
        } else {
            actor.licence.clone()
        },
    }
}

impl TableSlot {
    /// Whether an account is this table's own: its players' chips, its
    /// layout, float, drop box, tip box and coupons.
    fn local(&self, account: &Account) -> bool {
        table_owns(&self.id, account)
    }

    fn balance_of(&self, account: &Account) -> i128 {
        self.books.get(account).copied().unwrap_or(0)
    }

    /// The balance of one of this table's accounts (0 for any other).
    pub fn balance(&self, account: &str) -> i128 {
        Account::parse(account).map(|a| self.balance_of(&a)).unwrap_or(0)
    }

    /// The last `n` rounds, newest first.
    pub fn recall(&self, n: usize) -> Vec<&RoundRecord> {
        self.rounds.iter().rev().take(n).map(Arc::as_ref).collect()
    }

    /// The last `n` rounds `player` bet in at this table, newest first.
    pub fn recall_player(&self, player: &str, n: usize) -> Vec<&RoundRecord> {
        self.rounds
            .iter()
            .rev()
            .filter(|r| r.bets.iter().any(|b| b.player == player))
            .take(n)
            .map(Arc::as_ref)
            .collect()
    }

    pub fn round(&self, id: &str) -> Option<&RoundRecord> {
        self.rounds.iter().find(|r| r.id == id).map(Arc::as_ref)
    }

    /// From now on, keeps each round whose record becomes final for [`TableSlot::take_finished`].
    pub fn keep_finished(&mut self) {
        self.finished.get_or_insert_with(Vec::new);
    }

    /// The rounds whose records became final since the last call, oldest first.
    pub fn take_finished(&mut self) -> Vec<Arc<RoundRecord>> {
        self.finished.as_mut().map(std::mem::take).unwrap_or_default()
    }

    /// Executes a request at this table, its single writer: plans it from the
    /// table's own state, has `cage` write its entry, and applies it. A
    /// request the table has checked in full is applied without waiting for
    /// the cage; one whose money the ledger alone can judge waits for its
    /// verdict. The events come with their texts as the journal holds them, for the streams.
    pub fn execute(
        &mut self,
        directory: &SharedDirectory,
        at_ms: u64,
        actor: &Actor,
        request: Request,
        cage: &mut impl Commit,
    ) -> Result<Executed, ApiError> {
        // The directory is not held while the cage is asked: the cage may be
        // waiting to add a user.
        let prepared = self.prepare(&read(directory), at_ms, actor, request)?;
        let Some(Prepared {
            transfers,
            text,
            views,
            texts,
            effects,
            needs_verdict,
        }) = prepared
        else {
            return Ok(Executed::default());
        };
        if needs_verdict {
            let kept = transfers.clone();
            let applied = cage.commit(at_ms, transfers, text, true)?;
            let made = kept
                .iter()
                .zip(&applied)
                .filter(|(_, a)| **a == Applied::Created)
                .map(|(t, _)| t);
            let deltas = self.deltas(made);
            self.book(deltas);
        } else {
            let deltas = self.deltas(transfers.iter());
            cage.commit(at_ms, transfers, text, false)?;
            self.book(deltas);
        }
        self.entries += 1;
        let dir = read(directory);
        for effect in effects {
            self.apply(&dir, at_ms, effect);
        }
        Ok(Executed { views, texts })
    }

    fn prepare(
        &self,
        dir: &Directory,
        at_ms: u64,
        actor: &Actor,
        request: Request,
    ) -> Result<Option<Prepared>, ApiError> {
        let plan = self.plan(dir, at_ms, actor, &request)?;
        if plan.is_empty() {
            return Ok(None);
        }
        let needs_verdict = needs_verdict(&request);
        if !needs_verdict {
            self.precheck(&plan.transfers)?;
        }
        let Rendered { journal, events } = render(at_ms, actor, &request, &plan.views)?;
        Ok(Some(Prepared {
            transfers: plan.transfers,
            text: journal,
            views: plan.views,
            texts: events,
            effects: plan.effects,
            needs_verdict,
        }))
    }

    /// Checks transfers as the ledger will, on the table's own accounts: a
    /// transfer checked here the ledger accepts, so the table need not wait.
    fn precheck(&self, transfers: &[Transfer]) -> Result<(), ApiError> {
        let mut pending: HashMap<&Account, i128> = HashMap::new();
        let mut seen = HashSet::new();
        for t in transfers {
            croupier_ledger::check_shape(t).map_err(|r| err("refused", format!("transfer {}: {r}", t.id)))?;
            if !seen.insert(t.id.as_str()) {
                return Err(err("refused", Refusal::DuplicateInBatch(t.id.clone()).to_string()));
            }
            let from_local = self.local(&t.from);
            if !from_local && !t.from.may_go_negative() {
                return Err(err(
                    "internal",
                    format!("transfer {} draws on {}, which only the cage can judge", t.id, t.from),
                ));
            }
            let amount = i128::from(t.amount);
            if from_local {
                let balance = pending.entry(&t.from).or_insert_with(|| self.balance_of(&t.from));
                if *balance < amount {
                    let refusal = Refusal::InsufficientFunds {
                        account: t.from.clone(),
                        balance: *balance,
                        amount: t.amount,
                    };
                    return Err(err("refused", refusal.to_string()));
                }
                *balance -= amount;
            }
            if self.local(&t.to) {
                *pending.entry(&t.to).or_insert_with(|| self.balance_of(&t.to)) += amount;
            }
        }
        Ok(())
    }

    /// What transfers do to the table's own accounts, summed per account.
    fn deltas<'a>(&self, transfers: impl Iterator<Item = &'a Transfer>) -> HashMap<Account, i128> {
        let mut deltas: HashMap<Account, i128> = HashMap::new();
        for t in transfers {
            if self.local(&t.from) {
                *deltas.entry(t.from.clone()).or_default() -= i128::from(t.amount);
            }
            if self.local(&t.to) {
                *deltas.entry(t.to.clone()).or_default() += i128::from(t.amount);
            }
        }
        deltas
    }

    fn book(&mut self, deltas: HashMap<Account, i128>) {
        for (account, delta) in deltas {
            *self.books.entry(account).or_default() += delta;
        }
    }

    /// The colour of `player`'s chips at this table for a purchase of
    /// `amount` in chips worth `chip_value` each: the colour they have, or the
    /// first no one else here has (Maryland ch.3 B, european-casino 5.1), or
    /// any where colours may repeat (Colorado 2203(3)).
    fn colour_for(&self, player: &str, amount: u64, chip_value: u64) -> Result<String, ApiError> {
        if chip_value == 0 || amount == 0 || !amount.is_multiple_of(chip_value) {
            return Err(err(
                "bad_amount",
                "the amount must be a positive whole number of chips of the chip value",
            ));
        }
        let palette = &self.table.profile().spec().chip_colours;
        match self.colours.get(player) {
            Some((colour, value)) if *value == chip_value => Ok(colour.clone()),
            Some((_, value)) => Err(err(
                "chip_value",
                format!("{player}'s colour chips at this table are worth {value} each"),
            )),
            None if self.shared_colours => Ok(palette[self.colours.len() % palette.len()].clone()),
            None => palette
                .iter()
                .find(|c| !self.colours.values().any(|(taken, _)| taken == *c))
                .cloned()
                .ok_or_else(|| err("no_colour", "every chip colour at this table is in use")),
        }
    }

    fn plan(&self, dir: &Directory, at_ms: u64, actor: &Actor, request: &Request) -> Result<Plan, ApiError> {
        use Request as R;
        let staff = [Role::Dealer, Role::PitSupervisor, Role::Admin];
        let pit = [Role::PitSupervisor, Role::Admin];
        let mut plan = Plan::new();
        match request {
            R::BuyIn {
                id,
                table,
                amount,
                chip_value,
            } => {
                require(actor, &[Role::Player], "buy in")?;
                let player = &actor.username;
                let colour = self.colour_for(player, *amount, *chip_value)?;
                plan.transfers.push(transfer(
                    format!("buyin/{id}"),
                    account(format!("wallet:{player}"))?,
                    account(format!("chips:{table}:{player}"))?,
                    *amount,
                    "colour chips",
                ));
                let view = EventView::BoughtIn {
                    table: table.clone(),
                    player: player.clone(),
                    amount: *amount,
                    colour: colour.clone(),
                    chip_value: *chip_value,
                };
                plan.seat(view, player, colour, *chip_value);
            }
            R::SellChips {
                id,
                table,
                player,
                amount,
                chip_value,
            } => {
                // Colorado 2203(1): chips are issued by the dealer; 2202: the
                // money paid for them goes into the table's drop box.
                require(actor, &staff, "sell chips")?;
                dir.player(player)?;
                let colour = self.colour_for(player, *amount, *chip_value)?;
                plan.transfers.push(transfer(
                    format!("sale/{id}"),
                    account("outside".into())?,
                    account(format!("drop:{table}"))?,
                    *amount,
                    "cash for colour chips, into the drop box (Colorado 2202)",
                ));
                plan.transfers.push(transfer(
                    format!("sale/{id}/chips"),
                    account("house".into())?,
                    account(format!("chips:{table}:{player}"))?,
                    *amount,
                    "colour chips sold at the table",
                ));
                let view = EventView::ChipsSold {
                    table: table.clone(),
                    player: player.clone(),
                    amount: *amount,
                    colour: colour.clone(),
                    chip_value: *chip_value,
                };
                plan.seat(view, player, colour, *chip_value);
            }
            R::LeaveTable { id, table } => {
                require(actor, &[Role::Player], "cash in colour chips")?;
                let slot = self;
                let player = &actor.username;
                let Some((colour, _)) = slot.colours.get(player) else {
                    return Err(err("not_seated", "you have no colour chips at this table"));
                };
                let player_id = dir.player(player)?.player_id;
                if slot.table.bets().iter().any(|b| b.player == player_id) {
                    return Err(err("bets_on_layout", "your bets are still on the layout"));
                }
                let chips = account(format!("chips:{table}:{player}"))?;
                let amount = self.balance_of(&chips) as u64;
                if amount > 0 {
                    plan.transfers.push(transfer(
                        format!("leave/{id}"),
                        chips,
                        account(format!("wallet:{player}"))?,
                        amount,
                        "colour chips cashed in (Maryland ch.3 C)",
                    ));
                }
                plan.views.push(EventView::LeftTable {
                    table: table.clone(),
                    player: player.clone(),
                    amount,
                    colour: colour.clone(),
                });
                plan.effects.push(Effect::Seat {
                    player: player.clone(),
                    colour: None,
                });
            }
            R::Tip { id, table, amount } => {
                require(actor, &[Role::Player], "tip")?;
                plan.transfers.push(transfer(
                    format!("tip/{id}"),
                    account(format!("chips:{table}:{}", actor.username))?,
                    account(format!("tips:{table}"))?,
                    *amount,
                    "tip to the dealers' tip box",
                ));
                plan.views.push(EventView::Tipped {
                    table: table.clone(),
                    player: actor.username.clone(),
                    amount: *amount,
                });
            }
            R::PlaceBet {
                table: _,
                bet_id,
                spot,
                stake,
                zero_choice,
                coupon,
            } => {
                require(actor, &[Role::Player], "bet")?;
                let slot = self;
                let me = dir.player(&actor.username)?;
                let Some((_, chip_value)) = slot.colours.get(&actor.username) else {
                    return Err(err("not_seated", "buy colour chips at this table first"));
                };
                if stake % chip_value != 0 {
                    return Err(err("bad_stake", format!("a stake is whole chips of {chip_value}")));
                }
                // Each of the bet's movements is named after it: the longest name must fit the ledger.
                let longest = bet_id_max_bytes(&self.id);
                if bet_id.len() > longest {
                    return Err(err(
                        "bad_bet_id",
                        format!("a bet id at table {} is at most {longest} bytes", self.id),
                    ));
                }
                // A resent bet that was already accepted is acknowledged again, not placed twice.
                if let Some(b) = slot.table.bet(bet_id).filter(|b| !b.carried) {
                    if b.player == me.player_id && b.bet.stake().get() == *stake {
                        return Ok(plan);
                    }
                }
                let zero_choice = zero_choice
                    .as_deref()
                    .map(|c| {
                        ZeroChoice::parse(c).ok_or_else(|| err("bad_zero_choice", "zero_choice is half or prison"))
                    })
                    .transpose()?;
                let command = Command::PlaceBet {
                    at_ms,
                    bet_id: bet_id.clone(),
                    player: me.player_id,
                    spot: spot.clone(),
                    stake_minor: i128::from(*stake),
                    zero_choice,
                    coupon_minor: coupon.map(i128::from),
                };
                self.plan_core(dir, &mut plan, command)?;
            }
            R::CancelBet { table: _, bet_id } => {
                require(actor, &[Role::Player], "cancel bets")?;
                let me = dir.player(&actor.username)?.player_id;
                self.plan_core(
                    dir,
                    &mut plan,
                    Command::CancelBet {
                        at_ms,
                        bet_id: bet_id.clone(),
                        player: me,
                    },
                )?;
            }
            R::Inspect {
                table: _,
                no_magnet_or_contrivance,
                wheel_level_and_rotating_freely,
                parts_secure,
                ball_non_magnetic,
                layout_and_signage_comply,
            } => {
                require(actor, &pit, "record inspections")?;
                let inspection = Inspection {
                    at_ms,
                    by: person(actor, actor.role.name()),
                    no_magnet_or_contrivance: *no_magnet_or_contrivance,
                    wheel_level_and_rotating_freely: *wheel_level_and_rotating_freely,
                    parts_secure: *parts_secure,
                    ball_non_magnetic: *ball_non_magnetic,
                    layout_and_signage_comply: *layout_and_signage_comply,
                };
                self.plan_core(dir, &mut plan, Command::RecordInspection(inspection))?;
            }
            R::Adjust {
                table: _,
                replacement,
                description,
            } => {
                require(actor, &pit, "record adjustments")?;
                let adjustment = Adjustment {
                    at_ms,
                    by: person(actor, actor.role.name()),
                    replacement: *replacement,
                    description: description.clone(),
                };
                self.plan_core(dir, &mut plan, Command::RecordAdjustment(adjustment))?;
            }
            R::OpenTable { table: _ } => {
                require(actor, &staff, "open tables")?;
                self.plan_core(dir, &mut plan, Command::Open { at_ms })?;
            }
            R::CloseTable { table: _ } => {
                require(actor, &staff, "close tables")?;
                self.plan_core(dir, &mut plan, Command::Close { at_ms })?;
            }
            R::OpenBetting { table: _ } => {
                require(actor, &staff, "open betting")?;
                self.plan_core(dir, &mut plan, Command::OpenBetting { at_ms })?;
            }
            R::NoMoreBets { table: _ } => {
                require(actor, &staff, "call no more bets")?;
                self.plan_core(dir, &mut plan, Command::NoMoreBets { at_ms })?;
            }
            R::Spin { table: _, spin } => {
                require(actor, &staff, "report spins")?;
                let report = spin.to_report().map_err(|e| err("bad_spin", e))?;
                self.plan_core(dir, &mut plan, Command::Spin { at_ms, report })?;
            }
            R::DeclareEmergency { table: _, reason } => {
                require(actor, &pit, "declare emergencies")?;
                let by = person(actor, actor.role.name());
                self.plan_core(
                    dir,
                    &mut plan,
                    Command::DeclareEmergency {
                        at_ms,
                        by,
                        reason: reason.clone(),
                    },
                )?;
            }
            R::LiftEmergency { table: _ } => {
                require(actor, &pit, "lift emergencies")?;
                let by = person(actor, actor.role.name());
                self.plan_core(dir, &mut plan, Command::LiftEmergency { at_ms, by })?;
            }
            R::AnnulBets {
                table: _,
                bet_ids,
                reason,
            } => {
                require(actor, &pit, "annul bets")?;
                let by = person(actor, actor.role.name());
                self.plan_core(
                    dir,
                    &mut plan,
                    Command::AnnulBets {
                        at_ms,
                        by,
                        bet_ids: bet_ids.clone(),
                        reason: reason.clone(),
                    },
                )?;
            }
            R::Dispute {
                table: _,
                reason,
                corrections,
            } => {
                let authority = self.table.profile().spec().dispute_authority.clone();
                // Colorado 2206(5): the pit supervisor, not the dealer.
                let role_text = if actor.role.matches_authority(&authority) {
                    authority.as_str()
                } else {
                    actor.role.name()
                };
                let mut core_corrections = Vec::new();
                for c in corrections {
                    core_corrections.push((dir.player(&c.player)?.player_id, i128::from(c.amount)));
                }
                let by = person(actor, role_text);
                self.plan_core(
                    dir,
                    &mut plan,
                    Command::DecideDispute {
                        at_ms,
                        by,
                        reason: reason.clone(),
                        corrections: core_corrections,
                    },
                )?;
            }
            R::VoidRound { table: _, reason } => {
                require(actor, &[Role::Admin], "void rounds")?;
                self.plan_core(
                    dir,
                    &mut plan,
                    Command::VoidRound {
                        at_ms,
                        reason: reason.clone(),
                    },
                )?;
            }
            _ => return Err(err("internal", "the cage's request reached a table")),
        }
        Ok(plan)
    }

    /// A core command's events, and the transfers that move their money.
    fn plan_core(&self, dir: &Directory, plan: &mut Plan, command: Command) -> Result<(), ApiError> {
        let (slot, table) = (self, self.id.as_str());
        let events = slot.table.decide(command).map_err(command_error)?;
        let chips = |player: u64| account(format!("chips:{table}:{}", dir.name_ref(player)));
        let (layout, float) = (&slot.layout, &slot.float);
        let round = slot.table.round();
        // Fills and corrections are numbered by the table's own entries.
        let seq = self.entries;
        let mut collect = Vec::new();
        let mut pay = Vec::new();
        let mut float_in: u64 = 0;
        let mut float_out: u64 = 0;
        // Format 2 settles a round in one transfer of the losing stakes, and
        // one of stakes back and one of winnings for each player paid.
        let mut per_player = (dir.journal_format >= 2).then(BTreeMap::<u64, (u64, u64)>::new);
        let mut lost: u64 = 0;
        for e in &events {
            match e {
                Event::BetAccepted { bet, .. } => {
                    let from = chips(bet.player)?;
                    let stake = bet.bet.stake().get();
                    let held = self.balance_of(&from);
                    if held < i128::from(stake) {
                        return Err(err(
                            "insufficient_chips",
                            format!("you hold {held} in chips, less than the stake {stake}"),
                        ));
                    }
                    collect.push(transfer(
                        format!("{table}/{round}/{}/stake", bet.bet_id),
                        from,
                        layout.clone(),
                        stake,
                        "bet",
                    ));
                }
                Event::BetCancelled {
                    bet_id,
                    player,
                    returned,
                    ..
                }
                | Event::BetReturned {
                    bet_id,
                    player,
                    returned,
                    ..
                } if returned.get() > 0 => {
                    pay.push(transfer(
                        format!("{table}/{round}/{bet_id}/returned"),
                        layout.clone(),
                        chips(*player)?,
                        returned.get(),
                        "bet returned",
                    ));
                }
                Event::BetSettled {
                    bet_id,
                    player,
                    staked,
                    returned,
                    outcome,
                    ..
                } => {
                    debug_assert!(*outcome != Outcome::Prison, "imprisoned bets are not settled");
                    let (s, r) = (staked.get(), returned.get());
                    if let Some(settled) = per_player.as_mut() {
                        let (back, won) = settled.entry(*player).or_default();
                        *back += s.min(r);
                        *won += r.saturating_sub(s);
                        lost += s.saturating_sub(r);
                        continue;
                    }
                    let back = s.min(r);
                    if back > 0 {
                        pay.push(transfer(
                            format!("{table}/{round}/{bet_id}/back"),
                            layout.clone(),
                            chips(*player)?,
                            back,
                            outcome.name(),
                        ));
                    }
                    if s > r {
                        float_in += s - r;
                        collect.push(transfer(
                            format!("{table}/{round}/{bet_id}/lost"),
                            layout.clone(),
                            float.clone(),
                            s - r,
                            "losing bet collected",
                        ));
                    }
                    if r > s {
                        float_out += r - s;
                        pay.push(transfer(
                            format!("{table}/{round}/{bet_id}/won"),
                            float.clone(),
                            chips(*player)?,
                            r - s,
                            "winning bet paid",
                        ));
                    }
                }
                Event::DisputeDecided { corrections, .. } => {
                    for (i, &(player, amount)) in corrections.iter().enumerate() {
                        let id = format!("{table}/dispute/{seq}/{i}");
                        let magnitude = amount.unsigned_abs() as u64;
                        if amount > 0 {
                            float_out += magnitude;
                            pay.push(transfer(
                                id,
                                float.clone(),
                                chips(player)?,
                                magnitude,
                                "dispute correction",
                            ));
                        } else if amount < 0 {
                            float_in += magnitude;
                            collect.push(transfer(
                                id,
                                chips(player)?,
                                float.clone(),
                                magnitude,
                                "dispute correction",
                            ));
                        }
                    }
                }
                _ => {}
            }
        }
        if lost > 0 {
            float_in += lost;
            collect.push(transfer(
                format!("{table}/{round}/lost"),
                layout.clone(),
                float.clone(),
                lost,
                "losing bets collected",
            ));
        }
        for (player, (back, won)) in per_player.into_iter().flatten() {
            let name = dir.name_ref(player);
            if back > 0 {
                pay.push(transfer(
                    format!("{table}/{round}/{name}/back"),
                    layout.clone(),
                    chips(player)?,
                    back,
                    "stakes back",
                ));
            }
            if won > 0 {
                float_out += won;
                pay.push(transfer(
                    format!("{table}/{round}/{name}/won"),
                    float.clone(),
                    chips(player)?,
                    won,
                    "winning bets paid",
                ));
            }
        }
        // Losing bets are collected first, then winners paid (Colorado 2205(4)); the
        // float is filled from the house when it cannot cover the payouts.
        let available = self.balance_of(float) + i128::from(float_in);
        plan.transfers.extend(collect);
        if i128::from(float_out) > available {
            let shortfall = (i128::from(float_out) - available) as u64;
            plan.transfers.push(transfer(
                format!("fill/{table}/{seq}"),
                account("house".into())?,
                float.clone(),
                shortfall,
                "fill",
            ));
            plan.views.push(EventView::FloatFilled {
                table: table.to_string(),
                amount: shortfall,
            });
        }
        plan.transfers.extend(pay);
        let name_of = |p: u64| dir.name_of(p);
        plan.views.extend(events.iter().map(|e| view(table, e, &name_of)));
        plan.effects.push(Effect::Core { events });
        Ok(())
    }

    fn apply(&mut self, dir: &Directory, at_ms: u64, effect: Effect) {
        match effect {
            Effect::Seat { player, colour } => match colour {
                Some(c) => {
                    self.colours.insert(player, c);
                }
                None => {
                    self.colours.remove(&player);
                }
            },
            Effect::Core { events } => {
                // Recall keeps the seated players' chips when betting opens and when the
                // round settles; only those events pay for the snapshot.
                let opens = events.iter().any(|e| matches!(e, Event::BettingOpened { .. }));
                let settles = events.iter().any(|e| matches!(e, Event::RoundSettled { .. }));
                let snapshot = |slot: &TableSlot| -> BTreeMap<String, i128> {
                    slot.colours
                        .keys()
                        .map(|p| (p.clone(), slot.balance(&format!("chips:{}:{p}", slot.id))))
                        .collect()
                };
                let before = if opens { snapshot(self) } else { BTreeMap::new() };
                let name_of = |p: u64| dir.name_of(p);
                record_all(self, at_ms, &events, &name_of, &before);
                for event in events.iter().filter(|e| logged(e)) {
                    if self.log.len() >= TABLE_LOG_MAX {
                        self.log.pop_front();
                    }
                    self.log.push_back((at_ms, view(&self.id, event, &name_of)));
                }
                self.table.apply_all(&events);
                if settles {
                    let after = snapshot(self);
                    if let Some(last) = self.rounds.back_mut() {
                        Arc::make_mut(last).chips_after = after;
                    }
                }
            }
            Effect::AddUser(_) | Effect::Login { .. } | Effect::AddTable(_) | Effect::JournalFormat(_) => {
                debug_assert!(false, "the cage's effect reached a table");
            }
        }
    }
}

/// A casino in one piece: the cage and every table, run by one thread.
/// Replay, recovery and the tests use it; the server splits it ([`Casino::into_parts`])
/// and gives each table a writer of its own.
pub struct Casino<S: Storage> {
    cage: Cage<S>,
    tables: BTreeMap<String, TableSlot>,
    /// Whether every table keeps its finished rounds ([`TableSlot::keep_finished`]).
    keep_finished: bool,
}

#[derive(Debug, thiserror::Error)]
pub enum OpenError {
    #[error("{0}")]
    Ledger(#[from] LedgerError),
    #[error("journal entry {seq}: {why}")]
    Replay { seq: u64, why: String },
}

fn err(code: &'static str, message: impl Into<String>) -> ApiError {
    ApiError::new(code, message)
}

/// Whether an account is one of `table`'s own: its second part names the
/// table (`chips:T:P`, `layout:T`, ...), and it is no wallet. Asked for both
/// ends of every transfer a table plans, so it looks at the name in place.
fn table_owns(table: &str, account: &Account) -> bool {
    let Some((kind, rest)) = account.name().split_once(':') else {
        return false;
    };
    kind != "wallet"
        && rest
            .strip_prefix(table)
            .is_some_and(|after| after.is_empty() || after.starts_with(':'))
}

fn account(name: String) -> Result<Account, ApiError> {
    Account::parse(&name).map_err(|e| err("bad_account", e))
}

fn transfer(id: String, from: Account, to: Account, amount: u64, memo: &str) -> Transfer {
    Transfer {
        id,
        from,
        to,
        amount,
        memo: memo.to_string(),
    }
}

fn command_error(e: croupier_core::round::CommandError) -> ApiError {
    use croupier_core::round::CommandError as C;
    let code = match &e {
        C::PastPosting => "past_posting",
        C::Bet(_) => "bet_refused",
        C::NotInspected | C::InspectionFailed(_) => "not_inspected",
        C::Emergency => "emergency",
        C::NotDisputeAuthority { .. } => "forbidden",
        C::DuplicateBet(_) => "duplicate_bet",
        C::BadBetId => "bad_bet_id",
        _ => "not_now",
    };
    err(code, e.to_string())
}

/// Rebuilds a casino from a journal by executing every journaled request
/// again against a ledger in memory: each request must be accepted, give
/// the same events, and together they must write the same journal back, byte
/// for byte — every transfer, every settlement. `croupier verify` uses it.
pub fn replay(entries: &[croupier_ledger::Entry]) -> Result<Casino<MemoryStorage>, OpenError> {
    replay_with(entries, None)
}

/// [`replay`], giving `on_final` every round whose record became final
/// (the next round at its table opened), in the order they did: the recall
/// archive is filled and checked with them.
pub fn replay_archiving(
    entries: &[croupier_ledger::Entry],
    on_final: &mut dyn FnMut(Arc<RoundRecord>),
) -> Result<Casino<MemoryStorage>, OpenError> {
    replay_with(entries, Some(on_final))
}

fn replay_with(
    entries: &[croupier_ledger::Entry],
    mut on_final: Option<&mut dyn FnMut(Arc<RoundRecord>)>,
) -> Result<Casino<MemoryStorage>, OpenError> {
    let mut shadow = Casino::new(Ledger::open(MemoryStorage::default())?);
    shadow.keep_finished = on_final.is_some();
    for (entry, croupier_ledger::StreamEvent { stream, body }) in entries
        .iter()
        .flat_map(|e| e.record.events().iter().map(move |ev| (e, ev)))
    {
        if stream != STREAM {
            continue;
        }
        let body: JournalBody = serde_json::from_str(body).map_err(|e| OpenError::Replay {
            seq: entry.seq,
            why: format!("unreadable request: {e}"),
        })?;
        let regenerated = shadow
            .execute(body.at_ms, &body.actor, body.request.clone())
            .map_err(|e| OpenError::Replay {
                seq: entry.seq,
                why: format!("the request is refused on replay: {e}"),
            })?;
        if regenerated != body.events {
            return Err(OpenError::Replay {
                seq: entry.seq,
                why: "the request gives different events on replay".into(),
            });
        }
        if let (Some(on_final), Some(slot)) = (
            on_final.as_mut(),
            body.request.table().and_then(|t| shadow.tables.get_mut(t)),
        ) {
            slot.take_finished().into_iter().for_each(on_final);
        }
    }
    let regenerated = &shadow.cage.ledger.storage().entries;
    if let Some((_, stored)) = regenerated.iter().zip(entries).find(|(a, b)| a != b) {
        return Err(OpenError::Replay {
            seq: stored.seq,
            why: "replaying the requests does not give this entry back: a settlement or transfer differs".into(),
        });
    }
    if regenerated.len() != entries.len() {
        return Err(OpenError::Replay {
            seq: regenerated.len().min(entries.len()) as u64 + 1,
            why: format!(
                "replaying gives {} entries where the journal has {}",
                regenerated.len(),
                entries.len()
            ),
        });
    }
    Ok(shadow)
}

impl<S: Storage> Casino<S> {
    fn new(ledger: Ledger<S>) -> Casino<S> {
        Casino {
            cage: Cage {
                ledger,
                directory: SharedDirectory::default(),
                tables: BTreeSet::new(),
                opened: Vec::new(),
            },
            tables: BTreeMap::new(),
            keep_finished: false,
        }
    }

    /// Opens a casino on its storage: replays the journal, checks that every
    /// request gives the same events and transfers again, and voids any
    /// round interrupted before its result (`now_ms` is the time of that).
    pub fn open(storage: S, now_ms: u64) -> Result<(Casino<S>, Vec<EventView>), OpenError> {
        Casino::open_with(storage, now_ms, None, JOURNAL_FORMAT)
    }

    /// [`Casino::open`] as a server that writes journal `format` would, so
    /// that tests can make a journal as an older server left it (format 1:
    /// nothing marks it). A journal already in a later format stays in it.
    pub fn open_in_format(storage: S, now_ms: u64, format: u32) -> Result<(Casino<S>, Vec<EventView>), OpenError> {
        Casino::open_with(storage, now_ms, None, format)
    }

    /// [`Casino::open`], giving `on_final` every finished round of the journal
    /// as [`replay_archiving`] does; the casino's tables keep theirs from then on.
    pub fn open_archiving(
        storage: S,
        now_ms: u64,
        on_final: &mut dyn FnMut(Arc<RoundRecord>),
    ) -> Result<(Casino<S>, Vec<EventView>), OpenError> {
        Casino::open_with(storage, now_ms, Some(on_final), JOURNAL_FORMAT)
    }

    fn open_with(
        mut storage: S,
        now_ms: u64,
        on_final: Option<&mut dyn FnMut(Arc<RoundRecord>)>,
        format: u32,
    ) -> Result<(Casino<S>, Vec<EventView>), OpenError> {
        let entries = storage.load().map_err(LedgerError::from)?;
        let ledger = Ledger::open_loaded(storage, &entries)?;
        let shadow = replay_with(&entries, on_final)?;
        let mut casino = Casino {
            cage: Cage {
                ledger,
                directory: shadow.cage.directory,
                tables: shadow.cage.tables,
                opened: Vec::new(),
            },
            tables: shadow.tables,
            keep_finished: shadow.keep_finished,
        };
        // What this server writes from here on is in its own format.
        if read(&casino.cage.directory).journal_format < format {
            casino
                .execute(now_ms, &Actor::system(), Request::JournalFormat { format })
                .map_err(|e| OpenError::Replay {
                    seq: 0,
                    why: format!("going on in journal format {format}: {e}"),
                })?;
        }
        // A round without a recorded result is void and its bets go back
        // (a recorded result was committed with its settlement, all at once).
        let mut recovered = Vec::new();
        let interrupted: Vec<String> = casino
            .tables
            .values()
            .filter(|s| matches!(s.table.phase(), Phase::BettingOpen { .. } | Phase::NoMoreBets))
            .map(|s| s.id.clone())
            .collect();
        for table in interrupted {
            let views = casino
                .execute(
                    now_ms,
                    &Actor::system(),
                    Request::VoidRound {
                        table,
                        reason: "the server stopped before the result; the round is void".into(),
                    },
                )
                .map_err(|e| OpenError::Replay {
                    seq: 0,
                    why: format!("voiding an interrupted round: {e}"),
                })?;
            recovered.extend(views);
        }
        Ok((casino, recovered))
    }

    /// The cage and the tables, for a server that runs each table on a writer of its own.
    pub fn into_parts(self) -> (Cage<S>, Vec<TableSlot>) {
        (self.cage, self.tables.into_values().collect())
    }

    pub fn ledger(&self) -> &Ledger<S> {
        &self.cage.ledger
    }

    /// Requests executed between these two are durable together at `end_group`
    /// (under the server's [`crate::committer::Pipeline`], `end_group` hands them
    /// to the committer, which answers them once they are durable).
    pub fn begin_group(&mut self) -> Result<(), croupier_ledger::StorageError> {
        self.cage.begin_group()
    }

    pub fn end_group(&mut self) -> Result<(), croupier_ledger::StorageError> {
        self.cage.end_group()
    }

    pub fn user(&self, username: &str) -> Option<User> {
        self.cage.user(username)
    }

    pub fn users(&self) -> Vec<User> {
        read(&self.cage.directory).users().cloned().collect()
    }

    pub fn tables(&self) -> impl Iterator<Item = &TableSlot> {
        self.tables.values()
    }

    pub fn table(&self, id: &str) -> Option<&TableSlot> {
        self.tables.get(id)
    }

    pub fn balance(&self, account: &str) -> i128 {
        Account::parse(account)
            .map(|a| self.cage.ledger.balance(&a))
            .unwrap_or(0)
    }

    /// The last `n` rounds of a table, newest first.
    pub fn recall_table(&self, table: &str, n: usize) -> Vec<&RoundRecord> {
        self.tables.get(table).map(|s| s.recall(n)).unwrap_or_default()
    }

    /// The last `n` rounds a player bet in, newest first, over every table.
    pub fn recall_player(&self, player: &str, n: usize) -> Vec<&RoundRecord> {
        newest(self.tables.values().map(|s| s.recall_player(player, n)), n)
    }

    pub fn round(&self, id: &str) -> Option<&RoundRecord> {
        let (table, _) = id.rsplit_once('/')?;
        self.tables.get(table)?.round(id)
    }

    /// Executes a request: checks it, makes its money and journal entry
    /// durable in one batch, and only then changes the state.
    pub fn execute(&mut self, at_ms: u64, actor: &Actor, request: Request) -> Result<Vec<EventView>, ApiError> {
        match request.table().map(str::to_string) {
            Some(table) => {
                let slot = self
                    .tables
                    .get_mut(&table)
                    .ok_or_else(|| err("no_table", format!("no table {table:?}")))?;
                let directory = self.cage.directory.clone();
                slot.execute(&directory, at_ms, actor, request, &mut self.cage)
                    .map(|e| e.views)
            }
            None => {
                let views = self.cage.execute(at_ms, actor, request)?;
                for mut slot in self.cage.take_opened() {
                    if self.keep_finished {
                        slot.keep_finished();
                    }
                    self.tables.insert(slot.id.clone(), slot);
                }
                Ok(views)
            }
        }
    }
}

/// The newest `n` rounds of several lists, each newest first.
fn newest<'a>(lists: impl Iterator<Item = Vec<&'a RoundRecord>>, n: usize) -> Vec<&'a RoundRecord> {
    let mut rounds: Vec<&RoundRecord> = lists.flatten().collect();
    rounds.sort_by_key(|r| std::cmp::Reverse(r.opened_at_ms));
    rounds.truncate(n);
    rounds
}

/// Keeps the recall record of the current round up to date, finding bets
/// through an index so a round of many bets settles in linear time.
fn record_all(
    slot: &mut TableSlot,
    at_ms: u64,
    events: &[Event],
    name_of: &dyn Fn(u64) -> String,
    before: &BTreeMap<String, i128>,
) {
    let table = slot.id.clone();
    let mut index: Option<std::collections::HashMap<String, usize>> = None;
    for e in events {
        if let Event::BettingOpened { round, .. } = e {
            // The round before is over: its record changes no more.
            if let (Some(finished), Some(last)) = (slot.finished.as_mut(), slot.rounds.back()) {
                finished.push(last.clone());
            }
            if slot.rounds.len() >= RECALL_ROUNDS_MAX {
                slot.rounds.pop_front();
            }
            // Bets still in prison ride into the new round's record.
            let carried: Vec<BetRecord> = slot
                .table
                .bets()
                .iter()
                .map(|b| BetRecord {
                    bet_id: b.bet_id.clone(),
                    player: name_of(b.player),
                    spot: b.bet.spot().notation(),
                    kind: b.bet.kind().name().to_string(),
                    stake: b.bet.stake().get(),
                    result: Some("prison".into()),
                    returned: None,
                })
                .collect();
            slot.rounds.push_back(Arc::new(RoundRecord {
                id: format!("{table}/{round}"),
                table: table.clone(),
                round: *round,
                opened_at_ms: at_ms,
                pocket: None,
                no_spins: Vec::new(),
                bets: carried,
                settled: false,
                chips_before: before.clone(),
                chips_after: BTreeMap::new(),
            }));
            index = None;
            continue;
        }
        // The newest round is shared with no one yet: changing it copies nothing.
        let Some(r) = slot.rounds.back_mut().map(Arc::make_mut) else {
            continue;
        };
        let mut update = |bet_id: &str, result: &str, returned: Option<u64>| {
            let positions =
                index.get_or_insert_with(|| r.bets.iter().enumerate().map(|(i, b)| (b.bet_id.clone(), i)).collect());
            if let Some(&i) = positions.get(bet_id) {
                r.bets[i].result = Some(result.to_string());
                if returned.is_some() {
                    r.bets[i].returned = returned;
                }
            }
        };
        match e {
            Event::BetAccepted { bet, .. } => {
                r.bets.push(BetRecord {
                    bet_id: bet.bet_id.clone(),
                    player: name_of(bet.player),
                    spot: bet.bet.spot().notation(),
                    kind: bet.bet.kind().name().to_string(),
                    stake: bet.bet.stake().get(),
                    result: None,
                    returned: None,
                });
                index = None;
            }
            Event::BetCancelled { bet_id, .. } => {
                r.bets.retain(|b| &b.bet_id != bet_id);
                index = None;
            }
            Event::NoSpin { reason, .. } => r.no_spins.push(reason.name().to_string()),
            Event::ResultRecorded { pocket, .. } => r.pocket = Some(pocket.label().to_string()),
            Event::BetSettled {
                bet_id,
                outcome,
                returned,
                ..
            } => update(bet_id, outcome.name(), Some(returned.get())),
            Event::BetReturned { bet_id, returned, .. } => update(bet_id, "returned", Some(returned.get())),
            Event::BetImprisoned { bet_id, .. } => update(bet_id, "prison", None),
            Event::RoundSettled { .. } => r.settled = true,
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn accepted(table: &str, bet_id: &str, player: &str, spot: &str) -> EventView {
        EventView::BetAccepted {
            table: table.into(),
            round: 3,
            bet_id: bet_id.into(),
            player: player.into(),
            spot: spot.into(),
            kind: "straight".into(),
            stake: 100,
        }
    }

    /// Rendering once must write what serialising the body and each event writes.
    fn renders_as_serde_json_does(actor: &Actor, request: &Request, events: &[EventView]) {
        let rendered = render(1_795_435_108_017, actor, request, events).expect("renders");
        let whole = journal_text(1_795_435_108_017, actor, request, events).expect("serialises");
        assert_eq!(rendered.journal, whole);
        assert_eq!(rendered.events.len(), events.len());
        for (text, e) in rendered.events.iter().zip(events) {
            assert_eq!(text.as_ref(), serde_json::to_string(e).expect("serialises").as_bytes());
        }
    }

    #[test]
    fn an_entry_is_rendered_as_its_body_and_events_serialise() {
        let actor = Actor {
            username: "p7".into(),
            role: Role::Player,
            licence: String::new(),
        };
        let bet = Request::PlaceBet {
            table: "t1".into(),
            bet_id: "p7-34".into(),
            spot: "black".into(),
            stake: 100,
            zero_choice: None,
            coupon: Some(4),
        };
        renders_as_serde_json_does(&actor, &bet, &[]);
        renders_as_serde_json_does(&actor, &bet, &[accepted("t1", "p7-34", "p7", "black")]);
        let round = [
            EventView::NoMoreBets {
                table: "t1".into(),
                round: 3,
            },
            accepted("t1", "a", "p7", "17"),
            accepted("t1", "b", "p8", "0-00"),
        ];
        renders_as_serde_json_does(&Actor::system(), &Request::NoMoreBets { table: "t1".into() }, &round);
    }

    proptest::proptest! {
        /// Whatever the strings hold (quotes, backslashes, control characters, any script).
        #[test]
        fn any_text_renders_as_serde_json_writes_it(
            username in ".{0,12}",
            bet_id in ".{0,20}",
            spot in "[\\PC\"\\\\\n]{0,8}",
            events in 0usize..5,
        ) {
            let actor = Actor { username: username.clone(), role: Role::Player, licence: "\u{1}".into() };
            let bet = Request::PlaceBet {
                table: "t\"1".into(),
                bet_id: bet_id.clone(),
                spot: spot.clone(),
                stake: 5,
                zero_choice: Some("prison".into()),
                coupon: None,
            };
            let shown: Vec<EventView> = (0..events).map(|i| accepted("t\"1", &format!("{bet_id}{i}"), &username, &spot)).collect();
            renders_as_serde_json_does(&actor, &bet, &shown);
        }
    }

    #[test]
    fn a_table_owns_the_accounts_its_name_is_second_in() {
        let owns = |name: &str| table_owns("t1", &Account::parse(name).expect("an account"));
        for name in [
            "chips:t1:alice",
            "layout:t1",
            "float:t1",
            "tips:t1",
            "drop:t1",
            "coupons:t1",
        ] {
            assert!(owns(name), "{name}");
        }
        for name in [
            "chips:t10:alice",
            "layout:t10",
            "chips:t2:t1",
            "wallet:t1",
            "house",
            "outside",
            "float:x-t1",
        ] {
            assert!(!owns(name), "{name}");
        }
    }

    /// A table settling a round at low priority reads the directory all the
    /// while; the cage's next change (a login, a new player) must not wait for it.
    #[test]
    fn a_change_to_the_directory_waits_for_no_reader() {
        let shared = SharedDirectory::default();
        let held = read(&shared);
        let (done, changed) = std::sync::mpsc::channel();
        let writer = shared.clone();
        std::thread::spawn(move || {
            change(&writer, |d| {
                d.player_names.insert(7, "p7".into());
            });
            let _ = done.send(());
        });
        assert!(
            changed.recv_timeout(std::time::Duration::from_secs(10)).is_ok(),
            "the change waited for a reader"
        );
        assert_eq!(held.name_of(7), "#7", "a reader keeps the version it took");
        assert_eq!(read(&shared).name_of(7), "p7");
        // With no reader left, a change is made in place: nothing is copied.
        drop(held);
        let before = Arc::as_ptr(&read(&shared));
        change(&shared, |d| {
            d.player_names.insert(8, "p8".into());
        });
        assert_eq!(Arc::as_ptr(&read(&shared)), before);
        assert_eq!(read(&shared).name_of(8), "p8");
    }
}
