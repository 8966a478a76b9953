//! Command line. Hand-parsed: a dozen flags do not need a parser crate.

use std::collections::HashMap;
use std::net::Ipv4Addr;

use serde::Serialize;

use crate::engine::Model;

pub const USAGE: &str = "\
ccsim-tunemu: a dumbbell bottleneck between two TUN devices in two network namespaces

usage: ccsim-tunemu --snd-ns NS --rcv-ns NS (--rate-mbps F | --rate-bps N) --buffer-pkts N --json PATH [options]

  --snd-ns NS, --rcv-ns NS   netns names (/var/run/netns/NS) or paths such as /proc/PID/ns/net
  --snd-tun NAME             TUN device created in the sender's namespace (tsnd)
  --rcv-tun NAME             TUN device created in the receiver's namespace (trcv)
  --rate-mbps F | --rate-bps N
                             bottleneck rate; a packet takes (IP length * 8 / rate) to serialise
  --buffer-pkts N            DropTail limit: packets waiting, the one in service not counted
  --delay-fwd-ms F           common one-way delay after the bottleneck (0)
  --delay-rev-ms F           common one-way delay of the reverse path (0)
  --duplex                   the reverse path has a bottleneck of its own at the same rate and
                             buffer, as a duplex link (ns-2's, ccsim's dumbbells); else delays only
  --flow-delay ADDR=MS       extra one-way delay, both directions, for the flow whose sender
                             address is ADDR (forward: source; reverse: destination); repeatable
  --loss P --seed N          Bernoulli loss before the buffer (0; seed 1)
  --duration S               stop after S seconds (else at SIGINT/SIGTERM)
  --json PATH                report written at exit
  --arrivals PATH            CSV of every arrival at the bottleneck (t_ns,len,src,verdict)
  --departures PATH          CSV of every packet written (dir,ideal_ns,error_ns,write_ns,len)
  --cpu N                    pin to CPU N
  --spin-us N                busy-poll while the next event is due within N us (200)
  --busy-poll                never sleep
";

/// Everything the command line sets; written into the report as given.
#[derive(Debug, Clone, Serialize)]
pub struct Config {
    pub snd_ns: String,
    pub rcv_ns: String,
    pub snd_tun: String,
    pub rcv_tun: String,
    pub rate_bps: u64,
    pub buffer_pkts: usize,
    pub delay_fwd_ms: f64,
    pub delay_rev_ms: f64,
    /// Sender address → extra one-way delay (ms).
    pub flow_delay_ms: Vec<(Ipv4Addr, f64)>,
    pub loss: f64,
    pub seed: u64,
    pub duration_s: Option<f64>,
    pub json: String,
    pub arrivals: Option<String>,
    pub departures: Option<String>,
    pub cpu: Option<usize>,
    /// `None`: never sleep.
    pub spin_us: Option<u64>,
    pub duplex: bool,
}

fn ms_to_ns(ms: f64) -> u64 {
    (ms * 1e6).round() as u64
}

impl Config {
    pub fn model(&self) -> Model {
        Model {
            rate_bps: self.rate_bps,
            buffer_pkts: self.buffer_pkts,
            delay_fwd_ns: ms_to_ns(self.delay_fwd_ms),
            delay_rev_ns: ms_to_ns(self.delay_rev_ms),
            flow_delay_ns: self.flow_delay_ms.iter().map(|&(a, ms)| (a, ms_to_ns(ms))).collect::<HashMap<_, _>>(),
            loss: self.loss,
            seed: self.seed,
            duplex: self.duplex,
        }
    }

