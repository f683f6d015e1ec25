//! `cargo bench`: throughput of `Redactor::redact_text` on a ~5 MB realistic HTML page
//! with a few secrets sprinkled in. Plain `std::time`, median of 10 runs.

use std::hint::black_box;
use std::time::Instant;

use vetch::redact::Redactor;

const PROSE: &[&str] = &[
    "To authenticate, set the token field to your API key and send it with every request.",
    "If you forgot it, follow the password reset instructions sent to your e-mail address.",
    "Each session keeps its state for thirty minutes; the key rotates every day at midnight.",
    "The response code is 200 when the lookup succeeded and 404 when the page is missing.",
    "Authentication: required. Rate limits apply per account and per IP address.",
    "Version 2.4.1 fixes a crash in the parser (commit 3f786850e387550fdab836ed7e6dc881de23001b).",
    "Über die Schnittstelle: Zugriff nur mit gültigem Schlüssel — siehe Abschnitt 4.2.",
    "日本語の説明：トークンは設定ファイルに保存されます。",
    "Checksums: sha256 e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855.",
    "Basic usage is shown below; advanced options are documented in the reference.",
];

const CSS: &str = "<style>.token.keyword{color:#07a}.token.string{color:#690}\
body{font:16px/1.5 system-ui;background:#fff;color:#1a1a1a}\
.nav a:hover{color:#ff5733;border-bottom:1px solid #a1b2c3}\
@media (max-width:600px){.sidebar{display:none}}</style>\n";

const SCRIPT: &str = "<script>!function(e,t){var n=e.document,r={key:'id',state:'open',code:200,\
session_length:30};function o(e){return e&&e.token?e.token.value:null}\
for(var i=0;i<n.links.length;i++){var a=n.links[i];a.href.indexOf('?')>0&&(a.rel='nofollow')}\
e.__INITIAL_STATE__={\"user\":{\"id\":1234,\"name\":\"Ada\",\"roles\":[\"admin\"]},\
\"page\":{\"number\":2,\"sort\":\"desc\"},\"csrf\":\"\"};t(r,o)}(window,function(){});</script>\n";

const DATA_URI: &str = "<img alt=\"dot\" src=\"data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==\">\n";

pub fn page(target: usize) -> (String, usize) {
    let mut s = String::with_capacity(target + 64 * 1024);
    s.push_str("<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\">\n");
    s.push_str("<title>API reference — Example Docs</title>\n");
    s.push_str(CSS);
    s.push_str("</head><body>\n");
    let mut i: usize = 0;
    let mut planted = 0;
    while s.len() < target {
        i += 1;
        s.push_str(&format!(
            "<h2 id=\"section-{i}\">Section {i}</h2>\n<p>{} {} <a href=\"https://example.com/docs/guide?page={}&amp;sort=desc&amp;session_length=30#part-{i}\">read more</a>.</p>\n",
            PROSE[i % PROSE.len()],
            PROSE[(i * 7 + 3) % PROSE.len()],
            i % 50,
        ));
        s.push_str(&format!(
            "<ul class=\"nav\"><li><a href=\"/search?q=rust+async&amp;lang=en&amp;country_code=US\">Search</a></li>\
<li><a href=\"https://github.com/o/r/commit/{:040x}\">commit</a></li>\
<li><a href=\"/items/550e8400-e29b-41d4-a716-{:012x}?view=full\">item</a></li></ul>\n",
            (i as u128) * 0x9e37_79b9_7f4a_7c15,
            i * 7919,
        ));
        s.push_str(
            "<pre><code class=\"language-js\"><span class=\"token keyword\">const</span> client = \
<span class=\"token keyword\">new</span> Client({ apiKey: process.env.API_KEY, retries: 3 });\n\
<span class=\"token keyword\">const</span> res = <span class=\"token keyword\">await</span> \
client.get(<span class=\"token string\">'/v1/items?page=2&amp;sort=desc'</span>);\n\
curl -H \"Authorization: Bearer $TOKEN\" https://api.example.com/v1/items?api_key=YOUR_API_KEY\n</code></pre>\n",
        );
        if i % 3 == 0 {
            s.push_str(SCRIPT);
        }
        if i % 5 == 0 {
            s.push_str(DATA_URI);
        }
        if i % 4 == 0 {
            s.push_str(&format!(
                "<table><tr><td>v1.{}.{}</td><td>#{:06x}</td><td>2024-05-{:02}T12:00:00Z</td></tr></table>\n",
                i % 10,
                i % 7,
                i * 4099 % 0xffffff,
                i % 28 + 1
            ));
        }
        // A few real secrets, far apart.
        if i % 4000 == 17 {
            planted += 1;
            s.push_str(&format!(
                "<pre>export GITHUB_TOKEN=ghp_{:036}\nAuthorization: Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U\n\
https://api.example.com/v1/data?api_key=AbC123xyz789&amp;page=2\naws_access_key_id = AKIAIOSFODNN7EXAMPLE\n\
password = \"hunter2hunter2\" and the configured SECRETVALUE-{i}-supersecret</pre>\n",
                i
            ));
        }
    }
    s.push_str("</body></html>\n");
    (s, planted)
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.total_cmp(b));
    v[v.len() / 2]
}

