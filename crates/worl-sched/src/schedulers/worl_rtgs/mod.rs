//! **WORL-RTGS** (N. Du et al., *Big Data and Cognitive Computing* 9(11):284, 2025):
//! RTGS ([`super::rtgs`]) whose plan generation is made by a Double DQN agent
//! ([`worl_ddqn`]) that learns online during the whale search and can be pre-trained,
//! saved and loaded. Two presets (below): `paper`, the method as published, and the
//! default, a whale search over plans whose agent chooses local moves.
//!
//! ## The method (the `paper` preset)
//! Each WOA iteration moves every whale `X` towards a target `T` and turns the move into a
//! hope per task (the running time the task's GPU should end with;
//! [`HopeRule`](super::rtgs::HopeRule)). RTGS then
//! builds the new plan greedily; WORL-RTGS builds it with the agent ([`DdqnDecoder`]):
//!
//! 1. Tasks are visited in upward-rank order and placed in a partial schedule as they go
//!    (the fitness places them the same way, so the decoder sees the real data-ready times).
//! 2. **Actions.** RTGS's window gives the GPUs whose running time after taking the task is
//!    within `ω` (default 4) mean execution times of the hope's nearest
//!    ([`GreedyDecoder`](super::rtgs::GreedyDecoder), at most 16 per GPU class); their
//!    earliest finish times are computed, and the `k` (default 4)
//!    of smallest EFT are the agent's actions. The number of GPUs never enters the network:
//!    the candidates are found through per-class ordered sets (`O(C log m)` per task), and
//!    one trained network serves 8 or 500 GPUs.
//! 3. **State** (4 numbers): the task's position in the order, its upward rank relative to
//!    the largest, the WOA coefficient `a/2` (exploration phase), and the number of
//!    candidates / `k`. **Action features** (8 numbers per candidate, times in units of the
//!    task's mean execution time, `sign(x)·ln(1+|x|)`): EFT − smallest EFT, running-time
//!    gap to the hope, execution time, idle time left on the GPU, wait for data, "is the
//!    target's GPU", "is the moving whale's GPU", EFT rank. The Q-network scores each
//!    (state, action) pair (action-in MLP, [`worl_ddqn::QNetwork`], hidden 16-16).
//! 4. **Policy.** ε-greedy; ε falls linearly from 0.2 to 0.02 over the run; the draws
//!    come from the whale's random stream. Until its first gradient step the agent's greedy
//!    action is the window's rule (smallest EFT), so a fresh agent starts as RTGS and
//!    learns where to deviate.
//! 5. **Rewards.** Per decision, for meeting the hope and not delaying the task:
//!    `r_t = −0.1·ΔEFT_feature − 0.05·gap_feature`; per plan, for the makespan improvement
//!    of the finished plan over the leader of the previous iteration:
//!    `R = clamp(10·(C_leader − C_plan)/C_leader, −1, 1)`, shared equally by the plan's
//!    recorded decisions.
//! 6. **Learning** (online, deterministic): about 16 decisions per plan are sampled (a
//!    1,000-task plan would otherwise flood the buffer with near-identical transitions) and
//!    chained into transitions (`s_t → s_{t+1}`, `done` at the plan's last recorded
//!    decision, γ = 0.9); after each iteration they enter the replay buffer in
//!    `(iteration, whale)` order, the agent takes 8 Double DQN steps (batch 64, Adam
//!    1e-3, Huber, gradient norm ≤ 10, hard target update every 100 steps), and the next
//!    iteration's decoders read the new weights. Same seed, same schedule, with or without
//!    parallel evaluation.
//!
//! **Gang tasks** (a task needing `g > 1` GPUs at once) are placed by both presets: the
//! paper preset's actions for a gang task are leads of its set, chosen and placed as in
//! RTGS's decoder ([`GreedyDecoder`](super::rtgs::GreedyDecoder), "Gang tasks"); the
//! default preset's local moves change a gang's lead, so the whole gang moves.
//!
//! ## Presets
//! * [`WorlPreset::Paper`] (`worl-rtgs:preset=paper`, or `worl-rtgs-paper`, the same
//!   configuration): the method above as published — random initial whales, elitist
//!   truncation, EFT window `ω = 4` (RTGS's default is 2).
//! * [`WorlPreset::Default`]: the same two cores, a whale search and a Double DQN, arranged
//!   so that a plan costs about one evaluation instead of ~100 (the paper's decoder runs
//!   the agent on every task of every plan). Whales are plans (GPU per task and placement
//!   order, [`LocalState`](crate::schedulers::local::LocalState)); each decision of the
//!   agent picks one of six local moves ([`Move`]) for a
//!   burst of `burst` tries on the whale's critical chain; a whale whose bursts stop paying
//!   makes its WOA move from the leader. The schedule returned is the best of the leader's,
//!   HEFT's and PEFT's, so never worse than either. Details: module `operators` below.
//!
//! ### The default preset's search
//! Per whale (4 by default; HEFT's plan, PEFT's plan and randomized-rank HEFT plans to start):
//!
//! 1. **Burst.** State (6 numbers): `a/2`, the whale's gap to the leader
//!    `ln(C_X / C_leader)`, its failed bursts in a row / 8, the share of the budget spent,
//!    its critical-chain length / n, its last reward. Actions: the six moves, each with 8
//!    features (one-hot code, and the move's success rate and mean relative gain so far,
//!    exponential averages). The agent's move is used for a share `focus` (0.5) of the
//!    burst's 16 tries, a uniformly drawn move for the others; each try moves a
//!    critical-chain task and is kept when the makespan does not grow (the local search of
//!    ILS). Until its first gradient step the agent's choice is uniform.
//! 2. **WOA move** after `patience` (64) bursts without improvement. With probability `a/4`
//!    the whale searches for prey from a random point of the space: a randomized-rank HEFT
//!    plan (ranks × `1 + 0.3·(2U − 1)`), so exploration is strongest early (`a = 2`: 1/2)
//!    and ends at `a = 0`. Otherwise it restarts from the leader `X*` perturbed towards a
//!    whale, `X(t+1) = X* − A·D` read discretely: each
//!    task where the other whale differs from the leader takes its GPU with probability
//!    `min(1, |A|/2)` — the whale itself when encircling (`p < 0.5`, `|A| < 1`), a random
//!    whale when searching (`|A| >= 1`); when spiralling (`p >= 0.5`) the leader's
//!    critical-chain tasks move to random GPUs with probability `(1 − |cos 2πl|)/2`; when
//!    nothing changed, `kick` (3) random tasks move. `a` falls from 2 to 0 over the budget.
//! 3. **Race** (`race=true`, the default). Each whale keeps its pace since its last WOA
//!    move: makespan gained ÷ share of the budget its turns took. After 8 bursts, a whale
//!    behind the leader by more than that pace can make up in its share of the budget left,
//!    `(1 − spent)/whales`, rests: it skips its turns until no whale at the leader's
//!    makespan has bursts that pay (all reached `patience`), then makes its WOA move. On
//!    small instances whales stall long before that test bites; on 10,000 tasks a try
//!    costs ~0.1 ms and a start plan 10 % behind HEFT's cannot catch up, and without the
//!    race the leader got 13 % of a 1 s run (measured on a DAGGEN DAG on the 8-GPU pool).
//! 4. **Learning.** Reward `clamp(100·(C_before − C_after)/C_before, −1, 1)` per burst;
//!    transitions (state, move, reward, next state) go to the replay buffer; after each
//!    round of whales the agent takes `train-steps` Double DQN steps while learning has used
//!    at most a fifth of the run: of its elapsed time under a CPU-time budget, else of its
//!    plan evaluations, a gradient step counted as 100 (so a run without a time budget is
//!    reproducible).
//!
//! ### Learned move scoring (`moves=scored`)
//! The agent's other role: instead of a move kind per burst, it chooses the concrete move
//! of a try. For a share `focus` of the tries, 8 candidates are drawn (a critical-chain
//! task and a GPU from one of the four reassignment rules each); each is described by 10
//! numbers — `squash(100·(L − C)/C)` where `L` is the longest path through the task after
//! the move (heads and tails, `O(degree)`; `L > C` means the move is worse), the log-ratio
//! of its execution times, the change in the share of its input and output bytes already
//! on the GPU, its start / `C`, the log-ratio of the two GPUs' task counts, and the rule's
//! one-hot code — and the candidate of largest Q-value is tried. Reward per try:
//! `clamp(100·(C_before − C_after)/C_before, 0, 1)`; transitions chain a whale's scored
//! tries (γ = 0.9). The `train_agent` example pre-trains the scorer offline (72 generated
//! problems: layered, DAGGEN and Alibaba-like DAGs of 100–1,000 tasks, four clusters,
//! CCR 0.5–5, seeds no evaluation uses; 400,000 plan evaluations each plus 200 gradient
//! steps; 94 s on one core, the same weights from the same seed) and
//! `agent=PATH,learn=false` runs it frozen.
//!
//! **Measured: it does not earn its place.** Trying a candidate is about as cheap as
//! scoring it (a rejected move of one task costs the same `O(degree)` bound the first
//! feature needs), so choosing one of 8 scored candidates costs about what trying all 8
//! would: a scored try must find improving moves about as often as 8 uniform tries to
//! pay, and it does not. At 1 s per run (`examples/equal_budget`), 3 seeds, with the
//! race, geometric mean of makespan / HEFT (hetero-500M / busy-16 / pai-50):
//!
//! | grid | `uniform` | default (`agent`) | `scored`, fresh | `scored`, pre-trained |
//! |---|---|---|---|---|
//! | 100 tasks (`--quick`) | 0.7580 / 0.9251 / 0.9614 | 0.7636 / 0.9256 / 0.9620 | 0.7831 / 0.9313 / 0.9697 | 0.7686 / 0.9295 / 0.9647 |
//! | 1,000 tasks (layered, DAGGEN) | 0.9343 / 0.9910 / 0.9954 | 0.9408 / 0.9888 / 0.9949 | 0.9524 / 0.9942 / 0.9962 | 0.9432 / 0.9935 / 0.9936 |
//! | 15 workloads, generated families | 0.8065 / 0.9467 / 0.9920 | 0.8110 / 0.9476 / 0.9921 | 0.8136 / 0.9510 / 0.9926 | 0.8125 / 0.9514 / 0.9918 |
//! | 15 workloads, held-apart families | 0.8026 / 0.9551 / 0.9523 | 0.8061 / 0.9552 / 0.9518 | 0.8104 / 0.9586 / 0.9557 | 0.8005 / 0.9545 / 0.9553 |
//!
//! The pre-trained scorer beats the fresh one on 11 of the 12 cells, and `uniform` on 4
//! (on the held-apart families on hetero-500M and busy-16); `uniform` beats it on 8.
//! Trying the candidate of smallest `L` instead (no network) was no better. The default
//! stays the operator agent; `moves=scored` is kept so that these figures can be
//! reproduced.
//!
//! The operator agent itself, pre-trained the same way (`train_agent --agent operator`) and
//! run frozen, does no better: at 1 s, 3 seeds, on the 15 workloads it is within 0.35 % of
//! `uniform` on every cluster and family, and on the held-apart families a bandit is ahead
//! of it on every cluster (docs/equal-budget.md). No checkpoint is shipped.
//!
//! ### What a move choice can gain
//! The hindsight oracle bounds any policy that settles on one move kind per instance (what a
//! bandit converges to, or a pre-trained agent picks from an instance's features): each arm
//! is the search with one move kind fixed (`moves=only:MOVE`), and on each instance the
//! oracle takes the arm of best 3-seed mean. At 1 s on the 15 workloads of the study it is
//! 0.09–0.66 % better than `uniform` (hetero-500M / busy-16 / pai-50, generated and
//! held-apart families), though choosing the minimum of six noisy means favours it by up to
//! ~0.8 %; at 0.1 s, up to 1.85 % (held-apart families on hetero-500M). The same oracle over
//! the whale allocation (1, 2, 4 or 8 whales, the race off) gives 0.05–0.79 %. Two runs of
//! `uniform` itself differ by up to 0.66 % from CPU-time budgets alone. So a learned choice
//! of move kind, or of whale, has less than 1 % to gain at 1 s, about the run-to-run noise.
//!
//! **Measured choices** (equal CPU time, 0.3 s per run, 4 workloads × 3 clusters × 2 seeds
//! of `examples/equal_budget.rs --quick`; geometric means of makespan / HEFT on the
//! 500 Mbit/s, busy and 50-GPU clusters, ILS: 0.806 / 0.955 / 0.982):
//! * whales always moving by WOA each iteration (the first design): 0.839 / 0.970 / 0.962;
//! * WOA move only after `patience` failed bursts: 0.821 / 0.963 / 0.971;
//! * **`patience` 64 instead of 4**, once incremental evaluation made a try about 10x
//!   cheaper (so 4 bursts became a tenth of the time they were): 1 s per run, 2 seeds,
//!   `--quick` (100-task instances; ILS 0.778 / 0.931 / 0.973): 4 → 0.782 / 0.932 / 0.966,
//!   16 → 0.766 / 0.930 / 0.964, 64 → 0.770 / 0.929 / 0.961; on layered 1,000-task DAGs
//!   (ILS 0.968 / 0.992 / 0.995): 4 → 0.972 / 1.000 / 0.997, 16 → 0.950 / 0.993 / 0.995,
//!   64 → 0.925 / 0.987 / 0.995;
//! * plus a kick after every WOA move: 0.866 / 0.974 / 0.988 (worse: the kick undoes the
//!   move towards the leader); kick only when the move changed nothing, WOA move from the
//!   leader: 0.822 / 0.960 / 0.976;
//! * the agent's move for half the burst (`focus = 0.5`, the default): 0.808 / 0.956 /
//!   0.974; for all of it (`focus = 1`): 0.822 / 0.960 / 0.976;
//! * **ablation** `moves=uniform` (no agent): 0.807 / 0.960 / 0.974 — within the
//!   seed-to-seed noise of the agent (about ±0.01 at this budget): at 0.3 s a run makes a
//!   few hundred decisions, too few for the online agent to learn more than the move
//!   statistics its features already carry;
//! * search for prey from randomized-rank HEFT plans with probability `a/4` (the default;
//!   grid with a fifth workload, Alibaba-like jobs; ILS 0.789 / 0.944 / 0.983): 0.787 /
//!   0.943 / 0.972, against 0.804 / 0.947 / 0.979 without it; `moves=uniform` with it:
//!   0.788 / 0.942 / 0.974. `docs/equal-budget.md` has the 1 s grid.
//!
//! ## Choices the paper leaves open, and why
//! * **Actions are window candidates, not all GPUs.** A per-GPU action set would tie the
//!   network to the cluster size (the issue asks for one agent for 8..500 GPUs) and cost
//!   `O(m)` per task; the window already holds the GPUs whose running time matches the
//!   hope, which is what RTGS's plan generation means.
//! * **The search corrections of RTGS apply** (canonical hope, window, upward-rank order,
//!   target look-ahead; measured in [`super::rtgs`]): with the authors' decoder the search
//!   stalls and no agent can recover the plans it never proposes.
//! * **Terminal reward relative to the leader**, not to the moving whale: with elitism
//!   most plans are worse than the leader, and the sign tells the agent whether a plan's
//!   deviations paid off.
//! * **Sampled decisions** and a few gradient steps per iteration keep the learning cost
//!   (about 0.8 s per 100 iterations on flex) below the search's.
//! * **Device.** Training runs on `WORL_DEVICE` when set (`wgpu`, `flex`, `auto`), else on
//!   flex (option `device`): the network is too small for a GPU to pay off (see
//!   [`AgentStart`]). Inference in the decoding loop runs on a
//!   [`PolicySnapshot`](worl_ddqn::PolicySnapshot) (plain Rust) either way.
//!
//! ## Pre-training
//! [`run_worl_rtgs`] takes an [`Agent`] and gives it back trained; the `train_agent`
//! example trains the move scorer (`moves=scored`) over a generated corpus and saves it
//! ([`worl_ddqn::save_checkpoint`]); `worl-rtgs:agent=PATH` starts every run from a saved
//! agent of the same preset and move choice (`learn=false` freezes it).
//!
//! ```
//! use std::sync::Arc;
//! use worl_cluster::{presets, Problem};
//! use worl_dag::generators::layered::{layered, LayeredParams};
//! use worl_sched::{Registry, RunContext};
//!
//! let w = Arc::new(layered(&LayeredParams::new(60), 1)?);
//! let p = Problem::new(w, Arc::new(presets::pai_mix(8, 1)?))?;
//! let mut worl = Registry::with_builtins()
//!     .build_spec("worl-rtgs:whales=8,iterations=10,device=flex")?;
//! let s = worl.schedule(&p, &mut RunContext::new(7))?;
//! assert!(s.validate(&p).is_empty());
//! let heft = Registry::with_builtins().build_spec("heft")?.schedule(&p, &mut RunContext::new(7))?;
//! assert!(s.makespan() <= heft.makespan());
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod decoder;
mod features;
mod move_scorer;
mod operators;

