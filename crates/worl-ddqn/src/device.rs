//! Choosing the compute device: wgpu (GPU, default when a hardware adapter exists; needs the
//! `wgpu` feature) or flex (burn's pure-Rust CPU backend, the fallback).
//!
//! * [`DeviceChoice::Wgpu`] initialises burn's wgpu runtime on the default adapter and fails with
//!   [`DdqnError::DeviceUnavailable`] if none can be created. Software adapters (Mesa's lavapipe,
//!   llvmpipe) are accepted: that is how CI exercises the wgpu code path without a GPU.
//! * [`DeviceChoice::Flex`] is always available.
//! * [`DeviceChoice::Auto`] (the default) uses wgpu when the adapter is a hardware GPU
//!   (discrete, integrated or virtual) and flex otherwise — a CPU-emulated Vulkan device is far
//!   slower than flex for these small networks. It never panics: adapter probing errors and
//!   panics inside the graphics stack are caught and reported in the description.
//!
//! [`device_from_env`] reads `WORL_DEVICE=wgpu|flex|auto` (unset = auto). The wgpu probe runs
//! once per process; its outcome is cached.
//!
//! The wgpu backend is compiled only with the crate's `wgpu` cargo feature (on by default).
//! Without it, `Auto` selects flex and `Wgpu` fails with [`DdqnError::FeatureDisabled`]; the
//! [`DeviceChoice`] and [`DeviceKind`] enums keep their `Wgpu` variants either way, so configs
//! and `WORL_DEVICE` values parse the same in every build.

use std::fmt;
use std::str::FromStr;
#[cfg(feature = "wgpu")]
use std::sync::OnceLock;

use burn::tensor::Device;
use serde::{Deserialize, Serialize};

use crate::error::{DdqnError, Result};

/// Environment variable read by [`device_from_env`].
pub const DEVICE_ENV_VAR: &str = "WORL_DEVICE";

/// What the caller asks for.
///
/// Text form (option `device`, `WORL_DEVICE`, serde, `FromStr`/`Display`): `auto`, `wgpu`,
/// `flex` (also read: `gpu`, `cpu`; `FromStr` ignores case and blanks).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum DeviceChoice {
    /// wgpu on a hardware GPU if there is one, else flex.
    #[default]
    Auto,
    /// wgpu (any adapter, software ones included); an error if none exists.
    #[serde(alias = "gpu")]
    Wgpu,
    /// flex, burn's pure-Rust CPU backend.
    #[serde(alias = "cpu")]
    Flex,
}

serde_plain::derive_display_from_serialize!(DeviceChoice);

impl FromStr for DeviceChoice {
    type Err = DdqnError;

    /// Parse `auto`, `wgpu` or `flex` (case-insensitive, surrounding blanks ignored; `gpu` is an
    /// alias of `wgpu`, `cpu` of `flex`).
    fn from_str(s: &str) -> Result<Self> {
        match s.trim().to_ascii_lowercase().as_str() {
            "" | "auto" => Ok(DeviceChoice::Auto),
            "wgpu" | "gpu" => Ok(DeviceChoice::Wgpu),
            "flex" | "cpu" => Ok(DeviceChoice::Flex),
            _ => Err(DdqnError::UnknownDevice(s.to_string())),
        }
    }
}

/// Which backend a [`ComputeDevice`] runs on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DeviceKind {
    /// burn's wgpu backend (Vulkan / Metal / DX12 through wgpu).
    Wgpu,
    /// burn's flex backend (pure-Rust CPU).
    Flex,
}

impl fmt::Display for DeviceKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            DeviceKind::Wgpu => "wgpu",
            DeviceKind::Flex => "flex",
        })
    }
}

/// A selected device: the burn [`Device`] (without autodiff), its backend and a human-readable
/// description (adapter name and type for wgpu, and why `auto` chose what it chose).
#[derive(Clone, Debug)]
pub struct ComputeDevice {
    device: Device,
    kind: DeviceKind,
    description: String,
}

impl ComputeDevice {
    /// The flex (pure-Rust CPU) device; always available.
    pub fn flex() -> Self {
        ComputeDevice {
            device: Device::flex(),
            kind: DeviceKind::Flex,
            description: "flex (burn pure-Rust CPU backend)".into(),
        }
    }

    /// The burn device (plain; the agent adds autodiff for training itself).
    pub fn device(&self) -> &Device {
        &self.device
    }

    /// The backend.
    pub fn kind(&self) -> DeviceKind {
        self.kind
    }

