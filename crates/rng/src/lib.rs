//! Where random outcomes come from.
//!
//! - [`CasinoRng`]: ChaCha20 seeded from the operating system, reseeded from
//!   it every [`RESEED_INTERVAL_DRAWS`] words, cycled between games.
//! - [`draw_index`]: maps 32-bit words to a pocket by rejection sampling, so
//!   every pocket is exactly equally likely (no modulo bias).
//! - [`fair`]: the provably fair mode: a published SHA-256 commitment to the
//!   server seed, pockets from HMAC-SHA256(server seed, "client seed:nonce").
//! - [`battery`]: chi-square, runs, serial correlation and gap tests.

pub mod battery;
pub mod fair;

use croupier_core::{Pocket, Wheel};
use rand::{RngCore, SeedableRng, TryRngCore};
use rand_chacha::ChaCha20Rng;

/// Words drawn between reseeds from the operating system.
pub const RESEED_INTERVAL_DRAWS: u64 = 1 << 20;
/// The most words discarded between games.
pub const CYCLE_WORDS_MAX: u32 = 255;

#[derive(Debug, thiserror::Error)]
pub enum RngError {
    #[error("the operating system's random source failed: {0}")]
    Os(String),
    #[error("recorded words: {0}")]
    Replay(String),
}

/// Anything that yields uniformly distributed 32-bit words.
pub trait WordSource {
    fn next_word(&mut self) -> u32;
}

/// A uniform index below `n` from 32-bit words, by rejection: words at or
/// above the largest multiple of `n` that fits are thrown away, so each index
/// has exactly the same number of words mapping to it.
pub fn draw_index(source: &mut impl WordSource, n: u32) -> u32 {
    assert!(n > 0, "draw_index needs a positive range");
    let zone = (1u64 << 32) / u64::from(n) * u64::from(n);
    loop {
        let word = source.next_word();
        if u64::from(word) < zone {
            return word % n;
        }
    }
}

/// The index a word gives below `n`, or `None` for a word [`draw_index`]
/// throws away: the check that a recorded draw gives the recorded outcome.
pub fn index_of_word(word: u32, n: u32) -> Option<u32> {
    let zone = (1u64 << 32) / u64::from(n.max(1)) * u64::from(n.max(1));
    (n > 0 && u64::from(word) < zone).then(|| word % n)
}

/// The pockets of the physical wheel in a fixed order: an RNG table spins
/// the real wheel, so a double-zero wheel used as single zero can land in 00
/// and void the spin, exactly as a ball would.
pub fn wheel_pockets(wheel: Wheel) -> Vec<Pocket> {
    wheel.order().collect()
}

/// The production generator.
pub struct CasinoRng {
    inner: ChaCha20Rng,
    draws_since_reseed: u64,
    /// Seeded from the operating system and reseeded from it; `false` for a
    /// fixed seed, which replays exactly (labs, simulation, tests).
    from_os: bool,
}

fn os_seed() -> Result<[u8; 32], RngError> {
    let mut seed = [0u8; 32];
    rand::rngs::OsRng
        .try_fill_bytes(&mut seed)
        .map_err(|e| RngError::Os(e.to_string()))?;
    Ok(seed)
}

impl CasinoRng {
    /// Seeded from the operating system's entropy.
    pub fn from_os() -> Result<CasinoRng, RngError> {
        Ok(CasinoRng {
            inner: ChaCha20Rng::from_seed(os_seed()?),
            draws_since_reseed: 0,
            from_os: true,
        })
    }

    /// A fixed seed: the same words every time.
    pub fn from_seed(seed: [u8; 32]) -> CasinoRng {
        CasinoRng {
            inner: ChaCha20Rng::from_seed(seed),
            draws_since_reseed: 0,
            from_os: false,
        }
    }

    /// Fills `out` with raw generator output, before any scaling.
    pub fn fill(&mut self, out: &mut [u8]) -> Result<(), RngError> {
        for chunk in out.chunks_mut(4096) {
            self.reseed_if_due(chunk.len().div_ceil(4) as u64)?;
            self.inner.fill_bytes(chunk);
        }
        Ok(())
    }

