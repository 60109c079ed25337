//! `[transport]`: the host transport family. Today one kind, the TCP family
//! (its congestion controller chosen by `cc`); the RoCE family comes next.

use super::{Family, key, row};
use crate::scenario::{ScenarioError, Table};
use transport::TcpConfig;

fn tcp(t: &Table<'_>) -> Result<TcpConfig, ScenarioError> {
    let c: TcpConfig = t.read()?;
    c.validate().map_err(|e| t.invalid(e.key, e.message))?;
    Ok(c)
}

/// The rows.
#[rustfmt::skip]
pub static FAMILY: Family<TcpConfig> = Family {
    name: "transport",
    table: "transport",
    default: Some("tcp"),
    kinds: &[row("tcp", "TCP: handshake, NewReno recovery, RFC 6298 RTO, window scaling; cc NewReno, ECN* or DCTCP", "RFC 9293, 5681, 6582, 6298, 7323, 3168, 8257", &[
            key("cc", "newreno", "choice", "\"newreno\", \"ecn\" (ECN*, RFC 3168) or \"dctcp\" (RFC 8257)"),
            key("mss", "1460B", "size", "payload bytes per segment (1500 B MTU - 40 B headers)"),
            key("initial_window_mss", "10", "segments", "initial window (RFC 6928)"),
            key("rto_initial", "1s", "duration", "RTO before the first RTT sample (RFC 6298 2.1)"),
            key("rto_min", "200ms", "duration", "RTO floor (Linux; RFC 6298 says 1 s)"),
            key("rto_max", "60s", "duration", "RTO ceiling and backoff cap"),
            key("delayed_ack", "false", "bool", "ACK every second segment (RFC 9293 3.8.6.3)"),
            key("delayed_ack_timeout", "40ms", "duration", "delayed-ACK timer"),
            key("receive_window", "6MB", "size", "receive buffer = advertised window"),
            key("window_scaling", "true", "bool", "negotiate RFC 7323 window scaling"),
            key("window_scale_shim", "auto", "bool", "FairQ's host shim (fairq.txt V-A); on with rwnd-rewriting plugins"),
            key("dctcp_g", "0.0625", "fraction", "DCTCP EWMA gain g (RFC 8257 3.3)"),
            key("dctcp_alpha_initial", "1", "fraction", "DCTCP's alpha at start (Linux)"),
        ], tcp)],
};
