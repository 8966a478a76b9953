//! Results: per-flow, per-link and conservation summaries, and the sampled
//! time series (columnar, so Python turns them into DataFrames directly).
pub mod sampler;

use serde::Serialize;

/// (x / y), 0 when y is 0.
pub fn ratio(x: u64, y: u64) -> f64 {
    if y == 0 {
        0.0
    } else {
        x as f64 / y as f64
    }
}

/// Jain's fairness index (Σx)² / (n Σx²); NaN (null in JSON) for no flows
/// or all-zero rates.
pub fn jain(x: &[f64]) -> f64 {
    let s: f64 = x.iter().sum();
    let s2: f64 = x.iter().map(|v| v * v).sum();
    if x.is_empty() || s2 == 0.0 {
        f64::NAN
    } else {
        s * s / (x.len() as f64 * s2)
    }
}

/// Kolmogorov–Smirnov distance `sup |F_n - F|` between the sample `x`
/// (sorted in place) and a continuous CDF `cdf`: the largest gap at and
/// just below each distinct value. Compare with `c(α)/√n` (c = 1.36 at
/// α = 0.05, 1.95 at 0.001). Whole-byte sizes from a continuous law are
/// fine when the law's step per byte is small against that bound; a
/// discrete law with large steps needs `sup_k |F_n(k) - F(k)|` instead.
pub fn ks_distance(x: &mut [f64], cdf: impl Fn(f64) -> f64) -> f64 {
    ks_sup(x, &cdf, &cdf)
}

/// Kolmogorov's critical value of the KS distance at significance 0.001
/// for `n` samples (`1.949 / √n`).
pub fn ks_crit_001(n: usize) -> f64 {
    1.949 / (n as f64).sqrt()
}

/// Kolmogorov–Smirnov distance for a law on the integers: `sup_k |F_n(k)
/// - F(k)|` over the sample's values `k` and the integers just below them
/// (where a step function's gaps are), with `cdf(k) = P(X <= k)`.
pub fn ks_distance_discrete(x: &[u64], cdf: impl Fn(f64) -> f64) -> f64 {
    let mut x: Vec<f64> = x.iter().map(|&k| k as f64).collect();
    ks_sup(&mut x, &cdf, &|k| cdf(k - 1.0))
}

/// `sup |F_n - F|` at each distinct value `v` of `x` (sorted in place):
/// `|F_n(v) - cdf(v)|` and, just below it, `|F_n(v-) - below(v)|`.
fn ks_sup(x: &mut [f64], cdf: &dyn Fn(f64) -> f64, below: &dyn Fn(f64) -> f64) -> f64 {
    x.sort_by(f64::total_cmp);
    let n = x.len() as f64;
    let mut d: f64 = 0.0;
    let mut i = 0;
    while i < x.len() {
        let mut j = i;
        while j < x.len() && x[j] == x[i] {
            j += 1;
        }
        d = d.max((j as f64 / n - cdf(x[i])).abs()).max((i as f64 / n - below(x[i])).abs());
        i = j;
    }
    d
}

