//! `[transport]` and `[transport.NAME]`: the host transport family
//! (`kind`): the TCP family (its congestion controller chosen by `cc`),
//! the RoCE family (its reliable connection, DCQCN by `cc`), or the
//! receiver-driven Homa and ExpressPass, the Ultra Ethernet transport, or
//! NDP.

use super::{Family, key, row};
use crate::scenario::{ScenarioError, Table};
use transport::TransportConfig;
use transport::expresspass::ExpressPassKeys;
use transport::homa::HomaKeys;
use transport::ndp::NdpKeys;
use transport::roce::RoceKeys;
use transport::tcp::TcpConfig;
use transport::tcp::preset;
use transport::uec::UecKeys;

fn roce(t: &Table<'_>) -> Result<TransportConfig, ScenarioError> {
    let (cc, rest) = super::cc::roce_cc(t)?;
    let k: RoceKeys = rest.read()?;
    let c = k.build(cc).map_err(|e| t.invalid(e.key, e.message))?;
    let line = t.ctx().max_host_rate;
    if c.cc
        .rules()
        .min_rate_bps()
        .is_some_and(|r| r > line.bps() as f64)
    {
        let msg =
            format!("is above the fastest host link ({line}): a floor the rate can never reach");
        return Err(t.invalid("cc.min_rate", msg));
    }
    Ok(TransportConfig::Roce(c))
}

fn homa(t: &Table<'_>) -> Result<TransportConfig, ScenarioError> {
    let k: HomaKeys = t.read()?;
    let c = k.build().map_err(|e| t.invalid(e.key, e.message))?;
    Ok(TransportConfig::Homa(c))
}

fn expresspass(t: &Table<'_>) -> Result<TransportConfig, ScenarioError> {
    let k: ExpressPassKeys = t.read()?;
    let c = k.build().map_err(|e| t.invalid(e.key, e.message))?;
    Ok(TransportConfig::ExpressPass(c))
}

fn uec(t: &Table<'_>) -> Result<TransportConfig, ScenarioError> {
    let k: UecKeys = t.read()?;
    let c = k.build().map_err(|e| t.invalid(e.key, e.message))?;
    Ok(TransportConfig::Uec(c))
}

fn ndp(t: &Table<'_>) -> Result<TransportConfig, ScenarioError> {
    let k: NdpKeys = t.read()?;
    let c = k.build().map_err(|e| t.invalid(e.key, e.message))?;
    Ok(TransportConfig::Ndp(c))
}

fn tcp(t: &Table<'_>) -> Result<TransportConfig, ScenarioError> {
    let (name, without) = t.take_str("preset")?;
    let preset = match name {
        None => None,
        Some(n) => Some(preset::find(&n).ok_or_else(|| {
            t.invalid(
                "preset",
                format!("'{n}' is not a preset: choose {}", preset::names()),
            )
        })?),
    };
    let (cc, rest) = super::cc::tcp_cc(&without, preset.map_or("newreno", |p| p.cc()))?;
    let mut c: TcpConfig = rest.read()?;
    if let Some(p) = preset {
        p.apply(&mut c, |key| rest.has(key));
    }
    c.cc = cc;
    c.validate().map_err(|e| t.invalid(e.key, e.message))?;
    Ok(TransportConfig::Tcp(c))
}