pub use decoder::{DdqnDecoder, DdqnScratch};
pub use features::{ACTION_DIM, STATE_DIM};
pub use move_scorer::MOVE_ACTION_DIM;
pub use operators::{MOVE_STATE_DIM, OPERATOR_ACTION_DIM, OPERATOR_STATE_DIM};

use serde::{Deserialize, Serialize};
use worl_cluster::{Problem, Schedule};
use worl_ddqn::{Agent, AgentConfig, ComputeDevice, EpsilonSchedule, TargetUpdate};

use crate::builtin::{Builtin, Family, boxed};
use crate::error::{Result, ScheduleError};
use crate::options::{OptionDoc, Options, PARALLEL, POLICY_APPEND};
use crate::scheduler::{RunContext, Scheduler};
use crate::schedulers::agents::{AGENT_OPTIONS, AgentStart, start_agent, take_agent_options};
use crate::schedulers::local::Move;
use crate::schedulers::rtgs::{RtgsConfig, RtgsOutcome, run_rtgs_from};
use crate::schedulers::search::PlainWoaConfig;
use crate::schedulers::search::options::{MAX_REPEATS, take_count};
use decoder::LearnSettings;
use worl_woa::Replacement;

/// The two set-ups of WORL-RTGS (see the [module docs](self)): the published one and ours.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum WorlPreset {
    /// Ours: the whale search over plans with agent-chosen local moves
    /// ([module docs](self), "The default preset"); never worse than HEFT or PEFT.
    #[default]
    Default,
    /// The published method: RTGS with the agent as plan decoder, random initial whales,
    /// elitist truncation.
    Paper,
}

