//! [`PolicySpec`]: a policy named in a string (`plan:heft`, `replan:ils`, `eft`, ...), as
//! `worl simulate --policy` and Python's `worl.simulate(policies=...)` take it.

use crate::error::{Result, SimError};
use crate::policies::{AsPlanned, LeastConnection, OnlineEft, Replan, RoundRobin};
use crate::policy::OnlinePolicy;
use std::fmt;
use std::str::FromStr;
use worl_cluster::{Problem, Schedule};
use worl_sched::registry::split_spec_list;
use worl_sched::{Budget, Registry, RunContext};

/// The policies a study runs when none are named (`worl simulate`, Python's
/// `worl.simulate`): static plans of HEFT and ILS, HEFT re-planning, and the three online
/// rules.
pub const DEFAULT_POLICIES: &str =
    "plan:heft,plan:ils,replan:heft,eft,least-connection,round-robin";

/// A simulation policy by name.
///
/// | spec | policy |
/// |---|---|
/// | `plan:SCHEDULER` | the static plan of a registered scheduler (`plan:heft`, `plan:ils[restarts=4]`), made once before the run with every job present at time 0, replayed with [`AsPlanned`] |
/// | `replan:SCHEDULER` | [`Replan`]: the scheduler re-run on the not-yet-started tasks at each arrival or failure |
/// | `online:dqn[...]`, `online:mdts[...]` | `OnlineDrl` (feature `ddqn`): the deep-RL scheduler's agent, trained (or loaded, `agent=PATH,learn=false`) by one batch run of the scheduler on the problem, dispatching ready tasks online with its greedy action, frozen; MDTS places a job's ready child tasks jointly |
/// | `eft` (or `online-eft`) | [`OnlineEft`]: HEFT's rule over the ready tasks of arrived jobs |
/// | `least-connection` | [`LeastConnection`] |
/// | `round-robin` | [`RoundRobin`] |
///
/// `SCHEDULER` is a registry spec (see `worl schedulers`); names are case-insensitive.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PolicySpec {
    /// Replay a static scheduler's plan.
    Plan(String),
    /// Re-plan with a static scheduler at each arrival or failure.
    Replan(String),
    /// Online dispatch by the agent of a deep-RL scheduler (`dqn[...]` or `mdts[...]`), trained
    /// by one batch run of it (needs the `ddqn` feature).
    Online(String),
    /// Online earliest finish time.
    OnlineEft,
    /// Least connection.
    LeastConnection,
    /// Round robin.
    RoundRobin,
}

/// A policy built from a [`PolicySpec`] for one problem and seed: the policy, and for
/// `plan:` the static schedule it replays (to compare planned with realised times).
pub struct BuiltPolicy {
    /// The policy, ready for [`Simulation::run`](crate::Simulation::run).
    pub policy: Box<dyn OnlinePolicy>,
    /// The planned schedule (for `plan:` specs).
    pub planned: Option<Schedule>,
    /// Whether the policy's decisions depend on the seed (a stochastic scheduler's plan).
    pub stochastic: bool,
}

impl fmt::Debug for BuiltPolicy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("BuiltPolicy")
            .field("policy", &self.policy.name())
            .field("planned", &self.planned.as_ref().map(Schedule::makespan))
            .field("stochastic", &self.stochastic)
            .finish()
    }
}

impl PolicySpec {
    /// Parses a comma- or semicolon-separated list (`plan:heft,replan:ils[restarts=2],eft`):
    /// commas inside `[...]` belong to a scheduler's options.
    ///
    /// Errors: [`SimError::InvalidSpec`] naming the list or the piece that does not parse,
    /// and for an empty list.
    pub fn parse_list(list: &str) -> Result<Vec<PolicySpec>> {
        let pieces = split_spec_list(list).map_err(|e| SimError::InvalidSpec {
            what: "policy list",
            spec: list.to_owned(),
            reason: e.to_string(),
        })?;
        if pieces.is_empty() {
            return Err(SimError::InvalidSpec {
                what: "policy list",
                spec: list.to_owned(),
                reason: "no policy named".into(),
            });
        }
        pieces.iter().map(|p| p.parse()).collect()
    }

