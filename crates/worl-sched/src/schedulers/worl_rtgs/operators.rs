//! The default preset's engine: a whale search over plans whose intensification is a burst
//! of local moves, the move chosen by the Double DQN agent; the method, its choices and
//! their measured effects are in the [module docs](super), "The default preset's search".
//!
//! One agent decision costs a forward pass of a 6+8-input 16-16 MLP (a few µs) for `burst`
//! plan evaluations, so the search spends its time evaluating plans, as ILS does.

use std::time::Instant;

use rand::Rng;
use rand::seq::IndexedRandom;
use rand_chacha::ChaCha8Rng;
use worl_cluster::{Policy, Problem, Schedule};
use worl_dag::TaskId;
use worl_ddqn::{Agent, Observation, Step};

use crate::error::Result;
use crate::scheduler::{Progress, RunContext};
use crate::schedulers::list::{Heft, Peft, upward_ranks};
use crate::schedulers::local::ils::{evaluations_spent, randomized_heft};
use crate::schedulers::local::{Evaluation, LocalState, Move, Tried, Undo};
use crate::schedulers::search::FeasibleGpus;

use super::MoveChoice;
use super::move_scorer::{CANDIDATES, CandidateMoves, MOVE_ACTION_DIM};

/// State features of the operator agent.
pub const OPERATOR_STATE_DIM: usize = 6;
/// Action features of the operator agent.
pub const OPERATOR_ACTION_DIM: usize = 8;
/// State features of the move-scoring agent ([`MoveChoice::Scored`]): those of the
/// operator agent.
pub const MOVE_STATE_DIM: usize = OPERATOR_STATE_DIM;

/// Plan evaluations one gradient step is counted as when the run has no CPU-time budget
/// (a step of the 16-16 network on flex costs about as much as 100 incremental tries).
const STEP_COST: u64 = 100;

/// Share of the run (time, or evaluations at [`STEP_COST`] per step) learning may take.
const LEARNING_SHARE: f64 = 0.2;

/// Relative noise of the upward ranks of a randomized-rank HEFT plan (a restart).
const RESTART_NOISE: f64 = 0.3;

/// Rewards are `clamp(REWARD_SCALE · relative makespan gain, ·, 1)`: a 1 % gain earns 1.
const REWARD_SCALE: f64 = 100.0;

/// Settings of [`run_operator_search`].
#[derive(Clone, Debug)]
pub(crate) struct OperatorSettings {
    pub whales: usize,
    pub iterations: usize,
    pub burst: usize,
    pub patience: usize,
    pub choice: MoveChoice,
    pub kick: usize,
    pub focus: f64,
    pub race: bool,
    pub train_steps: usize,
    pub learn: bool,
    pub policy: Policy,
}

/// The result of [`run_operator_search`].
pub(crate) struct OperatorOutcome {
    pub schedule: Schedule,
    /// Bursts per move, in [`Move::ALL`] order.
    pub chosen: [u64; 6],
}

/// Sample-mean bandit over the six moves ([`MoveChoice::EpsilonGreedy`],
/// [`MoveChoice::Ucb`]); rewards are the bursts' rewards.
#[derive(Default)]
struct Bandit {
    plays: [u64; 6],
    mean: [f64; 6],
}

impl Bandit {
    fn choose(&self, choice: MoveChoice, rng: &mut ChaCha8Rng) -> usize {
        if let Some(i) = self.plays.iter().position(|&n| n == 0) {
            return i;
        }
        let argmax = |score: &dyn Fn(usize) -> f64| {
            (0..6).fold(0, |b, i| if score(i) > score(b) { i } else { b })
        };
        match choice {
            MoveChoice::EpsilonGreedy if rng.random::<f64>() < 0.1 => rng.random_range(0..6),
            MoveChoice::EpsilonGreedy => argmax(&|i| self.mean[i]),
            _ => {
                let total: u64 = self.plays.iter().sum();
                let log = (total as f64).ln();
                argmax(&|i| self.mean[i] + (2.0 * log / self.plays[i] as f64).sqrt())
            }
        }
    }

    fn update(&mut self, i: usize, reward: f64) {
        self.plays[i] += 1;
        self.mean[i] += (reward - self.mean[i]) / self.plays[i] as f64;
    }
}

