//! Provably fair outcomes.
//!
//! Before play the operator publishes `SHA-256(server seed)`. Each outcome
//! is derived from `HMAC-SHA256(key = server seed, message = "client seed:nonce")`:
//! the 32-byte digest is read as eight big-endian 32-bit words, and the first
//! word below the largest multiple of the pocket count that fits in 2^32
//! picks the pocket (word mod count) in the wheel's order. Should all eight be
//! rejected, the message `"client seed:nonce:1"`, then `:2`, ... gives more
//! words. Mapping `floor(x * 37)` from a fraction would favour some pockets;
//! rejection does not. After play the seed is revealed and anyone can check
//! both the commitment and every outcome.

use croupier_core::{Pocket, Wheel};
use hmac::{Hmac, Mac};
use sha2::{Digest, Sha256};

use crate::{draw_index, wheel_pockets, WordSource};

/// The commitment to publish before play: SHA-256 of the server seed, in hex.
pub fn commitment(server_seed: &[u8]) -> String {
    hex::encode(Sha256::digest(server_seed))
}

struct HmacWords<'a> {
    server_seed: &'a [u8],
    client_seed: &'a str,
    nonce: u64,
    round: u64,
    words: [u32; 8],
    next: usize,
}

impl HmacWords<'_> {
    fn refill(&mut self) {
        let message = if self.round == 0 {
            format!("{}:{}", self.client_seed, self.nonce)
        } else {
            format!("{}:{}:{}", self.client_seed, self.nonce, self.round)
        };
        let digest = match Hmac::<Sha256>::new_from_slice(self.server_seed) {
            Ok(mut mac) => {
                mac.update(message.as_bytes());
                mac.finalize().into_bytes()
            }
            // HMAC takes keys of any length.
            Err(e) => unreachable!("HMAC refused a key: {e}"),
        };
        for (i, chunk) in digest.chunks_exact(4).enumerate() {
            self.words[i] = u32::from_be_bytes([chunk[0], chunk[1], chunk[2], chunk[3]]);
        }
        self.round += 1;
        self.next = 0;
    }
}

impl WordSource for HmacWords<'_> {
    fn next_word(&mut self) -> u32 {
        if self.next == self.words.len() {
            self.refill();
        }
        let word = self.words[self.next];
        self.next += 1;
        word
    }
}

/// The pocket for one nonce.
pub fn pocket(server_seed: &[u8], client_seed: &str, nonce: u64, wheel: Wheel) -> Pocket {
    let pockets = wheel_pockets(wheel);
    let mut words = HmacWords {
        server_seed,
        client_seed,
        nonce,
        round: 0,
        words: [0; 8],
        next: 8,
    };
    pockets[draw_index(&mut words, pockets.len() as u32) as usize]
}

/// Checks a revealed seed against its commitment.
pub fn verify_commitment(server_seed: &[u8], published: &str) -> bool {
    commitment(server_seed).eq_ignore_ascii_case(published.trim())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn commitment_is_sha256() {
        // SHA-256 of 32 zero bytes.
        assert_eq!(
            commitment(&[0u8; 32]),
            "66687aadf862bd776c8fc18b8e9f8e20089714856ee233b3902a591d0d5f2925"
        );
        assert!(verify_commitment(
            &[0u8; 32],
            "66687AADF862BD776C8FC18B8E9F8E20089714856EE233B3902A591D0D5F2925"
        ));
        assert!(!verify_commitment(
            &[1u8; 32],
            "66687aadf862bd776c8fc18b8e9f8e20089714856ee233b3902a591d0d5f2925"
        ));
    }

    #[test]
    fn outcomes_follow_the_documented_derivation() {
        // Recompute by hand: the first word of HMAC(seed, "lab:0") below the zone.
        let seed = [42u8; 32];
        let mut mac = Hmac::<Sha256>::new_from_slice(&seed).expect("key");
        mac.update(b"lab:0");
        let digest = mac.finalize().into_bytes();
        let zone = (1u64 << 32) / 37 * 37;
        let word = digest
            .chunks_exact(4)
            .map(|c| u32::from_be_bytes([c[0], c[1], c[2], c[3]]))
            .find(|&w| u64::from(w) < zone)
            .expect("a word in the zone");
        let expected = wheel_pockets(Wheel::SingleZero)[(word % 37) as usize];
        assert_eq!(pocket(&seed, "lab", 0, Wheel::SingleZero), expected);
        // Different nonces give independent outcomes; the same nonce the same one.
        assert_eq!(
            pocket(&seed, "lab", 5, Wheel::DoubleZero),
            pocket(&seed, "lab", 5, Wheel::DoubleZero)
        );
        let spread: std::collections::BTreeSet<_> =
            (0..200).map(|n| pocket(&seed, "lab", n, Wheel::SingleZero)).collect();
        assert!(spread.len() > 30);
    }
}
