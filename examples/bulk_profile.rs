//! Native profile of bulk replay: `cargo run --release --example bulk_profile -- FILE [ROUNDS]`
//! ingests a JSONL recording into a fresh Session ROUNDS times (for perf/callgrind).
fn main() {
    let mut args = std::env::args().skip(1);
    let file = args.next().expect("usage: bulk_profile FILE [ROUNDS]");
    let rounds: usize = args
        .next()
        .map_or(1, |r| r.parse().expect("ROUNDS is a number"));
    let text = std::fs::read_to_string(&file).expect("readable file");
    for _ in 0..rounds {
        let started = std::time::Instant::now();
        let mut session = stepline::session::Session::new(None);
        let outcome = session.ingest_jsonl(&text);
        eprintln!("{:?} {:?}", started.elapsed(), outcome.errors.len());
    }
}
