//! The seam between the world and every transport family.
//!
//! The world holds a [`Sender`] and a [`Receiver`] per flow and calls only
//! their methods: start and stop, a packet arrived, a timer is due, the next
//! deadline, and (for the sender) whether the NIC may pull a packet and the
//! packet itself. Each is an enum with a variant per family, dispatched once
//! per call; with one family the match compiles away. Reports read a flow
//! through the family-neutral [`FlowRecord`].

use crate::expresspass::{ExpressPassConfig, ExpressPassReceiver, ExpressPassSender};
use crate::family::Family;
use crate::homa::{HomaConfig, HomaReceiver, HomaSender};
use crate::host::HostRx;
use crate::ndp::{NdpConfig, NdpReceiver, NdpSender};
use crate::roce::{RoceConfig, RoceReceiver, RoceSender};
use crate::tcp::{TcpConfig, TcpReceiver, TcpSender};
use crate::uec::{UecConfig, UecReceiver, UecSender};
use crate::{Emit, FlowAddr};
use net::{Packet, Protocol, WireFormat};
use sim_core::{Bandwidth, SimDuration, SimTime};

/// What a flow's ends may know of their hosts and path when they are built.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PathInfo {
    /// The source NIC's line rate (RoCE starts and paces at it).
    pub line_rate: Bandwidth,
    /// The destination NIC's line rate (RCC's C).
    pub rx_line_rate: Bandwidth,
    /// The links' framing (pacing counts wire bytes).
    pub wire: WireFormat,
    /// The path's base RTT: one full data packet forward and an ACK back,
    /// store-and-forward, on empty queues (zero unless
    /// [`TransportConfig::needs_bdp`]).
    pub base_rtt: SimDuration,
    /// The base RTT times the line rate, bytes (RoCE's window modes).
    pub bdp_bytes: u64,
    /// How far the source host's clock runs ahead of true time (RCC-async).
    pub src_clock_offset: SimDuration,
    /// How far the destination host's clock runs ahead of true time.
    pub dst_clock_offset: SimDuration,
    /// The seed of the flow's own random stream (RCC-async's timestamp jitter).
    pub stream_seed: u64,
}

/// Which end of a flow: the data sender or the data receiver.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Side {
    /// The data sender, at the flow's source host.
    Sender,
    /// The data receiver, at the flow's destination host.
    Receiver,
}

impl Side {
    /// 0 for the sender, 1 for the receiver (per-side arrays).
    #[inline]
    pub fn idx(self) -> usize {
        self as usize
    }
}

/// A transport family's configuration: one `[transport.NAME]` table.
#[derive(Clone, Debug, PartialEq)]
pub enum TransportConfig {
    /// The TCP family (NewReno, ECN*, DCTCP).
    Tcp(TcpConfig),
    /// The RoCE family (the reliable connection; DCQCN).
    Roce(RoceConfig),
    /// Homa: receiver grants and network priorities.
    Homa(HomaConfig),
    /// ExpressPass: receiver credits, rate-limited at every port.
    ExpressPass(ExpressPassConfig),
    /// The UEC transport: entropy spraying, SACK/NACK, NSCC.
    Uec(UecConfig),
    /// NDP: trimming, per-packet spraying, receiver pull pacing.
    Ndp(NdpConfig),
}

impl TransportConfig {
    /// The family's rules ([`Family`]), for dispatch in one place.
    pub fn family_rules(&self) -> &dyn Family {
        match self {
            TransportConfig::Tcp(c) => c,
            TransportConfig::Roce(c) => c,
            TransportConfig::Homa(c) => c,
            TransportConfig::ExpressPass(c) => c,
            TransportConfig::Uec(c) => c,
            TransportConfig::Ndp(c) => c,
        }
    }

    /// The family's rules, to settle and prepare.
    pub fn family_rules_mut(&mut self) -> &mut dyn Family {
        match self {
            TransportConfig::Tcp(c) => c,
            TransportConfig::Roce(c) => c,
            TransportConfig::Homa(c) => c,
            TransportConfig::ExpressPass(c) => c,
            TransportConfig::Uec(c) => c,
            TransportConfig::Ndp(c) => c,
        }
    }

