//! The instance tables of the branch-and-bound (execution times, predecessor lists, static
//! tails, GPU symmetry classes, the GPU sets of gang tasks) and its lower bounds: the path
//! bound over the unplaced tasks and the water-filling load bound.

use worl_cluster::{GpuId, MachineId, Problem};
use worl_dag::{Span, TaskId};

/// No task / no GPU.
pub(super) const NONE: u32 = u32::MAX;

/// Above this many GPUs the symmetry classes are not computed (every GPU is its own class):
/// detecting them costs `O(m² (n + m))`, and no exact search of such a cluster finishes.
pub(super) const MAX_GPUS_FOR_SYMMETRY: usize = 128;

/// Up to this many GPUs the bounds follow communication between unplaced tasks GPU pair by
/// GPU pair (`O(m²)` per edge and node); above it they take it as 0.
pub(super) const MAX_GPUS_FOR_COMM_BOUND: usize = 32;

/// The GPU sets of one gang task (issue 21): every set of `g` distinct GPUs that fit the
/// task's memory and its span (one machine for span `machine`, any GPUs for `cluster`), each
/// once, its GPUs in ascending id order, so that its lead (the schedule's entry GPU) is its
/// smallest id. A task on one GPU has none (`g == 0`).
#[derive(Clone, Debug, Default)]
pub(super) struct GangSets {
    /// GPUs per set (0 for a task on one GPU).
    pub(super) g: usize,
    /// The sets, `g` GPU ids each (ascending), concatenated.
    pub(super) gpus: Vec<u32>,
    /// Run time of the task on each set ([`Problem::exec_time_on`]), s.
    pub(super) exec: Vec<f64>,
    /// Per set `S`, the least time from the task's finish on `S` to the end of the schedule:
    /// `max over successors w of min over k in S of X(k, w)`, with `X(k, w) = min over GPUs
    /// j of (comm(d_vw, k, j) + exec(w, j) + after(w, j))` (a successor's data leaves from
    /// the GPU of `S` nearest to it), s; the longest chain of least run times after the task
    /// above [`MAX_GPUS_FOR_COMM_BOUND`] GPUs.
    pub(super) after: Vec<f64>,
}

impl GangSets {
    /// Sets of the task.
    #[inline]
    pub(super) fn len(&self) -> usize {
        self.exec.len()
    }

    /// GPUs of set `c`, ascending.
    #[inline]
    pub(super) fn set(&self, c: usize) -> &[u32] {
        &self.gpus[c * self.g..(c + 1) * self.g]
    }
}

/// The groups of GPUs a set of gang task `v` draws from, each ascending: the GPUs of each
/// machine that fit the task's memory for span `machine`, all fitting GPUs for span
/// `cluster`. `O(m)`.
fn set_groups(problem: &Problem, v: TaskId) -> Vec<Vec<u32>> {
    let fitting = |gpus: &mut dyn Iterator<Item = GpuId>| -> Vec<u32> {
        let mut out: Vec<u32> = gpus
            .filter(|&k| problem.fits(v, k))
            .map(|k| k.index() as u32)
            .collect();
        out.sort_unstable();
        out
    };
    match problem.graph().task(v).gang.span {
        Span::Machine => (0..problem.cluster().machines().len())
            .map(|a| fitting(&mut problem.cluster().gpus_of(MachineId::new(a)).iter().copied()))
            .collect(),
        Span::Cluster => vec![fitting(&mut problem.cluster().gpu_ids())],
    }
}

/// `C(n, k)`, or any value above `cap` once it exceeds `cap`. `O(k)`.
fn binomial_capped(n: usize, k: usize, cap: usize) -> usize {
    if k > n {
        return 0;
    }
    let k = k.min(n - k);
    let mut c: u128 = 1;
    for i in 0..k {
        // C(n, i + 1) = C(n, i) · (n − i) / (i + 1), exact at every step
        c = c * (n - i) as u128 / (i + 1) as u128;
        if c > cap as u128 {
            return cap.saturating_add(1);
        }
    }
    c as usize
}

/// How many GPU sets gang task `v` has (see [`GangSets`]), or any value above `cap` once
/// it exceeds `cap`; 0 for a task on one GPU. `O(m + g · machines)`.
pub(super) fn gang_set_count(problem: &Problem, v: TaskId, cap: usize) -> usize {
    let g = problem.gpus(v) as usize;
    if g <= 1 {
        return 0;
    }
    let mut total = 0usize;
    for group in set_groups(problem, v) {
        total = total.saturating_add(binomial_capped(group.len(), g, cap));
        if total > cap {
            return cap.saturating_add(1);
        }
    }
    total
}

