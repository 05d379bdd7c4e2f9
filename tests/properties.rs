//! Property tests (proptest): delivery order and redelivery do not change a
//! session's view, the encoder's envelopes decode back to themselves, slim
//! snapshots are stable through restore, and every truncation stays valid
//! UTF-8 within its byte limit.
//!
//! Case counts are kept small so the file runs in seconds in a debug build;
//! failures are not persisted (no files are written next to the tests).

#![cfg(not(target_arch = "wasm32"))]

use proptest::prelude::*;
use proptest::test_runner::Config;
use stepline::envelope::cap::encoded_len;
use stepline::envelope::decode::{decode_text, decode_value};
use stepline::envelope::{BroadcastConfig, Encoder};
use stepline::json;
use stepline::json::Value;
use stepline::model::AgentState;
use stepline::session::Session;
use stepline::snapshot::restore::restore;
use stepline::snapshot::serialize::slim_state;
use stepline::snapshot::truncate::truncate;
use stepline::snapshot::SlimConfig;
use stepline::state_formats::validate_snapshot as validate;

mod common;
use common::{session_of, shuffle_within_steps, vectors, view_of, Corpus::V1_22};

fn config(cases: u32) -> Config {
    Config {
        cases,
        failure_persistence: None,
        ..Config::default()
    }
}

/// The first turn of every recorded reference run.
fn recorded_turns() -> &'static [Vec<Value>] {
    static TURNS: std::sync::OnceLock<Vec<Vec<Value>>> = std::sync::OnceLock::new();
    TURNS.get_or_init(|| {
        vectors("agent-runs.json")
            .iter()
            .map(|case| {
                case["expected"][0]["envelopes"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|e| e["envelope"].clone())
                    .collect()
            })
            .collect()
    })
}

fn kind(e: &Value) -> &str {
    e["type"].as_str().unwrap_or_default()
}

/// [`shuffle_within_steps`] driven by `picks`.
fn shuffled_by(events: &[Value], picks: &[usize]) -> Vec<Value> {
    let mut pick = picks.iter().cycle().copied();
    shuffle_within_steps(events, |n| pick.next().unwrap_or(0) % n.max(1))
}

// ---- generated runs, through the encoder ------------------------------------

/// One step of a generated run: streamed text pieces, its tools (distinct
/// names: two same-named calls in one step are indistinguishable on this
/// wire) with success, and its usage.
#[derive(Clone, Debug)]
struct GenStep {
    chunks: Vec<String>,
    tools: Vec<bool>,
    usage: (u32, u32),
}

fn gen_step() -> impl Strategy<Value = GenStep> {
    (
        prop::collection::vec("[a-zé🚀 ]{1,6}", 0..4),
        prop::collection::vec(any::<bool>(), 0..3),
        (0u32..500, 0u32..100),
    )
        .prop_map(|(chunks, tools, usage)| GenStep {
            chunks,
            tools,
            usage,
        })
}

fn outcome(stop: bool) -> Value {
    json!({
        "decision": if stop { "stop" } else { "continue" },
        "shouldContinue": !stop,
        "resolvedBy": "aggregate",
        "stopReason": if stop { Value::from("completed") } else { Value::Null },
        "evaluations": [{
            "criterion": "Cognesy\\Addons\\StepByStep\\Continuation\\Criteria\\StepsLimit",
            "decision": "allow", "reason": "Steps under limit", "stopReason": null, "context": []
        }]
    })
}

/// Envelopes of a run with these steps, as the encoder (debug preset) sends
/// them under the reference's frozen clock.
fn encoded_run(steps: &[GenStep]) -> Vec<Value> {
    encoded_run_with(steps, false)
}

/// Envelopes of a run with these steps, each event 7 ms after the one
/// before (a real clock: every timestamp distinct and increasing).
fn timed_run(steps: &[GenStep]) -> Vec<Value> {
    encoded_run_with(steps, true)
}

