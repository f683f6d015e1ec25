//! The token families: every API key, access token and webhook secret the redactor knows
//! by its shape, one row each.
//!
//! A row is the whole of a family: the regex alternative that finds its head (joined into
//! the one shape regex by `shapes`), where the hidden span starts, how far it runs, the
//! check a match must pass, a sample the tests build and hide in every context, and the
//! line docs/reference.md shows for it (a test compares the table there with these rows).
//! Adding a family is adding a row here and its line in the docs.
//!
//! Rules the rows keep (tests check each):
//! - a pattern has no capture groups and ASCII classes only, and starts with a literal
//!   (`leading_literals` finds it): the literal tells which row a match came from;
//! - a pattern's literal never starts another row's literal, unless the longer one sits
//!   earlier in the table (the regex tries rows in order, so the longer family is tried
//!   first: `sk-or-v1-` before `sk-`);
//! - a `lazy` row (long counted bodies, most of what building the regex costs) has no
//!   literal shorter than [`super::shapes::WEAK_LITERAL`] that prose would hold, or the
//!   scan that decides whether to build it confirms such hits with the row's own regex.

/// Where the hidden span starts, relative to the match.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Start {
    /// At the match.
    Match,
    /// This many bytes into the match: the host and path that say what it is stay.
    Skip(usize),
    /// After the last `/` of the match (a webhook's id stays, its token goes).
    AfterLastSlash,
    /// Before the match, at the 5–16 digit bot id of a Telegram token (`123456789:AA…`),
    /// which stands alone or after `bot` in a Bot API URL (`/bot123456789:AA…/`).
    BotId,
    /// Before the match, at this many letters and digits that lead it (Terraform Cloud's
    /// `<14>.atlasv1.<body>`); without them it is not a token.
    LedByAlnum(usize),
}

/// Where the hidden span ends.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Run {
    /// At the end of the match.
    Exact,
    /// On to the end of the token's alphabet (letters, digits, `_`, `-`), at most
    /// `VALUE_MAX` bytes from the match: a bounded pattern matched its head.
    Body,
    /// Like `Body`, and through `= . + /` too (base64 bodies), trailing dots left out.
    Wide,
    /// The whole run of letters, digits, `_` and `-`, however long: the check judges it.
    Whole,
}

/// What a match must pass to be a token.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Check {
    None,
    /// Not followed by a letter, digit, `_` or `-` (a longer word is not this key).
    WordEnd,
    /// The match from this byte on mixes upper- and lower-case letters and digits
    /// (random base62; identifiers of the same length are not).
    Mixed {
        from: usize,
    },
    /// The same, judged on the whole run (`Run::Whole`) from this byte on; a run that fails
    /// is remembered, so every later match inside it is declined at once.
    MixedRun {
        from: usize,
    },
}

pub(super) struct Family {
    /// Who issues it, as the docs name it.
    #[cfg_attr(not(test), allow(dead_code))]
    pub name: &'static str,
    /// The regex alternative that finds its head.
    pub pattern: &'static str,
    /// Compiled into the shape regex only once a text holds one of its literal starts.
    pub lazy: bool,
    pub start: Start,
    pub run: Run,
    pub check: Check,
    /// A token of the family for the tests: `{aN}` is N letters and digits (mixed case),
    /// `{hN}` N lower-case hex digits, the rest literal.
    #[cfg_attr(not(test), allow(dead_code))]
    pub sample: &'static str,
    /// What docs/reference.md shows of it.
    #[cfg_attr(not(test), allow(dead_code))]
    pub docs: &'static str,
}

const fn row(
    name: &'static str,
    pattern: &'static str,
    sample: &'static str,
    docs: &'static str,
) -> Family {
    Family {
        name,
        pattern,
        lazy: false,
        start: Start::Match,
        run: Run::Body,
        check: Check::None,
        sample,
        docs,
    }
}

