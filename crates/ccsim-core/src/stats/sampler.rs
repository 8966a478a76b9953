//! Periodic sampling into columnar series, the warm-up snapshot, and the
//! summary results of a run.
//!
//! Series rows are written for monitored links and for the flows active
//! during the sample's interval `(t - interval, t]` (started by `t`, not
//! stopped or finished before the interval began), so the sample that
//! covers a flow's last moments is kept and idle flows cost nothing.
//! Jain's index over the fairness window counts the flows active at `t`.
use super::{
    jain, push_optional, ratio, Conservation, FlowResult, FlowTableStats, LinkQDelay, LinkResult, QDelayClass, Results,
    Series, Transfers,
};
use crate::flow::FlowTable;
use crate::net::link::Link;
use crate::net::link::LinkCounters;
use crate::net::topology::NodeNames;
use crate::net::Net;
use crate::sim::time::to_secs;
use crate::sim::Time;
use std::collections::VecDeque;

pub struct Sampler {
    pub interval: Time,
    warmup: Time,
    /// Samples per fairness window.
    fair_window: usize,
    warm_links: Vec<LinkCounters>,
    /// Per flow (id order) at the warm-up's end.
    warm_flows: Vec<FlowCounters>,
    last_links: Vec<LinkCounters>,
    /// Per flow that is not a transfer (`FlowTable::plain` order): bytes
    /// delivered at the last sample, and at the samples of the fairness
    /// window.
    last_delivered: Vec<u64>,
    fair_hist: VecDeque<Vec<u64>>,
    pub series: Series,
}

/// Whether flow `f` has an application offering data at `t`.
fn active(flows: &FlowTable, f: u32, t: Time) -> bool {
    let flow = flows.get(f);
    let m = &flow.meta;
    t >= m.start && m.stop().is_none_or(|s| t < s) && flow.report().completed_at.is_none()
}

/// Whether flow `f` was active at some time in `(t - iv, t]`.
fn active_during(flows: &FlowTable, f: u32, t: Time, iv: Time) -> bool {
    let flow = flows.get(f);
    let m = &flow.meta;
    let from = t.saturating_sub(iv);
    t >= m.start && m.stop().is_none_or(|s| s > from) && flow.report().completed_at.is_none_or(|c| c > from)
}

/// A flow's cumulative counters, snapshotted at the warm-up's end so that
/// every counter in the summary covers the same measured period.
#[derive(Clone, Copy, Default)]
struct FlowCounters {
    delivered: u64,
    rx: u64,
    data_sent: u64,
    retransmits: u64,
    timeouts: u64,
    fast_recoveries: u64,
    ce_marks: u64,
    ece_acks: u64,
    drops: [u64; 2],
}

impl FlowCounters {
    fn of(flow: crate::flow::FlowRef<'_>, ce_marks: u64, drops: [u64; 2]) -> Self {
        let r = flow.report();
        FlowCounters {
            ce_marks,
            drops,
            ece_acks: r.ece_acks,
            delivered: flow.delivered_bytes(),
            rx: flow.rx_bytes(),
            data_sent: r.data_sent,
            retransmits: r.retransmits,
            timeouts: r.timeouts,
            fast_recoveries: r.fast_recoveries,
        }
    }
}

impl Sampler {
    pub fn new(interval: Time, warmup: Time, fair_window: usize) -> Self {
        Sampler {
            interval,
            warmup,
            fair_window,
            // Filled at warm-up end (empty: no warm-up, counters from 0).
            warm_links: Vec::new(),
            warm_flows: Vec::new(),
            // Sized at the first sample: a run without series keeps none.
            last_links: Vec::with_capacity(0),
            last_delivered: Vec::new(),
            fair_hist: VecDeque::new(),
            series: Series::default(),
        }
    }

    /// End of warm-up: snapshot the counters results are measured from, so
    /// that every summary counter (flows' bytes, packets, retransmissions,
    /// timeouts, recoveries; links' arrivals, drops, marks, queue averages)
    /// covers `[warmup_s, duration_s]`. The queue maxima alone stay whole-run
    /// maxima: the paced-XCP paper's Fig 1 reports the start-up transient and
    /// ns-2's queue monitors (our validation peer) see the whole run. The
    /// links' queueing-delay histograms start again here.
    pub fn warmup_end(&mut self, net: &mut Net, flows: &FlowTable) {
        let now = net.now;
        self.warm_links = net.all_link_counters_at(now).collect();
        for l in &mut net.links {
            l.restart_waits(now);
        }
        self.warm_flows = flows
            .iter()
            .enumerate()
            .map(|(i, f)| FlowCounters::of(f, net.ce_marks(i as u32), net.flow_drops(i as u32)))
            .collect();
    }

