//! `worl schedule`: one workload, one cluster, one scheduler, one schedule file.

use crate::{Result, inputs, outln};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::{Duration, Instant};
use worl::io::{self, ScheduleMeta};
use worl::sched::{Budget, Registry, RunContext};

/// Arguments of `worl schedule`.
#[derive(clap::Args, Debug)]
pub(crate) struct Args {
    /// The workload file (any format worl reads).
    workload: PathBuf,
    /// The cluster: a cluster file or a description (see `worl cluster --help`); optional
    /// for a saga / dag-bench problem instance, which brings its network.
    #[arg(long)]
    cluster: Option<String>,
    /// The scheduler spec, e.g. `heft`, `rtgs[whales=30,iterations=100]`, `worl-rtgs`
    /// (`worl schedulers` lists them).
    #[arg(long, default_value = "heft")]
    scheduler: String,
    /// Seed of a stochastic scheduler.
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// CPU-time budget of a search, seconds (a run cut short by time is not reproducible).
    #[arg(long)]
    time: Option<f64>,
    /// Plan-evaluation budget of a search.
    #[arg(long)]
    evaluations: Option<u64>,
    /// The schedule file to write: `.json` or `.csv` (worl's schedule file, read back by
    /// `worl validate`), or `.wf.json` / `.wfformat.json` (WfCommons WfFormat 1.5 with the
    /// schedule as its `execution` section).
    #[arg(long)]
    out: PathBuf,
    /// Also draw the schedule as a Gantt chart (SVG).
    #[arg(long)]
    gantt: Option<PathBuf>,
    /// Also execute the plan in the simulator (as planned, seeded by --seed) and print its
    /// realised makespan beside the planned one; settings as `worl simulate`'s (the job
    /// releases of the workload are honoured).
    #[arg(long)]
    simulate: bool,
    /// With --simulate: runtime noise (`none`, `lognormal:CV`, `uniform:LO..HI`).
    #[arg(long, default_value = "none", requires = "simulate")]
    noise: String,
    /// With --simulate: network contention (`fair` or `none`).
    #[arg(long, default_value = "fair", requires = "simulate")]
    contention: String,
    /// With --simulate: GPU failures (`none`, `mtbf:HOURS[:REPAIR_S]`, scripted outages
    /// `outages:GPU@FROM+DURATION[;GPU@FROM+DURATION...]` with GPU an index such as `3` or
    /// `g3` and times in seconds, or `script:FILE` for a CSV file with the header
    /// `gpu,from,to`).
    #[arg(long, default_value = "none", requires = "simulate")]
    failures: String,
}

/// `s` seconds as a duration, or an error for a negative or non-finite value.
pub(crate) fn seconds(s: f64) -> Result<Duration> {
    Duration::try_from_secs_f64(s).map_err(|_| {
        worl::Error::invalid_argument("--time", s, "expected a finite number of seconds >= 0")
            .into()
    })
}

/// Schedules the workload, prints a summary line and writes the files.
pub(crate) fn run(args: &Args) -> Result<ExitCode> {
    inputs::distinct_files(
        &[
            ("--out", Some(&args.out)),
            ("--gantt", args.gantt.as_deref()),
        ],
        &[
            ("the workload", Some(&args.workload)),
            ("--cluster", args.cluster.as_deref().map(Path::new)),
        ],
    )?;
    io::check_writable(&args.out, "schedules", &io::SCHEDULE_SAVE_EXTENSIONS)?;
    let sim_config = if args.simulate {
        Some(worl::sim::SimConfig {
            noise: args.noise.parse()?,
            contention: args.contention.parse()?,
            failures: args.failures.parse()?,
            ..Default::default()
        })
    } else {
        None
    };
    let problem = inputs::problem_of(&args.workload, args.cluster.as_deref())?;
    // the simulation settings are checked against the cluster (failures naming GPUs it
    // lacks, ...) before scheduling and before writing --out
    let sim = sim_config
        .map(|config| worl::sim::Simulation::new(&problem, config))
        .transpose()?;
    let mut scheduler = Registry::with_builtins().build_spec(&args.scheduler)?;
    let budget = Budget {
        max_evaluations: args.evaluations,
        max_time: args.time.map(seconds).transpose()?,
    };
    let started = Instant::now();
    let schedule = scheduler.schedule(
        &problem,
        &mut RunContext::new(args.seed).with_budget(budget),
    )?;
    let elapsed = started.elapsed().as_secs_f64();
    let lb = problem.lower_bound().value;
    let meta = ScheduleMeta {
        scheduler: scheduler.name().to_owned(),
        options: args.scheduler.clone(),
        seed: Some(args.seed),
    };
    io::save_schedule(&problem, &schedule, meta.clone(), &args.out)?;
    if let Some(path) = &args.gantt {
        let title = format!(
            "{}: {} (seed {}), makespan {:.1} s",
            problem.workload().name(),
            meta.scheduler,
            args.seed,
            schedule.makespan()
        );
        worl::experiment::plot::gantt(&problem, &schedule, &title, path)?;
    }
    outln!(
        "{}: makespan {:.3} s, lower bound {:.3} s (gap {:.3}), {} tasks on {} GPUs, {:.3} s",
        meta.scheduler,
        schedule.makespan(),
        lb,
        schedule.makespan() / lb.max(f64::MIN_POSITIVE),
        problem.n_tasks(),
        problem.n_gpus(),
        elapsed
    )?;
    if let Some(sim) = sim {
        let mut policy = worl::sim::policies::AsPlanned::new(&problem, &schedule)?;
        let r = sim.run(&mut policy, args.seed)?;
        let m = &r.metrics;
        outln!(
            "simulated (noise {}, contention {}, failures {}, seed {}): realised makespan {:.3} s = {:.4} x planned, mean JCT {:.3} s, contention delay {:.3} s, lost to failures {:.3} s",
            args.noise,
            args.contention,
            args.failures,
            args.seed,
            m.makespan,
            m.makespan / schedule.makespan().max(f64::MIN_POSITIVE),
            m.mean_jct,
            m.contention_delay,
            m.lost_time
        )?;
    }
    Ok(ExitCode::SUCCESS)
}
