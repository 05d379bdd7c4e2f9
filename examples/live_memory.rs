//! Heap of a live session natively: `cargo run --release --example live_memory -- FILE [--no-record] [--keep]`
//! feeds a JSONL file's lines one at a time (`ingest_text_deferred`, then `settle` and
//! `take_patch` after each, as the package's live loop does: bench/contenders/stepline.mjs)
//! and prints the bytes the session holds at the end and the most it held at once. With
//! `--keep` the session is not freed at exit, for a heap profiler's view of what it holds
//! (`valgrind --tool=dhat`, at t-end). The wasm's
//! memory never shrinks, so the peak counts there as much as what is retained.
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};

static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

/// The counting allocator, natively only: the crate's wasm build brings its
/// own global allocator (talc), and this example is a native measurement.
#[cfg(not(target_arch = "wasm32"))]
mod counting {
    use super::{LIVE, PEAK};
    use std::alloc::{GlobalAlloc, Layout, System};
    use std::sync::atomic::Ordering::Relaxed;

    struct Counting;

    fn grew(n: usize) {
        let now = LIVE.fetch_add(n, Relaxed) + n;
        PEAK.fetch_max(now, Relaxed);
    }

    // SAFETY: every call is forwarded to the system allocator unchanged; only counters are added.
    unsafe impl GlobalAlloc for Counting {
        unsafe fn alloc(&self, l: Layout) -> *mut u8 {
            grew(l.size());
            // SAFETY: forwarded as received.
            unsafe { System.alloc(l) }
        }
        unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
            LIVE.fetch_sub(l.size(), Relaxed);
            // SAFETY: forwarded as received.
            unsafe { System.dealloc(p, l) }
        }
        unsafe fn realloc(&self, p: *mut u8, l: Layout, new: usize) -> *mut u8 {
            // Counted as the copy a realloc may make: old and new alive together.
            grew(new);
            LIVE.fetch_sub(l.size(), Relaxed);
            // SAFETY: forwarded as received.
            unsafe { System.realloc(p, l, new) }
        }
    }

    #[global_allocator]
    static ALLOCATOR: Counting = Counting;
}

fn mib(n: usize) -> String {
    format!("{:.2} MiB", n as f64 / (1024.0 * 1024.0))
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let file = args
        .iter()
        .find(|a| !a.starts_with("--"))
        .expect("usage: live_memory FILE [--no-record] [--keep]");
    let record = !args.iter().any(|a| a == "--no-record");
    let text = std::fs::read_to_string(file).expect("readable file");
    let lines: Vec<&str> = text.lines().filter(|l| !l.trim().is_empty()).collect();
    let options = stepline::session::SessionOptions {
        record: Some(record),
        ..Default::default()
    };
    let base = LIVE.load(Relaxed);
    PEAK.store(base, Relaxed);
    let mut session = stepline::session::Session::with_options(&options);
    let mut patch_bytes = 0usize;
    for line in &lines {
        session.ingest_text_deferred(line).expect("an envelope");
        session.settle();
        patch_bytes += session.take_patch().len();
    }
    let retained = LIVE.load(Relaxed) - base;
    let peak = PEAK.load(Relaxed) - base;
    println!(
        "{} envelopes, record: {record}: retained {}, peak {} (patches {} in all)",
        lines.len(),
        mib(retained),
        mib(peak),
        mib(patch_bytes)
    );
    // `--keep`: the session is never freed, so a heap profiler's end-of-run
    // view (valgrind's dhat at t-end) shows what it holds, by allocation site.
    if args.iter().any(|a| a == "--keep") {
        drop(lines);
        drop(text);
        std::mem::forget(session);
    } else {
        drop(session);
    }
}
