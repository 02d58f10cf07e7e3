//! [`Simulation`]: the discrete-event engine, and its [`SimConfig`].

use crate::error::{Result, SimError};
use crate::failures::Failures;
use crate::metrics::{SimMetrics, quantile};
use crate::network::Contention;
use crate::network::FlowNet;
use crate::noise::NoiseSampler;
use crate::noise::RuntimeNoise;
use crate::policy::{Dispatch, OnlinePolicy, SimView};
use crate::result::{Event, JobRecord, SimResult, TaskRecord};
use crate::state::{GpuState, NONE, Phase, State, TaskState};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use rand_distr::{Distribution, Exp};
use std::cmp::Ordering;
use std::collections::BinaryHeap;
use std::time::Instant;
use worl_cluster::{GpuId, Problem, past_windows};
use worl_dag::{JobId, TaskId};

/// What the simulation models besides the static cost model.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SimConfig {
    /// Runtime noise (default: none).
    pub noise: RuntimeNoise,
    /// Network contention (default: none).
    pub contention: Contention,
    /// GPU failures (default: none).
    pub failures: Failures,
    /// Whether to record the event log in [`SimResult::events`] (default: no).
    pub record_events: bool,
    /// Whether each decision's wall-clock time delays its dispatches in simulated time
    /// (default: no). Charging makes runs depend on the host's speed.
    pub charge_decision_time: bool,
}

/// A simulation of one problem under one configuration; run it with any number of
/// policies and seeds.
#[derive(Clone, Debug)]
pub struct Simulation<'p> {
    problem: &'p Problem,
    config: SimConfig,
}

impl<'p> Simulation<'p> {
    /// A simulation of `problem` under `config`.
    ///
    /// Gang tasks (needing `g > 1` GPUs at once) run on all GPUs of their set together
    /// (see the crate documentation); a policy that cannot place them refuses the problem
    /// when it runs ([`SimError::GangUnsupported`]).
    ///
    /// Errors: [`SimError::InvalidSpec`] / [`SimError::InvalidOutage`] for invalid noise or
    /// failure parameters.
    pub fn new(problem: &'p Problem, config: SimConfig) -> Result<Self> {
        config.noise.validate()?;
        config.failures.validate(problem.n_gpus())?;
        Ok(Self { problem, config })
    }

    /// The problem.
    pub fn problem(&self) -> &'p Problem {
        self.problem
    }

    /// The configuration.
    pub fn config(&self) -> &SimConfig {
        &self.config
    }

    /// Runs `policy` to completion with every random draw (noise factors, failure
    /// times) from one ChaCha8 stream seeded with `seed`.
    ///
    /// Errors: the policy's own errors; [`SimError::UnknownTask`], [`SimError::UnknownGpu`],
    /// [`SimError::AlreadyDispatched`], [`SimError::MemoryInfeasible`] and
    /// [`SimError::InvalidGpuSet`] (a gang task's set) for an invalid dispatch; [`SimError::Stalled`] when nothing can happen any more and tasks are
    /// unfinished (a task never dispatched, or a GPU queue whose head waits for a task
    /// queued behind it).
    pub fn run(&self, policy: &mut dyn OnlinePolicy, seed: u64) -> Result<SimResult> {
        Engine::new(self.problem, &self.config, seed)?.run(policy)
    }
}

/// What an event does when it fires.
#[derive(Copy, Clone, Debug)]
enum Kind {
    /// Job `0` arrives.
    Release(u32),
    /// GPU `0` reaches its ready time, or the end of a busy window its queue head waits
    /// for.
    GpuReady(u32),
    /// An attempt of `task` finishes (ignored unless `generation` is the task's current).
    TaskDone { task: u32, generation: u32 },
    /// Transfer `0` is delivered (no contention) or ends its latency phase (fair).
    TransferStep(u32),
    /// The flows due by now finish (ignored unless `0` is the current flow epoch: the
    /// network's earliest due time changed since).
    FlowDone(u32),
    /// Random failure of GPU `0` (recurring: not live).
    Fail(u32),
    /// Repair of GPU `0` after a random failure (not live).
    Repair(u32),
    /// A scripted outage of GPU `0` begins.
    OutageStart(u32),
    /// A scripted outage of GPU `0` ends.
    OutageEnd(u32),
    /// Dispatch batch `0` (delayed by a charged decision time) takes effect.
    ApplyDispatch(u32),
}

impl Kind {
    /// Whether the event can make progress by itself (random failures and their repairs
    /// recur forever and do not count).
    fn is_live(self) -> bool {
        !matches!(self, Kind::Fail(_) | Kind::Repair(_))
    }

    /// Rank among the events of one instant, lowest first: a task finishing at `t` finishes
    /// before a GPU failing at `t` (a task runs on `[start, finish)` and an outage covers
    /// `[from, to)`: they do not overlap), and a failure at `t` comes before a repair at
    /// `t` (abutting outages of one GPU keep it down without a zero-length up time). Tasks
    /// start only after every event of the instant, so a GPU repaired at `t` can start a
    /// task at `t` and a GPU failing at `t` cannot.
    fn rank(self) -> u8 {
        match self {
            Kind::TaskDone { .. } => 0,
            Kind::Release(_)
            | Kind::GpuReady(_)
            | Kind::TransferStep(_)
            | Kind::FlowDone(_)
            | Kind::ApplyDispatch(_) => 1,
            Kind::Fail(_) | Kind::OutageStart(_) => 2,
            Kind::Repair(_) | Kind::OutageEnd(_) => 3,
        }
    }
}

/// A scheduled event; the heap pops the earliest, ties by [`Kind::rank`], then by
/// scheduling order.
#[derive(Copy, Clone, Debug)]
struct Item {
    time: f64,
    seq: u64,
    kind: Kind,
}

