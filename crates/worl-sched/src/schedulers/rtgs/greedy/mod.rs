//! RTGS's plan generation: the greedy running-time-gap decoder, with an optional
//! earliest-finish-time window.

use serde::{Deserialize, Serialize};
use worl_cluster::{ClassId, GpuId, PartialSchedule, Policy, Problem};
use worl_dag::TaskId;
use worl_woa::WhaleRng;

use super::class_index::{ClassIndex, SMALL_CLASS};
use super::decoder::{DecodeInput, PlanDecoder};
use crate::schedulers::search::FeasibleGpus;
pub(crate) use window::WindowScratch;
use window::{Candidate, larger};
use worl_cluster::past_windows;

mod window;

/// The greedy running-time-gap decoder of RTGS (the "new function" of the authors' code, step 4 of the method):
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
/// fitness's [`Policy`], so busy windows delay both the EFT and the placement); ties go to
/// the smaller gap, then the smaller GPU id. The hope
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
/// **Gang tasks** (a task needing `g > 1` GPUs at once, issue 21; only when
/// [`Problem::has_gangs`], so a problem without them decodes exactly as before). The GPU
/// chosen for a gang task is the **lead** of its set, and only GPUs that can lead it
/// ([`Problem::can_lead`]) are candidates; the [`PartialSchedule`] places the gang on the
/// set [`PartialSchedule::best_set`] chooses around the lead, as the
/// [`Evaluator`](worl_cluster::Evaluator) does with the plan, and the gang occupies every
/// GPU of that set: each GPU of the set gets the gang's run time
/// [`Problem::exec_time_on`] added to its running time (key), and the target's look-ahead
/// removes the target's gang from every GPU of the target's set
/// ([`RtgsWhale::gang_sets`](super::RtgsWhale::gang_sets)), so the per-class ordered sets
/// stay right. With gangs the decoder always keeps the partial schedule (also without a
/// window: the sets depend on it). A gang task bypasses the per-class ordered sets: its
/// candidates are all its possible leads (`O(m)`), its "running time after taking it" on
/// lead `k` is `key_k + exec(v, k) / (g·e_v)` (its compute share; the set is not known
/// before the placement), and each window candidate's EFT is a
/// [`PartialSchedule::eft`] on the set around it (`best_set`: `O(c·(preds·g +
/// timeline))` for the `c` GPUs that could join it). The EFT of a task with a gang
/// predecessor also goes through the partial schedule (data comes from the nearest GPU of
/// the predecessor's set), `O(|preds(v)|·g)` per candidate instead of the shared
/// per-machine data-ready times; other tasks keep the fast path. Measured (layered DAG of
/// 1,000 tasks, 20 % of them gangs of 2–4 GPUs of span `machine`, seed 3; 50 V100s; one
/// default run of 30 × 100, shared 2-core machine): 4.5–5.7 s against 1.4 s for the same
/// DAG without gangs; about half of it is [`PartialSchedule`]'s data-ready time of a gang
/// task on each GPU that could join a set (`best_set`, per window candidate).
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
    /// Whether the problem has gang tasks ([`Problem::has_gangs`]).
    gangs: bool,
    /// With gang tasks: the GPUs each task may take (for a gang task, those that can lead
    /// its set).
    leads: Option<FeasibleGpus>,
    /// With gang tasks: per task, where its set starts in a whale's
    /// [`gang_sets`](super::RtgsWhale::gang_sets) (empty without gang tasks).
    gang_offset: Vec<u32>,
    /// With gang tasks: per task, whether it is a gang task or has one as a predecessor
    /// (its EFTs then go through the partial schedule; empty without gang tasks).
    slow_eft: Vec<bool>,
}

/// What the greedy decoder adds to a GPU's running time before comparing it with a hope
/// (see [`GreedyDecoder`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Lookahead {
    /// Nothing: the authors' code.
    None,
    /// The execution time the target plan still puts on the GPU (default).
    #[default]
    Target,
}

