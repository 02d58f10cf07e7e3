//! Run configuration: population, stopping rules, seed, spiral shape, `a` schedule, move-selection
//! rule, replacement policy and parallelism. Serde-serialisable so experiments can store it.

use serde::{Deserialize, Serialize};

use crate::error::WoaError;

serde_plain::derive_fromstr_from_deserialize!(MoveRule);
serde_plain::derive_display_from_serialize!(MoveRule);
serde_plain::derive_fromstr_from_deserialize!(Replacement);
serde_plain::derive_display_from_serialize!(Replacement);
serde_plain::derive_fromstr_from_deserialize!(RandomWhaleDraw);
serde_plain::derive_display_from_serialize!(RandomWhaleDraw);

/// How the control parameter `a` decreases from 2 to 0 over the run.
///
/// `a` scales the coefficient `A = 2a·r1 − a` (Mirjalili & Lewis 2016, Eq. 2.3), so it sets the
/// balance between exploration (`|A| >= 1`, only possible while `a >= 1`) and exploitation.
/// The schedule is a function of the progress `τ = (t − 1) / T ∈ [0, 1)` of iteration
/// `t = 1..=T`, as in the authors' reference MATLAB code (`a = 2 − t·2/Max_iter` with its loop
/// counter starting at 0): the first iteration uses `a = 2` and the last `a = a(1 − 1/T) > 0`.
///
/// Text form (options, serde, `FromStr`/`Display`): `linear`, `quadratic`, `cosine`,
/// `exponential:RATE`; serde also reads the older tagged form `{"exponential": {"rate": 3.0}}`.
///
/// ```
/// use worl_woa::ASchedule;
/// let a: ASchedule = "exponential:3".parse().unwrap();
/// assert_eq!(a, ASchedule::Exponential { rate: 3.0 });
/// assert_eq!(a.to_string(), "exponential:3");
/// assert!("exponential:-1".parse::<ASchedule>().is_err());
/// assert_eq!(serde_json::to_string(&ASchedule::Cosine).unwrap(), "\"cosine\"");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Default, Serialize, Deserialize)]
#[serde(try_from = "ASchedulePlain", into = "String")]
pub enum ASchedule {
    /// `a(τ) = 2 (1 − τ)`: the canonical linear decrease (WOA paper, Eq. 2.3).
    #[default]
    Linear,
    /// `a(τ) = 2 (1 − τ²)`: stays near 2 longer (more exploration early), a common WOA variant.
    Quadratic,
    /// `a(τ) = 1 + cos(π τ)`: half a cosine period from 2 to 0.
    Cosine,
    /// `a(τ) = 2 (e^{−k τ} − e^{−k}) / (1 − e^{−k})` with `k = rate > 0`: fast early decrease,
    /// normalised to reach exactly 0 at `τ = 1`.
    Exponential {
        /// The decay rate `k`; must be finite and > 0.
        rate: f64,
    },
}

impl std::str::FromStr for ASchedule {
    type Err = String;

    fn from_str(text: &str) -> Result<Self, String> {
        match text.trim() {
            "linear" => return Ok(ASchedule::Linear),
            "quadratic" => return Ok(ASchedule::Quadratic),
            "cosine" => return Ok(ASchedule::Cosine),
            _ => {}
        }
        if let Some(rate) = text.trim().strip_prefix("exponential:")
            && let Ok(rate) = rate.trim().parse::<f64>()
            && rate.is_finite()
            && rate > 0.0
        {
            return Ok(ASchedule::Exponential { rate });
        }
        Err(format!(
            "`{text}`: expected `linear`, `quadratic`, `cosine` or `exponential:RATE` with RATE > 0"
        ))
    }
}

impl std::fmt::Display for ASchedule {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ASchedule::Linear => f.write_str("linear"),
            ASchedule::Quadratic => f.write_str("quadratic"),
            ASchedule::Cosine => f.write_str("cosine"),
            ASchedule::Exponential { rate } => write!(f, "exponential:{rate}"),
        }
    }
}

impl From<ASchedule> for String {
    fn from(a: ASchedule) -> String {
        a.to_string()
    }
}

/// What serde reads as an [`ASchedule`]: its text form, or the older tagged form.
#[derive(Deserialize)]
#[serde(untagged)]
enum ASchedulePlain {
    Text(String),
    Tagged(AScheduleTagged),
}

/// The tagged serde form of [`ASchedule`] before its text form.
#[derive(Deserialize)]
#[serde(rename_all = "snake_case")]
enum AScheduleTagged {
    Linear,
    Quadratic,
    Cosine,
    Exponential { rate: f64 },
}