    /// The policy's label in tables: the spec in canonical form (`plan:heft`).
    pub fn label(&self) -> String {
        self.to_string()
    }

    /// Builds the policy for `problem`: for `plan:` runs the scheduler from `registry` once
    /// (with `budget` and `seed`) and replays its schedule; for `replan:` the scheduler is
    /// re-run at each decision with `budget`; for `online:` the `dqn` or `mdts` scheduler of
    /// the spec runs once on `problem` as a batch (every job at 0) with `budget` (its own
    /// `time`/`evaluations` options take precedence) and `seed` — training its agent
    /// `episodes` episodes, or only loading `agent=PATH` with `learn=false` — and its agent
    /// then dispatches online, frozen (`OnlineDrl`).
    ///
    /// Errors: [`SimError::Scheduler`] for an unknown scheduler, bad scheduler options or a
    /// failed plan; for `online:`, [`SimError::InvalidSpec`] without the `ddqn` feature or
    /// for a scheduler other than `dqn`/`mdts`, [`SimError::GangUnsupported`] for a problem
    /// with a gang task (before training), and [`SimError::PolicyMismatch`] for a
    /// checkpoint whose network does not fit the options.
    pub fn build(
        &self,
        problem: &Problem,
        registry: &Registry,
        budget: &Budget,
        seed: u64,
    ) -> Result<BuiltPolicy> {
        let simple = |policy: Box<dyn OnlinePolicy>| BuiltPolicy {
            policy,
            planned: None,
            stochastic: false,
        };
        Ok(match self {
            PolicySpec::Plan(spec) => {
                let mut scheduler = registry.build_spec(spec)?;
                let mut ctx = RunContext::new(seed).with_budget(budget.clone());
                let schedule = scheduler.schedule(problem, &mut ctx)?;
                BuiltPolicy {
                    policy: Box::new(AsPlanned::new(problem, &schedule)?),
                    planned: Some(schedule),
                    stochastic: scheduler.is_stochastic(),
                }
            }
            PolicySpec::Replan(spec) => {
                let scheduler = registry.build_spec(spec)?;
                let stochastic = scheduler.is_stochastic();
                BuiltPolicy {
                    policy: Box::new(Replan::new(scheduler, budget.clone()).with_seed(seed)),
                    planned: None,
                    stochastic,
                }
            }
            PolicySpec::Online(spec) => online::build(spec, problem, budget, seed)?,
            PolicySpec::OnlineEft => simple(Box::new(OnlineEft::new())),
            PolicySpec::LeastConnection => simple(Box::new(LeastConnection::new())),
            PolicySpec::RoundRobin => simple(Box::new(RoundRobin::new())),
        })
    }

    /// Checks the spec without running anything: a `plan:`, `replan:` or `online:` spec's
    /// scheduler is built from `registry` once (name and options checked) and dropped, so
    /// a study refuses bad options before its first run rather than when that policy's
    /// first run starts. The online rules always pass.
    ///
    /// Errors: [`SimError::Scheduler`] for an unknown scheduler or bad scheduler options.
    pub fn validate(&self, registry: &Registry) -> Result<()> {
        match self {
            PolicySpec::Plan(spec) | PolicySpec::Replan(spec) | PolicySpec::Online(spec) => {
                registry.build_spec(spec).map(drop).map_err(SimError::from)
            }
            PolicySpec::OnlineEft | PolicySpec::LeastConnection | PolicySpec::RoundRobin => Ok(()),
        }
    }
}

impl FromStr for PolicySpec {
    type Err = SimError;

