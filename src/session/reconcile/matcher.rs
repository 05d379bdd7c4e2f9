//! The one matcher every source's comparison uses: which streamed tool run
//! each final tool call is, and whether a streamed text agrees with a final
//! one. What differs between the sources is said by the [`Rule`] and the
//! [`Extent`] they pass, not by matchers of their own.

use crate::json::Value;
use crate::session::view::{StepView, ToolRun};

/// A streamed tool run as the matcher sees it: the run step it was streamed
/// in and its place among that step's runs.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Streamed<'a> {
    pub(crate) step: i64,
    pub(crate) index: usize,
    pub(crate) run: &'a ToolRun,
}

/// The streamed tool runs of `s`, in arrival order.
pub(crate) fn step_runs(s: &StepView) -> impl Iterator<Item = Streamed<'_>> {
    s.tools.iter().enumerate().map(|(index, run)| Streamed {
        step: s.number,
        index,
        run,
    })
}

/// A final tool call as the matcher sees it.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Call<'a> {
    /// The run step the final state places it in (`None`: the form does not say).
    pub(crate) step: Option<i64>,
    pub(crate) name: &'a str,
    pub(crate) id: Option<&'a str>,
}

/// How a source's calls are matched with streamed runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Rule {
    /// A slim snapshot: the first unmatched run of the call's step with the
    /// call's name whose id, when the run has one, is the call's (the v1.22
    /// stream carries no call ids).
    NameInStep,
    /// A foreign final form: the run with the call's id wherever it was
    /// streamed (a name that differs is then a `field_mismatch`), else the
    /// first unmatched run without an id that has the call's name, in the
    /// call's step when the form knows it.
    IdThenName,
}

/// Which streamed run each call is.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Matching {
    /// Per call, in the calls' order: the index of its run in the runs matched.
    pub(crate) calls: Vec<Option<usize>>,
    /// The indices of the runs no call matched, ascending.
    pub(crate) unmatched: Vec<usize>,
}

/// Matches `calls`, in their order, with `runs` by `rule`; a run matched by
/// one call is not matched by name again.
pub(crate) fn match_tools(runs: &[Streamed<'_>], calls: &[Call<'_>], rule: Rule) -> Matching {
    let mut taken = vec![false; runs.len()];
    let free = |taken: &[bool], j: usize| !taken.get(j).copied().unwrap_or(true);
    let in_step = |r: &Streamed<'_>, c: &Call<'_>| c.step.is_none_or(|k| r.step == k);
    let mut out = Vec::with_capacity(calls.len());
    for c in calls {
        let hit = match rule {
            Rule::NameInStep => runs.iter().enumerate().position(|(j, r)| {
                free(&taken, j)
                    && in_step(r, c)
                    && r.run.name == c.name
                    && (r.run.call_id.is_none() || r.run.call_id.as_deref() == c.id)
            }),
            Rule::IdThenName => {
                c.id.and_then(|id| {
                    runs.iter()
                        .position(|r| r.run.call_id.as_deref() == Some(id))
                })
                .or_else(|| {
                    runs.iter().enumerate().position(|(j, r)| {
                        r.run.call_id.is_none()
                            && r.run.name == c.name
                            && in_step(r, c)
                            && free(&taken, j)
                    })
                })
            }
        };
        if let Some(t) = hit.and_then(|j| taken.get_mut(j)) {
            *t = true;
        }
        out.push(hit);
    }
    Matching {
        calls: out,
        unmatched: (0..runs.len()).filter(|j| free(&taken, *j)).collect(),
    }
}

/// What of the stream a final text holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Extent {
    /// All of it (a foreign form's step or run). `truncated`: the session's
    /// text limit cut the stream, so the kept text need only start the final one.
    Whole { truncated: bool },
    /// Its end (a slim snapshot's last assistant message: v1.22 chunks carry
    /// no step number, so the text runs on across steps, while the message
    /// holds only the answer), which the snapshot may have cut to its content
    /// limit (`...` suffix). `dropped`: the bytes the session's text limit
    /// dropped from the end of the stream.
    End { dropped: u64 },
}

/// Whether `streamed` agrees with `fin`, which holds `extent` of it.
pub(crate) fn text_agrees(streamed: &str, fin: &str, extent: Extent) -> bool {
    match extent {
        Extent::Whole { truncated } => streamed == fin || (truncated && fin.starts_with(streamed)),
        Extent::End { dropped } if dropped > 0 => agrees_within_kept(streamed, dropped, fin),
        Extent::End { .. } => {
            streamed == fin
                || (!fin.is_empty() && streamed.ends_with(fin))
                || fin.strip_suffix("...").is_some_and(|cut| {
                    streamed
                        .rfind(cut)
                        .is_some_and(|at| streamed.len() > at + cut.len())
                })
        }
    }
}

