//! Identifiers the reference generates when a stored value lacks one.

/// A random UUID v4 string.
pub fn new_id() -> String {
    uuid::Uuid::new_v4().to_string()
}
