//! One error type for everything that stops a command before it could do its work, and
//! one function that turns how a command ended into the process exit code (hurl's and
//! ripgrep's habit: the code is decided once, from results, at the top).
//!
//! | code | when |
//! |---|---|
//! | 0 | the command did its work; for a lookup, the status is `success` |
//! | 1 | a lookup ran and its status is `error`; in `batch`, any line failed |
//! | 2 | usage or configuration error: nothing was looked up |
//! | 70 | an internal failure (a bug): e.g. the batch writer or the MCP server task died |
//! | 130 | `batch` interrupted by Ctrl-C, after flushing what was done (a second Ctrl-C exits at once with it, from `batch`) |

use std::process::ExitCode;

use crate::settings::config::ConfigError;
use crate::settings::UsageError;

/// How a command that ran to its end came out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Done {
    /// Did its work; every lookup succeeded.
    Success,
    /// Ran, and a lookup (or a batch line) ended with status `error`.
    Failure,
    /// Stopped by Ctrl-C after flushing what was done.
    Interrupted,
}

/// Why a command could not do its work. Each variant's text is the one line printed on
/// stderr (after `vetch: `), already free of secrets or redacted by the printer.
#[derive(Debug, thiserror::Error)]
pub enum AppError {
    /// The config file is missing, unreadable or invalid.
    #[error(transparent)]
    Config(#[from] ConfigError),
    /// The flags and the config do not fit together (e.g. an unknown `--provider`).
    #[error(transparent)]
    Settings(#[from] UsageError),
    /// Anything else the operator asked for that cannot be done (a batch file that does not
    /// open, a man page directory that cannot be written, an unknown subcommand page).
    #[error("{0}")]
    Usage(String),
    /// The process could not set itself up (e.g. the async runtime did not start).
    #[error("cannot start the async runtime: {0}")]
    Runtime(std::io::Error),
    /// A bug: a part of vetch that must not fail did.
    #[error("internal error (a bug): {0}")]
    Internal(String),
}

pub const EXIT_SUCCESS: u8 = 0;
pub const EXIT_FAILURE: u8 = 1;
pub const EXIT_USAGE: u8 = 2;
/// `EX_SOFTWARE` from sysexits(3).
pub const EXIT_INTERNAL: u8 = 70;
/// Interrupted by Ctrl-C (128 + SIGINT).
pub const EXIT_INTERRUPTED: u8 = 130;

/// The exit code for how a command ended. The only place that decides one.
pub fn exit_code(result: &Result<Done, AppError>) -> u8 {
    match result {
        Ok(Done::Success) => EXIT_SUCCESS,
        Ok(Done::Failure) => EXIT_FAILURE,
        Ok(Done::Interrupted) => EXIT_INTERRUPTED,
        Err(AppError::Config(_) | AppError::Settings(_) | AppError::Usage(_)) => EXIT_USAGE,
        Err(AppError::Runtime(_) | AppError::Internal(_)) => EXIT_INTERNAL,
    }
}

/// [`exit_code`] as the `ExitCode` `main` returns.
pub fn process_exit(result: &Result<Done, AppError>) -> ExitCode {
    ExitCode::from(exit_code(result))
}

impl Done {
    /// A lookup's tool result status as an ending.
    pub fn from_ok(ok: bool) -> Done {
        if ok {
            Done::Success
        } else {
            Done::Failure
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_ending_has_its_documented_code() {
        let cases: Vec<(Result<Done, AppError>, u8)> = vec![
            (Ok(Done::Success), 0),
            (Ok(Done::Failure), 1),
            (Ok(Done::Interrupted), 130),
            (Err(AppError::Usage("x".into())), 2),
            (Err(AppError::Settings(UsageError("x".into()))), 2),
            (
                Err(AppError::Runtime(std::io::Error::other("x"))),
                EXIT_INTERNAL,
            ),
            (Err(AppError::Internal("writer died".into())), 70),
        ];
        for (r, want) in &cases {
            assert_eq!(exit_code(r), *want, "{r:?}");
        }
    }
}
