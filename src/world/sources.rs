//! Open-loop packet sources: `poisson-packets` (exponential gaps) and
//! `ping` (a probe every interval, echoed by the far host, each probe's
//! round-trip time kept for `pings.csv`).

use super::{Event, World};
use crate::registry::workload::{Gaps, SourcePlan};
use net::{HostId, Kind, Origin, Packet, Protocol, SourceId, WireFormat};
use sim_core::{RngStream, SimDuration, SimTime};

/// `Source::rtt_ps` of a probe whose echo never came back.
pub const LOST: u64 = u64::MAX;

/// How a source spaces its packets.
#[derive(Clone, Copy, Debug)]
enum Spacing {
    Exponential { mean: SimDuration },
    Fixed { interval: SimDuration },
}

/// An open-loop packet source.
pub struct Source {
    /// Index of the `[[workload]]` that created it.
    pub workload: u32,
    /// Sending host.
    pub src: HostId,
    /// Receiving host.
    pub dst: HostId,
    /// IP bytes per packet.
    pub size_bytes: u32,
    /// Service class of the packets.
    pub priority: u8,
    /// Source port of its packets (an ephemeral port of `src`).
    pub sport: u16,
    /// The receiver echoes each packet back (`ping`).
    pub echo: bool,
    spacing: Spacing,
    stop: SimTime,
    remaining: u64,
    rng: RngStream,
    /// Packets sent.
    pub sent: u64,
    /// Packets received at the destination.
    pub received: u64,
    /// Sum of one-way delays of received packets (ps).
    pub delay_sum_ps: u128,
    /// Echo sources: each probe's send time (ps), in probe order.
    pub sent_ps: Vec<u64>,
    /// Echo sources: each probe's round-trip time (ps), [`LOST`] until its
    /// echo is back.
    pub rtt_ps: Vec<u64>,
}

impl World {
    /// Adds the source `plan` of workload `wi` and schedules its first packet.
    pub(super) fn add_source(
        &mut self,
        wi: u32,
        plan: &SourcePlan,
        priority: u8,
        wire: WireFormat,
    ) {
        let src = HostId(plan.src);
        let id = self.sources.len() as u32;
        let mut rng = RngStream::new(self.seed, wi as u64, sim_core::rng::purpose::ARRIVALS);
        let (spacing, first) = match plan.gaps {
            Gaps::Poisson { load } => {
                let rate = self.fabric.link(self.fabric.host_port(src)).0;
                let service = rate.tx_time(wire.wire_bytes(plan.packet_size));
                let mean = SimDuration::from_ps_f64(service.ps() as f64 / load);
                (Spacing::Exponential { mean }, rng.exp_duration(mean))
            }
            Gaps::Periodic { interval } => (Spacing::Fixed { interval }, SimDuration::ZERO),
        };
        let mine = self.owns_host(src);
        self.active_sources += usize::from(mine);
        let sport = self.hosts[src.idx()].ephemeral_port(self.seed);
        self.sources.push(Source {
            workload: wi,
            src,
            sport,
            dst: HostId(plan.dst),
            size_bytes: plan.packet_size,
            priority,
            echo: plan.echo,
            spacing,
            stop: plan.stop.map_or(SimTime::MAX, |d| SimTime::ZERO + d),
            remaining: plan.packets.unwrap_or(u64::MAX),
            rng,
            sent: 0,
            received: 0,
            delay_sum_ps: 0,
            sent_ps: Vec::new(),
            rtt_ps: Vec::new(),
        });
        if mine {
            self.schedule_arrival(id, SimTime::ZERO + plan.start + first);
        }
    }

    /// Schedules a source's next packet, or counts the source out.
    fn schedule_arrival(&mut self, id: u32, at: SimTime) {
        let s = &self.sources[id as usize];
        if s.remaining > 0 && at <= s.stop {
            self.q.schedule(at, Event::Arrival(id));
        } else {
            self.active_sources -= 1;
        }
    }

    /// A source's packet leaves: into its host's NIC, and the next is due.
    pub(super) fn on_arrival(&mut self, now: SimTime, id: u32) {
        let s = &mut self.sources[id as usize];
        let seq = s.sent;
        s.sent += 1;
        s.remaining -= 1;
        if s.echo {
            s.sent_ps.push(now.ps());
            s.rtt_ps.push(LOST);
        }
        let pkt = Packet {
            origin: Origin::Source(SourceId(id)),
            kind: Kind::Datagram,
            src: s.src,
            dst: s.dst,
            sport: s.sport,
            dport: if s.echo { 7 } else { 9 }, // echo, discard
            size_bytes: s.size_bytes,
            payload_bytes: s.size_bytes - net::packet::UDP_IP_HEADER_BYTES,
            protocol: Protocol::Udp,
            priority: s.priority,
            created_at: now,
            seq,
            ..Packet::default()
        };
        let gap = match s.spacing {
            Spacing::Exponential { mean } => s.rng.exp_duration(mean),
            Spacing::Fixed { interval } => interval,
        };
        let src = s.src;
        self.fabric.host_send(src, pkt, &mut self.q);
        self.schedule_arrival(id, now + gap);
    }

    /// A source's packet reached a host: counted at the destination, echoed
    /// back for a ping, its round trip recorded when the echo is home.
    pub(super) fn on_source_packet(&mut self, now: SimTime, id: SourceId, p: &Packet) {
        let s = &mut self.sources[id.idx()];
        let delay = now.since(p.created_at);
        if p.reverse {
            s.rtt_ps[p.seq as usize] = delay.ps();
            self.metrics.rtt(s.workload, delay);
            return;
        }
        s.received += 1;
        s.delay_sum_ps += delay.ps() as u128;
        self.metrics.one_way(s.workload, delay);
        if s.echo {
            let reply = Packet {
                src: p.dst,
                dst: p.src,
                sport: p.dport,
                dport: p.sport,
                reverse: true,
                ..*p
            };
            self.fabric.host_send(reply.src, reply, &mut self.q);
        }
    }
}