    pub fn sample(&mut self, net: &mut Net, flows: &mut FlowTable) {
        let t = net.now;
        let ts = to_secs(t);
        let iv = to_secs(self.interval);
        // Transfers (workload flows) are left out: only the table's plain
        // flows, indexed by their rank among them (their id when there
        // are no transfers).
        let delivered: Vec<u64> = flows.plain().iter().map(|&f| flows.get(f).delivered_bytes()).collect();
        self.last_delivered.resize(delivered.len(), 0);
        let s = &mut self.series.flows;
        for f in flows.alive_since(t.saturating_sub(self.interval)).to_vec() {
            let fi = flows.plain().binary_search(&f).expect("series flows are plain");
            let d = delivered[fi];
            if active_during(flows, f, t, self.interval) {
                // Flows without a window (UDP) report NaN (null in JSON).
                let r = flows.get(f).report();
                let rows = s.time_s.len();
                push_optional(&mut s.rate_pps, rows, r.rate_pps);
                push_optional(&mut s.loss_est, rows, r.loss_est);
                push_optional(&mut s.awnd_pkts, rows, r.awnd_pkts);
                let fb = flows.get(f).last_feedback();
                push_optional(&mut s.xcp_feedback_bytes_per_s, rows, fb.map(|x| x.feedback_bytes_per_s));
                push_optional(&mut s.xcp_delta_cwnd_pkts, rows, fb.map(|x| x.delta_cwnd_pkts));
                push_optional(&mut s.dctcp_alpha, rows, flows.get(f).ecn_alpha());
                let m = flows.get(f).model_info();
                push_optional(&mut s.bbr_bw_bytes_per_s, rows, m.map(|m| m.bw_bytes_per_s));
                push_optional(&mut s.bbr_min_rtt_s, rows, m.map(|m| m.min_rtt_s.unwrap_or(f64::NAN)));
                push_optional(&mut s.bbr_pacing_gain, rows, m.map(|m| m.pacing_gain));
                push_optional(&mut s.bbr_cwnd_gain, rows, m.map(|m| m.cwnd_gain));
                s.time_s.push(ts);
                s.flow.push(f);
                s.cwnd.push(r.cwnd);
                s.ssthresh.push(if r.ssthresh.is_nan() { f64::NAN } else { r.ssthresh.min(1e15) });
                s.srtt_s.push(r.srtt_s.unwrap_or(f64::NAN));
                s.goodput_bps.push((d - self.last_delivered[fi]) as f64 * 8.0 / iv);
            }
            self.last_delivered[fi] = d;
        }
        self.last_links.resize(net.links.len(), LinkCounters::default());
        let s = &mut self.series.links;
        for l in 0..net.links.len() {
            if !net.links[l].monitored {
                continue;
            }
            let (c, last) = (net.link_counters_at(l, t), self.last_links[l]);
            let link = &mut net.links[l];
            let arr = c.arrivals - last.arrivals;
            if let Some((wait_sum, wait_max)) = link.take_interval_waits(t) {
                // Every packet sent in the interval is in `sent`; the waits
                // of those that found the link idle (0) were not recorded.
                let (mean, max) = match c.tx_pkts - last.tx_pkts {
                    0 => (f64::NAN, f64::NAN),
                    n => (wait_sum as f64 / n as f64 / crate::sim::time::PS_PER_S, to_secs(wait_max)),
                };
                s.qdelay_mean_s.push(mean);
                s.qdelay_max_s.push(max);
            }
            let lost = (c.drops + c.random_losses) - (last.drops + last.random_losses);
            s.time_s.push(ts);
            s.link.push(l as u32);
            s.queue_pkts.push(link.queue_len_at(t) as u32);
            s.loss_rate.push(if arr > 0 { lost as f64 / arr as f64 } else { 0.0 });
            s.cum_loss_rate.push(ratio(c.drops + c.random_losses, c.arrivals));
            s.utilization.push((c.tx_bytes - last.tx_bytes) as f64 * 8.0 / (link.rate_bps() * iv));
            self.last_links[l] = c;
        }
        self.fair_hist.push_back(delivered);
        if self.fair_hist.len() > self.fair_window + 1 {
            self.fair_hist.pop_front();
        }
        let (old, new) = (&self.fair_hist[0], &self.fair_hist[self.fair_hist.len() - 1]);
        let plain = flows.plain();
        let rates: Vec<f64> = (0..new.len())
            .filter(|&i| active(flows, plain[i], t))
            .map(|i| (new[i] - old.get(i).copied().unwrap_or(0)) as f64)
            .collect();
        self.series.fairness.time_s.push(ts);
        self.series.fairness.jain.push(jain(&rates));
    }