/// Calls `f` with every `g`-subset of `items` (ascending `items` give ascending subsets), in
/// lexicographic order of positions. `O(C(|items|, g) · g)`.
fn for_each_subset(items: &[u32], g: usize, mut f: impl FnMut(&[u32])) {
    let n = items.len();
    if g == 0 || g > n {
        return;
    }
    let mut idx: Vec<usize> = (0..g).collect();
    let mut set = vec![0u32; g];
    loop {
        for (s, &i) in set.iter_mut().zip(&idx) {
            *s = items[i];
        }
        f(&set);
        // the rightmost position that can still move right
        let Some(i) = (0..g).rev().find(|&i| idx[i] < n - g + i) else {
            return;
        };
        idx[i] += 1;
        for j in i + 1..g {
            idx[j] = idx[j - 1] + 1;
        }
    }
}

/// Everything the search reads about the problem, in dense tables.
#[derive(Clone, Debug)]
pub(super) struct Instance<'p> {
    pub(super) problem: &'p Problem,
    /// Tasks `n`.
    pub(super) n: usize,
    /// GPUs `m`.
    pub(super) m: usize,
    /// `exec[v · m + k]`, s; `f64::INFINITY` where task `v` does not fit GPU `k`. For a
    /// gang task, the least run time over its GPU sets that hold `k` (`INFINITY` where none
    /// does): a lower bound on its run time on any set holding `k`.
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
    /// [`MAX_GPUS_FOR_COMM_BOUND`] GPUs. For a gang task, the least
    /// [`GangSets::after`] over its sets that hold `k` (0 where none does), so that for
    /// every task on a set `S` (one GPU or a gang's) the schedule ends no earlier than its
    /// finish plus `after` of any GPU of `S`.
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
    /// itself (same execution times, memory, ready time, links to every other GPU; with
    /// gang tasks, also the same machine).
    pub(super) prev_twin: Vec<u32>,
    /// Whether the problem has a gang task ([`Problem::has_gangs`]); when not, every task
    /// takes one GPU and [`sets`](Self::sets) is empty.
    pub(super) gangs: bool,
    /// Per task, its GPU sets (empty for a task on one GPU); no entry without gangs.
    pub(super) sets: Vec<GangSets>,
    /// `identity[k] == k`: the one-GPU "set" `&identity[k..=k]` of a task on GPU `k`.
    identity: Vec<u32>,
}

