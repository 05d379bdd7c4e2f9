//! The snapshot's step window. A slim snapshot lists only the run's last N
//! steps (20 with the `standard` preset, 50 with `full`, none with
//! `minimal`), numbers them 1..N inside that window and states the run's
//! total in `step_count` (v1.22 quirk 2). Reconciliation places window
//! step k at run step `step_count - N + k`; the streamed steps before the
//! window are outside it: the snapshot says nothing about them, so they are
//! neither compared nor changed, and never reported as differences.

use crate::json::{Map, Value};

use crate::session::gaps::LISTED;
use crate::session::view::Execution;

/// Where a step of `reconcile()`'s view stands against the snapshot's
/// window: `inside` (listed; its final fields won), `outside` (before the
/// window; as streamed, not compared) or `beyond` (numbered past the
/// snapshot's `step_count`: an `extra_step` difference).
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "schema", schemars(rename = "SnapshotWindowPlace"))]
#[serde(rename_all = "snake_case")]
pub enum Place {
    /// The snapshot lists it: compared, and its final fields win.
    Inside,
    /// Before the window: kept as streamed, not compared.
    Outside,
    /// Numbered past the run's last step per the snapshot (an `extra_step`).
    Beyond,
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

    /// What the report says of the window; the step numbers are the run's own.
    pub fn view(&self) -> SnapshotWindow<'_> {
        let listed = self.listed > 0;
        SnapshotWindow {
            step_count: self.step_count,
            listed: self.listed,
            first_step: listed.then_some(self.first),
            last_step: listed.then_some(self.last),
            outside_steps: self.outside.get(..LISTED).unwrap_or(&self.outside),
            outside_step_count: self.outside.len(),
        }
    }

    /// [`Window::view`] as a value (for tests).
    pub fn to_value(&self) -> Value {
        crate::json::to_value_of(&self.view())
    }
}

/// Which of the run's steps a slim snapshot's step list covers. A snapshot
/// lists only the run's last N steps (20 with the `standard` preset, 50 with
/// `full`, none with `minimal`), numbered 1..N inside the window, and counts
/// all of them in `step_count`: window step k is run step
/// `step_count - N + k`. Streamed steps before the window are outside it:
/// the snapshot says nothing about them, so they are kept as streamed and
/// are never differences.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct SnapshotWindow<'a> {
    /// The snapshot's `step_count` (the run's total), or `null` when it states none.
    pub step_count: Option<i64>,
    /// How many steps the snapshot lists.
    pub listed: usize,
    /// Run number of the first listed step; `null` when it lists none.
    pub first_step: Option<i64>,
    /// Run number of the last listed step; `null` when it lists none.
    pub last_step: Option<i64>,
    /// Streamed steps before the window (the first 1,000); `outside_step_count` counts all.
    pub outside_steps: &'a [i64],
    /// How many streamed steps are before the window.
    pub outside_step_count: usize,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json;
    use crate::session::view::StepView;

    fn streamed(steps: &[i64]) -> Execution {
        let mut e = Execution::default();
        for n in steps {
            e.steps.insert(*n, Box::new(StepView::new(*n)));
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