impl PartialEq for Item {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}
impl Eq for Item {}
impl PartialOrd for Item {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Item {
    fn cmp(&self, other: &Self) -> Ordering {
        // Reversed: `BinaryHeap` is a max-heap.
        other
            .time
            .total_cmp(&self.time)
            .then(other.kind.rank().cmp(&self.kind.rank()))
            .then(other.seq.cmp(&self.seq))
    }
}

/// A transfer in progress.
#[derive(Copy, Clone, Debug)]
struct Transfer {
    from_task: u32,
    to_task: u32,
    bytes: f64,
    from_gpu: u32,
    to_gpu: u32,
    start: f64,
}

/// Decision points without progress after which a run with only random failures pending
/// is declared stalled.
const MAX_IDLE_ROUNDS: usize = 100_000;

/// Most attempts of one task under random failures (`mtbf:`): a task lost this many times
/// stops the simulation with [`SimError::TooManyLosses`] (failures come faster than it can
/// run, and the run would otherwise grow without bound). Scripted outages (`outages:`,
/// `script:`) have no such cap: they are finitely many, so the run ends once they end, and
/// a task may be lost once per outage.
pub const MAX_ATTEMPTS: u32 = 1_000;

/// One run of a [`Simulation`].
struct Engine<'p, 'c> {
    p: &'p Problem,
    cfg: &'c SimConfig,
    rng: ChaCha8Rng,
    noise: NoiseSampler,
    st: State,
    heap: BinaryHeap<Item>,
    seq: u64,
    /// Live events in the heap (see [`Kind::is_live`]).
    live: usize,
    log: Option<Vec<Event>>,
    net: Option<FlowNet>,
    machine_of: Vec<u32>,
    job_of: Vec<u32>,
    transfers: Vec<Transfer>,
    free_transfers: Vec<u32>,
    /// Time of the pending [`Kind::FlowDone`] event (`INFINITY`: none).
    flow_due: f64,
    /// Epoch of the pending [`Kind::FlowDone`] event.
    flow_epoch: u32,
    /// Scratch: the transfers whose flows finish together.
    flow_tokens: Vec<u32>,
    batches: Vec<Vec<Dispatch>>,
    dirty_gpus: Vec<u32>,
    gpu_dirty: Vec<bool>,
    ready_dirty: bool,
    wake: bool,
    finished: usize,
    job_first_start: Vec<f64>,
    job_finish: Vec<f64>,
    bytes_moved: f64,
    contention_delay: f64,
    lost_time: f64,
    replans: u64,
    latencies: Vec<f64>,
    mtbf: Option<(Exp<f64>, f64)>,
    idle_rounds: usize,
    /// Whether some GPU has a busy window ([`Problem::has_windows`]): only then does a
    /// start look at the windows.
    windows: bool,
    /// Whether the problem has a gang task ([`Problem::has_gangs`]): only then do
    /// dispatches, starts, finishes, losses and transfers look at GPU sets.
    gangs: bool,
}

impl<'p, 'c> Engine<'p, 'c> {
    fn new(p: &'p Problem, cfg: &'c SimConfig, seed: u64) -> Result<Self> {
        let noise = cfg.noise.sampler()?;
        cfg.failures.validate(p.n_gpus())?;
        let g = p.graph();
        let w = p.workload();
        let tasks = g
            .task_ids()
            .map(|t| TaskState {
                phase: Phase::Undispatched,
                gpu: NONE,
                parents_left: g.preds(t).len() as u32,
                inputs_left: 0,
                in_ready: false,
                start: 0.0,
                finish: 0.0,
                est: 0.0,
                attempts: 0,
                lost_time: 0.0,
                generation: 0,
                drawn: None,
            })
            .collect();
        let gpus = (0..p.n_gpus())
            .map(|_| GpuState {
                running: NONE,
                ..GpuState::default()
            })
            .collect();
        let cluster = p.cluster();
        let machine_of = cluster
            .gpus()
            .iter()
            .map(|gpu| gpu.machine.index() as u32)
            .collect();
        let net = (cfg.contention == Contention::Fair)
            .then(|| FlowNet::new(cluster.n_machines(), cluster.network().clone()));
        let mtbf = match cfg.failures {
            Failures::Mtbf { hours, repair_s } => {
                let exp = Exp::new(1.0 / (hours * 3600.0)).map_err(|e| SimError::InvalidSpec {
                    what: "failures",
                    spec: cfg.failures.to_string(),
                    reason: e.to_string(),
                })?;
                Some((exp, repair_s))
            }
            _ => None,
        };
        let mut e = Self {
            p,
            cfg,
            rng: ChaCha8Rng::seed_from_u64(seed),
            noise,
            st: State {
                now: 0.0,
                tasks,
                gpus,
                job_released: vec![false; w.n_jobs()],
                released: Vec::new(),
                newly_released: Vec::new(),
                newly_lost: Vec::new(),
                ready: Vec::new(),
                ready_time: p.ready_times().to_vec(),
                sets: if p.has_gangs() {
                    vec![Vec::new(); p.n_tasks()]
                } else {
                    Vec::new()
                },
            },
            heap: BinaryHeap::new(),
            seq: 0,
            live: 0,
            log: cfg.record_events.then(Vec::new),
            net,
            machine_of,
            job_of: g.tasks().map(|(_, t)| t.job.index() as u32).collect(),
            transfers: Vec::new(),
            free_transfers: Vec::new(),
            flow_due: f64::INFINITY,
            flow_epoch: 0,
            flow_tokens: Vec::new(),
            batches: Vec::new(),
            dirty_gpus: Vec::new(),
            gpu_dirty: vec![false; p.n_gpus()],
            ready_dirty: false,
            wake: false,
            finished: 0,
            job_first_start: vec![f64::INFINITY; w.n_jobs()],
            job_finish: vec![f64::NEG_INFINITY; w.n_jobs()],
            bytes_moved: 0.0,
            contention_delay: 0.0,
            lost_time: 0.0,
            replans: 0,
            latencies: Vec::new(),
            mtbf,
            idle_rounds: 0,
            windows: p.has_windows(),
            gangs: p.has_gangs(),
        };
        for (j, job) in w.jobs().iter().enumerate() {
            e.push(job.release, Kind::Release(j as u32));
        }
        for (k, &r) in p.ready_times().iter().enumerate() {
            if r > 0.0 {
                e.push(r, Kind::GpuReady(k as u32));
            }
        }
        match &cfg.failures {
            Failures::None => {}
            Failures::Mtbf { .. } => {
                for k in 0..p.n_gpus() {
                    let t = e.draw_uptime();
                    e.push(t, Kind::Fail(k as u32));
                }
            }
            Failures::Script(outages) => {
                for o in outages {
                    e.push(o.from, Kind::OutageStart(o.gpu.index() as u32));
                    e.push(o.to, Kind::OutageEnd(o.gpu.index() as u32));
                }
            }
        }
        Ok(e)
    }

