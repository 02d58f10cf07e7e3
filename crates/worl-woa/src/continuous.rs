//! Continuous optimisation over a bound box: [`Bounds`], [`ContinuousProblem`] (the WOA
//! position updates of the reference code, implemented through [`WhaleProblem`]) and the
//! one-call [`minimize`].

use rand::Rng;
use serde::{Deserialize, Serialize};

use crate::config::WoaConfig;
use crate::engine::Woa;
use crate::error::WoaError;
use crate::history::WoaResult;
use crate::moves::{Move, MoveKind, Target};
use crate::problem::WhaleProblem;
use crate::rng::WhaleRng;

/// A box `[lo_j, hi_j]` per dimension `j`; every bound finite, `lo_j <= hi_j`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(try_from = "RawBounds")]
pub struct Bounds {
    lower: Vec<f64>,
    upper: Vec<f64>,
}

#[derive(Deserialize)]
struct RawBounds {
    lower: Vec<f64>,
    upper: Vec<f64>,
}

impl TryFrom<RawBounds> for Bounds {
    type Error = WoaError;
    fn try_from(raw: RawBounds) -> Result<Self, WoaError> {
        Bounds::new(raw.lower, raw.upper)
    }
}

impl Bounds {
    /// A box from its lower and upper corners.
    ///
    /// # Errors
    /// [`WoaError::EmptyBounds`] (no dimension), [`WoaError::BoundsLengthMismatch`],
    /// [`WoaError::InvalidBounds`] (a non-finite bound or `lo > hi`, naming the dimension).
    pub fn new(lower: Vec<f64>, upper: Vec<f64>) -> Result<Self, WoaError> {
        if lower.len() != upper.len() {
            return Err(WoaError::BoundsLengthMismatch {
                lower: lower.len(),
                upper: upper.len(),
            });
        }
        if lower.is_empty() {
            return Err(WoaError::EmptyBounds);
        }
        for (dimension, (&lo, &hi)) in lower.iter().zip(&upper).enumerate() {
            if !(lo.is_finite() && hi.is_finite() && lo <= hi) {
                return Err(WoaError::InvalidBounds { dimension, lo, hi });
            }
        }
        Ok(Bounds { lower, upper })
    }

    /// The same interval `[lo, hi]` in each of `dim` dimensions.
    ///
    /// # Errors
    /// As [`Bounds::new`].
    pub fn uniform(dim: usize, lo: f64, hi: f64) -> Result<Self, WoaError> {
        Bounds::new(vec![lo; dim], vec![hi; dim])
    }

    /// Number of dimensions.
    pub fn dim(&self) -> usize {
        self.lower.len()
    }

    /// Lower corner.
    pub fn lower(&self) -> &[f64] {
        &self.lower
    }

    /// Upper corner.
    pub fn upper(&self) -> &[f64] {
        &self.upper
    }

    /// Clamps `x` into the box in place, as the reference code does before each evaluation
    /// (`Flag4ub`/`Flag4lb`). `x` must have `dim()` coordinates.
    pub fn clamp(&self, x: &mut [f64]) {
        for ((v, &lo), &hi) in x.iter_mut().zip(&self.lower).zip(&self.upper) {
            *v = v.clamp(lo, hi);
        }
    }
}

/// Minimise `objective(x)` for `x` in a [`Bounds`] box with WOA.
///
/// Whales are `Vec<f64>` positions. Initial whales are uniform in the box. A move updates each
/// coordinate `j` with [`Move::apply_component`], the target coordinate being the leader's
/// (encircle, spiral) or the random whale's ([`Target::component_whale`], a fresh whale per
/// coordinate under `RandomWhaleDraw::PerDimension`), then clamps the result into the box.
/// Diversity is the mean Euclidean distance of the whales to their centroid.
pub struct ContinuousProblem<F> {
    bounds: Bounds,
    objective: F,
}

impl<F> ContinuousProblem<F>
where
    F: Fn(&[f64]) -> f64 + Sync,
{
    /// The problem of minimising `objective` over `bounds`.
    pub fn new(bounds: Bounds, objective: F) -> Self {
        ContinuousProblem { bounds, objective }
    }

    /// The search box.
    pub fn bounds(&self) -> &Bounds {
        &self.bounds
    }
}

