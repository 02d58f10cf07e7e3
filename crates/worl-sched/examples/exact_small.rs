//! How far from optimal are the heuristics on small problems? Generates random small
//! instances (layered DAGs of 2 to 10 tasks, log-uniform CCR in [0.1, 10], on 1 to 4 GPUs of
//! the Alibaba PAI mix or of the WORL-RTGS paper pool with random links), solves each with
//! the `exact` branch-and-bound under a wall-time limit, and reports how many it proved
//! optimal, its time per instance, and for each scheduler given as a registry spec the share
//! of proven instances where it reaches the optimum (within a relative 1e-9) and its mean
//! gap to the optimum.
//!
//! ```text
//! cargo run --release -p worl-sched --no-default-features --example exact_small -- \
//!     [--schedulers heft,peft,rtgs] [--instances 200] [--time-limit 10] [--max-tasks 10] \
//!     [--max-gpus 4] [--seed 1] [--verbose]
//! ```
//!
//! `--schedulers` takes a spec list (`split_spec_list`: `heft, rtgs[whales=10], ils`); each
//! scheduler runs with the instance's seed. Same arguments, same instances (results are
//! reproducible unless the time limit stops a search). `--verbose` prints a line per
//! instance.

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::sync::Arc;
use std::time::{Duration, Instant};
use worl_cluster::{Link, Problem, presets};
use worl_dag::generators::layered::{LayeredParams, layered};
use worl_sched::registry::split_spec_list;
use worl_sched::schedulers::Exact;
use worl_sched::{Budget, Registry, RunContext};

/// Command-line settings.
struct Args {
    schedulers: Vec<String>,
    instances: usize,
    time_limit: f64,
    max_tasks: usize,
    max_gpus: usize,
    seed: u64,
    verbose: bool,
}

fn parse_args() -> Result<Args, Box<dyn std::error::Error>> {
    let mut args = Args {
        schedulers: vec!["heft".into(), "peft".into()],
        instances: 200,
        time_limit: 10.0,
        max_tasks: 10,
        max_gpus: 4,
        seed: 1,
        verbose: false,
    };
    let mut it = std::env::args().skip(1);
    while let Some(flag) = it.next() {
        let mut value = || it.next().ok_or_else(|| format!("{flag} needs a value"));
        match flag.as_str() {
            "--schedulers" => args.schedulers = split_spec_list(&value()?)?,
            "--instances" => args.instances = value()?.parse()?,
            "--time-limit" => args.time_limit = value()?.parse()?,
            "--max-tasks" => args.max_tasks = value()?.parse()?,
            "--max-gpus" => args.max_gpus = value()?.parse()?,
            "--seed" => args.seed = value()?.parse()?,
            "--verbose" => args.verbose = true,
            "-h" | "--help" => {
                println!(
                    "exact_small [--schedulers LIST] [--instances N] [--time-limit S] \
                     [--max-tasks N] [--max-gpus M] [--seed S] [--verbose]"
                );
                std::process::exit(0);
            }
            other => return Err(format!("unknown argument `{other}` (try --help)").into()),
        }
    }
    if args.max_tasks < 2 || args.max_gpus < 1 {
        return Err("--max-tasks must be >= 2 and --max-gpus >= 1".into());
    }
    Ok(args)
}

/// Instance `i`: its problem, task and GPU counts and CCR.
fn instance(
    args: &Args,
    i: usize,
) -> Result<(Problem, usize, usize, f64), Box<dyn std::error::Error>> {
    let seed = args.seed.wrapping_mul(1_000_003).wrapping_add(i as u64);
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let n = rng.random_range(2..=args.max_tasks);
    let m = rng.random_range(1..=args.max_gpus);
    let ccr = 10f64.powf(rng.random_range(-1.0..=1.0));
    // CCR at the bandwidth most transfers take: 25 GbE between PAI machines, the mean of
    // the paper pool's links (uniform up to 2000 Mbit/s, so about 1000 Mbit/s).
    let pai = rng.random_bool(0.5);
    let bandwidth = if pai {
        Link::ETHERNET_25G.bandwidth
    } else {
        1.0e9 / 8.0
    };
    let params = LayeredParams::new(n)
        .fat(rng.random_range(0.3..0.9))
        .density(rng.random_range(0.1..0.6))
        .jump(rng.random_range(1..=2))
        .ccr(ccr, bandwidth);
    let workload = Arc::new(layered(&params, seed)?);
    let cluster = Arc::new(if pai {
        presets::pai_mix(m, seed)?
    } else {
        presets::paper_pool(m, 2000.0, seed)?
    });
    Ok((Problem::new(workload, cluster)?, n, m, ccr))
}

