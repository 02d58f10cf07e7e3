//! The WOA main loop, shared by every [`WhaleProblem`]: initial population, leader, `a`
//! schedule, move selection, (parallel) moves and evaluations, replacement, statistics and
//! stopping rules.

use std::cmp::Ordering;
use std::ops::ControlFlow;

use rand::Rng;
use rayon::prelude::*;

use crate::config::{MoveRule, RandomWhaleDraw, Replacement, WoaConfig};
use crate::error::WoaError;
use crate::history::{History, IterationStats, MoveCounts, StopReason, WoaResult};
use crate::moves::{Move, MoveKind, Target, draw_skipping};
use crate::problem::WhaleProblem;
use crate::rng::RngFactory;

/// A configured WOA run over a [`WhaleProblem`].
///
/// ```
/// use std::ops::ControlFlow;
/// use worl_woa::{Bounds, ContinuousProblem, Woa, WoaConfig, functions};
///
/// let problem = ContinuousProblem::new(Bounds::uniform(5, -10.0, 10.0)?, functions::sphere);
/// let start = vec![1.0; 5]; // seed the population with a known position
/// let result = Woa::new(&problem, WoaConfig::new(20, 200).with_seed(3))
///     .with_initial_whales([start])
///     .run_with(|stats, _leader| {
///         // e.g. drive a progress bar; stop once good enough
///         if stats.best_fitness < 1e-12 { ControlFlow::Break(()) } else { ControlFlow::Continue(()) }
///     })?;
/// assert!(result.best_fitness < 1e-12);
/// assert_eq!(result.stop_reason, worl_woa::StopReason::Observer);
/// # Ok::<(), worl_woa::WoaError>(())
/// ```
pub struct Woa<'p, P: WhaleProblem> {
    problem: &'p P,
    config: WoaConfig,
    initial: Vec<P::Whale>,
    clock: Option<&'p dyn Fn() -> f64>,
}

impl<'p, P: WhaleProblem> Woa<'p, P> {
    /// A run of `problem` with `config`; nothing is checked or evaluated until
    /// [`Woa::run`].
    pub fn new(problem: &'p P, config: WoaConfig) -> Self {
        Woa {
            problem,
            config,
            initial: Vec::new(),
            clock: None,
        }
    }

    /// Drives the run by a budget clock instead of the iteration count: `clock()` is the share
    /// of the budget spent so far (e.g. of a CPU-time budget; read on the calling thread,
    /// once per iteration). The `a` schedule then reads `τ = min(clock(), 1)` at each
    /// iteration, and the run stops once `clock() >= 1` ([`StopReason::Budget`]) instead of
    /// after [`WoaConfig::iterations`]; the other stopping rules are unchanged. Give a search
    /// a time budget this way so that it uses the whole budget with its exploration schedule
    /// spread over it, as a search with an evaluation budget spreads it over the evaluations.
    pub fn with_clock(mut self, clock: &'p dyn Fn() -> f64) -> Self {
        self.clock = Some(clock);
        self
    }

    /// Seeds the initial population: these whales fill slots `0..k` (in order), the remaining
    /// `whales − k` slots get [`WhaleProblem::random_whale`]. They are evaluated like any other
    /// whale (and count towards the evaluation budget).
    pub fn with_initial_whales<I: IntoIterator<Item = P::Whale>>(mut self, whales: I) -> Self {
        self.initial = whales.into_iter().collect();
        self
    }

    /// The configuration of this run.
    pub fn config(&self) -> &WoaConfig {
        &self.config
    }

    /// Runs to the end.
    ///
    /// # Errors
    /// Any [`WoaConfig::validate`] error, [`WoaError::TooManyInitialWhales`], or the problem's
    /// [`WhaleProblem::check_initial_whale`] error.
    pub fn run(&self) -> Result<WoaResult<P::Whale>, WoaError> {
        self.run_with(|_, _| ControlFlow::Continue(()))
    }