serde_plain::derive_fromstr_from_deserialize!(WorlPreset);

/// Who chooses the move of a burst in the default preset (option `moves`; written as
/// `agent`, `uniform`, `epsilon-greedy`, `ucb`, `scored` or `only:MOVE` with `MOVE` a
/// [`Move`] in kebab case, e.g. `only:swap`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub enum MoveChoice {
    /// The Double DQN agent (uniform until its first gradient step).
    #[default]
    Agent,
    /// Uniform draws: the ablation without learning.
    Uniform,
    /// ε-greedy bandit (Sutton and Barto, *Reinforcement Learning*, 2nd ed., 2018, §2.2):
    /// each move once, then with probability 0.1 a uniform move, else the move of largest
    /// mean burst reward so far. No agent.
    EpsilonGreedy,
    /// UCB1 bandit (Auer, Cesa-Bianchi and Fischer, "Finite-time analysis of the
    /// multiarmed bandit problem", *Machine Learning* 47, 2002): each move once, then the
    /// move of largest `mean + sqrt(2 ln N / n_i)` over burst rewards in [0, 1]. No agent.
    Ucb,
    /// The Double DQN agent scores concrete candidate moves instead of choosing a move kind:
    /// a share `focus` of each burst's tries is the candidate of largest Q-value among 8
    /// moves of critical-chain tasks to GPUs drawn by the four reassignment rules, each
    /// described by `MOVE_ACTION_DIM` features (the longest path through the task after the
    /// move, its execution-time, data-locality and load changes, its start, its rule); the
    /// other tries and the burst's move kind are uniform. Pre-train it with the
    /// `train_agent` example and load it with `agent=PATH`. Measured not to beat `uniform`
    /// (module docs, "Learned move scoring").
    Scored,
    /// Always this move kind (for the share `focus` of the tries; the others uniform): the
    /// arms of the hindsight oracle of a per-instance move choice (module docs, "What a move
    /// choice can gain"). No agent.
    Only(Move),
}