    pub fn parse(args: impl IntoIterator<Item = String>) -> Result<Config, String> {
        let mut it = args.into_iter();
        let mut c = Config {
            snd_ns: String::new(),
            rcv_ns: String::new(),
            snd_tun: "tsnd".into(),
            rcv_tun: "trcv".into(),
            rate_bps: 0,
            buffer_pkts: usize::MAX,
            delay_fwd_ms: 0.0,
            delay_rev_ms: 0.0,
            flow_delay_ms: vec![],
            loss: 0.0,
            seed: 1,
            duration_s: None,
            json: String::new(),
            arrivals: None,
            departures: None,
            cpu: None,
            spin_us: Some(200),
            duplex: false,
        };
        while let Some(flag) = it.next() {
            if flag == "--busy-poll" {
                c.spin_us = None;
                continue;
            }
            if flag == "--duplex" {
                c.duplex = true;
                continue;
            }
            if flag == "-h" || flag == "--help" {
                return Err(String::new());
            }
            let v = it.next().ok_or_else(|| format!("{flag} needs a value"))?;
            let num = |what: &str| v.parse::<f64>().map_err(|_| format!("{flag}: bad {what} {v:?}"));
            let int = || v.parse::<u64>().map_err(|_| format!("{flag}: bad integer {v:?}"));
            match flag.as_str() {
                "--snd-ns" => c.snd_ns = v.clone(),
                "--rcv-ns" => c.rcv_ns = v.clone(),
                "--snd-tun" => c.snd_tun = v.clone(),
                "--rcv-tun" => c.rcv_tun = v.clone(),
                "--rate-mbps" => c.rate_bps = (num("rate")? * 1e6).round() as u64,
                "--rate-bps" => c.rate_bps = int()?,
                "--buffer-pkts" => c.buffer_pkts = int()? as usize,
                "--delay-fwd-ms" => c.delay_fwd_ms = num("delay")?,
                "--delay-rev-ms" => c.delay_rev_ms = num("delay")?,
                "--flow-delay" => {
                    let (a, ms) = v.split_once('=').ok_or_else(|| format!("--flow-delay wants ADDR=MS, got {v:?}"))?;
                    let a = a.parse().map_err(|_| format!("--flow-delay: bad address {a:?}"))?;
                    let ms = ms.parse::<f64>().map_err(|_| format!("--flow-delay: bad delay {ms:?}"))?;
                    c.flow_delay_ms.push((a, ms));
                }
                "--loss" => c.loss = num("probability")?,
                "--seed" => c.seed = int()?,
                "--duration" => c.duration_s = Some(num("duration")?),
                "--json" => c.json = v.clone(),
                "--arrivals" => c.arrivals = Some(v.clone()),
                "--departures" => c.departures = Some(v.clone()),
                "--cpu" => c.cpu = Some(int()? as usize),
                "--spin-us" => c.spin_us = Some(int()?),
                _ => return Err(format!("unknown flag {flag}")),
            }
        }
        for (name, missing) in [
            ("--snd-ns", c.snd_ns.is_empty()),
            ("--rcv-ns", c.rcv_ns.is_empty()),
            ("--rate-mbps or --rate-bps", c.rate_bps == 0),
            ("--buffer-pkts", c.buffer_pkts == usize::MAX),
            ("--json", c.json.is_empty()),
        ] {
            if missing {
                return Err(format!("{name} is required"));
            }
        }
        if !(0.0..=1.0).contains(&c.loss) {
            return Err(format!("--loss must be in [0, 1], got {}", c.loss));
        }
        let delays = [c.delay_fwd_ms, c.delay_rev_ms].into_iter().chain(c.flow_delay_ms.iter().map(|d| d.1));
        if delays.clone().any(|d| !(d >= 0.0 && d.is_finite())) {
            return Err("delays must be finite and non-negative".into());
        }
        Ok(c)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(s: &str) -> Result<Config, String> {
        Config::parse(s.split_whitespace().map(String::from))
    }

    #[test]
    fn parses_a_full_command_line() {
        let c = parse(
            "--snd-ns a --rcv-ns b --rate-mbps 50 --buffer-pkts 17 --json o.json --delay-fwd-ms 10 \
             --flow-delay 10.77.1.3=20 --flow-delay 10.77.1.4=0.5 --busy-poll --duplex --cpu 1",
        )
        .unwrap();
        assert_eq!(c.rate_bps, 50_000_000);
        assert_eq!(c.buffer_pkts, 17);
        assert_eq!(c.spin_us, None);
        let m = c.model();
        assert!(m.duplex);
        assert_eq!(m.delay_fwd_ns, 10_000_000);
        assert_eq!(m.flow_delay_ns[&Ipv4Addr::new(10, 77, 1, 4)], 500_000);
    }

    #[test]
    fn rejects_missing_and_bad_values() {
        assert!(parse("--snd-ns a --rcv-ns b --rate-mbps 50 --json o").unwrap_err().contains("--buffer-pkts"));
        assert!(parse("--snd-ns a --rcv-ns b --rate-mbps 50 --buffer-pkts 1 --json o --loss 2").is_err());
        assert!(parse("--flow-delay 10.77.1.2").is_err());
        assert!(parse("--snd-ns a --rcv-ns b --rate-mbps 5 --buffer-pkts 1 --json o --delay-fwd-ms -1").is_err());
    }
}