    /// Human-readable description, e.g.
    /// `wgpu: llvmpipe (LLVM 15.0.7, 256 bits) [Cpu, Vulkan]`.
    pub fn description(&self) -> &str {
        &self.description
    }
}

impl fmt::Display for ComputeDevice {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.description)
    }
}

/// Outcome of the one-time wgpu probe.
#[cfg(feature = "wgpu")]
#[derive(Clone, Debug)]
struct WgpuProbe {
    device: Device,
    description: String,
    hardware: bool,
}

#[cfg(feature = "wgpu")]
static WGPU_PROBE: OnceLock<std::result::Result<WgpuProbe, String>> = OnceLock::new();

#[cfg(feature = "wgpu")]
fn probe_wgpu() -> std::result::Result<WgpuProbe, String> {
    WGPU_PROBE
        .get_or_init(|| {
            let attempt = std::panic::catch_unwind(|| Device::wgpu_options().init_with_setup());
            match attempt {
                Ok(Ok((device, setup))) => {
                    let info = setup.adapter.get_info();
                    use burn::tensor::wgpu::wgpu::DeviceType;
                    let hardware = matches!(
                        info.device_type,
                        DeviceType::DiscreteGpu
                            | DeviceType::IntegratedGpu
                            | DeviceType::VirtualGpu
                    );
                    Ok(WgpuProbe {
                        device,
                        description: format!(
                            "wgpu: {} [{:?}, {:?}, driver {} {}]",
                            info.name,
                            info.device_type,
                            info.backend,
                            info.driver,
                            info.driver_info
                        ),
                        hardware,
                    })
                }
                Ok(Err(e)) => Err(e.to_string()),
                Err(panic) => Err(format!(
                    "wgpu initialisation panicked: {}",
                    panic
                        .downcast_ref::<String>()
                        .map(String::as_str)
                        .or_else(|| panic.downcast_ref::<&str>().copied())
                        .unwrap_or("unknown panic")
                )),
            }
        })
        .clone()
}

/// Select a device.
///
/// # Errors
/// [`DdqnError::DeviceUnavailable`] when [`DeviceChoice::Wgpu`] is requested and no wgpu
/// adapter can be initialised; [`DdqnError::FeatureDisabled`] when it is requested from a build
/// without the `wgpu` feature. `Auto` and `Flex` never fail.
pub fn select_device(choice: DeviceChoice) -> Result<ComputeDevice> {
    match choice {
        DeviceChoice::Flex => Ok(ComputeDevice::flex()),
        #[cfg(not(feature = "wgpu"))]
        DeviceChoice::Wgpu => Err(DdqnError::FeatureDisabled {
            requested: "wgpu",
            feature: "wgpu",
        }),
        #[cfg(not(feature = "wgpu"))]
        DeviceChoice::Auto => {
            let mut d = ComputeDevice::flex();
            d.description = format!(
                "{} (auto: worl-ddqn built without the `wgpu` feature)",
                d.description
            );
            Ok(d)
        }
        #[cfg(feature = "wgpu")]
        DeviceChoice::Wgpu => match probe_wgpu() {
            Ok(p) => Ok(ComputeDevice {
                device: p.device,
                kind: DeviceKind::Wgpu,
                description: p.description,
            }),
            Err(reason) => Err(DdqnError::DeviceUnavailable {
                requested: "wgpu".into(),
                reason,
            }),
        },
        #[cfg(feature = "wgpu")]
        DeviceChoice::Auto => Ok(match probe_wgpu() {
            Ok(p) if p.hardware => ComputeDevice {
                device: p.device,
                kind: DeviceKind::Wgpu,
                description: format!("{} (auto: hardware GPU adapter)", p.description),
            },
            Ok(p) => {
                let mut d = ComputeDevice::flex();
                d.description = format!(
                    "{} (auto: the only wgpu adapter is a software one — {})",
                    d.description, p.description
                );
                d
            }
            Err(reason) => {
                let mut d = ComputeDevice::flex();
                d.description = format!("{} (auto: no wgpu adapter — {reason})", d.description);
                d
            }
        }),
    }
}

/// Select the device named by `WORL_DEVICE` (`wgpu`, `flex` or `auto`; unset or empty =
/// `auto`).
///
/// # Errors
/// [`DdqnError::UnknownDevice`] for another value, and the errors of [`select_device`].
pub fn device_from_env() -> Result<ComputeDevice> {
    let choice = match std::env::var(DEVICE_ENV_VAR) {
        Ok(v) => v.parse()?,
        Err(_) => DeviceChoice::Auto,
    };
    select_device(choice)
}
