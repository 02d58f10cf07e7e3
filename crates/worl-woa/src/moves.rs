//! What the engine hands a problem when a whale moves: the WOA coefficients ([`Move`]) and the
//! whale to move towards ([`Target`]).

use std::f64::consts::PI;

use rand::Rng;
use serde::{Deserialize, Serialize};

use crate::rng::WhaleRng;

/// The three WOA position updates (Mirjalili & Lewis 2016, §2.2).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MoveKind {
    /// Shrinking encircling of the leader (Eq. 2.1–2.2): `X' = X* − A·|C·X* − X|`, `|A| < 1`.
    Encircle,
    /// Spiral bubble-net attack (Eq. 2.5): `X' = |X* − X|·e^{bl}·cos(2πl) + X*`.
    Spiral,
    /// Search for prey around a random whale (Eq. 2.7–2.8): `X' = X_rand − A·|C·X_rand − X|`,
    /// `|A| >= 1` (exploration).
    Search,
}

/// The coefficients of one whale's move in one iteration, drawn by the engine.
///
/// Per whale and iteration (as in the reference MATLAB code): `r1, r2, l, p ~ U(0,1)` are drawn
/// once, giving the scalars `A = 2a·r1 − a`, `C = 2·r2` and `l = (a2 − 1)·r + 1 ~ U(a2, 1)` with
/// `a2 = −1 − τ` falling from −1 to −2; they apply to every coordinate. `p` chooses the kind and
/// is not stored. A problem that wants per-coordinate randomness (e.g. the ±1 signs of RTGS)
/// draws it from the [`WhaleRng`] it is given.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Move {
    kind: MoveKind,
    a: f64,
    coef_a: f64,
    coef_c: f64,
    l: f64,
    b: f64,
    spiral_factor: f64,
    iteration: usize,
    whale: usize,
}

impl Move {
    /// A move with the given kind and coefficients (`coef_a` = A, `coef_c` = C); the spiral
    /// factor `e^{bl}·cos(2πl)` is computed here. Iteration and whale index are 0; set them with
    /// [`Move::with_origin`]. The engine builds moves itself; this is for problem unit tests.
    pub fn new(kind: MoveKind, a: f64, coef_a: f64, coef_c: f64, l: f64, b: f64) -> Self {
        Move {
            kind,
            a,
            coef_a,
            coef_c,
            l,
            b,
            spiral_factor: (b * l).exp() * (2.0 * PI * l).cos(),
            iteration: 0,
            whale: 0,
        }
    }

    /// The same move tagged with the iteration (1-based) and population index it belongs to.
    pub fn with_origin(mut self, iteration: usize, whale: usize) -> Self {
        self.iteration = iteration;
        self.whale = whale;
        self
    }

    /// Which update to apply.
    pub fn kind(&self) -> MoveKind {
        self.kind
    }

    /// The control parameter `a ∈ [0, 2]` of this iteration.
    pub fn a(&self) -> f64 {
        self.a
    }

    /// `A = 2a·r1 − a ∈ [−a, a]` (Eq. 2.3); per whale, shared by all coordinates.
    pub fn coef_a(&self) -> f64 {
        self.coef_a
    }

    /// `C = 2·r2 ∈ [0, 2]` (Eq. 2.4); per whale, shared by all coordinates.
    pub fn coef_c(&self) -> f64 {
        self.coef_c
    }

    /// The spiral parameter `l ~ U(a2, 1)`, `a2` falling linearly from −1 to −2 (reference code).
    pub fn l(&self) -> f64 {
        self.l
    }

    /// The spiral shape constant `b` (from the configuration).
    pub fn b(&self) -> f64 {
        self.b
    }

    /// `e^{b·l}·cos(2π·l)`, the spiral's multiplier of `|X* − X|` (Eq. 2.5).
    pub fn spiral_factor(&self) -> f64 {
        self.spiral_factor
    }

    /// The step factor `F` of the RTGS adaptation: `A` for encircle and search,
    /// the spiral factor for spiral moves.
    pub fn step_factor(&self) -> f64 {
        match self.kind {
            MoveKind::Spiral => self.spiral_factor,
            MoveKind::Encircle | MoveKind::Search => self.coef_a,
        }
    }

    /// Iteration (1-based) this move belongs to.
    pub fn iteration(&self) -> usize {
        self.iteration
    }

    /// Population index of the moving whale.
    pub fn whale(&self) -> usize {
        self.whale
    }

    /// The canonical WOA update of one coordinate `x` towards the target's coordinate `t`:
    /// `t − A·|C·t − x|` (encircle, search) or `|t − x|·e^{bl}cos(2πl) + t` (spiral).
    ///
    /// ```
    /// use worl_woa::{Move, MoveKind};
    /// let m = Move::new(MoveKind::Encircle, 1.0, 0.5, 2.0, 0.0, 1.0);
    /// assert_eq!(m.apply_component(1.0, 3.0), 3.0 - 0.5 * (2.0f64 * 3.0 - 1.0).abs());
    /// let s = Move::new(MoveKind::Spiral, 1.0, 0.5, 2.0, 0.0, 1.0); // l = 0: factor 1
    /// assert_eq!(s.apply_component(1.0, 3.0), 2.0 + 3.0);
    /// ```
    #[inline]
    pub fn apply_component(&self, x: f64, t: f64) -> f64 {
        match self.kind {
            MoveKind::Encircle | MoveKind::Search => t - self.coef_a * (self.coef_c * t - x).abs(),
            MoveKind::Spiral => (t - x).abs() * self.spiral_factor + t,
        }
    }
}

