//! The compact cluster file, TOML or JSON: "`machines` machines of `gpus_per_machine` GPUs of
//! one `model`, `intra` inside machines, `inter` between them", with per-machine overrides.
//! It reads into a [`ClusterSpec`] and builds through [`ClusterSpec::build`], so code and file
//! share one path. `docs/cluster-file.md` documents every key.
//!
//! ```toml
//! name = "a100-4x8-100gbe"        # optional, default "<machines>x<gpus_per_machine>-<model>"
//! machines = 4                    # an integer: this is what marks the compact form
//! machine_prefix = "node-"        # optional: machines are named node-0, node-1, ...
//! gpus_per_machine = 8
//! model = "A100-80GB"             # a catalog name (any case) or { name, relative_speed, mem_gib }
//! intra = "NVLink3"               # optional, default: the model's NVLink or PCIe 3.0
//! inter = { bandwidth = "100 Gbit/s", latency = "20 us" }   # or a name: "100GbE"; default 25GbE
//! background = 0.0                # optional, in [0, 1)
//! ready_time = "0 s"              # optional, s or a string with a unit
//! busy = ["2 h..4 h"]             # optional busy windows of every GPU: "FROM..TO" or [from, to] in s
//!
//! [[machine]]                     # optional overrides
//! index = 3                       # or a list: [2, 3]
//! model = "V100-32GB"
//! gpus = 4
//! background = [0.5, 0.0, 0.0, 0.2]   # one value, or one per GPU
//! busy = ["10 h..11.5 h"]         # replaces the top-level windows on these machines
//! ```
//!
//! [`Cluster::from_toml_str`], [`Cluster::from_json_str`] and [`Cluster::load`] read both the
//! compact and the verbose ([`native`](super::native)) form, telling them apart by the
//! top-level `machines`: an integer here, a list of names there.
//! [`Cluster::to_compact_toml_string`] writes the compact form when the cluster can be
//! expressed in it ([`ClusterSpec::from_cluster`]) and the verbose one otherwise.
//!
//! Errors are [`ClusterError::Parse`] naming the file, the line (1-based; 0 when it cannot be
//! located) and the key or `[[machine]]` override at fault.

use crate::catalog::GpuModel;
use crate::cluster::Cluster;
use crate::error::{ClusterError, Result};
use crate::network::Link;
use crate::presets::{self, NAMED_LINKS};
use serde::de::{self, IntoDeserializer, MapAccess, SeqAccess, Visitor};
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::fmt;

mod spec;
pub(crate) use spec::SpecItem;
pub use spec::{ClusterSpec, MachineOverride, PerGpu};

/// Bandwidth units: suffix and bytes/s per unit (`bit` = 1/8 byte, prefixes decimal, `Ki`,
/// `Mi`, `Gi` binary).
const BANDWIDTH_UNITS: &[(&str, f64)] = &[
    ("Tbit/s", 1.0e12 / 8.0),
    ("Gbit/s", 1.0e9 / 8.0),
    ("Mbit/s", 1.0e6 / 8.0),
    ("kbit/s", 1.0e3 / 8.0),
    ("bit/s", 1.0 / 8.0),
    ("Gbps", 1.0e9 / 8.0),
    ("Mbps", 1.0e6 / 8.0),
    ("GiB/s", 1_073_741_824.0),
    ("MiB/s", 1_048_576.0),
    ("TB/s", 1.0e12),
    ("GB/s", 1.0e9),
    ("MB/s", 1.0e6),
    ("kB/s", 1.0e3),
    ("B/s", 1.0),
];

/// Time units: suffix and how many per second (a value in the unit is divided by it).
const TIME_UNITS: &[(&str, f64)] = &[
    ("min", 1.0 / 60.0),
    ("ms", 1.0e3),
    ("us", 1.0e6),
    ("µs", 1.0e6),
    ("ns", 1.0e9),
    ("h", 1.0 / 3600.0),
    ("s", 1.0),
];

