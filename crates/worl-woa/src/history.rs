//! What a run reports: per-iteration statistics ([`IterationStats`], [`History`]) for
//! convergence plots, why it stopped ([`StopReason`]) and the final result ([`WoaResult`]).

use serde::{Deserialize, Serialize};

use crate::moves::MoveKind;

/// How many whales made each kind of move in one iteration.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct MoveCounts {
    /// Whales that encircled the leader.
    pub encircle: usize,
    /// Whales that made the spiral bubble-net move.
    pub spiral: usize,
    /// Whales that searched around a random whale (exploration).
    pub search: usize,
    /// Whales carried into the next population without moving (the leader and its ties under
    /// elitist truncation, and whales left over when the evaluation budget ran out).
    pub held: usize,
}

impl MoveCounts {
    pub(crate) fn add(&mut self, kind: Option<MoveKind>) {
        match kind {
            Some(MoveKind::Encircle) => self.encircle += 1,
            Some(MoveKind::Spiral) => self.spiral += 1,
            Some(MoveKind::Search) => self.search += 1,
            None => self.held += 1,
        }
    }

    /// Whales that moved (and were evaluated): `encircle + spiral + search`.
    pub fn moved(&self) -> usize {
        self.encircle + self.spiral + self.search
    }
}

/// The state of the run after one iteration (iteration 0: the initial population).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct IterationStats {
    /// 0 for the initial population, then 1..=T.
    pub iteration: usize,
    /// The control parameter `a` used by this iteration's moves (for iteration 0: the value the
    /// first iteration uses, 2).
    pub a: f64,
    /// Leader (best ever) fitness after this iteration; non-increasing over the run.
    pub best_fitness: f64,
    /// Best fitness in the current population.
    pub population_best: f64,
    /// Mean fitness of the current population (`+∞` if a whale scored NaN or `+∞`).
    pub mean_fitness: f64,
    /// Population diversity ([`WhaleProblem::diversity`](crate::WhaleProblem::diversity)):
    /// for continuous problems the mean Euclidean distance to the centroid, in position units.
    pub diversity: Option<f64>,
    /// Fitness evaluations so far, the initial population included.
    pub evaluations: u64,
    /// Moves made in this iteration (iteration 0: all zero except `held = 0`).
    pub moves: MoveCounts,
}

/// Per-iteration statistics of a run, in order (index `k` holds iteration `k`).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct History {
    /// One entry per iteration, starting with the initial population.
    pub iterations: Vec<IterationStats>,
}

impl History {
    /// Number of entries (completed iterations + 1 for the initial population).
    pub fn len(&self) -> usize {
        self.iterations.len()
    }

    /// Whether no entry was recorded (never the case for a finished run).
    pub fn is_empty(&self) -> bool {
        self.iterations.is_empty()
    }

    /// The entries in iteration order.
    pub fn iter(&self) -> std::slice::Iter<'_, IterationStats> {
        self.iterations.iter()
    }

    /// The last entry.
    pub fn last(&self) -> Option<&IterationStats> {
        self.iterations.last()
    }

    /// The convergence curve: leader fitness per iteration.
    pub fn best_curve(&self) -> Vec<f64> {
        self.iterations.iter().map(|s| s.best_fitness).collect()
    }

    /// Mean population fitness per iteration.
    pub fn mean_curve(&self) -> Vec<f64> {
        self.iterations.iter().map(|s| s.mean_fitness).collect()
    }

    /// Diversity per iteration (`None` where not recorded).
    pub fn diversity_curve(&self) -> Vec<Option<f64>> {
        self.iterations.iter().map(|s| s.diversity).collect()
    }
}

/// Why a run ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum StopReason {
    /// All `T` iterations ran.
    Iterations,
    /// The evaluation budget (`max_evaluations`) was spent.
    EvaluationBudget,
    /// The leader did not improve for `early_stop.patience` iterations.
    NoImprovement,
    /// The leader reached `target_fitness`.
    TargetReached,
    /// The observer returned `ControlFlow::Break`.
    Observer,
    /// The budget clock of [`Woa::with_clock`](crate::Woa::with_clock) reached 1.
    Budget,
}

/// The outcome of a run.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct WoaResult<W> {
    /// The leader: the best whale ever evaluated (continuous: the best position).
    pub best: W,
    /// Its fitness (NaN scores count as `+∞`).
    pub best_fitness: f64,
    /// Fitness evaluations used, the initial population included.
    pub evaluations: u64,
    /// Iterations completed after the initial population.
    pub iterations: usize,
    /// Why the run ended.
    pub stop_reason: StopReason,
    /// Per-iteration statistics (`iterations + 1` entries).
    pub history: History,
    /// The final population, in population order (slot 0 is the leader under elitist
    /// truncation).
    pub population: Vec<W>,
    /// Fitness of each whale of `population`.
    pub population_fitness: Vec<f64>,
}