struct MoveStats {
    success: [f64; 6],
    gain: [f64; 6],
}

impl MoveStats {
    fn features(&self, out: &mut Vec<f32>) {
        out.clear();
        for i in 0..6 {
            for j in 0..6 {
                out.push(if i == j { 1.0 } else { 0.0 });
            }
            out.push(self.success[i] as f32);
            out.push((100.0 * self.gain[i]).clamp(-1.0, 1.0) as f32);
        }
    }

    fn update(&mut self, i: usize, success: f64, gain: f64) {
        const RATE: f64 = 0.05;
        self.success[i] += RATE * (success - self.success[i]);
        self.gain[i] += RATE * (gain - self.gain[i]);
    }
}

/// Runs the operator search (module docs) from `agent`; returns the best schedule (never
/// worse than HEFT's or PEFT's plan under `policy`) and gives the agent back.
pub(crate) fn run_operator_search(
    problem: &Problem,
    s: &OperatorSettings,
    agent: &mut Agent,
    ctx: &mut RunContext<'_>,
) -> Result<OperatorOutcome> {
    let feasible = FeasibleGpus::new(problem);
    let mut rng: ChaCha8Rng = ctx.rng();
    let ranks = upward_ranks(problem);
    let heft = Heft::new().schedule_with_priorities(problem, ranks.clone())?;
    let peft =
        crate::Scheduler::schedule(&mut Peft::new(), problem, &mut RunContext::new(ctx.seed()))?;
    let mut whales = Vec::with_capacity(s.whales.max(1));
    for i in 0..s.whales.max(1) {
        let start = match i {
            0 => heft.clone(),
            1 => peft.clone(),
            _ => randomized_heft(problem, &ranks, RESTART_NOISE, &mut rng)?,
        };
        whales.push(LocalState::from_schedule(
            problem, &feasible, s.policy, &start,
        )?);
    }
    let mut search = OperatorSearch::new(problem, &feasible, s, ranks, rng, whales);
    let mut share = LearningShare::new(agent);
    let mut iteration = 0u64;
    'search: loop {
        let spent = budget_spent(ctx, search.steps_planned, search.evaluations);
        let a = 2.0 * (1.0 - spent);
        for i in 0..search.whales.len() {
            if evaluations_spent(ctx, search.steps_planned, search.evaluations) {
                break 'search;
            }
            let turn = TurnCost::start(ctx, search.steps_planned, search.evaluations);
            search.whale_turn(i, a, spent, agent, ctx)?;
            search.pace[i].cost += turn.share(search.evaluations);
        }
        iteration += 1;
        if search.learns() && share.allows(ctx, agent, search.evaluations) {
            share.train(agent, s.train_steps)?;
        }
        let progress = Progress {
            step: iteration,
            total_steps: s.iterations as u64,
            evaluations: search.evaluations,
            best_makespan: search.leader.makespan(),
        };
        if ctx.report(progress).is_break() {
            break;
        }
    }
    let mut schedule =
        worl_cluster::Evaluator::new(problem).schedule(&search.leader.plan, s.policy)?;
    for seed in [heft, peft] {
        if seed.makespan() < schedule.makespan() {
            schedule = seed;
        }
    }
    Ok(OperatorOutcome {
        schedule,
        chosen: search.chosen,
    })
}

/// The state of the operator search between whale turns.
struct OperatorSearch<'p, 's> {
    problem: &'p Problem,
    feasible: &'p FeasibleGpus,
    s: &'s OperatorSettings,
    ranks: Vec<f64>,
    rng: ChaCha8Rng,
    whales: Vec<LocalState<'p>>,
    leader: LocalState<'p>,
    /// Per whale: failed bursts in a row, and the last burst's reward.
    stagnation: Vec<usize>,
    last_reward: Vec<f32>,
    /// The current whale's critical chain.
    chain: Vec<TaskId>,
    /// Bursts (or scored tries) per move, in [`Move::ALL`] order.
    chosen: [u64; 6],
    bandit: Bandit,
    stats: MoveStats,
    scorer: Scorer,
    /// The operator agent's observation before and after a burst.
    obs: Observation,
    next: Observation,
    /// Whether the operator agent learns (only `moves=agent`: the other choices would pay
    /// for training a network they never read).
    learn: bool,
    evaluations: u64,
    /// The evaluation cap of a run without any budget.
    steps_planned: usize,
    /// Per whale: its progress since its last WOA move or restart.
    pace: Vec<Pace>,
    /// Per whale: whether it rests (skips its turns) until the leader stalls.
    resting: Vec<bool>,
}