/// Splits `text` into a number and the longest matching unit of `units`.
fn split_unit<'u>(text: &str, units: &'u [(&'u str, f64)]) -> Option<(f64, &'u str, f64)> {
    let t = text.trim();
    let mut best: Option<(&str, f64)> = None;
    for &(u, f) in units {
        if t.ends_with(u) && best.is_none_or(|(b, _)| u.len() > b.len()) {
            best = Some((u, f));
        }
    }
    let (u, f) = best?;
    let number = t[..t.len() - u.len()].trim();
    number.parse::<f64>().ok().map(|x| (x, u, f))
}

/// A bandwidth with its unit, in bytes/s: `"100 Gbit/s"` = 12.5 · 10⁹, `"12.5 GB/s"`,
/// `"500 Mbit/s"` = 62.5 · 10⁶, `"1e9 B/s"`. Units (case matters: `b` is a bit, `B` a byte):
/// `bit/s`, `kbit/s`, `Mbit/s` (or `Mbps`), `Gbit/s` (or `Gbps`), `Tbit/s`, `B/s`, `kB/s`,
/// `MB/s`, `GB/s`, `TB/s` (decimal prefixes), `MiB/s`, `GiB/s` (binary). The value is not
/// range-checked here ([`ClusterSpec::build`] does).
///
/// Errors: [`ClusterError::InvalidParameter`] (`bandwidth`) for a missing or unknown unit or
/// a malformed number.
///
/// ```
/// use worl_cluster::formats::compact::parse_bandwidth;
/// assert_eq!(parse_bandwidth("100 Gbit/s")?, 12.5e9);
/// assert_eq!(parse_bandwidth("600GB/s")?, 600.0e9);
/// # Ok::<(), worl_cluster::ClusterError>(())
/// ```
pub fn parse_bandwidth(text: &str) -> Result<f64> {
    split_unit(text, BANDWIDTH_UNITS)
        .map(|(x, _, f)| x * f)
        .ok_or_else(|| ClusterError::InvalidParameter {
            name: "bandwidth",
            reason: format!(
                "`{text}` is not a number with a unit (bit/s, Mbit/s, Gbit/s, B/s, MB/s, GB/s, ...)"
            ),
        })
}

/// A duration with its unit, in seconds: `"5 us"` = 5 · 10⁻⁶, `"2 ms"`, `"1.5 s"`,
/// `"10 min"`. Units: `ns`, `us` (or `µs`), `ms`, `s`, `min`, `h`. The value is not
/// range-checked here ([`ClusterSpec::build`] does).
///
/// Errors: [`ClusterError::InvalidParameter`] (`duration`) for a missing or unknown unit or
/// a malformed number.
///
/// ```
/// use worl_cluster::formats::compact::parse_duration;
/// assert_eq!(parse_duration("5 us")?, 5.0e-6);
/// assert_eq!(parse_duration("2min")?, 120.0);
/// # Ok::<(), worl_cluster::ClusterError>(())
/// ```
pub fn parse_duration(text: &str) -> Result<f64> {
    split_unit(text, TIME_UNITS)
        .map(|(x, _, f)| x / f)
        .ok_or_else(|| ClusterError::InvalidParameter {
            name: "duration",
            reason: format!("`{text}` is not a number with a unit (ns, us, ms, s, min, h)"),
        })
}

/// A busy window `FROM..TO` (half-open `[FROM, TO)`), each side a duration with a unit as
/// [`parse_duration`] reads it, in seconds: `"2 h..4 h"` = `(7200, 14400)`,
/// `"90 s..2.5 min"` = `(90, 150)`. The bounds are not range-checked here (the cluster
/// checks them: [`ClusterError::InvalidWindow`]).
///
/// Errors: [`ClusterError::InvalidParameter`] (`busy`) for a text without `..` or a side
/// that is not a duration with a unit, quoting the text.
///
/// ```
/// use worl_cluster::formats::compact::parse_window;
/// assert_eq!(parse_window("2 h..4 h")?, (7200.0, 14400.0));
/// assert_eq!(parse_window("90s..2.5min")?, (90.0, 150.0));
/// assert!(parse_window("2 h-4 h").is_err());
/// # Ok::<(), worl_cluster::ClusterError>(())
/// ```
pub fn parse_window(text: &str) -> Result<(f64, f64)> {
    let bad = |why: String| ClusterError::InvalidParameter {
        name: "busy",
        reason: format!("busy window `{text}`: {why}"),
    };
    let (from, to) = text
        .split_once("..")
        .ok_or_else(|| bad("expected FROM..TO such as \"2 h..4 h\"".to_owned()))?;
    let side = |t: &str, which: &str| {
        split_unit(t, TIME_UNITS)
            .map(|(x, _, f)| x / f)
            .ok_or_else(|| {
                bad(format!(
                    "{which} `{}` is not a number with a unit (ns, us, ms, s, min, h)",
                    t.trim()
                ))
            })
    };
    Ok((side(from, "start")?, side(to, "end")?))
}

// ---------------------------------------------------------------- reading

/// A busy window: `"FROM..TO"` ([`parse_window`]) or `[from, to]` (numbers, s, or durations
/// with units).
struct WindowDe((f64, f64));

impl<'de> Deserialize<'de> for WindowDe {
    fn deserialize<D: Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = WindowDe;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a busy window \"FROM..TO\" such as \"2 h..4 h\" or [from, to] in s")
            }
            fn visit_str<E: de::Error>(self, v: &str) -> std::result::Result<Self::Value, E> {
                parse_window(v).map(WindowDe).map_err(E::custom)
            }
            fn visit_seq<A: SeqAccess<'de>>(
                self,
                mut seq: A,
            ) -> std::result::Result<Self::Value, A::Error> {
                let from: Quantity<true> = seq
                    .next_element()?
                    .ok_or_else(|| de::Error::invalid_length(0, &self))?;
                let to: Quantity<true> = seq
                    .next_element()?
                    .ok_or_else(|| de::Error::invalid_length(1, &self))?;
                if seq.next_element::<de::IgnoredAny>()?.is_some() {
                    return Err(de::Error::invalid_length(3, &self));
                }
                Ok(WindowDe((from.0, to.0)))
            }
        }
        d.deserialize_any(V)
    }
}