impl TryFrom<ASchedulePlain> for ASchedule {
    type Error = String;

    fn try_from(plain: ASchedulePlain) -> Result<Self, String> {
        match plain {
            ASchedulePlain::Text(text) => text.parse(),
            ASchedulePlain::Tagged(AScheduleTagged::Linear) => Ok(ASchedule::Linear),
            ASchedulePlain::Tagged(AScheduleTagged::Quadratic) => Ok(ASchedule::Quadratic),
            ASchedulePlain::Tagged(AScheduleTagged::Cosine) => Ok(ASchedule::Cosine),
            ASchedulePlain::Tagged(AScheduleTagged::Exponential { rate }) => {
                format!("exponential:{rate}").parse()
            }
        }
    }
}

impl ASchedule {
    /// The value of `a` at progress `tau ∈ [0, 1]`; `a(0) = 2`, `a(1) = 0`, non-increasing.
    ///
    /// ```
    /// use worl_woa::ASchedule;
    /// assert_eq!(ASchedule::Linear.a(0.25), 1.5);
    /// assert_eq!(ASchedule::Quadratic.a(0.5), 1.5);
    /// assert!((ASchedule::Cosine.a(0.5) - 1.0).abs() < 1e-15);
    /// ```
    pub fn a(&self, tau: f64) -> f64 {
        match *self {
            ASchedule::Linear => 2.0 * (1.0 - tau),
            ASchedule::Quadratic => 2.0 * (1.0 - tau * tau),
            ASchedule::Cosine => 1.0 + (std::f64::consts::PI * tau).cos(),
            ASchedule::Exponential { rate } => {
                let end = (-rate).exp();
                2.0 * ((-rate * tau).exp() - end) / (1.0 - end)
            }
        }
    }
}

/// Which WOA move a whale makes, given its draws `A` and `p`.
///
/// Text form (options, serde, `FromStr`/`Display`): `canonical`, `explore-first` (serde also
/// reads `explore_first`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum MoveRule {
    /// The WOA paper and reference code (Eq. 2.6): `p < 0.5` → (`|A| >= 1` → search for prey
    /// around a random whale, else encircle the leader); `p >= 0.5` → spiral bubble-net attack.
    /// The random whale is drawn uniformly from the whole population (the moving whale and the
    /// leader's slot included), as `floor(N·rand() + 1)` in the reference code.
    #[default]
    Canonical,
    /// The WORL-RTGS authors' code (`WORLRTGS.java`): `|A| >= 1` → search around a
    /// random whale regardless of `p`; else `p <= 0.5` → encircle, else spiral. The random whale
    /// is drawn uniformly from the whales whose fitness differs from the leader's, excluding the
    /// moving whale itself; when no such whale exists the leader is the target.
    #[serde(alias = "explore_first")]
    ExploreFirst,
}

/// How the next population is formed from the moved whales.
///
/// Text form (options, serde, `FromStr`/`Display`): `canonical`, `elitist-truncation` (also
/// read: `elitist`, `elitist_truncation`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Replacement {
    /// Every whale is replaced by its moved version (reference code); the leader is the best
    /// whale ever evaluated, kept outside the population.
    #[default]
    Canonical,
    /// The WORL-RTGS authors' elitism: the leader is carried into the next
    /// population unchanged, whales whose fitness equals the leader's are skipped as movers
    /// (carried unchanged), every other whale is replaced by its moved version, and the result
    /// is ordered by fitness and truncated to `whales`. The order is a stable sort by fitness
    /// with the leader first among equal fitness and then previous index, so slot 0 always holds
    /// the leader. (Leader plus carried plus moved whales are exactly `whales`, so the truncation
    /// never drops a whale; the authors' code instead loses the skipped whales.)
    #[serde(alias = "elitist", alias = "elitist_truncation")]
    ElitistTruncation,
}

/// Whether a search-for-prey move uses one random whale or one per coordinate.
///
/// Text form (options, serde, `FromStr`/`Display`): `per-dimension`, `per-whale` (serde also
/// reads `per_dimension`, `per_whale`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum RandomWhaleDraw {
    /// A fresh random whale for every coordinate, as the reference MATLAB code does: its
    /// `rand_leader_index = floor(SearchAgents_no*rand()+1)` sits inside the `for j=1:dim` loop.
    /// Problems honour it through [`Target::component_whale`](crate::Target::component_whale).
    #[default]
    #[serde(alias = "per_dimension")]
    PerDimension,
    /// One random whale for the whole move (the WOA paper's Eq. 2.8 as written, and the
    /// WORL-RTGS authors' code).
    #[serde(alias = "per_whale")]
    PerWhale,
}

