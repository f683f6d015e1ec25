//! The matcher's tables: Google's robots.txt matcher tests (google/robotstxt,
//! `robots_test.cc`, ported case by case, named after their tests), RFC 9309's own
//! examples, and the cases of DESIGN §13 that the parser alone decides.

use super::*;

/// Is `url` (a path, or a full http URL) allowed for `agent` by `txt`?
fn allowed(txt: &str, agent: &str, url: &str) -> bool {
    allowed_bytes(txt.as_bytes(), agent, url)
}

fn allowed_bytes(txt: &[u8], agent: &str, url: &str) -> bool {
    let path = match url::Url::parse(url) {
        Ok(u) => match u.query() {
            Some(q) => format!("{}?{q}", u.path()),
            None => u.path().to_string(),
        },
        Err(_) => url.to_string(),
    };
    Rules::parse(txt, agent).check(&path) == Verdict::Allowed
}

/// `(robots.txt, agent, url, allowed)` rows, each named by the case it comes from.
fn table(rows: &[(&str, &str, &str, &str, bool)]) {
    for (name, txt, agent, url, want) in rows {
        assert_eq!(
            allowed(txt, agent, url),
            *want,
            "{name}: {agent} {url} in {txt:?}"
        );
    }
}

#[test]
fn google_line_syntax() {
    let correct = "user-agent: FooBot\ndisallow: /\n";
    let incorrect = "foo: FooBot\nbar: /\n";
    let accepted = "user-agent FooBot\ndisallow /\n";
    let url = "http://foo.bar/x/y";
    table(&[
        ("ID_LineSyntax_Line", correct, "FooBot", url, false),
        ("ID_LineSyntax_Line", incorrect, "FooBot", url, true),
        ("ID_LineSyntax_Line", accepted, "FooBot", url, false),
    ]);
}

#[test]
fn google_groups() {
    let txt = "allow: /foo/bar/\n\nuser-agent: FooBot\ndisallow: /\nallow: /x/\n\
               user-agent: BarBot\ndisallow: /\nallow: /y/\n\n\nallow: /w/\n\
               user-agent: BazBot\n\nuser-agent: FooBot\nallow: /z/\ndisallow: /\n";
    let (w, x, y, z, foo) = (
        "http://foo.bar/w/a",
        "http://foo.bar/x/b",
        "http://foo.bar/y/c",
        "http://foo.bar/z/d",
        "http://foo.bar/foo/bar/",
    );
    table(&[
        ("ID_LineSyntax_Groups", txt, "FooBot", x, true),
        ("ID_LineSyntax_Groups", txt, "FooBot", z, true),
        ("ID_LineSyntax_Groups", txt, "FooBot", y, false),
        ("ID_LineSyntax_Groups", txt, "BarBot", y, true),
        ("ID_LineSyntax_Groups", txt, "BarBot", w, true),
        ("ID_LineSyntax_Groups", txt, "BarBot", z, false),
        ("ID_LineSyntax_Groups", txt, "BazBot", z, true),
        ("ID_LineSyntax_Groups", txt, "FooBot", foo, false),
        ("ID_LineSyntax_Groups", txt, "BarBot", foo, false),
        ("ID_LineSyntax_Groups", txt, "BazBot", foo, false),
    ]);
}

#[test]
fn google_groups_other_rules() {
    let sitemap =
        "User-agent: BarBot\nSitemap: https://foo.bar/sitemap\nUser-agent: *\nDisallow: /\n";
    let unknown = "User-agent: FooBot\nInvalid-Unknown-Line: unknown\nUser-agent: *\nDisallow: /\n";
    let url = "http://foo.bar/";
    table(&[
        (
            "ID_LineSyntax_Groups_OtherRules",
            sitemap,
            "FooBot",
            url,
            false,
        ),
        (
            "ID_LineSyntax_Groups_OtherRules",
            sitemap,
            "BarBot",
            url,
            false,
        ),
        (
            "ID_LineSyntax_Groups_OtherRules",
            unknown,
            "FooBot",
            url,
            false,
        ),
        (
            "ID_LineSyntax_Groups_OtherRules",
            unknown,
            "BarBot",
            url,
            false,
        ),
    ]);
}