    /// The family's name in reports and TOML (`family = "tcp"`).
    pub fn family(&self) -> &'static str {
        self.family_rules().name()
    }

    /// The IP protocol of the family's packets (part of the ECMP hash).
    pub fn protocol(&self) -> Protocol {
        self.family_rules().protocol()
    }

    /// Whether [`TransportConfig::sender`] reads [`PathInfo::bdp_bytes`]
    /// (the caller may then skip computing it).
    pub fn needs_bdp(&self) -> bool {
        self.family_rules().needs_bdp()
    }

    /// The sending end of a flow of `size_bytes` (`u64::MAX - 2` and
    /// [`Sender::stop_app`] for an unbounded flow) on `path`.
    pub fn sender(&self, addr: FlowAddr, size_bytes: u64, path: &PathInfo) -> Sender {
        match self {
            TransportConfig::Tcp(c) => Sender::Tcp(TcpSender::new(addr, size_bytes, c)),
            TransportConfig::Roce(c) => Sender::Roce(RoceSender::new(addr, size_bytes, c, path)),
            TransportConfig::Homa(c) => Sender::Homa(HomaSender::new(addr, size_bytes, c)),
            TransportConfig::ExpressPass(c) => {
                Sender::ExpressPass(ExpressPassSender::new(addr, size_bytes, c))
            }
            TransportConfig::Uec(c) => Sender::Uec(UecSender::new(addr, size_bytes, c, path)),
            TransportConfig::Ndp(c) => Sender::Ndp(NdpSender::new(addr, size_bytes, c, path)),
        }
    }

    /// The receiving end of a flow on `path`.
    pub fn receiver(&self, addr: FlowAddr, path: &PathInfo) -> Receiver {
        match self {
            TransportConfig::Tcp(c) => Receiver::Tcp(TcpReceiver::new(addr, c)),
            TransportConfig::Roce(c) => Receiver::Roce(RoceReceiver::new(addr, c, path)),
            TransportConfig::Homa(c) => Receiver::Homa(HomaReceiver::new(addr, c)),
            TransportConfig::ExpressPass(c) => {
                Receiver::ExpressPass(ExpressPassReceiver::new(addr, c, path))
            }
            TransportConfig::Uec(c) => Receiver::Uec(UecReceiver::new(addr, c, path)),
            TransportConfig::Ndp(c) => Receiver::Ndp(NdpReceiver::new(addr, c, path)),
        }
    }

    /// The largest clock offset a host may have (RCC-async; zero: clocks
    /// are synchronised).
    pub fn clock_offset_max(&self) -> SimDuration {
        self.family_rules().clock_offset_max()
    }

    /// The payload bytes of a full packet (ideal FCTs count packets of this size).
    pub fn mss(&self) -> u64 {
        self.family_rules().mss()
    }

    /// Header bytes of a data packet (IP and transport, options included).
    pub fn data_header_bytes(&self) -> u32 {
        self.family_rules().data_header_bytes()
    }

    /// IP bytes of a pure acknowledgment.
    pub fn ack_bytes(&self) -> u32 {
        self.family_rules().ack_bytes()
    }

    /// Header bytes of a connection-setup packet (TCP's SYN and SYN-ACK);
    /// `None` for a family without a handshake in the flow's time (RoCE's
    /// connections are set up beforehand).
    pub fn handshake_header_bytes(&self) -> Option<u32> {
        self.family_rules().handshake_header_bytes()
    }
}

/// The sending end of a flow, of any family.
#[derive(Clone, Debug)]
pub enum Sender {
    /// TCP.
    Tcp(TcpSender),
    /// RoCE.
    Roce(RoceSender),
    /// Homa.
    Homa(HomaSender),
    /// ExpressPass.
    ExpressPass(ExpressPassSender),
    /// UEC.
    Uec(UecSender),
    /// NDP.
    Ndp(NdpSender),
}

/// The receiving end of a flow, of any family.
#[derive(Clone, Debug)]
pub enum Receiver {
    /// TCP.
    Tcp(TcpReceiver),
    /// RoCE.
    Roce(RoceReceiver),
    /// Homa.
    Homa(HomaReceiver),
    /// ExpressPass.
    ExpressPass(ExpressPassReceiver),
    /// UEC.
    Uec(UecReceiver),
    /// NDP.
    Ndp(NdpReceiver),
}

/// Where an endpoint reports its congestion controller's state: each
/// variable by name (units last in the name: `cwnd_bytes`, `rate_gbps`).
pub type StateOut<'a> = dyn FnMut(&'static str, f64) + 'a;