/// Whether `content`, the end of a stream of which `kept` is the start and
/// `dropped` bytes followed, agrees with `kept` where they overlap. A
/// message the snapshot cut (`...`) could sit anywhere, so it always can.
fn agrees_within_kept(kept: &str, dropped: u64, content: &str) -> bool {
    if content.ends_with("...") {
        return true;
    }
    let whole = kept.len() as u64 + dropped;
    let Some(start) = whole.checked_sub(content.len() as u64) else {
        return false;
    };
    match usize::try_from(start).ok().and_then(|s| kept.get(s..)) {
        Some(overlap) => content.starts_with(overlap),
        // It starts past the kept text (or inside a character: no match).
        None => start >= kept.len() as u64,
    }
}

/// Equal as JSON, reading a string that is JSON text as the value it
/// encodes: AG-UI keeps arguments and results as JSON text
/// (`function.arguments`, a tool message's `content`) where a stream or
/// another form may carry the value itself.
pub(crate) fn same_json(a: &Value, b: &Value) -> bool {
    a == b || decoded(a) == decoded(b)
}

fn decoded(v: &Value) -> Value {
    match v {
        Value::String(s) => {
            crate::json::parse(s, &crate::json::Limits::default()).unwrap_or_else(|_| v.clone())
        }
        other => other.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(name: &str, id: Option<&str>) -> ToolRun {
        ToolRun {
            name: name.into(),
            call_id: id.map(String::from),
            ..ToolRun::default()
        }
    }

    fn streamed<'a>(runs: &'a [(i64, ToolRun)]) -> Vec<Streamed<'a>> {
        runs.iter()
            .enumerate()
            .map(|(index, (step, run))| Streamed {
                step: *step,
                index,
                run,
            })
            .collect()
    }

    fn call<'a>(step: Option<i64>, name: &'a str, id: Option<&'a str>) -> Call<'a> {
        Call { step, name, id }
    }

    #[test]
    fn a_snapshot_call_needs_its_name_even_when_the_ids_agree() {
        let runs = [(1, run("search", Some("c1"))), (1, run("fetch", None))];
        let m = match_tools(
            &streamed(&runs),
            &[
                call(None, "lookup", Some("c1")),
                call(None, "fetch", Some("c9")),
            ],
            Rule::NameInStep,
        );
        assert_eq!(m.calls, [None, Some(1)]);
        assert_eq!(m.unmatched, [0]);
    }

    #[test]
    fn a_form_call_matches_its_id_in_any_step_then_an_id_less_run_by_name_in_its_step() {
        let runs = [
            (1, run("search", None)),
            (2, run("search", None)),
            (3, run("other", Some("c1"))),
        ];
        let calls = [
            call(Some(2), "search", Some("x")),
            call(Some(1), "renamed", Some("c1")),
            call(Some(2), "search", Some("y")),
        ];
        let m = match_tools(&streamed(&runs), &calls, Rule::IdThenName);
        // The second `search` of step 2 finds no free run there.
        assert_eq!(m.calls, [Some(1), Some(2), None]);
        assert_eq!(m.unmatched, [0]);
    }

    #[test]
    fn a_snapshot_message_is_the_end_of_the_stream_or_its_cut_start() {
        let end = Extent::End { dropped: 0 };
        assert!(text_agrees("Let me check. It is 21C.", "It is 21C.", end));
        assert!(text_agrees("Let me check. It is 21C.", "It is...", end));
        assert!(!text_agrees("It is 21C.", "It is 22C.", end));
        // The limit dropped the last 4 bytes: the message overlaps the kept text.
        assert!(text_agrees(
            "Let me check. It is",
            "It is 21C",
            Extent::End { dropped: 4 }
        ));
        assert!(!text_agrees(
            "Let me check. It was",
            "It is 21C",
            Extent::End { dropped: 4 }
        ));
    }

    #[test]
    fn a_form_text_is_the_whole_stream_or_starts_with_what_the_limit_kept() {
        let whole = Extent::Whole { truncated: false };
        assert!(text_agrees("answer", "answer", whole));
        assert!(!text_agrees("ans", "answer", whole));
        assert!(text_agrees(
            "ans",
            "answer",
            Extent::Whole { truncated: true }
        ));
        assert!(!text_agrees("Let me check. answer", "answer", whole));
    }
}