#[test]
fn google_names_case_insensitive() {
    let (allow, disallow) = ("http://foo.bar/x/y", "http://foo.bar/a/b");
    for txt in [
        "USER-AGENT: FooBot\nALLOW: /x/\nDISALLOW: /\n",
        "user-agent: FooBot\nallow: /x/\ndisallow: /\n",
        "uSeR-aGeNt: FooBot\nAlLoW: /x/\ndIsAlLoW: /\n",
    ] {
        table(&[
            ("ID_REPLineNamesCaseInsensitive", txt, "FooBot", allow, true),
            (
                "ID_REPLineNamesCaseInsensitive",
                txt,
                "FooBot",
                disallow,
                false,
            ),
        ]);
    }
}

#[test]
fn google_user_agent_value_case_insensitive() {
    let (allow, disallow) = ("http://foo.bar/x/y", "http://foo.bar/a/b");
    for txt in [
        "User-Agent: FOO BAR\nAllow: /x/\nDisallow: /\n",
        "User-Agent: foo bar\nAllow: /x/\nDisallow: /\n",
        "User-Agent: FoO bAr\nAllow: /x/\nDisallow: /\n",
    ] {
        for agent in ["Foo", "foo"] {
            table(&[
                ("ID_UserAgentValueCaseInsensitive", txt, agent, allow, true),
                (
                    "ID_UserAgentValueCaseInsensitive",
                    txt,
                    agent,
                    disallow,
                    false,
                ),
            ]);
        }
    }
    // GoogleOnly_AcceptUserAgentUpToFirstSpace: `Foo Bar` names the token `Foo`.
    let txt = "User-Agent: *\nDisallow: /\nUser-Agent: Foo Bar\nAllow: /x/\nDisallow: /\n";
    table(&[("AcceptUserAgentUpToFirstSpace", txt, "Foo", allow, true)]);
}

#[test]
fn google_global_groups_secondary() {
    let global = "user-agent: *\nallow: /\nuser-agent: FooBot\ndisallow: /\n";
    let specific = "user-agent: FooBot\nallow: /\nuser-agent: BarBot\ndisallow: /\n\
                    user-agent: BazBot\ndisallow: /\n";
    let url = "http://foo.bar/x/y";
    table(&[
        ("ID_GlobalGroups_Secondary", "", "FooBot", url, true),
        ("ID_GlobalGroups_Secondary", global, "FooBot", url, false),
        ("ID_GlobalGroups_Secondary", specific, "QuxBot", url, true),
    ]);
}

#[test]
fn google_allow_disallow_value_case_sensitive() {
    let url = "http://foo.bar/x/y";
    table(&[
        (
            "ID_AllowDisallow_Value_CaseSensitive",
            "user-agent: FooBot\ndisallow: /x/\n",
            "FooBot",
            url,
            false,
        ),
        (
            "ID_AllowDisallow_Value_CaseSensitive",
            "user-agent: FooBot\ndisallow: /X/\n",
            "FooBot",
            url,
            true,
        ),
    ]);
}

#[test]
fn google_longest_match() {
    let url = "http://foo.bar/x/page.html";
    let n = "ID_LongestMatch";
    table(&[
        (
            n,
            "user-agent: FooBot\ndisallow: /x/page.html\nallow: /x/page.html\n",
            "FooBot",
            url,
            true,
        ),
        (
            n,
            "user-agent: FooBot\nallow: /x/page.html\ndisallow: /x/page.html\n",
            "FooBot",
            url,
            true,
        ),
        (
            n,
            "user-agent: FooBot\ndisallow: /x/page.\nallow: /x/page.html\n",
            "FooBot",
            url,
            true,
        ),
        (
            n,
            "user-agent: FooBot\ndisallow: /x/page.\nallow: /x/page.html\n",
            "FooBot",
            "http://foo.bar/x/page.",
            false,
        ),
        (
            n,
            "user-agent: FooBot\nallow: /page\ndisallow: /*.html\n",
            "FooBot",
            "http://foo.bar/page.html",
            false,
        ),
        (
            n,
            "user-agent: FooBot\nallow: /page\ndisallow: /*.html\n",
            "FooBot",
            "http://foo.bar/page",
            true,
        ),
        (
            n,
            "user-agent: FooBot\nallow: /x/page.\ndisallow: /*.html\n",
            "FooBot",
            url,
            true,
        ),
        (
            n,
            "user-agent: FooBot\nallow: /x/page.\ndisallow: /*.html\n",
            "FooBot",
            "http://foo.bar/x/y.html",
            false,
        ),
        (
            n,
            "User-agent: *\nDisallow: /x/\nUser-agent: FooBot\nDisallow: /y/\n",
            "FooBot",
            "http://foo.bar/x/page",
            true,
        ),
        (
            n,
            "User-agent: *\nDisallow: /x/\nUser-agent: FooBot\nDisallow: /y/\n",
            "FooBot",
            "http://foo.bar/y/page",
            false,
        ),
        (
            n,
            "user-agent: FooBot\nallow: /\ndisallow: /\n",
            "FooBot",
            "http://foo.bar/",
            true,
        ),
        (
            n,
            "user-agent: FooBot\ndisallow: /x\nallow: /x/\n",
            "FooBot",
            "http://foo.bar/x",
            false,
        ),
        (
            n,
            "user-agent: FooBot\ndisallow: /x\nallow: /x/\n",
            "FooBot",
            "http://foo.bar/x/",
            true,
        ),
        (
            n,
            "user-agent: FooBot\nallow: /$\ndisallow: /\n",
            "FooBot",
            "http://foo.bar/",
            true,
        ),
        (
            n,
            "user-agent: FooBot\nallow: /$\ndisallow: /\n",
            "FooBot",
            "http://foo.bar/x",
            false,
        ),
        (
            n,
            "user-agent: FooBot\nallow: /x\ndisallow: /x/$\n",
            "FooBot",
            "http://foo.bar/x/",
            false,
        ),
    ]);
}