fn encoded_run_with(steps: &[GenStep], ticking: bool) -> Vec<Value> {
    let start = V1_22.now();
    let mut tick = 0i64;
    let mut enc = Encoder::new("sess-p", "exec-p", BroadcastConfig::debug());
    let mut out = Vec::new();
    let mut push = |enc: &mut Encoder, event: &str, args: Value| {
        let now = start + chrono::Duration::milliseconds(tick);
        if ticking {
            tick += 7;
        }
        for b in enc.push(event, &args, &now).unwrap() {
            out.push(b.envelope);
        }
    };
    for (i, s) in steps.iter().enumerate() {
        let n = i + 1;
        push(
            &mut enc,
            "AgentStepStarted",
            json!({"stepNumber": n, "messageCount": n, "availableTools": 2}),
        );
        for c in &s.chunks {
            push(&mut enc, "StreamEventReceived", json!({ "content": c }));
        }
        for (t, ok) in s.tools.iter().enumerate() {
            let tool = format!("tool{t}");
            push(
                &mut enc,
                "ToolCallStarted",
                json!({"tool": tool, "args": {"q": n}}),
            );
            push(
                &mut enc,
                "ToolCallCompleted",
                json!({"tool": tool, "success": ok, "error": if *ok { Value::Null } else { Value::from("boom") },
                       "startedAt": "2026-01-20T12:00:00Z", "endedAt": "2026-01-20T12:00:00.125Z"}),
            );
        }
        push(
            &mut enc,
            "AgentStepCompleted",
            json!({"stepNumber": n, "hasToolCalls": !s.tools.is_empty(), "errorCount": 0,
                   "finishReason": if s.tools.is_empty() { "stop" } else { "tool_calls" },
                   "usage": {"input": s.usage.0, "output": s.usage.1, "cacheWrite": 0, "cacheRead": 0, "reasoning": 0},
                   "durationMs": 12.5}),
        );
        let last = i + 1 == steps.len();
        push(
            &mut enc,
            "ContinuationEvaluated",
            json!({"stepNumber": n, "outcome": outcome(last)}),
        );
    }
    out
}

proptest! {
    #![proptest_config(config(128))]

    /// Order independence on the reference's own runs.
    #[test]
    fn recorded_runs_shuffled_within_steps_give_the_in_order_view(
        run in 0usize..10,
        picks in prop::collection::vec(any::<usize>(), 1..64),
    ) {
        let turns = recorded_turns();
        let events = &turns[run % turns.len()];
        let clean = session_of(events);
        let shuffled = session_of(&shuffled_by(events, &picks));
        prop_assert_eq!(view_of(&shuffled), view_of(&clean));
    }

    /// Order independence on generated runs (any number of steps, chunks and tools).
    #[test]
    fn generated_runs_shuffled_within_steps_give_the_in_order_view(
        steps in prop::collection::vec(gen_step(), 1..5),
        picks in prop::collection::vec(any::<usize>(), 1..64),
    ) {
        let events = encoded_run(&steps);
        let clean = session_of(&events);
        let shuffled = session_of(&shuffled_by(&events, &picks));
        prop_assert_eq!(view_of(&shuffled), view_of(&clean));
        prop_assert_eq!(clean.counts().applied as usize, events.len());
    }

    /// Idempotence: any subset delivered twice changes nothing but the
    /// duplicate counter. Tool events are redelivered within their step
    /// (right after themselves), the others anywhere later.
    #[test]
    fn redelivering_any_subset_changes_nothing_but_the_duplicate_counter(
        generated in prop::option::of(prop::collection::vec(gen_step(), 1..4)),
        run in 0usize..10,
        subset in prop::collection::vec(any::<bool>(), 0..48),
        picks in prop::collection::vec(any::<usize>(), 1..48),
    ) {
        let events = match &generated {
            Some(steps) => encoded_run(steps),
            None => recorded_turns()[run % 10].clone(),
        };
        let clean = session_of(&events);
        let mut slots: Vec<Vec<Value>> = events.iter().map(|e| vec![e.clone()]).collect();
        let mut pick = picks.iter().cycle();
        let mut redelivered = 0;
        for (i, e) in events.iter().enumerate() {
            if !subset.get(i).copied().unwrap_or(false) {
                continue;
            }
            let at = if kind(e).starts_with("agent.tool.") {
                i
            } else {
                i + pick.next().unwrap() % (events.len() - i)
            };
            slots[at].push(e.clone());
            redelivered += 1;
        }
        let noisy = session_of(&slots.concat());
        prop_assert_eq!(view_of(&noisy), view_of(&clean));
        prop_assert_eq!(noisy.counts().duplicates, redelivered);
        prop_assert_eq!(noisy.counts().applied, clean.counts().applied);
    }
}

