//! Regression tests for hostile numbers: GPU counts that would exhaust memory or wrap,
//! subnormal speeds and bandwidths, costs and sums that overflow, and metrics of schedules
//! whose lower bound is 0.

mod common;

use common::{single_gpu_machines, t, workload};
use ndarray::Array2;
use std::sync::Arc;
use worl_cluster::formats::openb::{OpenbModels, parse_openb_node_list};
use worl_cluster::formats::pai::parse_pai_machine_spec;
use worl_cluster::formats::{MachineRecord, MachineTable};
use worl_cluster::{
    Cluster, ClusterBuilder, ClusterError, Evaluator, GpuId, GpuModel, Link, MAX_GPUS,
    MAX_GPUS_PER_MACHINE, Network, Plan, Policy, Problem, RATIO_CAP, TableSample,
};

fn g(i: usize) -> GpuId {
    GpuId::new(i)
}

/// A parse error's (file, line, message).
fn parse_error(e: ClusterError) -> (String, usize, String) {
    match e {
        ClusterError::Parse {
            file,
            line,
            message,
        } => (file, line, message),
        other => panic!("expected a parse error, got {other}"),
    }
}

#[test]
fn pai_gpu_count_of_four_billion_is_a_parse_error_not_an_abort() {
    let e = parse_pai_machine_spec("m0,T4,96,512,4000000000\n".as_bytes(), "pai.csv").unwrap_err();
    let (file, line, message) = parse_error(e);
    assert_eq!((file.as_str(), line), ("pai.csv", 1));
    assert!(
        message.contains("`m0`") && message.contains("4000000000") && message.contains("64"),
        "{message}"
    );
    // 64 per machine is accepted, 65 is not.
    let t = parse_pai_machine_spec("m0,T4,96,512,64\n".as_bytes(), "pai.csv").unwrap();
    assert_eq!(t.to_cluster(&TableSample::default()).unwrap().n_gpus(), 64);
    let e = parse_pai_machine_spec("m0,T4,96,512,8\nm1,V100,1,1,65\n".as_bytes(), "pai.csv")
        .unwrap_err();
    let (_, line, message) = parse_error(e);
    assert_eq!(line, 2);
    assert!(message.contains("`m1`"), "{message}");
}

#[test]
fn pai_gpu_count_of_u64_max_does_not_wrap() {
    let text = "m0,T4,96,512,18446744073709551615\nm1,T4,96,512,2\n";
    let (_, line, message) =
        parse_error(parse_pai_machine_spec(text.as_bytes(), "pai.csv").unwrap_err());
    assert_eq!(line, 1);
    assert!(message.contains("`m0`"), "{message}");
    // A table built by hand with the same counts: no wrap to 1 GPU.
    let rec = |name: &str, line: usize, n_gpus: usize| MachineRecord {
        name: name.to_owned(),
        line,
        gpu_type: "T4".to_owned(),
        model: GpuModel::t4(),
        n_gpus,
        cpu_cores: 96.0,
        host_mem_gib: 512.0,
    };
    let table = MachineTable {
        source: "hand.csv".to_owned(),
        machines: vec![rec("m0", 1, usize::MAX), rec("m1", 2, 2)],
        skipped: Vec::new(),
    };
    assert_eq!(table.n_gpus(), usize::MAX); // saturates
    let (file, line, message) = parse_error(table.to_cluster(&TableSample::default()).unwrap_err());
    assert_eq!((file.as_str(), line), ("hand.csv", 1));
    assert!(message.contains("`m0`"), "{message}");
    // Many machines of 64 GPUs: the total cap, at the first machine past it.
    let n = MAX_GPUS / 64 + 1;
    let table = MachineTable {
        source: "big.csv".to_owned(),
        machines: (0..n).map(|i| rec(&format!("m{i}"), i + 1, 64)).collect(),
        skipped: Vec::new(),
    };
    let (_, line, message) = parse_error(table.to_cluster(&TableSample::default()).unwrap_err());
    assert_eq!(line, n);
    assert!(message.contains(&format!("`m{}`", n - 1)), "{message}");
    let text: String = (0..n).map(|i| format!("m{i},V100,64,512,64\n")).collect();
    let (_, line, _) = parse_error(parse_pai_machine_spec(text.as_bytes(), "pai.csv").unwrap_err());
    assert_eq!(line, n);
}

