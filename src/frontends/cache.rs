//! `vetch cache info` and `vetch cache clear`: where the private HTTP cache lives, how much
//! it holds, whether it is refused (a directory not this user's alone), and emptying it.
//! Reads the directory only; never prints an entry's key or content (keys are hashes
//! anyway).

use serde_json::json;

use crate::fetch::cache;
use crate::frontends::cli::CacheAction;
use crate::frontends::exit::{AppError, Done};
use crate::frontends::output::Printer;
use crate::settings::Settings;

/// Megabytes with one decimal, for people.
fn mb(bytes: u64) -> String {
    format!("{:.1} MB", bytes as f64 / (1024.0 * 1024.0))
}

pub fn run(s: &Settings, action: &CacheAction, printer: &Printer) -> Result<Done, AppError> {
    let (section, dir) = s.cache_section();
    let Some(dir) = dir else {
        return Err(AppError::Usage(
            "no cache directory: set [cache] dir, XDG_CACHE_HOME or HOME".into(),
        ));
    };
    match action {
        CacheAction::Info { json } => {
            let info = cache::info(dir);
            if *json {
                let _ = printer.json(&json!({
                    "dir": info.dir,
                    "enabled": section.enabled,
                    "entries": info.entries,
                    "bytes": info.bytes,
                    "max_size_mb": section.max_size_mb,
                    "default_ttl_secs": section.default_ttl_secs,
                    "refused": info.refused,
                }));
            } else {
                let refused = info
                    .refused
                    .as_deref()
                    .map(|why| format!("refused: {why}; lookups run without the cache\n"))
                    .unwrap_or_default();
                let _ = printer.text(&format!(
                    "dir: {}\n{refused}enabled: {}\nentries: {}\nsize: {} ({} bytes) of {} MB\ndefault ttl: {} s\n",
                    info.dir.display(),
                    if section.enabled { "yes" } else { "no" },
                    info.entries,
                    mb(info.bytes),
                    info.bytes,
                    section.max_size_mb,
                    section.default_ttl_secs,
                ));
            }
            Ok(Done::Success)
        }
        CacheAction::Clear => {
            // A refused directory is not emptied: what is in it is not vetch's to remove.
            let before = cache::clear(dir).map_err(|e| {
                AppError::Usage(format!("cannot clear the cache in {}: {e}", dir.display()))
            })?;
            let _ = printer.text(&format!(
                "removed {} entries ({}) from {}\n",
                before.entries,
                mb(before.bytes),
                dir.display()
            ));
            Ok(Done::Success)
        }
    }
}