// ---- replays, merges and reordering across steps ----------------------------

/// Every turn of every recorded reference run, as one delivery each.
fn recorded_runs() -> &'static [Vec<Value>] {
    static RUNS: std::sync::OnceLock<Vec<Vec<Value>>> = std::sync::OnceLock::new();
    RUNS.get_or_init(|| {
        vectors("agent-runs.json")
            .iter()
            .map(|case| {
                case["expected"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .flat_map(|turn| turn["envelopes"].as_array().unwrap().iter())
                    .map(|e| e["envelope"].clone())
                    .collect()
            })
            .collect()
    })
}

/// A generated step with up to three tool calls of two names (so one step
/// may call the same tool twice: on a real clock the timestamps pair them).
fn gen_timed_step() -> impl Strategy<Value = GenStep> {
    (
        prop::collection::vec("[a-z ]{1,6}", 0..3),
        prop::collection::vec(any::<bool>(), 0..4),
        (0u32..500, 0u32..100),
    )
        .prop_map(|(chunks, tools, usage)| GenStep {
            chunks,
            tools,
            usage,
        })
}

/// Generated runs: two names per step on a real clock (see [`gen_timed_step`]).
fn timed_named_run(steps: &[GenStep]) -> Vec<Value> {
    let mut events = timed_run(steps);
    // Tools are named tool0, tool1, tool2: fold them onto two names.
    for e in &mut events {
        if let Some(name) = e["payload"]["tool_name"].as_str() {
            let folded = if name == "tool2" { "tool0" } else { name };
            *e.pointer_entry("/payload/tool_name").unwrap() = Value::from(folded);
        }
    }
    events
}

fn executions(s: &Session) -> Value {
    s.view()["executions"].clone()
}

fn jsonl(events: &[Value]) -> String {
    events.iter().map(|e| format!("{e}\n")).collect()
}

/// `events` in windows of `window`, each window in any order (so events
/// cross step boundaries in both directions).
fn shuffle_windows(events: &[Value], window: usize, picks: &[usize]) -> Vec<Value> {
    let mut pick = picks.iter().cycle().copied();
    let mut out = Vec::new();
    for w in events.chunks(window.max(1)) {
        let mut w = w.to_vec();
        for i in (1..w.len()).rev() {
            w.swap(i, pick.next().unwrap_or(0) % (i + 1));
        }
        out.extend(w);
    }
    out
}

/// A subset of `seen` (by `bits`) in an order drawn from `picks`.
fn replay_of(seen: &[Value], bits: &[bool], picks: &mut impl Iterator<Item = usize>) -> Vec<Value> {
    let mut out: Vec<Value> = seen
        .iter()
        .enumerate()
        .filter(|(i, _)| bits.get(i % bits.len().max(1)).copied().unwrap_or(true) ^ (i % 3 == 0))
        .map(|(_, e)| e.clone())
        .collect();
    for i in (1..out.len()).rev() {
        out.swap(i, picks.next().unwrap_or(0) % (i + 1));
    }
    out
}

/// Which run a case draws: a recorded reference run (frozen clock, all its
/// turns), a generated frozen-clock run, or a generated 100-step run on a
/// real clock.
#[derive(Clone, Debug)]
enum RunSource {
    Recorded(usize),
    Frozen(Vec<GenStep>),
    Timed(Vec<GenStep>),
}

fn run_source() -> impl Strategy<Value = RunSource> {
    prop_oneof![
        (0usize..10).prop_map(RunSource::Recorded),
        prop::collection::vec(gen_step(), 1..6).prop_map(RunSource::Frozen),
        prop::collection::vec(gen_timed_step(), 100..=100).prop_map(RunSource::Timed),
    ]
}

fn events_of(source: &RunSource) -> (Vec<Value>, bool) {
    match source {
        RunSource::Recorded(i) => (recorded_runs()[i % 10].clone(), false),
        RunSource::Frozen(steps) => (encoded_run(steps), false),
        RunSource::Timed(steps) => (timed_named_run(steps), true),
    }
}