/// A list of busy windows ([`WindowDe`] each), as the native and compact forms read `busy`.
pub(crate) fn deserialize_windows<'de, D: Deserializer<'de>>(
    d: D,
) -> std::result::Result<Vec<(f64, f64)>, D::Error> {
    Ok(Vec::<WindowDe>::deserialize(d)?
        .into_iter()
        .map(|w| w.0)
        .collect())
}

/// Windows read through [`deserialize_windows`].
#[derive(Deserialize)]
#[serde(transparent)]
struct Windows(#[serde(deserialize_with = "deserialize_windows")] Vec<(f64, f64)>);

/// A number, or a string with a unit parsed by `parse` (bandwidth or duration).
struct Quantity<const SECONDS: bool>(f64);

impl<'de, const SECONDS: bool> Deserialize<'de> for Quantity<SECONDS> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        struct V<const S: bool>;
        impl<const S: bool> Visitor<'_> for V<S> {
            type Value = Quantity<S>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                if S {
                    f.write_str("a number of seconds or a string such as \"5 us\"")
                } else {
                    f.write_str("a number of bytes/s or a string such as \"100 Gbit/s\"")
                }
            }
            fn visit_f64<E: de::Error>(self, v: f64) -> std::result::Result<Self::Value, E> {
                Ok(Quantity(v))
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> std::result::Result<Self::Value, E> {
                Ok(Quantity(v as f64))
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> std::result::Result<Self::Value, E> {
                Ok(Quantity(v as f64))
            }
            fn visit_str<E: de::Error>(self, v: &str) -> std::result::Result<Self::Value, E> {
                let x = if S {
                    parse_duration(v)
                } else {
                    parse_bandwidth(v)
                };
                x.map(Quantity).map_err(E::custom)
            }
        }
        d.deserialize_any(V::<SECONDS>)
    }
}

/// A background utilisation (a plain number).
struct Fraction(f64);

impl<'de> Deserialize<'de> for Fraction {
    fn deserialize<D: Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        f64::deserialize(d).map(Fraction)
    }
}

/// The explicit form of a link.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawLink {
    bandwidth: Quantity<false>,
    latency: Quantity<true>,
}

/// A link: a name of [`NAMED_LINKS`] or `{ bandwidth, latency }`.
struct LinkDe(Link);

impl<'de> Deserialize<'de> for LinkDe {
    fn deserialize<D: Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = LinkDe;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a link name such as \"100GbE\" or { bandwidth, latency }")
            }
            fn visit_str<E: de::Error>(self, v: &str) -> std::result::Result<Self::Value, E> {
                presets::link_by_name(v).map(LinkDe).ok_or_else(|| {
                    let names: Vec<&str> = NAMED_LINKS.iter().map(|n| n.name).collect();
                    E::custom(format!(
                        "unknown link `{v}` (known: {}; or give {{ bandwidth, latency }})",
                        names.join(", ")
                    ))
                })
            }
            fn visit_map<A: MapAccess<'de>>(
                self,
                map: A,
            ) -> std::result::Result<Self::Value, A::Error> {
                let raw = RawLink::deserialize(de::value::MapAccessDeserializer::new(map))?;
                Ok(LinkDe(Link {
                    bandwidth: raw.bandwidth.0,
                    latency: raw.latency.0,
                }))
            }
        }
        d.deserialize_any(V)
    }
}

/// A GPU model: a catalog name or a full model table.
struct ModelDe(GpuModel);

impl<'de> Deserialize<'de> for ModelDe {
    fn deserialize<D: Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = ModelDe;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a catalog GPU model name such as \"A100-80GB\" or { name, relative_speed, mem_gib }")
            }
            fn visit_str<E: de::Error>(self, v: &str) -> std::result::Result<Self::Value, E> {
                GpuModel::by_name(v).map(ModelDe).ok_or_else(|| {
                    let names: Vec<String> =
                        GpuModel::catalog().into_iter().map(|m| m.name).collect();
                    E::custom(format!(
                        "unknown GPU model `{v}` (catalog: {}; or give {{ name, relative_speed, mem_gib }})",
                        names.join(", ")
                    ))
                })
            }
            fn visit_map<A: MapAccess<'de>>(
                self,
                map: A,
            ) -> std::result::Result<Self::Value, A::Error> {
                GpuModel::deserialize(de::value::MapAccessDeserializer::new(map)).map(ModelDe)
            }
        }
        d.deserialize_any(V)
    }
}

/// `index = 2` or `index = [2, 3]`.
struct IndexDe(Vec<usize>);

impl<'de> Deserialize<'de> for IndexDe {
    fn deserialize<D: Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = IndexDe;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a machine index (integer >= 0) or a list of them")
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> std::result::Result<Self::Value, E> {
                usize::try_from(v)
                    .map(|i| IndexDe(vec![i]))
                    .map_err(|_| E::custom(format!("machine index {v} is too large")))
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> std::result::Result<Self::Value, E> {
                u64::try_from(v)
                    .map_err(|_| E::invalid_value(de::Unexpected::Signed(v), &self))
                    .and_then(|u| self.visit_u64(u))
            }
            fn visit_seq<A: SeqAccess<'de>>(
                self,
                seq: A,
            ) -> std::result::Result<Self::Value, A::Error> {
                Vec::<usize>::deserialize(de::value::SeqAccessDeserializer::new(seq)).map(IndexDe)
            }
        }
        d.deserialize_any(V)
    }
}