    fn draw_uptime(&mut self) -> f64 {
        let (exp, _) = self.mtbf.expect("random failures are configured");
        exp.sample(&mut self.rng)
    }

    #[inline]
    fn push(&mut self, time: f64, kind: Kind) {
        if kind.is_live() {
            self.live += 1;
        }
        self.seq += 1;
        self.heap.push(Item {
            time,
            seq: self.seq,
            kind,
        });
    }

    #[inline]
    fn log(&mut self, event: Event) {
        if let Some(log) = &mut self.log {
            log.push(event);
        }
    }

    #[inline]
    fn mark(&mut self, gpu: u32) {
        if !self.gpu_dirty[gpu as usize] {
            self.gpu_dirty[gpu as usize] = true;
            self.dirty_gpus.push(gpu);
        }
    }

    fn run(mut self, policy: &mut dyn OnlinePolicy) -> Result<SimResult> {
        let n = self.p.n_tasks();
        let mut out = Vec::new();
        let mut first = true;
        loop {
            let now = match self.heap.peek() {
                Some(it) if !first || it.time <= 0.0 => it.time,
                Some(_) => 0.0,
                None if first => 0.0,
                None => break,
            };
            self.st.now = now;
            self.drain(now)?;
            if self.finished == n {
                break;
            }
            if first || self.wake {
                self.decide(policy, &mut out, first)?;
            }
            first = false;
            self.wake = false;
            while let Some(k) = self.dirty_gpus.pop() {
                self.gpu_dirty[k as usize] = false;
                self.try_start(k as usize);
            }
            self.check_stall(policy.name())?;
        }
        if self.finished < n {
            return Err(self.stalled(policy.name()));
        }
        Ok(self.result())
    }

    /// Processes every event at `now` (including those it schedules at `now`).
    fn drain(&mut self, now: f64) -> Result<()> {
        loop {
            while let Some(&it) = self.heap.peek() {
                if it.time > now {
                    break;
                }
                self.heap.pop();
                if it.kind.is_live() {
                    self.live -= 1;
                }
                self.handle(it.kind)?;
            }
            let Some(net) = &mut self.net else {
                return Ok(());
            };
            net.recompute(now);
            let due = net.next_due().unwrap_or(f64::INFINITY);
            // One pending event, at the network's earliest due time.
            if due != self.flow_due {
                self.flow_due = due;
                self.flow_epoch = self.flow_epoch.wrapping_add(1);
                if due < f64::INFINITY {
                    self.push(due, Kind::FlowDone(self.flow_epoch));
                }
            }
            if due > now {
                return Ok(());
            }
        }
    }

    fn handle(&mut self, kind: Kind) -> Result<()> {
        let now = self.st.now;
        match kind {
            Kind::Release(j) => self.release(j as usize),
            Kind::GpuReady(k) => self.mark(k),
            Kind::TaskDone { task, generation } => {
                let ts = &self.st.tasks[task as usize];
                if ts.generation == generation && ts.phase == Phase::Running {
                    self.finish(task as usize);
                }
            }
            Kind::TransferStep(i) => {
                let tr = self.transfers[i as usize];
                match &mut self.net {
                    Some(net) if tr.bytes > 0.0 => {
                        let a = self.machine_of[tr.from_gpu as usize] as usize;
                        let b = self.machine_of[tr.to_gpu as usize] as usize;
                        net.add(a, b, tr.bytes, now, i);
                    }
                    _ => self.arrive(i),
                }
            }
            Kind::FlowDone(epoch) => {
                if let Some(net) = &mut self.net
                    && epoch == self.flow_epoch
                {
                    let mut tokens = std::mem::take(&mut self.flow_tokens);
                    net.finish_due(now, &mut tokens);
                    // The next due time needs a new event, even if equal to this one.
                    self.flow_due = f64::NAN;
                    for &token in &tokens {
                        self.arrive(token);
                    }
                    tokens.clear();
                    self.flow_tokens = tokens;
                }
            }
            Kind::Fail(k) => {
                self.fail(k as usize)?;
                let repair = self.mtbf.map_or(0.0, |(_, r)| r);
                self.push(now + repair, Kind::Repair(k));
            }
            Kind::Repair(k) => {
                self.go_up(k as usize);
                let t = self.draw_uptime();
                self.push(now + t, Kind::Fail(k));
            }
            Kind::OutageStart(k) => self.fail(k as usize)?,
            Kind::OutageEnd(k) => self.go_up(k as usize),
            Kind::ApplyDispatch(b) => {
                let batch = std::mem::take(&mut self.batches[b as usize]);
                for d in batch {
                    self.enqueue(d.task, d.gpu);
                }
            }
        }
        Ok(())
    }

