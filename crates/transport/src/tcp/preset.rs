//! Named TCP stacks (`[transport] preset = "..."`): a whole group of keys
//! set at once to what a simulator or kernel of the papers' day ran, so a
//! reproduction says which stack it used in one word. A key the scenario
//! gives itself wins over its preset's value.
//!
//! The papers ran different stacks: ABQ ns-3.18 (NewReno without SACK,
//! PRR, limited transmit or timestamps; IW 1), the DCTCP analyses assume
//! the window is cut at once on ECN (no PRR), and Linux (the default) has
//! them all on.

use super::TcpConfig;

/// One value a preset sets.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Setting {
    /// A switch.
    Bool(bool),
    /// A count of segments.
    Segments(u32),
    /// A size in bytes.
    Bytes(u64),
    /// The congestion controller's name (a `cc` registry row).
    Cc(&'static str),
}

impl std::fmt::Display for Setting {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Setting::Bool(b) => write!(f, "{b}"),
            Setting::Segments(n) => write!(f, "{n}"),
            Setting::Bytes(b) => write!(f, "{b}B"),
            Setting::Cc(name) => write!(f, "\"{name}\""),
        }
    }
}

/// A named stack: its name, what it models, and the keys it sets.
#[derive(Debug, PartialEq, Eq)]
pub struct Preset {
    /// The value of `preset`.
    pub name: &'static str,
    /// What it models, with its source.
    pub about: &'static str,
    /// The keys it sets, by their `[transport]` names.
    pub settings: &'static [(&'static str, Setting)],
}

use Setting::{Bool, Bytes, Cc, Segments};

/// The switches a preset turns on or off.
#[derive(Clone, Copy)]
struct Switches {
    sack: bool,
    prr: bool,
    limited_transmit: bool,
    cwnd_validation: bool,
    timestamps: bool,
    rack_tlp: bool,
}

/// Every switch off (the ns-3 and ns-2 stacks' base).
const OFF: Switches = Switches {
    sack: false,
    prr: false,
    limited_transmit: false,
    cwnd_validation: false,
    timestamps: false,
    rack_tlp: false,
};

/// The keys every preset sets, in this order: its controller, its
/// switches, its MSS, initial window and window floor.
const fn stack(
    cc: &'static str,
    on: Switches,
    mss: u64,
    initial_window_mss: u32,
    min_cwnd_mss: u32,
) -> [(&'static str, Setting); 10] {
    [
        ("cc", Cc(cc)),
        ("sack", Bool(on.sack)),
        ("prr", Bool(on.prr)),
        ("limited_transmit", Bool(on.limited_transmit)),
        ("cwnd_validation", Bool(on.cwnd_validation)),
        ("timestamps", Bool(on.timestamps)),
        ("rack_tlp", Bool(on.rack_tlp)),
        ("mss", Bytes(mss)),
        ("initial_window_mss", Segments(initial_window_mss)),
        ("min_cwnd_mss", Segments(min_cwnd_mss)),
    ]
}

/// Every preset; the first is the default (the key defaults themselves).
pub static PRESETS: &[Preset] = &[
    Preset {
        name: "linux",
        about: "Linux 5.x/6.x (the defaults): SACK with RFC 6675 recovery, PRR for losses and ECN, limited transmit, timestamps, RACK-TLP, cwnd grown only while it limits the sender (tcp_is_cwnd_limited), IW 10, floor 2 segments",
        settings: &stack(
            "newreno",
            Switches {
                sack: true,
                prr: true,
                limited_transmit: true,
                cwnd_validation: true,
                timestamps: true,
                rack_tlp: true,
            },
            1448,
            10,
            2,
        ),
    },
    Preset {
        name: "ns3-newreno",
        about: "ns-3.18's TcpNewReno (ABQ's simulator): RFC 6582 recovery on three duplicate ACKs, no SACK, PRR, limited transmit, timestamps, RACK-TLP or cwnd validation; IW 1; MSS 1460 B (a 1500 B MTU without the timestamps option)",
        settings: &stack("newreno", OFF, 1460, 1, 2),
    },
    Preset {
        name: "ns3-dctcp",
        about: "DCTCP as its analysis and ns-3's TcpDctcp model it: the window cut at once on ECN (no PRR), RFC 6582 recovery without SACK, limited transmit, timestamps, RACK-TLP or cwnd validation; IW 10, floor 1 segment (ns-3's DCTCP); MSS 1460 B",
        settings: &stack("dctcp", OFF, 1460, 10, 1),
    },
    Preset {
        name: "ns2-dctcp",
        about: "ns-2's FullTcpSack with DCTCP (MQ-ECN's and PIAS's simulator): SACK recovery with cwnd at ssthresh at once (no PRR), the cut on ECN at once, no limited transmit, timestamps, RACK-TLP or cwnd validation (cwnd grows on every ACK up to the receive window, ns-2's window_); IW 10, floor 1 segment; MSS 1460 B",
        settings: &stack("dctcp", Switches { sack: true, ..OFF }, 1460, 10, 1),
    },
];

/// The preset named `name`.
pub fn find(name: &str) -> Option<&'static Preset> {
    PRESETS.iter().find(|p| p.name == name)
}

