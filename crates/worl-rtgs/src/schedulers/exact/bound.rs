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

/// Up to this many GPUs the bounds follow communication between unplaced tasks GPU pair by
/// GPU pair (`O(m²)` per edge and node); above it they take it as 0.
pub(super) const MAX_GPUS_FOR_COMM_BOUND: usize = 32;

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
    /// Whether some GPU has a busy window ([`Problem::has_windows`]); when not, start times
    /// are the window-free ones.
    pub(super) windows: bool,
    /// Busy windows per GPU ([`Problem::busy`]), `[from, to)` in s; empty without windows.
    pub(super) busy: Vec<Vec<(f64, f64)>>,
    /// Per task, its predecessors `(task, bytes)`.
    pub(super) preds: Vec<Vec<(u32, f64)>>,
    /// Per task, its successors `(task, bytes)`.
    pub(super) succs: Vec<Vec<(u32, f64)>>,
    /// A topological order of the tasks.
    pub(super) topo: Vec<u32>,
    /// `after[v · m + k]`: the least time from the finish of `v` on GPU `k` to the end of
    /// the schedule: `max over successors w of min over GPUs j that fit w of
    /// (comm(d_vw, k, j) + exec(w, j) + after[w · m + j])` (0 for an exit task); equal to
    /// the longest chain of minimum execution times after `v` above
    /// [`MAX_GPUS_FOR_COMM_BOUND`] GPUs.
    pub(super) after: Vec<f64>,
    /// Whether the bounds count communication between unplaced tasks
    /// (`m <= MAX_GPUS_FOR_COMM_BOUND`).
    pub(super) use_comm: bool,
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
        let succs: Vec<Vec<(u32, f64)>> = (0..n)
            .map(|v| {
                g.succs(TaskId::new(v))
                    .iter()
                    .map(|nb| (nb.task.index() as u32, nb.bytes))
                    .collect()
            })
            .collect();
        let topo: Vec<u32> = g.topo_order().iter().map(|t| t.index() as u32).collect();
        let min_exec: Vec<f64> = (0..n)
            .map(|v| problem.min_exec_time(TaskId::new(v)))
            .collect();
        // The least time from the finish of a task to the end, communication taken as 0
        // (its successors may share its GPU).
        let mut tail_after = vec![0.0f64; n];
        for &v in topo.iter().rev() {
            let v = v as usize;
            tail_after[v] = succs[v]
                .iter()
                .map(|&(w, _)| min_exec[w as usize] + tail_after[w as usize])
                .fold(0.0, f64::max);
        }
        let use_comm = m <= MAX_GPUS_FOR_COMM_BOUND;
        let mut after = vec![0.0f64; n * m];
        for &v in topo.iter().rev() {
            let v = v as usize;
            for k in 0..m {
                after[v * m + k] = if use_comm {
                    let mut longest = 0.0f64;
                    for &(w, bytes) in &succs[v] {
                        let w = w as usize;
                        let mut shortest = f64::INFINITY;
                        for j in 0..m {
                            let e = exec[w * m + j];
                            if e == f64::INFINITY {
                                continue;
                            }
                            let c = problem.comm_time(bytes, GpuId::new(k), GpuId::new(j));
                            shortest = shortest.min(c + e + after[w * m + j]);
                        }
                        longest = longest.max(shortest);
                    }
                    longest
                } else {
                    tail_after[v]
                };
            }
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
        let windows = problem.has_windows();
        let busy: Vec<Vec<(f64, f64)>> = if windows {
            (0..m)
                .map(|k| problem.busy(GpuId::new(k)).to_vec())
                .collect()
        } else {
            Vec::new()
        };
        let prev_twin = twins(problem, &exec, &ready, &busy);
        Self {
            problem,
            n,
            m,
            exec,
            ready,
            windows,
            busy,
            preds,
            succs,
            topo,
            after,
            use_comm,
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

    /// [`after`](Self::after) of task `v` on GPU `k`, s.
    #[inline]
    pub(super) fn after(&self, v: usize, k: usize) -> f64 {
        self.after[v * self.m + k]
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
/// (`INFINITY` marks a misfit, so memory is compared too), equal ready time, equal busy
/// windows (`busy`, empty when the problem has none), and equal links: `link(k, x) = link(l, x)` and `link(x, k) = link(x, l)` for every other GPU `x`,
/// and `link(k, l) = link(l, k)`. Being twins is an equivalence (a swap that is an
/// automorphism composes with others into automorphisms), so comparing with the first GPU
/// of each class suffices.
fn twins(problem: &Problem, exec: &[f64], ready: &[f64], busy: &[Vec<(f64, f64)>]) -> Vec<u32> {
    let m = problem.n_gpus();
    let n = problem.n_tasks();
    let mut prev = vec![NONE; m];
    if m > MAX_GPUS_FOR_SYMMETRY {
        return prev;
    }
    let cluster = problem.cluster();
    let link = |a: usize, b: usize| cluster.link(GpuId::new(a), GpuId::new(b));
    let same_windows = |k: usize, l: usize| busy.is_empty() || busy[k] == busy[l];
    let same_costs = |k: usize, l: usize| {
        ready[k].to_bits() == ready[l].to_bits()
            && same_windows(k, l)
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
    /// `eft[v · m + k]`: the least finish time of unplaced task `v` on GPU `k`
    /// (`INFINITY` where it does not fit).
    eft: Vec<f64>,
    /// `(avail_k, rate_k)` pairs for the load bound.
    gpus: Vec<(f64, f64)>,
}

impl BoundScratch {
    pub(super) fn new(n: usize, m: usize) -> Self {
        Self {
            eft_min: vec![0.0; n],
            eft: vec![0.0; n * m],
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
/// * **Path bound**: in topological order, each unplaced task `v` and GPU `k` it fits get
///   `eft(v, k) = max(avail_k, max over placed predecessors u of F_u + comm(d_uv, π(u), k),
///   max over unplaced predecessors u of min over GPUs j of (eft(u, j) + comm(d_uv, j, k)))
///   + exec(v, k)` (communication `0` for `j = k`); the bound is
///   `max_v min_k (eft(v, k) + after(v, k))`. Valid because, in the search space, a task
///   appended to `k` starts no earlier than `avail_k`, the GPU's free time now, and the
///   arrival of each input (busy windows, which it ignores, only delay starts further): by induction along the topological order every unplaced task
///   that runs on `k` finishes no earlier than `eft(v, k)`, and then the chain of its
///   successors still takes `after(v, k)` ([`Instance::after`]). Above
///   [`MAX_GPUS_FOR_COMM_BOUND`] GPUs, communication from unplaced predecessors counts 0
///   (`min_j eft(u, j)`), and `after` is the longest chain of minimum execution times.
/// * **Load bound**: the smallest `T` with `Σ_k rate_k · max(0, T − avail_k) >= Σ_v load_v`
///   over the unplaced tasks (water-filling): GPU `k`, appending after `avail_k`, does at
///   most `rate_k (T − avail_k)` units of load by `T` (less with busy windows: still a
///   bound).
/// * the makespan of the placed tasks.
///
/// `O(Σ_{v unplaced} m · (|preds(v)| · m + 1) + m log m)` (`m` for `m²` above the
/// communication threshold).
pub(super) fn lower_bound(
    inst: &Instance<'_>,
    state: &StateView<'_>,
    scratch: &mut BoundScratch,
    cutoff: f64,
) -> f64 {
    let m = inst.m;
    let mut lb = state.makespan;
    let mut load = 0.0f64;
    for &v in &inst.topo {
        let v = v as usize;
        if state.gpu_of[v] != NONE {
            continue;
        }
        load += inst.load[v];
        let mut eft_min = f64::INFINITY;
        let mut best = f64::INFINITY;
        for k in 0..m {
            let e = inst.exec(v, k);
            if e == f64::INFINITY {
                scratch.eft[v * m + k] = f64::INFINITY;
                continue;
            }
            let mut s = state.avail[k];
            for &(u, bytes) in &inst.preds[v] {
                let u = u as usize;
                let gu = state.gpu_of[u];
                let arrival = if gu != NONE {
                    state.finish[u] + inst.comm(bytes, gu, k)
                } else if inst.use_comm {
                    let mut t = scratch.eft[u * m + k];
                    for j in 0..m {
                        let f = scratch.eft[u * m + j];
                        if j != k && f < t {
                            t = t.min(f + inst.comm(bytes, j as u32, k));
                        }
                    }
                    t
                } else {
                    scratch.eft_min[u]
                };
                s = s.max(arrival);
            }
            let f = s + e;
            scratch.eft[v * m + k] = f;
            eft_min = eft_min.min(f);
            best = best.min(f + inst.after(v, k));
        }
        scratch.eft_min[v] = eft_min;
        lb = lb.max(best);
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
