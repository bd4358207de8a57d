//! Accounts: who holds value, named by kind and owner.
//!
//! An account is a typed value, never a string taken apart on `:`: code asks
//! an account for its table or its player, and a player named like a table
//! cannot be mistaken for one. Its name (`chips:t1:alice`) is only its
//! written form, in the journal and the API.

use std::fmt;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::ID_MAX_BYTES;

/// An owner's id within an account's name: 1 or more of a-z, A-Z, 0-9,
/// '-', '_' and '.'.
#[derive(Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Owner(Box<str>);

impl Owner {
    pub fn new(id: &str) -> Result<Owner, String> {
        let ok = !id.is_empty()
            && id
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.'));
        if ok {
            Ok(Owner(id.into()))
        } else {
            Err(format!(
                "{id:?} is not an owner's id: 1 or more of a-z, A-Z, 0-9, '-', '_', '.'"
            ))
        }
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Debug for Owner {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&self.0, f)
    }
}

/// The accounts a table keeps of its own, besides its players' chips.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum TableAccount {
    /// The stakes of the bets on the layout.
    Layout,
    /// What the table's rounds collect and pay from.
    Float,
    /// Cash taken at the table for colour chips (Colorado 2202).
    Drop,
    /// The dealers' tip box.
    Tips,
    /// What match play coupons cost the casino: a promotional liability.
    Coupons,
    /// The tournament points staked on the layout (Colorado 2214(1)).
    PointsLayout,
    /// Where a tournament table's points come from and go back to: points
    /// have no cash value, so it may go below zero as the house may.
    PointsBank,
    /// What Bonus Spin Xtreme wagers fed the primary progressive meter since
    /// it last paid (Maryland ch.4 D(3)(a)): the meter shows its reset amount
    /// plus this.
    MeterPrimary,
    /// The same for the secondary progressive meter.
    MeterSecondary,
}

impl TableAccount {
    pub const ALL: [TableAccount; 9] = [
        TableAccount::Layout,
        TableAccount::Float,
        TableAccount::Drop,
        TableAccount::Tips,
        TableAccount::Coupons,
        TableAccount::PointsLayout,
        TableAccount::PointsBank,
        TableAccount::MeterPrimary,
        TableAccount::MeterSecondary,
    ];

    pub fn name(self) -> &'static str {
        match self {
            TableAccount::Layout => "layout",
            TableAccount::Float => "float",
            TableAccount::Drop => "drop",
            TableAccount::Tips => "tips",
            TableAccount::Coupons => "coupons",
            TableAccount::PointsLayout => "points-layout",
            TableAccount::PointsBank => "points-bank",
            TableAccount::MeterPrimary => "meter-primary",
            TableAccount::MeterSecondary => "meter-secondary",
        }
    }
}

/// A tournament's accounts (Colorado 2213.01-.05).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum TournamentAccount {
    /// Entry fees, kept apart from all other cash until counted (2213.02).
    Fees,
    /// Buy-ins not yet paid out as prizes (2213.05).
    Pool,
    /// Prize vouchers won and not yet used (2213.05).
    Vouchers,
    /// The prizes' value placed into escrow before the start (2213(1), 2013).
    Escrow,
}

impl TournamentAccount {
    pub const ALL: [TournamentAccount; 4] = [
        TournamentAccount::Fees,
        TournamentAccount::Pool,
        TournamentAccount::Vouchers,
        TournamentAccount::Escrow,
    ];

    pub fn name(self) -> &'static str {
        match self {
            TournamentAccount::Fees => "entry-fees",
            TournamentAccount::Pool => "prize-pool",
            TournamentAccount::Vouchers => "vouchers",
            TournamentAccount::Escrow => "escrow",
        }
    }
}

/// An account of the ledger.
#[derive(Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Account {
    /// The casino's result: may go below zero.
    House,
    /// The world outside the casino, which cash comes from and goes to: may go below zero.
    Outside,
    /// A player's money at the cage.
    Wallet(Owner),
    /// A player's colour chips at a table.
    Chips { table: Owner, player: Owner },
    /// One of a table's own accounts.
    Table(TableAccount, Owner),
    /// One of a tournament's accounts.
    Tournament(TournamentAccount, Owner),
    /// A tournament entrant's points at a table: chips with no cash value
    /// (Colorado 2214(1)).
    Points { table: Owner, player: Owner },
}

impl Account {
    /// An account from its written name: `wallet:P`, `chips:T:P`,
    /// `layout:T`, `float:T`, `drop:T`, `tips:T`, `coupons:T`, `entry-fees:N`,
    /// `prize-pool:N`, `vouchers:N` (of tournament N), `house` or `outside`.
    pub fn parse(name: &str) -> Result<Account, String> {
        let refused = || {
            format!(
                "{name:?} is not an account: wallet:P, chips:T:P, points:T:P, layout:T, float:T, drop:T, tips:T, coupons:T, points-layout:T, points-bank:T, meter-primary:T, meter-secondary:T, entry-fees:N, prize-pool:N, vouchers:N, house or outside"
            )
        };
        if name.len() > ID_MAX_BYTES {
            return Err(refused());
        }
        let mut parts = name.split(':');
        let (Some(kind), first, second, None) = (parts.next(), parts.next(), parts.next(), parts.next()) else {
            return Err(refused());
        };
        let owner = |part: &str| Owner::new(part).map_err(|_| refused());
        match (kind, first, second) {
            ("house", None, None) => Ok(Account::House),
            ("outside", None, None) => Ok(Account::Outside),
            ("wallet", Some(player), None) => Ok(Account::Wallet(owner(player)?)),
            ("chips", Some(table), Some(player)) => Ok(Account::Chips {
                table: owner(table)?,
                player: owner(player)?,
            }),
            ("points", Some(table), Some(player)) => Ok(Account::Points {
                table: owner(table)?,
                player: owner(player)?,
            }),
            (kind, Some(owned), None) => {
                if let Some(k) = TableAccount::ALL.into_iter().find(|k| k.name() == kind) {
                    return Ok(Account::Table(k, owner(owned)?));
                }
                match TournamentAccount::ALL.into_iter().find(|k| k.name() == kind) {
                    Some(k) => Ok(Account::Tournament(k, owner(owned)?)),
                    None => Err(refused()),
                }
            }
            _ => Err(refused()),
        }
    }