impl Sender {
    /// Its controller's state variables now (`[output] cc_trace`): the
    /// window or rate it applies and the controller's own.
    pub fn cc_state(&self, out: &mut StateOut<'_>) {
        match self {
            Sender::Tcp(s) => s.cc_state(out),
            Sender::Roce(s) => s.cc_state(out),
            Sender::Homa(s) => s.cc_state(out),
            Sender::ExpressPass(s) => s.cc_state(out),
            Sender::Uec(s) => s.cc_state(out),
            Sender::Ndp(s) => s.cc_state(out),
        }
    }

    /// Opens the flow (a TCP SYN).
    pub fn start(&mut self, now: SimTime, out: &mut impl Emit) {
        match self {
            Sender::Tcp(s) => s.start(now, out),
            Sender::Roce(s) => s.start(now, out),
            Sender::Homa(s) => s.start(now, out),
            Sender::ExpressPass(s) => s.start(now, out),
            Sender::Uec(s) => s.start(now, out),
            Sender::Ndp(s) => s.start(now, out),
        }
    }

    /// Ends the application's data at what has been sent so far.
    pub fn stop_app(&mut self, now: SimTime, out: &mut impl Emit) {
        match self {
            Sender::Tcp(s) => s.stop_app(now, out),
            Sender::Roce(s) => s.stop_app(now, out),
            Sender::Homa(s) => s.stop_app(now, out),
            Sender::ExpressPass(s) => s.stop_app(now, out),
            Sender::Uec(s) => s.stop_app(now, out),
            Sender::Ndp(s) => s.stop_app(now, out),
        }
    }

    /// A packet from the receiver.
    #[inline]
    pub fn on_packet(&mut self, now: SimTime, pkt: &Packet, out: &mut impl Emit) {
        self.on_packet_int(now, pkt, &net::IntStack::EMPTY, out);
    }

    /// [`Sender::on_packet`] for a packet that carried an INT stack (HPCC's
    /// ACKs); families that read no telemetry ignore it.
    #[inline]
    pub fn on_packet_int(
        &mut self,
        now: SimTime,
        pkt: &Packet,
        int: &net::IntStack,
        out: &mut impl Emit,
    ) {
        match self {
            Sender::Tcp(s) => s.on_packet(now, pkt, out),
            Sender::Roce(s) => s.on_packet_int(now, pkt, int, out),
            Sender::Homa(s) => s.on_packet(now, pkt, out),
            Sender::ExpressPass(s) => s.on_packet(now, pkt, out),
            Sender::Uec(s) => s.on_packet(now, pkt, out),
            Sender::Ndp(s) => s.on_packet(now, pkt, out),
        }
    }

    /// Runs the timers that are due.
    pub fn on_timer(&mut self, now: SimTime, out: &mut impl Emit) {
        match self {
            Sender::Tcp(s) => s.on_timer(now, out),
            Sender::Roce(s) => s.on_timer(now, out),
            Sender::Homa(s) => s.on_timer(now, out),
            Sender::ExpressPass(s) => s.on_timer(now, out),
            Sender::Uec(s) => s.on_timer(now, out),
            Sender::Ndp(s) => s.on_timer(now, out),
        }
    }

    /// The earliest time [`Sender::on_timer`] must run.
    #[inline(always)] // after every packet (`World::arm`); outlined, it cost 1.2% (cachegrind)
    pub fn deadline(&self) -> Option<SimTime> {
        match self {
            Sender::Tcp(s) => s.deadline(),
            Sender::Roce(s) => s.deadline(),
            Sender::Homa(s) => s.deadline(),
            Sender::ExpressPass(s) => s.deadline(),
            Sender::Uec(s) => s.deadline(),
            Sender::Ndp(s) => s.deadline(),
        }
    }

    /// Whether the flow waits on a timer that resends when it fires (a
    /// retransmission timeout, a SYN's, a probe): it is waiting, not stuck.
    /// RoCE's rate timers fire without sending, so only its RTO counts;
    /// every timer of the other families sends when it fires.
    pub fn retransmission_pending(&self) -> bool {
        match self {
            Sender::Roce(s) => s.retransmission_pending(),
            Sender::Tcp(_)
            | Sender::Homa(_)
            | Sender::ExpressPass(_)
            | Sender::Uec(_)
            | Sender::Ndp(_) => self.deadline().is_some(),
        }
    }

    /// Whether [`Sender::poll_transmit`] would hand out a packet at `now`
    /// (`&mut`: a family may advance its search hints, and a paced one
    /// notes that its pacer holds a packet back, so that its deadline
    /// wakes it).
    #[inline(always)]
    pub fn wants_transmit(&mut self, now: SimTime) -> bool {
        match self {
            Sender::Tcp(s) => s.wants_transmit(),
            Sender::Roce(s) => s.wants_transmit_at(now),
            Sender::Homa(s) => s.wants_transmit(),
            Sender::ExpressPass(s) => s.wants_transmit(),
            Sender::Uec(s) => s.wants_transmit(),
            Sender::Ndp(s) => s.wants_transmit(),
        }
    }

