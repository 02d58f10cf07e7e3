//! Building schedulers by name: [`Options`], [`Registry`] and scheduler specs
//! (`"rtgs:whales=30,iterations=100"`), for examples, experiment configs and a CLI.

use crate::error::{Result, ScheduleError};
use crate::scheduler::Scheduler;
use std::collections::BTreeMap;
use std::fmt;
use std::str::FromStr;

/// Key-value options of one scheduler, as strings; each scheduler takes the keys it knows
/// with [`take`](Self::take) and rejects the rest with [`finish`](Self::finish), so a typo is
/// an error, not a silently ignored setting.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Options {
    scheduler: String,
    values: BTreeMap<String, String>,
    taken: Vec<String>,
}

impl Options {
    /// Empty options for `scheduler` (the name used in error messages).
    pub fn new(scheduler: impl Into<String>) -> Self {
        Self {
            scheduler: scheduler.into(),
            ..Self::default()
        }
    }

    /// Adds `key = value` (the last value of a key wins).
    pub fn with(mut self, key: impl Into<String>, value: impl ToString) -> Self {
        self.values.insert(key.into(), value.to_string());
        self
    }

    /// The scheduler these options are for.
    pub fn scheduler(&self) -> &str {
        &self.scheduler
    }

    /// Removes `key` and parses its value, or `None` if absent.
    ///
    /// Errors: [`ScheduleError::InvalidOption`] if the value does not parse as `T`.
    pub fn take<T>(&mut self, key: &str) -> Result<Option<T>>
    where
        T: FromStr,
        T::Err: fmt::Display,
    {
        self.taken.push(key.to_owned());
        match self.values.remove(key) {
            None => Ok(None),
            Some(v) => v
                .parse::<T>()
                .map(Some)
                .map_err(|e| ScheduleError::InvalidOption {
                    scheduler: self.scheduler.clone(),
                    key: key.to_owned(),
                    value: v.clone(),
                    reason: e.to_string(),
                }),
        }
    }

    /// Like [`take`](Self::take) with a default for an absent key.
    pub fn take_or<T>(&mut self, key: &str, default: T) -> Result<T>
    where
        T: FromStr,
        T::Err: fmt::Display,
    {
        Ok(self.take(key)?.unwrap_or(default))
    }

    /// An [`ScheduleError::InvalidOption`] for `key = value` with `reason`, for range checks
    /// after parsing.
    pub fn invalid(
        &self,
        key: &str,
        value: impl ToString,
        reason: impl Into<String>,
    ) -> ScheduleError {
        ScheduleError::InvalidOption {
            scheduler: self.scheduler.clone(),
            key: key.to_owned(),
            value: value.to_string(),
            reason: reason.into(),
        }
    }

    /// Ends option parsing. Errors: [`ScheduleError::UnknownOption`] for the first key no
    /// [`take`](Self::take) asked for.
    pub fn finish(self) -> Result<()> {
        match self.values.into_keys().next() {
            None => Ok(()),
            Some(key) => Err(ScheduleError::UnknownOption {
                scheduler: self.scheduler,
                key,
                known: self.taken,
            }),
        }
    }
}

/// A function that builds a scheduler from its options.
pub type Builder = Box<dyn Fn(Options) -> Result<Box<dyn Scheduler>> + Send + Sync>;

struct Entry {
    description: String,
    build: Builder,
}

/// Schedulers by name (case-insensitive). [`Registry::with_builtins`] holds every scheduler
/// of this crate; [`register`](Self::register) adds your own.
///
/// ```
/// use worl_rtgs::{Options, Registry, Scheduler};
/// # struct Mine;
/// # impl Scheduler for Mine {
/// #     fn name(&self) -> &str { "mine" }
/// #     fn schedule(&mut self, _: &worl_cluster::Problem, _: &mut worl_rtgs::RunContext<'_>)
/// #         -> worl_rtgs::Result<worl_cluster::Schedule> { unimplemented!() }
/// # }
/// let mut registry = Registry::with_builtins();
/// // A builtin, by spec: HEFT with the append policy instead of insertion.
/// let heft = registry.build_spec("heft:policy=append")?;
/// assert_eq!(heft.name(), "HEFT");
/// assert!(registry.build_spec("heft:policy=sideways").is_err());
/// // Your own.
/// registry.register("mine", "my scheduler", |mut opts: Options| {
///     let _depth: usize = opts.take_or("depth", 3)?;
///     opts.finish()?;
///     Ok(Box::new(Mine))
/// });
/// assert_eq!(registry.build_spec("mine:depth=5")?.name(), "mine");
/// assert!(registry.build_spec("mine:nonsense=1").is_err());
/// assert!(registry.build_spec("mine:depth=deep").is_err());
/// # Ok::<(), worl_rtgs::ScheduleError>(())
/// ```
#[derive(Default)]
pub struct Registry {
    entries: BTreeMap<String, Entry>,
}

impl fmt::Debug for Registry {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.entries.keys()).finish()
    }
}

impl Registry {
    /// An empty registry.
    pub fn new() -> Self {
        Self::default()
    }

    /// Every scheduler of this crate, under the names listed by [`names`](Self::names).
    pub fn with_builtins() -> Self {
        let mut r = Self::new();
        crate::schedulers::register_builtins(&mut r);
        r
    }

    /// Adds (or replaces) scheduler `name` with a one-line `description` and its builder.
    pub fn register(
        &mut self,
        name: &str,
        description: &str,
        build: impl Fn(Options) -> Result<Box<dyn Scheduler>> + Send + Sync + 'static,
    ) {
        self.entries.insert(
            name.to_ascii_lowercase(),
            Entry {
                description: description.to_owned(),
                build: Box::new(build),
            },
        );
    }

    /// Registered names, sorted, lowercase.
    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.entries.keys().map(String::as_str)
    }

    /// The description of scheduler `name`, if registered.
    pub fn description(&self, name: &str) -> Option<&str> {
        self.entries
            .get(&name.to_ascii_lowercase())
            .map(|e| e.description.as_str())
    }

    /// Builds scheduler `name` with `options`.
    ///
    /// Errors: [`ScheduleError::UnknownScheduler`], or the scheduler's own option errors.
    pub fn build(&self, name: &str, options: Options) -> Result<Box<dyn Scheduler>> {
        match self.entries.get(&name.to_ascii_lowercase()) {
            Some(e) => (e.build)(options),
            None => Err(ScheduleError::UnknownScheduler {
                name: name.to_owned(),
                known: self.entries.keys().cloned().collect(),
            }),
        }
    }

    /// Builds a scheduler from a spec `name` or `name:key=value,key=value`.
    ///
    /// Errors: [`ScheduleError::InvalidSpec`] for a malformed spec, else as
    /// [`build`](Self::build).
    pub fn build_spec(&self, spec: &str) -> Result<Box<dyn Scheduler>> {
        let (name, rest) = spec.split_once(':').unwrap_or((spec, ""));
        let name = name.trim();
        if name.is_empty() {
            return Err(ScheduleError::InvalidSpec {
                spec: spec.into(),
                reason: "no scheduler name".into(),
            });
        }
        let mut options = Options::new(name);
        for pair in rest.split(',').map(str::trim).filter(|p| !p.is_empty()) {
            let Some((k, v)) = pair.split_once('=') else {
                return Err(ScheduleError::InvalidSpec {
                    spec: spec.into(),
                    reason: format!("`{pair}` is not key=value"),
                });
            };
            options = options.with(k.trim(), v.trim());
        }
        self.build(name, options)
    }
}
