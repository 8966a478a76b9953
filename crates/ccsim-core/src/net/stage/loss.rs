//! Bernoulli (random, non-congestion) loss on a link direction: each
//! arriving packet is lost with probability `p`, before the queue, as an
//! ns-2 `ErrorModel` in front of the link's queue. The topology fields
//! `bottleneck_loss`, `link_loss`, `loss` and their reverse twins install
//! this stage.
use super::{DropReason, Stage, StageKind, Verdict};
use crate::net::ctx::LinkCtx;
use crate::net::packet::Packet;
use crate::scenario::params::ParamDoc;
use crate::scenario::params::Params;
use crate::sim::rng::Stream;
use rand::Rng as _;
use std::any::Any;

pub const KIND: StageKind = StageKind {
    name: "random_loss",
    doc: "Bernoulli loss of arriving packets with probability p (ns-2 ErrorModel before the queue)",
    params: || vec![ParamDoc { name: "p", default: 0.0.into(), doc: "loss probability in [0, 1)" }],
    build: |m, path| {
        let mut p = Params::new(m, path);
        let prob = p.f64_in("p", 0.0, 0.0, 1.0 - f64::EPSILON)?;
        p.finish()?;
        Ok(Box::new(RandomLoss { p: prob }))
    },
};

pub struct RandomLoss {
    /// Loss probability; may be changed during a run (tests do).
    pub p: f64,
}

impl Stage for RandomLoss {
    fn name(&self) -> &'static str {
        "random_loss"
    }

    fn acts_on_dequeue(&self) -> bool {
        false
    }

    /// The stream ccsim has always used for link loss, so results keep
    /// their draws.
    fn stream(&self) -> Stream {
        Stream::LinkLoss
    }

    fn on_enqueue(&mut self, ctx: &mut LinkCtx, _pkt: &mut Packet) -> Verdict {
        if ctx.rng.gen::<f64>() < self.p {
            Verdict::Drop(DropReason::Random)
        } else {
            Verdict::Pass
        }
    }

    fn as_any_mut(&mut self) -> &mut dyn Any {
        self
    }
}
