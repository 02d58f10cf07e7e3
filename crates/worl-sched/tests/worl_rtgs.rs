//! WORL-RTGS: valid schedules, the default preset never worse than HEFT and PEFT, the agent
//! learns online, same seed same schedule (also in parallel), a saved and reloaded agent
//! gives the same schedule, one agent serves clusters of different sizes, typed errors.

use std::sync::Arc;
use worl_cluster::{Problem, Schedule, presets};
use worl_dag::generators::alibaba_like::{AlibabaLikeParams, alibaba_like};
use worl_dag::generators::layered::{LayeredParams, layered};
use worl_ddqn::{ComputeDevice, DdqnError, save_checkpoint};
use worl_sched::schedulers::worl_rtgs::{WorlRtgsConfig, run_worl_rtgs};
use worl_sched::{Registry, RunContext, ScheduleError};

fn layered_problem(n: usize, gpus: usize, seed: u64) -> Problem {
    let w = Arc::new(layered(&LayeredParams::new(n), seed).unwrap());
    Problem::new(w, Arc::new(presets::pai_mix(gpus, seed).unwrap())).unwrap()
}

fn run(spec: &str, p: &Problem, seed: u64) -> Schedule {
    let mut s = Registry::with_builtins().build_spec(spec).unwrap();
    let schedule = s.schedule(p, &mut RunContext::new(seed)).unwrap();
    assert!(schedule.validate(p).is_empty(), "{spec}");
    assert!(schedule.makespan() >= p.lower_bound().value, "{spec}");
    schedule
}

const SMALL: &str = "whales=10,iterations=12,device=flex";

#[test]
fn default_preset_is_valid_and_never_worse_than_heft_and_peft() {
    let alibaba = {
        let w = Arc::new(alibaba_like(&AlibabaLikeParams::new(15), 3).unwrap());
        Problem::new(w, Arc::new(presets::pai_mix(10, 3).unwrap())).unwrap()
    };
    for p in [
        layered_problem(100, 8, 1),
        layered_problem(80, 16, 2),
        alibaba,
    ] {
        let heft = run("heft", &p, 0).makespan();
        let peft = run("peft", &p, 0).makespan();
        for seed in 0..2 {
            let worl = run(&format!("worl-rtgs:{SMALL}"), &p, seed).makespan();
            assert!(worl <= heft.min(peft), "{worl} vs HEFT {heft}, PEFT {peft}");
        }
        run(&format!("worl-rtgs:{SMALL},preset=paper"), &p, 5);
    }
}

#[test]
fn the_agent_learns_online_and_runs_are_reproducible_in_parallel() {
    let p = layered_problem(120, 12, 4);
    let config = WorlRtgsConfig::from_options(
        worl_sched::Options::new("worl-rtgs")
            .with("whales", 10)
            .with("iterations", 12)
            .with("preset", "paper"),
    )
    .unwrap();
    let device = ComputeDevice::flex();
    let go = |config: &WorlRtgsConfig, seed| {
        let agent = config.fresh_agent(seed, &device).unwrap();
        run_worl_rtgs(&p, config, agent, &mut RunContext::new(seed)).unwrap()
    };
    let a = go(&config, 3);
    // 10 whales × 12 iterations × ≈16 sampled decisions ≈ 1,900 transitions: training
    // starts once 256 are stored (after two iterations) and then takes 8 steps per iteration.
    assert!(a.agent.replay_len() > 1000, "{}", a.agent.replay_len());
    let steps = a.agent.train_steps();
    assert!((64..=96).contains(&steps), "{steps} gradient steps");
    assert_eq!(a.schedule, go(&config, 3).schedule);
    assert_ne!(a.schedule, go(&config, 4).schedule);
    let parallel = WorlRtgsConfig {
        rtgs: worl_sched::schedulers::rtgs::RtgsConfig {
            parallel: true,
            ..config.rtgs.clone()
        },
        ..config.clone()
    };
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(3)
        .build()
        .unwrap();
    assert_eq!(a.schedule, pool.install(|| go(&parallel, 3)).schedule);
    // Frozen: no learning, nothing stored.
    let mut frozen = config;
    frozen.start.learn = false;
    let f = go(&frozen, 3);
    assert_eq!((f.agent.replay_len(), f.agent.train_steps()), (0, 0));
}

