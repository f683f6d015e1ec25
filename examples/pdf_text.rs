//! Print the text vetch extracts from a PDF file, for scripts/bench-pdf.py.
//!
//! usage: cargo run --release --example pdf_text -- FILE
//! stdout: the text; stderr, last line: `pages N` (pages read), or the failure.

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
    let limits = vetch::pdf::PdfLimits::default();
    match vetch::pdf::extract_pdf(&bytes, &limits, &AtomicBool::new(false)) {
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
