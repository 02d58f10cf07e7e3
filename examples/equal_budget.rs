//! Equal-budget comparison of the searches: every search gets the same CPU time per run
//! (`time=T` spec option, default 1 s) on a grid of workloads × three clusters × seeds,
//! run one at a time; the table gives, per cluster, the geometric mean over instances of
//! the mean makespan relative to HEFT (over the instances where HEFT is more than 1 % above
//! the lower bound), and how often WORL-RTGS beats ILS.
//!
//! ```sh
//! cargo run --release --example equal_budget                 # the grid, 1 s per run
//! cargo run --release --example equal_budget -- --time 0.2 --seeds 1 --quick
//! cargo run --release --example equal_budget -- --sizes 1000,10000 --seeds 2 \
//!   --searches "ils,worl-rtgs,worl-rtgs[moves=ucb],ils[time=10s]"   # scaling; own budgets kept
//! ```
//!
//! Clusters (the settings of the WORL-RTGS study and two of ours):
//! * `hetero-500M`: 8 GPUs of the PAI mix, one per machine, random links up to 500 Mbit/s
//!   (`presets::paper_pool`), workloads at CCR 5 at 500 Mbit/s;
//! * `busy-16`: 16 PAI-mix GPUs in the paper's busy state, CCR 1 at 10 Gbit/s;
//! * `pai-50`: 50 PAI-mix GPUs, CCR 0.5 at 10 Gbit/s.
//!
//! Workloads: layered and DAGGEN-like random DAGs (100 and 1,000 tasks), the WfCommons
//! and Pegasus DAX workflows of the shared data directory, an STG graph and Alibaba v2018
//! jobs merged to about 1,000 tasks (data files are skipped with a note when absent).

use clap::Parser;
use std::collections::BTreeMap;
use std::process::ExitCode;
use std::sync::Arc;
use worl::cluster::{LoadState, Problem, presets};
use worl::dag::ccr::with_ccr;
use worl::dag::datasets::data_file;
use worl::dag::generators::alibaba_like::{AlibabaLikeParams, alibaba_like};
use worl::dag::generators::daggen::{self, DaggenParams};
use worl::dag::generators::layered::{LayeredParams, layered};
use worl::dag::{REFERENCE_BANDWIDTH, Workload};
use worl::sched::{Registry, RunContext};

#[derive(Parser, Debug)]
#[command(about = "Every search at the same CPU time per run")]
struct Args {
    /// CPU seconds per run.
    #[arg(long, default_value_t = 1.0)]
    time: f64,
    /// Seeds per (instance, search).
    #[arg(long, default_value_t = 3)]
    seeds: u64,
    /// A smaller grid (100-task instances and the small workflows only).
    #[arg(long)]
    quick: bool,
    /// Only the workloads whose name contains this.
    #[arg(long)]
    only: Option<String>,
    /// Only the clusters whose name contains this.
    #[arg(long)]
    cluster: Option<String>,
    /// Generated workloads of these sizes instead of the grid (comma-separated task counts):
    /// per size a layered DAG, a DAGGEN DAG and Alibaba-like jobs of about that many tasks.
    #[arg(long, value_delimiter = ',')]
    sizes: Vec<usize>,
    /// Comma-separated search specs (each gets `time=T` unless it sets its own `time`).
    #[arg(long, default_value = "ils,worl-rtgs,worl-rtgs-paper,rtgs,woa")]
    searches: String,
}

/// Per size `n`: a layered DAG, a DAGGEN DAG (fat and density 0.5, jumps of 2 levels) and
/// Alibaba-like jobs (about 3.5 tasks a job) of about `n` tasks.
fn sized_workloads(sizes: &[usize]) -> Vec<Workload> {
    let mut out = Vec::new();
    for &n in sizes {
        out.push(
            layered(&LayeredParams::new(n), 21)
                .expect("layered")
                .renamed(format!("layered-{n}"))
                .expect("a name without control characters"),
        );
        let d = DaggenParams {
            fat: 0.5,
            density: 0.5,
            jump: 2,
            ..DaggenParams::new(n, 22)
        };
        out.push(
            daggen::generate(&d)
                .expect("daggen")
                .renamed(format!("daggen-{n}"))
                .expect("a name without control characters"),
        );
        let jobs = (n as f64 / 3.5).round().max(1.0) as usize;
        out.push(
            alibaba_like(&AlibabaLikeParams::new(jobs), 23)
                .expect("alibaba-like")
                .renamed(format!("alibaba-like-{jobs}jobs"))
                .expect("a name without control characters"),
        );
    }
    out
}

