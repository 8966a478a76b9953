//! What ccsim ships, with parameters and defaults (`ccsim list`).
use crate::transport::cc;
use serde_json::json;

/// Everything `ccsim list` shows; queues, stages, transports and
/// applications come from their registries.
pub fn catalog_json() -> String {
    json!({
        "controllers": cc::catalog(),
        "recoveries": [
            {"name": "reno", "doc": "RFC 5681 §3.2 fast retransmit/recovery; leaves recovery on any new ACK"},
            {"name": "newreno", "doc": "RFC 6582: partial ACKs retransmit the next hole; one reduction per window"},
            {"name": "sack", "doc": "RFC 6675 SACK scoreboard, pipe and NextSeg(), rescue retransmission"},
            {"name": "sack1", "doc": "ns-2.35 Agent/TCP/Sack1 + TCPSink/Sack1: pipe counter, no inflation, exit burst, go-back-N after RTO"}
        ],
        "pacing": [
            {"name": "none", "doc": "window-limited bursts"},
            {"name": "interval", "doc": "at least srtt/cwnd between packets (E-TCP paper, paced NewReno)"},
            {"name": "token_bucket", "doc": "tokens at cwnd/srtt, bucket of bucket_pkts (paced-XCP paper §3.2)",
             "params": [{"name": "bucket_pkts", "default": 1.0, "doc": "bucket size in packets"}]},
            {"name": "rate", "doc": "Linux earliest-departure pacing at the pacing rate: the controller's (bbr), else 2·cwnd/srtt below ssthresh/2 and 1.2·cwnd/srtt after (tcp_update_pacing_rate); the first 9 segments unpaced"}
        ],
        "queues": crate::net::queue::catalog(),
        "stages": crate::net::stage::catalog(),
        "transports": crate::transport::catalog(),
        "flow_fields": crate::transport::flow_fields(),
        "applications": crate::app::catalog(),
        "topologies": [
            {"name": "dumbbell", "doc": "one bottleneck, one edge link per source and sink (E-TCP/LTCP Fig 4)",
             "params": [
                {"name": "bottleneck_rate_bps", "default": null, "doc": "required"},
                {"name": "bottleneck_delay_s", "default": 0.01, "doc": "one-way"},
                {"name": "bottleneck_queue", "default": null, "doc": "required queue table"},
                {"name": "bottleneck_loss", "default": 0.0, "doc": "Bernoulli loss, forward"},
                {"name": "bottleneck_reverse_loss", "default": 0.0, "doc": "Bernoulli loss, reverse (ACKs)"},
                {"name": "edge_rate_bps", "default": 100e9, "doc": ""},
                {"name": "edge_delay_s", "default": 0.005, "doc": "unless the flow sets rtt_s"},
                {"name": "edge_queue", "default": {"kind": "droptail", "limit_pkts": 1000}, "doc": ""}
             ]},
            {"name": "parking_lot", "doc": "chain of n_links bottlenecks; flows cross hops=[first,last] (E-TCP Fig 13, paced-XCP)",
             "params": [
                {"name": "n_links", "default": null, "doc": "required"},
                {"name": "link_rate_bps", "default": null, "doc": "required"},
                {"name": "link_delay_s", "default": 0.01, "doc": "one-way, per link"},
                {"name": "link_queue", "default": null, "doc": "required queue table"},
                {"name": "link_loss", "default": 0.0, "doc": ""},
                {"name": "link_reverse_loss", "default": 0.0, "doc": ""},
                {"name": "edge_rate_bps", "default": 100e9, "doc": ""},
                {"name": "edge_delay_s", "default": 0.005, "doc": ""},
                {"name": "edge_queue", "default": {"kind": "droptail", "limit_pkts": 1000}, "doc": ""}
             ]},
            {"name": "custom", "doc": "named nodes, duplex links, per-flow routes",
             "params": [
                {"name": "nodes", "default": null, "doc": "list of names"},
                {"name": "links", "default": null, "doc": "list of {from,to,rate_bps,delay_s,queue,loss,reverse_loss,reverse_queue,monitor}"}
             ]}
        ]
    })
    .to_string()
}