impl Family {
    const fn lazy(mut self) -> Family {
        self.lazy = true;
        self
    }
    const fn start(mut self, start: Start) -> Family {
        self.start = start;
        self
    }
    const fn run(mut self, run: Run) -> Family {
        self.run = run;
        self
    }
    const fn check(mut self, check: Check) -> Family {
        self.check = check;
        self
    }
}

/// The families, in the order the shape regex tries them.
pub(super) const FAMILIES: &[Family] = &[
    row(
        "GitHub",
        r"gh[pousr]_[A-Za-z0-9]{36,}",
        "ghp_{a36}",
        "`ghp_`, `gho_`, `ghu_`, `ghs_`, `ghr_` + 36 or more letters and digits",
    ),
    row(
        "GitHub",
        r"github_pat_[A-Za-z0-9_]{22,}",
        "github_pat_{a22}_{a59}",
        "fine-grained tokens `github_pat_…`",
    ),
    row(
        "GitLab",
        r"glpat-[A-Za-z0-9_-]{20,}",
        "glpat-{a20}",
        "personal access tokens `glpat-…`",
    ),
    row(
        "Slack",
        r"xox[abprse]-[A-Za-z0-9-]{10,}",
        "xoxb-123456789012-{a24}",
        "`xoxb-`, `xoxp-`, `xoxa-`, `xoxr-`, `xoxs-`, `xoxe-` tokens",
    ),
    row(
        "Stripe",
        r"(?-u:\b)[sr]k_(?:live|test)_[A-Za-z0-9]{10,}",
        "sk_live_{a24}",
        "`sk_live_`, `rk_live_`, `sk_test_`, `rk_test_` keys",
    ),
    row(
        "Stripe",
        r"whsec_[A-Za-z0-9]{24,}",
        "whsec_{a32}",
        "webhook secrets `whsec_…`",
    ),
    row(
        "OpenRouter",
        r"(?-u:\b)sk-or-v1-[a-f0-9]{64}",
        "sk-or-v1-{h64}",
        "`sk-or-v1-` + 64 hex digits (before `sk-`, whose check wants upper-case letters)",
    ),
    row(
        "OpenAI, Anthropic",
        r"(?-u:\b)sk-[A-Za-z0-9_-]{20}",
        "sk-ant-api03-{a80}-{a10}AA",
        "`sk-…`, `sk-proj-…`, `sk-ant-api03-…`: the whole run of letters, digits, `_` and \
         `-`, when it mixes upper- and lower-case letters and digits (slugs like \
         `sk-learn-tutorial` are left alone)",
    )
    .run(Run::Whole)
    .check(Check::MixedRun { from: 3 }),
    row(
        "Google",
        r"(?-u:\b)AIza[0-9A-Za-z_-]{35}",
        "AIza{a35}",
        "API keys `AIza…` (39 characters, not inside a longer word)",
    )
    .run(Run::Exact)
    .check(Check::WordEnd),
    row(
        "Hugging Face",
        r"hf_[A-Za-z0-9]{30,}",
        "hf_{a34}",
        "`hf_…` tokens",
    ),
    row(
        "npm",
        r"npm_[A-Za-z0-9]{36,}",
        "npm_{a36}",
        "`npm_…` tokens",
    ),
    row(
        "SendGrid",
        r"SG\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43}",
        "SG.{a22}.{a43}",
        "`SG.<22>.<43>` keys",
    ),
    row(
        "AWS",
        r"(?-u:\b)(?:AKIA|ASIA|ABIA|ACCA)[A-Z0-9]{16}(?-u:\b)",
        "AKIAIOSFODNN7EXAMPLE",
        "access key ids `AKIA…`, `ASIA…`, `ABIA…`, `ACCA…` (20 characters)",
    ),
    row(
        "Twilio",
        r"(?-u:\b)(?:SK|AC)[0-9a-f]{32}(?-u:\b)",
        "SK{h32}",
        "API keys `SK` and account SIDs `AC` + 32 hex digits",
    ),
    row(
        "JWT",
        r"eyJ[A-Za-z0-9_-]{4,}\.eyJ[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]*",
        "eyJ{a20}.eyJ{a30}.{a43}",
        "`eyJ….eyJ….…`",
    ),
    row(
        "Google",
        r"GOCSPX-[A-Za-z0-9_-]{28}",
        "GOCSPX-{a28}",
        "OAuth client secrets `GOCSPX-…`",
    ),
    row(
        "Google",
        r"ya29\.[A-Za-z0-9_-]{30,}",
        "ya29.{a60}",
        "OAuth access tokens `ya29.…`",
    ),
    row(
        "Slack",
        r"hooks\.slack\.com/services/[A-Za-z0-9/]{20,}",
        "https://hooks.slack.com/services/T0123ABCD/B0123ABCD/{a24}",
        "webhook paths `hooks.slack.com/services/…`",
    )
    .start(Start::Skip("hooks.slack.com/services/".len()))
    .run(Run::Exact),
    // The vendors with long counted bodies: compiled once a text holds their prefix.
    row(
        "DigitalOcean",
        r"do[opr]_v1_[a-f0-9]{64}",
        "dop_v1_{h64}",
        "`dop_v1_`, `doo_v1_`, `dor_v1_` + 64 hex digits",
    )
    .lazy(),
    row(
        "Mailgun",
        r"(?-u:\b)key-[0-9a-f]{32}",
        "key-{h32}",
        "`key-` + 32 hex digits",
    )
    .lazy(),
    row(
        "Telegram",
        r":AA[A-Za-z0-9_-]{33}",
        "123456789:AA{a33}",
        "bot tokens `123456789:AA…` (the bot id of 5–16 digits included, also after `bot` \
         in Bot API URLs: `/bot123456789:AA…/sendMessage`)",
    )
    .lazy()
    .start(Start::BotId),
    row(
        "Discord",
        r"discord(?:app)?\.com/api/webhooks/[0-9]{17,20}/[A-Za-z0-9_-]{60}",
        "https://discord.com/api/webhooks/123456789012345678/{a68}",
        "webhooks `discord.com/api/webhooks/ID/TOKEN` (the token; the id is kept)",
    )
    .lazy()
    .start(Start::AfterLastSlash),
    row(
        "PyPI",
        r"pypi-AgEIcHlwaS5vcmc[A-Za-z0-9_-]{50}",
        "pypi-AgEIcHlwaS5vcmc{a70}",
        "`pypi-AgEIcHlwaS5vcmc…`",
    )
    .lazy(),
    row("Groq", r"gsk_[A-Za-z0-9]{52}", "gsk_{a52}", "`gsk_…`").lazy(),
    row(
        "GitLab",
        r"gl(?:dt|rt|ptt|cbt|imt|ft|soat|agent|oas|ffct)-[A-Za-z0-9_-]{20}",
        "gldt-{a20}",
        "`gldt-`, `glrt-`, `glptt-`, `glcbt-`, `glimt-`, `glft-`, `glsoat-`, `glagent-`, \
         `gloas-`, `glffct-` tokens",
    )
    .lazy(),
    row(
        "GitLab",
        r"GR1348941[A-Za-z0-9_-]{20}",
        "GR1348941{a20}",
        "runner registration tokens `GR1348941…`",
    )
    .lazy(),
    row(
        "Hugging Face",
        r"api_org_[A-Za-z0-9]{34}",
        "api_org_{a34}",
        "organisation tokens `api_org_…`",
    )
    .lazy(),
    row(
        "Shopify",
        r"shp(?:at|ca|pa|ss)_[a-fA-F0-9]{32}",
        "shpat_{h32}",
        "`shpat_`, `shpca_`, `shppa_`, `shpss_` + 32 hex digits",
    )
    .lazy(),
    row(
        "Linear",
        r"lin_(?:api|oauth)_[A-Za-z0-9]{40}",
        "lin_api_{a40}",
        "`lin_api_…`, `lin_oauth_…`",
    )
    .lazy(),
    row(
        "Notion",
        r"(?-u:\b)secret_[A-Za-z0-9]{43}",
        "secret_{a43}",
        "`secret_` + 43 letters and digits of mixed case",
    )
    .lazy()
    .check(Check::Mixed {
        from: "secret_".len(),
    }),
    row(
        "Notion",
        r"ntn_[0-9]{11}[A-Za-z0-9]{32}",
        "ntn_12345678901{a35}",
        "`ntn_…`",
    )
    .lazy(),
    row(
        "Doppler",
        r"dp\.(?:pt|st|ct|sa|scim|audit)\.[A-Za-z0-9]{40}",
        "dp.pt.{a43}",
        "`dp.pt.`, `dp.st.`, `dp.ct.`, `dp.sa.`, `dp.scim.`, `dp.audit.` tokens",
    )
    .lazy(),
    row(
        "HashiCorp Vault",
        r"hvs\.[A-Za-z0-9_-]{90}",
        "hvs.{a95}",
        "service tokens `hvs.…` (90 or more)",
    )
    .lazy(),
    row(
        "HashiCorp Vault",
        r"hvb\.[A-Za-z0-9_-]{138}",
        "hvb.{a140}",
        "batch tokens `hvb.…` (138 or more)",
    )
    .lazy(),
    row(
        "Postman",
        r"PMAK-[a-fA-F0-9]{24}-[a-fA-F0-9]{34}",
        "PMAK-{h24}-{h34}",
        "`PMAK-…`",
    )
    .lazy(),
    row(
        "Pulumi",
        r"(?-u:\b)pul-[a-f0-9]{40}",
        "pul-{h40}",
        "`pul-` + 40 hex digits",
    )
    .lazy(),
    row(
        "Terraform Cloud",
        r"\.atlasv1\.[A-Za-z0-9_=-]{60}",
        "{a14}.atlasv1.{a67}",
        "`<14>.atlasv1.<body>`",
    )
    .lazy()
    .start(Start::LedByAlnum(14)),
    row(
        "Databricks",
        r"(?-u:\b)dapi[a-f0-9]{32}",
        "dapi{h32}",
        "`dapi` + 32 hex digits",
    )
    .lazy(),
    row(
        "Square",
        r"(?-u:\b)EAAA[A-Za-z0-9_-]{60}",
        "EAAA{a60}",
        "access tokens `EAAA…` (64, mixed case)",
    )
    .lazy()
    .check(Check::Mixed { from: "EAAA".len() }),
    row(
        "Square",
        r"sq0(?:atp|csp)-[A-Za-z0-9_-]{22}",
        "sq0csp-{a43}",
        "`sq0atp-…`, `sq0csp-…`",
    )
    .lazy(),
    row(
        "PlanetScale",
        r"pscale_(?:tkn|pw|oauth)_[A-Za-z0-9=._-]{32}",
        "pscale_tkn_{a43}",
        "`pscale_tkn_…`, `pscale_pw_…`, `pscale_oauth_…`",
    )
    .lazy()
    .run(Run::Wide),
    row(
        "Supabase",
        r"sbp_(?:oauth_)?[a-f0-9]{40}",
        "sbp_{h40}",
        "`sbp_…`",
    )
    .lazy(),
    row(
        "Supabase",
        r"sb_secret_[A-Za-z0-9_-]{20}",
        "sb_secret_{a32}",
        "`sb_secret_…`",
    )
    .lazy(),
    row(
        "Atlassian",
        r"ATATT3[A-Za-z0-9_=-]{60}",
        "ATATT3{a186}",
        "`ATATT3…`",
    )
    .lazy(),
    row(
        "Sentry",
        r"sntry[su]_[A-Za-z0-9+/=_-]{40}",
        "sntryu_{h64}",
        "`sntrys_…`, `sntryu_…`",
    )
    .lazy()
    .run(Run::Wide),
    row(
        "Heroku",
        r"HRKU-[A-Za-z0-9_-]{60}",
        "HRKU-{a60}",
        "`HRKU-…`",
    )
    .lazy(),
    row(
        "Slack",
        r"xapp-[0-9]-[A-Za-z0-9-]{20}",
        "xapp-1-{a40}",
        "app tokens `xapp-…`",
    )
    .lazy(),
    row(
        "age",
        r"AGE-SECRET-KEY-1[0-9A-Z]{58}",
        "AGE-SECRET-KEY-1QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7LQPZRY9X8GF2TVDW0S3JN54KHCE",
        "`AGE-SECRET-KEY-1…`",
    )
    .lazy(),
    row(
        "Grafana",
        r"glsa_[A-Za-z0-9_+/]{32}",
        "glsa_{a32}_{h8}",
        "service account tokens `glsa_…`",
    )
    .lazy(),
    row(
        "Grafana",
        r"glc_[A-Za-z0-9_+/]{32}",
        "glc_{a40}",
        "cloud tokens `glc_…`",
    )
    .lazy()
    .run(Run::Wide),
    row(
        "New Relic",
        r"NRAK-[A-Z0-9]{27}",
        "NRAK-ABCDEFGHIJ0123456789KLMNOPQ",
        "`NRAK-…`",
    )
    .lazy(),
    row("Prefect", r"pnu_[A-Za-z0-9]{36}", "pnu_{a36}", "`pnu_…`").lazy(),
    row(
        "RubyGems",
        r"rubygems_[a-f0-9]{48}",
        "rubygems_{h48}",
        "`rubygems_…`",
    )
    .lazy(),
    row(
        "Brevo",
        r"xkeysib-[a-f0-9]{64}-[A-Za-z0-9]{16}",
        "xkeysib-{h64}-{a16}",
        "`xkeysib-…`",
    )
    .lazy(),
    row(
        "Shippo",
        r"shippo_(?:live|test)_[a-fA-F0-9]{40}",
        "shippo_live_{h40}",
        "`shippo_live_…`, `shippo_test_…`",
    )
    .lazy(),
    row(
        "Dynatrace",
        r"dt0c01\.[A-Za-z0-9]{24}\.[A-Za-z0-9]{64}",
        "dt0c01.{a24}.{a64}",
        "`dt0c01.…`",
    )
    .lazy(),
    row(
        "Perplexity",
        r"pplx-[A-Za-z0-9]{48}",
        "pplx-{a48}",
        "`pplx-…`",
    )
    .lazy(),
    row(
        "Contentful",
        r"CFPAT-[A-Za-z0-9_-]{43}",
        "CFPAT-{a43}",
        "`CFPAT-…`",
    )
    .lazy(),
    row(
        "Flutterwave",
        r"FLWSECK(?:_TEST)?-[a-fA-F0-9]{32}-X",
        "FLWSECK-{h32}-X",
        "`FLWSECK-…-X`, `FLWSECK_TEST-…-X`",
    )
    .lazy(),
    row(
        "EasyPost",
        r"EZ[AT]K[A-Za-z0-9]{54}",
        "EZAK{a54}",
        "`EZAK…`, `EZTK…`",
    )
    .lazy(),
    row(
        "Alibaba Cloud",
        r"(?-u:\b)LTAI[A-Za-z0-9]{20}",
        "LTAI{a20}",
        "`LTAI…`",
    )
    .lazy(),
    row(
        "Duffel",
        r"duffel_(?:test|live)_[A-Za-z0-9_=-]{43}",
        "duffel_live_{a43}",
        "`duffel_live_…`, `duffel_test_…`",
    )
    .lazy(),
    row("Fly.io", r"fo1_[A-Za-z0-9_-]{43}", "fo1_{a43}", "`fo1_…`").lazy(),
    row("ReadMe", r"rdme_[a-z0-9]{70}", "rdme_{h70}", "`rdme_…`").lazy(),
    row(
        "JFrog Artifactory",
        r"(?-u:\b)AKCp[A-Za-z0-9]{69}",
        "AKCp{a69}",
        "`AKCp…`",
    )
    .lazy(),
    row(
        "1Password",
        r"ops_eyJ[A-Za-z0-9+/=_-]{100}",
        "ops_eyJ{a120}",
        "service account tokens `ops_eyJ…`",
    )
    .lazy()
    .run(Run::Wide),
    row(
        "xAI",
        r"(?-u:\b)xai-[A-Za-z0-9]{80}",
        "xai-{a80}",
        "`xai-…`",
    )
    .lazy(),
    row(
        "Airtable",
        r"(?-u:\b)pat[A-Za-z0-9]{14}\.[a-f0-9]{64}",
        "pat{a14}.{h64}",
        "personal access tokens `pat<14>.<64 hex>`",
    )
    .lazy(),
];