#[derive(Clone, Debug, Serialize)]
pub struct FlowResult {
    pub id: u32,
    pub entry: u32,
    /// `"tcp"` or `"udp"`; UDP flows report `cc`/`recovery`/`pacing` "none",
    /// `final_cwnd` null and zero retransmits.
    pub transport: String,
    pub cc: String,
    pub recovery: String,
    pub pacing: String,
    pub rtt_prop_s: f64,
    pub start_s: f64,
    pub stop_s: Option<f64>,
    // Counters below cover the measured period [warmup_s, end]; a flow
    // starting after the warm-up counts from its start.
    /// Bytes delivered in order to the receiving application, per second
    /// of the flow's measured life (to its stop or completion).
    pub goodput_bps: f64,
    /// Bytes the receiver got (duplicates included), per second.
    pub throughput_bps: f64,
    pub delivered_bytes: u64,
    /// Data packets sent, retransmissions included.
    pub data_pkts_sent: u64,
    pub retransmits: u64,
    /// This flow's data packets the network dropped (a queue discipline's
    /// or stage's drop, or random loss): over `data_pkts_sent`, the flow's
    /// own loss rate, which `retransmits` overstates when a timeout resends
    /// segments still in flight. The flows' drops and `acks_dropped` add up
    /// to the links' `drops` and `random_losses`.
    pub data_pkts_dropped: u64,
    /// This flow's ACKs the network dropped (two-way traffic, reverse loss).
    pub acks_dropped: u64,
    /// Retransmission timer expiries that backed the sender off.
    pub timeouts: u64,
    pub fast_recoveries: u64,
    /// CE marks the queues and stages set on this flow's packets (where
    /// they set them: a packet marked at one hop and dropped at the next
    /// counts); the flows' marks add up to the links' `marks`.
    pub ce_marks: u64,
    /// ACKs the sender received with ECN-Echo set, or with AccECN feedback
    /// whose CE count grew (TCP; 0 otherwise).
    pub ece_acks: u64,
    /// State at the end of the run.
    pub final_cwnd: f64,
    pub final_srtt_s: Option<f64>,
    /// When the last byte of a finite transfer was acknowledged (absolute
    /// simulation time; null if not by the end) ...
    pub completed_s: Option<f64>,
    /// ... and the flow completion time `completed_s - start_s`.
    pub fct_s: Option<f64>,
    /// E-TCP: fraction of packets the sender responded to as lost.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub loss_est: Option<f64>,
    /// E-TCP: final sending rate in packets/s.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rate_pps: Option<f64>,
    /// GWA-TCP: the last advertised window W_a in packets.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub awnd_pkts: Option<f64>,
    /// Telnet: messages written after the warm-up and delivered, and their
    /// mean and largest write-to-delivery delay.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub app_delay_count: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub app_delay_mean_s: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub app_delay_max_s: Option<f64>,
}

#[derive(Clone, Debug, Serialize)]
pub struct LinkResult {
    pub id: u32,
    pub name: String,
    pub from: String,
    pub to: String,
    pub rate_bps: f64,
    pub delay_s: f64,
    pub monitored: bool,
    pub utilization: f64,
    pub tx_pkts: u64,
    pub tx_bytes: u64,
    pub arrivals: u64,
    pub drops: u64,
    pub random_losses: u64,
    pub loss_rate: f64,
    /// Largest queue in packets over the whole run, warm-up included (the
    /// one summary field that is not over the measured period: the papers'
    /// maximum-queue figures include the start-up transient); checked at
    /// each arrival.
    pub max_queue_pkts: u64,
    /// Largest queue in bytes (sampled at arrivals, as `max_queue_pkts`).
    pub max_queue_bytes: u64,
    /// Time-averaged queue (waiting packets, the one in service not
    /// counted) over the measured period (after warm-up).
    pub avg_queue_pkts: f64,
    /// The same in bytes.
    pub avg_queue_bytes: f64,
    /// Packets marked CE (ECN) by the discipline or a stage.
    pub marks: u64,
    /// Queueing delay, when the scenario records it (`qdelay = true`); its
    /// fields sit in the link's row (`qdelay_p50_s`, ...), absent otherwise.
    #[serde(flatten)]
    pub qdelay: Option<LinkQDelay>,
}

/// Queueing delay (sojourn: arrival at the queue to the start of
/// serialisation) of the packets a link sent in the measured period, every
/// one counted (`tx_pkts` of them; one that found the link idle waited 0):
/// nearest-rank percentiles to within 0.78%, exact mean and maximum
/// (`net::qdelay`); null when none was sent.
#[derive(Clone, Debug, Serialize)]
pub struct LinkQDelay {
    #[serde(rename = "qdelay_p50_s")]
    pub p50_s: f64,
    #[serde(rename = "qdelay_p90_s")]
    pub p90_s: f64,
    #[serde(rename = "qdelay_p99_s")]
    pub p99_s: f64,
    #[serde(rename = "qdelay_p999_s")]
    pub p999_s: f64,
    #[serde(rename = "qdelay_mean_s")]
    pub mean_s: f64,
    #[serde(rename = "qdelay_max_s")]
    pub max_s: f64,
    /// The same per sub-queue class, for a discipline that names more than
    /// one (`QueueDiscipline::delay_classes`, e.g. DualPI2's L and C
    /// queues); absent otherwise.
    #[serde(rename = "qdelay_classes", skip_serializing_if = "Vec::is_empty")]
    pub classes: Vec<QDelayClass>,
}