impl MoveChoice {
    /// The names of the choices without a move (`only:MOVE` besides).
    const NAMES: [(&'static str, MoveChoice); 5] = [
        ("agent", MoveChoice::Agent),
        ("uniform", MoveChoice::Uniform),
        ("epsilon-greedy", MoveChoice::EpsilonGreedy),
        ("ucb", MoveChoice::Ucb),
        ("scored", MoveChoice::Scored),
    ];
}

impl std::fmt::Display for MoveChoice {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            MoveChoice::Only(m) => write!(f, "only:{m}"),
            c => {
                let (name, _) = Self::NAMES.iter().find(|(_, x)| x == c).expect("named");
                f.write_str(name)
            }
        }
    }
}

impl std::str::FromStr for MoveChoice {
    type Err = String;

    /// Parses `agent`, `uniform`, `epsilon-greedy`, `ucb`, `scored` or `only:MOVE`.
    ///
    /// Errors: a message naming the known choices, or the known moves after `only:`.
    fn from_str(s: &str) -> std::result::Result<Self, String> {
        if let Some(m) = s.strip_prefix("only:") {
            return m.parse::<Move>().map(MoveChoice::Only).map_err(|_| {
                let known: Vec<String> = Move::ALL.iter().map(ToString::to_string).collect();
                format!("unknown move `{m}`; known: {}", known.join(", "))
            });
        }
        Self::NAMES
            .iter()
            .find(|(name, _)| *name == s)
            .map(|&(_, c)| c)
            .ok_or_else(|| {
                format!(
                    "unknown move choice `{s}`; known: agent, uniform, epsilon-greedy, ucb, \
                     scored, only:MOVE"
                )
            })
    }
}

impl TryFrom<String> for MoveChoice {
    type Error = String;
    fn try_from(s: String) -> std::result::Result<Self, String> {
        s.parse()
    }
}

impl From<MoveChoice> for String {
    fn from(c: MoveChoice) -> String {
        c.to_string()
    }
}

serde_plain::derive_display_from_serialize!(WorlPreset);

