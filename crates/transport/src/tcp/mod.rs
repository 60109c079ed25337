//! The TCP family: a [`TcpSender`] at the source (active open, data, loss
//! recovery, FIN) and a [`TcpReceiver`] at the destination (passive open,
//! ACKs with SACK blocks, FIN-ACK), configured by one [`TcpConfig`].

pub mod config;
pub mod cwnd_limit;
mod ends;
pub mod preset;
pub mod prr;
pub mod receiver;
pub mod scoreboard;
pub mod sender;

pub use crate::cc::CcConfig;
pub use config::TcpConfig;
pub use receiver::TcpReceiver;
pub use sender::TcpSender;

/// The window-scale shift that makes `window` fit the 16-bit field
/// (RFC 7323 section 2.3; at most 14).
pub fn wscale_for(window: u64) -> u8 {
    let mut s = 0u8;
    while s < 14 && (window >> s) > u16::MAX as u64 {
        s += 1;
    }
    s
}

#[cfg(test)]
impl crate::harness::Harness<'_, TcpSender, TcpReceiver> {
    /// The harness over one TCP flow of `size` bytes.
    pub fn new(cfg: &TcpConfig, size: u64) -> Self {
        let a = crate::harness::addr();
        Self::with(TcpSender::new(a, size, cfg), TcpReceiver::new(a, cfg))
    }
}
