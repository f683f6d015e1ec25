//! The secret table: inputs, what must vanish, what must stay.

use super::*;

/// (input, secrets that must vanish, substrings that must survive)
fn secret_cases() -> Vec<(String, Vec<String>, Vec<&'static str>)> {
    let mut v: Vec<(String, Vec<String>, Vec<&'static str>)> = Vec::new();
    let mut add = |input: String, secrets: Vec<String>, keep: Vec<&'static str>| {
        v.push((input, secrets, keep));
    };
    // --- cloud keys
    add(
        "aws_access_key_id = AKIAIOSFODNN7EXAMPLE\n".into(),
        vec!["AKIAIOSFODNN7EXAMPLE".into()],
        vec!["aws_access_key_id = ", "\n"],
    );
    add(
        "aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY".into(),
        vec!["wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY".into()],
        vec!["aws_secret_access_key = "],
    );
    add(
        "export AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY; echo ok".into(),
        vec!["wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY".into()],
        vec!["export AWS_SECRET_ACCESS_KEY=", "; echo ok"],
    );
    add(
        r#"{"AccessKeyId": "ASIAY34FZKBOKMUTVV7A", "SecretAccessKey": "9drTJvcXLB89EXAMPLELB8923FB892xMFI", "SessionToken": "AQoXdzELDDY//////////wEaoAK1wvxJY12r2IrDFT2IvAzTCn3zHoZ7YNtpiQLF0MqZye/qwjzP2iEXAMPLE"}"#.into(),
        vec![
            "ASIAY34FZKBOKMUTVV7A".into(),
            "9drTJvcXLB89EXAMPLELB8923FB892xMFI".into(),
            "AQoXdzELDDY//////////wEaoAK1wvxJY12r2IrDFT2IvAzTCn3zHoZ7YNtpiQLF0MqZye".into(),
        ],
        vec![r#"{"AccessKeyId": ""#, r#"", "SecretAccessKey": ""#, r#""SessionToken": ""#],
    );
    add(
        "Key id AKIA2E0A8F3B244C9986 was rotated.".into(),
        vec!["AKIA2E0A8F3B244C9986".into()],
        vec!["Key id ", " was rotated."],
    );
    let goog = format!("AIza{}", alnum(35, 1));
    add(
        format!("const MAPS = \"{goog}\";"),
        vec![goog],
        vec!["const MAPS = \"", "\";"],
    );
    add(
        format!("client_secret: GOCSPX-{}", alnum(28, 2)),
        vec![alnum(28, 2)],
        vec!["client_secret: "],
    );
    add(
        format!("token ya29.{} expires", alnum(60, 3)),
        vec![alnum(60, 3)],
        vec!["token ", " expires"],
    );
    // --- VCS tokens
    for (i, p) in ["ghp_", "gho_", "ghu_", "ghs_", "ghr_"].iter().enumerate() {
        let t = format!("{p}{}", alnum(36, 10 + i as u64));
        add(
            format!("use {t} to push"),
            vec![t],
            vec!["use ", " to push"],
        );
    }
    let pat = format!("github_pat_{}_{}", alnum(22, 20), alnum(59, 21));
    add(format!("GH_PAT={pat}"), vec![pat], vec!["GH_PAT="]);
    let gl = format!("glpat-{}", alnum(20, 22));
    add(
        format!("PRIVATE-TOKEN: {gl}"),
        vec![gl],
        vec!["PRIVATE-TOKEN: "],
    );
    let ghs = format!("ghs_{}", alnum(36, 23));
    add(
        format!("git clone https://x-access-token:{ghs}@github.com/o/r.git"),
        vec![ghs],
        vec!["git clone https://x-access-token:", "@github.com/o/r.git"],
    );
    let ghp = format!("ghp_{}", alnum(36, 24));
    add(
        format!("https://{ghp}@github.com/o/r.git"),
        vec![ghp],
        vec!["https://", "@github.com/o/r.git"],
    );
    // --- chat, payment, AI, package registries
    add(
        "SLACK_BOT_TOKEN=xoxb-1234567890-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx".into(),
        vec!["xoxb-1234567890-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx".into()],
        vec!["SLACK_BOT_TOKEN="],
    );
    add(
        "user token xoxp-2222222222-3333333333-4444444444-abcdef0123456789".into(),
        vec!["xoxp-2222222222-3333333333-4444444444-abcdef0123456789".into()],
        vec!["user token "],
    );
    add(
        format!(
            "webhook https://hooks.slack.com/services/T0000AAAA/B0000BBBB/{}",
            alnum(24, 30)
        ),
        vec![alnum(24, 30)],
        vec!["webhook https://hooks.slack.com/services/"],
    );
    for (i, p) in ["sk_live_", "rk_live_", "sk_test_", "rk_test_"]
        .iter()
        .enumerate()
    {
        let t = format!("{p}{}", alnum(24, 40 + i as u64));
        add(
            format!("stripe.api_key = '{t}'"),
            vec![t],
            vec!["stripe.api_key = '", "'"],
        );
    }
    let wh = format!("whsec_{}", alnum(32, 45));
    add(format!("secret {wh}."), vec![wh], vec!["secret ", "."]);
    let oa = format!("sk-{}", alnum(48, 50));
    add(
        format!("OPENAI_API_KEY={oa}"),
        vec![oa],
        vec!["OPENAI_API_KEY="],
    );
    let proj = format!(
        "sk-proj-{}-{}_{}",
        alnum(40, 51),
        alnum(20, 52),
        alnum(30, 53)
    );
    add(
        format!("key: {proj} (project)"),
        vec![proj],
        vec!["key: ", " (project)"],
    );
    let ant = format!("sk-ant-api03-{}-{}AA", alnum(80, 54), alnum(10, 55));
    add(
        format!("x-api-key: {ant}\n"),
        vec![ant],
        vec!["x-api-key: ", "\n"],
    );
    let hf = format!("hf_{}", alnum(34, 60));
    add(
        format!("huggingface-cli login --token {hf}"),
        vec![hf],
        vec!["huggingface-cli login --token "],
    );
    let npm = format!("npm_{}", alnum(36, 61));
    add(
        format!("//registry.npmjs.org/:_authToken={npm}"),
        vec![npm],
        vec!["//registry.npmjs.org/:_authToken="],
    );
    let sg = format!("SG.{}.{}", alnum(22, 62), alnum(43, 63));
    add(format!("SENDGRID={sg}"), vec![sg], vec!["SENDGRID="]);
    let tw = format!("SK{}", hex(32, 64));
    add(
        format!("twilio key {tw} ok"),
        vec![tw],
        vec!["twilio key ", " ok"],
    );
    let ac = format!("AC{}", hex(32, 65));
    add(format!("account {ac}"), vec![ac], vec!["account "]);
    // --- JWT, bearer, basic, headers
    let jwt = "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9lIiwiaWF0IjoxNTE2MjM5MDIyfQ.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c";
    add(
        format!("id_token was {jwt}, expired"),
        vec![jwt.into()],
        vec!["id_token was ", ", expired"],
    );
    add(
        "curl -H 'Authorization: Bearer abc123def456ghi789' https://api.example.com".into(),
        vec!["abc123def456ghi789".into()],
        vec![
            "curl -H 'Authorization: Bearer ",
            "' https://api.example.com",
        ],
    );
    add(
        "Authorization: Basic dXNlcjpwYXNzd29yZA==\r\nHost: x".into(),
        vec!["dXNlcjpwYXNzd29yZA==".into()],
        vec!["Authorization: Basic ", "\r\nHost: x"],
    );
    add(
        "sent Bearer 0a1b2c3d4e5f6a7b8c9d to the server".into(),
        vec!["0a1b2c3d4e5f6a7b8c9d".into()],
        vec!["sent Bearer ", " to the server"],
    );
    add(
        "header was Basic YWxhZGRpbjpvcGVuc2VzYW1l.".into(),
        vec!["YWxhZGRpbjpvcGVuc2VzYW1l".into()],
        vec!["header was Basic ", "."],
    );
    add(
        "Proxy-Authorization: Basic YWxhZGRpbjpvcGVuc2VzYW1l".into(),
        vec!["YWxhZGRpbjpvcGVuc2VzYW1l".into()],
        vec!["Proxy-Authorization: Basic "],
    );
    let ghp2 = format!("ghp_{}", alnum(36, 70));
    add(
        format!("Authorization: token {ghp2}"),
        vec![ghp2],
        vec!["Authorization: token "],
    );
    add(
        "Authorization: AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20150830/us-east-1/iam/aws4_request, SignedHeaders=host, Signature=5d672d79c15b13162d9279b0855cfba6789a8edb4c82c400e06b5924a6f2b5d7\n".into(),
        vec!["5d672d79c15b13162d9279b0855cfba6789a8edb4c82c400e06b5924a6f2b5d7".into(), "AKIDEXAMPLE/20150830".into()],
        vec!["Authorization: AWS4-HMAC-SHA256 ", "\n"],
    );
    add(
        r#"{"headers": {"Authorization": "Bearer s3cr3tT0k3nValue", "Accept": "*/*"}}"#.into(),
        vec!["s3cr3tT0k3nValue".into()],
        vec![
            r#"{"headers": {"Authorization": "Bearer "#,
            r#"", "Accept": "*/*"}}"#,
        ],
    );
    add(
        "Cookie: sessionid=38afes7a8; csrftoken=Xyz123abc\n".into(),
        vec!["38afes7a8".into(), "Xyz123abc".into()],
        vec!["Cookie: sessionid=", "; csrftoken=", "\n"],
    );
    add(
        "Set-Cookie: id=a3fWa; Expires=Thu, 21 Oct 2021 07:28:00 GMT; Secure; HttpOnly".into(),
        vec!["a3fWa".into()],
        vec![
            "Set-Cookie: id=",
            "; Expires=Thu, 21 Oct 2021 07:28:00 GMT; Secure; HttpOnly",
        ],
    );
    add(
        "X-Api-Key: 9f8e7d6c5b4a39281706\nAccept: text/html".into(),
        vec!["9f8e7d6c5b4a39281706".into()],
        vec!["X-Api-Key: ", "\nAccept: text/html"],
    );
    add(
        "X-Auth-Token: tok_8d7f6e5c4b3a".into(),
        vec!["tok_8d7f6e5c4b3a".into()],
        vec!["X-Auth-Token: "],
    );
    // --- PEM
    add(
        "key:\n-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA0Z3VS5JJcds3xfn/ygWyF8PbnGy0AHB7MhgHcTz6sE2I2yPB\naFDrBz9vFqU4yMU8W8C7fEzVAYfe8DA2CNn+9EqGq0dAwgMPGKVBrVxdQNMy3B09\n-----END RSA PRIVATE KEY-----\nend".into(),
        vec!["MIIEowIBAAKCAQEA0Z3VS5JJcds3xfn".into(), "aFDrBz9vFqU4yMU8W8C7fEzVAYfe8DA2CNn".into()],
        vec!["-----BEGIN RSA PRIVATE KEY-----\n", "\n-----END RSA PRIVATE KEY-----\nend"],
    );
    add(
        "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW\n-----END OPENSSH PRIVATE KEY-----".into(),
        vec!["b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQ".into()],
        vec!["-----BEGIN OPENSSH PRIVATE KEY-----\n", "\n-----END OPENSSH PRIVATE KEY-----"],
    );
    add(
        r#"{"type": "service_account", "private_key": "-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7\n-----END PRIVATE KEY-----\n", "client_email": "a@b.iam"}"#.into(),
        vec!["MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7".into()],
        vec![r#""private_key": "-----BEGIN PRIVATE KEY-----\n"#, r#"\n-----END PRIVATE KEY-----\n", "client_email": "a@b.iam"}"#],
    );
    add(
        "-----BEGIN EC PRIVATE KEY-----\nMHcCAQEEIIrYSSNQFaA2Hwf1duRSxKtLYX5CB04fSeQ6tF1aY/PuoAoGCCqGSM49".into(),
        vec!["MHcCAQEEIIrYSSNQFaA2Hwf1duRSxKtLYX5CB04fSeQ6tF1aY".into()],
        vec!["-----BEGIN EC PRIVATE KEY-----\n"],
    );
    // --- assignments
    add(
        "password=hunter22 ".into(),
        vec!["hunter22".into()],
        vec!["password=", " "],
    );
    add(
        r#"{"password": "correct-Horse-9"}"#.into(),
        vec!["correct-Horse-9".into()],
        vec![r#"{"password": ""#, r#""}"#],
    );
    add(
        "api_key: \"a1b2c3d4e5f6\"\n".into(),
        vec!["a1b2c3d4e5f6".into()],
        vec!["api_key: \"", "\"\n"],
    );
    add(
        "client_secret = 'Zq8~xP2!mN4'".into(),
        vec!["Zq8~xP2!mN4".into()],
        vec!["client_secret = '", "'"],
    );
    add(
        "DB_PASSWORD=s3cr3tP4ss\nDB_HOST=db".into(),
        vec!["s3cr3tP4ss".into()],
        vec!["DB_PASSWORD=", "\nDB_HOST=db"],
    );
    add(
        "$config['password'] => 'Tr0ub4dor&3';".into(),
        vec!["Tr0ub4dor&3".into()],
        vec!["$config['password'] => '", "';"],
    );
    add(
        "token := \"abc123xyz789\"".into(),
        vec!["abc123xyz789".into()],
        vec!["token := \""],
    );
    add(
        r#"{\"api_key\": \"a1b2c3d4e5f6g7\"}"#.into(),
        vec!["a1b2c3d4e5f6g7".into()],
        vec![r#"{\"api_key\": \""#, r#"\"}"#],
    );
    add(
        "mysql --password=Sup3rS3cret --host db".into(),
        vec!["Sup3rS3cret".into()],
        vec!["mysql --password=", " --host db"],
    );
    add(
        "auth_token=deadbeef1234&x".into(),
        vec!["deadbeef1234".into()],
        vec!["auth_token=", "&x"],
    );
    add(
        "SECRET_KEY = '7f3e9a0b1c2d3e4f5a6b7c8d9e0f'".into(),
        vec!["7f3e9a0b1c2d3e4f5a6b7c8d9e0f".into()],
        vec!["SECRET_KEY = '", "'"],
    );
    add(
        "Server=db;Database=app;User Id=sa;Password=P@ssw0rd1;".into(),
        vec!["P@ssw0rd1".into()],
        vec!["Server=db;Database=app;User Id=sa;Password=", ";"],
    );
    add(
        "passphrase: \"aVeryLongPassphraseWithoutDigits\"".into(),
        vec!["aVeryLongPassphraseWithoutDigits".into()],
        vec!["passphrase: \""],
    );
    add(
        "db.pass = 9981723364".into(),
        vec!["9981723364".into()],
        vec!["db.pass = "],
    );
    // --- URLs inside text
    add(
        "GET https://api.example.com/v1?api_key=abc123&page=2 200".into(),
        vec!["abc123".into()],
        vec!["GET https://api.example.com/v1?api_key=", "&page=2 200"],
    );
    add(
        "<script src=\"https://maps.googleapis.com/maps/api/js?key=qwerty&callback=init\"></script>".into(),
        vec!["qwerty".into()],
        vec!["js?key=", "&callback=init\"></script>"],
    );
    add(
        "redirected to https://example.com/cb#access_token=tok123xyz&state=xyzzy&token_type=bearer"
            .into(),
        vec!["tok123xyz".into(), "xyzzy".into()],
        vec!["#access_token=", "&state=", "&token_type=bearer"],
    );
    add(
        "connect https://user:pa55w0rd@db.example.com:5432/app now".into(),
        vec!["pa55w0rd".into()],
        vec!["connect https://user:", "@db.example.com:5432/app now"],
    );
    add(
        "DATABASE_URL=postgres://admin:s3cret!x@localhost/db".into(),
        vec!["s3cret!x".into()],
        vec!["postgres://admin:", "@localhost/db"],
    );
    add(
        "redis://:redispass@cache:6379/0".into(),
        vec!["redispass".into()],
        vec!["redis://:", "@cache:6379/0"],
    );
    add(
        "<a href=\"/login?next=/home&amp;sessionid=qpwoeiruty\">log in</a>".into(),
        vec!["qpwoeiruty".into()],
        vec!["&amp;sessionid=", "\">log in</a>"],
    );
    add(
        "https://bucket.s3.amazonaws.com/f?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=AKIDEXAMPLE%2F20240101%2Fus-east-1%2Fs3%2Faws4_request&X-Amz-Signature=abcdef0123456789&X-Amz-Security-Token=FQoGZXIvYXdzEXAMPLE".into(),
        vec!["AKIDEXAMPLE%2F20240101".into(), "abcdef0123456789".into(), "FQoGZXIvYXdzEXAMPLE".into()],
        vec!["X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=", "&X-Amz-Signature="],
    );
    add(
        "see https://storage.googleapis.com/b/o?X-Goog-Signature=0a1b2c3d9f&X-Goog-Date=20240101"
            .into(),
        vec!["0a1b2c3d9f".into()],
        vec!["X-Goog-Signature=", "&X-Goog-Date=20240101"],
    );
    add(
        "https://example.com/oauth/callback?code=4/P7q7W91&state=zzqqyy".into(),
        vec!["4/P7q7W91".into(), "zzqqyy".into()],
        vec!["callback?code=", "&state="],
    );
    add(
        "https://example.com/page;jsessionid=A1B2C3D4E5F6?x=1".into(),
        vec!["A1B2C3D4E5F6".into()],
        vec!["https://example.com/page;jsessionid=", "?x=1"],
    );
    add(
        "https://example.com/?sig=Zm9vYmFy&sid=s%3Aqwe&Password=letmein".into(),
        vec!["Zm9vYmFy".into(), "s%3Aqwe".into(), "letmein".into()],
        vec!["?sig=", "&sid=", "&Password="],
    );
    add(
        "POST body: grant_type=refresh_token&refresh_token=1%2F%2Fabc123&client_secret=plainwords"
            .into(),
        vec!["1%2F%2Fabc123".into(), "plainwords".into()],
        vec!["grant_type=refresh_token&refresh_token=", "&client_secret="],
    );
    add(
        "ws://host/socket?token=abc. Then".into(),
        vec!["=abc".into()],
        vec!["ws://host/socket?token=", ". Then"],
    );
    // Bare URLs (also run through redact_url).
    add(
        "https://api.example.com/v2/items?access_token=Zx81mQ&limit=10".into(),
        vec!["Zx81mQ".into()],
        vec!["?access_token=", "&limit=10"],
    );
    add(
        "https://example.com/reset#id_token=qqq.www.eee&refresh_token=rrtt11".into(),
        vec!["qqq.www.eee".into(), "rrtt11".into()],
        vec!["#id_token=", "&refresh_token="],
    );
    add(
        "https://example.com/login?client_secret=Cs1Cs2Cs3&authorization=Authz9".into(),
        vec!["Cs1Cs2Cs3".into(), "Authz9".into()],
        vec!["?client_secret=", "&authorization="],
    );
    add(
        "https://example.com/?session=sEsS10n&cookie=c00kie1&passwd=pw0rd1".into(),
        vec!["sEsS10n".into(), "c00kie1".into(), "pw0rd1".into()],
        vec!["?session=", "&cookie=", "&passwd="],
    );
    add(
        "https://example.com/a?pwd=abcxyz&secret=qwertz&api-key=k3yk3y".into(),
        vec!["=abcxyz".into(), "qwertz".into(), "k3yk3y".into()],
        vec!["?pwd=", "&secret=", "&api-key="],
    );
    add(
        "https://example.com/?state=onlyletters&auth=lettersonly".into(),
        vec!["onlyletters".into(), "=lettersonly".into()],
        vec!["?state=", "&auth="],
    );
    add(
        "[docs](https://example.com/x?apikey=Q1W2E3R4)".into(),
        vec!["Q1W2E3R4".into()],
        vec!["[docs](https://example.com/x?apikey=", ")"],
    );
    v
}

#[test]
fn secret_table() {
    let r = Redactor::new();
    let cases = secret_cases();
    assert!(cases.len() >= 60, "only {} secret cases", cases.len());
    for (input, secrets, keep) in &cases {
        let out = r.redact_text(input);
        for s in secrets {
            assert!(
                !out.contains(s.as_str()),
                "secret {s:?} survived in {out:?}"
            );
        }
        for k in keep {
            assert!(out.contains(k), "context {k:?} lost: {input:?} -> {out:?}");
        }
        assert!(out.contains(TEXT_MARKER), "no marker in {out:?}");
        assert_eq!(r.redact_text(&out), out, "not idempotent on {input:?}");
    }
}

/// Secret cases through `redact_url` (each of the URL inputs above that is a bare URL).
#[test]
fn secret_table_urls() {
    let r = Redactor::new();
    let mut n = 0;
    for (input, secrets, _) in secret_cases() {
        if input.contains(' ') || url::Url::parse(&input).is_err() {
            continue;
        }
        n += 1;
        let out = r.redact_url(&input);
        for s in &secrets {
            assert!(
                !out.contains(s.as_str()),
                "secret {s:?} survived in {out:?}"
            );
        }
        assert!(url::Url::parse(&out).is_ok(), "{out:?} no longer parses");
        assert!(!out.contains(TEXT_MARKER));
        assert_eq!(r.redact_url(&out), out);
    }
    assert!(n >= 8, "only {n} URL cases");
}