/// Configuration of [`WorlRtgs`]. Defaults are those of the [module docs](self).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct WorlRtgsConfig {
    /// Initial whales and final choice (option `preset`: `default` or `paper`).
    pub preset: WorlPreset,
    /// The whale search (RTGS's options: `whales`, `iterations`, `b`, `a-schedule`, `hope`,
    /// `lookahead`, `window` (must be > 0), `order`, `policy`, `seed-with-heft`,
    /// `parallel`).
    pub rtgs: RtgsConfig,
    /// The agent of a fresh run (sizes [`STATE_DIM`], [`ACTION_DIM`]; its `seed` is mixed
    /// with the run's; its ε schedule is not used: see [`epsilon_start`](Self::epsilon_start)).
    /// Options `hidden` (e.g. `16-16`), `gamma`, `learning-rate`, `batch`, `td` (`double`,
    /// the default, or `vanilla`: the DQN target, an ablation).
    pub agent: AgentConfig,
    /// Actions per decision, `k` (option `candidates`, 2..=32; default 4; paper preset).
    pub candidates: usize,
    /// Moves tried per agent decision (option `burst`, at least 1; default 16; default
    /// preset).
    pub burst: usize,
    /// Bursts without improvement after which a whale makes its WOA move (option
    /// `patience`, at least 1; default 64; default preset).
    pub patience: usize,
    /// Share of a burst's tries that use the agent's move; the others draw a move uniformly
    /// (option `focus`, in [0, 1]; default 0.5; default preset).
    pub focus: f64,
    /// Tasks moved to random GPUs when a whale's WOA move changes nothing (option `kick`,
    /// at least 1; default 3; default preset).
    pub kick: usize,
    /// Whether a whale that cannot catch the leader at its pace in its share of the budget
    /// left rests until the leader's bursts stop paying (option `race`, `true` or `false`;
    /// default `true`; default preset). See the module docs, "The default preset's search".
    pub race: bool,
    /// Who chooses a burst's move (option `moves`: `agent`, the default; `uniform`, the
    /// ablation without learning; `epsilon-greedy` or `ucb`, bandit baselines; default
    /// preset). Only `agent` trains the network.
    pub moves: MoveChoice,
    /// Decisions sampled per plan for the replay buffer (option `recorded-steps`, at least
    /// 1; default 16). Learning is switched off by `learn=false`, not by a zero count.
    pub recorded_steps: usize,
    /// Gradient steps after each iteration (option `train-steps`, at least 1; default 8).
    pub train_steps: usize,
    /// ε at the start of the run (option `epsilon-start`, in [0, 1]; default 0.2):
    /// iteration `t` of `I` decodes with `ε = start + (end − start)·t/I`.
    pub epsilon_start: f64,
    /// ε of the last iteration (option `epsilon-end`, in [0, 1]; default 0.02).
    pub epsilon_end: f64,
    /// Weight of the hope term of the local reward (option `hope-weight`; default 0.05).
    pub hope_weight: f32,
    /// Weight of the EFT term of the local reward (option `eft-weight`; default 0.1).
    pub eft_weight: f32,
    /// Weight of the terminal (makespan) reward (option `terminal-weight`; default 1).
    pub terminal_weight: f32,
    /// The agent's start, learning and device (options `agent`, `learn`, `device`).
    #[serde(flatten)]
    pub start: AgentStart,
}

impl Default for WorlRtgsConfig {
    fn default() -> Self {
        WorlRtgsConfig {
            preset: WorlPreset::Default,
            rtgs: RtgsConfig {
                whales: 4,
                iterations: 300,
                window: 4.0,
                replacement: Replacement::Canonical,
                ..RtgsConfig::default()
            },
            agent: AgentConfig {
                hidden: vec![16, 16],
                gamma: 0.9,
                learning_rate: 1e-3,
                batch_size: 64,
                replay_capacity: 20_000,
                learning_starts: 256,
                target_update: TargetUpdate::Hard { every: 100 },
                ..AgentConfig::new(STATE_DIM, ACTION_DIM)
            },
            candidates: 4,
            burst: 16,
            patience: 64,
            focus: 0.5,
            kick: 3,
            race: true,
            moves: MoveChoice::Agent,
            recorded_steps: 16,
            train_steps: 8,
            epsilon_start: 0.2,
            epsilon_end: 0.02,
            hope_weight: 0.05,
            eft_weight: 0.1,
            terminal_weight: 1.0,
            start: AgentStart::default(),
        }
    }
}

impl WorlRtgsConfig {
    /// The `paper` preset with the other defaults.
    pub fn paper() -> Self {
        let d = WorlRtgsConfig::default();
        WorlRtgsConfig {
            preset: WorlPreset::Paper,
            rtgs: RtgsConfig {
                replacement: Replacement::ElitistTruncation,
                window: 4.0,
                ..RtgsConfig::default()
            },
            ..d
        }
    }

    /// The `preset` option (not read by `worl-rtgs-paper`).
    pub const PRESET_OPTIONS: [OptionDoc; 1] = [OptionDoc::new(
        "preset",
        "default|paper",
        "default",
        "the redesigned whale search with agent-chosen moves, or the published method (the agent as RTGS's plan decoder)",
    )];