impl Start {
    /// Where the hidden span of the match `s..e` of `bytes` starts, or `None` when the
    /// surroundings say it is not a token.
    pub(super) fn at(self, bytes: &[u8], s: usize, e: usize) -> Option<usize> {
        match self {
            Start::Match => Some(s),
            Start::Skip(n) => Some((s + n).min(e)),
            Start::AfterLastSlash => {
                let m = bytes.get(s..e)?;
                Some(s + m.iter().rposition(|&c| c == b'/').map_or(0, |i| i + 1))
            }
            Start::BotId => {
                let mut i = s;
                while i > 0 && s - i < 17 && bytes[i - 1].is_ascii_digit() {
                    i -= 1;
                }
                let n = s - i;
                let after_bot = i >= 3
                    && bytes[i - 3..i].eq_ignore_ascii_case(b"bot")
                    && (i == 3 || !super::names::is_name_byte(bytes[i - 4]));
                let glued = i > 0 && super::names::is_name_byte(bytes[i - 1]) && !after_bot;
                ((5..=16).contains(&n) && !glued).then_some(i)
            }
            Start::LedByAlnum(n) => {
                let mut i = s;
                while i > 0 && s - i < n && bytes[i - 1].is_ascii_alphanumeric() {
                    i -= 1;
                }
                (s - i == n).then_some(i)
            }
        }
    }
}

