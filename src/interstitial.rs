//! Interstitial detection: is this body a challenge, block page, consent wall or an empty
//! JavaScript app shell instead of the page that was asked for?
//!
//! A provider can answer `200 OK` with a Cloudflare "Just a moment..." page, an Akamai
//! "Access Denied", an Imperva/Incapsula iframe, a PerimeterX "Press & Hold", a DataDome
//! captcha, Google's "Before you continue" consent wall, a site's cookie wall or a
//! client-side app whose HTML is `<div id="root"></div>`. None of these is content, and
//! [`detect`] names the marker that shows it, so the attempt is judged `unusable_content`
//! and the next provider gets its turn.
//!
//! The detector weighs markers against the page rather than searching for bare
//! substrings. A challenge page carries very little visible text, so every rule has a
//! ceiling on the page's visible text above which it is not allowed to decide:
//!
//! 1. the `<title>` (or a reader API's `Title:` line, or a leading Markdown `#` heading)
//!    matched exactly against known challenge titles ("just a moment", "attention
//!    required", "access denied", ...), with less than 1500 visible characters
//!    (4000 for the Google/YouTube consent page, whose language list is long);
//! 2. vendor markup in the raw body (`_cf_chl_opt`, `challenge-platform/.../orchestrate`,
//!    `_Incapsula_Resource`, `px-captcha`, `captcha-delivery.com`, `errors.edgesuite.net`,
//!    `consent.google.com`, ...), again only on a short page. Markup that the visible
//!    text itself shows (a code sample quoting a challenge page) does not count;
//! 3. challenge phrases in the visible text ("verifying you are human", "you don't have
//!    permission to access ... on this server", "incapsula incident id", ...), alone under
//!    1000 characters, or two different ones under 1500;
//! 4. a JavaScript-only shell: an empty mount point (`<div id="root"></div>`,
//!    `<app-root></app-root>`, ...) or an "enable JavaScript" notice with almost no text;
//! 5. a cookie wall: a short page whose text is almost all consent vocabulary and that
//!    demands a choice ("accept cookies to continue", "accept all", ...).
//!
//! What it must never do is flag a real page: an article about captchas, Cloudflare,
//! cookie law or "Just a moment" pages, a page with a cookie banner above a long article,
//! a docs page asking for JavaScript for one demo, or a server-rendered React page. Any
//! page with 4000 or more visible characters is accepted without further work, which also
//! keeps a multi-megabyte page to a few milliseconds. It uses only `regex` (no HTML
//! parser), never allocates in proportion to the page except for one lower-casing of a
//! short text, and never panics: every slice is taken at a char boundary.

use std::sync::LazyLock;

use regex::{Regex, RegexBuilder, RegexSet, RegexSetBuilder};

/// A page with this many visible characters or more is never an interstitial.
const MAX_VISIBLE: usize = 4000;
/// Ceiling for most title and markup rules.
const SHORT: usize = 1500;
/// Ceiling for a single challenge phrase in the text.
const PHRASE: usize = 1000;
/// Ceiling for Google/YouTube/Yahoo consent pages, which list every UI language.
const CONSENT: usize = 4000;
/// Ceiling for an app shell: the page shows (nearly) nothing but a notice.
const SHELL: usize = 300;
/// Ceiling for a generic cookie wall.
const COOKIE_WALL: usize = 2500;
/// The title is looked for in this many leading bytes of the raw body.
const HEAD_WINDOW: usize = 256 * 1024;

/// One rule: a case-insensitive pattern, the marker it reports, and the largest amount
/// of visible text for which it may decide.
struct Rule {
    re: Regex,
    marker: &'static str,
    max_visible: usize,
    /// Markup that counts only while the visible text does not show it too (a code sample
    /// quoting a challenge page is not a challenge page).
    quotable: bool,
}

/// (pattern, marker, max_visible, quotable)
type Spec = (&'static str, &'static str, usize, bool);