    /// WORL-RTGS's own options besides `preset`, RTGS's and the agent's.
    pub const WORL_OPTIONS: [OptionDoc; 14] = [
        OptionDoc::new(
            "candidates",
            "2..=32",
            "4",
            "paper preset: actions per decision k",
        ),
        OptionDoc::new(
            "burst",
            "1..=1000000",
            "16",
            "default preset: tries per decision",
        ),
        OptionDoc::new(
            "patience",
            "1..=1000000",
            "64",
            "default preset: failed bursts before a WOA move",
        ),
        OptionDoc::new(
            "focus",
            "[0, 1]",
            "0.5",
            "default preset: share of tries using the chosen move (or, with moves=scored, the scored candidate)",
        ),
        OptionDoc::new(
            "kick",
            "1..=1000000",
            "3",
            "default preset: tasks a kick moves",
        ),
        OptionDoc::new(
            "race",
            "true|false",
            "true",
            "default preset: a whale that cannot catch the leader at its pace in its share of the time left rests until the leader stalls",
        ),
        OptionDoc::new(
            "moves",
            "agent|scored|uniform|epsilon-greedy|ucb|only:MOVE",
            "agent",
            "default preset: who chooses each burst's move kind: the agent, the agent scoring 8 concrete moves per try, uniform (no learning), the ε-greedy / UCB1 bandits, or always MOVE (predecessor-gpu, successor-gpu, random-gpu, fast-gpu, swap, advance); only agent and scored train the network",
        ),
        OptionDoc::new(
            "recorded-steps",
            "1..=1000000",
            "16",
            "paper preset: decisions sampled per plan for the replay buffer",
        ),
        OptionDoc::new(
            "train-steps",
            "1..=1000000",
            "8",
            "gradient steps after each iteration; the default preset's learning takes at most a fifth of the run",
        ),
        OptionDoc::new(
            "epsilon-start",
            "[0, 1]",
            "0.2",
            "paper preset: ε of the first iteration",
        ),
        OptionDoc::new(
            "epsilon-end",
            "[0, 1]",
            "0.02",
            "paper preset: ε of the last iteration",
        ),
        OptionDoc::new(
            "hope-weight",
            "finite, >= 0",
            "0.05",
            "paper preset: reward weight of the hope gap",
        ),
        OptionDoc::new(
            "eft-weight",
            "finite, >= 0",
            "0.1",
            "paper preset: reward weight of the EFT",
        ),
        OptionDoc::new(
            "terminal-weight",
            "finite, >= 0",
            "1",
            "paper preset: reward weight of the final makespan",
        ),
    ];

    /// Every option `worl-rtgs` reads (RTGS's with 4 whales, 300 iterations, window 4 and
    /// canonical replacement).
    pub const OPTIONS: &'static [&'static [OptionDoc]] = &[
        &Self::PRESET_OPTIONS,
        &Self::WORL_OPTIONS,
        &OptionDoc::with_defaults(
            PlainWoaConfig::WHALE_OPTIONS,
            &[("whales", "4"), ("iterations", "300")],
        ),
        &OptionDoc::with_defaults(
            RtgsConfig::SEARCH_OPTIONS,
            &[("window", "4"), ("replacement", "canonical")],
        ),
        &POLICY_APPEND,
        &PARALLEL,
        &AGENT_OPTIONS,
        &AgentStart::OPTIONS,
    ];

    /// Every option `worl-rtgs-paper` reads (RTGS's with window 4).
    pub const PAPER_OPTIONS: &'static [&'static [OptionDoc]] = &[
        &Self::WORL_OPTIONS,
        &PlainWoaConfig::WHALE_OPTIONS,
        &OptionDoc::with_defaults(RtgsConfig::SEARCH_OPTIONS, &[("window", "4")]),
        &POLICY_APPEND,
        &PARALLEL,
        &AGENT_OPTIONS,
        &AgentStart::OPTIONS,
    ];

    /// Reads `preset`, then the options of [`over_preset`](Self::over_preset).
    ///
    /// Errors: [`ScheduleError::InvalidOption`], [`ScheduleError::UnknownOption`].
    pub fn from_options(mut opts: Options) -> Result<Self> {
        let preset = opts.take_or("preset", WorlPreset::Default)?;
        Self::over_preset(preset, opts)
    }

    /// Reads the options listed on the fields except `preset` (absent ones keep the
    /// `preset`'s default) and rejects any other.
    ///
    /// Errors: [`ScheduleError::InvalidOption`], [`ScheduleError::UnknownOption`].
    pub fn over_preset(preset: WorlPreset, mut opts: Options) -> Result<Self> {
        let d = match preset {
            WorlPreset::Default => WorlRtgsConfig::default(),
            WorlPreset::Paper => WorlRtgsConfig::paper(),
        };
        let candidates: usize = opts.take_or("candidates", d.candidates)?;
        if !(2..=32).contains(&candidates) {
            return Err(opts.invalid("candidates", candidates, "must be in 2..=32"));
        }
        let mut unit = |key: &str, default: f64| -> Result<f64> {
            let v: f64 = opts.take_or(key, default)?;
            if !(0.0..=1.0).contains(&v) {
                return Err(opts.invalid(key, v, "must be in [0, 1]"));
            }
            Ok(v)
        };
        let epsilon_start = unit("epsilon-start", d.epsilon_start)?;
        let epsilon_end = unit("epsilon-end", d.epsilon_end)?;
        let mut weight = |key: &str, default: f32| -> Result<f32> {
            let v: f32 = opts.take_or(key, default)?;
            if !(v.is_finite() && v >= 0.0) {
                return Err(opts.invalid(key, v, "must be a finite number >= 0"));
            }
            Ok(v)
        };
        let hope_weight = weight("hope-weight", d.hope_weight)?;
        let eft_weight = weight("eft-weight", d.eft_weight)?;
        let terminal_weight = weight("terminal-weight", d.terminal_weight)?;
        let agent = take_agent_options(&mut opts, &d.agent)?;
        let config = WorlRtgsConfig {
            preset,
            candidates,
            burst: take_count(&mut opts, "burst", d.burst, 1, MAX_REPEATS)?,
            patience: take_count(&mut opts, "patience", d.patience, 1, MAX_REPEATS)?,
            focus: crate::schedulers::search::options::take_in_range(
                &mut opts, "focus", d.focus, 0.0, 1.0,
            )?,
            kick: take_count(&mut opts, "kick", d.kick, 1, MAX_REPEATS)?,
            race: opts.take_or("race", d.race)?,
            moves: opts.take_or("moves", d.moves)?,
            recorded_steps: take_count(
                &mut opts,
                "recorded-steps",
                d.recorded_steps,
                1,
                MAX_REPEATS,
            )?,
            train_steps: take_count(&mut opts, "train-steps", d.train_steps, 1, MAX_REPEATS)?,
            epsilon_start,
            epsilon_end,
            hope_weight,
            eft_weight,
            terminal_weight,
            start: AgentStart::take(&mut opts, &d.start)?,
            agent,
            rtgs: RtgsConfig::default(),
        };
        let rtgs = RtgsConfig::from_options_over(d.rtgs, opts)?;
        check_window(rtgs.window)?;
        Ok(WorlRtgsConfig { rtgs, ..config })
    }

    fn settings(&self) -> LearnSettings {
        LearnSettings {
            candidates: self.candidates.max(1),
            recorded_steps: self.recorded_steps,
            train_steps: self.train_steps,
            epsilon_start: self.epsilon_start,
            epsilon_end: self.epsilon_end,
            iterations: self.rtgs.iterations,
            hope_weight: self.hope_weight,
            eft_weight: self.eft_weight,
            terminal_weight: self.terminal_weight,
            learn: self.start.learn,
        }
    }

    /// [`agent`](Self::agent) with the feature sizes of the preset's agent, whatever it
    /// says: [`STATE_DIM`] and [`ACTION_DIM`] for the paper's plan decoder,
    /// [`OPERATOR_STATE_DIM`] and [`OPERATOR_ACTION_DIM`] (and ε from 0.3 to 0.05 over
    /// 1,000 decisions) for the default preset's move choice; [`MOVE_STATE_DIM`] and
    /// [`MOVE_ACTION_DIM`] (ε from 0.3 to 0.05 over 20,000 tries) with `moves=scored`.
    pub fn agent_config(&self) -> AgentConfig {
        match self.preset {
            WorlPreset::Paper => AgentConfig {
                state_dim: STATE_DIM,
                action_dim: ACTION_DIM,
                ..self.agent.clone()
            },
            WorlPreset::Default if self.moves == MoveChoice::Scored => AgentConfig {
                state_dim: MOVE_STATE_DIM,
                action_dim: MOVE_ACTION_DIM,
                epsilon: EpsilonSchedule::Linear {
                    start: 0.3,
                    end: 0.05,
                    decay_steps: 20_000,
                },
                ..self.agent.clone()
            },
            WorlPreset::Default => AgentConfig {
                state_dim: OPERATOR_STATE_DIM,
                action_dim: OPERATOR_ACTION_DIM,
                epsilon: EpsilonSchedule::Linear {
                    start: 0.3,
                    end: 0.05,
                    decay_steps: 1_000,
                },
                ..self.agent.clone()
            },
        }
    }

    /// A fresh agent for a run seeded with `seed` on `device`.
    ///
    /// Errors: [`ScheduleError::Ddqn`] for an invalid agent configuration.
    pub fn fresh_agent(&self, seed: u64, device: &ComputeDevice) -> Result<Agent> {
        start_agent(&self.agent_config(), None, seed, device)
    }
}

