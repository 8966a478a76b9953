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
    pub goodput_bps: f64,
    pub throughput_bps: f64,
    pub delivered_bytes: u64,
    pub data_pkts_sent: u64,
    pub retransmits: u64,
    pub timeouts: u64,
    pub fast_recoveries: u64,
    pub final_cwnd: f64,
    pub final_srtt_s: Option<f64>,
    pub completed_s: Option<f64>,
    /// E-TCP: fraction of packets the sender responded to as lost.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub loss_est: Option<f64>,
    /// E-TCP: final sending rate in packets/s.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rate_pps: Option<f64>,
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
    pub max_queue_pkts: u64,
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

#[derive(Clone, Debug, Serialize)]
pub struct Results {
    pub name: String,
    pub seed: u64,
    pub duration_s: f64,
    pub warmup_s: f64,
    pub events: u64,
    pub wall_s: f64,
    pub flows: Vec<FlowResult>,
    pub links: Vec<LinkResult>,
    pub jain_index: f64,
    pub conservation: Conservation,
    pub series: Series,
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