    /// Errors: [`SimError::InvalidSpec`] naming the spec and the policies known.
    fn from_str(s: &str) -> Result<Self> {
        let bad = |reason: String| SimError::InvalidSpec {
            what: "policy",
            spec: s.to_owned(),
            reason,
        };
        let t = s.trim();
        let scheduler = |rest: &str| {
            let rest = rest.trim();
            if rest.is_empty() {
                Err(bad(
                    "a scheduler spec is needed after the colon, e.g. `plan:heft`".into(),
                ))
            } else {
                Ok(rest.to_owned())
            }
        };
        if let Some((head, rest)) = t.split_once(':') {
            match head.trim().to_ascii_lowercase().as_str() {
                "plan" => return Ok(PolicySpec::Plan(scheduler(rest)?)),
                "replan" => return Ok(PolicySpec::Replan(scheduler(rest)?)),
                "online" => {
                    let spec = scheduler(rest)?;
                    online::check(&spec).map_err(bad)?;
                    return Ok(PolicySpec::Online(spec));
                }
                _ => {}
            }
        }
        match t.to_ascii_lowercase().as_str() {
            "eft" | "online-eft" => Ok(PolicySpec::OnlineEft),
            "least-connection" => Ok(PolicySpec::LeastConnection),
            "round-robin" => Ok(PolicySpec::RoundRobin),
            _ => Err(bad(
                "expected plan:SCHEDULER, replan:SCHEDULER, online:dqn[...], online:mdts[...], eft, \
                 least-connection or round-robin"
                    .into(),
            )),
        }
    }
}

impl fmt::Display for PolicySpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PolicySpec::Plan(s) => write!(f, "plan:{s}"),
            PolicySpec::Replan(s) => write!(f, "replan:{s}"),
            PolicySpec::Online(s) => write!(f, "online:{s}"),
            PolicySpec::OnlineEft => f.write_str("eft"),
            PolicySpec::LeastConnection => f.write_str("least-connection"),
            PolicySpec::RoundRobin => f.write_str("round-robin"),
        }
    }
}

/// `online:` specs: which schedulers they take, and the build.
mod online {
    use super::BuiltPolicy;
    use crate::error::{Result, SimError};
    use worl_cluster::Problem;
    use worl_sched::Budget;

    /// The deep-RL schedulers an `online:` spec may name.
    const DRL: [&str; 2] = ["dqn", "mdts"];

    /// The scheduler name of registry spec `spec` (before `[` or `:`), lowercase.
    fn name(spec: &str) -> String {
        spec.split(['[', ':'])
            .next()
            .unwrap_or("")
            .trim()
            .to_ascii_lowercase()
    }

    /// Why `spec` cannot follow `online:`, if it cannot: another scheduler than `dqn` or
    /// `mdts`, or a build without the `ddqn` feature.
    pub(super) fn check(spec: &str) -> std::result::Result<(), String> {
        let n = name(spec);
        if !DRL.contains(&n.as_str()) {
            return Err(format!(
                "online dispatch needs a deep-RL agent: `online:dqn[...]` or `online:mdts[...]`, \
                 not `{n}` (use `replan:{n}` to re-plan with it at each arrival)"
            ));
        }
        if !cfg!(feature = "ddqn") {
            return Err(format!(
                "`online:{n}` needs the `ddqn` feature of worl-sim (burn), which this build lacks"
            ));
        }
        Ok(())
    }

    #[cfg(not(feature = "ddqn"))]
    pub(super) fn build(
        spec: &str,
        _problem: &Problem,
        _budget: &Budget,
        _seed: u64,
    ) -> Result<BuiltPolicy> {
        let reason = check(spec)
            .err()
            .unwrap_or_else(|| "needs the `ddqn` feature".into());
        Err(SimError::InvalidSpec {
            what: "policy",
            spec: format!("online:{spec}"),
            reason,
        })
    }