fn median(xs: &mut [f64]) -> f64 {
    xs.sort_by(f64::total_cmp);
    match xs.len() {
        0 => f64::NAN,
        l if l % 2 == 1 => xs[l / 2],
        l => 0.5 * (xs[l / 2 - 1] + xs[l / 2]),
    }
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args = parse_args()?;
    let registry = Registry::with_builtins();
    let mut schedulers = args
        .schedulers
        .iter()
        .map(|spec| registry.build_spec(spec))
        .collect::<Result<Vec<_>, _>>()?;
    let exact = Exact::new();
    let (mut proven, mut times, mut nodes) = (0usize, Vec::new(), Vec::new());
    // per scheduler: instances at the optimum, sum of relative gaps (proven instances)
    let mut at_optimum = vec![0usize; schedulers.len()];
    let mut gap_sum = vec![0.0f64; schedulers.len()];
    let mut worst_gap = vec![0.0f64; schedulers.len()];
    let (mut tasks, mut gpus) = (0usize, 0usize);
    for i in 0..args.instances {
        let (p, n, m, ccr) = instance(&args, i)?;
        tasks += n;
        gpus += m;
        let seed = i as u64;
        let mut ctx = RunContext::new(seed).with_budget(Budget {
            max_time: Some(Duration::from_secs_f64(args.time_limit)),
            ..Budget::default()
        });
        let started = Instant::now();
        let out = exact.solve(&p, &mut ctx)?;
        times.push(started.elapsed().as_secs_f64());
        nodes.push(out.nodes as f64);
        assert!(out.schedule.validate(&p).is_empty(), "instance {i}");
        if args.verbose {
            println!(
                "instance {i}: {n} tasks, {m} GPUs, CCR {ccr:.2}: makespan {:.3} s (bound {:.3} s), proven {}, {} nodes, {:.1} ms",
                out.schedule.makespan(),
                out.lower_bound,
                out.proven_optimal,
                out.nodes,
                1e3 * times[times.len() - 1]
            );
        }
        if !out.proven_optimal {
            continue;
        }
        proven += 1;
        let opt = out.schedule.makespan();
        for (j, s) in schedulers.iter_mut().enumerate() {
            let ms = s.schedule(&p, &mut RunContext::new(seed))?.makespan();
            let gap = if opt > 0.0 { ms / opt - 1.0 } else { 0.0 };
            if gap <= 1e-9 {
                at_optimum[j] += 1;
            }
            gap_sum[j] += gap.max(0.0);
            worst_gap[j] = worst_gap[j].max(gap);
        }
    }
    let count = args.instances;
    println!(
        "{count} instances ({:.1} tasks, {:.1} GPUs on average; CCR 0.1..10; PAI mix / paper pool), \
         exact with a {} s limit each",
        tasks as f64 / count as f64,
        gpus as f64 / count as f64,
        args.time_limit
    );
    let total: f64 = times.iter().sum();
    println!(
        "exact: proven optimal {proven}/{count}; time per instance median {:.3} ms, max {:.1} ms, total {:.2} s; nodes median {:.0}, max {:.0}",
        1e3 * median(&mut times.clone()),
        1e3 * times.iter().copied().fold(0.0, f64::max),
        total,
        median(&mut nodes.clone()),
        nodes.iter().copied().fold(0.0, f64::max),
    );
    println!("on the {proven} proven instances:");
    println!(
        "{:<28} {:>10} {:>10} {:>10}",
        "scheduler", "optimal", "mean gap", "max gap"
    );
    for (j, spec) in args.schedulers.iter().enumerate() {
        let share = at_optimum[j] as f64 / proven.max(1) as f64;
        println!(
            "{:<28} {:>9.1}% {:>9.2}% {:>9.2}%",
            spec,
            100.0 * share,
            100.0 * gap_sum[j] / proven.max(1) as f64,
            100.0 * worst_gap[j]
        );
    }
    Ok(())
}