/// WORL-RTGS chooses among the window's GPUs: `ω` must be > 0.
fn check_window(window: f64) -> Result<()> {
    if window > 0.0 {
        return Ok(());
    }
    Err(ScheduleError::InvalidOption {
        scheduler: WorlRtgs::NAME.into(),
        key: "window".into(),
        value: window.to_string(),
        reason: "WORL-RTGS chooses among the window's GPUs: it needs a window > 0".into(),
    })
}

/// The outcome of [`run_worl_rtgs`]: the RTGS outcome of the paper preset (schedule of the
/// leader and the WOA run), the schedule returned (for the default preset the best of the
/// leader and HEFT's and PEFT's schedules), and the agent after the run.
pub struct WorlOutcome {
    /// The paper preset's whale search (`None` for the default preset).
    pub search: Option<RtgsOutcome>,
    /// The default preset's agent decisions per move, in [`Move::ALL`](crate::schedulers::local::Move::ALL)
    /// order (zeros for the paper preset).
    pub moves_chosen: [u64; 6],
    /// The schedule WORL-RTGS returns.
    pub schedule: Schedule,
    /// The agent, trained on this run when learning is on.
    pub agent: Agent,
}

/// Runs WORL-RTGS on `problem` starting from `agent` (fresh or pre-trained; sizes
/// [`STATE_DIM`], [`ACTION_DIM`]). Seeded by [`RunContext::seed`]; honours its budgets.
///
/// Errors: [`ScheduleError::InvalidOption`] for a window `<= 0`;
/// [`ScheduleError::Ddqn`] for an agent of other sizes or a training failure; as
/// [`run_rtgs_from`].
pub fn run_worl_rtgs(
    problem: &Problem,
    config: &WorlRtgsConfig,
    agent: Agent,
    ctx: &mut RunContext<'_>,
) -> Result<WorlOutcome> {
    check_window(config.rtgs.window)?;
    if config.preset == WorlPreset::Default {
        let mut agent = agent;
        let settings = operators::OperatorSettings {
            whales: config.rtgs.whales,
            iterations: config.rtgs.iterations,
            burst: config.burst,
            patience: config.patience,
            choice: config.moves,
            focus: config.focus,
            kick: config.kick,
            race: config.race,
            train_steps: config.train_steps,
            learn: config.start.learn,
            policy: config.rtgs.policy,
        };
        let out = operators::run_operator_search(problem, &settings, &mut agent, ctx)?;
        return Ok(WorlOutcome {
            search: None,
            moves_chosen: out.chosen,
            schedule: out.schedule,
            agent,
        });
    }
    let initial = Vec::new();
    let decoder = DdqnDecoder::new(
        config.rtgs.greedy_decoder(problem),
        agent,
        config.settings(),
    )?;
    let search = run_rtgs_from(problem, &decoder, &config.rtgs, initial, ctx);
    let (agent, error) = decoder.into_agent();
    let search = search?;
    if let Some(e) = error {
        return Err(e.into());
    }
    let schedule = search.schedule.clone();
    Ok(WorlOutcome {
        search: Some(search),
        moves_chosen: [0; 6],
        schedule,
        agent,
    })
}