/// Stop when the leader has not improved for `patience` consecutive iterations.
///
/// An iteration improves the leader when its fitness drops below `reference − tolerance`, where
/// `reference` is the leader fitness at the last improvement (or after initialisation).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct EarlyStop {
    /// Iterations without improvement after which the run stops; at least 1.
    pub patience: usize,
    /// Absolute improvement below which a change does not count; finite and >= 0.
    pub tolerance: f64,
}

impl EarlyStop {
    /// Stop after `patience` iterations without any strict improvement (tolerance 0).
    pub fn new(patience: usize) -> Self {
        EarlyStop {
            patience,
            tolerance: 0.0,
        }
    }

    /// The same rule with an absolute tolerance.
    pub fn with_tolerance(mut self, tolerance: f64) -> Self {
        self.tolerance = tolerance;
        self
    }
}

/// Configuration of one WOA run. Build it with [`WoaConfig::new`] and the `with_*` methods;
/// [`WoaConfig::validate`] (called by every run) checks it.
///
/// Defaults (`WoaConfig::default()`) follow the WOA paper's benchmark setup: 30 whales, 500
/// iterations, `b = 1`, linear `a`, canonical move rule and replacement, per-dimension random
/// whale, seed 0, sequential evaluation.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct WoaConfig {
    /// Population size `N` (search agents). At least 1.
    pub whales: usize,
    /// Number of iterations `T` after the initial population; also the horizon of the `a`
    /// schedule. 0 means "until the evaluation budget is spent": the horizon is then
    /// `ceil((max_evaluations − whales) / movers)` with `movers = whales` (canonical replacement)
    /// or `max(whales − 1, 1)` (elitist), at least 1.
    pub iterations: usize,
    /// Maximum number of fitness evaluations, the initial population included. When the next
    /// iteration would exceed it, only the first remaining movers (by population index) move.
    pub max_evaluations: Option<u64>,
    /// Optional stop on stagnation of the leader.
    pub early_stop: Option<EarlyStop>,
    /// Stop as soon as the leader's fitness is `<=` this value.
    pub target_fitness: Option<f64>,
    /// Seed of every random draw (see [`whale_rng`](crate::whale_rng)).
    pub seed: u64,
    /// Shape constant `b` of the logarithmic spiral `e^{bl}·cos(2πl)` (WOA paper Eq. 2.5; 1 in
    /// the reference code and in the WORL-RTGS authors' code).
    pub spiral_b: f64,
    /// How `a` decreases from 2 to 0.
    pub a_schedule: ASchedule,
    /// Which move a whale makes.
    pub move_rule: MoveRule,
    /// How the next population is formed.
    pub replacement: Replacement,
    /// One random whale per move or per coordinate in search moves.
    pub random_whale: RandomWhaleDraw,
    /// Evaluate whales on the current rayon thread pool. Results are bit-identical to the
    /// sequential run for the same seed, whatever the number of threads.
    pub parallel: bool,
}

impl Default for WoaConfig {
    fn default() -> Self {
        WoaConfig {
            whales: 30,
            iterations: 500,
            max_evaluations: None,
            early_stop: None,
            target_fitness: None,
            seed: 0,
            spiral_b: 1.0,
            a_schedule: ASchedule::Linear,
            move_rule: MoveRule::Canonical,
            replacement: Replacement::Canonical,
            random_whale: RandomWhaleDraw::PerDimension,
            parallel: false,
        }
    }
}

impl WoaConfig {
    /// Canonical WOA with `whales` whales and `iterations` iterations; other fields default.
    pub fn new(whales: usize, iterations: usize) -> Self {
        WoaConfig {
            whales,
            iterations,
            ..WoaConfig::default()
        }
    }

    /// The WORL-RTGS authors' variant (`WORLRTGS.java`): explore-first move rule,
    /// elitist truncation, one random whale per move, `b = 1`, linear `a`.
    ///
    /// Two engine details stay those of the canonical WOA rather than the authors' code: the
    /// spiral parameter is drawn as `l ~ U(a₂, 1)` (Mirjalili's reference code; the authors
    /// draw `l ~ U(−1, 1)`), and the first iteration uses `a = 2` (the authors' `2(1 − k/K)`
    /// starts at `2(1 − 1/K)`).
    pub fn authors_rtgs(whales: usize, iterations: usize) -> Self {
        WoaConfig {
            move_rule: MoveRule::ExploreFirst,
            replacement: Replacement::ElitistTruncation,
            random_whale: RandomWhaleDraw::PerWhale,
            ..WoaConfig::new(whales, iterations)
        }
    }

