//! A secret value as a type: configured values expanded from `${NAME}` (headers, template
//! URLs and bodies, command lines) live in a [`Secret`], whose `Debug` and `Display` never
//! show them.

use std::fmt;

/// A value expanded from `${NAME}` (or a string it was expanded into): `Debug` and
/// `Display` print `(redacted)`, so no log line, panic message or `{:?}` of a config can
/// show it. The value itself is read with [`Secret::expose`], only where a request or a
/// command line is built (and where the redactor learns it).
#[derive(Clone, PartialEq, Eq, Default)]
pub struct Secret<T = String>(T);

impl<T> Secret<T> {
    pub fn new(value: T) -> Secret<T> {
        Secret(value)
    }

    /// The value. Call it only where a request is built or the redactor is fed.
    pub fn expose(&self) -> &T {
        &self.0
    }
}

impl<T> fmt::Debug for Secret<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("(redacted)")
    }
}

impl<T> fmt::Display for Secret<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("(redacted)")
    }
}