/// The names, for errors: `"linux", "ns3-newreno", "ns3-dctcp"`.
pub fn names() -> String {
    PRESETS
        .iter()
        .map(|p| format!("\"{}\"", p.name))
        .collect::<Vec<_>>()
        .join(", ")
}

impl Preset {
    /// The congestion controller it names.
    pub fn cc(&self) -> &'static str {
        self.settings
            .iter()
            .find_map(|(_, s)| match s {
                Setting::Cc(name) => Some(*name),
                _ => None,
            })
            .unwrap_or("newreno")
    }

    /// Sets `c`'s keys to this preset's values, except those `given` (the
    /// scenario wrote them); `cc` is chosen by the loader (see [`Preset::cc`]).
    pub fn apply(&self, c: &mut TcpConfig, given: impl Fn(&str) -> bool) {
        for (key, value) in self.settings {
            if given(key) {
                continue;
            }
            match (*key, *value) {
                ("sack", Bool(b)) => c.sack = b,
                ("prr", Bool(b)) => c.prr = b,
                ("limited_transmit", Bool(b)) => c.limited_transmit = b,
                ("cwnd_validation", Bool(b)) => c.cwnd_validation = b,
                ("timestamps", Bool(b)) => c.timestamps = b,
                ("rack_tlp", Bool(b)) => c.rack_tlp = Some(b),
                ("mss", Bytes(b)) => c.mss = sim_core::Bytes(b),
                ("initial_window_mss", Segments(n)) => c.initial_window_mss = n,
                ("min_cwnd_mss", Segments(n)) => c.min_cwnd_mss = n,
                ("cc", Cc(_)) => {}
                (k, v) => unreachable!("preset {}: no rule for {k} = {v}", self.name),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn linux_is_the_defaults() {
        let mut c = TcpConfig::default();
        find("linux").expect("linux").apply(&mut c, |_| false);
        let d = TcpConfig::default();
        // rack_tlp's default is "as sack", which linux makes explicit.
        assert_eq!(c.rack_tlp, Some(true));
        c.rack_tlp = d.rack_tlp;
        assert_eq!(c, d);
    }

    #[test]
    fn a_preset_sets_every_key_it_names_and_leaves_given_keys() {
        for p in PRESETS {
            let mut c = TcpConfig::default();
            p.apply(&mut c, |_| false); // no key without a rule (would panic)
        }
        let mut c = TcpConfig::default();
        let ns3 = find("ns3-newreno").expect("ns3-newreno");
        ns3.apply(&mut c, |k| k == "initial_window_mss");
        assert!(!c.sack && !c.prr && !c.limited_transmit && !c.timestamps);
        assert_eq!(c.rack_tlp, Some(false));
        assert_eq!(c.mss, sim_core::Bytes(1460));
        assert_eq!(c.initial_window_mss, 10, "given by the scenario: kept");
        assert_eq!(find("ns3-dctcp").map(Preset::cc), Some("dctcp"));
        assert!(find("ns-3").is_none());
    }
}
