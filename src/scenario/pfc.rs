//! `[switch.pfc]`: priority flow control, read into [`net::pfc::PfcConfig`].
//! Defaults are the HPCC ns-3 fork's (alibaba-edu/High-Precision-Congestion-Control, `switch-mmu.cc`) except the
//! headroom, which is sized by the standard rule (IEEE 802.1Qbb: 2 C d + 2 MTU + the PAUSE frame; docs/models.md, PFC).

use net::pfc::{HeadroomRule, PauseMode, PfcConfig, Xoff};
use serde::Deserialize;
use sim_core::{Bytes, SimDuration};

/// The keys of `[switch.pfc]` as written.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct PfcKeys {
    /// Lossless priorities (default: all eight, as the HPCC fork's data queues).
    pub lossless: Option<Vec<u8>>,
    /// `"dynamic"` (default) or `"static"`.
    pub xoff: Option<String>,
    /// Dynamic XOFF: T = xoff_alpha x free shared pool (HPCC: 2^-3 at host-rate ports).
    pub xoff_alpha: Option<f64>,
    /// Dynamic XON hysteresis (HPCC: 3 KiB).
    pub resume_offset: Option<Bytes>,
    /// Static XOFF threshold, bytes per (port, priority).
    pub xoff_threshold: Option<Bytes>,
    /// Static XON threshold.
    pub xon_threshold: Option<Bytes>,
    /// Reserve per (port, lossless priority) (HPCC: 4 KiB).
    pub reserve: Option<Bytes>,
    /// `"standard"` (default), `"hpcc_3x"`, or a size per port.
    pub headroom: Option<toml::Value>,
    /// The largest IP packet, for the headroom rule (default 1500 B).
    pub mtu: Option<Bytes>,
    /// `"until-resume"` (default) or `"quanta"`.
    pub pause: Option<String>,
    /// Quanta mode: pause time in 512-bit-time quanta (default 65535).
    pub quanta: Option<u16>,
    /// Quanta mode: re-send period of a PAUSE still wanted (default half the pause time).
    pub refresh: Option<SimDuration>,
}