#[test]
fn openb_gpu_count_and_amounts_are_checked() {
    let head = "sn,cpu_milli,memory_mib,gpu,model\n";
    let e = parse_openb_node_list(
        format!("{head}n0,96000,393216,4000000000,G2\n").as_bytes(),
        "o.csv",
        &OpenbModels::default(),
    )
    .unwrap_err();
    let (_, line, message) = parse_error(e);
    assert_eq!(line, 2);
    assert!(
        message.contains("`n0`") && message.contains("gpu"),
        "{message}"
    );
    for bad in ["NaN", "inf", "-5"] {
        let e = parse_openb_node_list(
            format!("{head}n0,{bad},393216,8,G2\n").as_bytes(),
            "o.csv",
            &OpenbModels::default(),
        )
        .unwrap_err();
        let (_, line, message) = parse_error(e);
        assert_eq!(line, 2);
        assert!(
            message.contains("cpu_milli") && message.contains("`n0`"),
            "{message}"
        );
    }
    let e = parse_pai_machine_spec("m0,T4,NaN,512,2\n".as_bytes(), "pai.csv").unwrap_err();
    assert!(parse_error(e).2.contains("cap_cpu"));
}

#[test]
fn builder_refuses_counts_beyond_the_caps_before_allocating() {
    let mut b = ClusterBuilder::new("c");
    let m = b.add_machine("box");
    let e = b.add_gpus(m, &GpuModel::t4(), 4_000_000_000).unwrap_err();
    assert!(
        matches!(
            &e,
            ClusterError::TooManyGpus { item, count: 4_000_000_000, limit: MAX_GPUS_PER_MACHINE }
                if item == "machine `box`"
        ),
        "{e}"
    );
    assert_eq!(b.n_gpus(), 0);
    b.add_gpus(m, &GpuModel::t4(), MAX_GPUS_PER_MACHINE)
        .unwrap();
    assert!(matches!(
        b.add_gpu(m, &GpuModel::t4()),
        Err(ClusterError::TooManyGpus { .. })
    ));
    assert!(matches!(
        b.add_gpus(m, &GpuModel::t4(), usize::MAX),
        Err(ClusterError::TooManyGpus {
            count: usize::MAX,
            ..
        })
    ));
    assert_eq!(b.build().unwrap().n_gpus(), 64);
}

#[test]
fn native_format_refuses_65_gpus_on_one_machine() {
    let gpus = "[[gpus]]\nmodel = \"T4\"\nmachine = 0\n".repeat(65);
    let text = format!(
        "name = \"c\"\nmachines = [\"box\"]\n[network]\nkind = \"uniform\"\nintra = {{ bandwidth = 12e9, latency = 1e-5 }}\ninter = {{ bandwidth = 3.125e9, latency = 5e-5 }}\n{gpus}"
    );
    let e = Cluster::from_toml_str(&text).unwrap_err().to_string();
    assert!(e.contains("machine `box`") && e.contains("64"), "{e}");
}

#[test]
fn subnormal_speeds_and_bandwidths_are_rejected_at_cluster_build() {
    let mut b = ClusterBuilder::new("c");
    let m = b.add_machine("a");
    let k = b.add_gpu(m, &GpuModel::t4()).unwrap();
    b.set_speed(k, 1e-320).unwrap();
    assert!(matches!(
        b.build(),
        Err(ClusterError::InvalidValue { field: "speed", value, .. }) if value == 1e-320
    ));
    // A normal speed whose effective speed (at 99.999999 % background) is subnormal.
    let mut b = ClusterBuilder::new("c");
    let m = b.add_machine("a");
    let k = b.add_gpu(m, &GpuModel::t4()).unwrap();
    b.set_speed(k, 1e-300).unwrap();
    b.set_background(k, 0.999_999_99).unwrap();
    assert!(matches!(
        b.build(),
        Err(ClusterError::InvalidValue {
            field: "effective speed",
            ..
        })
    ));
    assert!(Link::new(1e-320, 0.0).is_err());
    assert!(GpuModel::custom("tiny", 1e-320, 16.0).is_err());
    let text = "name = \"c\"\nmachines = [\"a\"]\n[network]\nkind = \"uniform\"\nintra = { bandwidth = 12e9, latency = 1e-5 }\ninter = { bandwidth = 1e-320, latency = 5e-5 }\n[[gpus]]\nmodel = \"T4\"\nmachine = 0\n";
    let e = Cluster::from_toml_str(text).unwrap_err().to_string();
    assert!(
        e.contains("inter-machine link: bandwidth = 1e-320 is invalid"),
        "{e}"
    );
    let text = text.replace("bandwidth = 1e-320", "bandwidth = 1e9");
    let e = Cluster::from_toml_str(&text.replace("machine = 0\n", "machine = 0\nspeed = 1e-320\n"))
        .unwrap_err()
        .to_string();
    assert!(e.contains("g0: speed = 1e-320 is invalid"), "{e}");
}

