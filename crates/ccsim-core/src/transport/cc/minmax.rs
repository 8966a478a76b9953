//! Kathleen Nichols' windowed min/max filter (Linux `lib/win_minmax.c`),
//! as BBR keeps its bottleneck-bandwidth estimate: the best sample over a
//! sliding window of "time" (for BBR, packet-timed round trips), in O(1)
//! per update with three candidates: the best, the best since a quarter
//! of the window, and the best since half of it.

#[derive(Clone, Copy, Debug, Default, PartialEq)]
struct Sample {
    t: u64,
    v: f64,
}

/// A running maximum of `v` over the window `(t - win, t]`.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct WindowedMax {
    s: [Sample; 3],
}

impl WindowedMax {
    /// The current maximum (0 before any sample).
    pub fn get(&self) -> f64 {
        self.s[0].v
    }

    /// Forget everything; `v` at time `t` is the only candidate
    /// (`minmax_reset`).
    pub fn reset(&mut self, t: u64, v: f64) {
        self.s = [Sample { t, v }; 3];
    }

    /// Add sample `v` at time `t` for a window of `win`; the new maximum
    /// (`minmax_running_max`).
    pub fn update(&mut self, win: u64, t: u64, v: f64) -> f64 {
        let val = Sample { t, v };
        if v >= self.s[0].v || t.wrapping_sub(self.s[2].t) > win {
            // a new best, or nothing left in the window
            self.reset(t, v);
            return v;
        }
        if v >= self.s[1].v {
            self.s[2] = val;
            self.s[1] = val;
        } else if v >= self.s[2].v {
            self.s[2] = val;
        }
        self.subwin_update(win, val)
    }

    /// As the window passes its quarter and half marks, promote the
    /// later candidates (`minmax_subwin_update`).
    fn subwin_update(&mut self, win: u64, val: Sample) -> f64 {
        let dt = val.t.wrapping_sub(self.s[0].t);
        if dt > win {
            // The best left the window: the second and third take its
            // place, and the new sample becomes the third.
            self.s[0] = self.s[1];
            self.s[1] = self.s[2];
            self.s[2] = val;
            if val.t.wrapping_sub(self.s[0].t) > win {
                self.s[0] = self.s[1];
                self.s[1] = self.s[2];
                self.s[2] = val;
            }
        } else if self.s[1].t == self.s[0].t && dt > win / 4 {
            // A quarter of the window passed with no second choice: take
            // one from the second quarter.
            self.s[2] = val;
            self.s[1] = val;
        } else if self.s[2].t == self.s[1].t && dt > win / 2 {
            // Half the window passed with no third choice: take one from
            // the last half.
            self.s[2] = val;
        }
        self.s[0].v
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The filter against the definition: the maximum of the samples whose
    /// time is within the window, for samples arriving once per unit time
    /// (BBR's use: one or more per round, rounds counted up).
    #[test]
    fn equals_the_window_maximum_for_a_falling_sequence() {
        let mut f = WindowedMax::default();
        let win = 10;
        let vals: Vec<f64> = (0..60).map(|t| 100.0 - t as f64).collect();
        for (t, &v) in vals.iter().enumerate() {
            let got = f.update(win, t as u64, v);
            // a falling sequence keeps its oldest in-window sample as the max
            // for as long as the three-candidate scheme can: within the
            // window, and never below the newest sample
            let lo = t.saturating_sub(win as usize);
            let exact = vals[lo..=t].iter().cloned().fold(f64::MIN, f64::max);
            assert!(got <= exact && got >= v, "t {t}: {got} not in [{v}, {exact}]");
        }
    }

    #[test]
    fn a_higher_sample_is_kept_for_the_window_then_expires() {
        let mut f = WindowedMax::default();
        f.update(10, 0, 5.0);
        f.update(10, 1, 50.0);
        for t in 2..=11 {
            assert_eq!(f.update(10, t, 5.0), 50.0, "t {t}");
        }
        // 50 was taken at t = 1: at t = 12 it is older than the window
        assert_eq!(f.update(10, 12, 5.0), 5.0);
    }

    #[test]
    fn reset_forgets() {
        let mut f = WindowedMax::default();
        f.update(10, 0, 50.0);
        f.reset(3, 1.0);
        assert_eq!(f.get(), 1.0);
    }
}