/// One value for all GPUs of a machine, or a list with one per GPU.
struct PerGpuDe<T>(PerGpu, std::marker::PhantomData<T>);

/// The `f64` inside a per-GPU item type.
trait Scalar {
    fn value(&self) -> f64;
}
impl Scalar for Fraction {
    fn value(&self) -> f64 {
        self.0
    }
}
impl<const S: bool> Scalar for Quantity<S> {
    fn value(&self) -> f64 {
        self.0
    }
}

impl<'de, T: Deserialize<'de> + Scalar> Deserialize<'de> for PerGpuDe<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        struct V<T>(std::marker::PhantomData<T>);
        impl<'de, T: Deserialize<'de> + Scalar> V<T> {
            fn one<E: de::Error>(
                x: impl IntoDeserializer<'de, E>,
            ) -> std::result::Result<PerGpuDe<T>, E> {
                let v = T::deserialize(x.into_deserializer())?;
                Ok(PerGpuDe(PerGpu::All(v.value()), std::marker::PhantomData))
            }
        }
        impl<'de, T: Deserialize<'de> + Scalar> Visitor<'de> for V<T> {
            type Value = PerGpuDe<T>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("one value for all GPUs of the machine or a list with one per GPU")
            }
            fn visit_f64<E: de::Error>(self, v: f64) -> std::result::Result<Self::Value, E> {
                Self::one(v)
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> std::result::Result<Self::Value, E> {
                Self::one(v)
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> std::result::Result<Self::Value, E> {
                Self::one(v)
            }
            fn visit_str<E: de::Error>(self, v: &str) -> std::result::Result<Self::Value, E> {
                Self::one(v)
            }
            fn visit_seq<A: SeqAccess<'de>>(
                self,
                seq: A,
            ) -> std::result::Result<Self::Value, A::Error> {
                let v = Vec::<T>::deserialize(de::value::SeqAccessDeserializer::new(seq))?;
                Ok(PerGpuDe(
                    PerGpu::Each(v.iter().map(Scalar::value).collect()),
                    std::marker::PhantomData,
                ))
            }
        }
        d.deserialize_any(V(std::marker::PhantomData))
    }
}

/// A `[[machine]]` table as read.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawOverride {
    index: IndexDe,
    #[serde(default)]
    name: Option<String>,
    #[serde(default)]
    model: Option<ModelDe>,
    #[serde(default)]
    gpus: Option<usize>,
    #[serde(default)]
    intra: Option<LinkDe>,
    #[serde(default)]
    background: Option<PerGpuDe<Fraction>>,
    #[serde(default)]
    ready_time: Option<PerGpuDe<Quantity<true>>>,
    #[serde(default)]
    busy: Option<Windows>,
}

/// A compact file as read.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawSpec {
    #[serde(default)]
    name: Option<String>,
    machines: usize,
    #[serde(default)]
    machine_prefix: Option<String>,
    gpus_per_machine: usize,
    model: ModelDe,
    #[serde(default)]
    intra: Option<LinkDe>,
    #[serde(default)]
    inter: Option<LinkDe>,
    #[serde(default)]
    background: Option<f64>,
    #[serde(default)]
    ready_time: Option<Quantity<true>>,
    #[serde(default)]
    busy: Option<Windows>,
    #[serde(default)]
    machine: Vec<RawOverride>,
}

/// Reads the compact form (keys as in `docs/cluster-file.md`); values are checked when the
/// spec is built.
impl<'de> Deserialize<'de> for ClusterSpec {
    fn deserialize<D: Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        let r = RawSpec::deserialize(d)?;
        Ok(ClusterSpec {
            name: r.name,
            machines: r.machines,
            machine_prefix: r.machine_prefix.unwrap_or_else(|| "node-".to_owned()),
            gpus_per_machine: r.gpus_per_machine,
            model: r.model.0,
            intra: r.intra.map(|l| l.0),
            inter: r.inter.map_or(Link::ETHERNET_25G, |l| l.0),
            background: r.background.unwrap_or(0.0),
            ready_time: r.ready_time.map_or(0.0, |q| q.0),
            busy: r.busy.map_or_else(Vec::new, |w| w.0),
            overrides: r
                .machine
                .into_iter()
                .map(|o| MachineOverride {
                    index: o.index.0,
                    name: o.name,
                    model: o.model.map(|m| m.0),
                    gpus: o.gpus,
                    intra: o.intra.map(|l| l.0),
                    background: o.background.map(|b| b.0),
                    ready_time: o.ready_time.map(|b| b.0),
                    busy: o.busy.map(|w| w.0),
                })
                .collect(),
        })
    }
}

// ---------------------------------------------------------------- writing

/// A number written with a unit when that reads back exactly, else plain.
#[derive(Serialize)]
#[serde(untagged)]
enum OutQty {
    Text(String),
    Num(f64),
}

