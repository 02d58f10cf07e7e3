//! The builtin baselines in the registry: names, descriptions, options and their errors.

mod common;

use common::list_names;
use worl_cluster::Policy;
use worl_sched::schedulers::{Cpop, Heft, MaxMin, MinMin, Peft};
use worl_sched::{Options, Registry, ScheduleError};

#[test]
fn every_baseline_is_registered_with_a_description_and_its_display_name() {
    let r = Registry::with_builtins();
    let expected = [
        ("heft", "HEFT"),
        ("cpop", "CPOP"),
        ("peft", "PEFT"),
        ("min-min", "Min-Min"),
        ("max-min", "Max-Min"),
        ("least-connection", "least-connection"),
        ("round-robin", "round-robin"),
        ("random", "random"),
    ];
    assert_eq!(expected.len(), list_names().len());
    for (name, display) in expected {
        assert!(r.names().any(|n| n == name), "{name} not registered");
        assert!(!r.description(name).unwrap().is_empty());
        assert_eq!(r.build(name, Options::new(name)).unwrap().name(), display);
        // Names are case-insensitive.
        assert_eq!(r.build_spec(&name.to_uppercase()).unwrap().name(), display);
    }
}

#[test]
fn policy_and_tolerance_options_are_parsed() {
    let opts = |k: &str, v: &str| Options::new("x").with(k, v);
    assert_eq!(
        Heft::from_options(Options::new("heft")).unwrap().policy(),
        Policy::Insertion
    );
    assert_eq!(
        Heft::from_options(opts("policy", "append"))
            .unwrap()
            .policy(),
        Policy::Append
    );
    assert_eq!(
        Peft::from_options(opts("policy", "Append"))
            .unwrap()
            .policy(),
        Policy::Append
    );
    assert_eq!(
        MinMin::from_options(Options::new("m")).unwrap().policy(),
        Policy::Append
    );
    assert_eq!(
        MaxMin::from_options(opts("policy", "insertion"))
            .unwrap()
            .policy(),
        Policy::Insertion
    );
    let c = Cpop::from_options(Options::new("cpop").with("tolerance", 1e-6)).unwrap();
    assert_eq!((c.policy(), c.tolerance()), (Policy::Insertion, 1e-6));
    assert_eq!(Cpop::new().tolerance(), Cpop::DEFAULT_TOLERANCE);
}

#[test]
fn bad_options_are_typed_errors_naming_the_option() {
    let r = Registry::with_builtins();
    for name in list_names() {
        match r.build_spec(&format!("{name}:policy=sideways")) {
            Err(ScheduleError::InvalidOption { key, value, .. }) => {
                assert_eq!((key.as_str(), value.as_str()), ("policy", "sideways"));
            }
            other => panic!("{name}: {:?}", other.map(|s| s.name().to_owned())),
        }
        match r.build_spec(&format!("{name}:polcy=append")) {
            Err(ScheduleError::UnknownOption { key, known, .. }) => {
                assert_eq!(key, "polcy");
                assert!(known.contains(&"policy".to_owned()));
            }
            other => panic!("{name}: {:?}", other.map(|s| s.name().to_owned())),
        }
    }
    for bad in ["-1", "NaN", "inf", "small"] {
        assert!(
            matches!(
                r.build_spec(&format!("cpop:tolerance={bad}")),
                Err(ScheduleError::InvalidOption { .. })
            ),
            "tolerance={bad}"
        );
    }
}

