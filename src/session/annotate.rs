//! Seed-003 annotations carried by live events: the `annotations` of a
//! payload's `step` object (`AgentStep.annotations`: safety notes,
//! citations, extras) and an event's own `annotations`. Both are merged into
//! the step the event belongs to, each safety note and citation once, so a
//! step completed and then failed, or an event delivered again after
//! another, does not list a note twice. Extras merge by key (a later event's
//! value for a key replaces an earlier one).
//!
//! An event's own `annotations` is free-form in seed 003 (request metadata,
//! the provider's `raw_event`): only its `safety`, `citations` and `extra`
//! reach the view; the rest stays in the session's log (and so in a
//! recording). The decoder has already refused malformed ones (a verdict
//! other than allow/review/block, a citation without a label), with a path.
//!
//! ```
//! use stepline::session::Session;
//! let mut s = Session::new(None);
//! s.ingest_text(r#"{"event_type":"agent.llm.completed","step_index":1,"step_id":"s1",
//!   "step":{"annotations":{"safety":[{"verdict":"review","category":"pii"}],"citations":[{"label":"docs","url":"https://example.com"}]}}}"#).unwrap();
//! let step = &s.view()["executions"][0]["steps"][0];
//! assert_eq!(step["annotations"]["safety"][0]["verdict"], "review");
//! assert_eq!(s.collect().turns[0].annotations.unwrap().citations[0].label, "docs");
//! ```

use crate::json::fingerprint::{Fingerprint, Fingerprinter};
use crate::json::Value;
use crate::model::annotations::{Annotations, Citation};
use crate::session::view::{Execution, StepView};

/// Merges an event's annotations into step `n`; whether there were any.
pub fn absorb(exec: &mut Execution, n: i64, annotations: Vec<Annotations>) -> bool {
    if annotations.is_empty() {
        return false;
    }
    let step = step_mut(exec, n);
    for a in annotations {
        merge(&mut step.annotations, &mut step.citation_index, a);
    }
    true
}

/// The citations a step holds, by fingerprint: the AI SDK sends a
/// `source-url` chunk per source, and finding whether each was listed by a
/// scan of the list cost the square of their number. Two citations are one
/// when their fingerprints are, as two envelopes are (src/session/dedup.rs).
pub type CitationIndex = crate::session::dedup::Seen;

fn citation_key(c: &Citation) -> Fingerprint {
    let mut f = Fingerprinter::new();
    f.str(&c.label);
    f.value(&c.url.as_deref().map_or(Value::Null, Value::from));
    f.value(c.provider_ref.as_ref().unwrap_or(&Value::Null));
    f.finish()
}

fn merge(into: &mut Annotations, index: &mut CitationIndex, from: Annotations) {
    for note in from.safety {
        if !into.safety.contains(&note) {
            into.safety.push(note);
        }
    }
    if index.len() != into.citations.len() {
        // Built on first use (or after the list was set another way).
        *index = CitationIndex::default();
        for c in &into.citations {
            index.insert(citation_key(c));
        }
    }
    for c in from.citations {
        if index.insert(citation_key(&c)) {
            into.citations.push(c);
        }
    }
    for (k, v) in from.extra {
        into.extra.insert(k, v);
    }
}

fn step_mut(exec: &mut Execution, n: i64) -> &mut StepView {
    if !exec.steps.contains_key(&n) {
        exec.step_gaps.arrived(n, 1);
    }
    exec.steps
        .entry(n)
        .or_insert_with(|| Box::new(StepView::new(n)))
}