#[test]
fn google_encoding() {
    let n = "ID_Encoding";
    table(&[
        (
            n,
            "User-agent: FooBot\nDisallow: /\nAllow: /foo/bar?qux=taz&baz=http://foo.bar?tar&par\n",
            "FooBot",
            "http://foo.bar/foo/bar?qux=taz&baz=http://foo.bar?tar&par",
            true,
        ),
        (
            n,
            "User-agent: FooBot\nDisallow: /\nAllow: /foo/bar/ツ\n",
            "FooBot",
            "http://foo.bar/foo/bar/%E3%83%84",
            true,
        ),
        // The URL parser encodes the path, as a browser does.
        (
            n,
            "User-agent: FooBot\nDisallow: /\nAllow: /foo/bar/ツ\n",
            "FooBot",
            "http://foo.bar/foo/bar/ツ",
            true,
        ),
        (
            n,
            "User-agent: FooBot\nDisallow: /\nAllow: /foo/bar/%E3%83%84\n",
            "FooBot",
            "http://foo.bar/foo/bar/%E3%83%84",
            true,
        ),
        (
            n,
            "User-agent: FooBot\nDisallow: /\nAllow: /foo/bar/%e3%83%84\n",
            "FooBot",
            "http://foo.bar/foo/bar/%E3%83%84",
            true,
        ),
        // RFC 9309 §2.2.2 (Google's matcher leaves these unmatched): an escaped
        // unreserved character is that character.
        (
            n,
            "User-agent: FooBot\nDisallow: /\nAllow: /foo/bar/%62%61%7A\n",
            "FooBot",
            "http://foo.bar/foo/bar/baz",
            true,
        ),
        (
            n,
            "User-agent: FooBot\nDisallow: /\nAllow: /foo/bar/baz\n",
            "FooBot",
            "http://foo.bar/foo/bar/%62%61%7A",
            true,
        ),
        // An escaped reserved character is not the character.
        (
            n,
            "User-agent: FooBot\nDisallow: /a%2Fb\n",
            "FooBot",
            "http://foo.bar/a/b",
            true,
        ),
    ]);
}

#[test]
fn google_special_characters() {
    let n = "ID_SpecialCharacters";
    let star = "User-agent: FooBot\nDisallow: /foo/bar/quz\nAllow: /foo/*/qux\n";
    let dollar = "User-agent: FooBot\nDisallow: /foo/bar$\nAllow: /foo/bar/qux\n";
    let hash = "User-agent: FooBot\n# Disallow: /\nDisallow: /foo/quz#qux\nAllow: /\n";
    table(&[
        (n, star, "FooBot", "http://foo.bar/foo/bar/quz", false),
        (n, star, "FooBot", "http://foo.bar/foo/quz", true),
        (n, star, "FooBot", "http://foo.bar/foo//quz", true),
        (n, star, "FooBot", "http://foo.bar/foo/bax/quz", true),
        (n, dollar, "FooBot", "http://foo.bar/foo/bar", false),
        (n, dollar, "FooBot", "http://foo.bar/foo/bar/qux", true),
        (n, dollar, "FooBot", "http://foo.bar/foo/bar/", true),
        (n, dollar, "FooBot", "http://foo.bar/foo/bar/baz", true),
        (n, hash, "FooBot", "http://foo.bar/foo/bar", true),
        (n, hash, "FooBot", "http://foo.bar/foo/quz", false),
    ]);
}