impl<'p> Instance<'p> {
    /// The tables of `problem`. `O(n · m + |E|)` (`O(n · m² + |E| · m²)` for `after` up to
    /// [`MAX_GPUS_FOR_COMM_BOUND`] GPUs), plus `O(m² (n + m))` for the symmetry classes (at
    /// most [`MAX_GPUS_FOR_SYMMETRY`] GPUs), plus, with gang tasks, `O(s · (g log g +
    /// |succ| · g))` for `s` GPU sets (the caller bounds `s`: [`gang_set_count`]).
    pub(super) fn new(problem: &'p Problem) -> Self {
        let (n, m) = (problem.n_tasks(), problem.n_gpus());
        let g = problem.graph();
        let gangs = problem.has_gangs();
        let mut exec = vec![f64::INFINITY; n * m];
        let mut sets: Vec<GangSets> = Vec::new();
        if gangs {
            sets = vec![GangSets::default(); n];
        }
        for v in 0..n {
            let t = TaskId::new(v);
            if gangs && problem.gpus(t) > 1 {
                let gs = &mut sets[v];
                gs.g = problem.gpus(t) as usize;
                let mut ids: Vec<GpuId> = Vec::with_capacity(gs.g);
                for group in set_groups(problem, t) {
                    for_each_subset(&group, gs.g, |set| {
                        ids.clear();
                        ids.extend(set.iter().map(|&k| GpuId::new(k as usize)));
                        let e = problem.exec_time_on(t, &ids);
                        for &k in set {
                            let cell = &mut exec[v * m + k as usize];
                            *cell = cell.min(e);
                        }
                        gs.gpus.extend_from_slice(set);
                        gs.exec.push(e);
                    });
                }
                continue;
            }
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
        // the least run time of each task: a gang's over its sets
        let mut least_run = min_exec.clone();
        if gangs {
            for (v, gs) in sets.iter().enumerate() {
                if gs.g > 1 {
                    least_run[v] = gs.exec.iter().copied().fold(f64::INFINITY, f64::min);
                }
            }
        }
        // The least time from the finish of a task to the end, communication taken as 0
        // (its successors may share its GPU).
        let mut tail_after = vec![0.0f64; n];
        for &v in topo.iter().rev() {
            let v = v as usize;
            tail_after[v] = succs[v]
                .iter()
                .map(|&(w, _)| least_run[w as usize] + tail_after[w as usize])
                .fold(0.0, f64::max);
        }
        let use_comm = m <= MAX_GPUS_FOR_COMM_BOUND;
        let mut after = vec![0.0f64; n * m];
        // X(k, w) of a gang task, per GPU k and successor w (scratch)
        let mut reach: Vec<f64> = Vec::new();
        for &v in topo.iter().rev() {
            let v = v as usize;
            if gangs && sets[v].g > 1 {
                gang_after(
                    problem,
                    v,
                    &succs[v],
                    &exec,
                    &mut after,
                    &mut sets[v],
                    if use_comm { None } else { Some(tail_after[v]) },
                    &mut reach,
                );
                continue;
            }
            for k in 0..m {
                after[v * m + k] = if use_comm {
                    let mut longest = 0.0f64;
                    for &(w, bytes) in &succs[v] {
                        let shortest = reach_of(problem, &exec, &after, w as usize, bytes, k);
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
        let identity = (0..m as u32).collect();
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
            gangs,
            sets,
            identity,
        }
    }

    /// Whether task `v` is a gang task (needs more than one GPU).
    #[inline]
    pub(super) fn is_gang(&self, v: usize) -> bool {
        self.gangs && self.sets[v].g > 1
    }

    /// The GPUs of choice `c` of task `v`: set `c` of a gang task, GPU `c` (as a one-GPU
    /// slice) of a task on one GPU.
    #[inline]
    pub(super) fn gpus_of(&self, v: usize, c: u32) -> &[u32] {
        if self.is_gang(v) {
            self.sets[v].set(c as usize)
        } else {
            &self.identity[c as usize..=c as usize]
        }
    }

    /// [`after`](Self::after) of choice `c` of task `v`: of GPU `c` for a task on one
    /// GPU, of set `c` ([`GangSets::after`]) for a gang task, s.
    #[inline]
    pub(super) fn child_after(&self, v: usize, c: u32) -> f64 {
        if self.is_gang(v) {
            self.sets[v].after[c as usize]
        } else {
            self.after(v, c as usize)
        }
    }

    /// When the data of edge `u → v` (`bytes`) reaches GPU `l`, `u` placed with choice `c`
    /// and finishing at `finish`: from the nearest GPU of `u`'s set, `min over j of
    /// (finish + comm(bytes, j, l))` (one term for a task on one GPU), as
    /// [`PartialSchedule`](worl_cluster::PartialSchedule)'s data-ready time computes it, s.
    #[inline]
    pub(super) fn arrival(&self, u: usize, c: u32, finish: f64, bytes: f64, l: usize) -> f64 {
        let mut t = f64::INFINITY;
        for &j in self.gpus_of(u, c) {
            let a = finish + self.comm(bytes, j, l);
            if a < t {
                t = a;
            }
        }
        t
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

/// `X(k, w)`: the least time from a task finishing on GPU `k` to the end of its successor
/// `w`'s tail, over the GPUs `j` that can run `w`: the transfer of `bytes` from `k` to `j`,
/// `w`'s run time there and `after[w · m + j]` (every `m`-wide row of `exec` and `after`,
/// s). Infinite when no GPU can run `w`.
fn reach_of(problem: &Problem, exec: &[f64], after: &[f64], w: usize, bytes: f64, k: usize) -> f64 {
    let m = problem.n_gpus();
    let mut shortest = f64::INFINITY;
    for j in 0..m {
        let e = exec[w * m + j];
        if e == f64::INFINITY {
            continue;
        }
        let c = problem.comm_time(bytes, GpuId::new(k), GpuId::new(j));
        shortest = shortest.min(c + e + after[w * m + j]);
    }
    shortest
}

/// Fills the `after` tables of gang task `v` (see [`GangSets::after`] and
/// [`Instance::after`]) from its successors' (already filled: reverse topological order).
/// `tail`: the longest chain of least run times after `v`, used instead when communication
/// is not followed (above [`MAX_GPUS_FOR_COMM_BOUND`] GPUs). `reach` is scratch.
/// `O(|succ| · m² + s · g · |succ|)` for `s` sets.
#[allow(clippy::too_many_arguments)]
fn gang_after(
    problem: &Problem,
    v: usize,
    succs: &[(u32, f64)],
    exec: &[f64],
    after: &mut [f64],
    sets: &mut GangSets,
    tail: Option<f64>,
    reach: &mut Vec<f64>,
) {
    let m = problem.n_gpus();
    if let Some(tail) = tail {
        sets.after = vec![tail; sets.len()];
        after[v * m..(v + 1) * m].fill(tail);
        return;
    }
    // reach[i · m + k] = X(k, w_i)
    reach.clear();
    reach.resize(succs.len() * m, f64::INFINITY);
    for (i, &(w, bytes)) in succs.iter().enumerate() {
        for k in 0..m {
            reach[i * m + k] = reach_of(problem, exec, after, w as usize, bytes, k);
        }
    }
    let row = &mut after[v * m..(v + 1) * m];
    row.fill(f64::INFINITY);
    sets.after.clear();
    for c in 0..sets.len() {
        let set = sets.set(c);
        let mut longest = 0.0f64;
        for i in 0..succs.len() {
            let nearest = set
                .iter()
                .map(|&k| reach[i * m + k as usize])
                .fold(f64::INFINITY, f64::min);
            longest = longest.max(nearest);
        }
        for &k in set {
            let cell = &mut row[k as usize];
            *cell = cell.min(longest);
        }
        sets.after.push(longest);
    }
    for cell in row.iter_mut() {
        if *cell == f64::INFINITY {
            *cell = 0.0; // no set holds this GPU: never read for a placement
        }
    }
}

/// Per GPU, the previous GPU of its symmetry class (`NONE` for the first). GPUs `k < l` are
/// twins when swapping them maps the problem to itself: equal execution time of every task
/// (`INFINITY` marks a misfit, so memory is compared too), equal ready time, equal busy
/// windows (`busy`, empty when the problem has none), and equal links: `link(k, x) = link(l, x)` and `link(x, k) = link(x, l)` for every other GPU `x`,
/// and `link(k, l) = link(l, k)`. With gang tasks, twins must also share a machine (a set
/// of span `machine` must stay on one machine after the swap, and a set's all-reduce time
/// reads its machines); gang tasks' `exec` entries (least run time over the sets holding the
/// GPU) are then equal too, and swapping maps every set to one of equal run time. Being
/// twins is an equivalence (a swap that is an automorphism composes with others into
/// automorphisms), so comparing with the first GPU of each class suffices.
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
    let gangs = problem.has_gangs();
    let same_costs = |k: usize, l: usize| {
        (!gangs || problem.machine_of(GpuId::new(k)) == problem.machine_of(GpuId::new(l)))
            && ready[k].to_bits() == ready[l].to_bits()
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
    /// GPU of each task (a gang task's lead), `NONE` if unplaced.
    pub(super) gpu_of: &'a [u32],
    /// Choice of each placed task: its GPU, or its set's index for a gang task.
    pub(super) choice: &'a [u32],
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
///   With gang tasks the same induction holds for every GPU `k` of a task's set `S`: the
///   task starts no earlier than `avail_k` (appending after every GPU of `S`) and than the
///   data's arrival at `k` (its start waits for its inputs on every GPU of `S`), runs at
///   least `exec(v, k)` (the least run time over the sets holding `k`), so it finishes no
///   earlier than `eft(v, k)` for every `k` in `S`; its successors' data leaves from the
///   nearest GPU of `S`, which the `min_j` over all GPUs covers for unplaced predecessors
///   and [`Instance::arrival`] gives exactly for placed ones.
/// * **Load bound**: the smallest `T` with `Σ_k rate_k · max(0, T − avail_k) >= Σ_v load_v`
///   over the unplaced tasks (water-filling): GPU `k`, appending after `avail_k`, does at
///   most `rate_k (T − avail_k)` units of load by `T` (less with busy windows: still a
///   bound). A gang task of `g` GPUs on a set `S` holds each GPU of `S` for its run time
///   `D >= max_{k∈S} exec(v, k) / (g · e_v)` (efficiency `e_v <= 1`), so it takes
///   `Σ_{k∈S} rate_k · D >= w_v / e_v >= w_v` units of the GPUs' capacity (related machines,
///   `exec(v, k) = w_v / rate_k`), or `g · D >= min_k exec(v, k) / e_v` GPU-seconds
///   (unrelated machines): its load `w_v` (resp. its minimum single-GPU execution time)
///   stays a lower bound.
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
                    if inst.gangs {
                        // from the nearest GPU of a gang predecessor's set
                        inst.arrival(u, state.choice[u], state.finish[u], bytes, k)
                    } else {
                        state.finish[u] + inst.comm(bytes, gu, k)
                    }
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