    fn release(&mut self, j: usize) {
        let now = self.st.now;
        self.st.job_released[j] = true;
        self.st.released.push(JobId::new(j));
        self.st.newly_released.push(JobId::new(j));
        self.wake = true;
        self.log(Event::Released {
            time: now,
            job: JobId::new(j),
        });
        let w = self.p.workload();
        for &t in &w.jobs()[j].tasks {
            let ts = &mut self.st.tasks[t.index()];
            match ts.phase {
                Phase::Undispatched if ts.parents_left == 0 && !ts.in_ready => {
                    ts.in_ready = true;
                    self.st.ready.push(t);
                }
                Phase::Queued => {
                    let g = ts.gpu;
                    self.mark(g);
                }
                _ => {}
            }
        }
    }

    fn finish(&mut self, v: usize) {
        let now = self.st.now;
        let ts = &mut self.st.tasks[v];
        ts.phase = Phase::Finished;
        ts.finish = now;
        let (g, start) = (ts.gpu, ts.start);
        if self.gangs && !self.st.sets[v].is_empty() {
            // A gang frees every GPU of its set at once.
            let set = std::mem::take(&mut self.st.sets[v]);
            for &k in &set {
                let gs = &mut self.st.gpus[k.index()];
                gs.running = NONE;
                gs.busy += now - start;
                self.mark(k.index() as u32);
                self.log(Event::Finished {
                    time: now,
                    task: TaskId::new(v),
                    gpu: k,
                });
            }
            self.st.sets[v] = set;
        } else {
            let gs = &mut self.st.gpus[g as usize];
            gs.running = NONE;
            gs.busy += now - start;
            self.mark(g);
            self.log(Event::Finished {
                time: now,
                task: TaskId::new(v),
                gpu: GpuId::new(g as usize),
            });
        }
        self.finished += 1;
        self.wake = true;
        let j = self.job_of[v] as usize;
        self.job_finish[j] = self.job_finish[j].max(now);
        let graph = self.p.graph();
        for nb in graph.succs(TaskId::new(v)) {
            let c = nb.task.index();
            let tc = &mut self.st.tasks[c];
            tc.parents_left -= 1;
            match tc.phase {
                Phase::Queued => self.start_transfer(v, c, nb.bytes),
                Phase::Undispatched
                    if tc.parents_left == 0
                        && !tc.in_ready
                        && self.st.job_released[self.job_of[c] as usize] =>
                {
                    tc.in_ready = true;
                    self.st.ready.push(nb.task);
                }
                _ => {}
            }
        }
    }

    /// Starts the transfers of edge `u -> v` (`u` finished, `v` dispatched): one to `v`'s
    /// GPU, or, with gang tasks, one to each GPU `l` of `v`'s set from the GPU of `u`'s set
    /// nearest to it (smallest `comm(d_uv, k, l)`, ties to the earlier GPU of the set); a
    /// destination GPU in `u`'s set receives the data at once.
    fn start_transfer(&mut self, u: usize, v: usize, bytes: f64) {
        if self.gangs && (!self.st.sets[u].is_empty() || !self.st.sets[v].is_empty()) {
            let one = |g: u32| vec![GpuId::new(g as usize)];
            let from = match &self.st.sets[u] {
                s if s.is_empty() => one(self.st.tasks[u].gpu),
                s => s.clone(),
            };
            let to = match &self.st.sets[v] {
                s if s.is_empty() => one(self.st.tasks[v].gpu),
                s => s.clone(),
            };
            for &l in &to {
                if from.contains(&l) {
                    self.input_arrived(v);
                    continue;
                }
                let mut src = from[0];
                let mut best = self.p.comm_time(bytes, src, l);
                for &k in &from[1..] {
                    let c = self.p.comm_time(bytes, k, l);
                    if c < best {
                        (src, best) = (k, c);
                    }
                }
                self.send(u, v, bytes, src.index() as u32, l.index() as u32);
            }
            return;
        }
        let (gu, gv) = (self.st.tasks[u].gpu, self.st.tasks[v].gpu);
        if gu == gv {
            self.input_arrived(v);
            return;
        }
        self.send(u, v, bytes, gu, gv);
    }

    /// Starts the transfer of edge `u -> v` from GPU `gu` to GPU `gv` (distinct).
    fn send(&mut self, u: usize, v: usize, bytes: f64, gu: u32, gv: u32) {
        let now = self.st.now;
        self.log(Event::TransferStarted {
            time: now,
            from_task: TaskId::new(u),
            to_task: TaskId::new(v),
        });
        self.bytes_moved += bytes;
        let tr = Transfer {
            from_task: u as u32,
            to_task: v as u32,
            bytes,
            from_gpu: gu,
            to_gpu: gv,
            start: now,
        };
        let i = match self.free_transfers.pop() {
            Some(i) => {
                self.transfers[i as usize] = tr;
                i
            }
            None => {
                self.transfers.push(tr);
                (self.transfers.len() - 1) as u32
            }
        };
        let (from, to) = (GpuId::new(gu as usize), GpuId::new(gv as usize));
        let delay = match self.cfg.contention {
            Contention::None => self.p.comm_time(bytes, from, to),
            // The latency phase: `L + 0 / B`.
            Contention::Fair => self.p.comm_time(0.0, from, to),
        };
        self.push(now + delay, Kind::TransferStep(i));
    }

