//! An event's prizes: what each place wins from the pool, and who holds
//! each place when the event ends.
//!
//! Decisions where the documents are silent (docs/rules.md):
//! - Fixed prizes come first; the house adds what the pool lacks for them.
//!   Shares of the pool divide what is left, each rounded down.
//! - The cents the shares leave, and anything left when the last event ends,
//!   go to the best place with a cash prize: no buy-in stays with the casino
//!   (2213.05). At an earlier event they are carried to the next.
//! - Players tied on points share the cash of the places they hold equally,
//!   the odd cents going one each in order of entry; the non-cash prizes of
//!   those places go in order of entry.
//! - Places with no player left to hold them are not awarded: their cash
//!   stays in the pool (and at the last event goes to the first place).
//! - Eliminated entries place after those still playing, the last out first.

use std::collections::BTreeMap;

use super::config::{EventSpec, PrizeKind};

/// A prize as won.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum Awarded {
    Cash(u64),
    NonCash {
        description: String,
        value: u64,
    },
    /// Entry to a later event, for its winner only (2213.05).
    Voucher {
        number: u32,
        event: usize,
        value: u64,
    },
}

impl Awarded {
    pub fn value(&self) -> u64 {
        match self {
            Awarded::Cash(v) => *v,
            Awarded::NonCash { value, .. } | Awarded::Voucher { value, .. } => *value,
        }
    }
}

/// One entry's place in an event's standings.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Standing {
    /// The best place the entry's points reach (tied entries share it).
    pub place: u32,
    pub entry: u32,
    pub points: u64,
    /// How many entries hold the same points.
    pub tied_with: u32,
}

/// Standings by points, most first; ties in order of entry.
pub fn place_standings(points: &[(u32, u64)]) -> Vec<Standing> {
    let mut sorted = points.to_vec();
    sorted.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    let mut out = Vec::with_capacity(sorted.len());
    let mut i = 0;
    while i < sorted.len() {
        let same = sorted[i..].iter().take_while(|(_, p)| *p == sorted[i].1).count();
        for &(entry, pts) in &sorted[i..i + same] {
            out.push(Standing {
                place: i as u32 + 1,
                entry,
                points: pts,
                tied_with: same as u32,
            });
        }
        i += same;
    }
    out
}

/// What an event's places win, given its pool and how many entries finish.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Purse {
    /// Cash by place, for the places that will be awarded.
    pub cash: BTreeMap<u32, u64>,
    /// Non-cash prizes and vouchers by place.
    pub other: BTreeMap<u32, Awarded>,
    /// What the house adds to the pool for the fixed prizes.
    pub house_added: u64,
    /// What stays in the pool for later events.
    pub carried: u64,
}

impl Purse {
    pub fn new(event: &EventSpec, last: bool, pool: u64, finishers: usize) -> Purse {
        let awarded = |place: u32| (place as usize) <= finishers;
        let fixed: u64 = event
            .prizes
            .iter()
            .filter(|p| awarded(p.place))
            .map(|p| match &p.kind {
                PrizeKind::Cash { amount } => amount.get(),
                PrizeKind::NonCash { value, .. } | PrizeKind::Voucher { value, .. } => value.get(),
                PrizeKind::PoolShare { .. } => 0,
            })
            .sum();
        let house_added = fixed.saturating_sub(pool);
        let rest = pool + house_added - fixed;
        let mut cash = BTreeMap::new();
        let mut other = BTreeMap::new();
        let mut shared = 0;
        for prize in event.prizes.iter().filter(|p| awarded(p.place)) {
            match &prize.kind {
                PrizeKind::Cash { amount } => {
                    cash.insert(prize.place, amount.get());
                }
                PrizeKind::PoolShare { percent } => {
                    // rest < 2^64 / 100: amounts are capped far below.
                    let share = rest * u64::from(*percent) / 100;
                    shared += share;
                    cash.insert(prize.place, share);
                }
                PrizeKind::NonCash { description, value } => {
                    other.insert(
                        prize.place,
                        Awarded::NonCash {
                            description: description.clone(),
                            value: value.get(),
                        },
                    );
                }
                PrizeKind::Voucher { event, value } => {
                    other.insert(
                        prize.place,
                        Awarded::Voucher {
                            number: 0,
                            event: *event,
                            value: value.get(),
                        },
                    );
                }
            }
        }
        let mut carried = rest - shared;
        if last && finishers > 0 {
            match cash.values_mut().next() {
                Some(best) => *best += carried,
                // No cash place is held (one finisher, a non-cash first
                // prize): the first place takes the rest in cash as well.
                None => {
                    cash.insert(1, carried);
                }
            }
            carried = 0;
        }
        Purse {
            cash,
            other,
            house_added,
            carried,
        }
    }