/// Where random whales are drawn from.
#[derive(Clone, Copy, Debug)]
enum Pool<'a> {
    /// No pool: every draw returns the fixed whale.
    Fixed,
    /// Uniform over the whole population.
    All,
    /// Uniform over `indices` minus the entry at position `skip`.
    Eligible {
        indices: &'a [usize],
        skip: Option<usize>,
    },
}

/// The whale a move heads for: the leader (encircle, spiral) or a random whale (search).
///
/// With [`RandomWhaleDraw::PerDimension`](crate::RandomWhaleDraw::PerDimension) a search move
/// has a fresh random whale for every coordinate; problems honour it by calling
/// [`Target::component_whale`] once per coordinate (in coordinate order, so the draws are
/// reproducible). Problems whose moves act on the whole whale use [`Target::whale`].
#[derive(Clone, Copy, Debug)]
pub struct Target<'a, W> {
    whale: &'a W,
    population: &'a [W],
    pool: Pool<'a>,
}

impl<'a, W> Target<'a, W> {
    /// A target that always returns `whale` (also from [`Target::component_whale`]): what the
    /// engine passes for encircle and spiral moves, and a handy constructor for unit tests.
    pub fn fixed(whale: &'a W) -> Self {
        Target {
            whale,
            population: std::slice::from_ref(whale),
            pool: Pool::Fixed,
        }
    }

    /// Per-coordinate draws uniform over the whole population.
    pub(crate) fn per_component_all(whale: &'a W, population: &'a [W]) -> Self {
        Target {
            whale,
            population,
            pool: Pool::All,
        }
    }

    /// Per-coordinate draws uniform over `indices` minus position `skip`.
    pub(crate) fn per_component_eligible(
        whale: &'a W,
        population: &'a [W],
        indices: &'a [usize],
        skip: Option<usize>,
    ) -> Self {
        Target {
            whale,
            population,
            pool: Pool::Eligible { indices, skip },
        }
    }

    /// The target whale of this move (for search moves: the random whale drawn by the engine).
    pub fn whale(&self) -> &'a W {
        self.whale
    }

    /// The whale to use for the next coordinate: a fresh uniform draw from the move's random
    /// pool when the run draws random whales per dimension, otherwise [`Target::whale`] (no
    /// random number is consumed then).
    pub fn component_whale(&self, rng: &mut WhaleRng) -> &'a W {
        match self.pool {
            Pool::Fixed => self.whale,
            Pool::All => &self.population[rng.random_range(0..self.population.len())],
            Pool::Eligible { indices, skip } => {
                &self.population[indices[draw_skipping(indices.len(), skip, rng)]]
            }
        }
    }
}

/// A uniform position in `0..len` that is not `skip`. The caller guarantees at least one
/// position remains.
pub(crate) fn draw_skipping(len: usize, skip: Option<usize>, rng: &mut WhaleRng) -> usize {
    match skip {
        None => rng.random_range(0..len),
        Some(s) => {
            let k = rng.random_range(0..len - 1);
            if k >= s { k + 1 } else { k }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;

    #[test]
    fn step_factor_is_a_for_encircle_and_spiral_factor_for_spiral() {
        let e = Move::new(MoveKind::Encircle, 1.2, -0.7, 1.5, 0.25, 1.0);
        assert_eq!(e.step_factor(), -0.7);
        let s = Move::new(MoveKind::Spiral, 1.2, -0.7, 1.5, 0.25, 1.0);
        // cos(π/2) = 6.1e-17: e^{0.25}·cos(π/2)
        assert!((s.step_factor() - 0.25f64.exp() * (PI / 2.0).cos()).abs() < 1e-18);
        let s = Move::new(MoveKind::Spiral, 1.2, -0.7, 1.5, -0.5, 2.0);
        assert!((s.spiral_factor() + (-1.0f64).exp()).abs() < 1e-15);
    }

    #[test]
    fn search_update_matches_eq_2_8() {
        let m = Move::new(MoveKind::Search, 2.0, 1.5, 0.5, 0.0, 1.0);
        // X_rand = 4, X = 1: 4 − 1.5·|0.5·4 − 1| = 2.5
        assert_eq!(m.apply_component(1.0, 4.0), 2.5);
    }

    #[test]
    fn draw_skipping_never_returns_the_skipped_position_and_covers_the_rest() {
        let mut rng = WhaleRng::seed_from_u64(3);
        let mut seen = [0usize; 4];
        for _ in 0..4000 {
            seen[draw_skipping(4, Some(2), &mut rng)] += 1;
        }
        assert_eq!(seen[2], 0);
        assert!(
            seen[0] > 1000 && seen[1] > 1000 && seen[3] > 1000,
            "{seen:?}"
        );
    }
}
