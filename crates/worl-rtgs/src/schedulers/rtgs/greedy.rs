//! RTGS's plan generation: the greedy running-time-gap decoder, with an optional
//! earliest-finish-time window.

use serde::{Deserialize, Serialize};
use worl_cluster::{ClassId, GpuId, PartialSchedule, Policy, Problem};
use worl_dag::TaskId;
use worl_woa::WhaleRng;

use super::class_index::{ClassIndex, SMALL_CLASS};
use super::decoder::{DecodeInput, PlanDecoder};

/// The greedy running-time-gap decoder of RTGS (P0's "new function"; PAPER.md §2.4 step 4):
/// visit the tasks in [`DecodeInput::order`] with running times `cur_k` starting at the
/// GPUs' ready times `r_k`; give task `v` a GPU `k` it fits whose running time after taking
/// it is nearest its hope, then `cur_k += exec(v, k)`.
///
/// **Two readings of "running time after taking it"** ([`Lookahead`]):
/// * [`Lookahead::None`], the authors' code (`WORLRTGS.java`, `generateNewSchedule`):
///   `cur_k + exec(v, k)`. The hope is a *final* running time while `cur_k` is a *partial*
///   one, so the GPUs are filled up to the hopes' level in turn: decoding the target's own
///   running-time vector does not give the target back (88 % of a random target's tasks
///   move, 200 tasks on 16 PAI GPUs).
/// * [`Lookahead::Target`] (our default): `cur_k + exec(v, k) + rest_k(T)`, where `rest_k(T)`
///   is the execution time the target plan `T` puts on `k` after `v` in the order, i.e. the
///   running time `k` ends with if the remaining tasks followed the target. Decoding
///   `RT(T)` itself gives `T` back (with distinct GPU running times), and a hope moved away
///   from `RT(T)` moves tasks to GPUs of correspondingly different running times (hopes
///   `RT(T)·(1 + ε·u)`, `u ~ U(−1, 1)`: 5 % of the tasks move for `ε = 0.001`, 25 % for
///   0.01, 50 % for 0.05). It helps with the window below; without it, the authors'
///   reading searches better (see the [module docs](super)).
///
/// **The earliest-finish-time window** ([`with_window`](Self::with_window), `ω > 0`; our
/// default `ω = 2` in [`RtgsConfig`](super::RtgsConfig)). The running-time vector does not
/// say *which* GPU a task is on, nor when it can start: many GPUs give nearly the same gap,
/// and the pure rule picks among them by id. With a window, the candidates of task `v` are
/// the GPUs whose gap is within `ω·w̄_v` of the smallest gap (`w̄_v` = the task's mean
/// execution time over the GPUs it fits, [`Problem::mean_exec_time`]), at most
/// [`CANDIDATES_PER_CLASS`](Self::CANDIDATES_PER_CLASS) per GPU class, the nearest the hope;
/// among them the decoder takes the one with the **earliest finish time** in the schedule
/// built so far (it places every task in a [`PartialSchedule`] as it goes, under the
/// fitness's [`Policy`]); ties go to the smaller gap, then the smaller GPU id. The hope
/// still decides where a task may go; the window decides which of the GPUs of about the
/// right running time. It is a deviation from the authors' code, documented with its
/// measurements in the [module docs](super). `ω = 0` is the pure rule.
///
/// **Cost.** GPUs of one class ([`Problem::class_of`]: same effective speed and memory) have
/// the same `exec(v, k)`, so within a class the GPUs near a hope are those whose key
/// (running time, plus the look-ahead term) is near `q = hope_v − exec(v, class)`. Each
/// class keeps its GPUs in an ordered set keyed that way, allocation-free (a sorted array
/// for classes of up to 256 GPUs, an arena treap above): the nearest is found in
/// `O(log m_c)`, a GPU re-keyed in `O(log m_c)` (treap) or `O(log m_c)` plus a bounded
/// block move (array), and the window's `k_c <= 16` nearest enumerated in `O(k_c)` (array)
/// or `O(k_c log m_c)` (treap). A task costs `O(Σ_c log m_c)` over the classes it fits, so
/// `O(C log m)` for `C` classes instead of the naive `O(m)`, plus, with a window, one EFT
/// (`O(|preds(v)|)` under append, data-ready times shared by the GPUs of a machine) for
/// each candidate a lower bound does not exclude: about 4 of 13 candidates on 1,000 tasks /
/// 50 GPUs. The PAI-mix presets have at most 5 classes. When every GPU is its own class
/// (unrelated machines with an explicit execution-time matrix, or GPUs with distinct
/// background utilisations) this falls back to `O(m)` per task, one `O(1)` singleton query
/// per GPU.
///
/// **Distance and ties.** The gap is computed as `|q − key_k|` with `q = hope_v − exec`
/// (the same number up to rounding); without a window, equal gaps go to the smallest GPU
/// id.
///
/// Draws no random numbers. Its scratch is the set of per-class ordered sets, a key
/// buffer, and the partial schedule and buffers of the window.
#[derive(Clone, Debug)]
pub struct GreedyDecoder<'p> {
    problem: &'p Problem,
    lookahead: Lookahead,
    window: f64,
    policy: Policy,
    /// `ω·w̄_v` per task (empty without a window).
    width: Vec<f64>,
    /// Machine index per GPU (empty without a window).
    machine: Vec<u32>,
    /// Largest in-degree (the window's predecessor buffer).
    max_preds: usize,
    /// Class members (GPU indices) per class.
    members: Vec<Vec<usize>>,
    /// One GPU per class, for `exec` and `fits`.
    representative: Vec<GpuId>,
    /// Classes above this size use treaps (tests lower it to cover both structures).
    small_class: usize,
    /// Window candidates per class, at most.
    per_class: usize,
}