fn workloads(quick: bool) -> Vec<Workload> {
    let mut out = Vec::new();
    for (n, seed) in [(100, 11), (100, 12)] {
        out.push(
            layered(&LayeredParams::new(n), seed)
                .expect("layered")
                .renamed(format!("layered-{n}-{seed}"))
                .expect("a name without control characters"),
        );
    }
    out.push(
        alibaba_like(&AlibabaLikeParams::new(25), 2025)
            .expect("alibaba-like")
            .renamed("alibaba-like-25jobs")
            .expect("a name without control characters"),
    );
    if !quick {
        out.push(
            layered(&LayeredParams::new(1000), 13)
                .expect("layered")
                .renamed("layered-1000-13")
                .expect("a name without control characters"),
        );
        for (n, fat, density, jump, seed) in [
            (100, 0.3, 0.3, 2, 14),
            (100, 0.7, 0.7, 1, 15),
            (1000, 0.5, 0.5, 3, 16),
        ] {
            let d = DaggenParams {
                fat,
                density,
                jump,
                ..DaggenParams::new(n, seed)
            };
            out.push(
                daggen::generate(&d)
                    .expect("daggen")
                    .renamed(format!("daggen-{n}-fat{fat}-density{density}-jump{jump}"))
                    .expect("a name without control characters"),
            );
        }
    }
    let files: &[&str] = if quick {
        &[
            "pegasus-dax-workflowsim/Montage_50.xml",
            "wfcommons-wfinstances/seismology-chameleon-100p-001.json",
        ]
    } else {
        &[
            "pegasus-dax-workflowsim/Montage_50.xml",
            "pegasus-dax-workflowsim/CyberShake_100.xml",
            "pegasus-dax-workflowsim/Epigenomics_100.xml",
            "wfcommons-wfinstances/seismology-chameleon-100p-001.json",
            "wfcommons-wfinstances/blast-chameleon-small-001.json",
            "wfcommons-wfinstances/montage-chameleon-2mass-005d-001.json",
            "stg/robot.stg",
        ]
    };
    for f in files {
        match data_file(f).ok().flatten() {
            Some(p) => match worl::dag::load_path(&p) {
                Ok((w, _)) => out.push(w),
                Err(e) => eprintln!("skipped {f}: {e}"),
            },
            None => eprintln!("skipped {f}: shared data absent"),
        }
    }
    if !quick
        && let Some(p) = data_file("alibaba-v2018/batch_task_head50k.csv")
            .ok()
            .flatten()
    {
        let opts = worl::dag::formats::alibaba::AlibabaOptions {
            max_jobs: Some(120),
            min_tasks: 4,
            ..Default::default()
        };
        match worl::dag::formats::alibaba::load(&p, &opts) {
            Ok((w, _)) => out.push(
                w.renamed("alibaba-v2018-merged")
                    .expect("a name without control characters"),
            ),
            Err(e) => eprintln!("skipped alibaba: {e}"),
        }
    }
    out
}