    /// Whether the NIC builds this flow's packets only when its port can
    /// send them, as an RDMA NIC's scheduler picks a queue pair when the
    /// link is free and its priority not paused (the HPCC ns-3 fork's
    /// `DequeueAndTransmit`), rather than taking them ahead into the host's
    /// NIC buffer as a kernel's queueing discipline does (TCP). A RoCE
    /// flow's rate pacing then holds at the wire, also after a PFC pause.
    #[inline]
    pub fn built_at_the_wire(&self) -> bool {
        matches!(
            self,
            Sender::Roce(_)
                | Sender::Homa(_)
                | Sender::ExpressPass(_)
                | Sender::Uec(_)
                | Sender::Ndp(_)
        )
    }

    /// The flow's rank when its NIC serves the ready flows shortest first
    /// (Homa's sender SRPT, Homa 3.2: bytes left to send), or `None` when
    /// the NIC takes flows in turn.
    #[inline]
    pub fn srpt_rank(&self) -> Option<u64> {
        match self {
            Sender::Homa(s) => Some(s.srpt_rank()),
            Sender::Tcp(_)
            | Sender::Roce(_)
            | Sender::ExpressPass(_)
            | Sender::Uec(_)
            | Sender::Ndp(_) => None,
        }
    }

    /// The next data packet for the NIC, if the flow may send one.
    #[inline(always)]
    pub fn poll_transmit(&mut self, now: SimTime) -> Option<Packet> {
        match self {
            Sender::Tcp(s) => s.poll_transmit(now),
            Sender::Roce(s) => s.poll_transmit(now),
            Sender::Homa(s) => s.poll_transmit(now),
            Sender::ExpressPass(s) => s.poll_transmit(now),
            Sender::Uec(s) => s.poll_transmit(now),
            Sender::Ndp(s) => s.poll_transmit(now),
        }
    }

    /// The RTT sample the last packet gave, if any; taking it clears it.
    #[inline]
    pub fn take_rtt_sample(&mut self) -> Option<SimDuration> {
        match self {
            Sender::Tcp(s) => s.take_rtt_sample(),
            Sender::Roce(s) => s.take_rtt_sample(),
            Sender::Homa(_) => None,
            Sender::ExpressPass(_) => None,
            Sender::Uec(s) => s.flow_mut().take_rtt_sample(),
            Sender::Ndp(s) => s.flow_mut().take_rtt_sample(),
        }
    }

    /// When the receiver acknowledged the last data byte (the flow's completion).
    #[inline(always)]
    pub fn completed_at(&self) -> Option<SimTime> {
        match self {
            Sender::Tcp(s) => s.completed_at(),
            Sender::Roce(s) => s.completed_at(),
            Sender::Homa(s) => s.message().completed_at(),
            Sender::ExpressPass(s) => s.message().completed_at(),
            Sender::Uec(s) => s.flow().completed_at(),
            Sender::Ndp(s) => s.flow().completed_at(),
        }
    }

    /// Data bytes acknowledged so far.
    #[inline]
    pub fn bytes_acked(&self) -> u64 {
        match self {
            Sender::Tcp(s) => s.bytes_acked(),
            Sender::Roce(s) => s.bytes_acked(),
            Sender::Homa(s) => s.message().bytes_acked(),
            Sender::ExpressPass(s) => s.message().bytes_acked(),
            Sender::Uec(s) => s.flow().bytes_acked(),
            Sender::Ndp(s) => s.flow().bytes_acked(),
        }
    }

    /// The flow's data size (after any [`Sender::stop_app`]).
    pub fn size_bytes(&self) -> u64 {
        match self {
            Sender::Tcp(s) => s.size_bytes(),
            Sender::Roce(s) => s.size_bytes(),
            Sender::Homa(s) => s.message().size_bytes(),
            Sender::ExpressPass(s) => s.message().size_bytes(),
            Sender::Uec(s) => s.flow().size_bytes(),
            Sender::Ndp(s) => s.flow().size_bytes(),
        }
    }