/// What the greedy decoder adds to a GPU's running time before comparing it with a hope
/// (see [`GreedyDecoder`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Lookahead {
    /// Nothing: the authors' code.
    None,
    /// The execution time the target plan still puts on the GPU (default).
    #[default]
    Target,
}

impl<'p> GreedyDecoder<'p> {
    /// The window holds at most this many GPUs of each class, the nearest the hope (see the
    /// type docs).
    pub const CANDIDATES_PER_CLASS: usize = 16;

    /// The pure running-time-gap decoder for `problem` with the given look-ahead (no
    /// window; `O(m)` set-up).
    pub fn new(problem: &'p Problem, lookahead: Lookahead) -> Self {
        GreedyDecoder {
            problem,
            lookahead,
            window: 0.0,
            policy: Policy::Append,
            width: Vec::new(),
            machine: Vec::new(),
            max_preds: 0,
            members: problem
                .class_ids()
                .map(|c| problem.class_gpus(c).iter().map(|g| g.index()).collect())
                .collect(),
            representative: problem
                .class_ids()
                .map(|c| problem.class_gpus(c)[0])
                .collect(),
            small_class: SMALL_CLASS,
            per_class: Self::CANDIDATES_PER_CLASS,
        }
    }

    /// The same decoder with an earliest-finish-time window of `window` (`ω`, in units of
    /// each task's mean execution time; see the type docs), simulating placement under
    /// `policy` (use the fitness's). `window <= 0` (or NaN) turns the window off. `O(n)`.
    pub fn with_window(mut self, window: f64, policy: Policy) -> Self {
        let p = self.problem;
        self.window = if window > 0.0 { window } else { 0.0 };
        self.policy = policy;
        self.width.clear();
        self.machine.clear();
        if self.window > 0.0 {
            self.width.extend(
                p.graph()
                    .task_ids()
                    .map(|v| self.window * p.mean_exec_time(v)),
            );
            self.machine.extend(
                p.cluster()
                    .gpu_ids()
                    .map(|k| p.cluster().gpu(k).machine.index() as u32),
            );
            self.max_preds = p
                .graph()
                .task_ids()
                .map(|v| p.graph().preds(v).len())
                .max()
                .unwrap_or(0);
        }
        self
    }

    /// The same decoder with treaps for classes above `small_class` GPUs (tests).
    #[cfg(test)]
    pub(crate) fn with_small_class(mut self, small_class: usize) -> Self {
        self.small_class = small_class;
        self
    }

    /// The same decoder with at most `per_class` window candidates per class (tests).
    #[cfg(test)]
    pub(crate) fn with_per_class(mut self, per_class: usize) -> Self {
        self.per_class = per_class;
        self
    }