impl<F> WhaleProblem for ContinuousProblem<F>
where
    F: Fn(&[f64]) -> f64 + Sync,
{
    type Whale = Vec<f64>;
    /// Centroid buffer for [`WhaleProblem::diversity`].
    type Scratch = Vec<f64>;

    fn scratch(&self) -> Vec<f64> {
        Vec::new()
    }

    fn random_whale(&self, rng: &mut WhaleRng, _: &mut Vec<f64>) -> Vec<f64> {
        self.bounds
            .lower
            .iter()
            .zip(&self.bounds.upper)
            .map(|(&lo, &hi)| lo + (hi - lo) * rng.random::<f64>())
            .collect()
    }

    fn fitness(&self, whale: &Vec<f64>, _: &mut Vec<f64>) -> f64 {
        (self.objective)(whale)
    }

    fn moved(
        &self,
        whale: &Vec<f64>,
        target: &Target<'_, Vec<f64>>,
        mv: &Move,
        rng: &mut WhaleRng,
        scratch: &mut Vec<f64>,
    ) -> Vec<f64> {
        let mut out = Vec::with_capacity(whale.len());
        self.move_into(whale, target, mv, rng, scratch, &mut out);
        out
    }

    fn move_into(
        &self,
        whale: &Vec<f64>,
        target: &Target<'_, Vec<f64>>,
        mv: &Move,
        rng: &mut WhaleRng,
        _: &mut Vec<f64>,
        out: &mut Vec<f64>,
    ) {
        out.clear();
        if mv.kind() == MoveKind::Search {
            for (j, &x) in whale.iter().enumerate() {
                out.push(mv.apply_component(x, target.component_whale(rng)[j]));
            }
        } else {
            let t = target.whale();
            out.extend(
                whale
                    .iter()
                    .zip(t)
                    .map(|(&x, &tj)| mv.apply_component(x, tj)),
            );
        }
        self.bounds.clamp(out);
    }

    fn distance(&self, a: &Vec<f64>, b: &Vec<f64>) -> Option<f64> {
        Some(
            a.iter()
                .zip(b)
                .map(|(x, y)| (x - y) * (x - y))
                .sum::<f64>()
                .sqrt(),
        )
    }

    /// Mean Euclidean distance of the whales to their centroid.
    fn diversity(&self, population: &[Vec<f64>], centroid: &mut Vec<f64>) -> Option<f64> {
        let n = population.len() as f64;
        centroid.clear();
        centroid.resize(self.bounds.dim(), 0.0);
        for whale in population {
            for (c, x) in centroid.iter_mut().zip(whale) {
                *c += x;
            }
        }
        centroid.iter_mut().for_each(|c| *c /= n);
        let total: f64 = population
            .iter()
            .map(|w| self.distance(w, centroid).unwrap_or(0.0))
            .sum();
        Some(total / n)
    }

    fn check_initial_whale(&self, index: usize, whale: &Vec<f64>) -> Result<(), WoaError> {
        if whale.len() != self.bounds.dim() {
            return Err(WoaError::DimensionMismatch {
                index,
                expected: self.bounds.dim(),
                found: whale.len(),
            });
        }
        for (dimension, ((&value, &lo), &hi)) in whale
            .iter()
            .zip(&self.bounds.lower)
            .zip(&self.bounds.upper)
            .enumerate()
        {
            if !(lo..=hi).contains(&value) {
                return Err(WoaError::OutOfBounds {
                    index,
                    dimension,
                    value,
                    lo,
                    hi,
                });
            }
        }
        Ok(())
    }
}

/// Minimises `objective` over `bounds` with WOA; shorthand for
/// `Woa::new(&ContinuousProblem::new(bounds.clone(), objective), config.clone()).run()`.
///
/// `objective` maps a position (`bounds.dim()` coordinates) to the value to minimise; NaN
/// counts as `+∞`. The result's `best` is the best position, `best_fitness` its value.
///
/// # Errors
/// Any [`WoaConfig::validate`] error.
pub fn minimize<F>(
    objective: F,
    bounds: &Bounds,
    config: &WoaConfig,
) -> Result<WoaResult<Vec<f64>>, WoaError>
where
    F: Fn(&[f64]) -> f64 + Sync,
{
    let problem = ContinuousProblem::new(bounds.clone(), objective);
    Woa::new(&problem, config.clone()).run()
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;

    fn problem() -> ContinuousProblem<fn(&[f64]) -> f64> {
        ContinuousProblem::new(
            Bounds::new(vec![-1.0, 0.0], vec![1.0, 10.0]).unwrap(),
            |x: &[f64]| x.iter().sum(),
        )
    }

    #[test]
    fn encircle_move_is_eq_2_2_per_coordinate_then_clamped() {
        let p = problem();
        let leader = vec![0.5, 4.0];
        let mv = Move::new(MoveKind::Encircle, 1.0, 0.5, 1.5, 0.0, 1.0);
        let mut rng = WhaleRng::seed_from_u64(0);
        let out = p.moved(
            &vec![0.0, 2.0],
            &Target::fixed(&leader),
            &mv,
            &mut rng,
            &mut vec![],
        );
        // 0.5 − 0.5·|0.75 − 0| = 0.125; 4 − 0.5·|6 − 2| = 2
        assert_eq!(out, vec![0.125, 2.0]);
        let far = Move::new(MoveKind::Encircle, 1.0, -0.9, 2.0, 0.0, 1.0);
        let out = p.moved(
            &vec![-1.0, 0.0],
            &Target::fixed(&leader),
            &far,
            &mut rng,
            &mut vec![],
        );
        // 0.5 + 0.9·|1 + 1| = 2.3 → clamped to 1; 4 + 0.9·8 = 11.2 → 10
        assert_eq!(out, vec![1.0, 10.0]);
    }

    #[test]
    fn diversity_is_mean_distance_to_centroid() {
        let p = problem();
        let pop = vec![vec![0.0, 0.0], vec![0.0, 4.0], vec![0.0, 2.0]];
        // centroid (0, 2): distances 2, 2, 0
        assert_eq!(p.diversity(&pop, &mut Vec::new()), Some(4.0 / 3.0));
    }

    #[test]
    fn random_whales_lie_in_the_box() {
        let p = problem();
        let mut rng = WhaleRng::seed_from_u64(9);
        for _ in 0..100 {
            let w = p.random_whale(&mut rng, &mut Vec::new());
            assert!((-1.0..=1.0).contains(&w[0]) && (0.0..=10.0).contains(&w[1]));
        }
    }
}