    /// The flow's addressing.
    #[inline(always)]
    pub fn addr(&self) -> &FlowAddr {
        match self {
            Sender::Tcp(s) => s.addr(),
            Sender::Roce(s) => s.addr(),
            Sender::Homa(s) => s.message().addr(),
            Sender::ExpressPass(s) => s.message().addr(),
            Sender::Uec(s) => s.flow().addr(),
            Sender::Ndp(s) => s.flow().addr(),
        }
    }

    /// What the reports need of the flow.
    pub fn record(&self) -> FlowRecord {
        match self {
            Sender::Tcp(s) => s.record(),
            Sender::Roce(s) => s.record(),
            Sender::Homa(s) => s.message().record("homa"),
            Sender::ExpressPass(s) => s.message().record("expresspass"),
            Sender::Uec(s) => s.flow().record(),
            Sender::Ndp(s) => s.flow().record(),
        }
    }

    /// The TCP sender, if the flow is TCP (tests and TCP-only reports).
    pub fn as_tcp(&self) -> Option<&TcpSender> {
        match self {
            Sender::Tcp(s) => Some(s),
            Sender::Roce(_)
            | Sender::Homa(_)
            | Sender::ExpressPass(_)
            | Sender::Uec(_)
            | Sender::Ndp(_) => None,
        }
    }

    /// The RoCE sender, if the flow is RoCE (tests and RoCE-only reports).
    pub fn as_roce(&self) -> Option<&RoceSender> {
        match self {
            Sender::Roce(s) => Some(s),
            Sender::Tcp(_)
            | Sender::Homa(_)
            | Sender::ExpressPass(_)
            | Sender::Uec(_)
            | Sender::Ndp(_) => None,
        }
    }
}

impl Receiver {
    /// What the receiving end counted, family-neutral: the NAKs and CNPs
    /// it sent, where its family has them.
    pub fn record(&self) -> ReceiverRecord {
        match self {
            Receiver::Roce(r) => ReceiverRecord {
                naks_sent: Some(r.naks_sent()),
                cnps_sent: Some(r.cnps_sent()),
            },
            Receiver::Uec(r) => ReceiverRecord {
                naks_sent: Some(r.naks_sent()),
                cnps_sent: None,
            },
            Receiver::Ndp(r) => ReceiverRecord {
                naks_sent: Some(r.naks_sent()),
                cnps_sent: None,
            },
            Receiver::Tcp(_) | Receiver::Homa(_) | Receiver::ExpressPass(_) => {
                ReceiverRecord::default()
            }
        }
    }

    /// The state of a controller that runs at the receiver (RCC's), by name.
    pub fn cc_state(&self, out: &mut StateOut<'_>) {
        match self {
            Receiver::Tcp(_) | Receiver::Homa(_) | Receiver::Uec(_) | Receiver::Ndp(_) => {}
            Receiver::Roce(r) => r.cc_state(out),
            Receiver::ExpressPass(r) => r.cc_state(out),
        }
    }

    /// A packet from the sender; `host` is the receiving host's state
    /// across its connections (what RCC counts, Homa's grants).
    #[inline]
    pub fn on_packet(
        &mut self,
        now: SimTime,
        pkt: &Packet,
        host: &mut HostRx,
        out: &mut impl Emit,
    ) {
        match self {
            Receiver::Tcp(r) => r.on_packet(now, pkt, out),
            Receiver::Roce(r) => r.on_packet(now, pkt, &mut host.roce, out),
            Receiver::Homa(r) => r.on_packet(now, pkt, &mut host.homa, out),
            Receiver::ExpressPass(r) => r.on_packet(now, pkt, out),
            Receiver::Uec(r) => r.on_packet(now, pkt, &mut host.uec, out),
            Receiver::Ndp(r) => r.on_packet(now, pkt, &mut host.ndp, out),
        }
    }

    /// Runs the timers that are due; `host` is the receiving host's
    /// state (Homa's RESEND reads the grant there).
    pub fn on_timer(&mut self, now: SimTime, host: &mut HostRx, out: &mut impl Emit) {
        match self {
            Receiver::Tcp(r) => r.on_timer(now, out),
            Receiver::Roce(r) => r.on_timer(now, out),
            Receiver::Homa(r) => r.on_timer(now, &mut host.homa, out),
            Receiver::ExpressPass(r) => r.on_timer(now, out),
            Receiver::Uec(r) => r.on_timer(now, &mut host.uec, out),
            Receiver::Ndp(r) => r.on_timer(now, out),
        }
    }