    fn arrive(&mut self, i: u32) {
        let now = self.st.now;
        let tr = self.transfers[i as usize];
        self.free_transfers.push(i);
        self.log(Event::TransferFinished {
            time: now,
            from_task: TaskId::new(tr.from_task as usize),
            to_task: TaskId::new(tr.to_task as usize),
        });
        if self.cfg.contention == Contention::Fair {
            let free = self.p.comm_time(
                tr.bytes,
                GpuId::new(tr.from_gpu as usize),
                GpuId::new(tr.to_gpu as usize),
            );
            self.contention_delay += (now - tr.start - free).max(0.0);
        }
        self.input_arrived(tr.to_task as usize);
    }

    fn input_arrived(&mut self, v: usize) {
        let ts = &mut self.st.tasks[v];
        ts.inputs_left -= 1;
        if ts.inputs_left == 0 {
            let g = ts.gpu;
            self.mark(g);
        }
    }

    /// GPU `k` fails ([`go_down`](Self::go_down)); under random failures, errors when the
    /// task it loses has used up its [`MAX_ATTEMPTS`] (scripted outages end by themselves).
    fn fail(&mut self, k: usize) -> Result<()> {
        let running = self.st.gpus[k].running;
        self.go_down(k);
        if self.mtbf.is_some()
            && running != NONE
            && self.st.tasks[running as usize].attempts >= MAX_ATTEMPTS
        {
            return Err(SimError::TooManyLosses {
                task: self.p.task_label(TaskId::new(running as usize)),
                attempts: self.st.tasks[running as usize].attempts,
                time: self.st.now,
            });
        }
        Ok(())
    }

    fn go_down(&mut self, k: usize) {
        let now = self.st.now;
        let gs = &mut self.st.gpus[k];
        gs.down += 1;
        if gs.down > 1 {
            return;
        }
        let running = gs.running;
        gs.running = NONE;
        self.wake = true;
        self.log(Event::GpuDown {
            time: now,
            gpu: GpuId::new(k),
        });
        if running != NONE {
            // Drop the stale entry of its first dispatch before adding it again.
            self.compact_ready();
            let gang = self.gangs && !self.st.sets[running as usize].is_empty();
            let ts = &mut self.st.tasks[running as usize];
            ts.phase = Phase::Undispatched;
            ts.generation = ts.generation.wrapping_add(1);
            let mut lost = now - ts.start;
            if gang {
                // The whole gang is lost: its run time on every GPU of the set.
                lost *= self.st.sets[running as usize].len() as f64;
            }
            ts.lost_time += lost;
            ts.in_ready = true;
            self.lost_time += lost;
            let t = TaskId::new(running as usize);
            self.st.ready.push(t);
            self.st.newly_lost.push(t);
            self.log(Event::Lost {
                time: now,
                task: t,
                gpu: GpuId::new(k),
            });
            if gang {
                // The other GPUs of the set stop too (logged after the failed one's).
                let set = std::mem::take(&mut self.st.sets[running as usize]);
                for &l in set.iter().filter(|&&l| l.index() != k) {
                    self.st.gpus[l.index()].running = NONE;
                    self.mark(l.index() as u32);
                    self.log(Event::Lost {
                        time: now,
                        task: t,
                        gpu: l,
                    });
                }
                self.st.sets[running as usize] = set;
            }
        }
    }

    fn go_up(&mut self, k: usize) {
        let now = self.st.now;
        let gs = &mut self.st.gpus[k];
        gs.down -= 1;
        if gs.down == 0 {
            self.wake = true;
            self.log(Event::GpuUp {
                time: now,
                gpu: GpuId::new(k),
            });
            self.mark(k as u32);
        }
    }

    /// Removes the dispatched tasks from the ready list.
    fn compact_ready(&mut self) {
        if self.ready_dirty {
            let tasks = &self.st.tasks;
            self.st.ready.retain(|t| tasks[t.index()].in_ready);
            self.ready_dirty = false;
        }
    }

    fn decide(
        &mut self,
        policy: &mut dyn OnlinePolicy,
        out: &mut Vec<Dispatch>,
        first: bool,
    ) -> Result<()> {
        self.compact_ready();
        out.clear();
        let t0 = Instant::now();
        let r = policy.decide(
            &SimView {
                problem: self.p,
                state: &self.st,
            },
            out,
        );
        let elapsed = t0.elapsed().as_secs_f64();
        self.latencies.push(elapsed);
        r?;
        self.st.newly_released.clear();
        self.st.newly_lost.clear();
        if out.is_empty() {
            return Ok(());
        }
        if !first {
            self.replans += 1;
        }
        for d in out.iter() {
            self.check_dispatch(policy.name(), *d)?;
            if self.gangs && self.p.gpus(d.task) > 1 {
                self.choose_set(policy, *d)?;
            }
            if self.cfg.charge_decision_time {
                let ts = &mut self.st.tasks[d.task.index()];
                ts.phase = Phase::Pending;
                ts.gpu = d.gpu.index() as u32;
                if ts.in_ready {
                    ts.in_ready = false;
                    self.ready_dirty = true;
                }
            } else {
                self.enqueue(d.task, d.gpu);
            }
        }
        if self.cfg.charge_decision_time {
            let b = self.batches.len() as u32;
            self.batches.push(std::mem::take(out));
            self.push(self.st.now + elapsed, Kind::ApplyDispatch(b));
        }
        Ok(())
    }

