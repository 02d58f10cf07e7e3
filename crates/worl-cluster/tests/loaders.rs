//! Loaders on the real Alibaba files in the shared data directory.
//!
//! Expected counts were established independently with one-off awk scripts (not committed),
//! e.g. for PAI: `awk -F, '{c[$2]++; g[$2]+=$5} END{for(k in c) print k, c[k], g[k]}'
//! pai_machine_spec.csv`, and for the node lists the same over columns 5 (model) and 4
//! (gpu) after the header line.

mod common;

use std::collections::BTreeMap;
use worl_cluster::TableSample;
use worl_cluster::formats::machine_usage::load_machine_usage;
use worl_cluster::formats::openb::load_openb_node_list;
use worl_cluster::formats::pai::load_pai_machine_spec;
use worl_cluster::{LoadState, Problem, presets};

fn counts(pairs: &[(&str, usize)]) -> BTreeMap<String, usize> {
    pairs.iter().map(|&(k, v)| (k.to_owned(), v)).collect()
}

#[test]
fn pai_v2020_machine_spec() {
    let Some(dir) = worl_dag::datasets::shared_data_dir().expect("shared data directory") else {
        return;
    };
    let t = load_pai_machine_spec(dir.join("alibaba-pai-v2020/pai_machine_spec.csv")).unwrap();
    // 1,897 rows: 83 CPU machines skipped, 1,814 GPU machines.
    assert_eq!(t.machines.len(), 1814);
    assert_eq!(t.skipped.len(), 83);
    assert!(t.skipped.iter().all(|s| s.reason.contains("CPU-only")));
    assert_eq!(t.skipped[0].line, 1);
    assert_eq!(
        t.gpu_counts(),
        counts(&[
            ("MISC", 2240),
            ("P100", 1596),
            ("T4", 994),
            ("V100", 832),
            ("V100M32", 1080)
        ])
    );
    assert_eq!(t.n_gpus(), 6742);
    // the preset's weights are these counts
    for (code, n, per_machine) in presets::PAI_GPU_TYPES {
        assert_eq!(t.gpu_counts()[code], n, "{code}");
        assert!(
            t.machines
                .iter()
                .filter(|m| m.gpu_type == code)
                .all(|m| m.n_gpus == per_machine)
        );
    }
    let all = t.to_cluster(&TableSample::default()).unwrap();
    assert_eq!((all.n_gpus(), all.n_machines()), (6742, 1814));
    assert_eq!(all.gpu_counts()["K80"], 2240);
    assert_eq!(all.gpu_counts()["V100-32GB"], 1080);

    let sample = TableSample {
        n_gpus: Some(500),
        seed: 42,
        ..TableSample::default()
    };
    let c = t.to_cluster(&sample).unwrap();
    assert_eq!(c, t.to_cluster(&sample).unwrap());
    assert_eq!(c.n_gpus(), 500);
    // whole machines except possibly one
    let partial = c
        .machines()
        .iter()
        .enumerate()
        .filter(|(i, name)| {
            let full = t.machines.iter().find(|m| &m.name == *name).unwrap().n_gpus;
            c.gpus_of(worl_cluster::MachineId::new(*i)).len() < full
        })
        .count();
    assert!(partial <= 1);
}

#[test]
fn v2023_node_lists() {
    let Some(dir) = worl_dag::datasets::shared_data_dir().expect("shared data directory") else {
        return;
    };
    let expected = counts(&[
        ("A10", 2),
        ("G2", 4392),
        ("G3", 312),
        ("P100", 265),
        ("T4", 842),
        ("V100M16", 195),
        ("V100M32", 204),
    ]);
    let all =
        load_openb_node_list(dir.join("alibaba-gpu-v2023/openb_node_list_all_node.csv")).unwrap();
    assert_eq!(all.machines.len(), 1213);
    assert_eq!(all.skipped.len(), 310);
    assert!(all.skipped.iter().all(|s| s.reason.starts_with("CPU-only")));
    assert_eq!(all.gpu_counts(), expected);
    assert_eq!(all.n_gpus(), 6212);
    let gpu =
        load_openb_node_list(dir.join("alibaba-gpu-v2023/openb_node_list_gpu_node.csv")).unwrap();
    assert_eq!(gpu.machines.len(), 1213);
    assert!(gpu.skipped.is_empty());
    assert_eq!(gpu.gpu_counts(), expected);
    let c = gpu
        .to_cluster(&TableSample {
            n_gpus: Some(50),
            seed: 1,
            ..TableSample::default()
        })
        .unwrap();
    assert_eq!(c.n_gpus(), 50);
    let full = gpu.to_cluster(&TableSample::default()).unwrap();
    assert_eq!(full.gpu_counts()["V100-16GB"], 195);
    assert_eq!(full.gpu_counts()["G2"], 4392);
}

#[test]
fn authors_machine_usage_gives_the_busy_range() {
    let Some(dir) = worl_dag::datasets::shared_data_dir().expect("shared data directory") else {
        return;
    };
    let u = load_machine_usage(dir.join("worl-rtgs-authors/GPU.csv")).unwrap();
    assert_eq!(u.len(), 50);
    assert_eq!(u[0], ("m_1934".to_owned(), 0.77));
    let (lo, hi) = u
        .iter()
        .fold((1.0f64, 0.0f64), |(lo, hi), &(_, x)| (lo.min(x), hi.max(x)));
    assert_eq!((lo, hi), (0.58, 0.85));
    let LoadState::Busy { utilisation, .. } = LoadState::paper_busy() else {
        unreachable!()
    };
    assert_eq!(utilisation, (lo, hi));
    // as background utilisation of a 50-GPU paper pool
    let mut c = presets::paper_pool(50, 500.0, 3).unwrap();
    for (k, &(_, x)) in u.iter().enumerate() {
        c.set_background(worl_cluster::GpuId::new(k), x).unwrap();
    }
    let w = std::sync::Arc::new({
        let mut b = worl_dag::WorkloadBuilder::new("w");
        let j = b.add_job("j").unwrap();
        b.add_task(j, "a", 1.0, None).unwrap();
        b.build().unwrap()
    });
    let p = Problem::new(w, std::sync::Arc::new(c)).unwrap();
    let k = worl_cluster::GpuId::new(0);
    assert!((p.effective_speed(k) - p.cluster().gpu(k).speed * 0.23).abs() < 1e-12);
}
