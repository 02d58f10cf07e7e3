//! RTGS as a [`WhaleProblem`]: whales are plans ([`RtgsWhale`]), positions are running-time
//! vectors, moves build a hope vector and hand it to a [`PlanDecoder`].

use rand::RngCore;
use worl_cluster::{GpuId, Policy, Problem};
use worl_dag::TaskId;
use worl_woa::{Move, MoveKind, Target, WhaleProblem, WhaleRng, WoaError};

use super::decoder::{DecodeInput, PlanDecoder};
use super::plan::{FeasibleGpus, PlanEvaluator, running_times};

/// A whale of RTGS: a plan (one GPU per task; tasks are placed in the graph's topological
/// order) and its per-GPU running times, from which its position, the running-time vector
/// `RT_v = loads[π(v)]`, is read (PAPER.md §1.2, §3.2).
#[derive(Debug, PartialEq)]
pub struct RtgsWhale {
    gpu: Vec<GpuId>,
    loads: Vec<f64>,
    origin: Option<(usize, usize)>,
}

impl Clone for RtgsWhale {
    fn clone(&self) -> Self {
        RtgsWhale {
            gpu: self.gpu.clone(),
            loads: self.loads.clone(),
            origin: self.origin,
        }
    }

    /// Reuses the buffers (the WOA engine copies carried whales every iteration).
    fn clone_from(&mut self, source: &Self) {
        self.gpu.clone_from(&source.gpu);
        self.loads.clone_from(&source.loads);
        self.origin = source.origin;
    }
}

impl RtgsWhale {
    /// The whale of the assignment `gpu` (one GPU per task, by [`TaskId::index`]), with its
    /// running times computed by [`running_times`]. Check it with
    /// [`RtgsProblem`]'s `check_initial_whale` (done by every run) before trusting it.
    pub fn from_assignment(problem: &Problem, gpu: Vec<GpuId>) -> Self {
        let mut loads = Vec::with_capacity(problem.n_gpus());
        if gpu.len() == problem.n_tasks() && gpu.iter().all(|g| g.index() < problem.n_gpus()) {
            running_times(problem, &gpu, &mut loads);
        }
        RtgsWhale {
            gpu,
            loads,
            origin: None,
        }
    }

    /// The GPU of each task, indexed by [`TaskId::index`].
    pub fn gpus(&self) -> &[GpuId] {
        &self.gpu
    }

    /// Running time of each GPU, s: its ready time plus the execution times of its tasks.
    pub fn loads(&self) -> &[f64] {
        &self.loads
    }

    /// The running time `RT_v` of task `v`: the running time of its GPU, s.
    ///
    /// # Panics
    /// If `task` is out of range.
    #[inline]
    pub fn rt(&self, task: TaskId) -> f64 {
        self.loads[self.gpu[task.index()].index()]
    }

    /// The running-time vector `RT` (one entry per task, by task index), written into `out`.
    pub fn rt_vector(&self, out: &mut Vec<f64>) {
        out.clear();
        out.extend(self.gpu.iter().map(|g| self.loads[g.index()]));
    }

    /// The move `(iteration, whale)` whose decoding produced this whale; `None` for initial
    /// whales.
    pub fn origin(&self) -> Option<(usize, usize)> {
        self.origin
    }
}

/// Per-worker buffers of an [`RtgsProblem`]: the plan evaluator, the hope vector, sign bits,
/// a centroid for the diversity, and the decoder's own scratch.
pub struct RtgsScratch<'p, S> {
    evaluator: PlanEvaluator<'p>,
    hope: Vec<f64>,
    signs: Vec<u64>,
    centroid: Vec<f64>,
    /// The decoder's scratch.
    pub decoder: S,
}