#[test]
fn execution_time_that_overflows_names_task_and_gpu() {
    // 1e10 reference-seconds on a GPU of speed 1e-300: 1e310 s.
    let w = workload(&[("a", 1.0, None), ("b", 1e10, None)], &[(0, 1, 0.0)]);
    let mut b = ClusterBuilder::new("slow");
    let m0 = b.add_machine("n0");
    let m1 = b.add_machine("n1");
    b.add_gpu(m0, &GpuModel::t4()).unwrap();
    let k = b.add_gpu(m1, &GpuModel::t4()).unwrap();
    b.set_speed(k, 1e-300).unwrap();
    let e = Problem::new(w, Arc::new(b.build().unwrap())).unwrap_err();
    assert!(
        matches!(
            &e,
            ClusterError::NonFiniteCost { what: "execution", task, gpu, value }
                if task == "j/b" && gpu == "g1" && *value == f64::INFINITY
        ),
        "{e}"
    );
    // Unrelated machines: 1e308 s at 50 % background is 2e308 s.
    let w = workload(&[("a", 1.0, None)], &[]);
    let mut c = single_gpu_machines(&[1.0, 1.0], Link::ETHERNET_10G);
    c.set_background(g(1), 0.5).unwrap();
    let e = Problem::with_exec_times(w, Arc::new(c), Array2::from_elem((1, 2), 1e308)).unwrap_err();
    assert!(
        matches!(&e, ClusterError::NonFiniteCost { what: "execution", task, gpu, .. }
            if task == "j/a" && gpu == "g1"),
        "{e}"
    );
}

#[test]
fn communication_time_that_overflows_names_edge_and_gpus() {
    // 1e10 bytes over 1e-300 bytes/s.
    let w = workload(&[("a", 1.0, None), ("b", 1.0, None)], &[(0, 1, 1e10)]);
    let c = single_gpu_machines(
        &[1.0, 1.0],
        Link {
            bandwidth: 1e-300,
            latency: 0.0,
        },
    );
    let e = Problem::new(w, Arc::new(c)).unwrap_err();
    assert!(
        matches!(
            &e,
            ClusterError::NonFiniteCost { what: "communication", task, gpu, .. }
                if task == "j/a -> j/b" && gpu == "g0 -> g1"
        ),
        "{e}"
    );
    // The same edge on one GPU never communicates: accepted.
    let w = workload(&[("a", 1.0, None), ("b", 1.0, None)], &[(0, 1, 1e10)]);
    let c = single_gpu_machines(
        &[1.0],
        Link {
            bandwidth: 1e-300,
            latency: 0.0,
        },
    );
    assert!(Problem::new(w, Arc::new(c)).is_ok());
}

#[test]
fn chain_of_work_1e308_is_rejected_so_the_lower_bound_stays_finite() {
    // Σ w = 3e308 overflows though each time on a V100 (1e308 / 1) and on the fastest GPU
    // is finite.
    let w = Arc::new(worl_dag::generators::shapes::chain(3, 1e308, 0.0).unwrap());
    let c = Arc::new(worl_cluster::presets::homogeneous(2, &GpuModel::h100()).unwrap());
    let e = Problem::new(w, c.clone()).unwrap_err();
    assert!(
        matches!(&e, ClusterError::Overflow { task, .. } if task == "job/t1"),
        "{e}"
    );
    // The worst-case schedule length on a slow GPU overflows first.
    let w = Arc::new(worl_dag::generators::shapes::chain(3, 1e308, 0.0).unwrap());
    let slow = Arc::new(single_gpu_machines(&[1.0, 0.9], Link::ETHERNET_10G));
    let e = Problem::new(w, slow).unwrap_err();
    assert!(
        matches!(&e, ClusterError::Overflow { what: "worst-case schedule length", task }
            if task == "job/t1"),
        "{e}"
    );
    // Just below: 3 · 5e307 = 1.5e308 on speed-1 GPUs builds, with a finite lower bound
    // equal to the makespan of the chain on one GPU.
    let w = Arc::new(worl_dag::generators::shapes::chain(3, 5e307, 0.0).unwrap());
    let p = Problem::new(
        w,
        Arc::new(single_gpu_machines(&[1.0, 1.0], Link::ETHERNET_10G)),
    )
    .unwrap();
    let total: f64 = 5e307 + 5e307 + 5e307;
    assert!(total.is_finite());
    let lb = p.lower_bound();
    assert_eq!((lb.critical_path, lb.value), (total, total));
    let mut ev = Evaluator::new(&p);
    let s = ev
        .schedule(
            &Plan::in_topo_order(p.graph(), vec![g(0); 3]),
            Policy::Insertion,
        )
        .unwrap();
    assert!(s.validate(&p).is_empty());
    let m = s.metrics(&p);
    assert_eq!(
        (m.makespan, m.lower_bound, m.gap, m.slr),
        (total, total, 1.0, 1.0)
    );
    assert_eq!(m.utilisation, 0.5);
}

