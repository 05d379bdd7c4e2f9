//! The one error type every public operation returns.
//!
//! A `SteplineError` names *what kind* of problem it is (`code`), *where* in the
//! input it was found (`path`, a JSON pointer such as `/steps/0/toolExecutions/1`)
//! and says in `message` what was expected and what was found. In JavaScript it
//! becomes an instance of the exported `SteplineError` class (an `Error` subclass).

use std::fmt;

/// What kind of problem a `SteplineError` is: its `code` (the string form,
/// [`ErrorCode::as_str`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "schema", schemars(rename = "SteplineErrorCode"))]
#[serde(rename_all = "snake_case")]
pub enum ErrorCode {
    /// The text is not JSON (syntax error, trailing characters, bad escape).
    InvalidJson,
    /// The input is larger than the configured byte limit.
    TooLarge,
    /// Arrays/objects are nested deeper than the configured limit.
    TooDeep,
    /// A value has the wrong JSON type (e.g. a number where a string belongs).
    InvalidType,
    /// A required field is absent.
    MissingField,
    /// A value has the right type but is not one of the allowed values.
    InvalidValue,
    /// A date/time string the reference producer could not have parsed either.
    InvalidTimestamp,
    /// A number is out of the allowed range (e.g. unrealistic token counts).
    OutOfRange,
    /// A stored agent state is neither a v1.22 nor a v2.x state (or mixes
    /// both): it is refused rather than read as either's empty default.
    UnknownStateVersion,
}

impl ErrorCode {
    /// The stable string form used on the wire and in JavaScript.
    pub fn as_str(self) -> &'static str {
        match self {
            ErrorCode::InvalidJson => "invalid_json",
            ErrorCode::TooLarge => "too_large",
            ErrorCode::TooDeep => "too_deep",
            ErrorCode::InvalidType => "invalid_type",
            ErrorCode::MissingField => "missing_field",
            ErrorCode::InvalidValue => "invalid_value",
            ErrorCode::InvalidTimestamp => "invalid_timestamp",
            ErrorCode::OutOfRange => "out_of_range",
            ErrorCode::UnknownStateVersion => "unknown_state_version",
        }
    }

    /// Every code, for documentation and the TypeScript union.
    pub const ALL: [ErrorCode; 9] = [
        ErrorCode::InvalidJson,
        ErrorCode::TooLarge,
        ErrorCode::TooDeep,
        ErrorCode::InvalidType,
        ErrorCode::MissingField,
        ErrorCode::InvalidValue,
        ErrorCode::InvalidTimestamp,
        ErrorCode::OutOfRange,
        ErrorCode::UnknownStateVersion,
    ];
}

/// A typed failure with a JSON-pointer path into the input: thrown as a
/// `SteplineError`, or given as `{code, path, message}` where a result
/// reports failures instead of throwing.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "schema", schemars(rename = "ErrorInfo"))]
pub struct SteplineError {
    /// What kind of problem this is.
    pub code: ErrorCode,
    /// JSON pointer (RFC 6901) to the offending value, `null` when the problem
    /// is the input as a whole (e.g. it is not JSON).
    pub path: Option<String>,
    /// What was expected and what was found, for a person.
    pub message: String,
}

impl SteplineError {
    /// Builds an error; `path` is a JSON pointer, or `None` for the input as a whole.
    pub fn new(
        code: ErrorCode,
        path: impl Into<Option<String>>,
        message: impl Into<String>,
    ) -> Self {
        SteplineError {
            code,
            path: path.into(),
            message: message.into(),
        }
    }

    /// Builds an error located at `path`.
    pub fn at(code: ErrorCode, path: &str, message: impl Into<String>) -> Self {
        SteplineError::new(code, Some(path.to_string()), message)
    }
}

impl fmt::Display for SteplineError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.path {
            Some(p) => write!(
                f,
                "{} at {}: {}",
                self.code.as_str(),
                if p.is_empty() { "/" } else { p },
                self.message
            ),
            None => write!(f, "{}: {}", self.code.as_str(), self.message),
        }
    }
}

impl std::error::Error for SteplineError {}

/// Shorthand used throughout the core.
pub type Result<T, E = SteplineError> = std::result::Result<T, E>;

/// The failing lines of a JSONL batch: the first [`LineErrors::LISTED`] with
/// their errors, all of them counted. A file of garbage must not cost memory
/// (and a result object) per bad line: four million bad lines used to exhaust
/// the wasm heap.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct LineErrors {
    /// `(1-based line, error)`, in line order, at most `LISTED`.
    pub listed: Vec<(usize, SteplineError)>,
    /// Every failing line, listed or not.
    pub count: u64,
}

impl LineErrors {
    /// How many failing lines are listed with their error.
    pub const LISTED: usize = 1000;

    /// Records the failure of 1-based `line`.
    pub fn push(&mut self, line: usize, e: SteplineError) {
        self.count += 1;
        if self.listed.len() < Self::LISTED {
            self.listed.push((line, e));
        }
    }

    /// No line failed.
    pub fn is_empty(&self) -> bool {
        self.count == 0
    }

    /// The listed failures as data (`{line, error}` each).
    pub fn views(&self) -> Vec<LineError<'_>> {
        self.listed
            .iter()
            .map(|(line, error)| LineError { line: *line, error })
            .collect()
    }
}

/// One failing line of a JSONL batch.
#[derive(Clone, Copy, Debug, serde::Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct LineError<'a> {
    /// The line's 1-based number.
    pub line: usize,
    /// Why it failed.
    pub error: &'a SteplineError,
}

/// Reads as the slice of listed lines: `errors[0]`, `errors.iter()`, `&errors`.
impl std::ops::Deref for LineErrors {
    type Target = [(usize, SteplineError)];
    fn deref(&self) -> &Self::Target {
        &self.listed
    }
}

impl<'a> IntoIterator for &'a LineErrors {
    type Item = &'a (usize, SteplineError);
    type IntoIter = std::slice::Iter<'a, (usize, SteplineError)>;
    fn into_iter(self) -> Self::IntoIter {
        self.listed.iter()
    }
}