impl<'p, 's> OperatorSearch<'p, 's> {
    fn new(
        problem: &'p Problem,
        feasible: &'p FeasibleGpus,
        s: &'s OperatorSettings,
        ranks: Vec<f64>,
        rng: ChaCha8Rng,
        whales: Vec<LocalState<'p>>,
    ) -> Self {
        let lead = (0..whales.len())
            .min_by(|&a, &b| {
                let (x, y) = (whales[a].makespan(), whales[b].makespan());
                x.total_cmp(&y).then(a.cmp(&b))
            })
            .expect("whales");
        let obs = Observation {
            state: Vec::with_capacity(OPERATOR_STATE_DIM),
            candidates: Vec::with_capacity(6 * OPERATOR_ACTION_DIM),
            mask: Vec::new(),
        };
        OperatorSearch {
            problem,
            feasible,
            s,
            ranks,
            rng,
            leader: whales[lead].clone(),
            stagnation: vec![0; whales.len()],
            last_reward: vec![0.0; whales.len()],
            chain: Vec::new(),
            chosen: [0; 6],
            bandit: Bandit::default(),
            stats: MoveStats {
                success: [0.5; 6],
                gain: [0.0; 6],
            },
            scorer: Scorer::new(whales.len(), s.learn && s.choice == MoveChoice::Scored),
            next: obs.clone(),
            obs,
            learn: s.learn && s.choice == MoveChoice::Agent,
            evaluations: whales.len() as u64,
            steps_planned: (s.whales * s.iterations * (s.burst + 1)).max(1),
            pace: whales.iter().map(|w| Pace::new(w.makespan())).collect(),
            resting: vec![false; whales.len()],
            whales,
        }
    }

    /// Whether an agent learns in this run.
    fn learns(&self) -> bool {
        self.learn || self.scorer.learn
    }

    /// The state view of whale `i` of makespan-independent numbers (`a`, `spent`).
    fn view(&self, i: usize, a: f64, spent: f64) -> WhaleView {
        WhaleView {
            a,
            spent,
            leader: self.leader.makespan(),
            stagnation: self.stagnation[i],
            chain_share: self.chain.len() as f32 / self.problem.n_tasks() as f32,
            last_reward: self.last_reward[i],
        }
    }

    /// Whale `i`'s turn (module docs, "The default preset's search"): its WOA move when its
    /// bursts stopped paying, a move choice, a burst, the bookkeeping and the agent's
    /// transition.
    fn whale_turn(
        &mut self,
        i: usize,
        a: f64,
        spent: f64,
        agent: &mut Agent,
        ctx: &RunContext<'_>,
    ) -> Result<()> {
        // Race (module docs, item 3): a whale that cannot catch the leader rests until the
        // leader stalls, then makes its WOA move.
        if self.s.race && self.hopeless(i, spent) {
            self.resting[i] = true;
        }
        if self.resting[i] {
            if !self.leader_stalled() {
                return Ok(());
            }
            self.resting[i] = false;
            self.stagnation[i] = self.s.patience;
        }
        // WOA move (item 2) in plan space, when the whale's bursts stopped paying.
        if self.stagnation[i] >= self.s.patience {
            self.woa_step(i, a)?;
            self.pace[i] = Pace::new(self.whales[i].makespan());
        }
        self.whales[i].critical_chain(&mut self.chain);

        // Burst (item 1): its move ...
        let before = self.whales[i].makespan();
        let view = self.view(i, a, spent);
        let action = self.choose(&view, before, agent)?;
        self.chosen[action] += 1;

        // ... and its tries.
        let kept = self.burst(i, Move::ALL[action], &view, agent, ctx)?;
        self.pace[i].bursts += 1;

        // Learning (item 4): bookkeeping and the agent's transition.
        let after = self.whales[i].makespan();
        let gain = if before.is_finite() && before > 0.0 {
            (before - after) / before
        } else {
            0.0
        };
        self.stats.update(action, (kept > 0) as u8 as f64, gain);
        let reward = (REWARD_SCALE * gain).clamp(-1.0, 1.0) as f32;
        self.bandit.update(action, f64::from(reward));
        self.stagnation[i] = if gain > 0.0 {
            0
        } else {
            self.stagnation[i] + 1
        };
        self.last_reward[i] = reward;
        if after < self.leader.makespan() {
            self.leader.copy_from(&self.whales[i]);
        }
        if self.learn {
            // the transition to the whale's state after the burst
            self.view(i, a, spent).state(after, &mut self.next.state);
            self.stats.features(&mut self.next.candidates);
            let step = Step {
                reward,
                done: false,
            };
            agent.remember_step(&self.obs, action, step, &self.next)?;
        }
        Ok(())
    }

