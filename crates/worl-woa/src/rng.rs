//! Deterministic per-whale random streams: one ChaCha8 stream per (seed, iteration, whale), so
//! parallel evaluation gives the same result as sequential evaluation whatever the thread count.

use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

/// The random generator handed to [`WhaleProblem`](crate::WhaleProblem) methods: ChaCha8, portable
/// and reproducible across platforms.
pub type WhaleRng = ChaCha8Rng;

/// Words of the ChaCha stream reserved for one whale: 2^32 words (16 GiB of random data), far
/// more than one move can draw.
const WORDS_PER_WHALE_SHIFT: u32 = 32;

/// Builds per-whale generators from one seed without re-expanding the seed each time.
#[derive(Clone, Debug)]
pub(crate) struct RngFactory {
    key: [u8; 32],
}

impl RngFactory {
    pub(crate) fn new(seed: u64) -> Self {
        RngFactory {
            key: ChaCha8Rng::seed_from_u64(seed).get_seed(),
        }
    }

    pub(crate) fn whale(&self, iteration: u64, whale: usize) -> WhaleRng {
        let mut rng = ChaCha8Rng::from_seed(self.key);
        rng.set_stream(iteration);
        rng.set_word_pos((whale as u128) << WORDS_PER_WHALE_SHIFT);
        rng
    }
}

/// The generator the engine gives whale `whale` in iteration `iteration` of a run seeded with
/// `seed` (iteration 0 = building the initial population).
///
/// Derivation: the 32-byte ChaCha8 key is `ChaCha8Rng::seed_from_u64(seed)`'s seed, the 64-bit
/// stream (nonce) is `iteration`, and the stream is entered at word `whale · 2^32`. Distinct
/// (iteration, whale) pairs therefore get disjoint streams for up to 2^36 whales; no generator
/// is ever shared between whales or threads.
///
/// ```
/// use rand::Rng;
/// let x: f64 = worl_woa::whale_rng(7, 3, 5).random();
/// let y: f64 = worl_woa::whale_rng(7, 3, 5).random();
/// let z: f64 = worl_woa::whale_rng(7, 3, 6).random();
/// assert_eq!(x, y);
/// assert_ne!(x, z);
/// ```
pub fn whale_rng(seed: u64, iteration: u64, whale: usize) -> WhaleRng {
    RngFactory::new(seed).whale(iteration, whale)
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::RngCore;

    #[test]
    fn streams_of_neighbouring_whales_and_iterations_differ() {
        let f = RngFactory::new(1);
        let a = f.whale(1, 0).next_u64();
        let b = f.whale(1, 1).next_u64();
        let c = f.whale(2, 0).next_u64();
        assert!(a != b && a != c && b != c);
        assert_eq!(f.whale(1, 1).next_u64(), b);
        assert_ne!(RngFactory::new(2).whale(1, 0).next_u64(), a);
    }
}
