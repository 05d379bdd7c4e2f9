//! Native profile of bulk replay: `cargo run --release --example bulk_profile -- FILE [ROUNDS] [read]`
//! ingests a JSONL recording into a fresh Session ROUNDS times (for perf/callgrind). With
//! `read`, each round then takes the view's first patch once, as the first `getSnapshot()`
//! after `ingestJsonl` does (`__takeViewPatch` in src/wasm/session.rs: `settle`, then
//! `take_patch`), and prints the two times and the patch's length apart.
fn main() {
    let mut args = std::env::args().skip(1);
    let file = args
        .next()
        .expect("usage: bulk_profile FILE [ROUNDS] [read]");
    let rounds: usize = args
        .next()
        .map_or(1, |r| r.parse().expect("ROUNDS is a number"));
    let read = args.next().is_some_and(|a| a == "read");
    let text = std::fs::read_to_string(&file).expect("readable file");
    for _ in 0..rounds {
        let started = std::time::Instant::now();
        let mut session = stepline::session::Session::new(None);
        let outcome = session.ingest_jsonl(&text);
        let ingested = started.elapsed();
        if read {
            let at = std::time::Instant::now();
            session.settle();
            let patch = session.take_patch();
            eprintln!(
                "{ingested:?} {:?} read {:?} patch {} bytes",
                outcome.errors.len(),
                at.elapsed(),
                patch.len()
            );
        } else {
            eprintln!("{ingested:?} {:?}", outcome.errors.len());
        }
    }
}