#[test]
fn lower_bound_area_survives_huge_speeds_and_ready_times() {
    // Σ s r = 2 · 1e300 · 1e10 overflows; the area bound is still 1e10 + 2 / 2e300 = 1e10.
    let w = workload(&[("a", 2.0, None)], &[]);
    let mut b = ClusterBuilder::new("fast");
    for i in 0..2 {
        let m = b.add_machine(format!("n{i}"));
        let k = b.add_gpu(m, &GpuModel::t4()).unwrap();
        b.set_speed(k, 1e300).unwrap();
        b.set_ready_time(k, 1e10).unwrap();
    }
    let p = Problem::new(w, Arc::new(b.build().unwrap())).unwrap();
    let lb = p.lower_bound();
    assert_eq!((lb.critical_path, lb.area, lb.value), (1e10, 1e10, 1e10));
}

#[test]
fn zero_work_with_latency_reports_finite_slr_and_gap() {
    // a -> b with no work and no bytes; across machines the transfer costs 0.5 s latency.
    let slow = Link {
        bandwidth: 1.0e9,
        latency: 0.5,
    };
    let w = workload(&[("a", 0.0, None), ("b", 0.0, None)], &[(0, 1, 0.0)]);
    let p = Problem::new(w, Arc::new(single_gpu_machines(&[1.0, 1.0], slow))).unwrap();
    assert_eq!(p.lower_bound().value, 0.0);
    assert_eq!(p.min_critical_path(), 0.0);
    let mut ev = Evaluator::new(&p);
    let split = ev
        .schedule(
            &Plan::new(vec![g(0), g(1)], vec![t(0), t(1)]),
            Policy::Append,
        )
        .unwrap();
    assert!(split.validate(&p).is_empty());
    let m = split.metrics(&p);
    assert_eq!(m.makespan, 0.5);
    assert_eq!((m.slr, m.gap), (RATIO_CAP, RATIO_CAP));
    assert_eq!(RATIO_CAP, 1.0 / f64::EPSILON);
    assert_eq!((m.speedup, m.efficiency, m.utilisation), (0.0, 0.0, 0.0));
    let together = ev
        .schedule(
            &Plan::new(vec![g(0), g(0)], vec![t(0), t(1)]),
            Policy::Append,
        )
        .unwrap();
    let m = together.metrics(&p);
    assert_eq!(
        (
            m.makespan,
            m.slr,
            m.gap,
            m.speedup,
            m.efficiency,
            m.utilisation
        ),
        (0.0, 1.0, 1.0, 1.0, 0.5, 0.0)
    );
}

#[test]
fn large_networks_of_empty_machines_build_quickly() {
    // 20,000 machine names (one with a GPU) under a uniform network: O(M), not O(M²).
    let mut b = ClusterBuilder::new("sparse");
    let first = b.add_machine("m0");
    for i in 1..20_000 {
        b.add_machine(format!("m{i}"));
    }
    b.add_gpu(first, &GpuModel::t4()).unwrap();
    b.network(Network::uniform(Link::NVLINK2, Link::ETHERNET_10G));
    let w = workload(&[("a", 1.0, None)], &[]);
    let p = Problem::new(w, Arc::new(b.build().unwrap())).unwrap();
    assert_eq!(p.exec_time(t(0), g(0)), 1.0 / GpuModel::t4().relative_speed);
}