/// A key of `[switch.pfc]` with what is wrong with it.
pub(crate) type KeyError = (&'static str, String);

impl PfcKeys {
    /// The configuration, or the first invalid key with why.
    pub fn build(&self) -> Result<PfcConfig, KeyError> {
        let lossless = match &self.lossless {
            None => 0xff,
            Some(list) => {
                let mut mask = 0u8;
                for &p in list {
                    if p > 7 {
                        return Err((
                            "lossless",
                            format!("priority {p} does not exist: priorities are 0 to 7"),
                        ));
                    }
                    mask |= 1 << p;
                }
                if mask == 0 {
                    return Err(("lossless", "name at least one priority (0 to 7)".into()));
                }
                mask
            }
        };
        let dynamic_only = [
            ("xoff_alpha", self.xoff_alpha.is_some()),
            ("resume_offset", self.resume_offset.is_some()),
        ];
        let static_only = [
            ("xoff_threshold", self.xoff_threshold.is_some()),
            ("xon_threshold", self.xon_threshold.is_some()),
        ];
        let xoff = match self.xoff.as_deref().unwrap_or("dynamic") {
            "dynamic" => {
                if let Some((k, _)) = static_only.iter().find(|(_, set)| *set) {
                    return Err((k, "applies to xoff = \"static\"".into()));
                }
                let alpha = self.xoff_alpha.unwrap_or(0.125);
                if !(alpha > 0.0 && alpha.is_finite()) {
                    return Err((
                        "xoff_alpha",
                        "must be a positive number (HPCC: 0.125)".into(),
                    ));
                }
                Xoff::Dynamic {
                    alpha,
                    resume_offset_bytes: self.resume_offset.map_or(3072, |b| b.0),
                }
            }
            "static" => {
                if let Some((k, _)) = dynamic_only.iter().find(|(_, set)| *set) {
                    return Err((k, "applies to xoff = \"dynamic\"".into()));
                }
                let (Some(xoff), Some(xon)) = (self.xoff_threshold, self.xon_threshold) else {
                    return Err((
                        "xoff_threshold",
                        "xoff = \"static\" needs xoff_threshold and xon_threshold (htsim: 60000B and 48000B)".into(),
                    ));
                };
                if xon.0 >= xoff.0 || xon.0 == 0 {
                    return Err((
                        "xon_threshold",
                        format!("must be above 0 and below xoff_threshold ({}B)", xoff.0),
                    ));
                }
                Xoff::Static {
                    xoff_bytes: xoff.0,
                    xon_bytes: xon.0,
                }
            }
            other => {
                return Err((
                    "xoff",
                    format!("unknown value '{other}': valid values are \"dynamic\", \"static\""),
                ));
            }
        };
        let headroom = match &self.headroom {
            None => HeadroomRule::Standard,
            Some(toml::Value::String(s)) => match s.as_str() {
                "standard" => HeadroomRule::Standard,
                "hpcc_3x" => HeadroomRule::Hpcc3x,
                other => match Bytes::parse(other) {
                    Ok(b) if b.0 > 0 => HeadroomRule::Bytes(b.0),
                    _ => {
                        return Err((
                            "headroom",
                            format!(
                                "'{other}': expected \"standard\" (2 C d + 3 MTU + PAUSE), \"hpcc_3x\" (3 C d) or a size such as \"30KB\""
                            ),
                        ));
                    }
                },
            },
            Some(_) => {
                return Err((
                    "headroom",
                    "expected \"standard\", \"hpcc_3x\" or a size such as \"30KB\"".into(),
                ));
            }
        };
        let mtu = self.mtu.map_or(net::packet::MTU_BYTES as u64, |b| b.0);
        if !(64..=65_535).contains(&mtu) {
            return Err(("mtu", "must be 64B to 65535B".into()));
        }
        let pause = match self.pause.as_deref().unwrap_or("until-resume") {
            "until-resume" => {
                if self.quanta.is_some() || self.refresh.is_some() {
                    let k = if self.quanta.is_some() {
                        "quanta"
                    } else {
                        "refresh"
                    };
                    return Err((k, "applies to pause = \"quanta\"".into()));
                }
                PauseMode::UntilResume
            }
            "quanta" => {
                let quanta = self.quanta.unwrap_or(u16::MAX);
                if quanta == 0 {
                    return Err(("quanta", "must be 1 to 65535 (0 means XON)".into()));
                }
                // A per-port timer while paused: below 100 ns it would
                // resend PAUSE faster than a frame fits on a 10 Gb/s wire.
                if self.refresh.is_some_and(|r| r < SimDuration::from_ns(100)) {
                    return Err(("refresh", "must be at least 100ns".into()));
                }
                PauseMode::Quanta {
                    quanta,
                    refresh: self.refresh,
                }
            }
            other => {
                return Err((
                    "pause",
                    format!(
                        "unknown value '{other}': valid values are \"until-resume\", \"quanta\""
                    ),
                ));
            }
        };
        Ok(PfcConfig {
            lossless,
            xoff,
            reserve_bytes: self.reserve.map_or(4096, |b| b.0),
            headroom,
            mtu_bytes: mtu as u32,
            pause,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn keys(text: &str) -> PfcKeys {
        toml::from_str(text).expect("valid keys")
    }

    #[test]
    fn defaults_are_the_hpcc_forks_with_standard_headroom() {
        let c = keys("").build().expect("valid");
        assert_eq!(c.lossless, 0xff);
        assert_eq!(
            c.xoff,
            Xoff::Dynamic {
                alpha: 0.125,
                resume_offset_bytes: 3072
            }
        );
        assert_eq!(c.reserve_bytes, 4096);
        assert_eq!(c.headroom, HeadroomRule::Standard);
        assert_eq!(c.pause, PauseMode::UntilResume);
    }

    #[test]
    fn misplaced_and_invalid_keys_are_named() {
        let e = keys("xoff_threshold = \"60KB\"").build().unwrap_err();
        assert_eq!(e.0, "xoff_threshold");
        let e = keys("xoff = \"static\"\nxoff_threshold = \"60KB\"\nxon_threshold = \"70KB\"")
            .build()
            .unwrap_err();
        assert_eq!(e.0, "xon_threshold");
        let e = keys("lossless = [9]").build().unwrap_err();
        assert!(e.1.contains("0 to 7"), "{}", e.1);
        let e = keys("headroom = \"lots\"").build().unwrap_err();
        assert!(e.1.contains("hpcc_3x"), "{}", e.1);
        let e = keys("quanta = 10").build().unwrap_err();
        assert_eq!(e.0, "quanta");
        let c = keys("pause = \"quanta\"\nquanta = 100\nheadroom = \"30KB\"\nlossless = [3]")
            .build()
            .expect("valid");
        assert_eq!(c.lossless, 1 << 3);
        assert_eq!(c.headroom, HeadroomRule::Bytes(30_000));
        assert_eq!(
            c.pause,
            PauseMode::Quanta {
                quanta: 100,
                refresh: None
            }
        );
    }
}
