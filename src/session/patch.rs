//! Change lists for cheap reads: after each ingest the JS side asks for what
//! changed since its last read and rebuilds only those parts of its
//! immutable snapshot, so unchanged steps stay the same JS objects.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::{Map, Value};

use crate::session::apply::Touched;
use crate::session::Session;

/// What changed since the last patch, per execution position.
#[derive(Clone, Debug, Default)]
pub struct Dirty {
    pub header: bool,
    /// Executions added since the last patch (sent whole).
    added: BTreeSet<usize>,
    execs: BTreeMap<usize, ExecDirty>,
    /// Warnings already sent.
    warnings_sent: usize,
    /// Per execution, how much of the text was already sent.
    text_sent: Vec<usize>,
}

#[derive(Clone, Debug, Default)]
struct ExecDirty {
    steps: BTreeSet<i64>,
    text: bool,
    text_replaced: bool,
}

impl Dirty {
    pub fn execution_added(&mut self, pos: usize) {
        self.added.insert(pos);
        self.header = true;
    }

    pub fn touch(&mut self, pos: usize, t: Touched) {
        self.header = true;
        let e = self.execs.entry(pos).or_default();
        match t {
            Touched::Header => {}
            Touched::Step(n) => {
                e.steps.insert(n);
            }
            Touched::Text { replaced } => {
                e.text = true;
                e.text_replaced |= replaced;
            }
        }
    }
}

impl Session {
    /// The changes since the previous call, then forgets them:
    /// `{session, warnings_added, executions: [{index, whole?} | {index, header, steps, text}]}`.
    /// `session` is the top-level header (always small); an execution is
    /// either `whole` (new) or its header plus changed steps (`[step]`, in
    /// step order, each to be placed by `number`) and its text as
    /// `{append}` or `{replace}`.
    pub fn take_patch(&mut self) -> Value {
        let mut dirty = std::mem::take(&mut self.dirty);
        let mut out = Map::new();
        out.insert("session".into(), self.header_value());
        let new_warnings = self.warnings.get(dirty.warnings_sent..).unwrap_or(&[]);
        out.insert("warnings_added".into(), Value::Array(new_warnings.to_vec()));
        dirty.warnings_sent = self.warnings.len();
        dirty.text_sent.resize(self.executions.len(), 0);
        let mut execs = Vec::new();
        let positions: BTreeSet<usize> = dirty
            .added
            .iter()
            .chain(dirty.execs.keys())
            .copied()
            .collect();
        for pos in positions {
            let Some(exec) = self.executions.get(pos) else {
                continue;
            };
            let mut m = Map::new();
            m.insert("index".into(), Value::from(pos));
            if dirty.added.contains(&pos) {
                m.insert("whole".into(), exec.to_value());
            } else {
                let d = dirty.execs.get(&pos).cloned().unwrap_or_default();
                m.insert("header".into(), exec.header_value());
                let steps = d
                    .steps
                    .iter()
                    .filter_map(|n| exec.steps.get(n))
                    .map(|s| s.to_value())
                    .collect();
                m.insert("steps".into(), Value::Array(steps));
                let sent = dirty.text_sent[pos];
                if d.text || exec.text.len() != sent {
                    let text = match exec.text.get(sent..) {
                        Some(tail) if !d.text_replaced => ("append", tail),
                        _ => ("replace", exec.text.as_str()),
                    };
                    m.insert(
                        "text".into(),
                        crate::json::obj([(text.0, Value::from(text.1))]),
                    );
                }
            }
            dirty.text_sent[pos] = exec.text.len();
            execs.push(Value::Object(m));
        }
        out.insert("executions".into(), Value::Array(execs));
        self.dirty = Dirty {
            warnings_sent: dirty.warnings_sent,
            text_sent: dirty.text_sent,
            ..Dirty::default()
        };
        Value::Object(out)
    }
}
