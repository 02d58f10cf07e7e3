//! The extension point: any problem whose candidate solutions ("whales") can be created at
//! random, scored, and moved towards another whale with WOA coefficients.

use crate::error::WoaError;
use crate::moves::{Move, Target};
use crate::rng::WhaleRng;

/// A minimisation problem the WOA engine can optimise.
///
/// The engine owns the loop (population, leader, `a` schedule, move selection, replacement,
/// stopping, history); the problem owns the representation. The continuous optimiser
/// ([`ContinuousProblem`](crate::ContinuousProblem)) is one implementation; the RTGS scheduler
/// implements it with GPU-assignment plans as whales.
///
/// # Determinism contract
/// The engine runs the methods below on several threads when `WoaConfig::parallel` is set. The
/// run is bit-identical to the sequential one provided every method's result depends only on
/// its arguments and on `self`, **not** on the contents of the scratch space (scratch is reusable
/// buffer memory, whatever a previous call left there) and not on global state. All randomness
/// must come from the [`WhaleRng`] passed in, which the engine derives from (seed, iteration,
/// whale index).
///
/// # Example: an integer vector problem
/// ```
/// use worl_woa::{Move, Target, WhaleProblem, WhaleRng, Woa, WoaConfig};
/// use rand::Rng;
///
/// /// Minimise Σ (x_i − 3)² over x ∈ {0..=9}^4.
/// struct Digits;
/// impl WhaleProblem for Digits {
///     type Whale = Vec<i64>;
///     type Scratch = ();
///     fn scratch(&self) -> () {}
///     fn random_whale(&self, rng: &mut WhaleRng, _: &mut ()) -> Vec<i64> {
///         (0..4).map(|_| rng.random_range(0..=9)).collect()
///     }
///     fn fitness(&self, x: &Vec<i64>, _: &mut ()) -> f64 {
///         x.iter().map(|&v| ((v - 3) * (v - 3)) as f64).sum()
///     }
///     fn moved(&self, x: &Vec<i64>, target: &Target<'_, Vec<i64>>, mv: &Move,
///              rng: &mut WhaleRng, _: &mut ()) -> Vec<i64> {
///         (0..x.len())
///             .map(|j| {
///                 let t = target.component_whale(rng)[j] as f64;
///                 mv.apply_component(x[j] as f64, t).round().clamp(0.0, 9.0) as i64
///             })
///             .collect()
///     }
/// }
///
/// let result = Woa::new(&Digits, WoaConfig::new(20, 100).with_seed(1)).run()?;
/// assert_eq!(result.best_fitness, 0.0);
/// assert_eq!(result.best, vec![3, 3, 3, 3]);
/// # Ok::<(), worl_woa::WoaError>(())
/// ```
pub trait WhaleProblem: Sync {
    /// A candidate solution: a position vector, a GPU-assignment plan, a permutation, ...
    type Whale: Clone + Send + Sync;

    /// Per-worker reusable memory handed as `&mut` to every call, so that hot methods need not
    /// allocate. Each sequential run has one; a parallel run has one per rayon work item split.
    /// Use `()` when none is needed.
    type Scratch: Send;

    /// A fresh scratch space.
    fn scratch(&self) -> Self::Scratch;

    /// A random whale for the initial population (uniform over the search space is the WOA
    /// paper's choice). Called for every population slot the user did not fill.
    fn random_whale(&self, rng: &mut WhaleRng, scratch: &mut Self::Scratch) -> Self::Whale;

    /// The fitness to minimise (the makespan, for schedulers). NaN is ranked as `+∞`.
    fn fitness(&self, whale: &Self::Whale, scratch: &mut Self::Scratch) -> f64;

    /// The whale obtained by moving `whale` relative to `target` with the coefficients `mv`.
    ///
    /// `mv.kind()` says which update (encircle or spiral: `target` is the leader; search:
    /// `target` is a random whale) and carries `A`, `C`, `l`, `b` and the spiral factor. The
    /// canonical coordinate update is [`Move::apply_component`]; discrete problems map it to
    /// their own representation (RTGS: a hope running-time vector decoded greedily).
    fn moved(
        &self,
        whale: &Self::Whale,
        target: &Target<'_, Self::Whale>,
        mv: &Move,
        rng: &mut WhaleRng,
        scratch: &mut Self::Scratch,
    ) -> Self::Whale;

    /// Writes the moved whale into `out`, whose previous content is an old whale of the same
    /// problem (its buffers may be reused). The engine always calls this one; the default
    /// delegates to [`WhaleProblem::moved`]. Override it to move without allocating; it must
    /// give the same whale as `moved`.
    fn move_into(
        &self,
        whale: &Self::Whale,
        target: &Target<'_, Self::Whale>,
        mv: &Move,
        rng: &mut WhaleRng,
        scratch: &mut Self::Scratch,
        out: &mut Self::Whale,
    ) {
        *out = self.moved(whale, target, mv, rng, scratch);
    }

    /// A distance between two whales (same unit as the problem's positions), used for the
    /// population diversity in the history. `None` (the default) records no diversity.
    fn distance(&self, a: &Self::Whale, b: &Self::Whale) -> Option<f64> {
        let _ = (a, b);
        None
    }

    /// The population diversity recorded each iteration. Default: the mean pairwise
    /// [`WhaleProblem::distance`] over all `N(N−1)/2` pairs (0 for one whale), or `None` when
    /// `distance` is `None`. Continuous problems override it with the mean Euclidean distance to
    /// the centroid.
    fn diversity(&self, population: &[Self::Whale], scratch: &mut Self::Scratch) -> Option<f64> {
        let _ = scratch;
        let first = population.first()?;
        self.distance(first, first)?;
        let n = population.len();
        if n < 2 {
            return Some(0.0);
        }
        let mut sum = 0.0;
        for (i, a) in population.iter().enumerate() {
            for b in &population[i + 1..] {
                sum += self.distance(a, b)?;
            }
        }
        Some(sum / (n * (n - 1) / 2) as f64)
    }

    /// Called on the calling thread after the initial population (iteration 0) and after each
    /// iteration's replacement, before its statistics are recorded, with the population and
    /// its fitness (NaN already mapped to `+∞`). Default: nothing.
    ///
    /// This is the place for work between iterations that needs the whole population, e.g.
    /// training a learned move operator (WORL-RTGS's DDQN) on transitions the moves stored
    /// through interior mutability. No move runs concurrently with it. For runs to stay
    /// reproducible, such state must be consumed in an order that does not depend on threads
    /// (e.g. sorted by the `(iteration, whale)` of [`Move::iteration`] / [`Move::whale`]).
    fn after_iteration(&self, iteration: usize, population: &[Self::Whale], fitness: &[f64]) {
        let _ = (iteration, population, fitness);
    }

    /// Checks a user-supplied initial whale before the run (`index` = its position in the
    /// supplied list). Default: accept.
    ///
    /// # Errors
    /// A problem returns a [`WoaError`] naming the whale, e.g.
    /// [`WoaError::InvalidInitialWhale`] or [`WoaError::DimensionMismatch`].
    fn check_initial_whale(&self, index: usize, whale: &Self::Whale) -> Result<(), WoaError> {
        let _ = (index, whale);
        Ok(())
    }
}