    /// The problem.
    pub fn problem(&self) -> &'p Problem {
        self.problem
    }

    /// The look-ahead.
    pub fn lookahead(&self) -> Lookahead {
        self.lookahead
    }

    /// The window `ω` (0: none).
    pub fn window(&self) -> f64 {
        self.window
    }

    /// The placement policy of the window's EFT simulation.
    pub fn policy(&self) -> Policy {
        self.policy
    }

    /// The GPU for `task` (hope `hope`) given the current keys: `(gpu, class, exec)`.
    /// `window` is the window's scratch.
    #[inline]
    fn choose(
        &self,
        task: TaskId,
        hope: f64,
        index: &ClassIndex,
        partial: &PartialSchedule<'p>,
        window: &mut WindowScratch,
    ) -> (usize, usize, f64) {
        let Some(first) = self.gather(task, hope, index, partial, window) else {
            let best = window.nearest;
            return (best.1, best.2, best.3);
        };
        // (eft, gap, gpu, class, exec) of the best candidate: first the one of smallest
        // bound (usually the winner), then the others whose bound does not exclude them (a
        // candidate whose bound exceeds the pick's EFT, or equals it and would lose the
        // tie, cannot win).
        let mut pick = (f64::INFINITY, f64::INFINITY, usize::MAX, 0usize, 0.0f64);
        let n_cands = window.candidates.len();
        for k in 0..n_cands {
            // Visit `first` first, then the others in order.
            let i = match k {
                0 => first,
                _ if k <= first => k - 1,
                _ => k,
            };
            let cand = window.candidates[i];
            let g = cand.gpu as usize;
            if cand.bound > pick.0 || (cand.bound == pick.0 && (cand.gap, g) > (pick.1, pick.2)) {
                continue;
            }
            let (eft, _) = self.eft_of(task, &cand, partial, window, false);
            if eft < pick.0 || (eft == pick.0 && (cand.gap, g) < (pick.1, pick.2)) {
                pick = (eft, cand.gap, g, cand.class as usize, cand.exec);
            }
        }
        debug_assert!(pick.2 != usize::MAX, "the nearest GPU is a candidate");
        (pick.2, pick.3, pick.4)
    }

    /// Finds the GPU nearest the hope (into `window.nearest`) and, with a window, fills
    /// `window.candidates` with the window's GPUs, each with a lower bound of its EFT;
    /// returns the index of the candidate of smallest bound (`None` without a window).
    #[inline]
    fn gather(
        &self,
        task: TaskId,
        hope: f64,
        index: &ClassIndex,
        partial: &PartialSchedule<'p>,
        window: &mut WindowScratch,
    ) -> Option<usize> {
        let p = self.problem;
        // (gap, gpu, class, exec) of the nearest GPU; the classes the task fits.
        let mut best = (f64::INFINITY, usize::MAX, 0usize, 0.0f64);
        let classes = &mut window.classes;
        classes.clear();
        for (c, &rep) in self.representative.iter().enumerate() {
            if !p.fits(task, rep) {
                continue;
            }
            let exec = p.exec_time(task, rep);
            if let Some((gap, g, hint)) = index.nearest_with_hint(c, hope - exec) {
                classes.push((c as u32, exec, hint));
                if gap < best.0 || (gap == best.0 && g < best.1) {
                    best = (gap, g, c, exec);
                }
            }
        }
        debug_assert!(best.1 != usize::MAX, "every task fits a GPU");
        window.nearest = best;
        if self.window == 0.0 {
            return None;
        }
        let limit = best.0 + self.width[task.index()];
        let latest = window.start(p, task, partial);
        window.latest = latest;
        // The candidates, each with a lower bound of its EFT: the latest predecessor finish
        // or the GPU's availability, plus the execution time.
        let cands = &mut window.candidates;
        cands.clear();
        let mut first = (f64::INFINITY, 0usize);
        for &(c, exec, hint) in &window.classes {
            let cap = self.per_class;
            let free_at = &window.free;
            index.for_each_nearest(c as usize, hope - exec, limit, cap, hint, |g, gap| {
                let free = free_at[g];
                let bound = larger(latest, free) + exec;
                if bound < first.0 {
                    first = (bound, cands.len());
                }
                cands.push(Candidate {
                    bound,
                    free,
                    gap,
                    gpu: g as u32,
                    class: c,
                    exec,
                });
            });
        }
        Some(first.1)
    }

    /// The EFT of the current task on candidate `cand` under the window's policy and, when
    /// the policy needs it (append) or `with_ready` asks for it, its data-ready time there
    /// (NaN otherwise: insertion searches the GPU's gaps through the partial schedule).
    #[inline]
    fn eft_of(
        &self,
        task: TaskId,
        cand: &Candidate,
        partial: &PartialSchedule<'p>,
        window: &mut WindowScratch,
        with_ready: bool,
    ) -> (f64, f64) {
        let p = self.problem;
        let g = cand.gpu as usize;
        let gpu = GpuId::new(g);
        let append = self.policy == Policy::Append;
        let ready = if append || with_ready {
            window.data_ready_time(p, gpu, self.machine[g] as usize)
        } else {
            f64::NAN
        };
        let eft = if append {
            // As `PartialSchedule::eft` under append.
            larger(larger(ready, p.ready_time(gpu)), cand.free) + cand.exec
        } else {
            partial
                .eft(task, gpu, self.policy)
                .expect("predecessors placed, the task fits")
        };
        (eft, ready)
    }

    /// Every candidate of the window of `task` with its EFT, into `out` (cleared), for a
    /// decoder that chooses among them (WORL-RTGS).
    ///
    /// # Panics
    /// Without a window (WORL-RTGS checks `ω > 0` before building its decoder).
    pub(crate) fn scored_candidates(
        &self,
        task: TaskId,
        hope: f64,
        index: &ClassIndex,
        partial: &PartialSchedule<'p>,
        window: &mut WindowScratch,
        out: &mut Vec<ScoredCandidate>,
    ) {
        out.clear();
        self.gather(task, hope, index, partial, window)
            .expect("a decoder that scores candidates has a window");
        for i in 0..window.candidates.len() {
            let cand = window.candidates[i];
            let (eft, ready) = self.eft_of(task, &cand, partial, window, true);
            out.push(ScoredCandidate {
                gpu: cand.gpu as usize,
                class: cand.class as usize,
                exec: cand.exec,
                gap: cand.gap,
                eft,
                data_ready: ready,
                free: cand.free,
            });
        }
    }

    /// The decoding loop of [`PlanDecoder::decode`] with the choice of each task's GPU made
    /// by `choose(decoder, position, task, hope, index, partial, window)`, which returns
    /// `(gpu, class, exec)`; the GPU is recorded, re-keyed and (with a window) placed.
    pub(crate) fn decode_with<F>(
        &self,
        input: &DecodeInput<'_>,
        scratch: &mut GreedyScratch<'p>,
        out: &mut [GpuId],
        mut choose: F,
    ) where
        F: FnMut(
            &Self,
            usize,
            TaskId,
            f64,
            &ClassIndex,
            &PartialSchedule<'p>,
            &mut WindowScratch,
        ) -> (usize, usize, f64),
    {
        let p = self.problem;
        let target = input.target.gpus();
        // Keys: the ready times, plus the whole target load under look-ahead (its running
        // times), from which each task's target share is removed when the task is visited.
        let keys = &mut scratch.keys;
        keys.clear();
        match self.lookahead {
            Lookahead::None => keys.extend_from_slice(p.ready_times()),
            Lookahead::Target => keys.extend_from_slice(input.target.loads()),
        }
        let index = &mut scratch.index;
        index.rebuild(keys);
        let partial = &mut scratch.partial;
        partial.reset();
        scratch.window.free.clear();
        if self.window > 0.0 {
            scratch.window.free.extend_from_slice(p.ready_times());
        }
        for (pos, &task) in input.order.iter().enumerate() {
            if self.lookahead == Lookahead::Target {
                let g = target[task.index()];
                let c = p.class_of(g).index();
                index.add_to_key(c, g.index(), -p.exec_time(task, g));
            }
            let hope = input.hope[task.index()];
            let (g, c, exec) = choose(self, pos, task, hope, index, partial, &mut scratch.window);
            debug_assert_eq!(p.class_of(GpuId::new(g)), ClassId::new(c));
            let gpu = GpuId::new(g);
            out[task.index()] = gpu;
            index.add_to_key(c, g, exec);
            if self.window > 0.0 {
                let slot = partial
                    .place(task, gpu, self.policy)
                    .expect("predecessors placed, the task fits");
                if self.policy == Policy::Append {
                    scratch.window.free[g] = slot.finish();
                }
            }
        }
    }
}