    /// Whether whale `i` cannot catch the leader ([`Pace::cannot_catch_up`]) with its share
    /// of the budget left, `(1 − spent) / whales`.
    fn hopeless(&self, i: usize, spent: f64) -> bool {
        let left = (1.0 - spent).max(0.0) / self.whales.len() as f64;
        self.pace[i].cannot_catch_up(self.whales[i].makespan(), self.leader.makespan(), left)
    }

    /// Whether no whale at the leader's makespan still has bursts that pay (`patience`).
    fn leader_stalled(&self) -> bool {
        let best = self.leader.makespan();
        self.whales
            .iter()
            .zip(&self.stagnation)
            .all(|(w, &st)| w.makespan() > best || st >= self.s.patience)
    }

    /// The WOA move (module docs, item 2): with probability `a/4` whale `i` restarts from a
    /// randomized-rank HEFT plan (search for prey from a random point), else it makes its WOA
    /// move from the leader.
    fn woa_step(&mut self, i: usize, a: f64) -> Result<()> {
        self.stagnation[i] = 0;
        if self.rng.random::<f64>() < a / 4.0 {
            let fresh = randomized_heft(self.problem, &self.ranks, RESTART_NOISE, &mut self.rng)?;
            let state =
                LocalState::from_schedule(self.problem, self.feasible, self.s.policy, &fresh)?;
            self.whales[i].copy_from(&state);
        } else {
            let s = self.s;
            woa_move(
                &mut self.whales,
                i,
                &self.leader,
                a,
                s.kick,
                &mut self.rng,
                &mut self.chain,
            );
        }
        self.evaluations += 1;
        Ok(())
    }

    /// The burst's move (module docs, item 1; its index in [`Move::ALL`]): uniform (also for the
    /// scorer, whose own tries pick concrete moves), a bandit's, or the operator agent's
    /// (uniform until its first gradient step: an untrained network would pick one move
    /// throughout).
    fn choose(&mut self, view: &WhaleView, makespan: f64, agent: &mut Agent) -> Result<usize> {
        view.state(makespan, &mut self.obs.state);
        self.stats.features(&mut self.obs.candidates);
        let rng = &mut self.rng;
        Ok(match self.s.choice {
            MoveChoice::Uniform | MoveChoice::Scored => rng.random_range(0..Move::ALL.len()),
            MoveChoice::EpsilonGreedy | MoveChoice::Ucb => self.bandit.choose(self.s.choice, rng),
            MoveChoice::Only(m) => Move::ALL.iter().position(|&x| x == m).expect("a move"),
            MoveChoice::Agent if self.learn && agent.train_steps() == 0 => {
                rng.random_range(0..Move::ALL.len())
            }
            MoveChoice::Agent => agent.act(&self.obs)?,
        })
    }