/// `x` (bytes/s or s) in the first of `units` (name, base units per unit) where it is at
/// least 1, short and reads back exactly through `parse`; else in any unit where it is short
/// and exact; else the plain number.
fn with_unit(x: f64, units: &[(&str, f64)], parse: fn(&str) -> Result<f64>) -> OutQty {
    if x == 0.0 {
        return OutQty::Num(0.0);
    }
    let text = |&(u, size): &(&str, f64)| {
        let v = x / size;
        let t = format!("{v} {u}");
        (!t.contains('e') && t.len() <= 16 && parse(&t).ok() == Some(x)).then_some((v, t))
    };
    let mut fallback = None;
    for unit in units {
        if let Some((v, t)) = text(unit) {
            if v >= 1.0 {
                return OutQty::Text(t);
            }
            fallback.get_or_insert(t);
        }
    }
    fallback.map_or(OutQty::Num(x), OutQty::Text)
}

/// Time units for writing, largest first.
const WRITE_TIME: &[(&str, f64)] = &[
    ("h", 3600.0),
    ("min", 60.0),
    ("s", 1.0),
    ("ms", 1.0e-3),
    ("us", 1.0e-6),
    ("ns", 1.0e-9),
];

/// A link as written: its name, or `{ bandwidth, latency }` with units.
#[derive(Serialize)]
#[serde(untagged)]
enum OutLink {
    Name(&'static str),
    Explicit { bandwidth: OutQty, latency: OutQty },
}

fn out_link(l: &Link) -> OutLink {
    presets::link_name(l).map_or_else(
        || OutLink::Explicit {
            bandwidth: with_unit(
                l.bandwidth,
                &[
                    ("GB/s", 1.0e9),
                    ("Gbit/s", 1.25e8),
                    ("MB/s", 1.0e6),
                    ("Mbit/s", 1.25e5),
                ],
                parse_bandwidth,
            ),
            latency: with_unit(l.latency, WRITE_TIME, parse_duration),
        },
        OutLink::Name,
    )
}

/// A model as written: its catalog name, or the full model.
#[derive(Serialize)]
#[serde(untagged)]
enum OutModel<'a> {
    Name(&'a str),
    Full(&'a GpuModel),
}

fn out_model(m: &GpuModel) -> OutModel<'_> {
    if GpuModel::by_name(&m.name).as_ref() == Some(m) {
        OutModel::Name(&m.name)
    } else {
        OutModel::Full(m)
    }
}

#[derive(Serialize)]
#[serde(untagged)]
enum OutPerGpu {
    All(OutQty),
    Each(Vec<OutQty>),
}

fn out_per_gpu(p: &PerGpu, seconds: bool) -> OutPerGpu {
    let q = |x: f64| {
        if seconds {
            with_unit(x, WRITE_TIME, parse_duration)
        } else {
            OutQty::Num(x)
        }
    };
    match p {
        PerGpu::All(x) => OutPerGpu::All(q(*x)),
        PerGpu::Each(v) => OutPerGpu::Each(v.iter().map(|&x| q(x)).collect()),
    }
}

/// A busy window as written: `"FROM..TO"` with units when both sides read back exactly,
/// else `[from, to]` in s.
#[derive(Serialize)]
#[serde(untagged)]
enum OutWindow {
    Text(String),
    Pair(f64, f64),
}

fn out_window((from, to): (f64, f64)) -> OutWindow {
    let side = |x: f64| match with_unit(x, WRITE_TIME, parse_duration) {
        OutQty::Text(t) => Some(t),
        OutQty::Num(0.0) => Some("0 s".to_owned()),
        OutQty::Num(_) => None,
    };
    match (side(from), side(to)) {
        (Some(a), Some(b)) if parse_window(&format!("{a}..{b}")).ok() == Some((from, to)) => {
            OutWindow::Text(format!("{a}..{b}"))
        }
        _ => OutWindow::Pair(from, to),
    }
}

fn out_windows(windows: &[(f64, f64)]) -> Vec<OutWindow> {
    windows.iter().map(|&w| out_window(w)).collect()
}

#[derive(Serialize)]
struct OutOverride<'a> {
    index: OutIndex,
    #[serde(skip_serializing_if = "Option::is_none")]
    name: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    model: Option<OutModel<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    gpus: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    intra: Option<OutLink>,
    #[serde(skip_serializing_if = "Option::is_none")]
    background: Option<OutPerGpu>,
    #[serde(skip_serializing_if = "Option::is_none")]
    ready_time: Option<OutPerGpu>,
    #[serde(skip_serializing_if = "Option::is_none")]
    busy: Option<Vec<OutWindow>>,
}

#[derive(Serialize)]
#[serde(untagged)]
enum OutIndex {
    One(usize),
    Many(Vec<usize>),
}