/// One sub-queue class's queueing delay over the measured period (the
/// fields of [`LinkResult`]'s `qdelay_*`, for its packets only): the
/// class's name and its [`DelaySummary`] (`pkts`, the percentiles, mean
/// and max), whose fields it gives directly.
#[derive(Clone, Debug, Serialize)]
pub struct QDelayClass {
    pub class: String,
    #[serde(flatten)]
    pub delay: crate::net::qdelay::DelaySummary,
}

impl std::ops::Deref for QDelayClass {
    type Target = crate::net::qdelay::DelaySummary;
    fn deref(&self) -> &Self::Target {
        &self.delay
    }
}

/// Every packet created is delivered, dropped, or still in the network.
#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
pub struct Conservation {
    pub created: u64,
    pub delivered: u64,
    pub dropped: u64,
    pub in_flight: u64,
    pub live_in_pool: u64,
}

impl Conservation {
    pub fn holds(&self) -> bool {
        self.created == self.delivered + self.dropped + self.in_flight && self.in_flight == self.live_in_pool
    }
}

#[derive(Clone, Debug, Default, Serialize)]
pub struct FlowSeries {
    pub time_s: Vec<f64>,
    pub flow: Vec<u32>,
    pub cwnd: Vec<f64>,
    pub ssthresh: Vec<f64>,
    pub srtt_s: Vec<f64>,
    pub goodput_bps: Vec<f64>,
    /// Present once a flow reports a sending rate (E-TCP), NaN for others.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub rate_pps: Vec<f64>,
    /// Present once a flow reports a loss estimate (E-TCP), NaN for others.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub loss_est: Vec<f64>,
    /// Present once a flow advertises a window (GWA-TCP), NaN for others.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub awnd_pkts: Vec<f64>,
    /// Present once an XCP flow has applied a router feedback, NaN for
    /// others (and before a flow's first): the last echoed H_feedback in
    /// bytes/s (ns-2's traced `reverse_feedback_`) and the window change it
    /// gave in packets (`feedback · srtt / mss`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub xcp_feedback_bytes_per_s: Vec<f64>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub xcp_delta_cwnd_pkts: Vec<f64>,
    /// Present once a DCTCP flow runs, NaN for others: its α, the EWMA of
    /// the marked fraction (RFC 8257 §3.3).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub dctcp_alpha: Vec<f64>,
    /// Present once a BBR flow (v1 or v3) runs, NaN for others: the model
    /// it steers by, as the kernel's `TCP_CC_INFO` reports it
    /// (`struct tcp_bbr_info`): the bandwidth estimate in payload
    /// bytes/s, RTprop in seconds (NaN before a sample), the pacing and
    /// cwnd gains.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub bbr_bw_bytes_per_s: Vec<f64>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub bbr_min_rtt_s: Vec<f64>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub bbr_pacing_gain: Vec<f64>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub bbr_cwnd_gain: Vec<f64>,
}

/// Push `v` onto an optional series column that starts (back-filled with
/// NaN) at the first row with a value.
fn push_optional(col: &mut Vec<f64>, rows_before: usize, v: Option<f64>) {
    if col.is_empty() && v.is_none() {
        return;
    }
    if col.is_empty() {
        col.resize(rows_before, f64::NAN);
    }
    col.push(v.unwrap_or(f64::NAN));
}