    /// The burst's tries (module docs, item 1): `burst` tries on whale `i`'s critical chain,
    /// each kept when the makespan does not grow: a share `focus` with move `m` (or, for the
    /// scorer, its scored try), the others with a uniformly drawn move. Returns the tries that
    /// improved the makespan.
    fn burst(
        &mut self,
        i: usize,
        m: Move,
        view: &WhaleView,
        agent: &mut Agent,
        ctx: &RunContext<'_>,
    ) -> Result<usize> {
        let s = self.s;
        let n = self.problem.n_tasks() as f32;
        let w = &mut self.whales[i];
        let scored = s.choice == MoveChoice::Scored && w.evaluation() == Evaluation::Incremental;
        let mut kept = 0;
        for _ in 0..s.burst {
            let cur = w.makespan();
            let tried = if scored && self.rng.random::<f64>() < s.focus {
                let now = WhaleView {
                    chain_share: self.chain.len() as f32 / n,
                    ..*view
                };
                match self
                    .scorer
                    .try_one(i, w, &self.chain, &now, agent, &mut self.rng)?
                {
                    Some(tried) => tried,
                    None => continue,
                }
            } else {
                let Some(&v) = self.chain.choose(&mut self.rng) else {
                    break;
                };
                let this = if self.rng.random::<f64>() < s.focus {
                    m
                } else {
                    *Move::ALL.choose(&mut self.rng).expect("moves")
                };
                w.try_move(this, v, &mut self.rng)
            };
            match tried {
                Tried::NoChange => continue,
                Tried::Worse | Tried::Reordered => self.evaluations += 1,
                Tried::Kept(ms) => {
                    self.evaluations += 1;
                    kept += usize::from(ms < cur);
                    w.critical_chain(&mut self.chain);
                }
            }
            if evaluations_spent(ctx, self.steps_planned, self.evaluations) {
                break;
            }
        }
        Ok(kept)
    }
}

/// Bursts a whale takes after a WOA move before [`OperatorSearch::hopeless`] judges it.
const MIN_BURSTS_JUDGED: usize = 8;

/// A whale's progress since its last WOA move or restart.
#[derive(Clone, Copy)]
struct Pace {
    /// Its makespan then, s.
    start: f64,
    /// Share of the budget its turns took since.
    cost: f64,
    /// Its bursts since.
    bursts: usize,
}

impl Pace {
    fn new(start: f64) -> Self {
        Pace {
            start,
            cost: 0.0,
            bursts: 0,
        }
    }

    /// Whether a whale of makespan `makespan`, after at least [`MIN_BURSTS_JUDGED`] bursts,
    /// is behind the leader (`leader`) by more than its pace (makespan gained per share of
    /// the budget) makes up in a share `left` of the budget.
    fn cannot_catch_up(&self, makespan: f64, leader: f64, left: f64) -> bool {
        let gap = makespan - leader;
        if self.bursts < MIN_BURSTS_JUDGED || gap <= 0.0 {
            return false;
        }
        let gained = (self.start - makespan).max(0.0);
        gained * left < gap * self.cost.max(f64::MIN_POSITIVE)
    }
}

/// What the agents' state says of a whale at a decision (module docs, "The default
/// preset's search": the 6 state numbers but the makespan).
#[derive(Clone, Copy)]
struct WhaleView {
    /// WOA coefficient `a` (2 → 0 over the run).
    a: f64,
    /// Share of the budget spent.
    spent: f64,
    /// The leader's makespan, s.
    leader: f64,
    /// Failed bursts in a row.
    stagnation: usize,
    /// Critical-chain length / n.
    chain_share: f32,
    /// The whale's last burst reward.
    last_reward: f32,
}

impl WhaleView {
    /// The state vector of a whale of makespan `makespan` ([`OPERATOR_STATE_DIM`] numbers):
    /// `[a/2, ln(C_X / C_leader) in [0, 5], failed bursts / 8 (at most 4), spent, chain
    /// share, last reward]`, into `out`.
    fn state(&self, makespan: f64, out: &mut Vec<f32>) {
        out.clear();
        let gap = if makespan.is_finite() && self.leader > 0.0 {
            (makespan / self.leader).ln().clamp(0.0, 5.0)
        } else {
            5.0
        };
        out.extend_from_slice(&[
            (self.a / 2.0) as f32,
            gap as f32,
            (self.stagnation as f32 / 8.0).min(4.0),
            self.spent as f32,
            self.chain_share,
            self.last_reward,
        ]);
    }
}