/// RTGS (Du et al., J. Supercomputing 81:911, 2025) as a [`WhaleProblem`], generic over the
/// plan-generation step `D`.
///
/// * **Random whale:** a GPU drawn uniformly per task among those it fits.
/// * **Move** of whale `X` towards target `T` with step factor `F` = [`Move::step_factor`]
///   (`A` for encircling and search, `e^{bl}cos(2πl)` for the spiral): for every task
///   `hope_v = RT_v(T) + s_v·F·(RT_v(T) − RT_v(X))` with an independent random sign
///   `s_v = ±1` standing in for WOA's `C` (PAPER.md §2.4, as in the authors' code); then
///   the decoder assigns the tasks in topological order. Search moves honour per-dimension
///   random whales ([`Target::component_whale`] per task).
/// * **Fitness:** the makespan of the plan (tasks in topological order) under the chosen
///   [`Policy`], through the allocation-free [`Evaluator`](worl_cluster::Evaluator) path.
/// * **Distance / diversity:** Euclidean distance of running-time vectors (the SPD of
///   [`crate::study::spd_ftg`]); diversity = mean distance of the population's RT vectors to
///   their centroid.
pub struct RtgsProblem<'p, D> {
    problem: &'p Problem,
    decoder: D,
    feasible: FeasibleGpus,
    policy: Policy,
}

impl<'p, D: PlanDecoder> RtgsProblem<'p, D> {
    /// RTGS on `problem` with `decoder`, evaluating plans under `policy`.
    pub fn new(problem: &'p Problem, decoder: D, policy: Policy) -> Self {
        RtgsProblem {
            problem,
            decoder,
            feasible: FeasibleGpus::new(problem),
            policy,
        }
    }

    /// The scheduling problem.
    pub fn problem(&self) -> &'p Problem {
        self.problem
    }

    /// The decoder.
    pub fn decoder(&self) -> &D {
        &self.decoder
    }

    /// The placement policy of the fitness.
    pub fn policy(&self) -> Policy {
        self.policy
    }

    /// The GPUs each task fits.
    pub fn feasible(&self) -> &FeasibleGpus {
        &self.feasible
    }

    /// Writes the hope vector of moving `whale` towards `target` with `mv` into `hope` (see
    /// the type docs). Draws the signs first (one bit per task, from 64-bit words, in task
    /// order), then, for search moves, one component whale per task.
    pub fn hope_into(
        &self,
        whale: &RtgsWhale,
        target: &Target<'_, RtgsWhale>,
        mv: &Move,
        rng: &mut WhaleRng,
        signs: &mut Vec<u64>,
        hope: &mut Vec<f64>,
    ) {
        let n = self.problem.n_tasks();
        signs.clear();
        signs.extend((0..n.div_ceil(64)).map(|_| rng.next_u64()));
        let f = mv.step_factor();
        hope.clear();
        let per_task = mv.kind() == MoveKind::Search;
        let fixed = target.whale();
        for v in 0..n {
            let t = if per_task {
                target.component_whale(rng)
            } else {
                fixed
            };
            let task = TaskId::new(v);
            let (rt_t, rt_x) = (t.rt(task), whale.rt(task));
            let s = if (signs[v / 64] >> (v % 64)) & 1 == 1 {
                f
            } else {
                -f
            };
            hope.push(rt_t + s * (rt_t - rt_x));
        }
    }
}

impl<'p, D: PlanDecoder> WhaleProblem for RtgsProblem<'p, D> {
    type Whale = RtgsWhale;
    type Scratch = RtgsScratch<'p, D::Scratch>;

    fn scratch(&self) -> Self::Scratch {
        let n = self.problem.n_tasks();
        RtgsScratch {
            evaluator: PlanEvaluator::new(self.problem, self.policy),
            hope: Vec::with_capacity(n),
            signs: Vec::with_capacity(n.div_ceil(64)),
            centroid: Vec::with_capacity(n),
            decoder: self.decoder.scratch(),
        }
    }

    fn random_whale(&self, rng: &mut WhaleRng, _: &mut Self::Scratch) -> RtgsWhale {
        let mut gpu = vec![GpuId::new(0); self.problem.n_tasks()];
        self.feasible.random_plan(rng, &mut gpu);
        RtgsWhale::from_assignment(self.problem, gpu)
    }

    fn fitness(&self, whale: &RtgsWhale, scratch: &mut Self::Scratch) -> f64 {
        let makespan = scratch.evaluator.makespan(&whale.gpu);
        if let Some(origin) = whale.origin {
            self.decoder
                .plan_evaluated(origin, whale, makespan, &mut scratch.decoder);
        }
        makespan
    }