/// The WORL-RTGS scheduler (see the [module docs](self)). Registered as `worl-rtgs`;
/// options: [`WorlRtgsConfig::from_options`], e.g. `worl-rtgs:preset=paper`,
/// `worl-rtgs:agent=target/worl/agent.bpk,learn=false`.
///
/// Each [`schedule`](Scheduler::schedule) starts from a fresh agent seeded by the run's
/// seed, or from the configured checkpoint; the agent after the last run is kept
/// ([`last_agent`](Self::last_agent)) for saving.
#[derive(Default)]
pub struct WorlRtgs {
    config: WorlRtgsConfig,
    device: Option<ComputeDevice>,
    last_agent: Option<Agent>,
}

impl WorlRtgs {
    /// The registry name.
    pub const NAME: &'static str = "worl-rtgs";
    /// The registry name of the `paper` preset.
    pub const NAME_PAPER: &'static str = "worl-rtgs-paper";

    /// WORL-RTGS with `config`.
    pub fn new(config: WorlRtgsConfig) -> Self {
        WorlRtgs {
            config,
            device: None,
            last_agent: None,
        }
    }

    /// WORL-RTGS from registry options (see [`WorlRtgsConfig::from_options`]).
    ///
    /// Errors: as [`WorlRtgsConfig::from_options`].
    pub fn from_options(opts: Options) -> Result<Self> {
        Ok(WorlRtgs::new(WorlRtgsConfig::from_options(opts)?))
    }

    /// WORL-RTGS with the [`WorlPreset::Paper`] preset from registry options (the registry
    /// entry `worl-rtgs-paper`); `preset` is not one of its options.
    ///
    /// Errors: as [`WorlRtgsConfig::over_preset`].
    pub fn paper_from_options(opts: Options) -> Result<Self> {
        Ok(WorlRtgs::new(WorlRtgsConfig::over_preset(
            WorlPreset::Paper,
            opts,
        )?))
    }

    /// The registration of `worl-rtgs`: name, description, family, declared options.
    pub const BUILTIN: Builtin = Builtin {
        name: Self::NAME,
        description: "WORL-RTGS (Du et al. 2025), redesigned: a whale search over plans whose local moves a Double DQN agent chooses, learning online; initial whales include HEFT and PEFT",
        family: Family::WorlRtgs,
        quick: "whales=4,iterations=3",
        options: WorlRtgsConfig::OPTIONS,
        build: |o| boxed(Self::from_options(o)),
    };

    /// The registration of `worl-rtgs-paper`.
    pub const BUILTIN_PAPER: Builtin = Builtin {
        name: Self::NAME_PAPER,
        description: "WORL-RTGS as published (Du et al. 2025): RTGS whose plan generation is a Double DQN agent learning online, random initial whales",
        family: Family::WorlRtgs,
        quick: "whales=4,iterations=3",
        options: WorlRtgsConfig::PAPER_OPTIONS,
        build: |o| boxed(Self::paper_from_options(o)),
    };

    /// The configuration.
    pub fn config(&self) -> &WorlRtgsConfig {
        &self.config
    }

    /// The agent after the last [`schedule`](Scheduler::schedule) call, if any.
    pub fn last_agent(&self) -> Option<&Agent> {
        self.last_agent.as_ref()
    }

    /// The agent's device, selected on first use (once per process and choice: probing
    /// for a GPU adapter costs tens of milliseconds and may log).
    ///
    /// Errors: [`ScheduleError::Ddqn`] when the requested device is unavailable.
    pub fn device(&mut self) -> Result<&ComputeDevice> {
        if self.device.is_none() {
            self.device = Some(self.config.start.device()?);
        }
        Ok(self.device.as_ref().expect("selected above"))
    }
}

impl std::fmt::Debug for WorlRtgs {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("WorlRtgs")
            .field("config", &self.config)
            .finish_non_exhaustive()
    }
}

impl Scheduler for WorlRtgs {
    fn name(&self) -> &str {
        match self.config.preset {
            WorlPreset::Default => "WORL-RTGS",
            WorlPreset::Paper => "WORL-RTGS (paper)",
        }
    }

    fn schedule(&mut self, problem: &Problem, ctx: &mut RunContext<'_>) -> Result<Schedule> {
        ctx.check_budget(self.name(), self.config.rtgs.whales)?;
        let device = self.device()?.clone();
        let agent = self
            .config
            .start
            .agent(&self.config.agent_config(), ctx.seed(), &device)?;
        let outcome = run_worl_rtgs(problem, &self.config, agent, ctx)?;
        self.last_agent = Some(outcome.agent);
        Ok(outcome.schedule)
    }

    fn is_stochastic(&self) -> bool {
        true
    }

    /// Gang tasks, both presets: the paper preset's decoder chooses a gang task's lead
    /// among the GPUs that can lead it and places the gang on the set around it (RTGS's
    /// [`GreedyDecoder`](super::rtgs::GreedyDecoder), "Gang tasks"); the default preset's
    /// local moves change a gang's lead, so the whole gang moves
    /// ([`LocalState`](crate::schedulers::local::LocalState)), and its HEFT and PEFT seeds
    /// place gangs. Either way the schedule is the
    /// [`Evaluator`](worl_cluster::Evaluator)'s decoding of the returned plan.
    fn supports_gangs(&self) -> bool {
        true
    }
}