    /// Sets the seed.
    pub fn with_seed(mut self, seed: u64) -> Self {
        self.seed = seed;
        self
    }

    /// Sets the evaluation budget (initial population included).
    pub fn with_max_evaluations(mut self, max_evaluations: u64) -> Self {
        self.max_evaluations = Some(max_evaluations);
        self
    }

    /// Sets the stagnation stop.
    pub fn with_early_stop(mut self, early_stop: EarlyStop) -> Self {
        self.early_stop = Some(early_stop);
        self
    }

    /// Stops once the leader's fitness is `<= target`.
    pub fn with_target_fitness(mut self, target: f64) -> Self {
        self.target_fitness = Some(target);
        self
    }

    /// Sets the spiral shape constant `b`.
    pub fn with_spiral_b(mut self, b: f64) -> Self {
        self.spiral_b = b;
        self
    }

    /// Sets the `a` schedule.
    pub fn with_a_schedule(mut self, schedule: ASchedule) -> Self {
        self.a_schedule = schedule;
        self
    }

    /// Sets the move-selection rule.
    pub fn with_move_rule(mut self, rule: MoveRule) -> Self {
        self.move_rule = rule;
        self
    }

    /// Sets the replacement policy.
    pub fn with_replacement(mut self, replacement: Replacement) -> Self {
        self.replacement = replacement;
        self
    }

    /// Sets how search moves draw their random whale.
    pub fn with_random_whale(mut self, draw: RandomWhaleDraw) -> Self {
        self.random_whale = draw;
        self
    }

    /// Turns parallel evaluation on or off.
    pub fn with_parallel(mut self, parallel: bool) -> Self {
        self.parallel = parallel;
        self
    }

    /// Checks the configuration.
    ///
    /// # Errors
    /// [`WoaError::ZeroWhales`], [`WoaError::NoStoppingRule`],
    /// [`WoaError::BudgetBelowPopulation`], [`WoaError::InvalidSpiralShape`],
    /// [`WoaError::InvalidScheduleRate`], [`WoaError::ZeroPatience`],
    /// [`WoaError::InvalidTolerance`], [`WoaError::InvalidTargetFitness`].
    pub fn validate(&self) -> Result<(), WoaError> {
        if self.whales == 0 {
            return Err(WoaError::ZeroWhales);
        }
        if self.iterations == 0 && self.max_evaluations.is_none() {
            return Err(WoaError::NoStoppingRule);
        }
        if let Some(budget) = self.max_evaluations
            && budget < self.whales as u64
        {
            return Err(WoaError::BudgetBelowPopulation {
                budget,
                whales: self.whales,
            });
        }
        if !self.spiral_b.is_finite() {
            return Err(WoaError::InvalidSpiralShape { b: self.spiral_b });
        }
        if let ASchedule::Exponential { rate } = self.a_schedule
            && !(rate.is_finite() && rate > 0.0)
        {
            return Err(WoaError::InvalidScheduleRate { rate });
        }
        if let Some(stop) = self.early_stop {
            if stop.patience == 0 {
                return Err(WoaError::ZeroPatience);
            }
            if !(stop.tolerance.is_finite() && stop.tolerance >= 0.0) {
                return Err(WoaError::InvalidTolerance {
                    tolerance: stop.tolerance,
                });
            }
        }
        if self.target_fitness.is_some_and(f64::is_nan) {
            return Err(WoaError::InvalidTargetFitness);
        }
        Ok(())
    }

    /// The horizon `T` of the `a` schedule and the iteration cap: `iterations` when non-zero,
    /// else derived from the evaluation budget (see [`WoaConfig::iterations`]). Assumes a
    /// validated configuration; returns at least 1.
    pub fn horizon(&self) -> usize {
        if self.iterations > 0 {
            return self.iterations;
        }
        let budget = self.max_evaluations.unwrap_or(self.whales as u64);
        let movers = match self.replacement {
            Replacement::Canonical => self.whales,
            Replacement::ElitistTruncation => self.whales.saturating_sub(1).max(1),
        } as u64;
        let rest = budget.saturating_sub(self.whales as u64);
        usize::try_from(rest.div_ceil(movers).max(1)).unwrap_or(usize::MAX)
    }
}
