//! # worl-sim: a discrete-event simulator of DAG workloads on GPU clusters
//!
//! Static schedulers plan with a deterministic cost model; this crate *executes* a
//! workload on a [`worl_cluster::Problem`] under the effects the cost model leaves out —
//! runtime noise, network contention, GPU failures and online job arrivals — driven by a
//! policy: a static plan replayed ([`policies::AsPlanned`]) or an online scheduler
//! ([`OnlinePolicy`]). With the feature `ddqn` (off by default; burn), the agents of the
//! deep-RL schedulers `dqn` and `mdts` also dispatch online (`policies::OnlineDrl`,
//! [`spec::PolicySpec`] `online:dqn[...]`/`online:mdts[...]`). It measures what
//! researchers report for such systems: makespan,
//! job completion time (JCT) and slowdown, utilisation, bytes moved, contention delay,
//! time lost to failures and decision latency ([`SimMetrics`]).
//!
//! ## Model
//!
//! * **Engine.** A deterministic discrete-event engine in the style of dslab-dag
//!   (discrete-event DAG execution): a binary-heap event queue ordered by time, ties
//!   broken by kind (a task finishing at `t` before a GPU failing at `t`, a failure before a
//!   repair), then by a sequence number (the order events were scheduled); every random draw comes
//!   from one ChaCha8 stream seeded by the caller, so a run is a function of the problem,
//!   the configuration, the policy and the seed.
//! * **Jobs** arrive at their release times ([`worl_dag::Job::release`]); no task of a job
//!   starts before it, and a policy does not see a job's tasks before it
//!   ([`SimView::ready_tasks`]). Online job arrivals and JCT as in Decima (Mao et al.,
//!   SIGCOMM 2019); [`arrivals`] turns a batch workload into one with arrivals.
//! * **GPUs** are busy until their ready time ([`Problem::ready_time`](worl_cluster::Problem::ready_time)). An attempt of task
//!   `v` on GPU `k` runs `exec(v, k) × f`, with one noise factor `f` per attempt
//!   ([`RuntimeNoise`]). A GPU runs nothing during its busy windows
//!   ([`Problem::busy`](worl_cluster::Problem::busy), issue 21): the queue head starts at the
//!   first time `S` its inputs and GPU are ready and `[S, S + actual run time)` meets no
//!   window (the run time is drawn when the head could first start and kept while it waits;
//!   a zero-length task may start on a window's edge). Policies see the windows through the
//!   problem; without windows the start rule is the window-free one, unchanged.
//! * **Dispatch.** A policy appends tasks to GPUs' FIFO queues ([`Dispatch`]); each GPU
//!   runs its queue in dispatch order; the head starts when the GPU is up and idle, its job
//!   is released and every input has arrived. A task may be dispatched before it is ready
//!   (a static plan dispatches everything at time 0); a lost task dispatched again goes
//!   before the normally dispatched tasks of its GPU. Policies are called at time 0 and
//!   after every batch of events at one time that includes an arrival, a task finish, a
//!   failure, a repair or a lost task (the round-based interface of Gavel, Narayanan et
//!   al., OSDI 2020, with the rounds at events).
//! * **Transfers.** The transfer of edge `(u, v)` starts when `u` has finished and `v` has a
//!   GPU, whichever is later; on the same GPU there is none. Without contention it takes
//!   `Problem::comm_time(d_uv, k, l) = L(a, b) + d_uv / B(a, b)`. With [`Contention::Fair`]
//!   it waits the latency `L(a, b)` and then is a *flow* over resources: the source
//!   machine's NIC out, the link of the ordered machine pair `(a, b)` (links are full
//!   duplex) and the destination machine's NIC in; inside one machine only the machine's
//!   own link `(a, a)`. A link's capacity is the model's bandwidth `B(a, b)`; a NIC's
//!   capacity is the largest bandwidth of its machine's links to other machines (so a flow
//!   alone on the network runs at `B(a, b)` and takes exactly the contention-free time).
//!   Concurrent flows share capacities max-min fairly, computed exactly at any number of
//!   flows by progressive filling (Bertsekas & Gallager, *Data Networks*, §6.5.2),
//!   recomputed when a flow starts or finishes. The flows of one machine pair cross the
//!   same resources and get equal rates, so the filling runs over per-pair classes weighted
//!   by their flow counts, each class advancing one "bytes delivered per flow" counter and
//!   keeping its flows' finish targets in a heap; a recomputation restarts the filling at
//!   the highest level below which the allocation provably stays as it was, over the
//!   classes it can reach. On 1,000 GPUs (`benches/simulate.rs`, 2 cores), a 3,000-task
//!   workload with 190,000 edges takes 3.4 s (305 s with the former flow-by-flow network)
//!   and the 100,000-task benchmark 6.6 s (7.4 s before the sorted initial shares and the
//!   lazy due heap, same results bit for bit; target 5 s not met; 2.8 s with the former
//!   approximate re-rating beyond 256 flows, whose makespan was 1.5% off). Transfers inside one GPU cost nothing.
//!   Parents' outputs persist (a failed GPU loses only the running attempt).
//! * **Gang tasks** (issue 21: a task needing `g > 1` GPUs at once,
//!   [`Problem::gpus`](worl_cluster::Problem::gpus)) are dispatched to a GPU set (lead
//!   first, [`OnlinePolicy::gang_set`] or [`SimView::best_set`]) and join the queue of every
//!   GPU of it; a gang starts when it heads every one of those queues, all are up, idle and
//!   past their ready times and windows, and every input has arrived on every GPU of the set
//!   (one transfer per edge and destination GPU, from the nearest GPU of the parent's set:
//!   the planners' `max_l min_k F_u + comm`); it runs `exec_time_on(v, S) × f` on all of
//!   them. Its all-reduce is part of that run time and does not load the links of the
//!   contention model. A failure of any GPU of a running gang loses the whole gang (lost
//!   time `g ×` elapsed). Without gang tasks none of this code runs.
//! * **Failures** ([`Failures`]): a task running on a GPU that fails is lost (its elapsed
//!   time counts as lost time), returns to the ready set and is dispatched again by the
//!   policy (its inputs are sent again); a failed GPU starts nothing until repaired.
//!
//! Without noise, contention, failures or releases, replaying a plan with
//! [`policies::AsPlanned`] gives bit for bit the start times and makespan of
//! [`worl_cluster::Evaluator`] with [`worl_cluster::Policy::Append`] on that plan: both
//! compute `S_v = max(DRT(v, k), r_k, F of the previous task on k)` with the same
//! floating-point operations.
//!
//! [`check_log`] independently checks a run's event log (no overlaps on a GPU, starts
//! after inputs and releases, no start on a failed GPU, every task finished once, a gang's
//! GPUs starting and finishing together with its inputs on each).
//!
//! ```
//! use std::sync::Arc;
//! use worl_cluster::{presets, GpuId, GpuModel, Plan, Problem};
//! use worl_dag::WorkloadBuilder;
//! use worl_sim::{policies::AsPlanned, SimConfig, Simulation};
//! let mut b = WorkloadBuilder::new("w");
//! let j = b.add_job("j")?;
//! let a = b.add_task(j, "a", 4.0, None)?;
//! let c = b.add_task(j, "c", 2.0, None)?;
//! b.add_edge(a, c, 0.0)?;
//! let p = Problem::new(Arc::new(b.build()?), Arc::new(presets::homogeneous(2, &GpuModel::v100_16gb())?))?;
//! let sim = Simulation::new(&p, SimConfig::default())?;
//! let mut policy = AsPlanned::from_plan(Plan::in_topo_order(p.graph(), vec![GpuId::new(0); 2]));
//! let r = sim.run(&mut policy, 7)?;
//! assert_eq!(r.metrics.makespan, 6.0);
//! assert_eq!(r.tasks[c.index()].start, 4.0);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
#![deny(missing_docs)]

pub mod arrivals;
mod check;
mod engine;
mod error;
mod failures;
mod metrics;
mod network;
mod noise;
pub mod policies;
mod policy;
mod result;
pub mod spec;
mod state;

pub use check::{LogViolation, check_log};
pub use engine::{MAX_ATTEMPTS, SimConfig, Simulation};
pub use error::{Result, SimError};
pub use failures::{
    DEFAULT_REPAIR_S, Failures, MAX_FAILURE_TIME_S, MAX_OUTAGES, MAX_SCRIPT_BYTES, Outage,
    OutageOrigin,
};
pub use metrics::SimMetrics;
pub use network::Contention;
pub use noise::RuntimeNoise;
pub use policy::{Dispatch, OnlinePolicy, SimView};
pub use result::{Event, JobRecord, SimResult, TaskRecord};