proptest! {
    #![proptest_config(config(24))]

    /// A run on a real clock delivered with windows of a few dozen envelopes
    /// shuffled across step boundaries (as concurrent publishers deliver it)
    /// gives the in-order view, tool runs in the same steps and order, each
    /// placed by its timestamp.
    #[test]
    fn timed_runs_shuffled_in_windows_across_steps_give_the_in_order_view(
        steps in prop::collection::vec(gen_timed_step(), 100..=100),
        window in 12usize..64,
        picks in prop::collection::vec(any::<usize>(), 1..96),
    ) {
        let events = timed_named_run(&steps);
        let clean = session_of(&events);
        let shuffled = session_of(&shuffle_windows(&events, window, &picks));
        prop_assert_eq!(executions(&shuffled), executions(&clean));
        let tools: Vec<Value> = executions(&clean)[0]["steps"]
            .as_array()
            .unwrap()
            .iter()
            .flat_map(|s| s["tools"].as_array().unwrap().clone())
            .collect();
        prop_assert_eq!(
            tools.len(),
            steps.iter().map(|s| s.tools.len()).sum::<usize>()
        );
        prop_assert!(tools.iter().all(|t| t["attribution"] == "timestamp"));
    }

    /// Replays of envelopes already seen, as batches in any order at any
    /// point of the live stream, and one at a time (on a real clock at any
    /// point; the reference's recorded runs after the run) change nothing
    /// but the duplicate counter. (One at a time under a frozen clock, a
    /// late copy of an earlier step's tool event is the last step's own
    /// call whenever that step could still hold it: generated frozen runs
    /// are replayed in batches only.)
    #[test]
    fn replaying_any_subset_in_any_order_changes_nothing_but_the_duplicate_counter(
        source in run_source(),
        bits in prop::collection::vec(any::<bool>(), 1..64),
        cuts in prop::collection::vec(any::<u8>(), 1..64),
        picks in prop::collection::vec(any::<usize>(), 1..64),
    ) {
        let (events, real_clock) = events_of(&source);
        let clean = session_of(&events);
        let mut pick = picks.iter().cycle().copied();
        let mut s = Session::new(None);
        let mut replayed = 0u64;
        for (i, e) in events.iter().enumerate() {
            s.ingest_value(e).unwrap();
            let cut = cuts[i % cuts.len()];
            if cut % 5 == 0 {
                let batch = replay_of(&events[..=i], &bits, &mut pick);
                let out = s.ingest_jsonl(&jsonl(&batch));
                prop_assert_eq!(out.applied, 0);
                replayed += batch.len() as u64;
            }
            if real_clock && cut % 3 == 0 {
                s.ingest_value(&events[pick.next().unwrap() % (i + 1)]).unwrap();
                replayed += 1;
            }
        }
        let batch = replay_of(&events, &bits, &mut pick);
        if matches!(source, RunSource::Frozen(_)) {
            prop_assert_eq!(s.ingest_jsonl(&jsonl(&batch)).duplicates, batch.len() as u64);
        } else {
            for e in &batch {
                prop_assert!(s.ingest_value(e).unwrap().duplicate);
            }
        }
        replayed += batch.len() as u64;
        prop_assert_eq!(executions(&s), executions(&clean));
        prop_assert_eq!(s.counts().duplicates, replayed);
        prop_assert_eq!(s.counts().applied, events.len() as u64);
    }

    /// Merging the whole run (a recording, a server log) into a session that
    /// holds part of it gives the whole run's view: on a real clock whatever
    /// part it holds; under a frozen clock a part that is the run's start
    /// (where identical events differ only by their place in the run).
    #[test]
    fn merging_the_run_into_a_session_holding_part_of_it_gives_the_whole_view(
        source in run_source(),
        bits in prop::collection::vec(any::<bool>(), 1..64),
        cut in any::<usize>(),
    ) {
        let (events, real_clock) = events_of(&source);
        let clean = session_of(&events);
        let held: Vec<Value> = if real_clock {
            events
                .iter()
                .enumerate()
                .filter(|(i, _)| bits[i % bits.len()])
                .map(|(_, e)| e.clone())
                .collect()
        } else {
            events[..cut % (events.len() + 1)].to_vec()
        };
        let mut s = session_of(&held);
        let out = s.ingest_jsonl(&jsonl(&events));
        prop_assert_eq!(executions(&s), executions(&clean));
        prop_assert_eq!(out.duplicates as usize, held.len());
        prop_assert_eq!(s.counts().applied as usize, events.len());
        // The recording of the merged session replays to the same view.
        let (back, _) = Session::from_recording(&s.to_recording()).unwrap();
        prop_assert_eq!(executions(&back), executions(&clean));
    }
}

