//! Every baseline on every workload the shared data holds that worl-dag can load, and on
//! generated DAGs, on several clusters: the schedule validates, its makespan is at least the
//! problem's lower bound, and the same seed gives the same schedule.

mod common;

use common::{all_schedulers, generated, list_names, problems, with_memory};
use std::path::Path;
use std::sync::Arc;
use worl_cluster::{GpuModel, Problem, presets};
use worl_dag::Workload;
use worl_dag::formats::alibaba::{self, AlibabaOptions};
use worl_sched::{Registry, RunContext, Scheduler};

/// Runs `s` on `p` twice with seed 7 and checks validity, the lower bound and determinism.
fn check(s: &mut dyn Scheduler, p: &Problem, what: &str) -> f64 {
    let a = s
        .schedule(p, &mut RunContext::new(7))
        .unwrap_or_else(|e| panic!("{} on {what}: {e}", s.name()));
    let violations = a.validate(p);
    assert!(
        violations.is_empty(),
        "{} on {what}: {} violations, first {}",
        s.name(),
        violations.len(),
        violations[0]
    );
    let lb = p.lower_bound().value;
    assert!(
        a.makespan() >= lb * (1.0 - 1e-12),
        "{} on {what}: makespan {} below the lower bound {lb}",
        s.name(),
        a.makespan()
    );
    let b = s.schedule(p, &mut RunContext::new(7)).unwrap();
    assert_eq!(
        a,
        b,
        "{} on {what}: same seed, different schedule",
        s.name()
    );
    a.makespan()
}

/// Every scheduler (and its other policy) on `w` on every cluster of `common::problems`.
fn check_all(w: Workload, m: usize, what: &str) {
    let w = Arc::new(w);
    let registry = Registry::with_builtins();
    for (cluster, p) in problems(&w, m, 11) {
        let what = format!("{what} on {cluster} ({} tasks, {m} GPUs)", p.n_tasks());
        for s in &mut all_schedulers() {
            check(s.as_mut(), &p, &what);
        }
        for name in list_names() {
            for policy in ["append", "insertion"] {
                let mut s = registry
                    .build_spec(&format!("{name}:policy={policy}"))
                    .unwrap();
                check(s.as_mut(), &p, &what);
            }
        }
    }
}

#[test]
fn generated_workloads_give_valid_schedules_above_the_lower_bound() {
    for (name, w) in generated() {
        check_all(w, 12, name);
    }
}

#[test]
fn memory_needs_are_respected() {
    // 14 GiB excludes the 12 GiB K80s of the PAI mix, 30 GiB everything but V100-32GB.
    for (name, w) in generated() {
        let mem = with_memory(&w, &[None, Some(4.0), Some(14.0)]);
        check_all(mem, 12, &format!("{name} with memory needs"));
    }
    let cluster = Arc::new(presets::pai_mix(40, 3).unwrap());
    assert!(cluster.gpus().iter().filter(|g| g.mem_gib >= 30.0).count() >= 2);
    let (_, w) = generated()
        .into_iter()
        .find(|(n, _)| *n == "layered")
        .unwrap();
    let w = Arc::new(with_memory(&w, &[Some(30.0), None, Some(14.0)]));
    let p = Problem::new(w, cluster).unwrap();
    for s in &mut all_schedulers() {
        check(s.as_mut(), &p, "layered with 30 GiB tasks on pai_mix(40)");
    }
}

/// Loads every file of the shared data that worl-dag can read as a workload: STG, Pegasus
/// DAX, WfCommons JSON, and the Alibaba v2018 batch_task head (the first 50 multi-task jobs
/// merged, with and without memory needs from plan_mem).
fn shared_workloads(dir: &Path) -> Vec<(String, Workload)> {
    let mut out = Vec::new();
    for sub in ["stg", "pegasus-dax-workflowsim", "wfcommons-wfinstances"] {
        let mut files: Vec<_> = std::fs::read_dir(dir.join(sub))
            .unwrap_or_else(|e| panic!("{sub}: {e}"))
            .map(|e| e.unwrap().path())
            .collect();
        files.sort();
        for f in files {
            let (w, _) = worl_dag::load_path(&f).unwrap_or_else(|e| panic!("{}: {e}", f.display()));
            out.push((
                format!("{sub}/{}", f.file_name().unwrap().to_string_lossy()),
                w,
            ));
        }
    }
    let csv = dir.join("alibaba-v2018/batch_task_head50k.csv");
    let opts = AlibabaOptions::default()
        .task_range(2, usize::MAX)
        .first_jobs(50);
    let (w, _) = alibaba::load(&csv, &opts).unwrap();
    assert_eq!(w.n_jobs(), 50);
    out.push(("alibaba-v2018 first 50 multi-task jobs".into(), w));
    let (w, _) = alibaba::load(&csv, &opts.mem_gib_per_plan_mem(0.1)).unwrap();
    out.push((
        "alibaba-v2018 first 50 multi-task jobs with memory".into(),
        w,
    ));
    out
}

#[test]
fn every_loadable_shared_data_file_gives_valid_schedules() {
    let Some(dir) = worl_dag::datasets::shared_data_dir().expect("shared data directory") else {
        return;
    };
    let workloads = shared_workloads(&dir);
    assert!(workloads.len() >= 20, "{} workloads", workloads.len());
    for (name, w) in workloads {
        check_all(w, 24, &name);
    }
}

#[test]
fn heft_beats_random_and_round_robin_on_real_workflows() {
    // Not a theorem, a sanity anchor: on the Montage and Epigenomics DAX workflows on a busy
    // PAI mix, HEFT's makespan is below the cost-blind baselines'.
    let Some(dir) = worl_dag::datasets::shared_data_dir().expect("shared data directory") else {
        return;
    };
    let registry = Registry::with_builtins();
    for f in ["Montage_100.xml", "Epigenomics_100.xml"] {
        let (w, _) = worl_dag::load_path(dir.join("pegasus-dax-workflowsim").join(f)).unwrap();
        let w = Arc::new(w);
        for (cluster, p) in problems(&w, 16, 5) {
            let what = format!("{f} on {cluster}");
            let mut heft = registry.build_spec("heft").unwrap();
            let heft = check(heft.as_mut(), &p, &what);
            for other in ["random", "round-robin"] {
                let mut s = registry.build_spec(other).unwrap();
                let ms = check(s.as_mut(), &p, &what);
                assert!(heft < ms, "{what}: HEFT {heft} vs {other} {ms}");
            }
        }
    }
}

#[test]
fn random_depends_on_the_seed_and_only_on_it() {
    let w = Arc::new(worl_dag::generators::shapes::wide(50, 1.0).unwrap());
    let p = Problem::new(
        w,
        Arc::new(presets::homogeneous(8, &GpuModel::t4()).unwrap()),
    )
    .unwrap();
    let registry = Registry::with_builtins();
    let mut s = registry.build_spec("random").unwrap();
    assert!(s.is_stochastic());
    let a = s.schedule(&p, &mut RunContext::new(1)).unwrap();
    let b = s.schedule(&p, &mut RunContext::new(2)).unwrap();
    assert_ne!(a, b);
    assert_eq!(a, s.schedule(&p, &mut RunContext::new(1)).unwrap());
    // Every other builtin ignores the seed.
    for mut s in all_schedulers() {
        if s.is_stochastic() {
            continue;
        }
        let x = s.schedule(&p, &mut RunContext::new(1)).unwrap();
        assert_eq!(
            x,
            s.schedule(&p, &mut RunContext::new(99)).unwrap(),
            "{}",
            s.name()
        );
    }
}
