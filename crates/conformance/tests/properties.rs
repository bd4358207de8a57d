//! Invariants over random legal bets on every shipped profile and wheel.

use croupier_core::{BetRequest, Book, BookResults, Outcome, PlacedBet, Pocket, Profile, TableRules, Wheel};
use proptest::prelude::*;

/// Every (profile, wheel, in prison) table the shipped profiles allow.
fn tables() -> Vec<(Profile, Wheel, bool)> {
    let mut tables = Vec::new();
    for name in croupier_profiles::builtin_names() {
        let profile = croupier_profiles::load(name).expect("loads");
        for &wheel in &profile.spec().wheels {
            tables.push((profile.clone(), wheel, false));
            if profile.spec().zero.in_prison_offered {
                tables.push((profile.clone(), wheel, true));
            }
        }
    }
    tables
}

/// Places `spot` with a stake of `multiple` units, inside the profile's limits.
fn place(rules: &TableRules<'_>, spot: &str, multiple: u64) -> PlacedBet {
    let request = |stake: u64| BetRequest {
        spot,
        stake_minor: i128::from(stake),
        zero_choice: None,
        coupon_minor: None,
    };
    let units = rules.stake_units(spot).expect("legal");
    let kind = croupier_core::Spot::parse(spot, rules.wheel()).expect("legal").kind();
    let stake = match rules.profile().limit(kind) {
        Some(range) => range.min.get() + (multiple * 37) % (range.max.get() - range.min.get() + 1),
        None => units * multiple,
    };
    rules
        .place(&request(stake))
        .unwrap_or_else(|e| panic!("{spot} {stake}: {e}"))
}

fn a_table_spot_and_pockets() -> impl Strategy<Value = (usize, usize, u64, Vec<usize>)> {
    (
        0usize..1000,
        0usize..10_000,
        1u64..10_000,
        prop::collection::vec(0usize..64, 1..4),
    )
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    /// No legal spot pays less than its paytable; a bet on numbers that lose
    /// pays nothing; net is returned minus staked.
    #[test]
    fn every_legal_spot_settles_by_its_paytable((t, s, multiple, picks) in a_table_spot_and_pockets()) {
        let tables = tables();
        let (profile, wheel, in_prison) = &tables[t % tables.len()];
        let rules = TableRules::new(profile, *wheel, *in_prison).expect("rules");
        let spots = rules.legal_spots();
        let spot = &spots[s % spots.len()];
        let bet = place(&rules, spot, multiple);
        let pockets: Vec<Pocket> = wheel.pockets().iter().collect();
        let spins: Vec<Pocket> = picks.iter().map(|&i| pockets[i % pockets.len()]).collect();
        let settled = rules.settle(&bet, &spins);
        prop_assert_eq!(settled.net(), i128::from(settled.returned.get()) - i128::from(bet.stake().get()));

        let Some(decided) = settled.decided_by else { return Ok(()); };
        let pocket = spins[decided];
        prop_assert!(!wheel.voids_spin(pocket));
        // What the paytable says the bet returns on this pocket.
        let by_paytable: u64 = bet
            .components()
            .iter()
            .filter(|c| c.covers.contains(pocket))
            .map(|c| c.stake.get() * (u64::from(profile.payout(c.kind).expect("payout")) + 1))
            .sum();
        match settled.outcome {
            Outcome::Win => {
                prop_assert!(by_paytable > 0);
                prop_assert!(settled.returned.get() >= by_paytable + bet.excess().get());
            }
            Outcome::Lose => {
                // Nothing but an over-maximum excess comes back on a losing bet.
                prop_assert_eq!(settled.returned, bet.excess());
            }
            Outcome::Half => {
                prop_assert!(bet.kind().is_even_money() && pocket.is_zero());
                prop_assert!(settled.returned.get() * 2 <= bet.stake().get() + 1);
            }
            Outcome::Released => prop_assert_eq!(settled.returned, bet.stake().minor()),
            Outcome::Prison | Outcome::Void => prop_assert!(false, "decided bets are neither in prison nor void"),
        }
        if !bet.spot().covers().contains(pocket) {
            prop_assert!(settled.outcome != Outcome::Win);
        }
    }

    /// A whole round: the compiled book and bet-by-bet settlement agree on
    /// every bet and every player, and money in equals money out plus the
    /// house result.
    #[test]
    fn money_is_conserved_over_a_round(
        t in 0usize..1000,
        bets in prop::collection::vec((0usize..10_000, 1u64..50, 0u32..7), 1..200),
        pocket_pick in 0usize..64,
    ) {
        let tables = tables();
        let (profile, wheel, in_prison) = &tables[t % tables.len()];
        let rules = TableRules::new(profile, *wheel, *in_prison).expect("rules");
        let spots = rules.legal_spots();
        let mut book = Book::new(*wheel, 7, bets.len());
        let mut placed = Vec::new();
        for &(s, multiple, player) in &bets {
            let bet = place(&rules, &spots[s % spots.len()], multiple);
            book.add(&rules, player, &bet).expect("room");
            placed.push((player, bet));
        }
        let pockets: Vec<Pocket> = wheel.bettable().iter().collect();
        let pocket = pockets[pocket_pick % pockets.len()];
        let mut results = BookResults::default();
        book.settle(pocket, &mut results).expect("valid spin");

        let mut per_player = [0u64; 7];
        let mut staked = 0i128;
        let mut returned = 0i128;
        let mut held = 0i128;
        for (i, (player, bet)) in placed.iter().enumerate() {
            let s = rules.settle(bet, &[pocket]);
            prop_assert_eq!(results.returned[i], s.returned.get(), "bet {} {:?}", i, bet.spot());
            prop_assert_eq!(results.outcome[i], s.outcome);
            per_player[*player as usize] += s.returned.get();
            staked += i128::from(s.staked.get());
            returned += i128::from(s.returned.get());
            held += i128::from(s.held.get());
        }
        prop_assert_eq!(&results.per_player[..], &per_player[..]);
        // The house result, summed bet by bet from the nets.
        let house: i128 = placed.iter().map(|(_, bet)| -rules.settle(bet, &[pocket]).net()).sum();
        prop_assert_eq!(staked, returned + house);
        prop_assert_eq!(returned, results.per_player.iter().map(|&r| i128::from(r)).sum::<i128>());
        // What stays on the layout is the imprisoned stakes, and nothing else.
        prop_assert!(held == 0 || *in_prison);
    }
}

#[test]
fn a_void_spin_is_refused_by_the_book() {
    // Maryland ch.4 C(2): a ball in 00 on a double-zero wheel used as single zero is no spin.
    let profile = croupier_profiles::load("maryland").expect("loads");
    assert!(profile.offers_wheel(Wheel::DoubleZeroCovered));
    let book = Book::new(Wheel::DoubleZeroCovered, 1, 0);
    let mut results = BookResults::default();
    assert!(book.settle(Pocket::DOUBLE_ZERO, &mut results).is_err());
    assert!(book.settle(Pocket::ZERO, &mut results).is_ok());
}