// ---- encode / decode ---------------------------------------------------------

/// Any unicode text, weighted towards multi-byte characters and emoji, and
/// sometimes long enough to meet every cap.
fn text() -> impl Strategy<Value = String> {
    prop_oneof![
        any::<String>(),
        "[a-zżółć日本語🚀👩‍💻\"\\\\\n\t\u{0}-\u{1f}]{0,40}",
        ("[ż日🚀a\"]{1,4}", 0usize..3000).prop_map(|(s, n)| s.repeat(n)),
    ]
}

#[derive(Clone, Debug)]
enum Event {
    Chunk(String),
    StepStarted(i64, i64),
    StepCompleted(i64, bool, String, u32),
    ToolStarted(String, String),
    ToolCompleted(String, bool, Option<String>),
    Continuation(i64, bool),
    Status(String, Option<String>),
}

fn event() -> impl Strategy<Value = Event> {
    prop_oneof![
        text().prop_map(Event::Chunk),
        (0i64..1000, 0i64..50).prop_map(|(n, m)| Event::StepStarted(n, m)),
        (0i64..1000, any::<bool>(), text(), 0u32..10_000)
            .prop_map(|(n, t, f, u)| Event::StepCompleted(n, t, f, u)),
        (text(), text()).prop_map(|(t, a)| Event::ToolStarted(t, a)),
        (text(), any::<bool>(), prop::option::of(text()))
            .prop_map(|(t, ok, e)| Event::ToolCompleted(t, ok, e)),
        (0i64..1000, any::<bool>()).prop_map(|(n, stop)| Event::Continuation(n, stop)),
        (
            prop::sample::select(vec!["processing", "completed", "failed", "stopped"]),
            prop::option::of(text())
        )
            .prop_map(|(s, e)| Event::Status(s.to_string(), e)),
    ]
}

fn broadcast_config() -> impl Strategy<Value = BroadcastConfig> {
    (
        prop::sample::select(vec![
            BroadcastConfig::minimal(),
            BroadcastConfig::standard(),
            BroadcastConfig::debug(),
        ]),
        prop::option::of(400usize..12_000),
        -5i64..600,
    )
        .prop_map(|(mut c, max, arg)| {
            c.max_message_bytes = max.or(c.max_message_bytes);
            c.max_arg_length = arg;
            c
        })
}

/// Feeds one event; returns what was broadcast.
fn encode(enc: &mut Encoder, e: &Event) -> Vec<Value> {
    let now = V1_22.now();
    let push = |enc: &mut Encoder, name: &str, args: Value| {
        enc.push(name, &args, &now)
            .unwrap()
            .into_iter()
            .map(|b| b.envelope)
            .collect::<Vec<_>>()
    };
    match e {
        Event::Chunk(c) => push(enc, "StreamEventReceived", json!({ "content": c })),
        Event::StepStarted(n, m) => push(
            enc,
            "AgentStepStarted",
            json!({"stepNumber": n, "messageCount": m, "availableTools": 1}),
        ),
        Event::StepCompleted(n, t, f, u) => push(
            enc,
            "AgentStepCompleted",
            json!({"stepNumber": n, "hasToolCalls": t, "errorCount": 0, "finishReason": f,
                   "usage": {"input": u, "output": 1, "cacheWrite": 0, "cacheRead": 0, "reasoning": 0},
                   "startedAt": "2026-01-20T11:59:58.750000+00:00"}),
        ),
        Event::ToolStarted(t, a) => push(
            enc,
            "ToolCallStarted",
            json!({"tool": t, "args": {"query": a, "list": [a, a]}}),
        ),
        Event::ToolCompleted(t, ok, err) => push(
            enc,
            "ToolCallCompleted",
            json!({"tool": t, "success": ok, "error": err,
                   "startedAt": "2026-01-20T11:59:59.100000+00:00", "endedAt": "2026-01-20T12:00:00.250000+00:00"}),
        ),
        Event::Continuation(n, stop) => push(
            enc,
            "ContinuationEvaluated",
            json!({"stepNumber": n, "outcome": outcome(*stop)}),
        ),
        Event::Status(s, err) => vec![
            enc.set_status(s, err.as_deref(), err.as_deref(), &now)
                .unwrap()
                .envelope,
        ],
    }
}

