//! `config.example.toml` is the operator's manual: it must parse as it stands, and every
//! commented-out recipe must parse once uncommented (with its variables set to dummies).

use vetch::fetch::spec::ProviderKind;
use vetch::settings::config::{parse, ConfigSource};

fn example() -> String {
    std::fs::read_to_string(format!(
        "{}/config.example.toml",
        env!("CARGO_MANIFEST_DIR")
    ))
    .unwrap()
}

/// `(name, uncommented body)` for each `# --- recipe: NAME ---` block.
fn recipes(text: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut current: Option<(String, String)> = None;
    for line in text.lines() {
        if let Some(name) = line
            .strip_prefix("# --- recipe: ")
            .and_then(|l| l.strip_suffix(" ---"))
        {
            current = Some((name.to_string(), String::new()));
        } else if line == "# --- end ---" {
            out.extend(current.take());
        } else if let Some((_, body)) = current.as_mut() {
            let l = line
                .strip_prefix("# ")
                .or_else(|| line.strip_prefix('#'))
                .unwrap_or(line);
            body.push_str(l);
            body.push('\n');
        }
    }
    out
}

fn dummy_env(name: &str) -> Option<String> {
    name.ends_with("_API_KEY")
        .then(|| format!("dummy-{}-value", name.to_lowercase()))
}

#[test]
fn example_parses_as_is() {
    let c = parse(&example(), ConfigSource::BuiltIn, &|_| None).unwrap();
    assert_eq!(c.providers.len(), 1);
    assert_eq!(c.providers[0].name, "direct");
    assert_eq!(
        c.lookup,
        vetch::settings::config::LookupSection::default(),
        "the example documents the defaults"
    );
}

#[test]
fn every_recipe_parses_and_is_ready_with_its_variables() {
    let rs = recipes(&example());
    let names: Vec<&str> = rs.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(
        names,
        [
            "jina-reader",
            "firecrawl-scrape",
            "scrapingbee",
            "wayback",
            "chromium",
            "curl"
        ]
    );
    for (name, body) in &rs {
        let c = parse(body, ConfigSource::BuiltIn, &dummy_env)
            .unwrap_or_else(|e| panic!("{name}: {e}\n{body}"));
        assert_eq!(c.providers.len(), 1, "{name}");
        let p = &c.providers[0];
        if p.kind != ProviderKind::Command {
            assert!(p.ready.is_ready(), "{name}: {:?}", p.ready);
        }
        // Without the variables, keyed recipes are not ready (and say which variable).
        let bare = parse(body, ConfigSource::BuiltIn, &|_| None).unwrap();
        if body.contains("${") {
            let why = bare.providers[0].ready.to_string();
            assert!(why.starts_with("missing env "), "{name}: {why}");
        }
    }
}
