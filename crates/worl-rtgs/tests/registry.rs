//! The builtin baselines in the registry: names, descriptions, options and their errors.

mod common;

use common::NAMES;
use worl_cluster::Policy;
use worl_rtgs::schedulers::{Cpop, Heft, MaxMin, MinMin, Peft};
use worl_rtgs::{Options, Registry, ScheduleError};

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
    assert_eq!(expected.len(), NAMES.len());
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
    for name in NAMES {
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