/// Titles, matched against the normalized title (entities decoded, lower-cased,
/// whitespace collapsed, trimmed), anchored so that "Just a moment: a poem" is not one.
const TITLE_SPECS: &[Spec] = &[
    (r"^just a moment(?:\.|…|\s)*$", "just a moment", SHORT, false),
    (
        r"^attention required!?(?:\s*\|\s*cloudflare)?$",
        "attention required",
        SHORT,
        false,
    ),
    (r"^access denied[.!]?(?:\s*[|\-–]\s*.*)?$", "access denied", SHORT, false),
    (
        r"^access to this page has been denied\.?$",
        "access to this page has been denied",
        SHORT,
        false,
    ),
    (
        r"^(?:before you continue(?: to (?:google(?: \w+)?|youtube))?|bevor sie zu (?:google|youtube) weitergehen|avant d'accéder à (?:google|youtube))\.?$",
        "before you continue",
        CONSENT,
        false,
    ),
    (r"^checking your browser\b", "checking your browser", SHORT, false),
    (
        r"^(?:please wait|one moment, please)(?:\.|…|\s)*(?:\|\s*cloudflare)?$",
        "please wait",
        SHORT,
        false,
    ),
    (r"^(?:un instant|einen moment(?: bitte)?|un momento)(?:\.|…|\s)*$", "just a moment", SHORT, false),
    (r"^(?:sorry, )?you have been blocked\b", "you have been blocked", SHORT, false),
    (r"^ddos-guard$", "ddos-guard", SHORT, false),
    (r"^robot check$", "robot check", SHORT, false),
    (r"^are you a (?:robot|human)\??$", "are you a robot", SHORT, false),
    (
        r"^(?:human verification|verify(?:ing)? you are (?:a )?human)(?:\.|…|\s)*$",
        "human verification",
        SHORT,
        false,
    ),
    (r"^pardon our interruption", "pardon our interruption", SHORT, false),
    (r"^request rejected$", "request rejected", SHORT, false),
    (
        r"^error: the request could not be satisfied\.?$",
        "request could not be satisfied",
        SHORT,
        false,
    ),
    (
        r"sucuri website firewall",
        "sucuri website firewall",
        SHORT,
        false,
    ),
];