/// A letter, digit, `_` or `-`: what a token's body is made of.
pub(super) fn body_byte(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_' || c == b'-'
}

impl Run {
    /// Where the hidden span of the match `s..e` ends.
    pub(super) fn end(self, bytes: &[u8], s: usize, e: usize) -> usize {
        let mut end = e;
        match self {
            Run::Exact => {}
            Run::Whole => {
                while end < bytes.len() && body_byte(bytes[end]) {
                    end += 1;
                }
            }
            Run::Body | Run::Wide => {
                let wide = self == Run::Wide;
                let run = |c: u8| body_byte(c) || (wide && matches!(c, b'=' | b'.' | b'+' | b'/'));
                while end < bytes.len() && end - s < super::VALUE_MAX && run(bytes[end]) {
                    end += 1;
                }
                while wide && end > e && bytes[end - 1] == b'.' {
                    end -= 1;
                }
            }
        }
        end
    }
}

fn mixed(b: &[u8]) -> bool {
    b.iter().any(u8::is_ascii_uppercase)
        && b.iter().any(u8::is_ascii_lowercase)
        && b.iter().any(u8::is_ascii_digit)
}

impl Check {
    /// Does the match `s..e`, whose span runs to `end`, pass?
    pub(super) fn passes(self, bytes: &[u8], s: usize, e: usize, end: usize) -> bool {
        match self {
            Check::None => true,
            Check::WordEnd => bytes.get(e).is_none_or(|&c| !body_byte(c)),
            Check::Mixed { from } => bytes.get(s + from..e).is_some_and(mixed),
            Check::MixedRun { from } => bytes.get(s + from..end).is_some_and(mixed),
        }
    }
}
