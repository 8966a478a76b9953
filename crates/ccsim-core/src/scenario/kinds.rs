//! The named choices of flow fields: the vocabulary a scenario is written
//! in, at the bottom of the crate so that the scenario types depend on
//! nothing above them. The transports that give these names their meaning
//! re-export them (`transport::tcp::Recovery`, ...), and their docs say
//! what each choice does.

// -- TCP (`transport = "tcp"`)

/// Loss recovery: which RFC the sender follows after a loss.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Recovery {
    /// RFC 5681 §3.2: leave fast recovery on any new ACK.
    Reno,
    /// RFC 6582: stay in recovery until `recover` is acknowledged, one
    /// retransmission per partial ACK.
    NewReno,
    /// RFC 6675: scoreboard, `pipe`, NextSeg().
    Sack,
    /// ns-2.35's `Agent/TCP/Sack1` with `Agent/TCPSink/Sack1` (the papers'
    /// simulator): its own pipe counter, no inflation, every hole below the
    /// highest SACK retransmitted, the exit burst, go-back-N after a
    /// timeout (`transport::tcp::sender::recovery::sack1`).
    Sack1,
}

/// The bytes an ACK's SACK option adds to `header_bytes` (`sack_option`),
/// which already hold the timestamp option (RFC 7323, 10 bytes padded to
/// 12). RFC 2018 §3: kind, length and 8 bytes per block.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum SackOption {
    /// No bytes: an ACK is `header_bytes` long whatever it reports.
    None,
    /// ns-3 3.44: `TcpOptionSack` is 2 + 8n bytes after the 10-byte
    /// timestamp option and `TcpHeader` pads the options to 4-byte words,
    /// so 12 + 8n bytes of options in place of 12: 8n more.
    Ns3,
    /// Linux: `tcp_options_write` aligns the option with two NOPs before
    /// kind and length (`TCPOLEN_SACK_BASE_ALIGNED` 4,
    /// `TCPOLEN_SACK_PERBLOCK` 8): 4 + 8n more.
    Linux,
}

impl SackOption {
    /// Bytes added to an ACK that reports `blocks` SACK blocks.
    pub fn bytes(self, blocks: usize) -> u32 {
        let n = blocks as u32;
        match self {
            _ if n == 0 => 0,
            SackOption::None => 0,
            SackOption::Ns3 => 8 * n,
            SackOption::Linux => 4 + 8 * n,
        }
    }
}

/// Whether the window grows only while it limits the sender
/// (`cwnd_limited`): RFC 5681 lets an ACK grow cwnd whatever limited the
/// sending; Linux and ns-3's `TcpCubic` grow it only when the flow used it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum CwndLimited {
    /// Every ACK may grow cwnd (RFC 5681).
    Off,
    /// Linux `tcp_is_cwnd_limited` (`tcp_cwnd_validate` after each send
    /// burst): the window was full at the end of some burst of the current
    /// window of data, or, in slow start, cwnd is below twice the most
    /// packets out in it.
    Linux,
    /// ns-3 3.44's `m_isCwndLimited` (`TcpSocketBase::SendDataPacket`),
    /// which `TcpCubic::IncreaseWindow` reads: the last segment sent left
    /// less than one segment of cwnd unused.
    Ns3,
}

/// How a receiver that delays ACKs decides when (`delack_model`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum DelackModel {
    /// RFC 1122 §4.2.3.2 / RFC 5681 §4.2 with a fixed timer: an ACK for
    /// every second in-order segment, else after `delack_timeout_s` (ns-2's
    /// `DelAckSink`, `interval_` 100 ms).
    Fixed,
    /// Linux's: quick ACKs at the start, an adaptive timeout of 40 ms and
    /// up, at most `delack_timeout_s` (`transport::tcp::delack`).
    Linux,
    /// ns-3's (3.44 `TcpSocketBase`, `DelAckCount` 2, `DelAckTimeout`
    /// 200 ms): `fixed`, except that the first in-order data segment is
    /// ACKed at once (the handshake leaves the delayed-ACK count full,
    /// `ProcessSynRcvd`: "Always respond to first data packet to speed up
    /// the connection"; any ACK sent empties it).
    Ns3,
}