#[test]
fn a_saved_agent_reloads_to_the_same_schedule_and_serves_any_cluster_size() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("agent.bpk");
    // Pre-train on one problem, save.
    let train = layered_problem(100, 8, 6);
    let mut config = WorlRtgsConfig::paper();
    config.rtgs.whales = 10;
    config.rtgs.iterations = 12;
    let fresh = config.fresh_agent(1, &ComputeDevice::flex()).unwrap();
    let agent = run_worl_rtgs(&train, &config, fresh, &mut RunContext::new(1))
        .unwrap()
        .agent;
    assert!(agent.train_steps() > 0);
    save_checkpoint(&agent, &path).unwrap();
    let spec = |learn: bool| {
        format!(
            "worl-rtgs:{SMALL},preset=paper,learn={learn},agent={}",
            path.display()
        )
    };
    // Reloaded twice (frozen and learning), on clusters of 8 and 48 GPUs: same seed, same
    // schedule.
    for gpus in [8, 48] {
        let p = layered_problem(90, gpus, 9);
        for learn in [false, true] {
            let a = run(&spec(learn), &p, 2);
            assert_eq!(a, run(&spec(learn), &p, 2), "{gpus} GPUs, learn={learn}");
        }
    }
    // A corrupt checkpoint is a typed error naming the problem.
    std::fs::write(&path, b"not a checkpoint").unwrap();
    let err = Registry::with_builtins()
        .build_spec(&spec(false))
        .unwrap()
        .schedule(&train, &mut RunContext::new(2))
        .unwrap_err();
    assert!(
        matches!(
            err,
            ScheduleError::Ddqn(DdqnError::CorruptCheckpoint { .. } | DdqnError::Io { .. })
        ),
        "{err:?}"
    );
}

#[test]
fn bad_options_are_typed_errors() {
    let registry = Registry::with_builtins();
    for (spec, key) in [
        ("worl-rtgs:window=0", "window"),
        ("worl-rtgs:preset=authors", "preset"),
        ("worl-rtgs:candidates=1", "candidates"),
        ("worl-rtgs:epsilon-start=2", "epsilon-start"),
        ("worl-rtgs:hidden=16-x", "hidden"),
        ("worl-rtgs:device=tpu", "device"),
    ] {
        match registry.build_spec(spec) {
            Err(ScheduleError::InvalidOption { key: k, .. }) => assert_eq!(k, key, "{spec}"),
            Err(other) => panic!("{spec}: {other:?}"),
            Ok(_) => panic!("{spec} was accepted"),
        }
    }
    assert!(matches!(
        registry.build_spec("worl-rtgs:bogus=1"),
        Err(ScheduleError::UnknownOption { .. })
    ));
}

/// The bandit and uniform move choices: valid, never worse than HEFT, reproducible; ε-greedy
/// concentrates its bursts, uniform spreads them evenly, UCB tries every move.
#[test]
fn bandit_move_choices_run_and_concentrate() {
    let p = layered_problem(150, 12, 6);
    let heft = run("heft", &p, 0).makespan();
    let chosen = |moves: &str, seed: u64| {
        let config = WorlRtgsConfig::from_options(
            worl_sched::Options::new("worl-rtgs")
                .with("whales", 4)
                .with("iterations", 150)
                .with("moves", moves),
        )
        .unwrap();
        let agent = config.fresh_agent(seed, &ComputeDevice::flex()).unwrap();
        let out = run_worl_rtgs(&p, &config, agent, &mut RunContext::new(seed)).unwrap();
        assert!(out.schedule.validate(&p).is_empty(), "{moves}");
        assert!(out.schedule.makespan() <= heft, "{moves}");
        (out.schedule, out.moves_chosen)
    };
    for moves in ["ucb", "epsilon-greedy", "uniform"] {
        let (a, counts) = chosen(moves, 3);
        let (b, again) = chosen(moves, 3);
        assert_eq!((a, counts), (b, again), "{moves} is not reproducible");
        let (most, least) = (
            *counts.iter().max().unwrap() as f64,
            *counts.iter().min().unwrap() as f64,
        );
        assert!(counts.iter().sum::<u64>() > 300, "{moves}: {counts:?}");
        match moves {
            "uniform" => assert!(most < 1.5 * least, "{moves}: {counts:?}"),
            // exploits its best move 90 % of the time
            "epsilon-greedy" => assert!(least >= 1.0 && most > 2.0 * least, "{moves}: {counts:?}"),
            // UCB1's bonus keeps every move in play when the rewards are close (its rule is
            // checked by hand in the unit tests)
            _ => assert!(least >= 1.0, "{moves}: {counts:?}"),
        }
    }
    assert!(
        Registry::with_builtins()
            .build_spec("worl-rtgs:moves=thompson")
            .is_err()
    );
}