#[derive(Serialize)]
struct OutSpec<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    name: Option<&'a str>,
    machines: usize,
    #[serde(skip_serializing_if = "is_node")]
    machine_prefix: &'a str,
    gpus_per_machine: usize,
    model: OutModel<'a>,
    #[serde(skip_serializing_if = "Option::is_none")]
    intra: Option<OutLink>,
    inter: OutLink,
    #[serde(skip_serializing_if = "is_zero")]
    background: f64,
    #[serde(skip_serializing_if = "is_zero_qty")]
    ready_time: OutQty,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    busy: Vec<OutWindow>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    machine: Vec<OutOverride<'a>>,
}

fn is_node(prefix: &&str) -> bool {
    *prefix == "node-"
}

fn is_zero(x: &f64) -> bool {
    *x == 0.0
}

fn is_zero_qty(q: &OutQty) -> bool {
    matches!(q, OutQty::Num(x) if *x == 0.0)
}

/// Writes the compact form: links by name where [`NAMED_LINKS`] has them, else with units;
/// catalog models by name, others in full; defaults left out.
impl Serialize for ClusterSpec {
    fn serialize<S: Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        OutSpec {
            name: self.name.as_deref(),
            machines: self.machines,
            machine_prefix: &self.machine_prefix,
            gpus_per_machine: self.gpus_per_machine,
            model: out_model(&self.model),
            intra: self.intra.as_ref().map(out_link),
            inter: out_link(&self.inter),
            background: self.background,
            ready_time: with_unit(self.ready_time, WRITE_TIME, parse_duration),
            busy: out_windows(&self.busy),
            machine: self
                .overrides
                .iter()
                .map(|o| OutOverride {
                    index: match o.index.as_slice() {
                        [i] => OutIndex::One(*i),
                        v => OutIndex::Many(v.to_vec()),
                    },
                    name: o.name.as_deref(),
                    model: o.model.as_ref().map(out_model),
                    gpus: o.gpus,
                    intra: o.intra.as_ref().map(out_link),
                    background: o.background.as_ref().map(|p| out_per_gpu(p, false)),
                    ready_time: o.ready_time.as_ref().map(|p| out_per_gpu(p, true)),
                    busy: o.busy.as_deref().map(out_windows),
                })
                .collect(),
        }
        .serialize(s)
    }
}

/// One machine of a cluster as the compact form sees it.
#[derive(Clone, PartialEq)]
struct MachineShape {
    model: Option<GpuModel>,
    gpus: usize,
    intra: Link,
    background: Vec<f64>,
    ready_time: Vec<f64>,
    /// The busy windows every GPU of the machine shares.
    busy: Vec<(f64, f64)>,
}

/// The most frequent item of `items` (the first of equals).
fn most_common<T: PartialEq + Clone>(items: impl Iterator<Item = T>) -> Option<T> {
    let mut counts: Vec<(T, usize)> = Vec::new();
    for x in items {
        match counts.iter_mut().find(|(y, _)| *y == x) {
            Some((_, n)) => *n += 1,
            None => counts.push((x, 1)),
        }
    }
    let max = counts.iter().map(|(_, n)| *n).max()?;
    counts.into_iter().find(|(_, n)| *n == max).map(|(x, _)| x)
}

/// A per-GPU list as one value when all are equal.
fn collapse(v: &[f64]) -> PerGpu {
    match v {
        [first, rest @ ..] if rest.iter().all(|x| x == first) => PerGpu::All(*first),
        _ => PerGpu::Each(v.to_vec()),
    }
}

