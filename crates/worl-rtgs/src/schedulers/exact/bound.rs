//! The instance tables of the branch-and-bound (execution times, predecessor lists, static
//! tails, GPU symmetry classes) and its lower bounds: the path bound over the unplaced tasks
//! and the water-filling load bound.

use worl_cluster::{GpuId, Problem};
use worl_dag::TaskId;

/// No task / no GPU.
pub(super) const NONE: u32 = u32::MAX;

/// Above this many GPUs the symmetry classes are not computed (every GPU is its own class):
/// detecting them costs `O(m² (n + m))`, and no exact search of such a cluster finishes.
pub(super) const MAX_GPUS_FOR_SYMMETRY: usize = 128;

/// Everything the search reads about the problem, in dense tables.
#[derive(Clone, Debug)]
pub(super) struct Instance<'p> {
    pub(super) problem: &'p Problem,
    /// Tasks `n`.
    pub(super) n: usize,
    /// GPUs `m`.
    pub(super) m: usize,
    /// `exec[v · m + k]`, s; `f64::INFINITY` where task `v` does not fit GPU `k`.
    pub(super) exec: Vec<f64>,
    /// Ready time `r_k` per GPU, s.
    pub(super) ready: Vec<f64>,
    /// Per task, its predecessors `(task, bytes)`.
    pub(super) preds: Vec<Vec<(u32, f64)>>,
    /// Per task, its successors.
    pub(super) succs: Vec<Vec<u32>>,
    /// A topological order of the tasks.
    pub(super) topo: Vec<u32>,
    /// `tail_after[v] = max over successors w of (min_exec(w) + tail_after[w])` (0 for an
    /// exit task): the least time from the finish of `v` to the end of the schedule,
    /// communication taken as 0 (successors may share `v`'s GPU).
    pub(super) tail_after: Vec<f64>,
    /// Load of each task for the load bound: its work `w_v` (related machines) or its
    /// minimum execution time (unrelated machines).
    pub(super) load: Vec<f64>,
    /// Rate of each GPU for the load bound: its effective speed (related machines) or 1.
    pub(super) rate: Vec<f64>,
    /// Per GPU, the previous GPU (smaller id) of its symmetry class, `NONE` if it is the
    /// first. GPUs of one class are interchangeable: swapping them maps the problem to
    /// itself (same execution times, memory, ready time, links to every other GPU).
    pub(super) prev_twin: Vec<u32>,
}

impl<'p> Instance<'p> {
    /// The tables of `problem`. `O(n · m + |E|)`, plus `O(m² (n + m))` for the symmetry
    /// classes (at most [`MAX_GPUS_FOR_SYMMETRY`] GPUs).
    pub(super) fn new(problem: &'p Problem) -> Self {
        let (n, m) = (problem.n_tasks(), problem.n_gpus());
        let g = problem.graph();
        let mut exec = vec![f64::INFINITY; n * m];
        for v in 0..n {
            let t = TaskId::new(v);
            for k in 0..m {
                let gpu = GpuId::new(k);
                if problem.fits(t, gpu) {
                    exec[v * m + k] = problem.exec_time(t, gpu);
                }
            }
        }
        let preds: Vec<Vec<(u32, f64)>> = (0..n)
            .map(|v| {
                g.preds(TaskId::new(v))
                    .iter()
                    .map(|nb| (nb.task.index() as u32, nb.bytes))
                    .collect()
            })
            .collect();
        let succs: Vec<Vec<u32>> = (0..n)
            .map(|v| {
                g.succs(TaskId::new(v))
                    .iter()
                    .map(|nb| nb.task.index() as u32)
                    .collect()
            })
            .collect();
        let topo: Vec<u32> = g.topo_order().iter().map(|t| t.index() as u32).collect();
        let min_exec: Vec<f64> = (0..n)
            .map(|v| problem.min_exec_time(TaskId::new(v)))
            .collect();
        let mut tail_after = vec![0.0f64; n];
        for &v in topo.iter().rev() {
            let v = v as usize;
            tail_after[v] = succs[v]
                .iter()
                .map(|&w| min_exec[w as usize] + tail_after[w as usize])
                .fold(0.0, f64::max);
        }
        let (load, rate) = if problem.is_unrelated() {
            (min_exec, vec![1.0; m])
        } else {
            (
                g.tasks().map(|(_, t)| t.work).collect(),
                (0..m)
                    .map(|k| problem.effective_speed(GpuId::new(k)))
                    .collect(),
            )
        };
        let ready = problem.ready_times().to_vec();
        let prev_twin = twins(problem, &exec, &ready);
        Self {
            problem,
            n,
            m,
            exec,
            ready,
            preds,
            succs,
            topo,
            tail_after,
            load,
            rate,
            prev_twin,
        }
    }