    fn fits(self) -> Result<Account, String> {
        if self.name_len() > ID_MAX_BYTES {
            return Err(format!("the account {self} is longer than {ID_MAX_BYTES} bytes"));
        }
        Ok(self)
    }

    pub fn wallet(player: &str) -> Result<Account, String> {
        Account::Wallet(Owner::new(player)?).fits()
    }

    pub fn chips(table: &str, player: &str) -> Result<Account, String> {
        Account::Chips {
            table: Owner::new(table)?,
            player: Owner::new(player)?,
        }
        .fits()
    }

    pub fn points(table: &str, player: &str) -> Result<Account, String> {
        Account::Points {
            table: Owner::new(table)?,
            player: Owner::new(player)?,
        }
        .fits()
    }

    /// Whether the account holds tournament points rather than money: the
    /// two never move into each other (Colorado 2214(1)).
    pub fn is_points(&self) -> bool {
        matches!(
            self,
            Account::Points { .. } | Account::Table(TableAccount::PointsLayout | TableAccount::PointsBank, _)
        )
    }

    pub fn of_table(kind: TableAccount, table: &str) -> Result<Account, String> {
        Account::Table(kind, Owner::new(table)?).fits()
    }

    pub fn of_tournament(kind: TournamentAccount, tournament: &str) -> Result<Account, String> {
        Account::Tournament(kind, Owner::new(tournament)?).fits()
    }

    /// The tournament whose account this is.
    pub fn tournament(&self) -> Option<&str> {
        match self {
            Account::Tournament(_, t) => Some(t.as_str()),
            _ => None,
        }
    }

    /// The table whose account this is (a player's chips there, or one of its own).
    pub fn table(&self) -> Option<&str> {
        match self {
            Account::Chips { table, .. } | Account::Table(_, table) | Account::Points { table, .. } => {
                Some(table.as_str())
            }
            _ => None,
        }
    }

    /// The player whose account this is (a wallet, or chips at a table).
    pub fn player(&self) -> Option<&str> {
        match self {
            Account::Wallet(player) | Account::Chips { player, .. } | Account::Points { player, .. } => {
                Some(player.as_str())
            }
            _ => None,
        }
    }

    /// The house's result and the outside world may go below zero, and so
    /// may what coupons cost, and a tournament table's bank of points;
    /// every other account holds real value and may not.
    pub fn may_go_negative(&self) -> bool {
        matches!(
            self,
            Account::House | Account::Outside | Account::Table(TableAccount::Coupons | TableAccount::PointsBank, _)
        )
    }

    /// The written name: `chips:t1:alice`.
    pub fn name(&self) -> String {
        self.to_string()
    }

    fn name_len(&self) -> usize {
        match self {
            Account::House => "house".len(),
            Account::Outside => "outside".len(),
            Account::Wallet(p) => "wallet:".len() + p.0.len(),
            Account::Chips { table, player } => "chips::".len() + table.0.len() + player.0.len(),
            Account::Points { table, player } => "points::".len() + table.0.len() + player.0.len(),
            Account::Table(kind, table) => kind.name().len() + 1 + table.0.len(),
            Account::Tournament(kind, t) => kind.name().len() + 1 + t.0.len(),
        }
    }
}

impl fmt::Display for Account {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Account::House => f.write_str("house"),
            Account::Outside => f.write_str("outside"),
            Account::Wallet(p) => write!(f, "wallet:{}", p.0),
            Account::Chips { table, player } => write!(f, "chips:{}:{}", table.0, player.0),
            Account::Points { table, player } => write!(f, "points:{}:{}", table.0, player.0),
            Account::Table(kind, table) => write!(f, "{}:{}", kind.name(), table.0),
            Account::Tournament(kind, t) => write!(f, "{}:{}", kind.name(), t.0),
        }
    }
}

impl Account {
    /// The account as a person says it: "ann's wallet", "ann's chips at t1".
    pub fn described(&self) -> String {
        match self {
            Account::House => "the house".into(),
            Account::Outside => "outside the casino".into(),
            Account::Wallet(p) => format!("{}'s wallet", p.0),
            Account::Chips { table, player } => format!("{}'s chips at {}", player.0, table.0),
            Account::Points { table, player } => format!("{}'s tournament points at {}", player.0, table.0),
            Account::Table(kind, table) => format!("table {}'s {}", table.0, kind.name()),
            Account::Tournament(kind, t) => format!("tournament {}'s {}", t.0, kind.name()),
        }
    }
}

impl fmt::Debug for Account {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Account({self})")
    }
}

impl Serialize for Account {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for Account {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Account, D::Error> {
        deserializer.deserialize_str(AccountName)
    }
}

/// Reads an account's name in place where the text holds it unescaped.
struct AccountName;

impl serde::de::Visitor<'_> for AccountName {
    type Value = Account;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an account's name, such as wallet:alice or chips:t1:alice")
    }

    fn visit_str<E: serde::de::Error>(self, name: &str) -> Result<Account, E> {
        Account::parse(name).map_err(E::custom)
    }
}