/// The rows.
#[rustfmt::skip]
pub static FAMILY: Family<TransportConfig> = Family {
    name: "transport",
    table: "transport",
    default: Some("tcp"),
    kinds: &[row("tcp", "TCP as Linux runs it: SACK + RFC 6675 recovery, PRR, limited transmit, RFC 6298 RTO, timestamps, window scaling; its window controller by cc ({tcp cc})", "RFC 9293, 5681, 6582, 6675, 6937, 3042, 2018, 6298, 7323, 3168, 8257", &[
            key("preset", "linux", "word", "a named stack that sets cc, sack, prr, limited_transmit, cwnd_validation, timestamps, rack_tlp, mss, initial_window_mss and min_cwnd_mss at once: \"linux\", \"ns3-newreno\", \"ns3-dctcp\", \"ns2-dctcp\" (keys given beside it win)"),
            key("cc", "newreno", "name or table", "the window controller: a TCP row of `dcnsim list cc` ({tcp cc}), by name or as { kind = NAME, keys }"),
            key("mss", "1448B", "size", "payload bytes per segment (1500 B MTU - 40 B headers - 12 B timestamps)"),
            key("initial_window_mss", "10", "segments", "initial window (RFC 6928)"),
            key("min_cwnd_mss", "2", "segments", "floor of a window reduction (Linux 2; ns-3.48 DCTCP 1)"),
            key("sack", "true", "bool", "SACK blocks (RFC 2018) and RFC 6675 loss recovery (Linux)"),
            key("prr", "true", "bool", "proportional rate reduction (RFC 6937) for losses and ECN (Linux)"),
            key("limited_transmit", "true", "bool", "a new segment on each of the first two dupacks (RFC 3042)"),
            key("cwnd_validation", "true", "bool", "cwnd grows only while it limits the sender (RFC 7661 4; Linux's tcp_is_cwnd_limited)"),
            key("timestamps", "true", "bool", "the 12 B timestamps option on every segment (RFC 7323; Linux)"),
            key("rack_tlp", "= sack", "bool", "RACK time-based loss detection and tail-loss probes (RFC 8985; Linux)"),
            key("dupthresh", "true", "bool", "RFC 6675's three-SACK rule and three dupACKs start recoveries beside RACK (Linux); false: RACK alone judges losses by time (Linux's RACK_NO_DUPTHRESH), needs rack_tlp"),
            key("reo_wnd_mult", "1", "1 to 255", "RACK.reo_wnd_mult, held fixed: the reordering window is min(reo_wnd_mult x min_RTT/4, SRTT) (RFC 8985 6.2)"),
            key("tlp_extra", "2ms", "duration, >= 0", "added to the probe timeout's 2 SRTT (Linux's TCP_TIMEOUT_MIN; RFC 8985: 0)"),
            key("rto_initial", "1s", "duration, rto_min to rto_max", "RTO before the first RTT sample (RFC 6298 2.1)"),
            key("rto_min", "200ms", "duration, 1us to rto_max", "RTO floor (Linux; RFC 6298 says 1 s)"),
            key("rto_max", "60s", "duration, >= rto_min", "RTO ceiling and backoff cap"),
            key("delayed_ack", "false", "bool", "ACK every second segment (RFC 9293 3.8.6.3)"),
            key("delayed_ack_timeout", "40ms", "duration, >= 1us", "delayed-ACK timer"),
            key("receive_window", "6MB", "size", "receive buffer = advertised window"),
            key("window_scaling", "true", "bool", "negotiate RFC 7323 window scaling"),
            key("window_scale_shim", "auto", "bool", "FairQ's host shim (FairQ V-A); on with rwnd-rewriting plugins"),
        ], tcp),
        row("roce", "RoCE v2 reliable connection: one message per flow in MTU packets with PSNs, per-packet ACKs, NAK and go-back-N, NIC pacing from line rate; its rate and/or window controller by cc ({roce cc})", "IBTA RoCE v2; DCQCN (SIGCOMM 2015); TIMELY (SIGCOMM 2015); RCC (RCC); the HPCC fork; ns3-rdma", &[
            key("mtu", "1000B", "size", "payload bytes per packet (the HPCC fork's PACKET_PAYLOAD_SIZE); +44 B of IPv4, UDP, BTH and ICRC headers"),
            key("ack_interval", "1", "packets", "data packets per ACK (every packet, as the references run)"),
            key("nack_interval", "500us", "duration, >= 0", "at most one NAK per expected PSN per this long (HPCC fork)"),
            key("rto", "off", "duration, >= 1us", "retransmission timeout (off in the references: a lost tail is never recovered; required behind an ingress VIQ that drops, R-AQM or ABQ)"),
            key("window", "none", "word", "in-flight cap: \"none\", \"bdp\" (one base BDP of the path), \"bdp_x_rate\" (BDP x R_C / line rate, the HPCC fork's DCQCN+window); not with RCC, which assigns its own"),
            key("cc", "dcqcn", "name or table", "the rate and/or window controller: a RoCE row of `dcnsim list cc` ({roce cc}), by name or as { kind = NAME, keys }"),
            key("cnp_interval", "50us", "duration, >= 1us", "DCQCN's notification point: at most one CNP per flow per this long (paper), or its slot (ns3rdma); mellanox flags ACKs instead"),
            key("ack_priority", "the flow's", "0-7", "priority of ACKs, NAKs and CNPs"),
            key("recovery", "go-back-n", "word", "\"go-back-n\" (a NAK resends from the hole; IBTA, the HPCC fork) or \"selective\" (IRN: the responder keeps out-of-order packets and NACKs each; only holes are resent; a trimmed header is NACKed at once)"),
        ], roce),
        row("homa", "Homa: a message's first RTTbytes go unscheduled at a priority set by its length; the receiver grants the rest to the messages with the fewest bytes left (overcommitment of them at a time, one per sender) at priorities by rank; senders send shortest first; RESEND after silence. Needs strict-priority class queues to have its effect", "Homa (Montazeri et al., SIGCOMM 2018) 3.2-3.7", &[
            key("mss", "1440B", "size", "payload bytes per DATA packet (1500 B MTU - 60 B of IPv4 and Homa headers)"),
            key("priorities", "8", "2-8", "priority levels (section 5: 8); level 0, the highest, is the flow's priority, level i its priority + i"),
            key("unscheduled_priorities", "from the workload", "1 to priorities - 1", "levels for unscheduled bytes; absent: the unscheduled bytes' share of all bytes, of the levels (3.4)"),
            key("rtt_bytes", "the largest path BDP", "size", "RTTbytes: sent blindly and kept granted beyond what has arrived (3.3); absent: the largest base BDP of the flows' paths"),
            key("overcommitment", "the scheduled levels", "messages, >= 1", "messages granted at once (3.5); absent: as many as scheduled levels"),
            key("resend_timeout", "1ms", "duration, >= 1us", "silence after which the receiver asks for missing bytes and the sender resends its first packet (3.7; the paper gives no value)"),
        ], homa),
        row("expresspass", "ExpressPass: the receiver paces credits and the sender sends one data packet per credit; every port queues credits apart (credit_queue of them) and limits them to the link's share that leaves room for the data they buy, dropping the excess; the receiver's credit feedback control raises or cuts its credit rate each RTT by the credit loss", "ExpressPass (Cho, Jang, Han, SIGCOMM 2017) 3.1-3.2, Algorithm 1; the authors' ns-2 scripts for alpha, w_init, w_min, jitter and the burst", &[
            key("mss", "1460B", "size", "payload bytes per data packet (1538 B frame - 78 B of Ethernet, IP and ExpressPass headers)"),
            key("alpha", "0.5", "(0, 1]", "the first credit rate, as a fraction of the maximum"),
            key("w_init", "0.0625", "w_min to w_max", "the first aggressiveness w (Algorithm 1)"),
            key("w_min", "0.01", "(0, 1]", "w's floor after decreases"),
            key("w_max", "0.5", "(0, 1]", "w's ceiling: each successive increase moves w halfway to it"),
            key("target_loss", "0.125", "[0, 1)", "credit loss tolerated before a decrease"),
            key("jitter", "0.1", "[0, 1)", "credit spacing varies uniformly by this fraction (3.1)"),
            key("credit_queue", "8", "credits, >= 1", "each port's credit queue (3.1: a small one)"),
            key("credit_burst", "2", "credits, >= 1", "credits a port may send back to back (its limiter's bucket)"),
            key("retransmit_timeout", "100us", "duration, >= 1us", "silence before a sender asks again, or a stopped receiver that lacks data resumes credits"),
        ], expresspass),
        row("uec", "The Ultra Ethernet transport with NSCC: every packet carries its own entropy value, which switches hash, so a flow sprays over the paths (spray); the receiver SACKs out-of-order packets and NACKs a trimmed one at once, and only that one is resent; NSCC sets the window from each ACK's queueing delay against target_qdelay and its ECN echo (increase below target, multiplicative decrease when marked above it, quick adapt on loss); a packet unacknowledged for rto is resent", "Ultra Ethernet Specification 1.0 (2025) PDS and NSCC; htsim uec.cpp, uec_mp.cpp at 40ccb05 for NSCC's constants and REPS; REPS (Bonato et al., 2024)", &[
            key("mss", "4096B", "size", "payload bytes per packet; +64 B of headers (htsim's)"),
            key("ack_coalesce", "16KB", "size", "the receiver ACKs once this many bytes arrived since its last ACK, and at once for a CE-marked, duplicate, first or ACK-requesting packet"),
            key("rto", "100us", "duration, >= 1us", "a packet unacknowledged this long after it was sent is resent (htsim's DEFAULT_UEC_RTO_MIN)"),
            key("spray", "reps", "word", "how each packet's entropy value is chosen: \"none\" (one per flow), \"oblivious\" (each value in turn, reshuffled each round), \"reps\" (recycle the values whose ACKs came back unmarked), or htsim's \"bitmap\", \"reps-legacy\" and \"mixed\" (its default)"),
            key("entropies", "64", "power of two, 1 to 32768", "distinct entropy values a flow uses (htsim's -paths; not with spray = \"none\")"),
            key("reps_buffer", "8", "1 to 4096", "entropy values REPS caches (only with spray = \"reps\")"),
            key("reps_freeze", "10ms", "duration, >= 0", "how long REPS cycles over its cache after a timeout (a failed path); 0: never (only with spray = \"reps\")"),
            key("sender_cc", "nscc", "word", "the sender's window: \"nscc\" (UE 1.0's NSCC), or htsim's (-sender_cc_algo) \"dctcp\" (+1 MTU per window of unmarked ACKs, a third of a marked ACK's bytes and a NACK's bytes off, floor one MTU, no ceiling) or \"constant\" (max_cwnd; timeouts shrink it), or \"none\" (receiver credit alone, htsim's -receiver_cc_only; needs rccc); NSCC's keys need \"nscc\""),
            key("target_qdelay", "0.75 x network RTT with trimming, 1 x without", "duration, >= 100ns", "the queueing delay NSCC steers to (NSCC's keys, target_qdelay to fast_increase_delay, need sender_cc = \"nscc\"); the network RTT is the largest base RTT of the run's UEC flows"),
            key("qa_gate", "3", "0 to 16", "quick adapt cuts the window only if the bytes delivered in the last period were below max_cwnd >> qa_gate"),
            key("quick_adapt", "true", "bool", "quick adapt: after a loss, NACK or delay above 4 x target, the window becomes what was delivered in the last period"),
            key("gamma", "0.8", "(0, 1]", "multiplicative decrease: cwnd x max(1 - gamma (avg_delay - target)/avg_delay, 0.5), at most once per base RTT"),
            key("delay_ewma", "0.0125", "(0, 1]", "the weight of a new delay sample in the average delay"),
            key("alpha", "4", "> 0", "proportional increase, MSS x scale_a x scale_b per target delay below target (scale_a: network BDP / 150 KB; scale_b: target / 12 us)"),
            key("fi", "5", ">= 0", "fair increase, MSS x scale_a per window of bytes acknowledged while the delay is above target unmarked"),
            key("eta", "0.15", ">= 0", "additive increase, MSS x scale_a once per network RTT"),
            key("fi_scale", "0.25", ">= 0", "fast increase: the window grows by fi_scale x scale_a per byte acknowledged while the delay stays under fast_increase_delay"),
            key("fast_increase_delay", "1us", "duration, >= 0", "the delay under which fast increase runs"),
            key("max_cwnd", "1.5", "0.1 to 64", "the window's ceiling (NSCC's) and start, and the most credit RCCC holds, in BDPs of the flow's path at its NIC's rate"),
            key("rccc", "false", "bool", "receiver credit (UE 1.0 RCCC) beside the sender's window: after a first window sent on speculation, a packet needs credit, which each receiving host paces out across its flows at its line rate"),
            key("credit_packets", "4", "packets, 1 to 1024", "packets' worth of credit each credit grants (htsim's _mtus_per_pull); credits are that much data's time at the receiver's line rate apart; needs rccc"),
        ], uec),
        row("ndp", "NDP: the sender sends a first window at line rate, each packet on its own path, then one packet per PULL; switches trim what they cannot queue ([switch.trim]); the receiver ACKs every packet and NACKs every header at once and queues a PULL for each, which the host's pull pacer sends a full packet's time apart, so the data arrives at its line rate; a NACKed packet goes again at the next PULL, one unacknowledged for rto at once", "NDP (Handley et al., SIGCOMM 2017) 3.1-3.2; htsim ndp.cpp at 40ccb05 for the packet size", &[
            key("mss", "8936B", "size", "payload bytes per packet; +64 B of headers (htsim's 9,000 B packets)"),
            key("initial_window", "one BDP", "packets, 1 to 100000", "packets sent before the first PULL; PULLs then keep that many in flight (absent: the flow's path BDP, rounded up; htsim's -cwnd default is 15)"),
            key("rto", "1ms", "duration, >= 1us", "a packet unacknowledged this long after it was sent goes again at once (lost control packets)"),
            key("spray", "oblivious", "word", "\"oblivious\" (each packet its own entropy value, in turn) or \"none\" (one path per flow)"),
            key("entropies", "64", "power of two, 1 to 32768", "distinct entropy values a flow uses (not with spray = \"none\")"),
            key("pull_rate", "1", "0.001 to 2", "PULLs are a full packet's time at this fraction of the host's line rate apart"),
        ], ndp)],
};

