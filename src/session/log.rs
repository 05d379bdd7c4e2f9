//! The applied envelopes' text, by arrival number, for recordings.
//!
//! Consecutive envelopes of a run share most of their text (type, session,
//! execution, the timestamp's date and hour: about 110 of a stream chunk's
//! 185 bytes), so each line is kept as the bytes it does not share with the
//! start of the line before it. A recording reads the log from the start,
//! so no line is ever needed alone.
//!
//! The log also says which delivery each line came in (a JSONL text, a
//! recording, or an envelope on its own): where the same lines were
//! delivered decides what a redelivery is, so a replay of the log (the
//! timeline) must deliver them the same way. Deliveries are kept as runs,
//! one entry per change, not one per line.

/// Log lines by arrival number. Numbers only grow, so a vector in arrival
/// order holds them; a line whose text was dropped stays as a hole (the next
/// line is written against it) until the holes are half the log, when the
/// rest is written again without them.
#[derive(Clone, Debug, Default)]
pub(super) struct Log {
    entries: Vec<Entry>,
    holes: usize,
    /// The last line pushed, whole: what the next one is written against.
    last: String,
    /// `(first arrival number, delivery)` per run of lines of one delivery,
    /// in arrival order (see [`Log::iter_delivered`]).
    runs: Vec<(u64, u32)>,
    /// `(arrival number, step)` of each line that was a tool event without a
    /// step number in a batch, in arrival order: the step the batch's own
    /// order placed it by, which lines of the batch the log does not keep
    /// (redeliveries) may have decided, so a replay takes it from here.
    arrivals: Vec<(u64, i64)>,
}

#[derive(Clone, Debug)]
struct Entry {
    seq: u64,
    /// Bytes the line shares with the start of the entry before it (hole or not).
    shared: u32,
    /// The line after those bytes.
    rest: Box<str>,
    hole: bool,
}

impl Log {
    /// Adds line `seq`, which came in `delivery` (0: on its own).
    pub(super) fn push(&mut self, seq: u64, line: &str, delivery: u32) {
        if self.runs.last().is_none_or(|&(_, d)| d != delivery) {
            self.runs.push((seq, delivery));
        }
        let shared = u32::try_from(shared_prefix(&self.last, line)).unwrap_or(0);
        self.entries.push(Entry {
            seq,
            shared,
            rest: line.get(shared as usize..).unwrap_or_default().into(),
            hole: false,
        });
        // Copied into the buffer the last line had: a line is not kept as
        // a `String` of its own (one allocation per envelope fewer).
        self.last.clear();
        self.last.push_str(line);
    }

    /// Notes that line `seq` (pushed last) was placed by arrival at `step`.
    pub(super) fn push_arrival(&mut self, seq: u64, step: i64) {
        self.arrivals.push((seq, step));
    }

    pub(super) fn remove(&mut self, seq: u64) {
        if let Ok(i) = self.entries.binary_search_by_key(&seq, |e| e.seq) {
            // What the next line reads of this one: its first `shared` bytes.
            let next = self.entries.get(i + 1).map(|e| e.shared);
            if let Some(e) = self.entries.get_mut(i).filter(|e| !e.hole) {
                e.hole = true;
                self.holes += 1;
                // A hole keeps only the bytes the next line is written against,
                // so dropping text gives its memory back at once. The last line
                // keeps none, and the next push is written against what is left.
                let keep = next.map_or(0, |n| n.saturating_sub(e.shared)) as usize;
                if keep < e.rest.len() {
                    e.rest = e.rest.get(..keep).unwrap_or_default().into();
                }
                if next.is_none() {
                    self.last.truncate(e.shared as usize);
                    self.last.shrink_to_fit();
                }
            }
        }
        if self.holes > self.entries.len() / 2 {
            let mut kept = Log::default();
            for (seq, delivery, line) in self.iter_delivered() {
                kept.push(seq, &line, delivery);
            }
            kept.arrivals = std::mem::take(&mut self.arrivals);
            *self = kept;
        }
    }