    fn moved(
        &self,
        whale: &RtgsWhale,
        target: &Target<'_, RtgsWhale>,
        mv: &Move,
        rng: &mut WhaleRng,
        scratch: &mut Self::Scratch,
    ) -> RtgsWhale {
        let mut out = whale.clone();
        self.move_into(whale, target, mv, rng, scratch, &mut out);
        out
    }

    fn move_into(
        &self,
        whale: &RtgsWhale,
        target: &Target<'_, RtgsWhale>,
        mv: &Move,
        rng: &mut WhaleRng,
        scratch: &mut Self::Scratch,
        out: &mut RtgsWhale,
    ) {
        self.hope_into(
            whale,
            target,
            mv,
            rng,
            &mut scratch.signs,
            &mut scratch.hope,
        );
        let input = DecodeInput {
            problem: self.problem,
            order: self.problem.graph().topo_order(),
            hope: &scratch.hope,
            whale,
            target: target.whale(),
            mv,
        };
        out.gpu.clear();
        out.gpu.resize(self.problem.n_tasks(), GpuId::new(0));
        self.decoder
            .decode(&input, rng, &mut scratch.decoder, &mut out.gpu);
        running_times(self.problem, &out.gpu, &mut out.loads);
        out.origin = Some((mv.iteration(), mv.whale()));
    }

    fn distance(&self, a: &RtgsWhale, b: &RtgsWhale) -> Option<f64> {
        let n = self.problem.n_tasks();
        let sq: f64 = (0..n)
            .map(|v| {
                let d = a.rt(TaskId::new(v)) - b.rt(TaskId::new(v));
                d * d
            })
            .sum();
        Some(sq.sqrt())
    }

    fn diversity(&self, population: &[RtgsWhale], scratch: &mut Self::Scratch) -> Option<f64> {
        let n = self.problem.n_tasks();
        let count = population.len() as f64;
        let c = &mut scratch.centroid;
        c.clear();
        c.resize(n, 0.0);
        for w in population {
            for (v, x) in c.iter_mut().enumerate() {
                *x += w.rt(TaskId::new(v));
            }
        }
        c.iter_mut().for_each(|x| *x /= count);
        let total: f64 = population
            .iter()
            .map(|w| {
                (0..n)
                    .map(|v| {
                        let d = w.rt(TaskId::new(v)) - c[v];
                        d * d
                    })
                    .sum::<f64>()
                    .sqrt()
            })
            .sum();
        Some(total / count)
    }

    fn after_iteration(&self, iteration: usize, population: &[RtgsWhale], fitness: &[f64]) {
        self.decoder.after_iteration(iteration, population, fitness);
    }

    fn check_initial_whale(&self, index: usize, whale: &RtgsWhale) -> Result<(), WoaError> {
        let p = self.problem;
        let invalid = |reason: String| WoaError::InvalidInitialWhale { index, reason };
        if whale.gpu.len() != p.n_tasks() {
            return Err(invalid(format!(
                "it assigns {} tasks, the problem has {}",
                whale.gpu.len(),
                p.n_tasks()
            )));
        }
        for (v, &k) in whale.gpu.iter().enumerate() {
            let task = TaskId::new(v);
            if k.index() >= p.n_gpus() {
                return Err(invalid(format!(
                    "task `{}` is on unknown GPU {k} (the cluster has {})",
                    p.task_label(task),
                    p.n_gpus()
                )));
            }
            if !p.fits(task, k) {
                return Err(invalid(format!(
                    "task `{}` needs {} GiB, GPU {k} has {} GiB",
                    p.task_label(task),
                    p.mem_need(task),
                    p.gpu_mem(k)
                )));
            }
        }
        let mut loads = Vec::new();
        running_times(p, &whale.gpu, &mut loads);
        if loads != whale.loads {
            return Err(invalid(
                "its running times do not match its plan (build it with RtgsWhale::from_assignment)"
                    .to_owned(),
            ));
        }
        Ok(())
    }
}
