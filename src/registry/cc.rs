//! `cc`: the congestion controller family, one row per controller, in a
//! transport's table (`[transport] cc = "dctcp"` or
//! `cc = { kind = "dcqcn", variant = "mellanox" }`). Each row says which
//! transport family it runs on; a controller named under the other family
//! is an error naming that family's controllers, and an unknown name lists
//! them all: nothing falls through to a default.

use super::{Family, Kind, key};
use crate::scenario::{NoKeys, ScenarioError, Table};
use serde::de::DeserializeOwned;
use transport::cc::{ControllerConfig, CubicConfig, DctcpConfig, EcnConfig, NewRenoConfig};
use transport::roce::swift::SwiftConfig;
use transport::roce::{
    ControllerKeys, DcqcnKeys, HpccConfig, LineRateConfig, RccKeys, RoceCc, TimelyConfig,
};
use transport::tcp::CcConfig;

/// A controller read from its row: of the TCP family or the RoCE family.
#[derive(Debug, Clone)]
pub enum Cc {
    /// A TCP window controller.
    Tcp(CcConfig),
    /// A RoCE rate and/or window controller.
    Roce(RoceCc),
}

/// Which transport family a controller runs on.
pub const TCP: &str = "tcp";
/// See [`TCP`].
pub const ROCE: &str = "roce";