impl ClusterSpec {
    /// The spec of `cluster` if the compact form can express it exactly, `None` otherwise.
    ///
    /// Expressible: GPU ids numbered machine by machine, every machine's GPUs of one model
    /// with that model's speed and memory, one link between any two machines. Machines may
    /// differ in model, GPU count, intra-machine link, name, background, ready times and busy
    /// windows (the GPUs of one machine sharing theirs; written as `[[machine]]` overrides; machines with the same changes share one). The
    /// result is checked: building it gives a cluster equal to `cluster` (so a per-machine-pair
    /// network that happens to be uniform, or unused models, give `None`).
    pub fn from_cluster(cluster: &Cluster) -> Option<ClusterSpec> {
        let n = cluster.n_machines();
        let gpus = cluster.gpus();
        if gpus.windows(2).any(|w| w[0].machine > w[1].machine) {
            return None;
        }
        let net = cluster.network();
        let inter = if n > 1 {
            let l = Link {
                bandwidth: net.bandwidth(0, 1),
                latency: net.latency(0, 1),
            };
            for a in 0..n {
                for b in 0..n {
                    if a != b
                        && (net.bandwidth(a, b), net.latency(a, b)) != (l.bandwidth, l.latency)
                    {
                        return None;
                    }
                }
            }
            l
        } else {
            match net {
                crate::network::Network::Uniform { inter, .. } => *inter,
                crate::network::Network::PerMachinePair { .. } => return None,
            }
        };
        let mut shapes = Vec::with_capacity(n);
        for m in 0..n {
            let ids = cluster.gpus_of(crate::ids::MachineId::new(m));
            let model = ids.first().map(|&g| cluster.model_of(g).clone());
            for &g in ids {
                let (gpu, gm) = (cluster.gpu(g), cluster.model_of(g));
                if Some(gm) != model.as_ref()
                    || gpu.speed != gm.relative_speed
                    || gpu.mem_gib != gm.mem_gib
                {
                    return None;
                }
            }
            // Windows are written per machine: GPUs of one machine must share them.
            let busy = ids.first().map_or(&[][..], |&g| &cluster.gpu(g).busy[..]);
            if ids.iter().any(|&g| cluster.gpu(g).busy != busy) {
                return None;
            }
            shapes.push(MachineShape {
                model,
                gpus: ids.len(),
                intra: Link {
                    bandwidth: net.bandwidth(m, m),
                    latency: net.latency(m, m),
                },
                background: ids.iter().map(|&g| cluster.gpu(g).background).collect(),
                ready_time: ids.iter().map(|&g| cluster.gpu(g).ready_time).collect(),
                busy: busy.to_vec(),
            });
        }
        let model = most_common(shapes.iter().filter_map(|s| s.model.clone()))?;
        let per_machine = most_common(
            shapes
                .iter()
                .filter(|s| s.model.as_ref() == Some(&model))
                .map(|s| s.gpus),
        )?;
        let intra = most_common(shapes.iter().map(|s| s.intra))?;
        let uniform = |f: fn(&crate::cluster::Gpu) -> f64| {
            let first = f(&gpus[0]);
            gpus.iter().all(|g| f(g) == first).then_some(first)
        };
        let background = uniform(|g| g.background).unwrap_or(0.0);
        let ready_time = uniform(|g| g.ready_time).unwrap_or(0.0);
        // The windows of most machines with GPUs (none if none have windows).
        let busy = most_common(shapes.iter().filter(|s| s.gpus > 0).map(|s| s.busy.clone()))
            .unwrap_or_default();
        // The prefix of machine 0's name if most names are `<prefix><index>`, else `node-`.
        let names = cluster.machines();
        let prefix = names[0]
            .strip_suffix('0')
            .filter(|p| {
                let fits = names
                    .iter()
                    .enumerate()
                    .filter(|(i, n)| **n == format!("{p}{i}"))
                    .count();
                2 * fits > n
            })
            .unwrap_or("node-");
        let mut spec = ClusterSpec::new(n, per_machine, &model)
            .with_name(cluster.name())
            .with_machine_prefix(prefix)
            .with_intra(intra)
            .with_inter(inter)
            .with_background(background)
            .with_ready_time(ready_time)
            .with_busy(busy.clone());
        let mut shared: std::collections::HashMap<String, usize> = Default::default();
        for (m, s) in shapes.iter().enumerate() {
            let name = &cluster.machines()[m];
            let mut o = MachineOverride::new(m);
            if *name != format!("{prefix}{m}") {
                o.name = Some(name.clone());
            }
            if let Some(sm) = &s.model
                && *sm != model
            {
                o.model = Some(sm.clone());
            }
            if s.gpus != per_machine {
                o.gpus = Some(s.gpus);
            }
            if s.intra != intra {
                o.intra = Some(s.intra);
            }
            if s.background.iter().any(|&x| x != background) {
                o.background = Some(collapse(&s.background));
            }
            if s.ready_time.iter().any(|&x| x != ready_time) {
                o.ready_time = Some(collapse(&s.ready_time));
            }
            if s.gpus > 0 && s.busy != busy {
                o.busy = Some(s.busy.clone());
            }
            if o == MachineOverride::new(m) {
                continue;
            }
            // Machines with the same changes (and no name) share one override.
            let key = o.name.is_none().then(|| {
                format!(
                    "{:?}|{:?}|{:?}|{:?}|{:?}|{:?}",
                    o.model, o.gpus, o.intra, o.background, o.ready_time, o.busy
                )
            });
            match key.as_ref().and_then(|k| shared.get(k)) {
                Some(&j) => spec.overrides[j].index.push(m),
                None => {
                    if let Some(k) = key {
                        shared.insert(k, spec.overrides.len());
                    }
                    spec.overrides.push(o);
                }
            }
        }
        (spec.build().ok().as_ref() == Some(cluster)).then_some(spec)
    }
}

impl Cluster {
    /// The cluster as a compact TOML file when [`ClusterSpec::from_cluster`] can express it
    /// (4 machines × 8 A100 on 100 GbE: 6 lines), else the verbose native form of
    /// [`to_toml_string`](Self::to_toml_string) (a per-machine-pair network with differing
    /// inter-machine links, GPUs with their own speed or memory, ...). Both read back with
    /// [`from_toml_str`](Self::from_toml_str) into an equal cluster.
    ///
    /// Errors: [`ClusterError::InvalidParameter`] if TOML cannot express it (reported rather
    /// than panicking).
    pub fn to_compact_toml_string(&self) -> Result<String> {
        match ClusterSpec::from_cluster(self) {
            Some(spec) => toml::to_string(&spec).map_err(|e| ClusterError::InvalidParameter {
                name: "cluster",
                reason: format!("cannot write TOML: {e}"),
            }),
            None => self.to_toml_string(),
        }
    }

