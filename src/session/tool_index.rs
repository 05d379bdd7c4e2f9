//! A step's tool runs found by call id. Pairing a tool event with its run
//! scanned every run of the step, so a stream of results for distinct calls
//! (AG-UI `TOOL_CALL_RESULT`s whose start never came: 20,000 took 4.4 s)
//! cost the square of their number. The index lists each call id's runs,
//! and the runs that had no call id when made (the only ones an event with
//! a call id may pair with besides its own: see `run_for` in
//! src/session/apply.rs); a run that learns its id later stays listed there,
//! where the pairing rule still reads its id.

use std::collections::BTreeMap;

use crate::session::view::ToolRun;

/// A step's runs by call id (see the module documentation).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ToolIndex {
    /// Each call id's list in `lists` (a map of `String` to `u64`, the
    /// session's other maps' type: one more key or value type is one more
    /// copy of the tree's code in the wasm).
    by_call: BTreeMap<String, u64>,
    /// Run places by call id, in order.
    lists: Vec<Vec<usize>>,
    /// Places of the runs made without a call id, in order.
    without: Vec<usize>,
    /// How many runs the index covers: when the step's list differs (it was
    /// rebuilt), the index is made again from it.
    covered: usize,
}

impl ToolIndex {
    /// Brings the index in line with `tools` (made again when they were
    /// replaced since).
    pub(crate) fn sync(&mut self, tools: &[ToolRun]) {
        if self.covered == tools.len() {
            return;
        }
        *self = ToolIndex::default();
        for (i, t) in tools.iter().enumerate() {
            self.add(i, t.call_id.as_deref());
        }
    }

    /// Notes the run at `i`, made with `call_id`.
    pub(crate) fn add(&mut self, i: usize, call_id: Option<&str>) {
        match call_id {
            Some(id) => self.list_mut(id).push(i),
            None => self.without.push(i),
        }
        self.covered = self.covered.max(i + 1);
    }

    /// Notes that the run at `i` now has `call_id` (it had none).
    pub(crate) fn named(&mut self, i: usize, call_id: &str) {
        let list = self.list_mut(call_id);
        if !list.contains(&i) {
            let at = list.partition_point(|&j| j < i);
            list.insert(at, i);
        }
    }

    /// The places an event with `call_id` may pair with, in order: the runs
    /// with that id and the runs made without one. An event without a call
    /// id may pair with any run of its name (a seed-003 completion names
    /// its call only inside `tool_result`): every run.
    pub(crate) fn candidates(&self, call_id: Option<&str>) -> Vec<usize> {
        let Some(id) = call_id else {
            return (0..self.covered).collect();
        };
        let own = self
            .by_call
            .get(id)
            .and_then(|&l| self.lists.get(usize::try_from(l).ok()?))
            .map_or(&[][..], Vec::as_slice);
        merged(own, &self.without)
    }

    /// The list of `call_id`, made empty when new.
    fn list_mut(&mut self, call_id: &str) -> &mut Vec<usize> {
        let lists = &mut self.lists;
        let l = *self.by_call.entry(call_id.to_string()).or_insert_with(|| {
            lists.push(Vec::new());
            (lists.len() - 1) as u64
        });
        let at = usize::try_from(l)
            .unwrap_or(usize::MAX)
            .min(lists.len() - 1);
        #[expect(
            clippy::indexing_slicing,
            reason = "`at` is below the length, which is at least one"
        )]
        &mut lists[at]
    }
}

/// Two ascending lists as one, each place once (a run named later is in both).
fn merged(a: &[usize], b: &[usize]) -> Vec<usize> {
    let mut out = Vec::with_capacity(a.len() + b.len());
    let (mut i, mut j) = (0, 0);
    while let (Some(&x), Some(&y)) = (a.get(i), b.get(j)) {
        out.push(x.min(y));
        i += usize::from(x <= y);
        j += usize::from(y <= x);
    }
    out.extend(a.iter().skip(i));
    out.extend(b.iter().skip(j));
    out
}