/// `moves=only:MOVE`: every burst takes that move kind (the oracle's arms); valid, never
/// worse than HEFT, reproducible; the spec reads and prints back, and an unknown move is
/// refused with the known ones.
#[test]
fn a_fixed_move_choice_takes_that_move_in_every_burst() {
    let p = layered_problem(150, 12, 6);
    let heft = run("heft", &p, 0).makespan();
    for (i, name) in ["predecessor-gpu", "swap", "advance"]
        .into_iter()
        .enumerate()
    {
        let spec = format!("only:{name}");
        let config = WorlRtgsConfig::from_options(
            worl_sched::Options::new("worl-rtgs")
                .with("iterations", 50)
                .with("moves", &spec),
        )
        .unwrap();
        assert_eq!(config.moves.to_string(), spec);
        let index = [0, 4, 5][i];
        let once = |seed| {
            let agent = config.fresh_agent(seed, &ComputeDevice::flex()).unwrap();
            run_worl_rtgs(&p, &config, agent, &mut RunContext::new(seed)).unwrap()
        };
        let (a, b) = (once(2), once(2));
        assert!(a.schedule.validate(&p).is_empty(), "{spec}");
        assert!(a.schedule.makespan() <= heft, "{spec}");
        assert_eq!(a.schedule, b.schedule, "{spec} is not reproducible");
        let counts = a.moves_chosen;
        assert!(counts[index] > 100, "{spec}: {counts:?}");
        assert_eq!(
            counts.iter().sum::<u64>(),
            counts[index],
            "{spec}: {counts:?}"
        );
    }
    let e = Registry::with_builtins()
        .build_spec("worl-rtgs[moves=only:teleport]")
        .err()
        .expect("an unknown move is refused")
        .to_string();
    assert!(
        e.contains("teleport") && e.contains("predecessor-gpu") && e.contains("advance"),
        "{e}"
    );
    assert!(
        Registry::with_builtins()
            .build_spec("worl-rtgs[moves=only:swap,time=0.01s]")
            .is_ok()
    );
}

/// `moves=scored`: the agent scores candidate moves. Learning fills the replay buffer from
/// the scored tries and takes gradient steps; the run is valid, never worse than HEFT and
/// reproducible; the trained scorer runs frozen from its checkpoint (`learn=false`), and an
/// operator agent's checkpoint is refused (other feature sizes).
#[test]
fn the_move_scorer_learns_runs_frozen_and_refuses_other_checkpoints() {
    let p = layered_problem(150, 12, 7);
    let heft = run("heft", &p, 0).makespan();
    let config = |extra: &[(&str, &str)]| {
        let mut o = worl_sched::Options::new("worl-rtgs")
            .with("whales", 4)
            .with("iterations", 150)
            .with("moves", "scored");
        for (k, v) in extra {
            o = o.with(*k, v);
        }
        WorlRtgsConfig::from_options(o).unwrap()
    };
    let learning = config(&[]);
    let go = |c: &WorlRtgsConfig, seed: u64| {
        let agent = c.fresh_agent(seed, &ComputeDevice::flex()).unwrap();
        run_worl_rtgs(&p, c, agent, &mut RunContext::new(seed)).unwrap()
    };
    let mut a = go(&learning, 3);
    assert!(a.schedule.validate(&p).is_empty());
    assert!(a.schedule.makespan() <= heft);
    assert!(a.agent.replay_len() > 256, "{}", a.agent.replay_len());
    assert!(a.agent.train_steps() > 0);
    assert_eq!(
        a.agent.config().action_dim,
        worl_sched::schedulers::worl_rtgs::MOVE_ACTION_DIM
    );
    let mut b = go(&learning, 3);
    assert_eq!(a.schedule, b.schedule, "not reproducible");
    // the same weights too (what makes `train_agent`'s checkpoint reproducible)
    let weights = |o: &mut worl_sched::schedulers::worl_rtgs::WorlOutcome| {
        o.agent.snapshot().unwrap().layers().to_vec()
    };
    assert_eq!(weights(&mut a), weights(&mut b));
    // and so is the operator agent's learning run
    let op = config(&[("moves", "agent")]);
    assert_eq!(go(&op, 3).schedule, go(&op, 3).schedule);

    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("scorer.bpk");
    save_checkpoint(&a.agent, &path).unwrap();
    let spec = format!(
        "worl-rtgs:moves=scored,agent={},learn=false,whales=4,iterations=150",
        path.display()
    );
    let frozen = run(&spec, &p, 4);
    assert!(frozen.validate(&p).is_empty() && frozen.makespan() <= heft);
    assert_eq!(frozen, run(&spec, &p, 4));
    // the operator agent (moves=agent) has other feature sizes
    let operator = go(&op, 3).agent;
    save_checkpoint(&operator, &path).unwrap();
    assert!(
        Registry::with_builtins()
            .build_spec(&spec)
            .unwrap()
            .schedule(&p, &mut RunContext::new(4))
            .is_err()
    );
}