/// CPU time this thread has run, from Linux's schedstat (None elsewhere). The machine is
/// shared: wall-clock rates drop when other jobs compete for the two cores, CPU time
/// does not.
fn thread_cpu_secs() -> Option<f64> {
    let s = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    let ns: f64 = s.split_whitespace().next()?.parse().ok()?;
    Some(ns / 1e9)
}

fn run(label: &str, r: &Redactor, text: &str) {
    let mb = text.len() as f64 / 1e6;
    let _ = black_box(r.redact_text(black_box(text))); // warm the DFA cache
    let mut rates = Vec::new();
    let mut out_len = 0;
    let cpu0 = thread_cpu_secs();
    for _ in 0..10 {
        let t = Instant::now();
        let out = r.redact_text(black_box(text));
        let dt = t.elapsed().as_secs_f64();
        out_len = out.len();
        rates.push(mb / dt);
        black_box(out);
    }
    let cpu = match (cpu0, thread_cpu_secs()) {
        (Some(a), Some(b)) if b > a => format!("{:.0} MB/s", 10.0 * mb / (b - a)),
        _ => "n/a".to_string(),
    };
    let out = r.redact_text(text);
    println!(
        "{label}: {:.1} MB page, wall-clock median {:.0} MB/s (min {:.0}, max {:.0}), \
         on-CPU {cpu}; {} markers, output {} bytes",
        mb,
        median(rates.clone()),
        rates.iter().cloned().fold(f64::INFINITY, f64::min),
        rates.iter().cloned().fold(0.0, f64::max),
        out.matches("[REDACTED]").count(),
        out_len
    );
}

fn main() {
    let (text, planted) = page(5 * 1024 * 1024);
    println!(
        "page: {} bytes, {} secret blocks planted",
        text.len(),
        planted
    );
    let plain = Redactor::new();
    run("redact_text, no literal secrets", &plain, &text);
    let mut with = Redactor::new();
    with.add_secret("supersecret-configured-value");
    with.add_secret("SECRETVALUE");
    with.add_secret("hunter2hunter2");
    run("redact_text, 3 literal secrets  ", &with, &text);
    // The same page as a Markdown converter would escape it: every `_` written `\_`, so
    // the reader's view is built and swept too (the slow path).
    let escaped = text.replace('_', "\\_");
    run("redact_text, Markdown-escaped page ", &with, &escaped);
    // Raw HTML with inline tags inside words (`i<b>o</b>n`): the reader's view removes
    // them, so it is built and swept too.
    let tagged = text.replace("ion", "i<b>o</b>n");
    run("redact_text, inline tags in words  ", &with, &tagged);
    let out = with.redact_text(&tagged);
    assert_eq!(
        out.matches("i<b>o</b>n").count(),
        tagged.matches("i<b>o</b>n").count()
    );
    let out = with.redact_text(&escaped);
    assert!(!out.contains("ghp\\_0000"), "escaped token survived");
    let out = with.redact_text(&text);
    assert!(!out.contains("ghp_0000"), "planted token survived");
    assert!(!out.contains("SECRETVALUE"), "literal survived");
    assert!(!out.contains("AKIAIOSFODNN7EXAMPLE"), "AWS key survived");
    assert!(!out.contains("AbC123xyz789"), "query secret survived");
}