/// Google's `ID_Documentation_Checks`: the path examples of its robots.txt documentation.
#[test]
fn google_documentation_checks() {
    let cases: &[(&str, &[&str], &[&str])] = &[
        (
            "/fish",
            &[
                "/fish",
                "/fish.html",
                "/fish/salmon.html",
                "/fishheads",
                "/fishheads/yummy.html",
                "/fish.php?id=anything",
            ],
            &["/Fish.asp", "/catfish", "/?id=fish", "/desert/fish"],
        ),
        (
            "/fish*",
            &[
                "/fish",
                "/fish.html",
                "/fish/salmon.html",
                "/fishheads",
                "/fishheads/yummy.html",
                "/fish.php?id=anything",
            ],
            &["/Fish.bar", "/catfish", "/?id=fish", "/desert/fish"],
        ),
        (
            "/fish/",
            &["/fish/", "/fish/?id=anything", "/fish/salmon.htm"],
            &["/fish", "/fish.html", "/animals/fish/", "/Fish/Salmon.asp"],
        ),
        (
            "/*.php",
            &[
                "/index.php",
                "/filename.php",
                "/folder/filename.php",
                "/folder/filename.php?parameters",
                "/folder/any.php.file.html",
                "/filename.php/",
            ],
            &["/", "/windows.PHP"],
        ),
        (
            "/*.php$",
            &["/filename.php", "/folder/filename.php"],
            &[
                "/filename.php?parameters",
                "/filename.php/",
                "/filename.php5",
                "/windows.PHP",
            ],
        ),
        (
            "/fish*.php",
            &["/fish.php", "/fishheads/catfish.php?parameters"],
            &["/Fish.PHP"],
        ),
    ];
    for (pattern, hit, miss) in cases {
        let txt = format!("user-agent: FooBot\ndisallow: {pattern}\n");
        for p in *hit {
            assert!(!allowed(&txt, "FooBot", p), "{pattern} should match {p}");
        }
        for p in *miss {
            assert!(allowed(&txt, "FooBot", p), "{pattern} should not match {p}");
        }
    }
    let n = "ID_Documentation_Checks";
    table(&[
        (
            n,
            "user-agent: FooBot\nallow: /p\ndisallow: /\n",
            "FooBot",
            "/page",
            true,
        ),
        (
            n,
            "user-agent: FooBot\nallow: /folder\ndisallow: /folder\n",
            "FooBot",
            "/folder/page",
            true,
        ),
        (
            n,
            "user-agent: FooBot\nallow: /page\ndisallow: /*.htm\n",
            "FooBot",
            "/page.htm",
            false,
        ),
        (
            n,
            "user-agent: FooBot\nallow: /$\ndisallow: /\n",
            "FooBot",
            "/",
            true,
        ),
        (
            n,
            "user-agent: FooBot\nallow: /$\ndisallow: /\n",
            "FooBot",
            "/page.htm",
            false,
        ),
    ]);
}

#[test]
fn google_line_endings_and_bom() {
    for txt in [
        "User-Agent: foo\nAllow: /some/path\nUser-Agent: bar\n\n\nDisallow: /\n",
        "User-Agent: foo\r\nAllow: /some/path\r\nUser-Agent: bar\r\n\r\n\r\nDisallow: /\r\n",
        "User-Agent: foo\rAllow: /some/path\rUser-Agent: bar\r\r\rDisallow: /\r",
        "User-Agent: foo\nAllow: /some/path\r\nUser-Agent: bar\n\r\n\rDisallow: /",
    ] {
        assert!(!allowed(txt, "bar", "/x"), "{txt:?}");
        assert!(allowed(txt, "foo", "/x"), "{txt:?}");
    }
    // A UTF-8 byte-order mark is skipped; a broken one is not a mark, and the line it
    // starts is not a user-agent line.
    let bom = b"\xEF\xBB\xBFUser-Agent: foo\nDisallow: /AnyValue\n";
    assert!(!allowed_bytes(bom, "foo", "/AnyValue"));
    let broken = b"\xEF\x11\xBFUser-Agent: foo\nDisallow: /AnyValue\n";
    assert!(allowed_bytes(broken, "foo", "/AnyValue"));
}