    /// The lines in arrival order, holes left out.
    pub(super) fn iter(&self) -> impl Iterator<Item = (u64, String)> + '_ {
        let mut text = String::new();
        self.entries.iter().filter_map(move |e| {
            // `shared` never exceeds the text before it (it was measured against it).
            text.truncate(e.shared as usize);
            text.push_str(&e.rest);
            (!e.hole).then(|| (e.seq, text.clone()))
        })
    }

    /// The lines in arrival order with the delivery each came in: 0 for an
    /// envelope delivered on its own, else a number shared by the lines of
    /// one delivery (a JSONL text, a recording) and by no line next to them
    /// of another delivery.
    pub(super) fn iter_delivered(&self) -> impl Iterator<Item = (u64, u32, String)> + '_ {
        let mut run = 0;
        self.iter().map(move |(seq, line)| {
            // Arrival numbers only grow: the run moves forward with them.
            while self
                .runs
                .get(run + 1)
                .is_some_and(|&(first, _)| first <= seq)
            {
                run += 1;
            }
            let delivery = self.runs.get(run).map_or(0, |&(_, d)| d);
            (seq, delivery, line)
        })
    }
}

impl Log {
    /// [`iter_delivered`](Log::iter_delivered) with the arrival step noted
    /// for each line ([`push_arrival`](Log::push_arrival)), if any.
    pub(super) fn iter_replay(&self) -> impl Iterator<Item = (u32, Option<i64>, String)> + '_ {
        let mut next = 0;
        self.iter_delivered().map(move |(seq, delivery, line)| {
            // Both lists are in arrival order: skip the notes of holes.
            while self.arrivals.get(next).is_some_and(|&(s, _)| s < seq) {
                next += 1;
            }
            let arrival = self
                .arrivals
                .get(next)
                .filter(|&&(s, _)| s == seq)
                .map(|&(_, step)| step);
            (delivery, arrival, line)
        })
    }
}