/// A GPU of the window with its earliest finish time, for learned decoders
/// ([`GreedyDecoder::scored_candidates`]). Times in s.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(crate) struct ScoredCandidate {
    /// GPU index.
    pub gpu: usize,
    /// Its class index.
    pub class: usize,
    /// The task's execution time on it.
    pub exec: f64,
    /// Its running-time gap to the hope.
    pub gap: f64,
    /// The task's earliest finish time on it in the schedule built so far.
    pub eft: f64,
    /// The task's data-ready time on it.
    pub data_ready: f64,
    /// When it is free for appending (append) or ready (insertion).
    pub free: f64,
}

impl<'p> PlanDecoder for GreedyDecoder<'p> {
    type Scratch = GreedyScratch<'p>;

    fn scratch(&self) -> GreedyScratch<'p> {
        GreedyScratch {
            index: ClassIndex::new(self.problem.ready_times(), &self.members, self.small_class),
            keys: Vec::with_capacity(self.problem.n_gpus()),
            partial: PartialSchedule::new(self.problem),
            window: WindowScratch {
                nearest: (f64::INFINITY, 0, 0, 0.0),
                latest: 0.0,
                classes: Vec::with_capacity(self.representative.len()),
                free: Vec::with_capacity(self.problem.n_gpus()),
                preds: Vec::with_capacity(self.max_preds),
                candidates: Vec::with_capacity(self.problem.n_gpus()),
                host: vec![0; self.machine.len()],
                machine: vec![(0, 0.0); self.problem.cluster().n_machines()],
                stamp: 0,
            },
        }
    }

    /// # Panics
    /// If [`DecodeInput::order`] is not a topological order of all tasks while a window is
    /// set (the partial schedule needs every predecessor placed).
    fn decode(
        &self,
        input: &DecodeInput<'_>,
        _rng: &mut WhaleRng,
        scratch: &mut GreedyScratch<'p>,
        out: &mut [GpuId],
    ) {
        self.decode_with(
            input,
            scratch,
            out,
            |d, _, task, hope, index, partial, window| d.choose(task, hope, index, partial, window),
        );
    }

    /// With a window under `policy`, the makespan of the partial schedule the decoding
    /// built (the plan's, as the evaluator places it in the same order).
    fn decoded_makespan(&self, scratch: &GreedyScratch<'p>, policy: Policy) -> Option<f64> {
        (self.window > 0.0 && policy == self.policy && scratch.partial.is_complete())
            .then(|| scratch.partial.makespan())
    }
}