#[derive(Clone, Debug, Default, Serialize)]
pub struct LinkSeries {
    pub time_s: Vec<f64>,
    pub link: Vec<u32>,
    pub queue_pkts: Vec<u32>,
    pub loss_rate: Vec<f64>,
    pub cum_loss_rate: Vec<f64>,
    pub utilization: Vec<f64>,
    /// With `qdelay = true`: mean and largest queueing delay of the packets
    /// that started serialisation in the sample's interval (NaN when none
    /// did).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub qdelay_mean_s: Vec<f64>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub qdelay_max_s: Vec<f64>,
}

#[derive(Clone, Debug, Default, Serialize)]
pub struct FairnessSeries {
    pub time_s: Vec<f64>,
    pub jain: Vec<f64>,
}

#[derive(Clone, Debug, Default, Serialize)]
pub struct Series {
    pub flows: FlowSeries,
    pub links: LinkSeries,
    pub fairness: FairnessSeries,
}

/// One row per transfer of a workload application (web users), columnar.
/// A transfer is a finite flow; it is listed here instead of in `flows`.
#[derive(Clone, Debug, Default, Serialize, PartialEq)]
pub struct Transfers {
    /// Flow id.
    pub flow: Vec<u32>,
    /// `[[flows]]` entry and user (index among the entry's `count`).
    pub entry: Vec<u32>,
    pub user: Vec<u32>,
    /// The user's page request (from 0), objects of that page, objects
    /// this transfer carries, and whether it is on a persistent connection.
    pub page: Vec<u32>,
    pub page_objects: Vec<u32>,
    pub objects: Vec<u32>,
    pub persistent: Vec<bool>,
    pub transport: Vec<String>,
    pub cc: Vec<String>,
    pub rtt_prop_s: Vec<f64>,
    pub start_s: Vec<f64>,
    /// Payload bytes to transfer, and delivered in order by the end.
    pub bytes: Vec<u64>,
    pub delivered_bytes: Vec<u64>,
    /// When the last byte was acknowledged (null: not by the end), and
    /// the completion time `completed_s - start_s`.
    pub completed_s: Vec<Option<f64>>,
    pub fct_s: Vec<Option<f64>>,
    pub retransmits: Vec<u64>,
    pub timeouts: Vec<u64>,
}

impl Transfers {
    pub fn is_empty(&self) -> bool {
        self.flow.is_empty()
    }
    pub fn len(&self) -> usize {
        self.flow.len()
    }
}

/// The flow table's size over the run (present when there are transfers):
/// flows ever created, the most alive at once, and alive at the end.
#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
pub struct FlowTableStats {
    pub flows: u64,
    pub transfers: u64,
    pub live_max: u64,
    pub live_end: u64,
}

fn is_zero(x: &f64) -> bool {
    *x == 0.0
}

#[derive(Clone, Debug, Serialize)]
pub struct Results {
    pub name: String,
    pub seed: u64,
    pub duration_s: f64,
    pub warmup_s: f64,
    pub events: u64,
    /// Wall time and CPU time (of the thread that ran it) of the run, set
    /// by the front end that times it; 0 otherwise (`cpu_s` is then left
    /// out of the JSON, so a core run's results are as they always were).
    pub wall_s: f64,
    #[serde(skip_serializing_if = "is_zero")]
    pub cpu_s: f64,
    pub flows: Vec<FlowResult>,
    pub links: Vec<LinkResult>,
    pub jain_index: f64,
    pub conservation: Conservation,
    pub series: Series,
    /// Workload transfers (only when a run has some).
    #[serde(skip_serializing_if = "Transfers::is_empty")]
    pub transfers: Transfers,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub flow_table: Option<FlowTableStats>,
}

impl Results {
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).expect("results serialise")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    #[test]
    fn jain_bounds() {
        assert_eq!(jain(&[1.0, 1.0, 1.0]), 1.0);
        assert!((jain(&[1.0, 0.0, 0.0, 0.0]) - 0.25).abs() < 1e-12);
        assert!(jain(&[]).is_nan());
    }
}