    fn reseed_if_due(&mut self, words: u64) -> Result<(), RngError> {
        self.draws_since_reseed += words;
        if self.from_os && self.draws_since_reseed >= RESEED_INTERVAL_DRAWS {
            // Mix fresh entropy with the current state: a weak OS source can
            // never make the stream worse than it was.
            let fresh = os_seed()?;
            let mut own = [0u8; 32];
            self.inner.fill_bytes(&mut own);
            let seed: [u8; 32] = std::array::from_fn(|i| fresh[i] ^ own[i]);
            self.inner = ChaCha20Rng::from_seed(seed);
            self.draws_since_reseed = 0;
        }
        Ok(())
    }

    pub fn try_word(&mut self) -> Result<u32, RngError> {
        self.reseed_if_due(1)?;
        Ok(self.inner.next_u32())
    }

    /// The generator keeps running between games: a varying number of
    /// words is discarded, so an outcome depends on when it is drawn.
    pub fn cycle_between_games(&mut self) -> Result<(), RngError> {
        let skip = self.try_word()? & CYCLE_WORDS_MAX;
        for _ in 0..skip {
            self.try_word()?;
        }
        Ok(())
    }

    /// A uniform index below `n`, by the same rejection as [`draw_index`].
    pub fn index(&mut self, n: u32) -> Result<u32, RngError> {
        self.index_and_word(n).map(|(index, _)| index)
    }

    /// [`CasinoRng::index`], with the word that gave it: the evidence of the
    /// draw ([`index_of_word`] gives the index again).
    pub fn index_and_word(&mut self, n: u32) -> Result<(u32, u32), RngError> {
        assert!(n > 0, "an index needs a positive range");
        loop {
            let word = self.try_word()?;
            if let Some(index) = index_of_word(word, n) {
                return Ok((index, word));
            }
        }
    }

    /// One outcome: a pocket of the physical wheel, uniformly.
    pub fn pocket(&mut self, pockets: &[Pocket]) -> Result<Pocket, RngError> {
        Ok(pockets[self.index(pockets.len() as u32)? as usize])
    }
}

/// The production generator with a fixed seed and no operating system:
/// infallible, for simulation, where every run must replay from its seed.
pub struct SeededRng {
    inner: ChaCha20Rng,
}

impl SeededRng {
    /// One of the seed's 2^64 independent streams.
    pub fn from_seed_stream(seed: [u8; 32], stream: u64) -> SeededRng {
        let mut inner = ChaCha20Rng::from_seed(seed);
        inner.set_stream(stream);
        SeededRng { inner }
    }
}

impl WordSource for SeededRng {
    #[inline]
    fn next_word(&mut self) -> u32 {
        self.inner.next_u32()
    }
}

/// A seed from any text: 64 hex digits are taken as the seed itself, any
/// other text is hashed with SHA-256, so `--seed 42` is reproducible too.
pub fn seed_from_text(text: &str) -> [u8; 32] {
    use sha2::Digest;
    parse_seed(text).unwrap_or_else(|_| sha2::Sha256::digest(text.as_bytes()).into())
}

/// Parses a 32-byte seed written as 64 hex digits.
pub fn parse_seed(hex_text: &str) -> Result<[u8; 32], String> {
    let bytes = hex::decode(hex_text.trim()).map_err(|e| format!("seed {hex_text:?} is not hex: {e}"))?;
    <[u8; 32]>::try_from(bytes.as_slice())
        .map_err(|_| format!("a seed is 32 bytes (64 hex digits), got {}", bytes.len()))
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Counter(u32);

    impl WordSource for Counter {
        fn next_word(&mut self) -> u32 {
            self.0 = self.0.wrapping_add(1);
            self.0.wrapping_sub(1)
        }
    }

    #[test]
    fn rejection_sampling_is_exactly_uniform_over_a_full_cycle() {
        // Over every 32-bit word once, each index is hit equally often.
        let n = 37u32;
        let zone = (1u64 << 32) / 37 * 37;
        let mut counts = [0u64; 37];
        let mut source = Counter(0);
        for _ in 0..zone / 1_000_003 {
            // Sample the mapping at spread-out words.
            source.0 = source.0.wrapping_add(1_000_002);
            counts[draw_index(&mut source, n) as usize] += 1;
        }
        assert!(counts.iter().all(|&c| c > 0));
        // The rejected tail: words at or above the zone never map.
        let mut tail = Counter(u32::MAX - 2);
        let first = draw_index(&mut tail, n);
        assert_eq!(first, 0, "the three top words are rejected and the source wraps to 0");
    }

    #[test]
    fn a_fixed_seed_replays() {
        let pockets = wheel_pockets(Wheel::DoubleZero);
        let mut a = CasinoRng::from_seed([7; 32]);
        let mut b = CasinoRng::from_seed([7; 32]);
        for _ in 0..100 {
            assert_eq!(a.pocket(&pockets).ok(), b.pocket(&pockets).ok());
        }
    }

    #[test]
    fn os_seeded_generators_differ() {
        let pockets = wheel_pockets(Wheel::TripleZero);
        let mut a = CasinoRng::from_os().expect("os entropy");
        let mut b = CasinoRng::from_os().expect("os entropy");
        let draws_a: Vec<_> = (0..32).map(|_| a.pocket(&pockets).ok()).collect();
        let draws_b: Vec<_> = (0..32).map(|_| b.pocket(&pockets).ok()).collect();
        assert_ne!(draws_a, draws_b);
    }

    #[test]
    fn reseeding_keeps_drawing() {
        let mut rng = CasinoRng::from_os().expect("os entropy");
        let mut buf = vec![0u8; (RESEED_INTERVAL_DRAWS as usize) * 4 + 64];
        rng.fill(&mut buf).expect("fill");
        assert!(rng.draws_since_reseed < RESEED_INTERVAL_DRAWS);
    }
}