/// Vendor markup in the raw body. Order is priority.
const MARKUP_SPECS: &[Spec] = &[
    (r"_cf_chl_opt", "_cf_chl_opt", SHORT, true),
    // The challenge orchestrator; the bot-management script Cloudflare injects into
    // ordinary pages (`challenge-platform/scripts/jsd/main.js`) is deliberately not it.
    (
        r"/cdn-cgi/challenge-platform/(?:h/[a-z]/)?orchestrate/",
        "challenge-platform",
        SHORT,
        true,
    ),
    (r"cf[-_]chl[-_]", "cf-chl", SHORT, true),
    (r"\b(?:chk_jschl|jschl_vc|jschl_answer)\b", "jschl", SHORT, true),
    (
        r#"\bid\s*=\s*["']?(?:challenge-form|challenge-running|challenge-stage|challenge-body-text)\b"#,
        "challenge-form",
        SHORT,
        true,
    ),
    (r#"\bid\s*=\s*["']?cf-error-details\b"#, "cf-error-details", SHORT, true),
    // Incapsula's block page is an iframe onto `_Incapsula_Resource`; the same path in a
    // plain <script> is also injected into ordinary protected pages, so alone it needs
    // a nearly empty page.
    (
        r"<iframe\b[^>]*_incapsula_resource",
        "_incapsula_resource",
        SHORT,
        true,
    ),
    (r"_incapsula_resource", "_incapsula_resource", 400, true),
    (r"\bpx-captcha\b", "px-captcha", SHORT, true),
    (
        r"captcha\.px-cdn\.net|captcha\.perimeterx\.net",
        "px-captcha",
        SHORT,
        true,
    ),
    (r"captcha-delivery\.com", "captcha-delivery.com", SHORT, false),
    // DataDome's tag (js.datadome.co/tags.js) sits on ordinary pages too.
    (r"\bdatadome\b", "datadome", 300, true),
    (
        r"errors(?:\.|&#46;|&period;)edgesuite(?:\.|&#46;|&period;)net",
        "errors.edgesuite.net",
        SHORT,
        false,
    ),
    (
        r"/_sec/cp_challenge/|\bsec-if-cpt-container\b",
        "akamai cp_challenge",
        SHORT,
        true,
    ),
    (
        r"\bgokuprops\b|\.awswaf\.com/[^\s]{0,200}?/challenge\.js",
        "awswaf",
        SHORT,
        true,
    ),
    (r"/errors/validatecaptcha", "validatecaptcha", SHORT, true),
    (r"consent\.google\.[a-z.]+/", "consent.google.com", CONSENT, false),
    (r"consent\.youtube\.com/", "consent.youtube.com", CONSENT, false),
    (r"(?:consent|guce)\.yahoo\.com/", "consent.yahoo.com", CONSENT, false),
    (
        r"/\.well-known/ddos-guard/|\bddos-guard\.net/",
        "ddos-guard",
        PHRASE,
        false,
    ),
];

/// Phrases of challenge and block pages, in the visible text.
const PHRASE_SPECS: &[Spec] = &[
    (r"\A\s*just a moment(?:\.\.\.|…)", "just a moment", PHRASE, false),
    (r"\A\s*attention required!", "attention required", PHRASE, false),
    (
        r"checking your browser before accessing|this process is automatic\. your browser will redirect",
        "checking your browser",
        PHRASE,
        false,
    ),
    (
        r"checking if the site connection is secure",
        "checking if the site connection is secure",
        PHRASE,
        false,
    ),
    (
        r"verif(?:y|ying) (?:that )?you are (?:a )?human",
        "verify you are human",
        PHRASE,
        false,
    ),
    (
        r"needs to review the security of your connection",
        "review the security of your connection",
        PHRASE,
        false,
    ),
    (
        r"enable javascript and cookies to continue",
        "enable javascript and cookies to continue",
        PHRASE,
        false,
    ),
    (r"sorry, you have been blocked", "you have been blocked", PHRASE, false),
    (r"why have i been blocked\?", "why have i been blocked", PHRASE, false),
    (
        r"you don['’]?t have permission to access .{0,300}? on this server",
        "you don't have permission to access",
        PHRASE,
        false,
    ),
    (
        r"reference\s*#\s*\d{1,3}\.[0-9a-f]{4,}\.\d{6,}\.[0-9a-f]{4,}",
        "reference #",
        PHRASE,
        false,
    ),
    (r"incapsula incident id", "incapsula incident id", SHORT, false),
    (r"press\s*(?:&|&amp;|and)\s*hold", "press & hold", PHRASE, false),
    (
        r"you are using automation tools",
        "automation tools",
        PHRASE,
        false,
    ),
    (
        r"please enable js and disable any ad ?blocker",
        "enable js and disable any ad blocker",
        PHRASE,
        false,
    ),
    (
        r"enter the characters you see below",
        "enter the characters you see below",
        PHRASE,
        false,
    ),
    (
        r"our systems have detected unusual traffic",
        "unusual traffic",
        PHRASE,
        false,
    ),
    (
        r"the requested url was rejected\. please consult with your administrator",
        "requested url was rejected",
        PHRASE,
        false,
    ),
    (r"pardon our interruption", "pardon our interruption", PHRASE, false),
    (
        r"ddos protection by ddos-guard",
        "ddos-guard",
        PHRASE,
        false,
    ),
];

/// "Please enable JavaScript" notices of app shells.
const JS_NOTICE_SPECS: &[Spec] = &[
    (
        r"you need to enable javascript|(?:please )?(?:enable|turn on) javascript (?:to|and reload|in your browser)|javascript is (?:required|disabled|not enabled)|(?:requires|needs) javascript to (?:run|work|function)|doesn['’]?t work (?:properly )?without javascript",
        "enable javascript",
        SHELL,
        false,
    ),
    (
        r"javascript is not available\.",
        "javascript is not available",
        PHRASE,
        false,
    ),
];

/// Demands that make a cookie-consent text a wall; the first match is the marker.
const COOKIE_DEMAND_SPECS: &[Spec] = &[
    (
        r"(?:accept|allow|enable|agree to)\s+(?:all\s+|the\s+use\s+of\s+)?cookies\s+to\s+(?:continue|proceed|access|view|read|use|keep)",
        "accept cookies to continue",
        COOKIE_WALL,
        false,
    ),
    (
        r"(?:must|need to|have to|please)\s+(?:accept|allow|enable|consent to)\s+(?:the\s+use\s+of\s+|our\s+)?(?:all\s+)?cookies",
        "accept cookies",
        COOKIE_WALL,
        false,
    ),
    (
        r"cookies\s+(?:are|must be)\s+(?:required|enabled)\b",
        "cookies required",
        COOKIE_WALL,
        false,
    ),
    (
        r"we value your privacy",
        "we value your privacy",
        COOKIE_WALL,
        false,
    ),
    (
        r"\b(?:accept|allow) all(?: cookies)?\b|\bagree and (?:continue|close)\b",
        "accept all",
        COOKIE_WALL,
        false,
    ),
];

fn compile(specs: &[Spec]) -> Vec<Rule> {
    specs
        .iter()
        .filter_map(|&(pattern, marker, max_visible, quotable)| {
            RegexBuilder::new(pattern)
                .case_insensitive(true)
                .build()
                .ok()
                .map(|re| Rule {
                    re,
                    marker,
                    max_visible,
                    quotable,
                })
        })
        .collect()
}

static TITLE_RULES: LazyLock<Vec<Rule>> = LazyLock::new(|| compile(TITLE_SPECS));
static MARKUP_RULES: LazyLock<Vec<Rule>> = LazyLock::new(|| compile(MARKUP_SPECS));
/// All markup patterns in one set, so a large body is scanned once.
static MARKUP_SET: LazyLock<Option<RegexSet>> = LazyLock::new(|| {
    RegexSetBuilder::new(MARKUP_SPECS.iter().map(|s| s.0))
        .case_insensitive(true)
        .build()
        .ok()
});
static PHRASE_RULES: LazyLock<Vec<Rule>> = LazyLock::new(|| compile(PHRASE_SPECS));
static JS_NOTICE_RULES: LazyLock<Vec<Rule>> = LazyLock::new(|| compile(JS_NOTICE_SPECS));
static COOKIE_DEMAND_RULES: LazyLock<Vec<Rule>> =
    LazyLock::new(|| compile(COOKIE_DEMAND_SPECS));

static HTML_TITLE: LazyLock<Option<Regex>> =
    LazyLock::new(|| ci(r"<title\b[^>]*>([^<]*)<"));
/// A reader API's header line (`Title: ...`) at the very top of the body.
static READER_TITLE: LazyLock<Option<Regex>> = LazyLock::new(|| ci(r"\A\s*title:[ \t]*([^\r\n]*)"));
/// A Markdown body whose first line is a level-one heading.
static MARKDOWN_TITLE: LazyLock<Option<Regex>> = LazyLock::new(|| ci(r"\A\s*#[ \t]+([^\r\n]*)"));
/// An empty client-side mount point.
static EMPTY_MOUNT: LazyLock<Option<Regex>> = LazyLock::new(|| {
    ci(concat!(
        r#"<div\b[^>]*\bid\s*=\s*["']?(?:root|app|__next|__nuxt|main|application|react-root|ember-app|svelte)["']?[^>]*>\s*(?:<!--[^>]{0,80}-->\s*)?</div>"#,
        r"|<app-root\b[^>]*>\s*</app-root>"
    ))
});
/// Vocabulary of consent banners and walls; a text segment using it is "consent text".
static COOKIE_VOCAB: LazyLock<Option<Regex>> = LazyLock::new(|| {
    ci(concat!(
        r"cookie|consent|privacy|partners|vendors|personali[sz]|advertis|preferences|",
        r"\baccept|\breject|\bagree|legitimate interest|opt[ -]out|tracking|\bdevice|",
        r"personal data|withdraw|more options|manage (?:options|settings)|settings|",
        r"subscribe|ad-free|\bads\b"
    ))
});

fn ci(pattern: &str) -> Option<Regex> {
    RegexBuilder::new(pattern).case_insensitive(true).build().ok()
}

/// `raw` is the decoded response body as received (HTML, Markdown from a reader API, JSON, plain text);
/// `text` is the visible/extracted text the caller would receive (for HTML: the page's text with
/// markup, scripts and styles removed; for non-HTML it equals `raw`).
/// Returns the deciding marker, lower-case, short, e.g. "just a moment", when the page is an
/// interstitial, challenge, cookie wall or JS-only app shell; None for a real page.
///
/// Never panics; cost is linear in the input and small (a long page returns after counting
/// its first 4000 visible characters).
pub fn detect(raw: &str, text: &str) -> Option<&'static str> {
    let visible = visible_len(text, MAX_VISIBLE);
    if visible >= MAX_VISIBLE {
        return None;
    }
    let quoting_possible = raw != text;

    // 1. The title.
    for title in titles(raw) {
        if let Some(rule) = TITLE_RULES
            .iter()
            .find(|r| visible < r.max_visible && r.re.is_match(&title))
        {
            return Some(rule.marker);
        }
    }

    // 2. Vendor markup.
    if let Some(marker) = markup_marker(raw, text, visible, quoting_possible) {
        return Some(marker);
    }

    // 3. Challenge phrases in the visible text.
    let hits: Vec<&Rule> = PHRASE_RULES.iter().filter(|r| r.re.is_match(text)).collect();
    if let Some(rule) = hits.iter().find(|r| visible < r.max_visible) {
        return Some(rule.marker);
    }
    if visible < SHORT {
        if let Some(first) = hits.first() {
            if hits.iter().any(|r| r.marker != first.marker) {
                return Some(first.marker);
            }
        }
    }

    // 4. A JavaScript-only app shell.
    if let Some(marker) = app_shell_marker(raw, text, visible) {
        return Some(marker);
    }

    // 5. A cookie wall.
    cookie_wall_marker(text, visible)
}