/// The share of the budget spent: of the CPU time under a time budget, else of the
/// evaluations (the budget's, or `steps_planned`).
fn budget_spent(ctx: &RunContext<'_>, steps_planned: usize, evaluations: u64) -> f64 {
    match ctx.time_fraction() {
        Some(f) => f,
        None => (evaluations as f64 / evaluation_cap(ctx, steps_planned)).min(1.0),
    }
}

/// The evaluations a run without a time budget makes: its evaluation budget, else
/// `steps_planned` (at least 1).
fn evaluation_cap(ctx: &RunContext<'_>, steps_planned: usize) -> f64 {
    ctx.budget()
        .max_evaluations
        .unwrap_or(steps_planned as u64)
        .max(1) as f64
}

/// The share of the budget one whale turn takes ([`Pace::cost`]): its wall-clock time over
/// the CPU-time budget under a time budget, else its evaluations over the evaluation cap (as
/// [`budget_spent`], so a run without a time budget stays reproducible). A turn of 100 tasks
/// is a burst of about 10 µs, and reading the process's CPU clock is a system call of about
/// 0.5 µs: two reads per turn took 13 % of a 1 s run (perf, a 100-task workflow), where the
/// monotonic clock costs tens of nanoseconds. A single-threaded turn's wall time is its CPU
/// time unless the process is descheduled.
struct TurnCost {
    started: Instant,
    evaluations: u64,
    /// The time budget, s, or `None`.
    time: Option<f64>,
    /// The evaluation cap without a time budget.
    cap: f64,
}

impl TurnCost {
    fn start(ctx: &RunContext<'_>, steps_planned: usize, evaluations: u64) -> Self {
        TurnCost {
            started: Instant::now(),
            evaluations,
            time: ctx.budget().max_time.map(|t| t.as_secs_f64()),
            cap: evaluation_cap(ctx, steps_planned),
        }
    }

    /// The turn's share of the budget, now that the search has made `evaluations`.
    fn share(&self, evaluations: u64) -> f64 {
        match self.time {
            Some(t) if t > 0.0 => self.started.elapsed().as_secs_f64() / t,
            Some(_) => 1.0,
            None => evaluations.saturating_sub(self.evaluations) as f64 / self.cap,
        }
    }
}

/// How much of the run learning has taken: at most [`LEARNING_SHARE`] of its time under a
/// CPU-time budget, else of its evaluations at [`STEP_COST`] per gradient step
/// (deterministic, so a run without a time budget is reproducible).
struct LearningShare {
    started: Instant,
    learning: std::time::Duration,
    steps_before: u64,
}

impl LearningShare {
    fn new(agent: &Agent) -> Self {
        LearningShare {
            started: Instant::now(),
            learning: std::time::Duration::ZERO,
            steps_before: agent.train_steps(),
        }
    }

    /// Whether learning is under its share.
    fn allows(&self, ctx: &RunContext<'_>, agent: &Agent, evaluations: u64) -> bool {
        match ctx.time_fraction() {
            Some(_) => {
                self.learning.as_secs_f64() <= LEARNING_SHARE * self.started.elapsed().as_secs_f64()
            }
            None => {
                let steps = agent.train_steps() - self.steps_before;
                (steps * STEP_COST) as f64 <= LEARNING_SHARE * evaluations as f64
            }
        }
    }

    /// `steps` Double DQN steps, timed.
    fn train(&mut self, agent: &mut Agent, steps: usize) -> Result<()> {
        let t0 = Instant::now();
        for _ in 0..steps {
            agent.train_step()?;
        }
        self.learning += t0.elapsed();
        Ok(())
    }
}

/// The move scorer's tries ([`MoveChoice::Scored`]): candidates, the observation, and per
/// whale its last scored try (observation, action, reward), which the whale's next scored
/// try completes into a transition.
struct Scorer {
    obs: Observation,
    cands: CandidateMoves,
    pending: Vec<Option<(Observation, usize, f32)>>,
    learn: bool,
}

impl Scorer {
    fn new(whales: usize, learn: bool) -> Self {
        Scorer {
            obs: Observation {
                state: Vec::with_capacity(MOVE_STATE_DIM),
                candidates: Vec::with_capacity(CANDIDATES * MOVE_ACTION_DIM),
                mask: Vec::new(),
            },
            cands: CandidateMoves::default(),
            pending: vec![None; whales],
            learn,
        }
    }

