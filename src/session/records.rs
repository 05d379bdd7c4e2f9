//! The records of a batch: the lines of JSONL, or the elements of a JSON
//! array of events.
//!
//! Producers' own tools save a stream either way: one event per line (what
//! stepline records), or one JSON array of the events (what a front end
//! dumps with `JSON.stringify(events)`, AG-UI and AI SDK test streams, a
//! laravel/ai conversation export). A batch is an array when its first
//! non-blank character is `[`: an event is an object, so a JSONL line can
//! never start so. The array is cut into its elements by a scanner that only
//! tracks strings and nesting, so each element is parsed on its own, with the
//! same per-event limits as a line, and a bad element is reported with its
//! 1-based position while the others are still read.

use crate::error::{ErrorCode, SteplineError};

/// One record: its 1-based number (line, or element position) and its text,
/// or why the batch's structure failed there.
pub(crate) type Record<'a> = (usize, Result<&'a str, SteplineError>);

/// The records of `text` (a byte order mark already removed): the non-blank
/// lines of JSONL, or the elements of a top-level JSON array.
pub(crate) fn records(text: &str) -> Records<'_> {
    let trimmed = text.trim_start();
    match trimmed.strip_prefix('[') {
        Some(rest) => Records::Array(ArrayElements {
            rest,
            number: 0,
            done: false,
            pending: None,
        }),
        None => Records::Lines(text.lines().enumerate()),
    }
}

/// Text followed the array's closing bracket.
const TRAILING: &str = "expected the end of the text after the array of events";
/// The array's closing bracket never came.
const UNTERMINATED: &str = "expected `]` closing the array of events, found the end of the text";

/// The iterator [`records`] returns.
pub(crate) enum Records<'a> {
    /// JSONL: every non-blank line, numbered from 1.
    Lines(std::iter::Enumerate<std::str::Lines<'a>>),
    /// A JSON array: every element, numbered from 1.
    Array(ArrayElements<'a>),
}

impl<'a> Iterator for Records<'a> {
    type Item = Record<'a>;

    fn next(&mut self) -> Option<Record<'a>> {
        match self {
            Records::Lines(lines) => lines
                .by_ref()
                .find(|(_, line)| !line.trim().is_empty())
                .map(|(i, line)| (i + 1, Ok(line))),
            Records::Array(elements) => elements.next(),
        }
    }
}

/// The elements of a JSON array, after its opening bracket.
pub(crate) struct ArrayElements<'a> {
    /// What is left after the last element's comma.
    rest: &'a str,
    /// The number of the last element yielded.
    number: usize,
    /// The closing bracket was read, or the structure failed.
    done: bool,
    /// A structural error reported after the last element, with its number.
    pending: Option<(usize, &'static str)>,
}

impl<'a> ArrayElements<'a> {
    /// The structural error found after the last element, once.
    fn next_pending(&mut self) -> Option<Record<'a>> {
        let (number, message) = self.pending.take()?;
        Some((
            number,
            Err(SteplineError::new(ErrorCode::InvalidJson, None, message)),
        ))
    }

    /// Stops the iteration with a structural error at element `number`.
    fn fail(&mut self, number: usize, message: String) -> Option<Record<'a>> {
        self.done = true;
        Some((
            number,
            Err(SteplineError::new(ErrorCode::InvalidJson, None, message)),
        ))
    }
}

impl<'a> Iterator for ArrayElements<'a> {
    type Item = Record<'a>;

    fn next(&mut self) -> Option<Record<'a>> {
        if self.done {
            return self.next_pending();
        }
        let number = self.number + 1;
        let Some(end) = element_end(self.rest) else {
            // A cut-off array: its last element may still be whole (its own
            // parse says), and the missing bracket is reported after it.
            let element = self.rest.trim();
            self.done = true;
            self.pending = Some((number + usize::from(!element.is_empty()), UNTERMINATED));
            if element.is_empty() {
                return self.next_pending();
            }
            self.number = number;
            return Some((number, Ok(element)));
        };
        let (element, after) = self.rest.split_at(end);
        let element = element.trim();
        // `end` is the index of a `,` or `]` (ASCII), so 1 byte.
        let closing = after.starts_with(']');
        self.rest = after.get(1..).unwrap_or("");
        if closing {
            self.done = true;
            let trailing = !self.rest.trim().is_empty();
            // `[]` and `[a]`: only a non-empty last element is one.
            if element.is_empty() && self.number > 0 {
                return self.fail(number, "expected an event after `,`, found `]`".into());
            }
            if trailing {
                // Reported after the last element, which is still read.
                self.pending = Some((number + usize::from(!element.is_empty()), TRAILING));
            }
            if element.is_empty() {
                return self.next_pending();
            }
            self.number = number;
            return Some((number, Ok(element)));
        }
        self.number = number;
        if element.is_empty() {
            return self.fail(number, "expected an event, found `,`".into());
        }
        Some((number, Ok(element)))
    }
}