#[test]
fn groups_for_one_agent_merge_and_robots_txt_is_always_allowed() {
    let txt = "user-agent: FooBot\ndisallow: /x\nuser-agent: BarBot\ndisallow: /y\n\
               user-agent: fooBOT\ndisallow: /z\n";
    table(&[
        ("merged", txt, "FooBot", "/x", false),
        ("merged", txt, "FooBot", "/z", false),
        ("merged", txt, "FooBot", "/y", true),
        (
            "robots.txt",
            "user-agent: *\ndisallow: /\n",
            "FooBot",
            "/robots.txt",
            true,
        ),
        (
            "empty disallow",
            "user-agent: *\ndisallow:\n",
            "FooBot",
            "/x",
            true,
        ),
        (
            "rules before any group",
            "disallow: /\nuser-agent: *\nallow: /a\n",
            "x",
            "/b",
            true,
        ),
        (
            "product token with version",
            "user-agent: vetch/1.0\ndisallow: /\n",
            "vetch",
            "/a",
            false,
        ),
        (
            "not a prefix match",
            "user-agent: vetchbot\ndisallow: /\n",
            "vetch",
            "/a",
            true,
        ),
        (
            "html is no rules",
            "<html><body>Not found</body></html>\n",
            "vetch",
            "/a",
            true,
        ),
    ]);
}

#[test]
fn the_deciding_rule_and_group_are_quoted_as_written() {
    let txt = "User-agent: *\nDisallow: /\n\nUser-agent: Vetch\nAllow: /public\nDisallow: /private  # staff only\n";
    let r = Rules::parse(txt.as_bytes(), "vetch");
    assert_eq!(
        r.check("/private/a"),
        Verdict::Disallowed {
            agent: "Vetch".into(),
            rule: "Disallow: /private".into()
        }
    );
    assert_eq!(r.check("/public/a"), Verdict::Allowed);
    assert_eq!(r.check("/other"), Verdict::Allowed);
    let star = Rules::parse(b"user-agent: *\ndisallow: /", "vetch");
    assert_eq!(
        star.check("/"),
        Verdict::Disallowed {
            agent: "*".into(),
            rule: "disallow: /".into()
        }
    );
}

#[test]
fn crawl_delay_of_the_group_capped_at_a_minute() {
    let r = |t: &str| Rules::parse(t.as_bytes(), "vetch").crawl_delay();
    assert_eq!(
        r("user-agent: vetch\ncrawl-delay: 2\n"),
        Some(Duration::from_secs(2))
    );
    assert_eq!(
        r("user-agent: vetch\ncrawl-delay: 0.5\n"),
        Some(Duration::from_millis(500))
    );
    assert_eq!(
        r("user-agent: *\nCrawl-delay: 3600\n"),
        Some(MAX_CRAWL_DELAY)
    );
    assert_eq!(r("user-agent: other\ncrawl-delay: 5\n"), None);
    assert_eq!(r("user-agent: vetch\ncrawl-delay: soon\n"), None);
    assert_eq!(r("user-agent: vetch\ncrawl-delay: -1\n"), None);
}

#[test]
fn only_the_first_500_kib_are_parsed_and_a_cut_line_is_dropped() {
    let mut txt = b"user-agent: *\ndisallow: /early\n".to_vec();
    while txt.len() < MAX_BYTES - 10 {
        txt.extend_from_slice(b"# filler filler filler filler filler filler filler\n");
    }
    // A line that straddles the limit, then one wholly past it.
    txt.extend_from_slice(b"disallow: /straddling-the-limit\ndisallow: /late\n");
    assert!(txt.len() > MAX_BYTES);
    assert!(!allowed_bytes(&txt, "vetch", "/early"));
    assert!(allowed_bytes(&txt, "vetch", "/late"));
    assert!(allowed_bytes(&txt, "vetch", "/s"));
    assert!(allowed_bytes(&txt, "vetch", "/straddling-the-limit"));
}

#[test]
fn hostile_files_cost_little_and_never_panic() {
    let stars = format!("user-agent: *\ndisallow: /{}x$\n", "*a".repeat(200_000));
    let path = format!("/{}", "a".repeat(4000));
    assert!(allowed(&stars, "vetch", &path));
    for txt in [
        &b"\xff\xfe\x00:\x00"[..],
        b":",
        b"user-agent",
        b"\r\r\n\n:#",
        b"%",
        b"disallow: %zz%",
    ] {
        let r = Rules::parse(txt, "vetch");
        let _ = r.check("/%");
        let _ = r.check("");
    }
}

#[test]
fn normalise_encodes_what_a_url_would() {
    assert_eq!(normalise("/a b/ü".as_bytes()), b"/a%20b/%C3%BC");
    assert_eq!(normalise(b"/%7e%2f%zz%4"), b"/~%2F%zz%4");
}