    /// Records the GPU set of gang dispatch `d`: the policy's
    /// ([`OnlinePolicy::gang_set`]), else [`SimView::best_set`]'s around the lead, checked.
    fn choose_set(&mut self, policy: &dyn OnlinePolicy, d: Dispatch) -> Result<()> {
        let set = match policy.gang_set(d.task) {
            Some(set) => set,
            None => {
                let view = SimView {
                    problem: self.p,
                    state: &self.st,
                };
                match view.best_set(d.task, d.gpu) {
                    Some((set, _)) => set,
                    None => {
                        return Err(SimError::InvalidGpuSet {
                            policy: policy.name().to_string(),
                            task: self.p.task_label(d.task),
                            gpus: format!("[{}]", d.gpu),
                            reason: format!(
                                "fewer than {} up GPUs with its memory can join the lead",
                                self.p.gpus(d.task)
                            ),
                        });
                    }
                }
            }
        };
        self.check_set(policy.name(), d, &set)?;
        self.st.sets[d.task.index()] = set;
        Ok(())
    }

    /// Checks the GPU `set` of gang dispatch `d` ([`SimError::InvalidGpuSet`]).
    fn check_set(&self, policy: &str, d: Dispatch, set: &[GpuId]) -> Result<()> {
        let p = self.p;
        let g = p.gpus(d.task) as usize;
        let bad = |reason: String| SimError::InvalidGpuSet {
            policy: policy.to_string(),
            task: p.task_label(d.task),
            gpus: format!(
                "[{}]",
                set.iter()
                    .map(ToString::to_string)
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            reason,
        };
        if set.len() != g {
            return Err(bad(format!("{} GPUs given, the task needs {g}", set.len())));
        }
        if set[0] != d.gpu {
            return Err(bad(format!(
                "the set is not led by the dispatch's GPU {}",
                d.gpu
            )));
        }
        if let Some(k) = set.iter().find(|k| k.index() >= p.n_gpus()) {
            return Err(bad(format!(
                "GPU index {} is out of range (the cluster has {} GPUs)",
                k.index(),
                p.n_gpus()
            )));
        }
        if let Some(i) = (1..g).find(|&i| set[..i].contains(&set[i])) {
            return Err(bad(format!("GPU {} is repeated", set[i])));
        }
        if let Some(k) = set.iter().find(|&&k| !p.fits(d.task, k)) {
            return Err(bad(format!("{k} lacks the task's memory")));
        }
        if p.graph().task(d.task).gang.span == worl_dag::Span::Machine {
            let home = p.machine_of(set[0]);
            if let Some(k) = set.iter().find(|&&k| p.machine_of(k) != home) {
                return Err(bad(format!(
                    "span machine, but {k} is on another machine than {}",
                    set[0]
                )));
            }
        }
        Ok(())
    }

    fn check_dispatch(&self, policy: &str, d: Dispatch) -> Result<()> {
        let (n, m) = (self.p.n_tasks(), self.p.n_gpus());
        if d.task.index() >= n {
            return Err(SimError::UnknownTask {
                policy: policy.to_string(),
                index: d.task.index(),
                n_tasks: n,
            });
        }
        if d.gpu.index() >= m {
            return Err(SimError::UnknownGpu {
                policy: policy.to_string(),
                task: self.p.task_label(d.task),
                index: d.gpu.index(),
                n_gpus: m,
            });
        }
        let ts = &self.st.tasks[d.task.index()];
        if ts.phase != Phase::Undispatched {
            return Err(SimError::AlreadyDispatched {
                policy: policy.to_string(),
                task: self.p.task_label(d.task),
                gpu: d.gpu.to_string(),
                current: GpuId::new(ts.gpu as usize).to_string(),
                time: self.st.now,
            });
        }
        if !self.p.fits(d.task, d.gpu) {
            return Err(SimError::MemoryInfeasible {
                policy: policy.to_string(),
                task: self.p.task_label(d.task),
                gpu: d.gpu.to_string(),
            });
        }
        Ok(())
    }

    /// Appends `task` to `gpu`'s queue (a lost task to its retry queue) and starts the
    /// transfers of its finished parents.
    fn enqueue(&mut self, task: TaskId, gpu: GpuId) {
        if self.gangs && !self.st.sets[task.index()].is_empty() {
            self.enqueue_gang(task);
            return;
        }
        let (v, k) = (task.index(), gpu.index());
        let est = self.p.exec_time(task, gpu);
        let preds = self.p.graph().preds(task);
        let retry = self.mark_queued(v, k as u32, est, preds.len() as u32);
        self.st.gpus[k].push(task, est, retry);
        self.log(Event::Dispatched {
            time: self.st.now,
            task,
            gpu,
        });
        self.mark(k as u32);
        for nb in preds {
            if self.st.tasks[nb.task.index()].phase == Phase::Finished {
                self.start_transfer(nb.task.index(), v, nb.bytes);
            }
        }
    }

    /// Marks task `v` queued on GPU `lead` (its set's lead) with nominal run time `est`
    /// (s) and `inputs` inputs to wait for, out of the ready list; returns whether it is a
    /// retry (a lost task dispatched again).
    #[inline]
    fn mark_queued(&mut self, v: usize, lead: u32, est: f64, inputs: u32) -> bool {
        let ts = &mut self.st.tasks[v];
        ts.phase = Phase::Queued;
        ts.gpu = lead;
        ts.est = est;
        ts.inputs_left = inputs;
        if ts.in_ready {
            ts.in_ready = false;
            self.ready_dirty = true;
        }
        ts.attempts > 0
    }

    /// Appends gang `task` to the queue (a lost one to the retry queue) of every GPU of its
    /// set, lead first, and starts the transfers of its finished parents to each.
    fn enqueue_gang(&mut self, task: TaskId) {
        let v = task.index();
        let set = std::mem::take(&mut self.st.sets[v]);
        let est = self.p.exec_time_on(task, &set);
        let preds = self.p.graph().preds(task);
        let inputs = (preds.len() * set.len()) as u32;
        let retry = self.mark_queued(v, set[0].index() as u32, est, inputs);
        for &k in &set {
            self.st.gpus[k.index()].push(task, est, retry);
            self.log(Event::Dispatched {
                time: self.st.now,
                task,
                gpu: k,
            });
            self.mark(k.index() as u32);
        }
        self.st.sets[v] = set;
        for nb in preds {
            if self.st.tasks[nb.task.index()].phase == Phase::Finished {
                self.start_transfer(nb.task.index(), v, nb.bytes);
            }
        }
    }

    /// Starts gang `v` (the head of one GPU of its set) if it heads the queue of every GPU
    /// of its set, all are up, idle and past their ready times, its job is released, every
    /// input has arrived on every GPU, and the run meets no busy window of any of them
    /// (else it waits for the first start past them, as [`try_start`](Self::try_start)).
    fn try_start_gang(&mut self, v: usize) {
        let now = self.st.now;
        let h = TaskId::new(v);
        let set = std::mem::take(&mut self.st.sets[v]);
        let ok = set.iter().all(|&k| {
            let gs = &self.st.gpus[k.index()];
            gs.down == 0
                && gs.running == NONE
                && now >= self.st.ready_time[k.index()]
                && gs.head() == Some(h)
        });
        let ts = &self.st.tasks[v];
        if !ok || ts.inputs_left > 0 || !self.st.job_released[self.job_of[v] as usize] {
            self.st.sets[v] = set;
            return;
        }
        let est = ts.est;
        let dur = match (ts.drawn, &self.noise) {
            (Some(d), _) => d,
            (None, NoiseSampler::One) => est,
            (None, s) => est * s.draw(&mut self.rng),
        };
        if self.windows {
            // The first start at which no GPU of the set meets a window.
            let mut start = now;
            loop {
                let next = set.iter().fold(start, |t, &k| {
                    t.max(past_windows(self.p.busy(k), start, dur))
                });
                if next == start {
                    break;
                }
                start = next;
            }
            if start > now {
                self.st.tasks[v].drawn = Some(dur);
                let lead = set[0].index();
                if self.st.gpus[lead].window_wake != start {
                    self.st.gpus[lead].window_wake = start;
                    self.push(start, Kind::GpuReady(lead as u32));
                }
                self.st.sets[v] = set;
                return;
            }
        }
        self.st.tasks[v].drawn = None;
        for &k in &set {
            self.st.gpus[k.index()].start_head(h, v, est, now);
        }
        let generation = self.begin_attempt(v, now);
        for &k in &set {
            self.log(Event::Started {
                time: now,
                task: h,
                gpu: k,
            });
        }
        self.st.sets[v] = set;
        self.push(
            now + dur,
            Kind::TaskDone {
                task: v as u32,
                generation,
            },
        );
    }

    /// Marks task `v` running from `now` (s) as a new attempt and counts its job as
    /// started; returns the attempt's generation for its `TaskDone` event.
    #[inline]
    fn begin_attempt(&mut self, v: usize, now: f64) -> u32 {
        let ts = &mut self.st.tasks[v];
        ts.phase = Phase::Running;
        ts.attempts += 1;
        ts.generation = ts.generation.wrapping_add(1);
        ts.start = now;
        let generation = ts.generation;
        let j = self.job_of[v] as usize;
        self.job_first_start[j] = self.job_first_start[j].min(now);
        generation
    }

    fn try_start(&mut self, k: usize) {
        let now = self.st.now;
        let gs = &self.st.gpus[k];
        if gs.down > 0 || gs.running != NONE || now < self.st.ready_time[k] {
            return;
        }
        let Some(h) = gs.head() else {
            return;
        };
        let v = h.index();
        if self.gangs && !self.st.sets[v].is_empty() {
            self.try_start_gang(v);
            return;
        }
        let ts = &self.st.tasks[v];
        if ts.inputs_left > 0 || !self.st.job_released[self.job_of[v] as usize] {
            return;
        }
        let est = ts.est;
        let dur = if self.windows {
            // A duration drawn while the task waited for a window is kept.
            let dur = match (ts.drawn, &self.noise) {
                (Some(d), _) => d,
                (None, NoiseSampler::One) => est,
                (None, s) => est * s.draw(&mut self.rng),
            };
            let start = past_windows(self.p.busy(GpuId::new(k)), now, dur);
            if start > now {
                self.st.tasks[v].drawn = Some(dur);
                if self.st.gpus[k].window_wake != start {
                    self.st.gpus[k].window_wake = start;
                    self.push(start, Kind::GpuReady(k as u32));
                }
                return;
            }
            self.st.tasks[v].drawn = None;
            dur
        } else {
            match self.noise {
                NoiseSampler::One => est,
                ref s => est * s.draw(&mut self.rng),
            }
        };
        self.st.gpus[k].start_head(h, v, est, now);
        let generation = self.begin_attempt(v, now);
        self.log(Event::Started {
            time: now,
            task: h,
            gpu: GpuId::new(k),
        });
        self.push(
            now + dur,
            Kind::TaskDone {
                task: v as u32,
                generation,
            },
        );
    }

    fn check_stall(&mut self, policy: &str) -> Result<()> {
        if self.finished == self.p.n_tasks() || self.live > 0 {
            self.idle_rounds = 0;
            return Ok(());
        }
        // Only random failures and repairs are pending: a repair can still unblock a queue
        // on a failed GPU, or a policy waiting for a GPU to come back.
        let gpus = &self.st.gpus;
        let down_with_work = gpus.iter().any(|g| g.down > 0 && g.head().is_some());
        let any_down = gpus.iter().any(|g| g.down > 0);
        let has_ready = self
            .st
            .tasks
            .iter()
            .any(|t| t.phase == Phase::Undispatched && t.in_ready);
        self.idle_rounds += 1;
        if (down_with_work || (any_down && has_ready) || self.mtbf.is_some() && has_ready)
            && self.idle_rounds <= MAX_IDLE_ROUNDS
        {
            return Ok(());
        }
        Err(self.stalled(policy))
    }

    fn stalled(&self, policy: &str) -> SimError {
        let p = self.p;
        let tasks = &self.st.tasks;
        let unfinished = tasks.iter().filter(|t| t.phase != Phase::Finished).count();
        let ready = tasks
            .iter()
            .position(|t| t.phase == Phase::Undispatched && t.parents_left == 0);
        let blocked = self.st.gpus.iter().enumerate().find_map(|(k, g)| {
            g.head()
                .filter(|h| tasks[h.index()].inputs_left > 0)
                .map(|h| (k, h))
        });
        let (task, why) = if let Some(v) = ready {
            let t = TaskId::new(v);
            let why = if tasks[v].attempts > 0 {
                "lost and never dispatched again".to_string()
            } else if !self.st.job_released[self.job_of[v] as usize] {
                "its job is never released".to_string()
            } else {
                "ready but never dispatched".to_string()
            };
            (p.task_label(t), why)
        } else if let Some((k, h)) = blocked {
            (
                p.task_label(h),
                format!(
                    "head of the queue of g{k}, waiting for {} inputs from tasks queued behind it or never dispatched",
                    tasks[h.index()].inputs_left
                ),
            )
        } else {
            let v = tasks
                .iter()
                .position(|t| t.phase != Phase::Finished)
                .unwrap_or(0);
            (
                p.task_label(TaskId::new(v)),
                "waiting for its parents".to_string(),
            )
        };
        SimError::Stalled {
            policy: policy.to_string(),
            time: self.st.now,
            unfinished,
            task,
            why,
        }
    }

    fn result(self) -> SimResult {
        let p = self.p;
        let g = p.graph();
        let tasks: Vec<TaskRecord> = self
            .st
            .tasks
            .iter()
            .map(|t| TaskRecord {
                gpu: GpuId::new(t.gpu as usize),
                start: t.start,
                finish: t.finish,
                attempts: t.attempts,
                lost_time: t.lost_time,
            })
            .collect();
        // Ideal time per job: critical path with every task at its fastest GPU (a gang at
        // its compute share on its fastest GPUs), free communication.
        let mut path = vec![0.0f64; g.n_tasks()];
        let mut ideal = vec![0.0f64; p.workload().n_jobs()];
        for &v in g.topo_order() {
            let ready = g
                .preds(v)
                .iter()
                .map(|nb| path[nb.task.index()])
                .fold(0.0, f64::max);
            let fastest = if self.gangs && p.gpus(v) > 1 {
                // A gang's compute share on its fastest GPUs (its all-reduce is >= 0): a
                // lower bound of `exec_time_on` over every set.
                let t = g.task(v);
                p.min_exec_time(v) / (f64::from(t.gpus) * t.gang.efficiency)
            } else {
                p.min_exec_time(v)
            };
            path[v.index()] = ready + fastest;
            let j = self.job_of[v.index()] as usize;
            ideal[j] = ideal[j].max(path[v.index()]);
        }
        let jobs: Vec<JobRecord> = p
            .workload()
            .jobs()
            .iter()
            .enumerate()
            .map(|(j, job)| {
                let release = job.release;
                let (finish, first) = if job.tasks.is_empty() {
                    (release, release)
                } else {
                    (self.job_finish[j], self.job_first_start[j])
                };
                let jct = finish - release;
                JobRecord {
                    release,
                    finish,
                    jct,
                    slowdown: if ideal[j] > 0.0 { jct / ideal[j] } else { 1.0 },
                    wait: first - release,
                }
            })
            .collect();
        let makespan = tasks.iter().map(|t| t.finish).fold(0.0, f64::max);
        let mean = |xs: &mut dyn Iterator<Item = f64>, n: usize| {
            if n == 0 {
                0.0
            } else {
                xs.sum::<f64>() / n as f64
            }
        };
        let mut jcts: Vec<f64> = jobs.iter().map(|j| j.jct).collect();
        jcts.sort_by(f64::total_cmp);
        let busy: Vec<f64> = self.st.gpus.iter().map(|g| g.busy).collect();
        let total_busy: f64 = busy.iter().sum();
        let mean_busy = total_busy / busy.len().max(1) as f64;
        let max_busy = busy.iter().copied().fold(0.0, f64::max);
        let mut lat = self.latencies;
        lat.sort_by(f64::total_cmp);
        let metrics = SimMetrics {
            makespan,
            mean_jct: mean(&mut jobs.iter().map(|j| j.jct), jobs.len()),
            p50_jct: quantile(&jcts, 0.5),
            p99_jct: quantile(&jcts, 0.99),
            mean_slowdown: mean(&mut jobs.iter().map(|j| j.slowdown), jobs.len()),
            mean_wait: mean(&mut jobs.iter().map(|j| j.wait), jobs.len()),
            utilisation: if makespan > 0.0 {
                total_busy / (busy.len() as f64 * makespan)
            } else {
                0.0
            },
            load_imbalance: if mean_busy > 0.0 {
                max_busy / mean_busy
            } else {
                1.0
            },
            bytes_moved: self.bytes_moved,
            contention_delay: self.contention_delay,
            lost_time: self.lost_time,
            replans: self.replans as f64,
            decision_latency_p50: quantile(&lat, 0.5),
            decision_latency_p99: quantile(&lat, 0.99),
        };
        SimResult {
            tasks,
            jobs,
            events: self.log.unwrap_or_default(),
            metrics,
        }
    }
}
