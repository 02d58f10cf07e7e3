//! Which schedulers an experiment runs: [`SchedulerSpec`], from a registry spec string or a
//! factory of your own.

use crate::error::Result;
use std::fmt;
use std::sync::Arc;
use worl_sched::Registry;
use worl_sched::Scheduler;
use worl_sched::registry::split_spec_list;

/// A function building a fresh scheduler (for schedulers not in the registry, or built with
/// settings a spec string cannot carry).
pub type Factory = Arc<dyn Fn() -> worl_sched::Result<Box<dyn Scheduler>> + Send + Sync>;

#[derive(Clone)]
enum Source {
    Registry(String),
    Factory(Factory),
}

/// One scheduler of an experiment: how to build it, its label in results, and whether one
/// instance is reused across runs.
///
/// By default every run gets a **fresh** scheduler, so runs are independent and their order
/// (or rayon) cannot change a result. [`reuse`](Self::reuse) keeps one instance for all of
/// that scheduler's runs, in problem-then-seed order (a learning scheduler carrying what it
/// learned); those runs are then executed one after another even in parallel mode.
///
/// The label defaults to the scheduler's [`name`](Scheduler::name) for a plain registry name
/// (`"heft"` → `HEFT` or whatever the scheduler calls itself), to the spec string itself for
/// a spec with options (`"rtgs:whales=60"`), and is given explicitly for a factory.
///
/// ```
/// use worl_experiment::SchedulerSpec;
/// let a = SchedulerSpec::registry("rtgs:whales=60").with_label("RTGS-60");
/// let b: SchedulerSpec = "heft".into();
/// assert_eq!(a.explicit_label(), Some("RTGS-60"));
/// assert_eq!(b.to_string(), "heft");
/// ```
#[derive(Clone)]
pub struct SchedulerSpec {
    label: Option<String>,
    source: Source,
    reuse: bool,
}

impl fmt::Debug for SchedulerSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SchedulerSpec")
            .field("label", &self.label)
            .field("source", &self.to_string())
            .field("reuse", &self.reuse)
            .finish()
    }
}

impl fmt::Display for SchedulerSpec {
    /// The registry spec string, or `factory:<label>`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.source {
            Source::Registry(s) => f.write_str(s),
            Source::Factory(_) => write!(f, "factory:{}", self.label.as_deref().unwrap_or("")),
        }
    }
}

impl SchedulerSpec {
    /// A scheduler built by [`Registry::build_spec`] from `spec` (`name` or
    /// `name:key=value,...`).
    pub fn registry(spec: impl Into<String>) -> Self {
        Self {
            label: None,
            source: Source::Registry(spec.into()),
            reuse: false,
        }
    }

    /// A scheduler built by `factory`, labelled `label`.
    pub fn factory(
        label: impl Into<String>,
        factory: impl Fn() -> worl_sched::Result<Box<dyn Scheduler>> + Send + Sync + 'static,
    ) -> Self {
        Self {
            label: Some(label.into()),
            source: Source::Factory(Arc::new(factory)),
            reuse: false,
        }
    }

    /// Sets the label used in results, tables and plots.
    pub fn with_label(mut self, label: impl Into<String>) -> Self {
        self.label = Some(label.into());
        self
    }

    /// Reuse one instance across all of this scheduler's runs (default `false`: a fresh
    /// instance per run).
    pub fn reuse(mut self, reuse: bool) -> Self {
        self.reuse = reuse;
        self
    }

    /// The label set explicitly (always set for a factory).
    pub fn explicit_label(&self) -> Option<&str> {
        self.label.as_deref()
    }

    /// Whether one instance is reused across runs.
    pub fn is_reused(&self) -> bool {
        self.reuse
    }

    /// Builds a fresh scheduler.
    ///
    /// Errors: those of [`Registry::build_spec`] or of the factory.
    pub fn build(&self, registry: &Registry) -> worl_sched::Result<Box<dyn Scheduler>> {
        match &self.source {
            Source::Registry(spec) => registry.build_spec(spec),
            Source::Factory(f) => f(),
        }
    }

    /// The label of a scheduler built from this spec (see the type docs).
    pub(crate) fn resolve_label(&self, built: &dyn Scheduler) -> String {
        match (&self.label, &self.source) {
            (Some(l), _) => l.clone(),
            (None, Source::Registry(s)) if s.contains([':', '[']) => s.trim().to_owned(),
            (None, _) => built.name().to_owned(),
        }
    }
}

/// Every scheduler of `registry` as a spec, in table order: WORL-RTGS (names containing
/// `worl`), then RTGS (`rtgs`), then the others alphabetically — the order the examples and
/// `docs/results.md` use.
///
/// ```
/// use worl_experiment::spec::all_registered;
/// let specs = all_registered(&worl_sched::Registry::new());
/// assert!(specs.is_empty());
/// ```
pub fn all_registered(registry: &Registry) -> Vec<SchedulerSpec> {
    let mut names: Vec<&str> = registry.names().collect();
    let key = |n: &str| {
        let n = n.to_ascii_lowercase();
        if n.contains("worl") {
            0
        } else if n == "rtgs" {
            1
        } else {
            2
        }
    };
    names.sort_by(|a, b| key(a).cmp(&key(b)).then(a.cmp(b)));
    names.into_iter().map(SchedulerSpec::registry).collect()
}

/// The specs of a command line's `--schedulers` values (each split by
/// [`split_spec_list`]), or, when none is given, [`all_registered`] — what the examples do.
///
/// Errors: [`ExperimentError::Schedule`](crate::ExperimentError::Schedule) with
/// [`ScheduleError::InvalidSpec`](worl_sched::ScheduleError::InvalidSpec) for a list with
/// unbalanced brackets or quotes.
///
/// ```
/// use worl_experiment::spec::specs_or_all;
/// let registry = worl_sched::Registry::with_builtins();
/// assert_eq!(specs_or_all(&registry, &["heft,rtgs:whales=5,iterations=2".into()])?.len(), 2);
/// assert_eq!(specs_or_all(&registry, &["heft;rtgs[whales=5,iterations=2]".into()])?.len(), 2);
/// assert!(specs_or_all(&registry, &[])?.len() >= 14);
/// # Ok::<(), worl_experiment::ExperimentError>(())
/// ```
pub fn specs_or_all(registry: &Registry, lists: &[String]) -> Result<Vec<SchedulerSpec>> {
    if lists.is_empty() {
        return Ok(all_registered(registry));
    }
    let mut out = Vec::new();
    for list in lists {
        out.extend(
            split_spec_list(list)?
                .into_iter()
                .map(SchedulerSpec::registry),
        );
    }
    Ok(out)
}

impl From<&str> for SchedulerSpec {
    fn from(spec: &str) -> Self {
        Self::registry(spec)
    }
}

impl From<String> for SchedulerSpec {
    fn from(spec: String) -> Self {
        Self::registry(spec)
    }
}