    /// The cash of some places, together.
    pub fn cash_of(&self, places: &[u32]) -> u64 {
        places.iter().filter_map(|p| self.cash.get(p)).sum()
    }

    /// Who wins what: each tie group shares the cash of its places, and
    /// takes their other prizes in order of entry.
    pub fn assign(&self, standings: &[Standing]) -> Vec<(u32, u32, Awarded)> {
        let mut out = Vec::new();
        let mut i = 0;
        while i < standings.len() {
            let group = &standings[i..i + standings[i].tied_with as usize];
            let first = standings[i].place;
            let places: Vec<u32> = (first..first + group.len() as u32).collect();
            let cash = self.cash_of(&places);
            let n = group.len() as u64;
            for (k, s) in group.iter().enumerate() {
                let share = cash / n + u64::from((k as u64) < cash % n);
                if share > 0 {
                    out.push((s.entry, first, Awarded::Cash(share)));
                }
            }
            let mut holders = group.iter();
            for place in &places {
                if let Some(prize) = self.other.get(place) {
                    if let Some(s) = holders.next() {
                        out.push((s.entry, *place, prize.clone()));
                    }
                }
            }
            i += group.len();
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::money::Minor;
    use crate::tournament::config::{Prize, RebuyWhen, Rebuys};

    fn event(prizes: Vec<PrizeKind>) -> EventSpec {
        EventSpec {
            name: "e".into(),
            day: time::Date::MIN,
            entry_fee: Minor::ZERO,
            buy_in: Minor::new(10_000),
            starting_points: 1_000,
            rebuys: Rebuys {
                max: 0,
                amount: Minor::ZERO,
                points: 0,
                when: RebuyWhen::OutOfChips,
            },
            prizes: prizes
                .into_iter()
                .enumerate()
                .map(|(i, kind)| Prize {
                    place: i as u32 + 1,
                    kind,
                })
                .collect(),
        }
    }

    #[test]
    fn ties_share_their_places_cash_and_take_other_prizes_in_entry_order() {
        // rules.md: ties in standings (the documents are silent).
        let e = event(vec![
            PrizeKind::PoolShare { percent: 60 },
            PrizeKind::PoolShare { percent: 40 },
            PrizeKind::NonCash {
                description: "a watch".into(),
                value: Minor::new(5_000),
            },
        ]);
        let purse = Purse::new(&e, true, 100_001, 4);
        // 95_001 after the watch: 57_000 and 38_000, and the 1 left goes to first.
        assert_eq!(purse.cash.get(&1), Some(&57_001));
        assert_eq!(purse.cash.get(&2), Some(&38_000));
        let standings = place_standings(&[(3, 500), (1, 900), (2, 500), (4, 500)]);
        let won = purse.assign(&standings);
        assert_eq!(won[0], (1, 1, Awarded::Cash(57_001)));
        // Entries 2, 3 and 4 hold places 2-4: 38_000 three ways, the watch to entry 2.
        assert_eq!(won[1], (2, 2, Awarded::Cash(12_667)));
        assert_eq!(won[2], (3, 2, Awarded::Cash(12_667)));
        assert_eq!(won[3], (4, 2, Awarded::Cash(12_666)));
        assert!(matches!(won[4], (2, 3, Awarded::NonCash { .. })));
    }

    #[test]
    fn the_house_adds_what_the_pool_lacks_for_fixed_prizes_and_an_earlier_event_carries_the_rest() {
        let e = event(vec![
            PrizeKind::Cash {
                amount: Minor::new(50_000),
            },
            PrizeKind::PoolShare { percent: 50 },
        ]);
        let short = Purse::new(&e, false, 30_000, 2);
        assert_eq!(
            (short.house_added, short.cash.get(&2), short.carried),
            (20_000, Some(&0), 0)
        );
        let long = Purse::new(&e, false, 70_001, 2);
        assert_eq!(
            (long.house_added, long.cash.get(&2), long.carried),
            (0, Some(&10_000), 10_001)
        );
        // One finisher: the second place is not awarded and its share stays in the pool.
        let one = Purse::new(&e, false, 70_001, 1);
        assert_eq!((one.cash.len(), one.carried), (1, 20_001));
    }
}