proptest! {
    #![proptest_config(config(256))]

    /// Every envelope the encoder sends (under any preset and cap) is within
    /// the cap, and decodes back to the same envelope without warnings.
    #[test]
    fn encoded_envelopes_decode_back_to_themselves(
        config in broadcast_config(),
        events in prop::collection::vec(event(), 1..8),
    ) {
        let mut enc = Encoder::new("sess-1", "exec-1", config);
        let mut chunks: Vec<(i64, String)> = Vec::new();
        let mut streamed = String::new();
        for e in &events {
            if let Event::Chunk(c) = e {
                if config.include_stream_chunks {
                    streamed.push_str(c);
                }
            }
            for env in encode(&mut enc, e) {
                let text = stepline::json::to_string(&env);
                if let Some(max) = config.max_message_bytes {
                    prop_assert!(text.len() <= max, "{} bytes over {max}", text.len());
                }
                let d = decode_text(&text).unwrap();
                prop_assert!(d.warnings.is_empty(), "{:?}", d.warnings);
                prop_assert_eq!(&d.envelope, &env);
                prop_assert_eq!(decode_value(&env).unwrap().envelope, env.clone());
                if env["type"] == "agent.stream.chunk" {
                    chunks.push((
                        env["payload"]["chunk_index"].as_i64().unwrap(),
                        env["payload"]["content"].as_str().unwrap().to_string(),
                    ));
                }
            }
        }
        // A chunk over the cap is split, never cut: the pieces give the text back.
        if !events.iter().any(|e| matches!(e, Event::Continuation(_, true))) {
            let text: String = chunks.iter().map(|(_, c)| c.as_str()).collect();
            prop_assert_eq!(text, streamed);
            prop_assert!(chunks.windows(2).all(|w| w[0].0 + 1 == w[1].0));
        }
    }
}

// ---- truncation --------------------------------------------------------------

proptest! {
    #![proptest_config(config(4096))]

    /// `truncate` cuts at a character boundary within the limit (plus `...`),
    /// and in compat mode still yields valid UTF-8 (a split character is U+FFFD).
    #[test]
    fn truncation_is_valid_utf8_within_the_limit(s in text(), max in -3i64..200) {
        let limit = usize::try_from(max).unwrap_or(0);
        match truncate(&s, max, false) {
            None => prop_assert!(s.len() <= limit),
            Some(cut) => {
                prop_assert!(s.len() > limit);
                let kept = cut.strip_suffix("...").unwrap();
                prop_assert!(kept.len() <= limit);
                prop_assert!(s.starts_with(kept));
                // The longest such prefix: the next character would not fit.
                let next = s[kept.len()..].chars().next().map_or(0, char::len_utf8);
                prop_assert!(kept.len() + next > limit);
            }
        }
        if let Some(cut) = truncate(&s, max, true) {
            // One U+FFFD (3 bytes) may replace up to 3 bytes of a split character.
            prop_assert!(cut.len() <= limit + 2 + 3);
            prop_assert!(std::str::from_utf8(cut.as_bytes()).is_ok());
        }
    }
}

// ---- slim snapshots ----------------------------------------------------------

fn slim_config() -> impl Strategy<Value = SlimConfig> {
    (
        prop::sample::select(vec![
            SlimConfig::minimal(),
            SlimConfig::standard(),
            SlimConfig::full(),
        ]),
        -1i64..8,
        -1i64..6,
        -2i64..64,
        any::<(bool, bool, bool, bool)>(),
    )
        .prop_map(|(mut c, m, s, len, (results, steps, trace, redact))| {
            c.max_messages = m;
            c.max_steps = s;
            c.max_content_length = len;
            c.include_tool_results = results;
            c.include_steps = steps;
            c.include_continuation_trace = trace;
            c.redact_tool_args = redact;
            c
        })
}