    /// One scored try of whale `i` (state `w`, critical chain `chain`): draws the
    /// candidates, tries the one the agent picks (ε-greedy while learning, uniform before
    /// its first gradient step, greedy when frozen) and, while learning, stores the previous
    /// try's transition. `None` when no candidate could be drawn.
    fn try_one(
        &mut self,
        i: usize,
        w: &mut LocalState<'_>,
        chain: &[TaskId],
        view: &WhaleView,
        agent: &mut Agent,
        rng: &mut ChaCha8Rng,
    ) -> Result<Option<Tried>> {
        self.cands.draw(w, chain, rng);
        if self.cands.is_empty() {
            return Ok(None);
        }
        let cur = w.makespan();
        view.state(cur, &mut self.obs.state);
        self.obs.candidates.clone_from(&self.cands.features);
        let pick = if self.learn && agent.train_steps() == 0 {
            rng.random_range(0..self.cands.moves.len())
        } else if self.learn {
            agent.act(&self.obs)?
        } else {
            agent.greedy_action(&self.obs)?
        };
        let (v, g, _) = self.cands.moves[pick];
        let tried = w.try_gpu(v, g);
        if self.learn {
            let after = if let Tried::Kept(ms) = tried { ms } else { cur };
            let reward = (REWARD_SCALE * (cur - after) / cur).clamp(0.0, 1.0) as f32;
            if let Some((prev, act, r)) = self.pending[i].take() {
                let step = Step {
                    reward: r,
                    done: false,
                };
                agent.remember_step(&prev, act, step, &self.obs)?;
            }
            self.pending[i] = Some((self.obs.clone(), pick, reward));
        }
        Ok(Some(tried))
    }
}