#[cfg(test)]
mod tests {
    use crate::scenario::parse_str;
    use transport::TransportConfig;

    fn tcp_of(transport: &str) -> Result<transport::tcp::TcpConfig, String> {
        let text = format!(
            "[topology]\nkind = \"star\"\nhosts = 2\nlink_rate = \"10Gbps\"\nlink_delay = \"1us\"\n[switch]\nbuffer = \"100pkt\"\n[transport]\n{transport}\n\
             [[workload]]\nkind = \"incast\"\nreceiver = 0\nsenders = \"1-1\"\nsize = \"10KB\"\n"
        );
        let sc = parse_str("t.toml", &text).map_err(|e| e.to_string())?;
        match &sc.transports[0].config {
            TransportConfig::Tcp(c) => Ok(c.clone()),
            other => Err(other.family().into()),
        }
    }

    #[test]
    fn a_preset_sets_its_keys_and_a_key_beside_it_wins() {
        let c = tcp_of("preset = \"ns3-dctcp\"\ninitial_window_mss = 4").expect("loads");
        assert!(!c.sack && !c.prr && !c.timestamps && !c.limited_transmit);
        assert_eq!((c.initial_window_mss, c.min_cwnd_mss), (4, 1));
        assert_eq!(c.cc.name(), "dctcp", "the preset's controller");
        let c = tcp_of("preset = \"ns3-dctcp\"\ncc = \"newreno\"").expect("loads");
        assert_eq!(c.cc.name(), "newreno", "cc beside the preset wins");
        let e = tcp_of("preset = \"ns-3\"").expect_err("unknown");
        assert!(
            e.contains("t.toml:9:") && e.contains("transport.preset") && e.contains("ns3-newreno"),
            "{e}"
        );
    }
}