/// How many leading bytes `b` shares with `a`, backed off to a character boundary of `b`.
fn shared_prefix(a: &str, b: &str) -> usize {
    let (a, b_bytes) = (a.as_bytes(), b.as_bytes());
    // Eight bytes at a time while they agree (two lines of a run share about
    // a hundred: the envelope's type, session, execution and timestamp).
    let mut n = 0;
    while let (Some(Ok(x)), Some(Ok(y))) = (
        a.get(n..n + 8).map(<[u8; 8]>::try_from),
        b_bytes.get(n..n + 8).map(<[u8; 8]>::try_from),
    ) {
        let diff = u64::from_le_bytes(x) ^ u64::from_le_bytes(y);
        if diff != 0 {
            n += (diff.trailing_zeros() / 8) as usize;
            break;
        }
        n += 8;
    }
    // The rest byte by byte (nothing more when the words differed at `n`).
    n += a
        .get(n..)
        .unwrap_or_default()
        .iter()
        .zip(b_bytes.get(n..).unwrap_or_default())
        .take_while(|(x, y)| x == y)
        .count();
    while !b.is_char_boundary(n) {
        n -= 1;
    }
    n
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(log: &Log) -> Vec<(u64, String)> {
        log.iter().collect()
    }

    #[test]
    fn the_shared_prefix_is_the_longest_common_one_cut_between_characters() {
        let naive = |a: &str, b: &str| {
            let mut n = a.bytes().zip(b.bytes()).take_while(|(x, y)| x == y).count();
            while !b.is_char_boundary(n) {
                n -= 1;
            }
            n
        };
        let base = "{\"type\":\"agent.stream.chunk\",\"content\":\"żółć and more\"}";
        for cut in 0..=base.len() {
            let Some(head) = base.get(..cut) else {
                continue;
            };
            for tail in ["", "x", "żółw", "{\"", "0123456789abcdef"] {
                let other = format!("{head}{tail}");
                assert_eq!(shared_prefix(base, &other), naive(base, &other), "{other}");
                assert_eq!(shared_prefix(&other, base), naive(&other, base), "{other}");
            }
        }
    }

    #[test]
    fn lines_come_back_whole_in_arrival_order_sharing_what_they_can() {
        let mut log = Log::default();
        let texts = [
            r#"{"type":"agent.stream.chunk","payload":{"content":"żółć"}}"#,
            r#"{"type":"agent.stream.chunk","payload":{"content":"żółw"}}"#,
            r#"{"type":"agent.status"}"#,
            r#"{"type":"agent.status"}"#,
            "x",
            r#"{"type":"agent.stream.chunk","payload":{"content":"ż"}}"#,
        ];
        for (i, t) in texts.iter().enumerate() {
            log.push(i as u64 + 10, t, 0);
        }
        let expected: Vec<(u64, String)> = texts
            .iter()
            .enumerate()
            .map(|(i, t)| (i as u64 + 10, t.to_string()))
            .collect();
        assert_eq!(lines(&log), expected);
        // "żółw" shares "żół" with "żółć": the cut falls between characters.
        assert_eq!(&*log.entries[1].rest, "w\"}}");
        assert_eq!(&*log.entries[3].rest, "");
    }

    #[test]
    fn a_removed_line_leaves_a_hole_that_the_next_line_still_reads_against() {
        let mut log = Log::default();
        for (seq, t) in [
            (1, "aaaa1"),
            (2, "aaaa2"),
            (3, "aaaa3"),
            (4, "aaab4"),
            (5, "aaab5"),
        ] {
            log.push(seq, t, 0);
        }
        log.remove(2);
        log.remove(2);
        log.remove(99);
        assert_eq!(
            lines(&log),
            [(1, "aaaa1"), (3, "aaaa3"), (4, "aaab4"), (5, "aaab5")]
                .map(|(n, t)| (n, t.to_string()))
        );
        // A hole keeps what the next line reads of it: "aaaa2" keeps nothing past
        // the "aaaa" it shares with "aaaa1", which is all "aaaa3" reads.
        assert_eq!(&*log.entries[1].rest, "");
        // Three holes of five: the log is written again without them.
        log.remove(3);
        log.remove(5);
        assert_eq!(log.entries.len(), 2);
        assert_eq!(log.holes, 0);
        assert_eq!(
            lines(&log),
            [(1, "aaaa1"), (4, "aaab4")].map(|(n, t)| (n, t.to_string()))
        );
        log.push(6, "aaab6", 0);
        assert_eq!(lines(&log).last(), Some(&(6, "aaab6".to_string())));
    }

    #[test]
    fn a_hole_gives_back_the_text_no_later_line_reads() {
        let mut log = Log::default();
        let long = |tag: &str| format!("{{\"t\":\"{tag}\",\"c\":\"{}\"}}", "ż".repeat(1000));
        for seq in 1..=6 {
            log.push(seq, &long(&seq.to_string()), 0);
        }
        // The last line removed: it keeps nothing, and the next is written against the rest.
        log.remove(6);
        assert_eq!(&*log.entries[5].rest, "");
        log.remove(3);
        assert!(log.entries[2].rest.len() < 2, "{:?}", log.entries[2].rest);
        log.push(7, &long("7"), 0);
        log.push(8, "x", 0);
        log.remove(8);
        log.push(9, &long("9"), 0);
        let expected: Vec<(u64, String)> = [1, 2, 4, 5, 7, 9]
            .iter()
            .map(|&n| (n, long(&n.to_string())))
            .collect();
        assert_eq!(lines(&log), expected);
    }

    #[test]
    fn each_line_keeps_its_delivery_through_holes_and_rewrites() {
        let mut log = Log::default();
        for (seq, delivery) in [(1, 0), (2, 0), (3, 7), (4, 7), (5, 8), (6, 0), (7, 9)] {
            log.push(seq, &format!("line{seq}"), delivery);
        }
        // One run per change of delivery, not one per line.
        assert_eq!(log.runs, [(1, 0), (3, 7), (5, 8), (6, 0), (7, 9)]);
        let delivered = |log: &Log| {
            log.iter_delivered()
                .map(|(s, d, _)| (s, d))
                .collect::<Vec<_>>()
        };
        log.remove(3);
        assert_eq!(
            delivered(&log),
            [(1, 0), (2, 0), (4, 7), (5, 8), (6, 0), (7, 9)]
        );
        // Four holes of seven: written again without them, deliveries kept.
        log.remove(1);
        log.remove(5);
        log.remove(6);
        assert_eq!(log.entries.len(), 3);
        assert_eq!(delivered(&log), [(2, 0), (4, 7), (7, 9)]);
        log.push(8, "line8", 9);
        assert_eq!(delivered(&log).last(), Some(&(8, 9)));
    }
}