/// One vocabulary: every option enum's `Display` is its serde spelling and parses back with
/// `FromStr`; the older spellings still parse.
#[test]
fn option_enums_share_one_spelling_for_options_serde_and_display() {
    use worl_sched::schedulers::rtgs::{HopeRule, Lookahead, RtgsPreset};
    use worl_sched::schedulers::search::TaskOrder;
    use worl_woa::{ASchedule, Replacement};

    fn same<T>(values: &[T])
    where
        T: std::fmt::Display + std::str::FromStr + serde::Serialize + PartialEq + std::fmt::Debug,
        T::Err: std::fmt::Debug,
    {
        for v in values {
            let text = v.to_string();
            assert_eq!(serde_json::to_string(v).unwrap(), format!("\"{text}\""));
            assert_eq!(&text.parse::<T>().unwrap(), v);
        }
    }
    same(&[Policy::Append, Policy::Insertion]);
    same(&[TaskOrder::Topological, TaskOrder::UpwardRank]);
    same(&[HopeRule::Canonical, HopeRule::Authors]);
    same(&[Lookahead::Target, Lookahead::None]);
    same(&[RtgsPreset::Default, RtgsPreset::Paper]);
    same(&[Replacement::Canonical, Replacement::ElitistTruncation]);
    same(&[ASchedule::Linear, ASchedule::Exponential { rate: 3.0 }]);
    assert_eq!(TaskOrder::UpwardRank.to_string(), "upward-rank");
    // RTGS's published preset is `paper`, as WORL-RTGS's; the older `authors` still reads.
    assert_eq!("authors".parse::<RtgsPreset>().unwrap(), RtgsPreset::Paper);
    assert_eq!(RtgsPreset::Paper.to_string(), "paper");
    for (old, new) in [
        ("rank", TaskOrder::UpwardRank),
        ("upward_rank", TaskOrder::UpwardRank),
    ] {
        assert_eq!(old.parse::<TaskOrder>().unwrap(), new);
    }
    assert_eq!(
        "elitist".parse::<Replacement>().unwrap(),
        Replacement::ElitistTruncation
    );
    assert_eq!("insert".parse::<Policy>().unwrap(), Policy::Insertion);
    // The same spellings through a spec.
    let r = Registry::with_builtins();
    for spec in [
        "rtgs[order=upward-rank,replacement=elitist-truncation,a-schedule=exponential:3]",
        "rtgs:order=rank,replacement=elitist,a-schedule=exponential:3",
    ] {
        assert!(r.build_spec(spec).is_ok(), "{spec}");
    }
    match r.build_spec("rtgs[order=sideways]") {
        Err(ScheduleError::InvalidOption {
            key, value, reason, ..
        }) => {
            assert_eq!((key.as_str(), value.as_str()), ("order", "sideways"));
            assert!(reason.contains("topological"), "{reason}");
        }
        other => panic!("{:?}", other.map(|s| s.name().to_owned())),
    }
}

/// The spec grammar rejects what it cannot read unambiguously, naming the spec.
#[test]
fn malformed_specs_are_typed_errors() {
    let r = Registry::with_builtins();
    for bad in [
        "heft:",
        "heft[]",
        "heft[policy=append",
        "rtgs[whales=1,whales=2]",
        ":x=1",
        "heft[=1]",
    ] {
        match r.build_spec(bad) {
            Err(ScheduleError::InvalidSpec { spec, .. }) => assert_eq!(spec, bad),
            other => panic!("{bad}: {:?}", other.map(|s| s.name().to_owned())),
        }
    }
}

/// A time budget is spent, not only capped: WOA, PSO and GA given 2 iterations and 0.2 s of
/// CPU go on past their iteration count until the time is spent (each iteration on this
/// 30-task problem takes well under a millisecond), while without a time budget they stop
/// after 2 iterations; an evaluation budget beside the time keeps the iteration count.
/// (RTGS shares WOA's engine loop; it also stops at a fixed point, where no whale moves.)
#[test]
fn searches_spend_their_time_budget() {
    use std::ops::ControlFlow;
    use std::sync::Arc;
    use std::time::Duration;
    use worl_sched::{Budget, RunContext};
    let w = worl_dag::generators::layered::layered(
        &worl_dag::generators::layered::LayeredParams::new(30),
        2,
    )
    .unwrap();
    let p = worl_cluster::Problem::new(
        Arc::new(w),
        Arc::new(worl_cluster::presets::pai_mix(4, 1).unwrap()),
    )
    .unwrap();
    let r = Registry::with_builtins();
    for spec in [
        "woa:whales=6,iterations=2",
        "pso:particles=6,iterations=2",
        "ga:population=6,generations=2",
    ] {
        let steps = |budget: Budget| {
            let mut last = 0u64;
            let mut observe = |pr: &worl_sched::Progress| {
                last = pr.step;
                ControlFlow::Continue(())
            };
            let spent = {
                let mut ctx = RunContext::new(1)
                    .with_budget(budget)
                    .with_observer(&mut observe);
                let s = r.build_spec(spec).unwrap().schedule(&p, &mut ctx).unwrap();
                assert!(s.validate(&p).is_empty(), "{spec}");
                ctx.cpu_elapsed()
            };
            (last, spent)
        };
        let (n, spent) = steps(Budget::cpu_time(Duration::from_millis(200)));
        assert!(n > 10, "{spec}: {n} iterations in its time budget");
        assert!(spent >= Duration::from_millis(200), "{spec}: {spent:?}");
        assert!(steps(Budget::default()).0 <= 2, "{spec}");
        let both = Budget {
            max_evaluations: Some(1_000_000),
            ..Budget::cpu_time(Duration::from_millis(200))
        };
        assert!(steps(both).0 <= 2, "{spec}");
    }
}