    #[cfg(feature = "ddqn")]
    pub(super) fn build(
        spec: &str,
        problem: &Problem,
        budget: &Budget,
        seed: u64,
    ) -> Result<BuiltPolicy> {
        use crate::policies::OnlineDrl;
        use worl_sched::registry::{Spec, parse_duration};
        use worl_sched::schedulers::drl::{Dqn, Mdts};
        use worl_sched::{RunContext, Scheduler};

        check(spec).map_err(|reason| SimError::InvalidSpec {
            what: "policy",
            spec: format!("online:{spec}"),
            reason,
        })?;
        let parsed: Spec = spec.parse()?;
        let mut opts = parsed.to_options();
        // The registry's budget options, as `Registry::build` takes them.
        let mut budget = budget.clone();
        if let Some(t) = opts.take::<String>("time")? {
            budget.max_time = Some(parse_duration(&t).ok_or_else(|| {
                opts.invalid(
                    "time",
                    &t,
                    "expected a CPU time like `1s`, `250ms`, `2min` or `0.5`",
                )
            })?);
        }
        if let Some(e) = opts.take::<u64>("evaluations")? {
            if e == 0 {
                return Err(opts.invalid("evaluations", 0, "must be at least 1").into());
            }
            budget.max_evaluations = Some(e);
        }
        let mut ctx = RunContext::new(seed).with_budget(budget);
        let n = name(spec);
        // Before training: the agents score one GPU per task.
        crate::policy::refuse_gangs(&format!("online({n})"), problem)?;
        let (agent, config) = if n == "dqn" {
            let mut s = Dqn::from_options(opts)?;
            s.schedule(problem, &mut ctx)?;
            (s.take_last_agent(), s.config().clone())
        } else {
            let mut s = Mdts::from_options(opts)?;
            s.schedule(problem, &mut ctx)?;
            (s.take_last_agent(), s.config().clone())
        };
        let agent = agent.ok_or_else(|| SimError::Policy {
            policy: format!("online:{spec}"),
            time: 0.0,
            reason: "the scheduler's run left no agent".into(),
        })?;
        Ok(BuiltPolicy {
            policy: Box::new(OnlineDrl::new(agent, &config, &n)?),
            planned: None,
            stochastic: true,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::PolicySpec;

    #[test]
    fn lists_keep_bracketed_options_together() {
        let specs =
            PolicySpec::parse_list("plan:heft, replan:ils[restarts=2,seed-moves=3];eft").unwrap();
        assert_eq!(
            specs,
            [
                PolicySpec::Plan("heft".into()),
                PolicySpec::Replan("ils[restarts=2,seed-moves=3]".into()),
                PolicySpec::OnlineEft
            ]
        );
        assert_eq!(specs[1].label(), "replan:ils[restarts=2,seed-moves=3]");
    }

    #[test]
    fn online_takes_only_the_deep_rl_schedulers() {
        for spec in [
            "online:heft",
            "online:replan:mdts",
            "ONLINE:pso[particles=3]",
        ] {
            let e = spec.parse::<PolicySpec>().unwrap_err();
            assert!(
                matches!(e, crate::SimError::InvalidSpec { .. }),
                "{spec}: {e:?}"
            );
            let e = e.to_string();
            assert!(
                e.contains(&format!("`{spec}`")) && e.contains("deep-RL"),
                "{e}"
            );
        }
        let e = "online:".parse::<PolicySpec>().unwrap_err().to_string();
        assert!(
            e.contains("`online:`") && e.contains("scheduler spec"),
            "{e}"
        );
        let parsed = "online:mdts[episodes=2]".parse::<PolicySpec>();
        if cfg!(feature = "ddqn") {
            let p = parsed.unwrap();
            assert_eq!(p, PolicySpec::Online("mdts[episodes=2]".into()));
            assert_eq!(p.label(), "online:mdts[episodes=2]");
            assert_eq!(p.label().parse::<PolicySpec>().unwrap(), p);
        } else {
            let e = parsed.unwrap_err().to_string();
            assert!(
                e.contains("`online:mdts[episodes=2]`") && e.contains("`ddqn` feature"),
                "{e}"
            );
        }
    }

    #[test]
    fn unknown_and_empty_policies_are_typed_errors_naming_the_spec() {
        let e = "fastest".parse::<PolicySpec>().unwrap_err().to_string();
        assert!(e.contains("`fastest`") && e.contains("round-robin"), "{e}");
        let e = "plan:".parse::<PolicySpec>().unwrap_err().to_string();
        assert!(e.contains("`plan:`") && e.contains("scheduler spec"), "{e}");
        assert!(PolicySpec::parse_list("").is_err());
        assert!(PolicySpec::parse_list("plan:ils[").is_err());
    }
}