/// Why the generator will not give an outcome now.
#[derive(Debug, thiserror::Error)]
pub enum OutcomeError {
    #[error("the outcome is drawn only after no more bets")]
    BettingStillOpen,
    #[error("{0}")]
    Rng(#[from] RngError),
}

/// The RNG as a table's outcome source: a pocket of the physical wheel,
/// drawn only once no more bets has been called, after cycling.
pub fn rng_spin(
    rng: &mut CasinoRng,
    table: &croupier_core::round::Table,
) -> Result<croupier_core::round::SpinReport, OutcomeError> {
    rng_draw(rng, table).map(|(report, _)| report)
}

/// [`rng_spin`], with the word the pocket came from (see [`drawn_spin`]).
pub fn rng_draw(
    rng: &mut CasinoRng,
    table: &croupier_core::round::Table,
) -> Result<(croupier_core::round::SpinReport, u32), OutcomeError> {
    if table.phase() != croupier_core::round::Phase::NoMoreBets {
        return Err(OutcomeError::BettingStillOpen);
    }
    rng.cycle_between_games()?;
    let pockets = wheel_pockets(table.config().wheel);
    let (index, word) = rng.index_and_word(pockets.len() as u32)?;
    Ok((drawn_ball(pockets[index as usize], table), word))
}

fn drawn_ball(pocket: Pocket, table: &croupier_core::round::Table) -> croupier_core::round::SpinReport {
    croupier_core::round::SpinReport::Ball {
        pocket,
        // There is no ball: the draw is a valid spin by construction.
        opposite_direction: true,
        revolutions: table.profile().spec().min_ball_revolutions,
    }
}

/// The spin a drawn `word` gives at `table`: its pocket of the physical
/// wheel, or `None` for a word the draw would have thrown away.
pub fn drawn_spin(word: u32, table: &croupier_core::round::Table) -> Option<croupier_core::round::SpinReport> {
    let pockets = wheel_pockets(table.config().wheel);
    let index = index_of_word(word, pockets.len() as u32)?;
    Some(drawn_ball(pockets[index as usize], table))
}

/// The bonus draws of a round, from words: the production generator's,
/// recorded as they are drawn for the journal, or the journal's, replayed.
pub mod bonus_draws {
    use croupier_core::bonus::{BonusDraw, BonusSpinXtreme, BsxSymbol, LuckyNumbers, RouletteX, TableBonus, Weighted};
    use croupier_core::{Pocket, Wheel};

    use crate::{index_of_word, CasinoRng, RngError};

    /// Where a draw's 32-bit words come from.
    pub trait Words {
        fn word(&mut self) -> Result<u32, RngError>;

        /// A uniform index below `n`, by the rejection of [`crate::draw_index`].
        fn index(&mut self, n: u32) -> Result<u32, RngError> {
            loop {
                if let Some(i) = index_of_word(self.word()?, n) {
                    return Ok(i);
                }
            }
        }
    }

