//! Settling a compiled round allocates nothing: not per bet, not at all.

#![allow(unsafe_code)] // a counting allocator is the only way to see allocations

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};

use croupier_core::{BetRequest, Book, BookResults, Pocket, TableRules, Wheel};

struct Counting;

static ALLOCATIONS: AtomicUsize = AtomicUsize::new(0);

// SAFETY: every call is forwarded unchanged to the system allocator.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        ALLOCATIONS.fetch_add(1, Ordering::SeqCst);
        // SAFETY: the caller's contract is passed on as is.
        unsafe { System.alloc(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: the caller's contract is passed on as is.
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        ALLOCATIONS.fetch_add(1, Ordering::SeqCst);
        // SAFETY: the caller's contract is passed on as is.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

#[test]
fn settling_a_round_does_not_allocate() {
    let profile = croupier_profiles::load("maryland").expect("loads");
    let rules = TableRules::new(&profile, Wheel::DoubleZero, false).expect("rules");
    let spots = rules.legal_spots();
    let mut book = Book::new(Wheel::DoubleZero, 10, spots.len() * 5);
    for (i, spot) in spots.iter().cycle().take(spots.len() * 5).enumerate() {
        let request = |stake| BetRequest {
            spot,
            stake_minor: stake,
            zero_choice: None,
            coupon_minor: None,
        };
        let units = rules.stake_units(spot).expect("legal");
        let bet = rules.place(&request(i128::from(units))).expect("legal");
        book.add(&rules, (i % 10) as u32, &bet).expect("room");
    }
    let mut results = BookResults::default();
    // The first settlement sizes the buffers; every later one reuses them.
    book.settle(Pocket::ZERO, &mut results).expect("valid");
    let before = ALLOCATIONS.load(Ordering::SeqCst);
    for pocket in Wheel::DoubleZero.bettable().iter() {
        book.settle(pocket, &mut results).expect("valid");
    }
    let after = ALLOCATIONS.load(Ordering::SeqCst);
    assert_eq!(after - before, 0, "settling {} bets allocated", book.len());
    assert!(book.len() > 1000);
}