    /// Summary results at the current time.
    pub fn results(&self, net: &Net, flows: &FlowTable, nodes: &NodeNames, sc: &crate::Scenario) -> Results {
        let (mut fl, mut li) = (Vec::new(), Vec::new());
        let mut r = self.results_rows(net, flows, nodes, sc, &mut |f| fl.push(f), &mut |l| li.push(l));
        r.flows = fl;
        r.links = li;
        r
    }

    /// [`Sampler::results`] with each row of the `flows` and `links` tables
    /// handed to `flow` and `link` as it is made (flows first, each table
    /// in order) instead of collected, and those two tables left empty: a
    /// front end that keeps the tables its own way (as columns) then never
    /// holds every row at once.
    pub fn results_rows(
        &self,
        net: &Net,
        flows: &FlowTable,
        nodes: &NodeNames,
        sc: &crate::Scenario,
        flow: &mut dyn FnMut(FlowResult),
        link: &mut dyn FnMut(LinkResult),
    ) -> Results {
        let end = net.now;
        let meas = to_secs(end.saturating_sub(self.warmup)).max(1e-12);
        let meas_ns = end.saturating_sub(self.warmup).max(1) as f64;
        let goodputs: Vec<f64> = flows
            .plain()
            .iter()
            .map(|&f| {
                let r = self.flow_result(net, flows, f as usize, end);
                let g = r.goodput_bps;
                flow(r);
                g
            })
            .collect();
        net.links
            .iter()
            .zip(net.all_link_counters_at(end))
            .enumerate()
            .map(|(i, (l, c))| {
                let w = self.warm_links.get(i).copied().unwrap_or_default();
                let (max_queue_pkts, max_queue_bytes) = l.max_queue_at(end);
                let arrivals = c.arrivals - w.arrivals;
                let drops = c.drops - w.drops;
                let random = c.random_losses - w.random_losses;
                let tx_pkts = c.tx_pkts - w.tx_pkts;
                LinkResult {
                    id: i as u32,
                    name: l.name(nodes).to_string(),
                    from: nodes[l.from as usize].to_string(),
                    to: nodes[l.to as usize].to_string(),
                    rate_bps: l.rate_bps(),
                    delay_s: to_secs(l.delay),
                    monitored: l.monitored,
                    utilization: (c.tx_bytes - w.tx_bytes) as f64 * 8.0 / (l.rate_bps() * meas),
                    tx_pkts,
                    tx_bytes: c.tx_bytes - w.tx_bytes,
                    arrivals,
                    drops,
                    random_losses: random,
                    loss_rate: ratio(drops + random, arrivals),
                    max_queue_pkts: max_queue_pkts as u64,
                    max_queue_bytes,
                    avg_queue_pkts: (c.q_area_pkts - w.q_area_pkts) as f64 / meas_ns,
                    avg_queue_bytes: (c.q_area_bytes - w.q_area_bytes) as f64 / meas_ns,
                    marks: c.marks - w.marks,
                    qdelay: link_qdelay(l, end, tx_pkts),
                }
            })
            .for_each(link);
        let transfers = transfers(flows);
        Results {
            name: sc.name.clone(),
            seed: sc.seed,
            duration_s: to_secs(end),
            warmup_s: sc.warmup_s,
            events: net.events.popped,
            wall_s: 0.0,
            cpu_s: 0.0,
            flows: Vec::new(),
            links: Vec::new(),
            jain_index: jain(&goodputs),
            conservation: Conservation {
                created: net.created,
                delivered: net.delivered,
                dropped: net.dropped,
                in_flight: net.in_flight(),
                live_in_pool: net.pkts.live() as u64,
            },
            series: self.series.clone(),
            flow_table: (!transfers.is_empty()).then(|| FlowTableStats {
                flows: flows.len() as u64,
                transfers: flows.transfers() as u64,
                live_max: flows.live_max() as u64,
                live_end: flows.live() as u64,
            }),
            transfers,
        }
    }