/// Reads a TCP controller's keys with its config type, checked.
fn tcp<C>(t: &Table<'_>) -> Result<Cc, ScenarioError>
where
    C: ControllerConfig + DeserializeOwned,
    CcConfig: From<C>,
{
    let c: C = t.read()?;
    c.check().map_err(|(k, m)| t.invalid(k, m))?;
    Ok(Cc::Tcp(CcConfig::from(c)))
}

/// Reads a RoCE controller's keys with their keys type, checked.
fn roce<K>(t: &Table<'_>) -> Result<Cc, ScenarioError>
where
    K: ControllerKeys + DeserializeOwned,
    RoceCc: From<K::Config>,
{
    let k: K = t.read()?;
    let c = k.build().map_err(|e| t.invalid(e.key, e.message))?;
    Ok(Cc::Roce(RoceCc::from(c)))
}

fn none(t: &Table<'_>) -> Result<Cc, ScenarioError> {
    t.read::<NoKeys>()?;
    Ok(Cc::Roce(RoceCc::None(LineRateConfig)))
}

/// A row of this family: its documentation, the family it runs on, and
/// its parse-and-validate.
const fn cc_row(
    name: &'static str,
    runs_on: &'static str,
    about: &'static str,
    paper: &'static str,
    keys: &'static [super::Key],
    parse: fn(&Table<'_>) -> Result<Cc, ScenarioError>,
) -> Kind<Cc> {
    let mut kind = super::row(name, about, paper, keys, parse);
    kind.doc.runs_on = runs_on;
    kind
}

/// The rows.
#[rustfmt::skip]
pub static FAMILY: Family<Cc> = Family {
    name: "cc",
    table: "transport.cc",
    default: None,
    kinds: &[
        cc_row(NewRenoConfig::NAME, TCP, "NewReno: Reno growth, halving on loss; does not negotiate ECN (the TCP family's default)", "RFC 5681 3.1, RFC 6582", &[], tcp::<NewRenoConfig>),
        cc_row(EcnConfig::NAME, TCP, "ECN*: NewReno that negotiates ECN and halves once per window on ECN-Echo", "RFC 3168 6.1.2", &[], tcp::<EcnConfig>),
        cc_row(DctcpConfig::NAME, TCP, "DCTCP: cut by alpha/2 per window of marks, alpha an EWMA of the marked fraction", "RFC 8257 3.3", &[
            key("g", "0.0625", "fraction, (0, 1]", "alpha's EWMA gain (RFC 8257 3.3: 1/16)"),
            key("alpha_initial", "1", "fraction, [0, 1]", "alpha before the first window (Linux: 1)"),
        ], tcp::<DctcpConfig>),
        cc_row(CubicConfig::NAME, TCP, "CUBIC: W(t) = C (t - K)^3 + W_max in congestion avoidance, beside a Reno-friendly estimate; HyStart++ optional", "RFC 9438 4; RFC 9406 4", &[
            key("beta", "0.7", "factor, (0, 1)", "beta_cubic: the window after a congestion event (4.6)"),
            key("c", "0.4", "segments/s^3, > 0", "C: the cubic's aggressiveness (5)"),
            key("fast_convergence", "true", "bool", "W_max = cwnd (1 + beta) / 2 when cwnd is below the last W_max (4.7)"),
            key("hystart", "false", "bool", "HyStart++ in slow start (RFC 9406; the other hystart_ keys need it)"),
            key("hystart_min_rtt_thresh", "4ms", "duration, 0 to max", "MIN_RTT_THRESH (RFC 9406 4.3)"),
            key("hystart_max_rtt_thresh", "16ms", "duration, >= min", "MAX_RTT_THRESH (RFC 9406 4.3)"),
            key("hystart_rtt_samples", "8", "samples, >= 1", "N_RTT_SAMPLE: RTT samples per round before deciding (RFC 9406 4.3)"),
            key("hystart_css_growth_divisor", "4", "factor, >= 2", "CSS_GROWTH_DIVISOR: Conservative Slow Start's slowdown (RFC 9406 4.3)"),
            key("hystart_css_rounds", "5", "rounds, >= 1", "CSS_ROUNDS: rounds of CSS before slow start ends (RFC 9406 4.3)"),
        ], tcp::<CubicConfig>),
        cc_row("dcqcn", ROCE, "DCQCN: the receiver's CNPs cut the rate by alpha/2; timer and byte-counter stages raise it (the RoCE family's default)", "DCQCN (SIGCOMM 2015) 3; the HPCC fork; ns3-rdma", &[
            key("variant", "paper", "choice", "\"paper\", \"mellanox\" or \"ns3rdma\": the rules, and every other key's default"),
            key("g", "variant's", "fraction, (0, 1]", "alpha's gain"),
            key("alpha_initial", "variant's", "fraction, [0, 1]", "alpha before the first CNP (not mellanox)"),
            key("alpha_interval", "55us", "duration, >= 1us", "K: alpha's update period"),
            key("rate_timer", "variant's", "duration, >= 1us", "T: the rate-increase timer"),
            key("byte_counter", "variant's", "size or \"none\"", "B: bytes per byte-counter stage (not mellanox)"),
            key("fast_recovery_steps", "5", "count", "F: fast-recovery stages"),
            key("r_ai", "variant's", "rate", "additive increase step"),
            key("r_hai", "variant's", "rate", "hyper increase step"),
            key("min_rate", "variant's", "rate, <= line", "floor on R_C"),
            key("clamp", "variant's", "choice", "when a cut sets R_T = R_C: \"always\", \"after_increase\", \"after_byte_increase\" (ns3rdma)"),
            key("decrease_interval", "4us", "duration, >= 1us", "mellanox: at most one cut per this period"),
            key("rate_on_first_cnp", "1.0", "fraction, (0, 1]", "mellanox: the fraction of R_C kept at the first CNP"),
        ], roce::<DcqcnKeys>),
        cc_row("timely", ROCE, "TIMELY: the sender's rate from RTT gradients, once per completion event", "TIMELY (SIGCOMM 2015) 4-5", &[
            key("alpha", "0.875", "fraction, (0, 1]", "EWMA weight of a new RTT difference"),
            key("beta", "0.8", "fraction, (0, 1]", "multiplicative decrease factor"),
            key("t_low", "50us", "duration, >= 0", "below this RTT, always increase"),
            key("t_high", "500us", "duration, > t_low", "above this RTT, always decrease"),
            key("min_rtt", "20us", "duration, > 0", "the gradient's normaliser"),
            key("delta", "10Mbps", "rate", "additive step"),
            key("hai_after", "5", "count", "negative gradients in a row before hyper-active increase"),
            key("hai_factor", "5", "factor, >= 1", "HAI's multiple of delta"),
            key("min_rate", "100Mbps", "rate, <= line", "the rate's floor"),
        ], roce::<TimelyConfig>),
        cc_row("hpcc", ROCE, "HPCC: the window from in-band telemetry of every hop's queue and link use (Algorithm 1)", "HPCC (SIGCOMM 2019) 3.3; the HPCC fork", &[
            key("eta", "0.95", "fraction, (0, 1]", "target utilisation"),
            key("max_stage", "5", "count", "additive-increase stages before a multiplicative update"),
            key("rate_ai", "line rate / 2500", "rate", "R_AI (W_AI / T)"),
            key("min_rate", "1Gbps", "rate, <= line", "the rate's floor (the fork's MIN_RATE)"),
            key("fast_react", "true", "bool", "react on every ACK, not once per RTT"),
        ], roce::<HpccConfig>),
        cc_row("rcc", ROCE, "RCC: the receiver assigns each flow's window: a fair share, or a PID on one-way delay when congested inside the network", "RCC III, V", &[
            key("variant", "rcc", "choice", "\"rcc\", \"rcc-ewa\", \"rcc-pid\" or \"rcc-sender\" (V-D, III-G)"),
            key("n", "3", "count, >= 1", "delays in a row above the threshold that signal congestion (III-F)"),
            key("delta", "0.2", "fraction, (0, 1)", "allowed queueing as a fraction of the base delay (III-F)"),
            key("eta", "0.95", "fraction, (0, 1)", "expected last-hop utilisation (III-F)"),
            key("kp", "1e4", "gain, >= 0", "proportional gain (V-A)"),
            key("kd", "1e5", "gain, >= 0", "derivative gain (V-A)"),
            key("error_unit", "s", "choice", "the PID error's unit: \"s\" or \"us\""),
            key("scale", "tanh", "choice", "\"tanh\", \"sigmoid\" or \"sigmoid2\" (V-D-3)"),
            key("pid_step", "rtt", "choice", "\"rtt\" or \"packet\": when the PID steps"),
            key("ewa_share", "line", "choice", "\"line\" (C x RTT / N, at least a packet) or \"eta\" (eta x C x RTT / N)"),
            key("clock_offset", "0s", "duration, 0 to 1s", "RCC-async: the largest per-host clock offset (V-D-1)"),
            key("clock_jitter", "0s", "duration, 0 to 1s", "RCC-async: the largest delay added to a send stamp"),
        ], roce::<RccKeys>),
        cc_row("swift", ROCE, "Swift: AIMD of a window on the round-trip delay against a target scaled by hops and by the window; below one packet, paced", "Swift (SIGCOMM 2020) 3, Algorithm 1", &[
            key("base_target", "25us", "duration, > 0, <= 1s", "the target delay with no hop or flow scaling"),
            key("hop_scale", "3.8us", "duration, 0 to 1s", "target added per switch hop (topology scaling, 3.3)"),
            key("fs_range", "125us", "duration, 0 to 1s", "flow scaling's largest addition to the target (3.5)"),
            key("fs_min_cwnd", "0.1", "packets, > 0", "the window at which flow scaling adds all of fs_range"),
            key("fs_max_cwnd", "100", "packets, > fs_min", "the window at which flow scaling adds nothing"),
            key("ai", "1", "packets/RTT, > 0", "additive increase"),
            key("beta", "0.8", "factor, (0, 1]", "multiplicative decrease's gain"),
            key("max_mdf", "0.5", "fraction, (0, 1)", "the largest cut of one decrease (once per RTT)"),
            key("min_cwnd", "0.01", "packets, > 0", "the window's floor (below one packet: paced at RTT / cwnd)"),
            key("max_cwnd", "1000", "packets, >= min", "the window's ceiling"),
        ], roce::<SwiftConfig>),
        cc_row("none", ROCE, "no congestion control: every flow at line rate (with `window`, a fixed window)", "", &[], none),
    ],
};

/// The controllers of one transport family, in the registry's order.
fn on(runs_on: &str) -> impl Iterator<Item = &'static str> + '_ {
    FAMILY
        .kinds
        .iter()
        .filter(move |k| k.doc.runs_on == runs_on)
        .map(|k| k.doc.name)
}

/// The controllers of one transport family, bare (`newreno, ecn, ...`):
/// what `{tcp cc}` and `{roce cc}` stand for in the texts `dcnsim list`
/// prints.
pub fn listed_on(runs_on: &str) -> String {
    on(runs_on).collect::<Vec<_>>().join(", ")
}

/// The controllers of one transport family, quoted, for messages.
fn names_on(runs_on: &str) -> String {
    on(runs_on)
        .map(|n| format!("\"{n}\""))
        .collect::<Vec<_>>()
        .join(", ")
}

/// Reads a TCP transport's `cc` (absent: `default`, the preset's
/// controller or NewReno) and returns the rest of its table.
pub fn tcp_cc<'a>(t: &Table<'a>, default: &str) -> Result<(CcConfig, Table<'a>), ScenarioError> {
    match t.take_tagged("cc", &FAMILY, default)? {
        (Cc::Tcp(c), rest) => Ok((c, rest)),
        (Cc::Roce(_), _) => Err(t.invalid(
            "cc",
            format!(
                "a RoCE controller under a TCP transport: the TCP family's are {}",
                names_on(TCP)
            ),
        )),
    }
}

/// Reads a RoCE transport's `cc` (absent: DCQCN's paper variant) and
/// returns the rest of its table.
pub fn roce_cc<'a>(t: &Table<'a>) -> Result<(RoceCc, Table<'a>), ScenarioError> {
    match t.take_tagged("cc", &FAMILY, "dcqcn")? {
        (Cc::Roce(c), rest) => Ok((c, rest)),
        (Cc::Tcp(_), _) => Err(t.invalid(
            "cc",
            format!(
                "a TCP controller under a RoCE transport: the RoCE family's are {}",
                names_on(ROCE)
            ),
        )),
    }
}