    /// Runs, calling `observer` with the statistics and the leader after the initial population
    /// (iteration 0) and after every iteration. Returning `ControlFlow::Break(())` stops the run
    /// ([`StopReason::Observer`]); use it for progress reporting and wall-time budgets. The
    /// observer runs on the calling thread, between iterations.
    ///
    /// # Errors
    /// As [`Woa::run`].
    pub fn run_with<O>(&self, mut observer: O) -> Result<WoaResult<P::Whale>, WoaError>
    where
        O: FnMut(&IterationStats, &P::Whale) -> ControlFlow<()>,
    {
        let cfg = &self.config;
        cfg.validate()?;
        if self.initial.len() > cfg.whales {
            return Err(WoaError::TooManyInitialWhales {
                given: self.initial.len(),
                whales: cfg.whales,
            });
        }
        for (index, whale) in self.initial.iter().enumerate() {
            self.problem.check_initial_whale(index, whale)?;
        }
        let mut run = Run::start(self.problem, cfg, &self.initial, self.clock);
        let mut stop = run.record(0, cfg.a_schedule.a(0.0), &mut observer);
        while stop.is_none() {
            stop = run.iterate(&mut observer);
        }
        Ok(run.finish(stop.unwrap_or(StopReason::Iterations)))
    }
}

/// NaN fitness ranks as `+∞`, so every comparison below is total.
fn sanitize(fitness: f64) -> f64 {
    if fitness.is_nan() {
        f64::INFINITY
    } else {
        fitness
    }
}

/// The mutable state of one run.
struct Run<'a, P: WhaleProblem> {
    problem: &'a P,
    cfg: &'a WoaConfig,
    rngs: RngFactory,
    horizon: usize,
    clock: Option<&'a dyn Fn() -> f64>,
    scratch: P::Scratch,
    pop: Vec<P::Whale>,
    fit: Vec<f64>,
    next: Vec<P::Whale>,
    next_fit: Vec<f64>,
    kinds: Vec<Option<MoveKind>>,
    mover: Vec<bool>,
    eligible: Vec<usize>,
    order: Vec<usize>,
    leader: P::Whale,
    leader_fit: f64,
    evaluations: u64,
    iteration: usize,
    stale: usize,
    reference: f64,
    history: History,
}

impl<'a, P: WhaleProblem> Run<'a, P> {
    /// Builds and evaluates the initial population (iteration 0).
    fn start(
        problem: &'a P,
        cfg: &'a WoaConfig,
        initial: &[P::Whale],
        clock: Option<&'a dyn Fn() -> f64>,
    ) -> Self {
        let n = cfg.whales;
        let rngs = RngFactory::new(cfg.seed);
        let mut scratch = problem.scratch();
        let init = |i: usize, s: &mut P::Scratch| {
            let whale = match initial.get(i) {
                Some(w) => w.clone(),
                None => problem.random_whale(&mut rngs.whale(0, i), s),
            };
            let f = sanitize(problem.fitness(&whale, s));
            (whale, f)
        };
        let evaluated: Vec<(P::Whale, f64)> = if cfg.parallel {
            (0..n)
                .into_par_iter()
                .map_init(|| problem.scratch(), |s, i| init(i, s))
                .collect()
        } else {
            (0..n).map(|i| init(i, &mut scratch)).collect()
        };
        let (mut pop, mut fit): (Vec<_>, Vec<_>) = evaluated.into_iter().unzip();
        let mut order = Vec::with_capacity(n);
        if cfg.replacement == Replacement::ElitistTruncation {
            sort_by_fitness(&mut pop, &mut fit, &mut order);
        }
        let best = (1..n).fold(0, |b, i| if fit[i] < fit[b] { i } else { b });
        let leader = pop[best].clone();
        let leader_fit = fit[best];
        Run {
            problem,
            cfg,
            rngs,
            horizon: cfg.horizon(),
            clock,
            scratch,
            next: pop.clone(),
            next_fit: fit.clone(),
            pop,
            fit,
            kinds: vec![None; n],
            mover: vec![false; n],
            eligible: Vec::with_capacity(n),
            order,
            leader,
            leader_fit,
            evaluations: n as u64,
            iteration: 0,
            stale: 0,
            reference: leader_fit,
            history: History::default(),
        }
    }