/// The byte index of the `,` or `]` that ends the element `text` starts
/// with (outside strings and nested arrays or objects), or `None` when the
/// text ends first.
fn element_end(text: &str) -> Option<usize> {
    let mut depth = 0usize;
    let mut in_string = false;
    let mut escaped = false;
    for (i, b) in text.bytes().enumerate() {
        if in_string {
            if escaped {
                escaped = false;
            } else if b == b'\\' {
                escaped = true;
            } else if b == b'"' {
                in_string = false;
            }
            continue;
        }
        match b {
            b'"' => in_string = true,
            b'{' | b'[' => depth += 1,
            // An unbalanced closer inside an element is the element's own
            // syntax error: its parser reports it.
            b'}' | b']' if depth > 0 => depth -= 1,
            b',' | b']' if depth == 0 => return Some(i),
            _ => {}
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn texts(text: &str) -> Vec<(usize, Result<String, String>)> {
        records(text)
            .map(|(n, r)| (n, r.map(str::to_string).map_err(|e| e.message)))
            .collect()
    }

    #[test]
    fn jsonl_lines_are_numbered_from_one_and_blank_lines_skipped() {
        let got = texts("{\"a\":1}\n\n  \n{\"b\":2}\n");
        assert_eq!(
            got,
            vec![(1, Ok("{\"a\":1}".into())), (4, Ok("{\"b\":2}".into()))]
        );
    }

    #[test]
    fn array_elements_are_cut_outside_strings_and_nesting() {
        let text = " \n[{\"t\":\"a,]}\\\"[\"},\n  {\"n\":[1,{\"x\":\"]\"}]} , {\"e\":\"é🌤\"}]\n";
        let got = texts(text);
        assert_eq!(
            got,
            vec![
                (1, Ok("{\"t\":\"a,]}\\\"[\"}".into())),
                (2, Ok("{\"n\":[1,{\"x\":\"]\"}]}".into())),
                (3, Ok("{\"e\":\"é🌤\"}".into())),
            ]
        );
    }

    #[test]
    fn an_empty_array_has_no_records() {
        assert!(texts("[]").is_empty());
        assert!(texts("  [ \n ]  ").is_empty());
    }

    #[test]
    fn an_unterminated_array_is_one_error_after_its_elements() {
        // The cut element is handed over (its own parse fails), then the bracket is missed.
        let got = texts("[{\"a\":1},{\"b\":");
        assert_eq!(got.len(), 3);
        assert_eq!(got[0], (1, Ok("{\"a\":1}".into())));
        assert_eq!(got[1], (2, Ok("{\"b\":".into())));
        assert_eq!(got[2].0, 3);
        assert!(got[2]
            .1
            .as_ref()
            .is_err_and(|m| m.contains("closing the array")));
        let got = texts("[{\"a\":1},  ");
        assert_eq!(got.len(), 2);
        assert!(got[1]
            .1
            .as_ref()
            .is_err_and(|m| m.contains("closing the array")));
    }

    #[test]
    fn an_empty_element_and_trailing_text_are_errors_numbered_where_they_are() {
        let got = texts("[{\"a\":1},,{\"b\":2}]");
        assert_eq!(got.len(), 2);
        assert_eq!(got[1].0, 2);
        assert!(got[1].1.is_err());

        let got = texts("[{\"a\":1},]");
        assert_eq!(got.len(), 2);
        assert!(got[1].1.as_ref().is_err_and(|m| m.contains("after `,`")));

        let got = texts("[{\"a\":1}] {\"b\":2}");
        assert_eq!(got.len(), 2, "the element is still read");
        assert_eq!(got[0], (1, Ok("{\"a\":1}".into())));
        assert_eq!(got[1].0, 2);
        assert!(got[1]
            .1
            .as_ref()
            .is_err_and(|m| m.contains("end of the text")));
    }
}