fn markup_marker(
    raw: &str,
    text: &str,
    visible: usize,
    quoting_possible: bool,
) -> Option<&'static str> {
    let rules = &*MARKUP_RULES;
    let matched: Vec<usize> = match &*MARKUP_SET {
        // The set and the rules come from the same specs; if either failed to build, the
        // lengths differ and every rule is tried on its own instead.
        Some(set) if set.len() == rules.len() => set.matches(raw).into_iter().collect(),
        _ => (0..rules.len())
            .filter(|&i| rules.get(i).is_some_and(|r| r.re.is_match(raw)))
            .collect(),
    };
    matched
        .into_iter()
        .filter_map(|i| rules.get(i))
        .find(|r| visible < r.max_visible && !(quoting_possible && r.quotable && r.re.is_match(text)))
        .map(|r| r.marker)
}

fn app_shell_marker(raw: &str, text: &str, visible: usize) -> Option<&'static str> {
    let notice = |hay: &str| {
        JS_NOTICE_RULES
            .iter()
            .find(|r| r.re.is_match(hay))
            .map(|r| (r.marker, r.max_visible))
    };
    let empty_mount = visible < SHELL
        && EMPTY_MOUNT
            .as_ref()
            .is_some_and(|re| re.is_match(raw));
    if empty_mount {
        // The notice usually sits in <noscript>, which an extractor may or may not keep.
        return Some(match notice(text).or_else(|| notice(raw)) {
            Some((marker, _)) => marker,
            None => "empty app shell",
        });
    }
    match notice(text) {
        Some((marker, max_visible)) if visible < max_visible => Some(marker),
        _ => None,
    }
}