/// Scratch of the [`GreedyDecoder`]: the per-class ordered sets of GPUs by key, the
/// initial keys, and the partial schedule and buffers of the window.
#[derive(Clone, Debug)]
pub struct GreedyScratch<'p> {
    index: ClassIndex,
    keys: Vec<f64>,
    pub(crate) partial: PartialSchedule<'p>,
    window: WindowScratch,
}

/// `max(a, b)` for the finite times of the window (`f64::max`'s NaN handling costs a
/// measurable share of a decoding).
#[inline]
fn larger(a: f64, b: f64) -> f64 {
    if b > a { b } else { a }
}

/// A GPU in the window of the task being decoded.
#[derive(Clone, Copy, Debug)]
struct Candidate {
    /// Lower bound of its EFT, s.
    bound: f64,
    /// When it is free for appending (append) or ready (insertion), s.
    free: f64,
    /// Its running-time gap, s.
    gap: f64,
    gpu: u32,
    class: u32,
    /// The task's execution time on it, s.
    exec: f64,
}

/// The window's buffers for the task being decoded: the classes it fits (class, execution
/// time, search hint), its candidates, its predecessors (finish, GPU, bytes), and per
/// machine the data-ready time on its GPUs that host no predecessor (communication costs
/// depend on the two GPUs' machines only when the GPUs differ), computed once per task.
/// Cache entries are valid when their stamp is the current one.
#[derive(Clone, Debug)]
pub(crate) struct WindowScratch {
    /// (gap, gpu, class, exec) of the GPU nearest the hope of the current task.
    nearest: (f64, usize, usize, f64),
    /// The latest predecessor finish of the current task (with a window), s.
    pub(crate) latest: f64,
    classes: Vec<(u32, f64, usize)>,
    /// Per GPU: when it is free for appending (append), or its ready time (insertion).
    free: Vec<f64>,
    preds: Vec<(f64, GpuId, f64)>,
    candidates: Vec<Candidate>,
    /// Per GPU: the stamp of the last task with a predecessor on it.
    host: Vec<u32>,
    /// Per machine: (stamp, data-ready time on its non-host GPUs).
    machine: Vec<(u32, f64)>,
    stamp: u32,
}

impl WindowScratch {
    /// Starts task `task` (every predecessor placed in `partial`); returns the latest
    /// predecessor finish, a lower bound of its data-ready time on any GPU (0 without
    /// predecessors).
    ///
    /// # Panics
    /// If a predecessor is not placed.
    fn start(&mut self, p: &Problem, task: TaskId, partial: &PartialSchedule<'_>) -> f64 {
        if self.stamp == u32::MAX {
            self.host.fill(0);
            self.machine.fill((0, 0.0));
            self.stamp = 0;
        }
        self.stamp += 1;
        self.preds.clear();
        let mut latest = 0.0f64;
        for nb in p.graph().preds(task) {
            let (Some(f), Some(g)) = (partial.finish(nb.task), partial.gpu_of(nb.task)) else {
                panic!("predecessors are placed before their successors");
            };
            latest = larger(latest, f);
            self.host[g.index()] = self.stamp;
            self.preds.push((f, g, nb.bytes));
        }
        latest
    }

    /// The data-ready time of the current task on `gpu` (in machine `machine`): exactly
    /// `PartialSchedule::data_ready_time`.
    #[inline]
    fn data_ready_time(&mut self, p: &Problem, gpu: GpuId, machine: usize) -> f64 {
        let direct = |preds: &[(f64, GpuId, f64)]| {
            preds.iter().fold(0.0f64, |d, &(f, u, bytes)| {
                larger(d, f + p.comm_time(bytes, u, gpu))
            })
        };
        if self.host[gpu.index()] == self.stamp {
            return direct(&self.preds);
        }
        let (stamp, value) = self.machine[machine];
        if stamp == self.stamp {
            return value;
        }
        let value = direct(&self.preds);
        self.machine[machine] = (self.stamp, value);
        value
    }
}