serde_plain::derive_fromstr_from_deserialize!(Lookahead);
serde_plain::derive_display_from_serialize!(Lookahead);

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
            gangs: problem.has_gangs(),
            leads: problem.has_gangs().then(|| FeasibleGpus::new(problem)),
            gang_offset: if problem.has_gangs() {
                super::whale::gang_offsets(problem)
            } else {
                Vec::new()
            },
            slow_eft: if problem.has_gangs() {
                let g = problem.graph();
                g.task_ids()
                    .map(|v| {
                        problem.gpus(v) > 1 || g.preds(v).iter().any(|nb| problem.gpus(nb.task) > 1)
                    })
                    .collect()
            } else {
                Vec::new()
            },
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
            // The first candidate is taken whatever its EFT (`∞` or NaN with extreme times).
            if pick.2 == usize::MAX
                || eft < pick.0
                || (eft == pick.0 && (cand.gap, g) < (pick.1, pick.2))
            {
                pick = (eft, cand.gap, g, cand.class as usize, cand.exec);
            }
        }
        debug_assert!(pick.2 != usize::MAX, "the window has a candidate");
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
        if self.gangs && p.gpus(task) > 1 {
            return self.gather_gang(task, hope, partial, window);
        }
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
                // The first class fitting is taken whatever its gap (a gap of `∞` or NaN
                // from an extreme execution time must not leave the task without a GPU).
                if best.1 == usize::MAX || gap < best.0 || (gap == best.0 && g < best.1) {
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
        if cands.is_empty() {
            // Only with a non-finite gap or width (extreme execution times): the nearest GPU
            // is the one candidate.
            let (gap, g, c, exec) = best;
            let free = window.free[g];
            cands.push(Candidate {
                bound: larger(latest, free) + exec,
                free,
                gap,
                gpu: g as u32,
                class: c as u32,
                exec,
            });
        }
        Some(first.1)
    }

    /// [`gather`](Self::gather) for a gang task (see the type docs): every GPU that can lead
    /// it is a candidate, its key `key_k + exec(v, k) / (g·e_v)` compared with the hope;
    /// with a window the candidates within `ω·w̄_v` of the nearest gap (at most
    /// `per_class` per class, the nearest), each with the lower bound `max(latest
    /// predecessor finish, free_k) + exec(v, k) / (g·e_v)` of its EFT (the set's run time
    /// [`Problem::exec_time_on`] is at least the lead's share).
    fn gather_gang(
        &self,
        task: TaskId,
        hope: f64,
        partial: &PartialSchedule<'p>,
        window: &mut WindowScratch,
    ) -> Option<usize> {
        let p = self.problem;
        let leads = self.leads.as_ref().expect("built with gangs").of(task);
        let divisor = p.gpus(task) as f64 * p.graph().task(task).gang.efficiency;
        let gap_of = |keys: &[f64], k: GpuId| {
            let exec = p.exec_time(task, k) / divisor;
            ((hope - exec - keys[k.index()]).abs(), exec)
        };
        let mut best = (f64::INFINITY, usize::MAX, 0usize, 0.0f64);
        for &k in leads {
            let (gap, exec) = gap_of(&window.keys, k);
            // The first lead is taken whatever its gap (`∞` or NaN with extreme times).
            if best.1 == usize::MAX || gap < best.0 {
                best = (gap, k.index(), p.class_of(k).index(), exec);
            }
        }
        debug_assert!(best.1 != usize::MAX, "every gang task has a lead");
        window.nearest = best;
        if self.window == 0.0 {
            return None;
        }
        let limit = best.0 + self.width[task.index()];
        let latest = window.start(p, task, partial);
        window.latest = latest;
        let cands = &mut window.candidates;
        cands.clear();
        for &k in leads {
            let (gap, exec) = gap_of(&window.keys, k);
            if gap <= limit || k.index() == best.1 {
                let free = window.free[k.index()];
                cands.push(Candidate {
                    // the set holds the lead, so its run time is at least the lead's share
                    bound: larger(latest, free) + exec,
                    free,
                    gap,
                    gpu: k.index() as u32,
                    class: p.class_of(k).index() as u32,
                    exec,
                });
            }
        }
        // At most `per_class` per class, the nearest the hope.
        cands.sort_unstable_by(|a, b| a.gap.total_cmp(&b.gap).then(a.gpu.cmp(&b.gpu)));
        let counts = &mut window.class_count;
        counts.clear();
        counts.resize(self.representative.len(), 0);
        let cap = self.per_class;
        cands.retain(|c| {
            let n = &mut counts[c.class as usize];
            *n += 1;
            *n as usize <= cap
        });
        let first = (0..cands.len())
            .min_by(|&a, &b| cands[a].bound.total_cmp(&cands[b].bound).then(a.cmp(&b)))
            .expect("the nearest lead is a candidate");
        Some(first)
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
        if self.gangs && self.slow_eft[task.index()] {
            // Through the partial schedule: a gang on the set around its lead, data from
            // the nearest GPU of a gang predecessor's set. (Other tasks take the path
            // below: their predecessors are on one GPU each, and `free` holds the finish
            // of a gang on every GPU of its set.)
            let eft = partial
                .eft(task, gpu, self.policy)
                .expect("predecessors placed, the GPU can lead the task");
            let ready = if with_ready {
                partial
                    .data_ready_time(task, gpu)
                    .expect("predecessors placed")
            } else {
                f64::NAN
            };
            return (eft, ready);
        }
        let append = self.policy == Policy::Append;
        let ready = if append || with_ready {
            window.data_ready_time(p, gpu, self.machine[g] as usize)
        } else {
            f64::NAN
        };
        let eft = if append {
            // As `PartialSchedule::eft` under append: after the GPU's last task, then past
            // its busy windows (when the cluster has any; the bound `cand.bound` stays a
            // lower bound, as windows only delay).
            let free = larger(larger(ready, p.ready_time(gpu)), cand.free);
            if p.has_windows() {
                past_windows(p.busy(gpu), free, cand.exec) + cand.exec
            } else {
                free + cand.exec
            }
        } else {
            partial
                .eft(task, gpu, self.policy)
                .expect("predecessors placed, the task fits")
        };
        (eft, ready)
    }

    #[cfg(feature = "ddqn")]
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
        if self.gangs {
            return self.decode_gangs(input, scratch, out, choose);
        }
        for (pos, &task) in input.order.iter().enumerate() {
            if self.lookahead == Lookahead::Target {
                let g = target[task.index()];
                let c = p.class_of(g).index();
                index.add_to_key(c, g.index(), -p.exec_time(task, g));
            }
            let hope = finite_hope(input.hope[task.index()], || {
                input.target.loads()[target[task.index()].index()]
            });
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

    /// The loop of [`decode_with`](Self::decode_with) for a problem with gang tasks (keys
    /// set up, partial schedule reset): every task is placed in the partial schedule, and
    /// a gang task's run time [`Problem::exec_time_on`] is added to (look-ahead: the
    /// target's removed from) the key of every GPU of its set (see the type docs).
    fn decode_gangs<F>(
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
        let GreedyScratch {
            index,
            keys,
            partial,
            window,
        } = scratch;
        window.keys.clear();
        window.keys.extend_from_slice(keys);
        // Adds `delta` to GPU `k`'s key in the index and in its mirror (same arithmetic).
        let bump = |index: &mut ClassIndex, mirror: &mut [f64], k: GpuId, delta: f64| {
            index.add_to_key(p.class_of(k).index(), k.index(), delta);
            mirror[k.index()] += delta;
        };
        for (pos, &task) in input.order.iter().enumerate() {
            let gang = p.gpus(task) as usize;
            if self.lookahead == Lookahead::Target {
                let lead = target[task.index()];
                let off = self.gang_offset[task.index()] as usize;
                match input.target.gang_set_at(off, gang) {
                    Some(set) if gang > 1 => {
                        let d = p.exec_time_on(task, set);
                        for &k in set {
                            bump(index, &mut window.keys, k, -d);
                        }
                    }
                    _ => bump(index, &mut window.keys, lead, -p.exec_time(task, lead)),
                }
            }
            let hope = finite_hope(input.hope[task.index()], || {
                input.target.loads()[target[task.index()].index()]
            });
            let (g, c, exec) = choose(self, pos, task, hope, index, partial, window);
            debug_assert_eq!(p.class_of(GpuId::new(g)), ClassId::new(c));
            let gpu = GpuId::new(g);
            out[task.index()] = gpu;
            let slot = partial
                .place(task, gpu, self.policy)
                .expect("predecessors placed, the GPU can lead the task");
            let append = self.window > 0.0 && self.policy == Policy::Append;
            match partial.gang_set(task) {
                Some(set) => {
                    let d = p.exec_time_on(task, set);
                    for &k in set {
                        bump(index, &mut window.keys, k, d);
                        if append {
                            window.free[k.index()] = slot.finish();
                        }
                    }
                }
                None => {
                    bump(index, &mut window.keys, gpu, exec);
                    if append {
                        window.free[g] = slot.finish();
                    }
                }
            }
        }
    }

    /// With gang tasks, the GPU sets of the gang tasks of the plan the last decoding with
    /// `scratch` built (lead first, in task-id order; the partial schedule's), into `out`;
    /// `false` (and `out` untouched) without gang tasks or a finished decoding.
    pub(crate) fn decoded_sets(&self, scratch: &GreedyScratch<'p>, out: &mut Vec<GpuId>) -> bool {
        let partial = &scratch.partial;
        if !self.gangs || !partial.is_complete() {
            return false;
        }
        out.clear();
        for v in self.problem.graph().task_ids() {
            if let Some(set) = partial.gang_set(v) {
                out.extend_from_slice(set);
            }
        }
        true
    }
}

/// A hope the decoder can search with: `hope` itself when finite (every hope of a normal
/// run), `±f64::MAX` for `±∞`, and `stay()` (the task's running time in the target) for
/// NaN. Extreme hope factors (`b = 1000` gives a spiral factor `e^{1000·l} = ∞`, and
/// `∞ · 0` a NaN hope) or extreme works make such hopes.
#[inline]
fn finite_hope(hope: f64, stay: impl FnOnce() -> f64) -> f64 {
    if hope.is_finite() {
        hope
    } else if hope.is_nan() {
        let rt = stay();
        if rt.is_nan() {
            0.0
        } else {
            rt.clamp(-f64::MAX, f64::MAX)
        }
    } else {
        hope.clamp(-f64::MAX, f64::MAX)
    }
}

#[cfg(feature = "ddqn")]
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
                keys: Vec::new(),
                class_count: Vec::new(),
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

    /// With gang tasks, the sets of the partial schedule the decoding built.
    fn decoded_sets(&self, scratch: &GreedyScratch<'p>, out: &mut Vec<GpuId>) -> bool {
        GreedyDecoder::decoded_sets(self, scratch, out)
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

#[cfg(test)]
mod tests;
