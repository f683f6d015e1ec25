//! Print the text vetch extracts from a PDF file, for scripts/bench-pdf.py.
//!
//! usage: cargo run --release --example pdf_text -- FILE
//! stdout: the text; stderr: `peak_rss_kib N` (Linux, the process's own high-water mark),
//! then as the last line `pages N` (pages read), or the failure.

use std::sync::atomic::AtomicBool;

fn main() {
    let Some(path) = std::env::args().nth(1) else {
        eprintln!("usage: pdf_text FILE");
        std::process::exit(2);
    };
    let bytes = match std::fs::read(&path) {
        Ok(b) => b,
        Err(e) => {
            eprintln!("{path}: {e}");
            std::process::exit(2);
        }
    };
    let limits = vetch::content::pdf::PdfLimits::default();
    let result = vetch::content::pdf::extract_pdf(&bytes, &limits, &AtomicBool::new(false));
    // The process's own high-water mark: a parent's wait4 would count the memory of the
    // (larger) scorer it was forked from.
    if let Some(kib) = std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find_map(|l| l.strip_prefix("VmHWM:").map(|v| v.trim().to_string()))
        })
    {
        eprintln!("peak_rss_kib {}", kib.trim_end_matches(" kB"));
    }
    match result {
        Ok(t) => {
            println!("{}", t.text);
            if let Some(title) = t.title {
                eprintln!("title {title}");
            }
            eprintln!("pages {}", t.pages.min(limits.max_pages));
        }
        Err(e) => {
            eprintln!("{}", e.detail());
            std::process::exit(1);
        }
    }
}