/// The greedy decoding by a linear scan over all GPUs (`O(n·m)`, plus the window's
/// candidates by brute force and one [`PartialSchedule::eft`] each), the reference the
/// indexed decoder must match.
#[cfg(test)]
pub(crate) fn decode_linear(
    problem: &Problem,
    lookahead: Lookahead,
    window: f64,
    per_class: usize,
    policy: Policy,
    input: &DecodeInput<'_>,
    out: &mut [GpuId],
) {
    use super::class_index::nearest_brute;
    let mut key = match lookahead {
        Lookahead::None => problem.ready_times().to_vec(),
        Lookahead::Target => input.target.loads().to_vec(),
    };
    let mut partial = PartialSchedule::new(problem);
    for &task in input.order {
        if lookahead == Lookahead::Target {
            let g = input.target.gpus()[task.index()];
            key[g.index()] -= problem.exec_time(task, g);
        }
        let hope = input.hope[task.index()];
        let fitting = || (0..key.len()).filter(|&k| problem.fits(task, GpuId::new(k)));
        let gap = |k: usize| (hope - problem.exec_time(task, GpuId::new(k)) - key[k]).abs();
        let mut best = (f64::INFINITY, usize::MAX);
        for k in fitting() {
            if gap(k) < best.0 {
                best = (gap(k), k);
            }
        }
        if window > 0.0 {
            let limit = best.0 + window * problem.mean_exec_time(task);
            let mut pick = (f64::INFINITY, f64::INFINITY, usize::MAX);
            for c in problem.class_ids() {
                let gpus: Vec<usize> = problem.class_gpus(c).iter().map(|g| g.index()).collect();
                if !problem.fits(task, GpuId::new(gpus[0])) {
                    continue;
                }
                let q = hope - problem.class_exec_time(task, c);
                for (k, d) in nearest_brute(&key, &gpus, q, limit, per_class) {
                    let eft = partial.eft(task, GpuId::new(k), policy).unwrap();
                    if (eft, d, k) < pick {
                        pick = (eft, d, k);
                    }
                }
            }
            best.1 = pick.2;
            partial.place(task, GpuId::new(best.1), policy).unwrap();
        }
        out[task.index()] = GpuId::new(best.1);
        key[best.1] += problem.exec_time(task, GpuId::new(best.1));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::schedulers::rtgs::plan::FeasibleGpus;
    use crate::schedulers::rtgs::whale::RtgsWhale;
    use ndarray::Array2;
    use rand::{Rng, SeedableRng};
    use std::sync::Arc;
    use worl_cluster::{ClusterBuilder, GpuModel, LoadState, presets};
    use worl_dag::generators::layered::{LayeredParams, layered};
    use worl_dag::{TaskId, WorkloadBuilder};
    use worl_woa::{Move, MoveKind};

    fn decode_both(
        problem: &Problem,
        lookahead: Lookahead,
        target: &RtgsWhale,
        hope: &[f64],
    ) -> (Vec<GpuId>, Vec<GpuId>) {
        decode_both_windowed(problem, lookahead, 0.0, target, hope)
    }

    /// Decodes with the indexed decoder (sorted arrays, then treaps, twice with one scratch)
    /// and with the linear scan.
    fn decode_both_windowed(
        problem: &Problem,
        lookahead: Lookahead,
        window: f64,
        target: &RtgsWhale,
        hope: &[f64],
    ) -> (Vec<GpuId>, Vec<GpuId>) {
        decode_both_with(problem, lookahead, window, 16, Policy::Append, target, hope)
    }

    /// As [`decode_both_windowed`] with a cap of window candidates per class and a policy.
    fn decode_both_with(
        problem: &Problem,
        lookahead: Lookahead,
        window: f64,
        per_class: usize,
        policy: Policy,
        target: &RtgsWhale,
        hope: &[f64],
    ) -> (Vec<GpuId>, Vec<GpuId>) {
        let d = GreedyDecoder::new(problem, lookahead)
            .with_window(window, policy)
            .with_per_class(per_class);
        let mv = Move::new(MoveKind::Encircle, 1.0, 0.5, 1.0, 0.0, 1.0);
        let input = DecodeInput {
            problem,
            order: problem.graph().topo_order(),
            hope,
            whale: target,
            target,
            mv: &mv,
        };
        let mut fast = vec![GpuId::new(0); problem.n_tasks()];
        let mut scratch = d.scratch();
        let mut rng = WhaleRng::seed_from_u64(0);
        d.decode(&input, &mut rng, &mut scratch, &mut fast);
        // A second decoding with the used scratch gives the same plan.
        let mut again = vec![GpuId::new(0); problem.n_tasks()];
        d.decode(&input, &mut rng, &mut scratch, &mut again);
        assert_eq!(fast, again);
        // Treaps for every class give the same plan as sorted arrays.
        let all_treaps = GreedyDecoder::new(problem, lookahead)
            .with_window(window, policy)
            .with_per_class(per_class)
            .with_small_class(1);
        let mut treaps = vec![GpuId::new(0); problem.n_tasks()];
        all_treaps.decode(&input, &mut rng, &mut all_treaps.scratch(), &mut treaps);
        assert_eq!(fast, treaps);
        let mut slow = vec![GpuId::new(0); problem.n_tasks()];
        decode_linear(
            problem, lookahead, window, per_class, policy, &input, &mut slow,
        );
        (fast, slow)
    }

    /// A chain a (4) → b (2) → c (3); GPU 0 speed 1, GPU 1 speed 2.
    fn chain_on_two_speeds() -> Problem {
        let mut w = WorkloadBuilder::new("w");
        let j = w.add_job("j").unwrap();
        let a = w.add_task(j, "a", 4.0, None).unwrap();
        let b = w.add_task(j, "b", 2.0, None).unwrap();
        let c = w.add_task(j, "c", 3.0, None).unwrap();
        w.add_edge(a, b, 0.0).unwrap();
        w.add_edge(b, c, 0.0).unwrap();
        let mut cb = ClusterBuilder::new("two");
        let m = cb.add_machine("m");
        cb.add_gpu(m, &GpuModel::custom("s1", 1.0, 16.0).unwrap())
            .unwrap();
        cb.add_gpu(m, &GpuModel::custom("s2", 2.0, 16.0).unwrap())
            .unwrap();
        Problem::new(Arc::new(w.build().unwrap()), Arc::new(cb.build().unwrap())).unwrap()
    }

    /// Authors' rule, hope = (4, 3, 10): a → GPU 0 gives 4 (gap 0), GPU 1 gives 2 (gap 2):
    /// GPU 0; b → GPU 0 gives 6 (gap 3), GPU 1 gives 1 (gap 2): GPU 1; c → GPU 0 gives 7
    /// (gap 3), GPU 1 gives 2.5 (gap 7.5): GPU 0.
    #[test]
    fn authors_greedy_decoding_by_hand() {
        let p = chain_on_two_speeds();
        let t = RtgsWhale::from_assignment(&p, vec![GpuId::new(1); 3]);
        let (fast, slow) = decode_both(&p, Lookahead::None, &t, &[4.0, 3.0, 10.0]);
        assert_eq!(fast, vec![GpuId::new(0), GpuId::new(1), GpuId::new(0)]);
        assert_eq!(fast, slow);
    }

    /// Look-ahead, target T = (1, 0, 1): loads GPU 0 = 2, GPU 1 = 2 + 1.5 = 3.5; hope =
    /// (3.5, 5, 3.5). a: T's rest on GPU 1 becomes 1.5, keys (2, 1.5); GPU 0 gives 2 + 4 = 6
    /// (gap 2.5), GPU 1 gives 1.5 + 2 = 3.5 (gap 0): GPU 1, keys (2, 3.5). b: T's rest on
    /// GPU 0 drops to 0, keys (0, 3.5); GPU 0 gives 2 (gap 3), GPU 1 gives 4.5 (gap 0.5):
    /// GPU 1, keys (0, 4.5). c: keys (0, 3); GPU 0 gives 3 (gap 0.5), GPU 1 gives 4.5 (gap
    /// 1): GPU 0. Plan (1, 1, 0). The authors' rule gives (0, 0, 1): a → 4 vs 2 (gaps 0.5,
    /// 1.5), b → 6 vs 1 (gaps 1, 4), c → 9 vs 1.5 (gaps 5.5, 2).
    #[test]
    fn lookahead_greedy_decoding_by_hand() {
        let p = chain_on_two_speeds();
        let t = RtgsWhale::from_assignment(&p, vec![GpuId::new(1), GpuId::new(0), GpuId::new(1)]);
        assert_eq!(t.loads(), &[2.0, 3.5]);
        let hope = [3.5, 5.0, 3.5];
        let (fast, slow) = decode_both(&p, Lookahead::Target, &t, &hope);
        assert_eq!(fast, vec![GpuId::new(1), GpuId::new(1), GpuId::new(0)]);
        assert_eq!(fast, slow);
        let (authors, _) = decode_both(&p, Lookahead::None, &t, &hope);
        assert_eq!(authors, vec![GpuId::new(0), GpuId::new(0), GpuId::new(1)]);
    }

    fn random_problem(case: u64, busy: bool) -> Problem {
        let w = Arc::new(layered(&LayeredParams::new(300), case).unwrap());
        let mut cluster = presets::pai_mix(40, case).unwrap();
        if busy {
            cluster
                .apply_load(
                    &LoadState::Busy {
                        utilisation: (0.0, 0.0),
                        ready_time: (0.0, 50.0),
                    },
                    case,
                )
                .unwrap();
        }
        Problem::new(w, Arc::new(cluster)).unwrap()
    }

    #[test]
    fn treap_decoding_matches_the_linear_scan() {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(5);
        for (case, busy) in [(0u64, false), (1, true), (2, false)] {
            let p = random_problem(case, busy);
            assert!(p.n_classes() < 10);
            let feasible = FeasibleGpus::new(&p);
            let mut plan = vec![GpuId::new(0); p.n_tasks()];
            feasible.random_plan(&mut rng, &mut plan);
            let t = RtgsWhale::from_assignment(&p, plan);
            // Hopes around the typical running times, some negative, some rounded to
            // create ties.
            let hope: Vec<f64> = (0..p.n_tasks())
                .map(|_| (rng.random_range(-50.0..2000.0f64) / 10.0).round() * 10.0)
                .collect();
            for lookahead in [Lookahead::None, Lookahead::Target] {
                for (window, per_class, policy) in [
                    (0.0, 16, Policy::Append),
                    (0.5, 16, Policy::Append),
                    (2.0, 16, Policy::Append),
                    (2.0, 3, Policy::Append),
                    (2.0, 2, Policy::Insertion),
                ] {
                    let (fast, slow) =
                        decode_both_with(&p, lookahead, window, per_class, policy, &t, &hope);
                    assert_eq!(fast, slow, "case {case} {lookahead:?} {window} {per_class}");
                    for (v, g) in fast.iter().enumerate() {
                        assert!(p.fits(TaskId::new(v), *g));
                    }
                }
            }
        }
    }

    /// With look-ahead, decoding the target's own running-time vector gives the target back
    /// (its GPUs have distinct running times: ready times break the ties of empty GPUs).
    #[test]
    fn lookahead_decoding_of_the_targets_running_times_returns_the_target() {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(8);
        for case in 0..3 {
            let p = random_problem(case, true);
            let feasible = FeasibleGpus::new(&p);
            let mut plan = vec![GpuId::new(0); p.n_tasks()];
            feasible.random_plan(&mut rng, &mut plan);
            let t = RtgsWhale::from_assignment(&p, plan);
            let mut rt = Vec::new();
            t.rt_vector(&mut rt);
            let (fast, _) = decode_both(&p, Lookahead::Target, &t, &rt);
            assert_eq!(fast, t.gpus(), "case {case}");
            let (authors, _) = decode_both(&p, Lookahead::None, &t, &rt);
            let same = authors.iter().zip(t.gpus()).filter(|(a, b)| a == b).count();
            assert!(same < p.n_tasks() / 2, "case {case}: {same}");
        }
    }

    #[test]
    fn unrelated_machines_decode_like_the_linear_scan() {
        let w = Arc::new(layered(&LayeredParams::new(60), 9).unwrap());
        let c = Arc::new(presets::homogeneous(5, &GpuModel::t4()).unwrap());
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(9);
        let times = Array2::from_shape_fn((60, 5), |_| rng.random_range(1.0..20.0f64));
        let p = Problem::with_exec_times(w, c, times).unwrap();
        assert_eq!(p.n_classes(), 5);
        let t = RtgsWhale::from_assignment(&p, (0..60).map(|v| GpuId::new(v % 5)).collect());
        let hope: Vec<f64> = (0..60).map(|_| rng.random_range(0.0..150.0)).collect();
        for lookahead in [Lookahead::None, Lookahead::Target] {
            for window in [0.0, 1.0] {
                let (fast, slow) = decode_both_windowed(&p, lookahead, window, &t, &hope);
                assert_eq!(fast, slow);
            }
        }
    }

    /// Window, target T = (1, 1, 1) on the chain (loads 0 and 4.5), hope = (4, 4, 4),
    /// mean execution times a 3, b 1.5, c 2.25.
    /// `ω = 1`: a: keys (0, 2.5); GPU 0 gives 4 (gap 0), GPU 1 gives 4.5 (gap 0.5 <= 0 + 3):
    /// both candidates, EFTs 4 and 2: GPU 1 (the pure rule takes GPU 0); keys (0, 4.5).
    /// b: keys (0, 3.5); GPU 0 gives 2 (gap 2), GPU 1 gives 4.5 (gap 0.5; limit 2): both;
    /// EFTs >= 2 + 2 (after a, plus the link latency) and 2 + 1: GPU 1; keys (0, 4.5).
    /// c: keys (0, 3); GPU 0 gives 3 (gap 1), GPU 1 gives 4.5 (gap 0.5; limit 2.75): both;
    /// EFTs >= 3 + 3 and 3 + 1.5: GPU 1. Plan (1, 1, 1).
    /// `ω = 0.1`: a: limit 0.3, only GPU 0 (gap 0); keys (4, 2.5). b: keys (4, 1.5); GPU 0
    /// gives 6 (gap 2), GPU 1 gives 2.5 (gap 1.5; limit 1.65): GPU 1; keys (4, 2.5). c: keys
    /// (4, 1); GPU 0 gives 7 (gap 3), GPU 1 gives 2.5 (gap 1.5; limit 1.725): GPU 1.
    /// Plan (0, 1, 1).
    #[test]
    fn window_decoding_by_hand() {
        let p = chain_on_two_speeds();
        let t = RtgsWhale::from_assignment(&p, vec![GpuId::new(1); 3]);
        assert_eq!(t.loads(), &[0.0, 4.5]);
        let hope = [4.0, 4.0, 4.0];
        let (wide, slow) = decode_both_windowed(&p, Lookahead::Target, 1.0, &t, &hope);
        assert_eq!(wide, vec![GpuId::new(1); 3]);
        assert_eq!(wide, slow);
        let (narrow, slow) = decode_both_windowed(&p, Lookahead::Target, 0.1, &t, &hope);
        assert_eq!(narrow, vec![GpuId::new(0), GpuId::new(1), GpuId::new(1)]);
        assert_eq!(narrow, slow);
        let (pure, _) = decode_both(&p, Lookahead::Target, &t, &hope);
        assert_eq!(pure[0], GpuId::new(0));
    }
}
