//! `vetch providers`: what is configured, in order, and whether each provider is ready.
//! Prints names, kinds, targets and reasons; never a header, a query or a secret value
//! (and the printer redacts all the same).

use serde_json::json;

use crate::frontends::output::Printer;
use crate::settings::Settings;

/// One row per provider, as JSON.
pub fn rows(s: &Settings) -> serde_json::Value {
    let providers: Vec<serde_json::Value> = s
        .providers()
        .iter()
        .map(|p| {
            json!({
                "name": p.name,
                "kind": p.kind.as_str(),
                "target": p.target(),
                "ready": p.ready.is_ready(),
                "why_not": (!p.ready.is_ready()).then(|| p.ready.to_string()),
            })
        })
        .collect();
    json!({
        "config": s.source().to_string(),
        "providers_available": s.ready_providers().count(),
        "providers": providers,
    })
}

/// Print the table (or JSON with `json`).
pub fn print(s: &Settings, as_json: bool, printer: &Printer) {
    if as_json {
        let _ = printer.json(&rows(s));
        return;
    }
    let mut out = format!("config: {}\n", s.source());
    if s.providers().is_empty() {
        out.push_str("no providers configured: every lookup ends no_providers_configured\n");
        let _ = printer.text(&out);
        return;
    }
    let table: Vec<[String; 4]> = s
        .providers()
        .iter()
        .map(|p| {
            [
                p.name.clone(),
                p.kind.as_str().to_string(),
                p.target(),
                if p.ready.is_ready() {
                    "ready".to_string()
                } else {
                    format!("not ready: {}", p.ready)
                },
            ]
        })
        .collect();
    let header = ["NAME", "KIND", "TARGET", "STATUS"].map(String::from);
    let mut widths = [0usize; 3];
    for row in std::iter::once(&header).chain(table.iter()) {
        for (w, cell) in widths.iter_mut().zip(row.iter()) {
            *w = (*w).max(cell.chars().count());
        }
    }
    for row in std::iter::once(&header).chain(table.iter()) {
        out.push_str(&format!(
            "{:w0$}  {:w1$}  {:w2$}  {}\n",
            row[0],
            row[1],
            row[2],
            row[3],
            w0 = widths[0],
            w1 = widths[1],
            w2 = widths[2]
        ));
    }
    out.push_str(&format!(
        "{} of {} ready\n",
        s.ready_providers().count(),
        s.providers().len()
    ));
    let _ = printer.text(&out);
}