    /// Execution time of task `v` on GPU `k` (`INFINITY` if it does not fit), s.
    #[inline]
    pub(super) fn exec(&self, v: usize, k: usize) -> f64 {
        self.exec[v * self.m + k]
    }

    /// Communication time of `bytes` from GPU `from` to GPU `to`, s.
    #[inline]
    pub(super) fn comm(&self, bytes: f64, from: u32, to: usize) -> f64 {
        self.problem
            .comm_time(bytes, GpuId::new(from as usize), GpuId::new(to))
    }
}

/// Per GPU, the previous GPU of its symmetry class (`NONE` for the first). GPUs `k < l` are
/// twins when swapping them maps the problem to itself: equal execution time of every task
/// (`INFINITY` marks a misfit, so memory is compared too), equal ready time, and equal
/// links: `link(k, x) = link(l, x)` and `link(x, k) = link(x, l)` for every other GPU `x`,
/// and `link(k, l) = link(l, k)`. Being twins is an equivalence (a swap that is an
/// automorphism composes with others into automorphisms), so comparing with the first GPU
/// of each class suffices.
fn twins(problem: &Problem, exec: &[f64], ready: &[f64]) -> Vec<u32> {
    let m = problem.n_gpus();
    let n = problem.n_tasks();
    let mut prev = vec![NONE; m];
    if m > MAX_GPUS_FOR_SYMMETRY {
        return prev;
    }
    let cluster = problem.cluster();
    let link = |a: usize, b: usize| cluster.link(GpuId::new(a), GpuId::new(b));
    let same_costs = |k: usize, l: usize| {
        ready[k].to_bits() == ready[l].to_bits()
            && (0..n).all(|v| exec[v * m + k].to_bits() == exec[v * m + l].to_bits())
    };
    let same_links = |k: usize, l: usize| {
        link(k, l) == link(l, k)
            && (0..m)
                .filter(|&x| x != k && x != l)
                .all(|x| link(k, x) == link(l, x) && link(x, k) == link(x, l))
    };
    // first GPU and last GPU of each class found so far
    let mut classes: Vec<(usize, usize)> = Vec::new();
    for (l, prev_l) in prev.iter_mut().enumerate() {
        match classes
            .iter_mut()
            .find(|(first, _)| same_costs(*first, l) && same_links(*first, l))
        {
            Some((_, last)) => {
                *prev_l = *last as u32;
                *last = l;
            }
            None => classes.push((l, l)),
        }
    }
    prev
}

/// The bounds' scratch buffers, sized once.
#[derive(Clone, Debug)]
pub(super) struct BoundScratch {
    /// Per task, the least finish time it can still reach (valid for unplaced tasks).
    eft_min: Vec<f64>,
    /// `(avail_k, rate_k)` pairs for the load bound.
    gpus: Vec<(f64, f64)>,
}

impl BoundScratch {
    pub(super) fn new(n: usize, m: usize) -> Self {
        Self {
            eft_min: vec![0.0; n],
            gpus: Vec::with_capacity(m),
        }
    }
}

/// The part of the search state the bounds read.
pub(super) struct StateView<'a> {
    /// GPU of each task, `NONE` if unplaced.
    pub(super) gpu_of: &'a [u32],
    /// Finish time of each placed task, s.
    pub(super) finish: &'a [f64],
    /// When each GPU becomes free for appending (its last finish, or `r_k`), s.
    pub(super) avail: &'a [f64],
    /// Latest finish of the placed tasks, s.
    pub(super) makespan: f64,
}

