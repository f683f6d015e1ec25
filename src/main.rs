//! The `vetch` binary: parse the command line, run, exit with the code the run decided.

use clap::Parser;

fn main() -> std::process::ExitCode {
    vetch::frontends::heap::tune();
    // A panic must never print a payload that might hold page text or a secret.
    std::panic::set_hook(Box::new(|_| {
        eprintln!("vetch: internal error (a bug): the operation was aborted");
    }));
    match vetch::frontends::cli::Cli::try_parse() {
        Ok(cli) => vetch::frontends::app::run(cli),
        Err(e) => vetch::frontends::app::usage_error(e),
    }
}
