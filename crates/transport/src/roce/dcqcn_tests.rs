//! DCQCN RP traces: the paper variant against a hand-computed trace to the
//! microsecond and 1e-6 Gb/s, and one trace per other variant, derived by
//! hand from its source's rules.
use super::*;

const G: f64 = 1e9;

fn at_us(us: u64) -> SimTime {
    SimTime::ZERO + SimDuration::from_us(us)
}

fn at_ns(ns: u64) -> SimTime {
    SimTime::ZERO + SimDuration::from_ns(ns)
}

/// Runs the RP's timers up to `until`, with CNPs at `cnps`, recording
/// (time, R_C, R_T, alpha) after every CNP and timer event.
fn trace(rp: &mut Dcqcn, cnps: &[SimTime], until: SimTime) -> Vec<(SimTime, f64, f64, f64)> {
    let mut out = Vec::new();
    let mut cnps = cnps.iter().copied().peekable();
    loop {
        let timer = rp.deadline();
        let next_cnp = cnps.peek().copied();
        let take_cnp = match (timer, next_cnp) {
            (_, None) => false,
            (None, Some(_)) => true,
            (Some(t), Some(c)) => c <= t,
        };
        let now = if take_cnp {
            let c = cnps.next().expect("peeked");
            rp.on_cnp(c);
            c
        } else {
            match timer {
                Some(t) if t <= until => {
                    rp.on_timer(t);
                    t
                }
                _ => break,
            }
        };
        if now > until {
            break;
        }
        out.push((now, rp.rate_bps() / G, rp.target_bps() / G, rp.alpha()));
    }
    out
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() < 1e-6
}

#[test]
fn the_paper_variant_follows_the_spec_trace_to_the_microsecond() {
    // 40 Gb/s, g = 1/256, F = 5, timers 55 us, B not
    // reached, R_AI = 40 Mb/s, R_HAI = 200 Mb/s; CNPs at 0 and 120 us.
    let mut rp = Dcqcn::new(DcqcnConfig::defaults(Variant::Paper), 40.0 * G);
    let got = trace(&mut rp, &[at_us(0), at_us(120)], at_us(560));
    let want: [(u64, f64, f64, f64); 12] = [
        (0, 20.000000, 40.000000, 1.000000),
        (55, 30.000000, 40.000000, 0.996094),
        (110, 35.000000, 40.000000, 0.992203),
        (120, 17.636452, 35.000000, 0.992233),
        (175, 26.318226, 35.000000, 0.988357),
        (230, 30.659113, 35.000000, 0.984497),
        (285, 32.829556, 35.000000, 0.980651),
        (340, 33.914778, 35.000000, 0.976820),
        (395, 34.457389, 35.000000, 0.973004),
        (450, 34.748695, 35.040000, 0.969204),
        (505, 34.914347, 35.080000, 0.965418),
        (560, 35.017174, 35.120000, 0.961647),
    ];
    // Both timers fire at each instant after a CNP; keep the last row per instant.
    let mut rows: Vec<(SimTime, f64, f64, f64)> = Vec::new();
    for r in got {
        match rows.last_mut() {
            Some(last) if last.0 == r.0 => *last = r,
            _ => rows.push(r),
        }
    }
    assert_eq!(rows.len(), want.len(), "{rows:?}");
    for (r, w) in rows.iter().zip(want) {
        assert_eq!(r.0, at_us(w.0));
        // The spec prints six decimals: rates within 1e-6 Gb/s, alpha
        // within its rounding.
        assert!(
            close(r.1, w.1) && close(r.2, w.2),
            "at {} us: {r:?} vs {w:?}",
            w.0
        );
        assert!(
            (r.3 - w.3).abs() < 5e-7,
            "alpha at {} us: {} vs {}",
            w.0,
            r.3,
            w.3
        );
    }
    assert_eq!(rp.last_step(), Some(Step::Additive));
}

#[test]
fn the_paper_byte_counter_runs_an_increase_every_b_bytes() {
    let mut rp = Dcqcn::new(DcqcnConfig::defaults(Variant::Paper), 40.0 * G);
    rp.on_cnp(at_us(0));
    assert!(close(rp.rate_bps() / G, 20.0));
    rp.on_sent(9_999_999);
    assert!(close(rp.rate_bps() / G, 20.0), "not yet B bytes");
    rp.on_sent(1);
    assert!(close(rp.rate_bps() / G, 30.0), "fast recovery at B bytes");
    assert_eq!(rp.last_step(), Some(Step::FastRecovery));
    // A second CNP: R_T = R_C = 30 Gb/s, counters restart.
    rp.on_cnp(at_us(1));
    assert!(close(rp.target_bps() / G, 30.0));
    // Five byte events and six timer events: max > F, min = 5 <= F: additive.
    rp.on_sent(5 * 10_000_000);
    assert_eq!(rp.last_step(), Some(Step::FastRecovery));
    for t in 1..=6 {
        rp.on_timer(at_us(1 + 55 * t));
    }
    assert_eq!(rp.last_step(), Some(Step::Additive));
    assert!(close(rp.target_bps() / G, 30.04));
    // One more byte event: min(T, BC) = 6 > F: hyper increase by 1 x R_HAI.
    rp.on_sent(10_000_000);
    assert_eq!(rp.last_step(), Some(Step::Hyper));
    assert!(close(rp.target_bps() / G, 30.24));
}

#[test]
fn the_rp_is_idle_at_line_rate_until_its_first_cnp() {
    for v in [Variant::Paper, Variant::Mellanox, Variant::Ns3Rdma] {
        let mut rp = Dcqcn::new(DcqcnConfig::defaults(v), 100.0 * G);
        rp.on_sent(1 << 40);
        assert_eq!(rp.deadline(), None, "{v:?}");
        assert_eq!(rp.rate_bps(), 100.0 * G);
    }
}