/// A lower bound on the makespan of every completion of the state (every append-placement of
/// the unplaced tasks, hence of the best one), or a value `>= cutoff` as soon as the bound
/// reaches `cutoff` (the caller prunes then).
///
/// * **Path bound**: in topological order, each unplaced task `v` gets
///   `eft_min(v) = min over GPUs k it fits of (max(avail_k, DRT_placed(v, k),
///   max over unplaced predecessors u of eft_min(u)) + exec(v, k))`, where `DRT_placed` is
///   the data-ready time from its placed predecessors with their real communication times
///   (unplaced predecessors may share the GPU, so their communication counts 0); the bound
///   is `max_v eft_min(v) + tail_after(v)`. Valid because, in the search space, a task
///   appended to `k` starts no earlier than `avail_k`, its data, and the finish of each
///   predecessor; by induction along the topological order every unplaced task finishes no
///   earlier than `eft_min`, and after it its successors still take `tail_after`.
/// * **Load bound**: the smallest `T` with `Σ_k rate_k · max(0, T − avail_k) >= Σ_v load_v`
///   over the unplaced tasks (water-filling): GPU `k`, appending after `avail_k`, does at
///   most `rate_k (T − avail_k)` units of load by `T`.
/// * the makespan of the placed tasks.
///
/// `O(Σ_{v unplaced} m · (1 + |preds(v)|) + m log m)`.
pub(super) fn lower_bound(
    inst: &Instance<'_>,
    state: &StateView<'_>,
    scratch: &mut BoundScratch,
    cutoff: f64,
) -> f64 {
    let mut lb = state.makespan;
    let mut load = 0.0f64;
    for &v in &inst.topo {
        let v = v as usize;
        if state.gpu_of[v] != NONE {
            continue;
        }
        load += inst.load[v];
        let mut from_unplaced = 0.0f64;
        for &(u, _) in &inst.preds[v] {
            if state.gpu_of[u as usize] == NONE {
                from_unplaced = from_unplaced.max(scratch.eft_min[u as usize]);
            }
        }
        let mut best = f64::INFINITY;
        for k in 0..inst.m {
            let e = inst.exec(v, k);
            if e == f64::INFINITY {
                continue;
            }
            let mut s = state.avail[k].max(from_unplaced);
            for &(u, bytes) in &inst.preds[v] {
                let gu = state.gpu_of[u as usize];
                if gu != NONE {
                    s = s.max(state.finish[u as usize] + inst.comm(bytes, gu, k));
                }
            }
            best = best.min(s + e);
        }
        scratch.eft_min[v] = best;
        lb = lb.max(best + inst.tail_after[v]);
        if lb >= cutoff {
            return lb;
        }
    }
    if load > 0.0 {
        scratch.gpus.clear();
        scratch
            .gpus
            .extend(state.avail.iter().zip(&inst.rate).map(|(&a, &r)| (a, r)));
        lb = lb.max(water_fill(load, &mut scratch.gpus));
    }
    lb
}

/// The smallest `T` with `Σ_k rate_k · max(0, T − a_k) >= load`, for `(a_k, rate_k)` pairs
/// with `rate_k > 0` and `load > 0` (sorts `gpus` by `a_k`); 0 (no bound) if the sums
/// overflow. `O(m log m)`.
pub(super) fn water_fill(load: f64, gpus: &mut [(f64, f64)]) -> f64 {
    gpus.sort_by(|x, y| x.0.total_cmp(&y.0));
    let (mut rate, mut weighted) = (0.0f64, 0.0f64);
    for j in 0..gpus.len() {
        let (a, r) = gpus[j];
        rate += r;
        weighted += r * a;
        // With GPUs 0..=j busy from their a_k: T = (load + Σ r a) / Σ r.
        let t = (load + weighted) / rate;
        if !t.is_finite() {
            return 0.0; // overflowed (huge speeds or times): no bound rather than a wrong one
        }
        match gpus.get(j + 1) {
            Some(&(next, _)) if t > next => continue,
            _ => return t.max(a),
        }
    }
    0.0
}
