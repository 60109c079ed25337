//! The RoCE family: RDMA over Converged Ethernet v2's reliable connection
//! (one message per flow, PSNs, go-back-N or IRN's selective repeat, NIC pacing), DCQCN (the
//! reaction point at the sender, the notification point at the receiver;
//! the switches' RED marking is the congestion point), TIMELY (RTT
//! gradients at the sender), HPCC (in-band telemetry of every hop, read at
//! the sender) and RCC (the receiver assigns each flow's window).

pub mod config;
pub mod control;
pub mod dcqcn;
mod ends;
pub mod host;
pub mod hpcc;
pub mod rcc;
mod receiver;
pub mod selective;
mod sender;
pub mod swift;
pub mod timely;

pub use config::{
    ControllerKeys, DcqcnKeys, KeyError, RccKeys, RecoveryMode, RoceConfig, RoceKeys, WindowMode,
};
pub use control::{
    LineRateConfig, NoReceiver, Notify, RateControl, ReceiverControl, RoceCc, RoceController,
    RoceReceiverControl,
};
pub use dcqcn::{Clamp, Dcqcn, DcqcnConfig, NotificationPoint, Variant};
pub use host::HostRx;
pub use hpcc::{Hpcc, HpccConfig, HpccStep};
pub use rcc::{EwaShare, RccConfig, RccControl, RccReceiver, RccSend, RccVariant};
pub use receiver::RoceReceiver;
pub use sender::RoceSender;
pub use timely::{Timely, TimelyConfig, TimelySend};

#[cfg(test)]
mod rcc_tests;
#[cfg(test)]
mod tests;