fn main() -> ExitCode {
    let args = Args::parse();
    let registry = Registry::with_builtins();
    let searches = match worl::sched::registry::split_spec_list(&args.searches) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(2);
        }
    };
    let clusters: [(&str, f64, f64); 3] = [
        ("hetero-500M", 5.0, 500.0e6 / 8.0),
        ("busy-16", 1.0, REFERENCE_BANDWIDTH),
        ("pai-50", 0.5, REFERENCE_BANDWIDTH),
    ];
    let mut base = if args.sizes.is_empty() {
        workloads(args.quick)
    } else {
        sized_workloads(&args.sizes)
    };
    if let Some(o) = &args.only {
        base.retain(|w| w.name().contains(o.as_str()));
    }
    println!(
        "{} workloads, {} clusters, {} seeds, {} s per run",
        base.len(),
        clusters.len(),
        args.seeds,
        args.time
    );
    for (ci, (cname, ccr, bw)) in clusters.iter().enumerate() {
        if args
            .cluster
            .as_ref()
            .is_some_and(|c| !cname.contains(c.as_str()))
        {
            continue;
        }
        let seed = 100 + ci as u64;
        let cluster = match *cname {
            "hetero-500M" => presets::paper_pool(8, 500.0, seed),
            "busy-16" => presets::pai_mix(16, seed).and_then(|mut c| {
                c.apply_load(&LoadState::paper_busy(), seed)?;
                Ok(c)
            }),
            _ => presets::pai_mix(50, seed),
        }
        .expect("cluster");
        let cluster = Arc::new(cluster);
        // per search: product of ratios (over counted instances), and per instance means
        // per search: sum of ln(mean / HEFT), instances, sum of seed-to-seed CVs
        let mut logs: BTreeMap<String, (f64, usize, f64)> = BTreeMap::new();
        let mut heft_lb = (0.0, 0usize);
        let mut wins = (0usize, 0usize); // (WORL-RTGS beats ILS, instances where any beat HEFT by 1 %)
        for w in &base {
            let w = match with_ccr(w, *ccr, *bw, 7) {
                Ok(w) => w,
                Err(e) => {
                    eprintln!("{}: {e}", w.name());
                    continue;
                }
            };
            let p = match Problem::new(Arc::new(w), cluster.clone()) {
                Ok(p) => p,
                Err(e) => {
                    eprintln!("{e}");
                    continue;
                }
            };
            let lb = p.lower_bound().value;
            let heft = registry
                .build_spec("heft")
                .unwrap()
                .schedule(&p, &mut RunContext::new(0))
                .unwrap()
                .makespan();
            heft_lb.0 += (heft / lb).ln();
            heft_lb.1 += 1;
            let mut means = BTreeMap::new();
            let mut cvs = BTreeMap::new();
            for spec in &searches {
                let full = if spec.contains("time=") {
                    spec.clone()
                } else if spec.contains('[') {
                    spec.replacen('[', &format!("[time={}s,", args.time), 1)
                } else {
                    format!("{spec}[time={}s]", args.time)
                };
                let mut runs = Vec::new();
                for seed in 0..args.seeds {
                    let mut s = registry.build_spec(&full).expect("spec");
                    let sch = s.schedule(&p, &mut RunContext::new(seed)).expect("run");
                    assert!(sch.validate(&p).is_empty(), "{spec} invalid");
                    runs.push(sch.makespan());
                }
                let mean = runs.iter().sum::<f64>() / runs.len() as f64;
                let var = runs.iter().map(|x| (x - mean).powi(2)).sum::<f64>()
                    / (runs.len().max(2) - 1) as f64;
                cvs.insert(spec.clone(), var.sqrt() / mean);
                means.insert(spec.clone(), mean);
            }
            let line: Vec<String> = means
                .iter()
                .map(|(k, v)| format!("{k} {:.4}", v / heft))
                .collect();
            println!(
                "  {cname} {:<40} n={:<5} HEFT/LB {:.3} | {}",
                p.workload().name(),
                p.n_tasks(),
                heft / lb,
                line.join(" | ")
            );
            if heft > 1.01 * lb {
                for (k, v) in &means {
                    let e = logs.entry(k.clone()).or_insert((0.0, 0, 0.0));
                    e.0 += (v / heft).ln();
                    e.1 += 1;
                    e.2 += cvs[k];
                }
            }
            let best = means.values().cloned().fold(f64::INFINITY, f64::min);
            if best < 0.99 * heft
                && let (Some(wr), Some(ils)) = (means.get("worl-rtgs"), means.get("ils"))
            {
                wins.1 += 1;
                if wr < ils {
                    wins.0 += 1;
                }
            }
        }
        println!(
            "{cname}: HEFT/LB {:.3}",
            (heft_lb.0 / heft_lb.1.max(1) as f64).exp()
        );
        for (k, (s, n, cv)) in &logs {
            println!(
                "  {k:<18} makespan/HEFT {:.4} over {n} instances (HEFT > 1.01 LB), mean CV over seeds {:.2} %",
                (s / *n as f64).exp(),
                100.0 * cv / *n as f64
            );
        }
        println!(
            "  WORL-RTGS beats ILS on {}/{} instances where a search beat HEFT by 1 %",
            wins.0, wins.1
        );
    }
    ExitCode::SUCCESS
}