    /// One iteration: choose the movers, move and evaluate them, replace, record.
    fn iterate<O>(&mut self, observer: &mut O) -> Option<StopReason>
    where
        O: FnMut(&IterationStats, &P::Whale) -> ControlFlow<()>,
    {
        let cfg = self.cfg;
        let n = cfg.whales;
        self.iteration += 1;
        let tau = match self.clock {
            Some(clock) => clock().clamp(0.0, 1.0),
            None => (self.iteration - 1) as f64 / self.horizon as f64,
        };
        let a = cfg.a_schedule.a(tau);
        let a2 = -1.0 - tau;

        // Movers, in index order, limited by the remaining evaluation budget.
        let mut remaining = cfg
            .max_evaluations
            .map_or(u64::MAX, |b| b.saturating_sub(self.evaluations));
        for i in 0..n {
            let wants = match cfg.replacement {
                Replacement::Canonical => true,
                Replacement::ElitistTruncation => i != 0 && self.fit[i] != self.leader_fit,
            };
            self.mover[i] = wants && remaining > 0;
            if self.mover[i] {
                remaining -= 1;
            }
        }
        self.eligible.clear();
        if cfg.move_rule == MoveRule::ExploreFirst {
            let leader_fit = self.leader_fit;
            self.eligible
                .extend((0..n).filter(|&j| self.fit[j] != leader_fit));
        }

        let step = Step {
            problem: self.problem,
            cfg,
            rngs: &self.rngs,
            pop: &self.pop,
            fit: &self.fit,
            leader: &self.leader,
            eligible: &self.eligible,
            mover: &self.mover,
            a,
            a2,
            iteration: self.iteration,
        };
        if cfg.parallel {
            let problem = self.problem;
            self.next
                .par_iter_mut()
                .zip(self.next_fit.par_iter_mut())
                .zip(self.kinds.par_iter_mut())
                .enumerate()
                .for_each_init(
                    || problem.scratch(),
                    |s, (i, ((out, f), kind))| *kind = step.run(i, out, f, s),
                );
        } else {
            for i in 0..n {
                self.kinds[i] = step.run(
                    i,
                    &mut self.next[i],
                    &mut self.next_fit[i],
                    &mut self.scratch,
                );
            }
        }
        std::mem::swap(&mut self.pop, &mut self.next);
        std::mem::swap(&mut self.fit, &mut self.next_fit);
        let mut counts = MoveCounts::default();
        for &kind in &self.kinds {
            counts.add(kind);
        }
        self.evaluations += counts.moved() as u64;

        match cfg.replacement {
            Replacement::Canonical => {
                for i in 0..n {
                    if self.fit[i] < self.leader_fit {
                        self.leader.clone_from(&self.pop[i]);
                        self.leader_fit = self.fit[i];
                    }
                }
            }
            Replacement::ElitistTruncation => {
                sort_by_fitness(&mut self.pop, &mut self.fit, &mut self.order);
                if self.fit[0] < self.leader_fit {
                    self.leader.clone_from(&self.pop[0]);
                    self.leader_fit = self.fit[0];
                }
            }
        }

        let mut stop = self.record_with_moves(self.iteration, a, counts, observer);
        if stop.is_none() {
            stop = self.check_stops();
        }
        stop
    }

    /// Iteration-end stopping rules other than the observer and the target fitness.
    fn check_stops(&mut self) -> Option<StopReason> {
        let cfg = self.cfg;
        if let Some(rule) = cfg.early_stop {
            if self.leader_fit < self.reference - rule.tolerance {
                self.reference = self.leader_fit;
                self.stale = 0;
            } else {
                self.stale += 1;
            }
        }
        if cfg.max_evaluations.is_some_and(|b| self.evaluations >= b) {
            return Some(StopReason::EvaluationBudget);
        }
        match self.clock {
            Some(clock) if clock() >= 1.0 => return Some(StopReason::Budget),
            Some(_) => {}
            None if self.iteration >= self.horizon => return Some(StopReason::Iterations),
            None => {}
        }
        if cfg
            .early_stop
            .is_some_and(|rule| self.stale >= rule.patience)
        {
            return Some(StopReason::NoImprovement);
        }
        None
    }

