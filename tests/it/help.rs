//! `--help` snapshots of the main commands, so a change to the interface is a visible diff.
//! Regenerate with `UPDATE_SNAPSHOTS=1 cargo test --test it help::` and review the diff.

use crate::common;

const CASES: &[(&str, &[&str])] = &[
    ("vetch", &["--help"]),
    ("lookup", &["lookup", "--help"]),
    ("tool", &["tool", "--help"]),
    ("batch", &["batch", "--help"]),
    ("providers", &["providers", "--help"]),
    ("tool-spec", &["tool-spec", "--help"]),
    ("man", &["man", "--help"]),
];

#[test]
fn help_matches_snapshots() {
    let update = std::env::var_os("UPDATE_SNAPSHOTS").is_some();
    let mut stale = Vec::new();
    for (name, args) in CASES {
        let out = common::vetch()
            .env("COLUMNS", "100")
            .args(*args)
            .output()
            .unwrap();
        assert!(out.status.success(), "{name}");
        let got = String::from_utf8(out.stdout).unwrap();
        let path = format!(
            "{}/tests/snapshots/help-{name}.txt",
            env!("CARGO_MANIFEST_DIR")
        );
        if update {
            std::fs::write(&path, &got).unwrap();
            continue;
        }
        let want = std::fs::read_to_string(&path).unwrap_or_default();
        if got != want {
            stale.push(format!("--- {path}\n{got}"));
        }
    }
    assert!(
        stale.is_empty(),
        "help changed (UPDATE_SNAPSHOTS=1 to accept):\n{}",
        stale.join("\n")
    );
}