/// The WOA move of whale `i` in plan space (module docs, item 2): the whale restarts from
/// the leader `X*` perturbed towards a whale, `X(t+1) = X* − A·D` read discretely — each
/// task where the other whale differs from the leader takes that whale's GPU with
/// probability `min(1, |A|/2)`: the whale itself when encircling (`p < 0.5`, `|A| < 1`), a
/// random whale when searching (`p < 0.5`, `|A| >= 1`); when spiralling (`p >= 0.5`) the
/// leader's critical-chain tasks move to random GPUs with probability `(1 − |cos 2πl|)/2`.
/// When this changes nothing (the whale was the leader), `kick` random tasks move to random
/// GPUs. Evaluates the whale.
fn woa_move<'p>(
    whales: &mut [LocalState<'p>],
    i: usize,
    leader: &LocalState<'p>,
    a: f64,
    kick: usize,
    rng: &mut ChaCha8Rng,
    chain: &mut Vec<TaskId>,
) {
    let r: f64 = rng.random();
    let big_a = (2.0 * a * r - a).abs();
    let p: f64 = rng.random();
    let n = leader.plan.gpu.len();
    let source = if p < 0.5 && big_a >= 1.0 {
        rng.random_range(0..whales.len())
    } else {
        i
    };
    let other: Vec<_> = whales[source].plan.gpu.clone();
    let w = &mut whales[i];
    w.copy_from(leader);
    let mut changed = 0usize;
    if p < 0.5 {
        let q = (big_a / 2.0).min(1.0);
        for (v, &g) in other.iter().enumerate() {
            if w.plan.gpu[v] != g && rng.random::<f64>() < q {
                w.set_gpu(TaskId::new(v), g);
                changed += 1;
            }
        }
    } else {
        let l: f64 = rng.random_range(-1.0..1.0);
        let q = (1.0 - (2.0 * std::f64::consts::PI * l).cos().abs()) / 2.0;
        w.evaluate();
        w.critical_chain(chain);
        for &v in chain.iter() {
            if rng.random::<f64>() < q && w.apply(Move::RandomGpu, v, rng) != Undo::None {
                changed += 1;
            }
        }
    }
    if changed == 0 {
        for _ in 0..kick.max(1) {
            let v = TaskId::new(rng.random_range(0..n));
            w.apply(Move::RandomGpu, v, rng);
        }
    }
    w.evaluate();
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;

    #[test]
    fn a_turn_costs_its_evaluations_or_its_time_over_the_budget() {
        use crate::scheduler::Budget;
        use std::time::Duration;
        // evaluation budget: 40 of 1,000 evaluations, whatever the clock says
        let ctx = RunContext::new(0).with_budget(Budget::evaluations(1000));
        let turn = TurnCost::start(&ctx, 50, 120);
        std::thread::sleep(Duration::from_millis(2));
        assert_eq!(turn.share(160), 0.04);
        // no budget: over the planned evaluations
        let turn = TurnCost::start(&RunContext::new(0), 50, 0);
        assert_eq!(turn.share(5), 0.1);
        // time budget: the turn's time over it, evaluations aside
        let ctx = RunContext::new(0).with_budget(Budget::cpu_time(Duration::from_millis(100)));
        let turn = TurnCost::start(&ctx, 50, 0);
        std::thread::sleep(Duration::from_millis(10));
        // at least the 10 ms slept (a loaded machine may add more)
        let share = turn.share(0);
        assert!(share >= 0.1 && share.is_finite(), "{share}");
        let zero = RunContext::new(0).with_budget(Budget::cpu_time(Duration::ZERO));
        assert_eq!(TurnCost::start(&zero, 50, 0).share(0), 1.0);
    }

    #[test]
    fn a_whale_rests_when_its_pace_cannot_close_its_gap() {
        // 110 s -> 105 s in 5 % of the budget: 100 s per unit of budget
        let pace = Pace {
            start: 110.0,
            cost: 0.05,
            bursts: MIN_BURSTS_JUDGED,
        };
        // 5 s behind; 12.5 % of the budget left makes up 12.5 s, 4 % only 4 s
        assert!(!pace.cannot_catch_up(105.0, 100.0, 0.125));
        assert!(pace.cannot_catch_up(105.0, 100.0, 0.04));
        // 5 % left makes up exactly the 5 s: not behind
        assert!(!pace.cannot_catch_up(105.0, 100.0, 0.05));
        // the leader itself, and a whale judged too early, never rest
        assert!(!pace.cannot_catch_up(100.0, 100.0, 0.0));
        let early = Pace {
            bursts: MIN_BURSTS_JUDGED - 1,
            ..pace
        };
        assert!(!early.cannot_catch_up(105.0, 100.0, 0.0));
        // no gain at all: any gap is too much
        let stuck = Pace {
            start: 105.0,
            ..pace
        };
        assert!(stuck.cannot_catch_up(105.0, 100.0, 1.0));
    }

    #[test]
    fn the_bandits_follow_their_rules() {
        let mut rng = ChaCha8Rng::seed_from_u64(1);
        let mut b = Bandit::default();
        // every move once, in order
        for i in 0..6 {
            assert_eq!(b.choose(MoveChoice::Ucb, &mut rng), i);
            assert_eq!(b.choose(MoveChoice::EpsilonGreedy, &mut rng), i);
            b.update(i, 0.1);
        }
        b.update(2, 0.0);
        assert!((b.mean[2] - 0.05).abs() < 1e-12);
        // UCB1: mean + sqrt(2 ln N / n); N = 7, a move played once more loses its lead
        // only through the bonus: sqrt(2 ln 7 / 1) = 1.973 > 0.05 + sqrt(2 ln 7 / 2) = 1.445
        assert_ne!(b.choose(MoveChoice::Ucb, &mut rng), 2);
        let mut b = Bandit {
            plays: [100; 6],
            mean: [0.1, 0.1, 0.5, 0.1, 0.1, 0.1],
        };
        assert_eq!(b.choose(MoveChoice::Ucb, &mut rng), 2);
        b.plays[5] = 1; // bonus sqrt(2 ln 501) = 3.53 beats 0.4 of mean
        assert_eq!(b.choose(MoveChoice::Ucb, &mut rng), 5);
        // ε-greedy: the best mean with probability 0.9 + 0.1/6
        let b = Bandit {
            plays: [10; 6],
            mean: [0.0, 0.2, 0.0, 0.0, 0.0, 0.0],
        };
        let best = (0..6000)
            .filter(|_| b.choose(MoveChoice::EpsilonGreedy, &mut rng) == 1)
            .count();
        assert!((5300..5700).contains(&best), "{best}");
    }
}