/// The serializer vectors' states.
fn vector_states() -> &'static [Value] {
    static STATES: std::sync::OnceLock<Vec<Value>> = std::sync::OnceLock::new();
    STATES.get_or_init(|| {
        vectors("slim-serializer.json")
            .iter()
            .filter_map(|c| c["input"].get("state").cloned())
            .collect()
    })
}

/// A state: one of the vectors', or a conversation of arbitrary texts.
fn state() -> impl Strategy<Value = Value> {
    let roles = prop::sample::select(vec!["user", "assistant", "tool", "system", "developer"]);
    prop_oneof![
        (0usize..64).prop_map(|i| {
            let all = vector_states();
            all[i % all.len()].clone()
        }),
        prop::collection::vec((roles, text()), 0..8).prop_map(|messages| {
            let messages: Vec<Value> = messages
                .into_iter()
                .map(|(role, content)| json!({"role": role, "content": content}))
                .collect();
            json!({
                "agentId": "agent-p",
                "messageStore": {"sections": [{"name": "messages", "messages": messages}]},
                "stateInfo": {"id": "s", "startedAt": "2026-01-20T11:59:00+02:00",
                              "updatedAt": "2026-01-20T11:59:59+02:00",
                              "cumulativeExecutionSeconds": 1.25},
                "status": "in_progress"
            })
        }),
    ]
}

/// What restore cannot bring back by design: steps, the step count and the
/// continuation outcome (none of them is part of a restored state).
fn without_steps(mut s: Value) -> Value {
    let m = s.as_object_mut().unwrap();
    m.remove("steps");
    m.remove("step_count");
    m.remove("last_continuation");
    s
}

proptest! {
    #![proptest_config(config(256))]

    /// slim → restore → slim: the snapshot validates, restoring and slimming
    /// again keeps everything a restored state holds (content cut once is
    /// only cut again by the same rule), and a second round changes nothing.
    #[test]
    fn slim_restore_slim_is_stable(state in state(), config in slim_config()) {
        let now = V1_22.now();
        let state = AgentState::from_value(&state, &now).unwrap();
        let s1 = slim_state(&state, &config);
        prop_assert!(validate(&s1).valid(), "{:?}", validate(&s1).errors);
        let s2 = slim_state(&restore(&s1, &now).unwrap(), &config);
        let s3 = slim_state(&restore(&s2, &now).unwrap(), &config);
        prop_assert_eq!(&s3, &s2);
        // s2 is s1 with each content cut again under the same rule, less the
        // messages the reference keeps only from their original shape
        // (`{"role": "assistant"}`: no content, no metadata), which read back
        // as empty messages and are dropped on write.
        let mut expected = without_steps(s1.clone());
        let messages = expected.get_mut("messages").unwrap().as_array_mut().unwrap();
        messages.retain(|m| !(m["content"] == "" && m["_metadata"] == json!([])));
        for m in messages {
            if m["role"] == "tool" && !config.include_tool_results {
                continue; // the placeholder, never cut
            }
            // A limit of 0 or less cuts nothing (as the reference).
            if let (Some(c), true) = (m["content"].as_str(), config.max_content_length > 0) {
                if let Some(cut) = truncate(c, config.max_content_length, config.compat) {
                    *m.pointer_entry("/content").unwrap() = Value::from(cut);
                }
            }
        }
        prop_assert_eq!(without_steps(s2.clone()), expected);
    }

    /// `maxContentLength` on arbitrary unicode: every string content of the
    /// snapshot is valid UTF-8 (a Rust `String`) within the limit plus `...`
    /// (a limit of 0 or less is none, as in the reference).
    #[test]
    fn slim_content_is_cut_within_the_limit(state in state(), config in slim_config()) {
        let state = AgentState::from_value(&state, &V1_22.now()).unwrap();
        let s = slim_state(&state, &config);
        let limit = usize::try_from(config.max_content_length).ok().filter(|&l| l > 0).unwrap_or(usize::MAX - 3);
        for m in s["messages"].as_array().unwrap() {
            if let Some(c) = m["content"].as_str() {
                let omitted = c == stepline::snapshot::serialize::TOOL_RESULT_OMITTED;
                prop_assert!(omitted || c.len() <= limit + 3, "{} bytes over {limit}", c.len());
            }
        }
        prop_assert!(encoded_len(&s) < usize::MAX);
    }
}