    /// The earliest time [`Receiver::on_timer`] must run.
    #[inline]
    pub fn deadline(&self) -> Option<SimTime> {
        match self {
            Receiver::Tcp(r) => r.deadline(),
            Receiver::Roce(r) => r.deadline(),
            Receiver::Homa(r) => r.deadline(),
            Receiver::ExpressPass(r) => r.deadline(),
            Receiver::Uec(r) => r.deadline(),
            Receiver::Ndp(r) => r.deadline(),
        }
    }

    /// Data bytes received in order.
    #[inline]
    pub fn bytes_received(&self) -> u64 {
        match self {
            Receiver::Tcp(r) => r.bytes_received(),
            Receiver::Roce(r) => r.bytes_received(),
            Receiver::Homa(r) => r.bytes_received(),
            Receiver::ExpressPass(r) => r.bytes_received(),
            Receiver::Uec(r) => r.bytes_received(),
            Receiver::Ndp(r) => r.bytes_received(),
        }
    }

    /// The TCP receiver, if the flow is TCP.
    pub fn as_tcp(&self) -> Option<&TcpReceiver> {
        match self {
            Receiver::Tcp(r) => Some(r),
            Receiver::Roce(_)
            | Receiver::Homa(_)
            | Receiver::ExpressPass(_)
            | Receiver::Uec(_)
            | Receiver::Ndp(_) => None,
        }
    }

    /// The RoCE receiver, if the flow is RoCE.
    pub fn as_roce(&self) -> Option<&RoceReceiver> {
        match self {
            Receiver::Roce(r) => Some(r),
            Receiver::Tcp(_)
            | Receiver::Homa(_)
            | Receiver::ExpressPass(_)
            | Receiver::Uec(_)
            | Receiver::Ndp(_) => None,
        }
    }
}

/// What a sender did, in counters every family can fill (those it has no
/// notion of stay zero).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Counters {
    /// Data packets sent again.
    pub retransmits: u64,
    /// Connection-setup packets sent again (TCP SYNs).
    pub syn_retransmits: u64,
    /// Connection-teardown packets sent again (TCP FINs).
    pub fin_retransmits: u64,
    /// Retransmission-timer expiries.
    pub timeouts: u64,
    /// RTO episodes: the first expiry after progress (a flow that times out
    /// three times in a row has one episode).
    pub rto_episodes: u64,
    /// Loss-recovery episodes entered (TCP fast recovery).
    pub fast_recoveries: u64,
    /// Window or rate reductions on ECN feedback.
    pub ecn_reductions: u64,
    /// Segments retransmitted because the SACK scoreboard deemed them lost.
    pub sack_recovered: u64,
    /// Zero-window probes.
    pub window_probes: u64,
    /// Tail-loss probes (RFC 8985 section 7).
    pub tail_loss_probes: u64,
    /// Packets given up (timed out, or named by a NACK) and acknowledged
    /// before they went again: a late ACK, the timeout spurious
    /// (families that give packets up one by one, UEC and NDP).
    pub given_up_then_acked: u64,
    /// Packets given up and not yet sent again when the report was taken.
    pub resends_pending: u64,
}

impl std::ops::AddAssign for Counters {
    fn add_assign(&mut self, o: Counters) {
        self.retransmits += o.retransmits;
        self.syn_retransmits += o.syn_retransmits;
        self.fin_retransmits += o.fin_retransmits;
        self.timeouts += o.timeouts;
        self.rto_episodes += o.rto_episodes;
        self.fast_recoveries += o.fast_recoveries;
        self.ecn_reductions += o.ecn_reductions;
        self.sack_recovered += o.sack_recovered;
        self.window_probes += o.window_probes;
        self.tail_loss_probes += o.tail_loss_probes;
        self.given_up_then_acked += o.given_up_then_acked;
        self.resends_pending += o.resends_pending;
    }
}

/// What a flow's receiving end counted, for the reports (`None`: its
/// family has no such packet).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ReceiverRecord {
    /// NAKs sent.
    pub naks_sent: Option<u64>,
    /// CNPs sent (CNP packets, or ACKs carrying the CNP bit).
    pub cnps_sent: Option<u64>,
}

/// A flow as the reports see it, whatever its family.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FlowRecord {
    /// The family (`tcp`).
    pub family: &'static str,
    /// When the flow opened.
    pub started_at: Option<SimTime>,
    /// When its last data byte was acknowledged.
    pub completed_at: Option<SimTime>,
    /// When its connection closed.
    pub closed_at: Option<SimTime>,
    /// Data bytes acknowledged.
    pub bytes_acked: u64,
    /// The counters.
    pub counters: Counters,
}