/// How a TCP flow starts (`syn`): ns-2.35's one-way agents model the
/// connection set-up as a SYN that is segment 0 of the data stream
/// (tcp.cc `TcpAgent::output`: with `syn_`, segment 0 goes out with no
/// payload at `tcpip_base_hdr_size_` bytes and `curseq_` grows by one, so
/// the data are segments 1, 2, ...). It is timed, ACKed by the sink and
/// retransmitted by the timer like any segment.
///
/// - `None`: no SYN; the data start at segment 0 with `init_cwnd_pkts`
///   (ns-2 with `syn_ false` and `delay_growth_ false`).
/// - `Ns2`: ns-2's defaults (`syn_ true`, `delay_growth_ true`,
///   ns-default.tcl since 2001): the window starts at one segment
///   (`TcpAgent::set_initial_window`), so the SYN goes alone, and the ACK
///   of segment 0 sets it to the initial window (`recv` of each agent,
///   tcp.cc, tcp-newreno.cc, tcp-sack1.cc: `if (last_ack_ == 0 &&
///   delay_growth_) cwnd_ = initial_window()`, after that ACK's
///   `opencwnd`). If the timer fired before any ACK, the initial window is
///   one segment (`TcpAgent::timeout`, `bugfix_ss_`: `wnd_init_ = 1`).
/// - `Ns2NoDelayGrowth`: `syn_ true`, `delay_growth_ false`: the SYN leads
///   the first window of `init_cwnd_pkts` segments.
/// - `Linux`: Linux's active open (`tcp_connect`, the `linux`
///   personality's default): the SYN alone, no data and no controller
///   until the SYN-ACK, which gives the first RTT sample; then the initial
///   window (`transport::tcp::sender`'s `connect.rs`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Syn {
    None,
    Ns2,
    Ns2NoDelayGrowth,
    Linux,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PacingKind {
    None,
    Interval,
    TokenBucket,
    /// Linux's pacing at `sk_pacing_rate` (`transport::tcp::pacing`).
    Rate,
}

/// How an ECN-capable sender reduces when an ACK carries ECE (once per
/// window either way).
///
/// - `Rfc3168` (§6.1.2): as for a loss, ssthresh = the controller's
///   decrease of FlightSize (Reno: max(FlightSize/2, 2)) and cwnd =
///   ssthresh, so the window never drops below 2 segments.
/// - `Ns2`: ns-2.35's `TcpAgent::ecn` and `slowdown(CLOSE_CWND_HALF |
///   CLOSE_SSTHRESH_HALF)` (tcp.cc) with its default `precisionReduce_`
///   (true since 2006/1/24): cwnd = windowd()/2 = min(cwnd, rwnd)/2
///   unrounded, ssthresh its integer part but at least 2. From a window
///   under two segments cwnd falls below 1 and `window()` = ⌊cwnd⌋ = 0:
///   nothing new leaves until an ACK without ECE reopens it (ns-2's
///   `opencwnd`, +1 in slow start, not capped at ssthresh) or the
///   retransmission timer fires, and a second ECE after a reduction made
///   at a window of at most one segment backs the timer off (`ecn_backoff_`,
///   `rtt_backoff`), which then stays backed off while ACKs carry ECE. RFC 3168 §6.1.2 asks for
///   the same pause at cwnd = 1 ("only send a new packet when the
///   retransmit timer expires").
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum EcnResponse {
    Rfc3168,
    Ns2,
}

/// The ECN-capable codepoint an ECN flow's data leave with (`ect`):
/// ECT(0), RFC 3168's, or ECT(1), the L4S identifier of RFC 9331 §4.1,
/// which a DualQ (RFC 9332, the `dualpi2` queue) classifies into its
/// low-latency queue. Both are ECN-capable to every other router.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Ect {
    #[default]
    Ect0,
    Ect1,
}

/// How a TCP receiver feeds CE marks back (`ecn_feedback`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum EcnFeedback {
    /// RFC 3168 §6.1.3: ECE on every ACK from a CE mark until CWR.
    #[default]
    Rfc3168,
    /// RFC 8257 §3.2: ECE on an ACK is the CE state of the segments it
    /// acknowledges, and an ACK goes at once when that state changes.
    Dctcp,
    /// RFC 9768 (AccECN): the count of CE-marked packets, modulo 8, in
    /// the ACE field of every ACK.
    Accecn,
}

/// Which estimator a TCP flow runs (`rtt_estimator`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RttEstimatorKind {
    Rfc6298,
    Ns2,
    /// Linux's `tcp_rtt_estimator` and `tcp_set_rto` (integer
    /// microseconds, rttvar floored by `tcp_rto_min`), sampled only from
    /// segments never retransmitted (Karn's rule without timestamps).
    Linux,
}

/// A flow's TCP personality (`tcp_model`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum TcpModel {
    #[default]
    Rfc,
    Ns2,
    /// Linux 6.x's TCP (`net/ipv4/`): RACK-TLP, PRR, Linux's RTO, CUBIC.
    Linux,
}

// -- E-TCP (`transport = "etcp"`)

/// What the controller adjusts.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Variant {
    /// §III-A: a window W; the rate timer's mean interval is tau_r / W.
    Window,
    /// §VII-A: a rate x in packets/s; mean interval 1 / x (RTT-friendly).
    Rate,
}

/// How long the reliability layer's retransmission timer runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum RtxTimer {
    /// TCP's RTO from the same estimator (srtt + 4 rttvar, floored at
    /// `min_rto_s`, doubled per consecutive expiry).
    Rto,
    /// The estimated RTT itself, the literal reading of §IV.
    Srtt,
}