/// Issue 20: `pai-mix:18446744073709551615` drew one GPU type per GPU before the limit was
/// checked (hung for minutes); every count from a description is checked before any work,
/// and per-machine-pair networks beyond `MAX_PAIR_MACHINES` machines (16 n² bytes) too.
#[test]
fn pai_mix_huge_count_fails_fast() {
    use worl_cluster::{MAX_PAIR_MACHINES, description, presets};
    let too_many = |d: &str| match description::parse(d) {
        Err(ClusterError::TooManyGpus { count, limit, .. }) => (count, limit),
        other => panic!("{d}: expected TooManyGpus, got {other:?}"),
    };
    for d in [
        "pai-mix:18446744073709551615",
        "pai-mix:4294967296",
        "pai-mix:65537",
        "homogeneous:18446744073709551615:T4",
        "paper-pool:18446744073709551615:500",
    ] {
        let (count, limit) = too_many(d);
        assert!(count > limit, "{d}: {count} <= {limit}");
    }
    assert_eq!(too_many("pai-mix:65537"), (65_537, MAX_GPUS));
    for d in ["18446744073709551615x8:T4", "65537x1:T4"] {
        let e = description::parse(d).unwrap_err().to_string();
        assert!(e.contains("is not in 1..=65536"), "{d}: {e}");
    }
    assert_eq!(
        too_many("dgx:18446744073709551615:H100"),
        (usize::MAX, MAX_GPUS)
    );
    // Within the GPU limit but beyond the per-machine-pair network limit (68 GB of
    // matrices at 65,536 machines).
    let e = description::parse("paper-pool:65536:500")
        .unwrap_err()
        .to_string();
    assert_eq!(
        e,
        format!(
            "invalid parameter `machines`: cluster paper-pool:65536 needs 65536 machines with a \
             link per machine pair; such a network holds at most {MAX_PAIR_MACHINES} machines \
             (its matrices take 16 n² bytes)"
        )
    );
    let e = description::parse("pai-mix:65536").unwrap_err().to_string();
    assert!(
        e.contains("needs 17704 machines with a link per machine pair"),
        "{e}"
    );
    // A compact cluster file of 65,536 one-GPU machines, one of them with another intra link.
    let toml = "machines = 65536\ngpus_per_machine = 1\nmodel = \"T4\"\n\n[[machine]]\nindex = 0\nintra = \"NVLink3\"\n";
    let e = Cluster::from_toml_str(toml).unwrap_err().to_string();
    assert!(e.contains("with a link per machine pair"), "{e}");
    // The limits themselves still build.
    assert_eq!(presets::pai_mix(4096, 1).unwrap().n_gpus(), 4096);
    assert_eq!(
        description::parse("paper-pool:64:500").unwrap().n_gpus(),
        64
    );
}

/// A small file must not expand into gigabytes: a 1 MB model name or machine prefix was
/// copied to each of 65,536 GPUs or machines. Each is refused before allocating (the saga
/// network of 65,536 nodes: `worl-io/tests/saga.rs`).
#[test]
fn small_files_that_would_expand_to_gigabytes_are_refused_before_allocating() {
    use worl_cluster::MAX_NAME_LEN;
    let long = "x".repeat(1 << 20);
    let toml = format!(
        "machines = 65536\ngpus_per_machine = 1\nmodel = {{ name = \"{long}\", relative_speed = 1, mem_gib = 16 }}\n"
    );
    let e = Cluster::from_toml_str(&toml).unwrap_err().to_string();
    assert!(
        e.starts_with("<memory>:3: ")
            && e.contains(&format!("1048576 bytes long, more than {MAX_NAME_LEN}")),
        "{}",
        &e[..e.len().min(300)]
    );
    let toml = format!(
        "machines = 65536\ngpus_per_machine = 1\nmodel = \"T4\"\nmachine_prefix = \"{long}\"\n"
    );
    let e = Cluster::from_toml_str(&toml).unwrap_err().to_string();
    assert!(
        e.starts_with("<memory>:4: ") && e.contains("1048576 bytes, more than 256"),
        "{}",
        &e[..e.len().min(300)]
    );
    // 256 bytes is still a name.
    assert!(GpuModel::custom("y".repeat(MAX_NAME_LEN), 1.0, 16.0).is_ok());
}