    /// Records iteration 0 and applies the stopping rules that can already fire.
    fn record<O>(&mut self, iteration: usize, a: f64, observer: &mut O) -> Option<StopReason>
    where
        O: FnMut(&IterationStats, &P::Whale) -> ControlFlow<()>,
    {
        let stop = self.record_with_moves(iteration, a, MoveCounts::default(), observer);
        if stop.is_some() {
            return stop;
        }
        if self
            .cfg
            .max_evaluations
            .is_some_and(|b| self.evaluations >= b)
        {
            return Some(StopReason::EvaluationBudget);
        }
        None
    }

    /// Pushes the statistics, calls the observer, checks the target fitness.
    fn record_with_moves<O>(
        &mut self,
        iteration: usize,
        a: f64,
        moves: MoveCounts,
        observer: &mut O,
    ) -> Option<StopReason>
    where
        O: FnMut(&IterationStats, &P::Whale) -> ControlFlow<()>,
    {
        self.problem
            .after_iteration(iteration, &self.pop, &self.fit);
        let n = self.fit.len() as f64;
        let stats = IterationStats {
            iteration,
            a,
            best_fitness: self.leader_fit,
            population_best: self.fit.iter().copied().fold(f64::INFINITY, f64::min),
            mean_fitness: self.fit.iter().sum::<f64>() / n,
            diversity: self.problem.diversity(&self.pop, &mut self.scratch),
            evaluations: self.evaluations,
            moves,
        };
        let flow = observer(&stats, &self.leader);
        self.history.iterations.push(stats);
        if flow.is_break() {
            return Some(StopReason::Observer);
        }
        if self
            .cfg
            .target_fitness
            .is_some_and(|t| self.leader_fit <= t)
        {
            return Some(StopReason::TargetReached);
        }
        None
    }

    fn finish(self, stop_reason: StopReason) -> WoaResult<P::Whale> {
        WoaResult {
            best: self.leader,
            best_fitness: self.leader_fit,
            evaluations: self.evaluations,
            iterations: self.iteration,
            stop_reason,
            history: self.history,
            population: self.pop,
            population_fitness: self.fit,
        }
    }
}

/// Read-only view of one iteration, shared by all workers.
struct Step<'s, P: WhaleProblem> {
    problem: &'s P,
    cfg: &'s WoaConfig,
    rngs: &'s RngFactory,
    pop: &'s [P::Whale],
    fit: &'s [f64],
    leader: &'s P::Whale,
    eligible: &'s [usize],
    mover: &'s [bool],
    a: f64,
    a2: f64,
    iteration: usize,
}

