//! Every family end to end on a bad path, as property tests: whatever the
//! path drops, duplicates or reorders (both ways), the flow completes
//! without stalling, the receiver holds every byte once and in order, and
//! the sender's counters reconcile with what it put on the wire. The
//! ends are built and driven through the generated enums, as the world
//! drives them.

use crate::harness::{Fate, Harness, addr};
use crate::{PathInfo, Receiver, ReceiverEnd, Sender, SenderEnd, TransportConfig};
use net::{Kind, Packet, WireFormat};
use proptest::prelude::*;
use sim_core::{Bandwidth, RngStream, SimDuration, SimTime};

/// The harness's path: 10 Gb/s, 10 us one way.
fn path() -> PathInfo {
    let rate = Bandwidth::from_gbps(10);
    let base_rtt = SimDuration::from_us(22);
    PathInfo {
        line_rate: rate,
        rx_line_rate: rate,
        wire: WireFormat::ETHERNET,
        base_rtt,
        bdp_bytes: rate.bytes_in(base_rtt),
        src_clock_offset: SimDuration::ZERO,
        dst_clock_offset: SimDuration::ZERO,
        stream_seed: 7,
    }
}

/// Each family with settings that recover from any loss (RoCE's RTO is
/// off by default: a lost tail would wait forever, as in its references).
fn families(size: u64) -> Vec<TransportConfig> {
    let roce = crate::roce::RoceConfig {
        rto: Some(SimDuration::from_us(200)),
        ..Default::default()
    };
    let irn = crate::roce::RoceConfig {
        recovery: crate::roce::RecoveryMode::Selective,
        ..roce
    };
    let mut homa = crate::homa::HomaConfig::default();
    homa.prepare(path().bdp_bytes, &[size]);
    let mut uec = crate::uec::UecConfig::default();
    uec.network.rtt = path().base_rtt;
    uec.network.rate = path().line_rate;
    vec![
        TransportConfig::Tcp(crate::tcp::TcpConfig::default()),
        TransportConfig::Roce(roce),
        TransportConfig::Roce(irn),
        TransportConfig::Homa(homa),
        TransportConfig::ExpressPass(crate::expresspass::ExpressPassConfig::default()),
        TransportConfig::Uec(uec),
        TransportConfig::Ndp(crate::ndp::NdpConfig::default()),
    ]
}

/// How bad the path is, per packet.
#[derive(Clone, Copy, Debug)]
struct Badness {
    seed: u64,
    loss_ppm: u64,
    dup_ppm: u64,
    late_ppm: u64,
    late_us: u64,
}

/// A path hook with its own random stream (one per direction).
fn fates(b: Badness, direction: u64) -> impl FnMut(&Packet) -> Fate {
    let mut rng = RngStream::new(b.seed, direction, 0);
    move |_| {
        let mut hit = |ppm: u64| rng.below(1_000_000) < ppm;
        let copies = if hit(b.loss_ppm) {
            0
        } else if hit(b.dup_ppm) {
            2
        } else {
            1
        };
        let extra = if hit(b.late_ppm) {
            SimDuration::from_us(b.late_us)
        } else {
            SimDuration::ZERO
        };
        Fate { copies, extra }
    }
}

/// Runs one flow of `size` bytes of `cfg` over a path `b` makes bad; the
/// data packets the sender put on the wire come back with the harness.
fn run(cfg: &TransportConfig, size: u64, b: Badness) -> Harness<'static, Sender, Receiver> {
    let (s, r) = (
        cfg.sender(addr(), size, &path()),
        cfg.receiver(addr(), &path()),
    );
    let mut h = Harness::with(s, r);
    h.data_fate = Box::new(fates(b, 1));
    h.ack_fate = Box::new(fates(b, 2));
    h.run(SimTime::ZERO + SimDuration::from_secs(5));
    h
}

/// Data packets sent, and those among them that carried a byte (or a
/// PSN, where sequence numbers count packets) already sent before.
fn data_sent(h: &Harness<'_, Sender, Receiver>) -> (u64, u64) {
    let mut sent: Vec<(u64, u64)> = Vec::new();
    let mut again = 0;
    let data = h
        .data_packets
        .iter()
        .filter(|p| p.kind == Kind::Data && p.payload_bytes > 0);
    for p in data {
        let (a, b) = (p.seq, p.seq_end());
        again += sent.iter().any(|&(x, y)| a < y && x < b) as u64;
        sent.push((a, b));
    }
    (sent.len() as u64, again)
}

fn check(cfg: &TransportConfig, size: u64, b: Badness) -> Result<(), TestCaseError> {
    let h = run(cfg, size, b);
    let name = cfg.family();
    let rec = h.sender.record();
    prop_assert!(
        rec.completed_at.is_some(),
        "{name}: the flow stalled at {} of {size} bytes acknowledged",
        rec.bytes_acked
    );
    prop_assert_eq!(rec.bytes_acked, size, "{}: bytes acknowledged", name);
    prop_assert_eq!(
        h.receiver.bytes_received(),
        size,
        "{}: bytes received in order, once",
        name
    );
    let (_, again) = data_sent(&h);
    let c = rec.counters;
    prop_assert_eq!(
        again,
        c.retransmits,
        "{}: data packets sent again = retransmits ({:?})",
        name,
        c
    );
    if matches!(cfg, TransportConfig::Uec(_) | TransportConfig::Ndp(_)) {
        // The families that give packets up one by one (a timeout, a
        // NACK): every packet given up went again, was acknowledged
        // first, or waits.
        prop_assert_eq!(
            c.timeouts + c.sack_recovered,
            c.retransmits + c.given_up_then_acked + c.resends_pending,
            "{}: given up = resent + acknowledged first + pending ({:?})",
            name,
            c
        );
    }
    Ok(())
}

#[test]
fn on_a_clean_path_no_family_retransmits() {
    let clean = Badness {
        seed: 1,
        loss_ppm: 0,
        dup_ppm: 0,
        late_ppm: 0,
        late_us: 0,
    };
    for cfg in families(200_000) {
        let h = run(&cfg, 200_000, clean);
        let c = h.sender.record().counters;
        assert_eq!(
            (c.retransmits, c.timeouts),
            (0, 0),
            "{}: {c:?}",
            cfg.family()
        );
        assert_eq!(h.receiver.bytes_received(), 200_000, "{}", cfg.family());
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    #[test]
    fn every_family_delivers_every_byte_once_in_order_over_a_bad_path(
        size in 1u64..300_000,
        seed in any::<u64>(),
        loss_ppm in 0u64..50_000,
        dup_ppm in 0u64..30_000,
        late_ppm in 0u64..100_000,
        late_us in 1u64..40,
    ) {
        let b = Badness { seed, loss_ppm, dup_ppm, late_ppm, late_us };
        for cfg in families(size) {
            check(&cfg, size, b)?;
        }
    }
}
