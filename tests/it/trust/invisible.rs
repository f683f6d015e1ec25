//! The invisible-character matrix (issue 24): every token family split by every character
//! or markup no reader sees, at two cut points, read back through every mode.

use super::*;

/// How a page can split a token without a reader seeing the split: a character (raw or as
/// an entity) or markup no browser shows, put at the cut, or wrapped around the next few
/// characters (`<x-k>…</x-k>`).
enum Cut {
    Insert(&'static str),
    Wrap(&'static str, &'static str),
}

/// Every character and markup the reader's view drops (issue 24, items 1, 2 and 7): format
/// characters, variation selectors, the combining grapheme joiner, tag characters, bidi
/// controls, Hangul fillers, soft hyphens, controls, inline tags, comments, `<wbr>`, and
/// unknown or custom elements (inline in every browser).
const INVISIBLES: &[(&str, Cut)] = &[
    ("shy", Cut::Insert("\u{AD}")),
    ("shy_named", Cut::Insert("&shy;")),
    ("shy_numeric", Cut::Insert("&#173;")),
    ("zwsp", Cut::Insert("\u{200B}")),
    ("zwsp_numeric", Cut::Insert("&#8203;")),
    ("zwsp_hex", Cut::Insert("&#x200b;")),
    ("zwnj", Cut::Insert("\u{200C}")),
    ("zwj", Cut::Insert("\u{200D}")),
    ("lrm", Cut::Insert("\u{200E}")),
    ("rlm", Cut::Insert("\u{200F}")),
    ("alm", Cut::Insert("\u{061C}")),
    ("word_joiner", Cut::Insert("\u{2060}")),
    ("function_application", Cut::Insert("\u{2061}")),
    ("invisible_times", Cut::Insert("\u{2062}")),
    ("invisible_separator", Cut::Insert("\u{2063}")),
    ("invisible_plus", Cut::Insert("\u{2064}")),
    ("bom", Cut::Insert("\u{FEFF}")),
    ("cgj", Cut::Insert("\u{034F}")),
    ("vs1", Cut::Insert("\u{FE00}")),
    ("vs16", Cut::Insert("\u{FE0F}")),
    ("vs17", Cut::Insert("\u{E0100}")),
    ("tag_language", Cut::Insert("\u{E0001}")),
    ("tag_a", Cut::Insert("\u{E0041}")),
    ("tag_cancel", Cut::Insert("\u{E007F}")),
    ("tag_numeric", Cut::Insert("&#xE0041;")),
    ("lre", Cut::Insert("\u{202A}")),
    ("rle", Cut::Insert("\u{202B}")),
    ("pdf", Cut::Insert("\u{202C}")),
    ("lro", Cut::Insert("\u{202D}")),
    ("rlo", Cut::Insert("\u{202E}")),
    ("lri", Cut::Insert("\u{2066}")),
    ("rli", Cut::Insert("\u{2067}")),
    ("fsi", Cut::Insert("\u{2068}")),
    ("pdi", Cut::Insert("\u{2069}")),
    ("hangul_filler", Cut::Insert("\u{3164}")),
    ("hangul_choseong_filler", Cut::Insert("\u{115F}")),
    ("hangul_jungseong_filler", Cut::Insert("\u{1160}")),
    ("halfwidth_hangul_filler", Cut::Insert("\u{FFA0}")),
    ("mongolian_fvs1", Cut::Insert("\u{180B}")),
    ("mongolian_vowel_separator", Cut::Insert("\u{180E}")),
    ("khmer_inherent", Cut::Insert("\u{17B4}")),
    ("interlinear_anchor", Cut::Insert("\u{FFF9}")),
    ("bell", Cut::Insert("\u{7}")),
    ("escape_sequence", Cut::Insert("\u{1b}[0m")),
    ("comment", Cut::Insert("<!-- x -->")),
    ("wbr", Cut::Insert("<wbr>")),
    ("empty_bold", Cut::Insert("<b></b>")),
    ("span", Cut::Wrap("<span class=\"k\">", "</span>")),
    ("custom_element", Cut::Wrap("<x-k>", "</x-k>")),
    ("unknown_element", Cut::Wrap("<foo>", "</foo>")),
];

/// A token family of the invisible matrix: the token for one cell (from a per-cell random
/// source) and the byte range of its secret part (the part that must never be readable;
/// fixed public prefixes and the JWT's header are not secret).
struct Family {
    name: &'static str,
    make: fn(&mut Rng) -> (String, std::ops::Range<usize>),
}

const FAMILIES: &[Family] = &[
    Family {
        name: "github",
        make: |r| with_prefix("ghp_", r.pick(ALNUM, 36), ""),
    },
    Family {
        name: "stripe",
        make: |r| with_prefix("sk_live_51H", r.pick(ALNUM, 24), ""),
    },
    Family {
        name: "aws",
        make: |r| with_prefix("AKIA", r.pick("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567", 16), ""),
    },
    Family {
        name: "slack",
        make: |r| {
            let head = format!(
                "xoxb-{}-{}-",
                r.pick("0123456789", 12),
                r.pick("0123456789", 13)
            );
            with_prefix(&head, r.pick(ALNUM, 24), "")
        },
    },
    Family {
        name: "jwt",
        make: |r| {
            with_prefix(
                "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.",
                r.pick(ALNUM, 43),
                "",
            )
        },
    },
    Family {
        name: "url_param",
        make: |r| {
            with_prefix(
                "https://api.example.com/v1/items?api_key=",
                r.pick(ALNUM, 24),
                "&page=2",
            )
        },
    },
    Family {
        name: "config",
        make: |r| with_prefix("team_prod_key_", r.pick(ALNUM, 24), ""),
    },
    Family {
        name: "openai",
        make: |r| with_prefix("sk-proj-", r.pick(ALNUM, 48), ""),
    },
    Family {
        name: "anthropic",
        make: |r| with_prefix("sk-ant-api03-", r.pick(ALNUM, 80), "AA"),
    },
];

/// Where a token is cut: early (a few characters into its secret, before any family's
/// minimum length) and late (a few characters before its end, after every family's
/// minimum length, where a match on the first half used to win).
/// Where a cut falls in a token, from the byte range of its secret part.
type CutAt = fn(&std::ops::Range<usize>) -> usize;

const CUTS: &[(&str, CutAt)] = &[("early", |r| r.start + 4), ("late", |r| r.end - WINDOW)];

/// A leak is any `WINDOW` characters of a cell's secret part readable in an output.
const WINDOW: usize = 8;

struct InvisibleCell {
    id: String,
    token: String,
    secret: String,
    label: String,
    html: String,
}

fn invisible_cells() -> Vec<InvisibleCell> {
    let mut rng = Rng(0x2545_f491_4f6c_dd1d);
    let mut out = Vec::new();
    for family in FAMILIES {
        for (ci, (cut_name, cut_at)) in CUTS.iter().enumerate() {
            for (ii, (inv_name, inv)) in INVISIBLES.iter().enumerate() {
                let (token, range) = (family.make)(&mut rng);
                let at = cut_at(&range);
                let (a, b) = token.split_at(at);
                let split = match inv {
                    Cut::Insert(s) => format!("{a}{s}{b}"),
                    Cut::Wrap(open, close) => {
                        let (mid, rest) = b.split_at(5);
                        format!("{a}{open}{mid}{close}{rest}")
                    }
                };
                let label = format!("Lbl{}y{ci}y{ii:02}", family.name);
                let html = format!("<p>{label} the key is {split} in plain prose.</p>\n");
                out.push(InvisibleCell {
                    id: format!("{}/{inv_name}/{cut_name}", family.name),
                    secret: token[range].to_string(),
                    token,
                    label,
                    html,
                });
            }
        }
    }
    out
}

/// Is `c` a character the reader's view drops: a format character (Unicode category Cf),
/// a variation selector, the combining grapheme joiner, a tag character, a Hangul filler,
/// a Mongolian free variation selector or a control other than a line break or tab?
fn unseen(c: char) -> bool {
    matches!(c,
        '\u{AD}' | '\u{34F}' | '\u{61C}' | '\u{115F}' | '\u{1160}' | '\u{17B4}' | '\u{17B5}'
        | '\u{180B}'..='\u{180F}' | '\u{200B}'..='\u{200F}' | '\u{202A}'..='\u{202E}'
        | '\u{2060}'..='\u{206F}' | '\u{3164}' | '\u{FE00}'..='\u{FE0F}' | '\u{FEFF}'
        | '\u{FFA0}' | '\u{FFF0}'..='\u{FFFB}' | '\u{E0000}'..='\u{E0FFF}')
        || (c.is_control() && !matches!(c, '\n' | '\t'))
}

/// What a reader sees of `s` once tags, comments and invisible characters are gone (the
/// named references a page may use for them decoded first).
fn unseen_removed(s: &str) -> String {
    let s = s
        .replace("&shy;", "\u{AD}")
        .replace("&ZeroWidthSpace;", "\u{200B}");
    let s = html_unescape(&s);
    let mut out = String::with_capacity(s.len());
    let mut rest = s.as_str();
    while let Some(i) = rest.find('<') {
        out.push_str(&rest[..i]);
        let tail = &rest[i..];
        let end = if tail.starts_with("<!--") {
            tail.find("-->").map(|e| e + 3)
        } else {
            tail.find('>').map(|e| e + 1)
        };
        match end {
            Some(e) => rest = &tail[e..],
            None => {
                out.push('<');
                rest = &tail[1..];
            }
        }
    }
    out.push_str(rest);
    // An escape sequence's printable tail (`[0m`) stays: only its ESC is unseen, and a
    // reader would see `[0m` between the halves.
    out.chars().filter(|&c| !unseen(c)).collect()
}

/// The cells (indexes into `secrets`) of which `WINDOW` consecutive characters of the
/// secret part can be read in `seen`: every window of every secret (all ASCII) in one map,
/// and one walk over the bytes of `seen`.
fn leaked_cells(seen: &str, secrets: &[&str]) -> BTreeSet<usize> {
    let mut windows: std::collections::HashMap<&[u8], Vec<usize>> =
        std::collections::HashMap::new();
    for (i, secret) in secrets.iter().enumerate() {
        assert!(secret.is_ascii());
        for w in secret.as_bytes().windows(WINDOW) {
            windows.entry(w).or_default().push(i);
        }
    }
    let mut out = BTreeSet::new();
    for w in seen.as_bytes().windows(WINDOW) {
        if let Some(cells) = windows.get(w) {
            out.extend(cells.iter().copied());
        }
    }
    out
}

#[tokio::test]
async fn no_token_split_by_an_invisible_character_is_readable_in_any_mode() {
    let cells = invisible_cells();
    let body: String = cells.iter().map(|c| c.html.as_str()).collect();
    let page = format!(
        "<!doctype html><html><head><meta charset=\"utf-8\"><title>Invisible notes</title></head>\
         <body><article><h1>Deployment notes</h1><p>These notes describe how the service is \
         deployed and which credentials it uses. Every line below is part of the article a \
         reader came for, and each one mentions a value that must never be shown.</p>\n\
         {body}</article></body></html>"
    );
    let server = MockServer::start().await;
    Mock::given(path("/invisible"))
        .respond_with(
            ResponseTemplate::new(200).set_body_raw(page.into_bytes(), "text/html; charset=utf-8"),
        )
        .mount(&server)
        .await;
    let url = format!("{}/invisible", server.uri());
    // The configured secrets, ten to a header (a server refuses a hundred headers).
    let mut env = Vec::new();
    let mut values: Vec<String> = Vec::new();
    for (i, c) in cells.iter().enumerate() {
        if c.id.starts_with("config/") {
            values.push(format!("${{INVISIBLE_{i}}}"));
            env.push((format!("INVISIBLE_{i}"), c.token.clone()));
        }
    }
    let headers: Vec<String> = values
        .chunks(10)
        .enumerate()
        .map(|(i, v)| format!("X-Canary-{i} = \"{}\"", v.join(" ")))
        .collect();
    let cfg = config_file(&format!(
        "[[providers]]\nname = \"direct\"\nkind = \"http\"\nheaders = {{ {} }}\n",
        headers.join(", ")
    ));
    let mut leaks: BTreeSet<(String, String)> = BTreeSet::new();
    for mode in MODES {
        let (stdout, stderr) = run_mode(mode, &url, &cfg, &env);
        assert!(
            stdout.contains("Deployment notes")
                || (*mode == "receipt" && stdout.contains("\"ok\":true")),
            "{mode}: the page did not come back:\n{stdout}\n{stderr}"
        );
        let seen = readable(&format!("{stdout}\n{stderr}"));
        let seen = format!("{seen}\n{}", unseen_removed(&seen));
        if *mode != "receipt" {
            for cell in &cells {
                assert!(
                    seen.contains(&cell.label),
                    "{mode}: label {} of {} is missing, so the cell proves nothing",
                    cell.label,
                    cell.id
                );
            }
        }
        let secrets: Vec<&str> = cells.iter().map(|c| c.secret.as_str()).collect();
        for i in leaked_cells(&seen, &secrets) {
            leaks.insert((cells[i].id.clone(), mode.to_string()));
        }
    }
    eprintln!(
        "invisible matrix: {} cells ({} characters or markups x {} families x {} cuts) x {} modes = {}; leaking: {}",
        cells.len(),
        INVISIBLES.len(),
        FAMILIES.len(),
        CUTS.len(),
        MODES.len(),
        cells.len() * MODES.len(),
        leaks.len()
    );
    assert!(
        leaks.is_empty(),
        "{} readable secret(s) (cell, mode): {leaks:#?}",
        leaks.len()
    );
}

/// The matrix's own helpers: every cell is unique and splits its token, and the reader's
/// view undoes every split.
#[test]
fn invisible_matrix_helpers_read_as_a_reader() {
    let cells = invisible_cells();
    let ids: BTreeSet<&str> = cells.iter().map(|c| c.id.as_str()).collect();
    assert_eq!(ids.len(), cells.len());
    for c in &cells {
        assert!(
            !c.html.contains(&c.token),
            "{} does not split its token",
            c.id
        );
        let seen = unseen_removed(&c.html);
        assert!(
            seen.contains(&c.token) || c.id.contains("escape_sequence"),
            "{}: {seen}",
            c.id
        );
        assert!(c.secret.chars().count() >= WINDOW * 2, "{}", c.id);
    }
    let secrets: Vec<&str> = cells.iter().map(|c| c.secret.as_str()).collect();
    let found = leaked_cells(&format!("x {} y", &cells[3].secret[2..12]), &secrets);
    assert_eq!(found.into_iter().collect::<Vec<_>>(), [3]);
    assert!(leaked_cells("nothing here", &secrets).is_empty());
}