    impl Words for CasinoRng {
        fn word(&mut self) -> Result<u32, RngError> {
            self.try_word()
        }
    }

    /// The generator's words, each kept as it is drawn: the journal's
    /// evidence of the draw, which gives it again.
    pub struct Recording<'a> {
        rng: &'a mut CasinoRng,
        pub words: Vec<u32>,
    }

    impl<'a> Recording<'a> {
        pub fn new(rng: &'a mut CasinoRng) -> Recording<'a> {
            Recording { rng, words: Vec::new() }
        }
    }

    impl Words for Recording<'_> {
        fn word(&mut self) -> Result<u32, RngError> {
            let word = self.rng.try_word()?;
            self.words.push(word);
            Ok(word)
        }
    }

    /// Recorded words, given back in order.
    pub struct Replaying<'a> {
        words: &'a [u32],
        at: usize,
    }

    impl<'a> Replaying<'a> {
        pub fn new(words: &'a [u32]) -> Replaying<'a> {
            Replaying { words, at: 0 }
        }

        /// Whether every word was used: a recorded draw has none left over.
        pub fn used_up(&self) -> bool {
            self.at == self.words.len()
        }
    }

    impl Words for Replaying<'_> {
        fn word(&mut self) -> Result<u32, RngError> {
            let word =
                self.words.get(self.at).copied().ok_or_else(|| {
                    RngError::Replay(format!("the draw needs more than its {} words", self.words.len()))
                })?;
            self.at += 1;
            Ok(word)
        }
    }

    fn pick<T: Copy + PartialEq + std::fmt::Debug>(words: &mut impl Words, table: &Weighted<T>) -> Result<T, RngError> {
        Ok(table.pick(u64::from(words.index(table.total() as u32)?)))
    }

    /// `count` distinct pockets a bet can cover, uniformly.
    fn distinct_pockets(words: &mut impl Words, wheel: Wheel, count: usize) -> Result<Vec<Pocket>, RngError> {
        let pockets: Vec<Pocket> = wheel.bettable().iter().collect();
        let mut chosen = Vec::with_capacity(count);
        while chosen.len() < count.min(pockets.len()) {
            let p = pockets[words.index(pockets.len() as u32)? as usize];
            if !chosen.contains(&p) {
                chosen.push(p);
            }
        }
        Ok(chosen)
    }

    /// Roulette X: how many lucky numbers, which, and the odds of each after the first.
    pub fn lucky_numbers(words: &mut impl Words, config: &RouletteX, wheel: Wheel) -> Result<LuckyNumbers, RngError> {
        let count = usize::from(pick(words, &config.count)?);
        let pockets = distinct_pockets(words, wheel, count)?;
        let mut numbers = Vec::with_capacity(pockets.len());
        for (i, p) in pockets.into_iter().enumerate() {
            let odds = if i == 0 {
                config.paytable.first_odds()
            } else {
                pick(words, &config.later_odds)?
            };
            numbers.push((p, odds));
        }
        Ok(LuckyNumbers { numbers })
    }

    /// Bonus Spin Xtreme: the target numbers before the spin (Maryland ch.3 F(16)).
    pub fn targets(words: &mut impl Words, config: &BonusSpinXtreme, wheel: Wheel) -> Result<Vec<Pocket>, RngError> {
        let count = usize::from(pick(words, &config.targets)?);
        distinct_pockets(words, wheel, count)
    }

    /// Bonus Spin Xtreme: where the bonus wheel stops.
    pub fn symbol(words: &mut impl Words, config: &BonusSpinXtreme) -> Result<BsxSymbol, RngError> {
        pick(words, &config.symbols)
    }

    /// A bonus table's draw for its round.
    pub fn draw(words: &mut impl Words, bonus: &TableBonus, wheel: Wheel) -> Result<BonusDraw, RngError> {
        match bonus {
            TableBonus::RouletteX(x) => lucky_numbers(words, x, wheel).map(BonusDraw::Lucky),
            TableBonus::BonusSpinXtreme(b) => targets(words, b, wheel).map(BonusDraw::Targets),
        }
    }

    /// The bonus wheel's symbol for each of `count` wagers, in turn.
    pub fn symbols(words: &mut impl Words, config: &BonusSpinXtreme, count: usize) -> Result<Vec<BsxSymbol>, RngError> {
        (0..count).map(|_| symbol(words, config)).collect()
    }
}
