//! The snapshot's step window. A slim snapshot lists only the run's last N
//! steps (20 with the `standard` preset, 50 with `full`, none with
//! `minimal`), numbers them 1..N inside that window and states the run's
//! total in `step_count` (reference quirk 2). Reconciliation places window
//! step k at run step `step_count - N + k`; the streamed steps before the
//! window are outside it: the snapshot says nothing about them, so they are
//! neither compared nor changed, and never reported as differences.

use crate::json::{Map, Value};

use crate::json::obj;
use crate::session::gaps::LISTED;
use crate::session::view::Execution;

/// Where a streamed step stands against the snapshot's window.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Place {
    /// The snapshot lists it: compared, and its final fields win.
    Inside,
    /// Before the window: kept as streamed, not compared.
    Outside,
    /// Numbered past the run's last step per the snapshot (an `extra_step`).
    Beyond,
}

impl Place {
    /// The marker the reconciled view puts on each step (`snapshot_window`).
    pub fn as_str(self) -> &'static str {
        match self {
            Place::Inside => "inside",
            Place::Outside => "outside",
            Place::Beyond => "beyond",
        }
    }
}

/// Which of the run's steps a snapshot's step list covers.
#[derive(Clone, Debug, PartialEq)]
pub struct Window {
    /// The snapshot's `step_count`, when it states a whole number.
    pub step_count: Option<i64>,
    /// How many steps the snapshot lists.
    pub listed: usize,
    /// The run number of window step 1 (one past `last` when none is listed).
    pub first: i64,
    /// The run's last step according to the snapshot.
    pub last: i64,
    /// Streamed step numbers before the window, ascending.
    pub outside: Vec<i64>,
}

impl Window {
    /// Reads the window of `snap` against the streamed execution.
    ///
    /// The listed steps are placed by position, not by their `step_number`
    /// (which counts within the window). A snapshot that states fewer steps
    /// than it lists contradicts itself; its list is then read as the whole
    /// run (1..N). Without a `step_count` a listed window is read as the
    /// whole run too, and an empty one as saying nothing about steps: every
    /// streamed step is then outside it.
    pub fn of(snap: &Map, streamed: &Execution) -> Window {
        let listed = snap
            .get("steps")
            .and_then(Value::as_array)
            .map_or(0, Vec::len);
        let n = i64::try_from(listed).unwrap_or(i64::MAX);
        let step_count = snap.get("step_count").and_then(Value::as_i64);
        let last = match step_count {
            Some(count) => count.max(n),
            None if listed > 0 => n,
            None => streamed
                .steps
                .keys()
                .next_back()
                .copied()
                .unwrap_or(0)
                .max(0),
        };
        let first = last.saturating_sub(n).saturating_add(1);
        // Step maps are ascending: the ones before the window come first.
        let outside = streamed
            .steps
            .keys()
            .take_while(|k| **k < first)
            .copied()
            .collect();
        Window {
            step_count,
            listed,
            first,
            last,
            outside,
        }
    }

    /// The run step of the snapshot's `i`th listed step (0-based).
    pub fn run_step(&self, i: usize) -> i64 {
        self.first
            .saturating_add(i64::try_from(i).unwrap_or(i64::MAX))
            .min(self.last)
    }

    /// Where run step `n` stands.
    pub fn place(&self, n: i64) -> Place {
        if n > self.last {
            Place::Beyond
        } else if n >= self.first {
            Place::Inside
        } else {
            Place::Outside
        }
    }

    /// `{step_count, listed, first_step, last_step, outside_steps,
    /// outside_step_count}`; the step numbers are the run's own.
    pub fn to_value(&self) -> Value {
        let listed = self.listed > 0;
        let step = |n: i64| if listed { Value::from(n) } else { Value::Null };
        obj([
            (
                "step_count",
                self.step_count.map_or(Value::Null, Value::from),
            ),
            ("listed", Value::from(self.listed)),
            ("first_step", step(self.first)),
            ("last_step", step(self.last)),
            (
                "outside_steps",
                Value::Array(
                    self.outside
                        .iter()
                        .take(LISTED)
                        .map(|n| Value::from(*n))
                        .collect(),
                ),
            ),
            ("outside_step_count", Value::from(self.outside.len())),
        ])
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json;
    use crate::session::view::StepView;

    fn streamed(steps: &[i64]) -> Execution {
        let mut e = Execution::default();
        for n in steps {
            e.steps.insert(*n, StepView::new(*n));
        }
        e
    }

    fn window(snap: Value, steps: &[i64]) -> Window {
        Window::of(snap.as_object().unwrap(), &streamed(steps))
    }

    fn listing(n: usize) -> Value {
        Value::Array((1..=n).map(|k| json!({ "step_number": k })).collect())
    }

    #[test]
    fn window_step_k_is_run_step_count_minus_n_plus_k() {
        let w = window(json!({"step_count": 30, "steps": listing(20)}), &[1, 2, 30]);
        assert_eq!((w.first, w.last), (11, 30));
        assert_eq!((w.run_step(0), w.run_step(19)), (11, 30));
        assert_eq!(w.outside, [1, 2]);
        assert_eq!(w.place(10), Place::Outside);
        assert_eq!(w.place(11), Place::Inside);
        assert_eq!(w.place(31), Place::Beyond);
    }

    #[test]
    fn an_empty_listing_puts_every_counted_step_outside() {
        let w = window(json!({"step_count": 3, "steps": []}), &[1, 2, 3, 4]);
        assert_eq!(w.outside, [1, 2, 3]);
        assert_eq!(w.place(4), Place::Beyond);
        assert_eq!(w.to_value()["first_step"], Value::Null);
        assert_eq!(w.to_value()["outside_step_count"], 3);
    }

    #[test]
    fn a_snapshot_without_steps_or_count_says_nothing_about_steps() {
        let w = window(json!({"messages": []}), &[1, 2]);
        assert_eq!(w.outside, [1, 2]);
        assert_eq!(w.to_value()["step_count"], Value::Null);
    }

    #[test]
    fn a_count_below_the_listing_reads_the_listing_as_the_whole_run() {
        let w = window(json!({"step_count": 1, "steps": listing(3)}), &[1, 2, 3]);
        assert_eq!((w.first, w.last), (1, 3));
        assert!(w.outside.is_empty());
    }

    #[test]
    fn huge_counts_do_not_overflow() {
        let w = window(json!({"step_count": i64::MAX, "steps": listing(2)}), &[1]);
        assert_eq!(w.last, i64::MAX);
        assert_eq!(w.run_step(1), i64::MAX);
        assert_eq!(w.place(1), Place::Outside);
    }
}