    /// The cluster as compact JSON when [`ClusterSpec::from_cluster`] can express it, else
    /// the verbose native JSON of [`to_json_string`](Self::to_json_string).
    pub fn to_compact_json_string(&self) -> String {
        match ClusterSpec::from_cluster(self) {
            Some(spec) => serde_json::to_string_pretty(&spec).expect("a spec serialises to JSON"),
            None => self.to_json_string(),
        }
    }
}

// ---------------------------------------------------------------- detection and errors

/// Whether a top-level table is in the compact form: `machines` present and not a list, or
/// `gpus_per_machine` present.
///
/// Errors: [`ClusterError::Parse`] (file `<memory>`, with the line) when the text is not
/// TOML at all (a syntax error, trailing junk, a number out of range), so that the message
/// says what is wrong rather than what the verbose form expected of a compact file.
pub(crate) fn is_compact_toml(text: &str) -> Result<bool> {
    let t = toml::from_str::<toml::Table>(text).map_err(|e| {
        let line = e.span().map_or(0, |s| {
            text[..s.start.min(text.len())].matches('\n').count() + 1
        });
        parse_error(line, e.message().trim_end().to_owned())
    })?;
    Ok(t.get("machines").is_some_and(|m| !m.is_array()) || t.contains_key("gpus_per_machine"))
}

/// As [`is_compact_toml`], for JSON (`NaN`, `1e400` and trailing junk are syntax errors
/// of JSON, reported as such).
pub(crate) fn is_compact_json(text: &str) -> Result<bool> {
    let v = serde_json::from_str::<serde_json::Value>(text)
        .map_err(|e| parse_error(e.line(), e.to_string()))?;
    Ok(v.get("machines").is_some_and(|m| !m.is_array()) || v.get("gpus_per_machine").is_some())
}

/// A parse error in `<memory>`.
fn parse_error(line: usize, message: String) -> ClusterError {
    ClusterError::Parse {
        file: "<memory>".to_owned(),
        line,
        message,
    }
}

/// A build error as a parse error at the line of its key or override.
fn located(text: &str, json: bool, (item, e): (SpecItem, ClusterError)) -> ClusterError {
    let line = if json {
        json_line(text, item)
    } else {
        toml_line(text, item)
    };
    parse_error(line.unwrap_or(0), e.to_string())
}

/// The 1-based line of a TOML top-level key (before the first table header) or of the
/// `j`-th `[[machine]]` header.
fn toml_line(text: &str, item: SpecItem) -> Option<usize> {
    let mut headers = 0;
    for (i, raw) in text.lines().enumerate() {
        let l = raw.trim_start();
        match item {
            SpecItem::Key(k) => {
                if l.starts_with('[') {
                    return None;
                }
                if let Some(rest) = l.strip_prefix(k)
                    && rest.trim_start().starts_with('=')
                {
                    return Some(i + 1);
                }
            }
            SpecItem::Override(j) => {
                if l.starts_with("[[machine]]") {
                    if headers == j {
                        return Some(i + 1);
                    }
                    headers += 1;
                }
            }
        }
    }
    None
}

/// The 1-based line of a JSON top-level key, or of the `j`-th object of the top-level
/// `machine` list (a scan that tracks nesting and strings).
fn json_line(text: &str, item: SpecItem) -> Option<usize> {
    let (mut depth, mut line, mut in_machine, mut objects) = (0usize, 1usize, false, 0usize);
    let bytes = text.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'\n' => line += 1,
            b'"' => {
                let start = i + 1;
                i += 1;
                while i < bytes.len() && bytes[i] != b'"' {
                    if bytes[i] == b'\\' {
                        i += 1;
                    }
                    i += 1;
                }
                if depth == 1 {
                    let key = text.get(start..i).unwrap_or("");
                    let is_key = text
                        .get(i + 1..)
                        .unwrap_or("")
                        .trim_start()
                        .starts_with(':');
                    if is_key {
                        in_machine = key == "machine";
                        if let SpecItem::Key(k) = item
                            && key == k
                        {
                            return Some(line);
                        }
                    }
                }
            }
            b'{' | b'[' => {
                if depth == 2
                    && in_machine
                    && bytes[i] == b'{'
                    && let SpecItem::Override(j) = item
                {
                    if objects == j {
                        return Some(line);
                    }
                    objects += 1;
                }
                depth += 1;
            }
            b'}' | b']' => depth = depth.saturating_sub(1),
            _ => {}
        }
        i += 1;
    }
    None
}

/// Reads and builds a compact TOML file (file `<memory>`).
pub(crate) fn from_toml(text: &str) -> Result<Cluster> {
    let spec: ClusterSpec = toml::from_str(text).map_err(|e| {
        let line = e.span().map_or(0, |s| {
            text[..s.start.min(text.len())].matches('\n').count() + 1
        });
        parse_error(line, e.message().to_owned())
    })?;
    spec.build_located().map_err(|e| located(text, false, e))
}

/// Reads and builds a compact JSON file (file `<memory>`).
pub(crate) fn from_json(text: &str) -> Result<Cluster> {
    let spec: ClusterSpec =
        serde_json::from_str(text).map_err(|e| parse_error(e.line(), e.to_string()))?;
    spec.build_located().map_err(|e| located(text, true, e))
}