fn cookie_wall_marker(text: &str, visible: usize) -> Option<&'static str> {
    if visible >= COOKIE_WALL {
        return None;
    }
    let vocab = COOKIE_VOCAB.as_ref()?;
    let demand = COOKIE_DEMAND_RULES
        .iter()
        .find(|r| visible < r.max_visible && r.re.is_match(text))?;
    if !text.to_lowercase().contains("cookie") && !text.to_lowercase().contains("consent") {
        return None;
    }
    let (mut consent, mut other) = (0usize, 0usize);
    for segment in text.split(['.', '!', '?', '\n', '|']) {
        let len = visible_len(segment, usize::MAX);
        if vocab.is_match(segment) {
            consent += len;
        } else {
            other += len;
        }
    }
    // A wall is consent text and little else: a banner above an article is not.
    (consent >= 100 && other < 600 && consent >= 2 * other).then_some(demand.marker)
}

/// Characters of `text` with runs of whitespace counted as one, counting stops at `cap`.
fn visible_len(text: &str, cap: usize) -> usize {
    let mut n = 0usize;
    let mut in_space = true;
    for c in text.chars() {
        if c.is_whitespace() {
            if !in_space {
                n += 1;
                in_space = true;
            }
        } else {
            n += 1;
            in_space = false;
        }
        if n >= cap {
            return cap;
        }
    }
    if in_space && n > 0 {
        n - 1
    } else {
        n
    }
}

/// The largest prefix of `s` not longer than `max` bytes, cut at a char boundary.
fn prefix(s: &str, max: usize) -> &str {
    if s.len() <= max {
        return s;
    }
    let mut end = max;
    while end > 0 && !s.is_char_boundary(end) {
        end -= 1;
    }
    s.get(..end).unwrap_or("")
}

/// Candidate titles, normalized: the HTML `<title>`, a reader API `Title:` line, or a
/// leading Markdown heading.
fn titles(raw: &str) -> Vec<String> {
    let head = prefix(raw, HEAD_WINDOW);
    let mut out = Vec::new();
    for re in [&*HTML_TITLE, &*READER_TITLE, &*MARKDOWN_TITLE]
        .into_iter()
        .flatten()
    {
        if let Some(m) = re.captures(head).and_then(|c| c.get(1)) {
            out.push(normalize_title(m.as_str()));
        }
    }
    out
}

fn normalize_title(title: &str) -> String {
    let short: String = title.chars().take(300).collect();
    let decoded = short
        .replace("&hellip;", "…")
        .replace("&#8230;", "…")
        .replace("&#x2026;", "…")
        .replace("&nbsp;", " ")
        .replace("&#160;", " ")
        .replace("&#39;", "'")
        .replace("&#x27;", "'")
        .replace("&apos;", "'")
        .replace("&rsquo;", "'")
        .replace('’', "'")
        .replace("&quot;", "\"")
        .replace("&amp;", "&");
    decoded
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .to_lowercase()
}