impl<P: WhaleProblem> Step<'_, P> {
    /// Fills slot `i` of the next population: the moved whale and its fitness, or a copy of
    /// the current whale when it does not move. Depends only on (seed, iteration, i) and the
    /// current population, never on the thread or the scratch contents.
    fn run(
        &self,
        i: usize,
        out: &mut P::Whale,
        out_fit: &mut f64,
        scratch: &mut P::Scratch,
    ) -> Option<MoveKind> {
        if !self.mover[i] {
            out.clone_from(&self.pop[i]);
            *out_fit = self.fit[i];
            return None;
        }
        let mut rng = self.rngs.whale(self.iteration as u64, i);
        // Draw order as in the reference code: r1, r2, l, p.
        let r1: f64 = rng.random();
        let r2: f64 = rng.random();
        let rl: f64 = rng.random();
        let p: f64 = rng.random();
        let coef_a = 2.0 * self.a * r1 - self.a;
        let coef_c = 2.0 * r2;
        let l = (self.a2 - 1.0) * rl + 1.0;
        let explore = coef_a.abs() >= 1.0;
        let kind = match self.cfg.move_rule {
            MoveRule::Canonical if p < 0.5 && explore => MoveKind::Search,
            MoveRule::Canonical if p < 0.5 => MoveKind::Encircle,
            MoveRule::Canonical => MoveKind::Spiral,
            MoveRule::ExploreFirst if explore => MoveKind::Search,
            MoveRule::ExploreFirst if p <= 0.5 => MoveKind::Encircle,
            MoveRule::ExploreFirst => MoveKind::Spiral,
        };
        let mv = Move::new(kind, self.a, coef_a, coef_c, l, self.cfg.spiral_b)
            .with_origin(self.iteration, i);
        let target = match kind {
            MoveKind::Encircle | MoveKind::Spiral => Target::fixed(self.leader),
            MoveKind::Search => self.search_target(i, &mut rng),
        };
        self.problem
            .move_into(&self.pop[i], &target, &mv, &mut rng, scratch, out);
        *out_fit = sanitize(self.problem.fitness(out, scratch));
        Some(kind)
    }

    /// The random whale of a search move by whale `i` (see [`MoveRule`]).
    fn search_target(&self, i: usize, rng: &mut crate::WhaleRng) -> Target<'_, P::Whale> {
        let per_dimension = self.cfg.random_whale == RandomWhaleDraw::PerDimension;
        match self.cfg.move_rule {
            MoveRule::Canonical => {
                let whale = &self.pop[rng.random_range(0..self.pop.len())];
                if per_dimension {
                    Target::per_component_all(whale, self.pop)
                } else {
                    Target::fixed(whale)
                }
            }
            MoveRule::ExploreFirst => {
                let skip = self.eligible.binary_search(&i).ok();
                if self.eligible.len() <= usize::from(skip.is_some()) {
                    return Target::fixed(self.leader);
                }
                let k = draw_skipping(self.eligible.len(), skip, rng);
                let whale = &self.pop[self.eligible[k]];
                if per_dimension {
                    Target::per_component_eligible(whale, self.pop, self.eligible, skip)
                } else {
                    Target::fixed(whale)
                }
            }
        }
    }
}

/// Stable sort of the population by fitness (ties keep their order, so the leader in slot 0
/// stays first among equals). `order` is a reusable buffer.
fn sort_by_fitness<W>(pop: &mut [W], fit: &mut [f64], order: &mut Vec<usize>) {
    order.clear();
    order.extend(0..pop.len());
    order.sort_by(|&x, &y| fit[x].partial_cmp(&fit[y]).unwrap_or(Ordering::Equal));
    permute_in_place(order, |x, y| {
        pop.swap(x, y);
        fit.swap(x, y);
    });
}

/// Reorders a sequence so that `new[k] = old[perm[k]]`, by calling `swap` along the
/// permutation's cycles. `perm` is consumed (overwritten with `usize::MAX`).
fn permute_in_place(perm: &mut [usize], mut swap: impl FnMut(usize, usize)) {
    for start in 0..perm.len() {
        if perm[start] == usize::MAX {
            continue;
        }
        let mut j = start;
        loop {
            let src = perm[j];
            perm[j] = usize::MAX;
            if src == start {
                break;
            }
            swap(j, src);
            j = src;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn permute_in_place_applies_new_k_equals_old_perm_k() {
        let mut v = vec!['a', 'b', 'c', 'd', 'e'];
        let mut perm = vec![3, 0, 4, 1, 2];
        permute_in_place(&mut perm, |x, y| v.swap(x, y));
        assert_eq!(v, vec!['d', 'a', 'e', 'b', 'c']);
    }

    #[test]
    fn sort_by_fitness_is_stable_and_keeps_slot_zero_first_among_ties() {
        let mut pop = vec!["leader", "x", "tie", "y"];
        let mut fit = vec![1.0, 3.0, 1.0, 0.5];
        let mut order = Vec::new();
        sort_by_fitness(&mut pop, &mut fit, &mut order);
        assert_eq!(pop, vec!["y", "leader", "tie", "x"]);
        assert_eq!(fit, vec![0.5, 1.0, 1.0, 3.0]);
    }
}