    /// Summary of flow `f` over the measurement period ending at `end`.
    fn flow_result(&self, net: &Net, flows: &FlowTable, f: usize, end: Time) -> FlowResult {
        let flow = flows.get(f as u32);
        let m = &flow.meta;
        let r = flow.report();
        let completed = r.completed_at;
        let from = m.start.max(self.warmup);
        let until = [Some(end), m.stop(), completed].into_iter().flatten().min().unwrap_or(end);
        let t = to_secs(until.saturating_sub(from));
        let per_s = |b: u64| if t > 0.0 { b as f64 * 8.0 / t } else { 0.0 };
        // Flows created after the snapshot count from zero.
        let w = self.warm_flows.get(f).copied().unwrap_or_default();
        let delivered = flow.delivered_bytes() - w.delivered;
        let delay = flow.app_delay();
        let drops = net.flow_drops(f as u32);
        FlowResult {
            id: f as u32,
            entry: m.entry,
            transport: m.labels.transport.to_string(),
            cc: m.labels.cc.to_string(),
            recovery: m.labels.recovery.to_string(),
            pacing: m.labels.pacing.to_string(),
            rtt_prop_s: m.rtt_prop_s,
            start_s: to_secs(m.start),
            stop_s: m.stop().map(to_secs),
            goodput_bps: per_s(delivered),
            throughput_bps: per_s(flow.rx_bytes() - w.rx),
            delivered_bytes: delivered,
            data_pkts_sent: r.data_sent - w.data_sent,
            retransmits: r.retransmits - w.retransmits,
            data_pkts_dropped: drops[0] - w.drops[0],
            acks_dropped: drops[1] - w.drops[1],
            timeouts: r.timeouts - w.timeouts,
            fast_recoveries: r.fast_recoveries - w.fast_recoveries,
            ce_marks: net.ce_marks(f as u32) - w.ce_marks,
            ece_acks: r.ece_acks - w.ece_acks,
            final_cwnd: r.cwnd,
            final_srtt_s: r.srtt_s,
            completed_s: completed.map(to_secs),
            fct_s: completed.map(|c| to_secs(c.saturating_sub(m.start))),
            loss_est: r.loss_est,
            rate_pps: r.rate_pps,
            awnd_pkts: r.awnd_pkts,
            app_delay_count: delay.map(|d| d.count),
            app_delay_mean_s: delay.and_then(|d| d.mean_s()),
            app_delay_max_s: delay.and_then(|d| d.max_s()),
        }
    }
}

/// Link `l`'s queueing delay over the measured period up to `end`, in which
/// it sent `served` packets (`None` if it does not record delays): the
/// whole link, and each class when its discipline names more than one.
fn link_qdelay(l: &Link, end: Time, served: u64) -> Option<LinkQDelay> {
    let classes = l.qdelay_at(end, served)?;
    let mut all = classes[0].clone();
    classes[1..].iter().for_each(|h| all.merge(h));
    let d = all.summary();
    let names = l.queue.delay_classes();
    let per_class = if names.len() > 1 { &classes[..] } else { &[] };
    Some(LinkQDelay {
        p50_s: d.p50_s,
        p90_s: d.p90_s,
        p99_s: d.p99_s,
        p999_s: d.p999_s,
        mean_s: d.mean_s,
        max_s: d.max_s,
        classes: per_class
            .iter()
            .enumerate()
            .map(|(k, h)| QDelayClass {
                class: names.get(k).map_or_else(|| format!("class{k}"), |n| n.to_string()),
                delay: h.summary(),
            })
            .collect(),
    })
}

/// The table of every transfer (flows with a transfer tag), in id order.
fn transfers(flows: &FlowTable) -> Transfers {
    let mut t = Transfers::default();
    for &(id, tag) in flows.transfer_tags() {
        let f = flows.get(id);
        let r = f.report();
        let m = &f.meta;
        t.flow.push(id);
        t.entry.push(m.entry);
        t.user.push(tag.user);
        t.page.push(tag.page);
        t.page_objects.push(tag.page_objects);
        t.objects.push(tag.objects);
        t.persistent.push(tag.persistent);
        t.transport.push(m.labels.transport.to_string());
        t.cc.push(m.labels.cc.to_string());
        t.rtt_prop_s.push(m.rtt_prop_s);
        t.start_s.push(to_secs(m.start));
        t.bytes.push(tag.bytes);
        t.delivered_bytes.push(f.delivered_bytes());
        t.completed_s.push(r.completed_at.map(to_secs));
        t.fct_s.push(r.completed_at.map(|c| to_secs(c.saturating_sub(m.start))));
        t.retransmits.push(r.retransmits);
        t.timeouts.push(r.timeouts);
    }
    t
}