#[test]
fn the_mellanox_variant_cuts_once_per_slot_and_clamps_only_after_an_increase() {
    // HPCC fork defaults: g = 1/16, alpha slots 55 us, decrease checks every
    // 4 us (the first 1 ns after the first CNP's slot), rate timer 1500 us,
    // F = 5, no clamp while the time stage is 0.
    let cfg = DcqcnConfig::defaults(Variant::Mellanox);
    let mut rp = Dcqcn::new(cfg, 40.0 * G);
    // Three CNPs in the first slot: one cut, at 4.001 us, R_T kept at 40.
    let got = trace(
        &mut rp,
        &[at_us(0), at_ns(1_000), at_ns(2_000)],
        at_ns(4_001),
    );
    let last = got.last().expect("rows");
    assert_eq!(last.0, at_ns(4_001));
    assert!(close(last.1, 20.0) && close(last.2, 40.0), "{last:?}");
    // Alpha was set to 1 at the first CNP; the slot ending at 55 us saw the
    // other two CNPs: (1 - g) + g = 1. Then it decays by 15/16 per slot.
    let mut alpha = 1.0f64;
    let mut rc = 20.0f64;
    let rt = 40.0f64;
    let mut rows = trace(&mut rp, &[at_us(2_000)], at_ns(2_000_001));
    let mut t_alpha = 55u64;
    while t_alpha <= 2_000 {
        if t_alpha > 55 {
            alpha *= 15.0 / 16.0;
        }
        t_alpha += 55;
    }
    // Rate events at 1504.001 us (stage 0: fast recovery).
    rc = rc / 2.0 + rt / 2.0;
    let r = rows
        .iter()
        .find(|r| r.0 == at_ns(1_504_001))
        .expect("a rate event at 1504.001 us");
    assert!(close(r.1, rc), "{r:?} vs {rc}");
    // The CNP at 2000 us is cut at the check of 2000.001 us; the time stage
    // is 1, so R_T = R_C first (the clamp after an increase).
    let cut = rows.pop().expect("the cut");
    assert_eq!(cut.0, at_ns(2_000_001));
    let want_rt = rc;
    let want_rc = rc * (1.0 - alpha / 2.0);
    assert!(
        close(cut.2, want_rt) && close(cut.1, want_rc),
        "{cut:?} vs {want_rc} {want_rt} (alpha {alpha})"
    );
    assert!((cut.3 - alpha).abs() < 1e-12);
}

#[test]
fn the_ns3rdma_variant_updates_alpha_first_and_runs_four_fast_steps() {
    // The DCQCN authors' sample config: alpha from 0.5, g = 1/256, T = 60 us,
    // K = 55 us, F = 5, R_AI = 40 Mb/s, clamp always, R_T not clamped.
    let mut rp = Dcqcn::new(DcqcnConfig::defaults(Variant::Ns3Rdma), 40.0 * G);
    let rows = trace(&mut rp, &[at_us(0)], at_us(360));
    let at = |us: u64| {
        rows.iter()
            .rev()
            .find(|r| r.0 == at_us(us))
            .copied()
            .unwrap_or_else(|| panic!("no row at {us} us: {rows:?}"))
    };
    let g = 1.0 / 256.0;
    let alpha0 = (1.0 - g) * 0.5 + g; // updated before the cut
    let mut rc = 40.0 * (1.0 - alpha0 / 2.0);
    let r = at(0);
    assert!(
        close(r.1, rc) && close(r.2, 40.0) && (r.3 - alpha0).abs() < 1e-15,
        "{r:?}"
    );
    for (step, t) in [60, 120, 180, 240].into_iter().enumerate() {
        rc = rc / 2.0 + 20.0;
        let r = at(t);
        assert!(
            close(r.1, rc) && close(r.2, 40.0),
            "fast step {step} at {t} us: {r:?} vs {rc}"
        );
    }
    // The fifth timer event leaves fast recovery: additive, R_T beyond line rate.
    let mut rt = 40.04;
    rc = rc / 2.0 + rt / 2.0;
    let r = at(300);
    assert!(close(r.1, rc) && close(r.2, rt), "{r:?} vs {rc} {rt}");
    rt += 0.04;
    rc = (rc / 2.0 + rt / 2.0).min(40.0);
    let r = at(360);
    assert!(close(r.1, rc) && close(r.2, rt), "{r:?} vs {rc} {rt}");
    assert_eq!(rp.last_step(), Some(Step::Additive));
}

#[test]
fn the_ns3rdma_first_stage_divides_a_stale_target_by_eight() {
    // Without clamping (neither flag), R_T stays at line rate while cuts
    // bring R_C below a tenth of it: the first increase divides R_T by 8.
    let mut cfg = DcqcnConfig::defaults(Variant::Ns3Rdma);
    cfg.clamp = Clamp::AfterByteIncrease;
    let mut rp = Dcqcn::new(cfg, 40.0 * G);
    for i in 0..12 {
        rp.on_cnp(at_us(i));
    }
    let (rc, rt) = (rp.rate_bps(), rp.target_bps());
    assert_eq!(rt, 40.0 * G);
    assert!(rt > 10.0 * rc, "R_C {rc}");
    rp.on_timer(at_us(11 + 60));
    assert_eq!(rp.last_step(), Some(Step::TargetCut));
    assert!(close(rp.target_bps() / G, 5.0));
    assert!(close(rp.rate_bps(), rc / 2.0 + 5.0 * G / 2.0));
}
