//! `TcpReplay`: one TCP sender driven by a script's peer, for
//! `validation/packetdrill.py` ([`ccsim_core::transport::tcp::replay`]).
use ccsim_core::transport::tcp::replay::Replay;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyDict;

#[pyclass(module = "ccsim._core", name = "TcpReplay", unsendable)]
pub struct TcpReplay {
    r: Replay,
}

#[pymethods]
impl TcpReplay {
    /// A sender of the flow `flow_json` (a `[[flows]]` entry as JSON).
    #[new]
    fn new(flow_json: &str) -> PyResult<Self> {
        let v: serde_json::Value =
            serde_json::from_str(flow_json).map_err(|e| PyValueError::new_err(format!("flow: not JSON: {e}")))?;
        Ok(TcpReplay { r: Replay::new(v).map_err(|e| PyValueError::new_err(e.to_string()))? })
    }

    fn handshake_rtt(&mut self, r_s: f64) {
        self.r.handshake_rtt(r_s)
    }

    fn advance(&mut self, t_s: f64) {
        self.r.advance(t_s)
    }

    /// Run the sender's next timer if due by `t_max_s`; whether one ran.
    fn step(&mut self, t_max_s: f64) -> bool {
        self.r.step(t_max_s)
    }

    fn write(&mut self, t_s: f64, segs: u64) {
        self.r.write(t_s, segs)
    }

    /// An ACK; `wnd`: the advertised window in segments (None: none; 0: a
    /// zero window).
    #[pyo3(signature = (t_s, ack, sack=Vec::new(), ece=false, wnd=None))]
    fn ack(&mut self, t_s: f64, ack: u64, sack: Vec<(u64, u64)>, ece: bool, wnd: Option<u32>) {
        self.r.ack(t_s, ack, &sack, ece, wnd)
    }

    /// The departures since the last call: (time s, segment,
    /// retransmission, zero-window probe).
    fn take_sent(&mut self) -> Vec<(f64, u64, bool, bool)> {
        self.r.take_sent()
    }

    /// `tcp_info` fields by their Linux names (`tcpi_snd_cwnd`, ...).
    fn info<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let i = self.r.info();
        let d = PyDict::new_bound(py);
        d.set_item("tcpi_snd_cwnd", i.snd_cwnd)?;
        d.set_item("tcpi_snd_ssthresh", i.snd_ssthresh)?;
        d.set_item("tcpi_ca_state", i.ca_state)?;
        d.set_item("tcpi_total_retrans", i.total_retrans)?;
        d.set_item("tcpi_retransmits", i.retransmits)?;
        d.set_item("tcpi_rto", i.rto_us)?;
        d.set_item("tcpi_rtt", i.rtt_us)?;
        d.set_item("tcpi_unacked", i.unacked)?;
        d.set_item("tcpi_sacked", i.sacked)?;
        d.set_item("tcpi_lost", i.lost)?;
        d.set_item("tcpi_retrans", i.retrans)?;
        if let Some((reordering, seen)) = i.reordering {
            d.set_item("tcpi_reordering", reordering)?;
            d.set_item("tcpi_reord_seen", seen)?;
        }
        Ok(d)
    }
}
