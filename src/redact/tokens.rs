//! Rule 2's vendor tokens as data: one row per format, with the prefix the
//! vendor gives it, the characters and length of what follows, the
//! checksum where the vendor publishes one, and where each came from. The
//! prefilter (`triggers.rs`) takes every row's trigger literals, so a row
//! costs nothing where its prefix does not occur. The older hand-written
//! shapes (Anthropic, OpenAI, AWS key ids, GitHub, Slack, Google, JWT, key
//! blocks, which also covers PGP private key blocks) stay in `formats.rs`.
//!
//! A row's checksum is recorded, not required: a token must not survive
//! because it was mistyped, cut, or because a vendor changed its checksum.
//! `checksum_ok` lets tests and tools verify it.

/// What follows a prefix.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Chars {
    /// `[A-Za-z0-9]`
    Alnum,
    /// `[A-Za-z0-9_-]` (base64url)
    Base64Url,
    /// `[A-Za-z0-9_.-]` (base64url and `.` separators)
    Dotted,
    /// `[0-9a-f]`
    LowerHex,
    /// `[0-9a-fA-F]`
    Hex,
    /// `[A-Za-z]`
    Letters,
    /// Bech32's upper-case alphabet (`age`).
    Bech32Upper,
    /// `[A-Za-z0-9_=-]` (base64url with its padding inside: Atlassian)
    Base64UrlPad,
    /// `[A-Za-z0-9+/=]` (base64)
    Base64,
}

impl Chars {
    pub fn has(self, b: u8) -> bool {
        match self {
            Chars::Alnum => b.is_ascii_alphanumeric(),
            Chars::Base64Url => b.is_ascii_alphanumeric() || b == b'_' || b == b'-',
            Chars::Dotted => b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.'),
            Chars::LowerHex => b.is_ascii_digit() || (b'a'..=b'f').contains(&b),
            Chars::Hex => b.is_ascii_hexdigit(),
            Chars::Letters => b.is_ascii_alphabetic(),
            Chars::Bech32Upper => b"QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L".contains(&b),
            Chars::Base64UrlPad => b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'='),
            Chars::Base64 => b.is_ascii_alphanumeric() || matches!(b, b'+' | b'/' | b'='),
        }
    }

    /// The characters themselves, for tests that make tokens.
    #[cfg(test)]
    pub fn alphabet(self) -> &'static [u8] {
        match self {
            Chars::Alnum => b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789",
            Chars::Base64Url | Chars::Dotted => {
                b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-"
            }
            Chars::LowerHex => b"0123456789abcdef",
            Chars::Hex => b"0123456789abcdefABCDEF",
            Chars::Letters => b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz",
            Chars::Bech32Upper => b"QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L",
            Chars::Base64UrlPad => b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-=",
            Chars::Base64 => b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/=",
        }
    }
}

/// A format's layout beyond prefix + run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shape {
    /// `prefix` then `min..=max` of `chars`, not followed by another.
    Run,
    /// SendGrid: `SG.` 22 base64url `.` 43 base64url.
    SendGrid,
    /// Mailchimp: 32 hex, then the trigger `-us` and the data centre's digits.
    Mailchimp,
    /// Telegram: the bot's id (digits, the token's start), `:` and 35 base64url.
    Telegram,
    /// Discord: base64 of the bot's id, `.`, 6 base64url, `.`, 27-38 base64url.
    Discord,
    /// An Azure SAS URL's `sig=` parameter: the percent-encoded signature.
    AzureSig,
    /// A PuTTY `.ppk` file's `Private-Lines: N` and the N lines after it.
    PuttyPrivate,
}

/// A checksum a vendor publishes for its tokens.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Checksum {
    None,
    /// The last 6 characters are the CRC32 of the 30 before them, in base62
    /// (GitHub's design, which npm took).
    Crc32Base62Last6,
}

/// `checksum` and `source` are read by the tests and by people.
#[derive(Debug)]
#[allow(dead_code)]
pub struct TokenFormat {
    /// The rule name a redaction reports.
    pub rule: &'static str,
    /// The prefix every token starts with (part of the secret).
    pub prefix: &'static str,
    /// The literals the prefilter looks for (three bytes or more).
    pub triggers: &'static [&'static str],
    pub chars: Chars,
    pub min: u16,
    pub max: u16,
    pub shape: Shape,
    pub checksum: Checksum,
    /// The vendor's documentation of the format (or the scanner's rule).
    /// Kept in the source and the tests, not in the module: 70 addresses
    /// a browser would download for nothing.
    #[cfg(test)]
    pub source: &'static str,
}

const fn run(
    rule: &'static str,
    prefix: &'static str,
    triggers: &'static [&'static str],
    chars: Chars,
    min: u16,
    max: u16,
    source: &'static str,
) -> TokenFormat {
    #[cfg(not(test))]
    let _ = source;
    TokenFormat {
        rule,
        prefix,
        triggers,
        chars,
        min,
        max,
        shape: Shape::Run,
        checksum: Checksum::None,
        #[cfg(test)]
        source,
    }
}

const TWILIO_TRIGGERS: &[&str] = &[
    "SK0", "SK1", "SK2", "SK3", "SK4", "SK5", "SK6", "SK7", "SK8", "SK9", "SKa", "SKb", "SKc", "SKd", "SKe",
    "SKf",
];

/// base64 of a snowflake id that starts with 1 (every bot made since 2016):
/// `MT` and the third character of `1` followed by each digit.
const DISCORD_TRIGGERS: &[&str] = &["MTA", "MTE", "MTI", "MTM", "MTQ", "MTU", "MTY", "MTc", "MTg", "MTk"];

/// The secret scanners' rules some rows take their shape from.
const GITLEAKS: &str = "https://github.com/gitleaks/gitleaks/blob/master/config/gitleaks.toml";
const KINGFISHER: &str = "https://github.com/mongodb/kingfisher/tree/main/data/rules";

pub const TOKENS: &[TokenFormat] = &[
    // Google OAuth 2.0: a client secret is `GOCSPX-` and 28 base64url
    // characters; an access token (`gcloud auth print-access-token`) is
    // `ya29.` and base64url with dots, a few hundred characters.
    run(
        "google-oauth",
        "GOCSPX-",
        &["GOCSPX-"],
        Chars::Base64Url,
        24,
        40,
        "https://developers.google.com/identity/protocols/oauth2",
    ),
    run(
        "google-oauth",
        "ya29.",
        &["ya29."],
        Chars::Dotted,
        30,
        2048,
        "https://developers.google.com/identity/protocols/oauth2",
    ),
    // https://docs.stripe.com/keys: secret keys `sk_live_`, restricted keys
    // `rk_live_` (and `_test_` in test mode); Stripe's security team gave
    // `(sk|rk)_live_[0-9a-z]{10,128}` (case-insensitive) for scanners
    // (https://gitlab.com/gitlab-org/gitlab/-/issues/458019), and keys may grow to 255.
    run("stripe-key", "sk_live_", &["sk_live_"], Chars::Alnum, 10, 247, "https://docs.stripe.com/keys"),
    run("stripe-key", "rk_live_", &["rk_live_"], Chars::Alnum, 10, 247, "https://docs.stripe.com/keys"),
    run("stripe-key", "sk_test_", &["sk_test_"], Chars::Alnum, 10, 247, "https://docs.stripe.com/keys"),
    run("stripe-key", "rk_test_", &["rk_test_"], Chars::Alnum, 10, 247, "https://docs.stripe.com/keys"),
    // https://docs.stripe.com/webhooks#verify-events: the endpoint's signing
    // secret starts with `whsec_`.
    run(
        "stripe-webhook-secret",
        "whsec_",
        &["whsec_"],
        Chars::Alnum,
        24,
        128,
        "https://docs.stripe.com/webhooks",
    ),
    // https://www.twilio.com/docs/sendgrid/ui/account-and-settings/api-keys:
    // `SG.` + key id (22) + `.` + secret (43), 69 characters.
    TokenFormat {
        rule: "sendgrid-key",
        prefix: "SG.",
        triggers: &["SG."],
        chars: Chars::Base64Url,
        min: 22,
        max: 22,
        shape: Shape::SendGrid,
        checksum: Checksum::None,
        #[cfg(test)]
        source: "https://www.twilio.com/docs/sendgrid/ui/account-and-settings/api-keys",
    },
    // https://github.blog/changelog/2021-09-23-npm-has-a-new-access-token-format/:
    // `npm_` + 36 base62, the last 6 a CRC32 checksum as in GitHub's
    // https://github.blog/engineering/platform-security/behind-githubs-new-authentication-token-formats/
    TokenFormat {
        rule: "npm-token",
        prefix: "npm_",
        triggers: &["npm_"],
        chars: Chars::Alnum,
        min: 36,
        max: 36,
        shape: Shape::Run,
        checksum: Checksum::Crc32Base62Last6,
        #[cfg(test)]
        source: "https://github.blog/changelog/2021-09-23-npm-has-a-new-access-token-format/",
    },
    // https://pypi.org/help/#apitoken: tokens start with `pypi-`, then a
    // base64url macaroon (`AgEIcHlwaS5vcmc…` names pypi.org), long.
    run("pypi-token", "pypi-", &["pypi-"], Chars::Base64Url, 50, 1000, "https://pypi.org/help/#apitoken"),
    // https://docs.gitlab.com/security/tokens/#token-prefixes: personal,
    // deploy, runner, pipeline trigger, CI job, incoming mail, feed, OAuth
    // application secret, agent, SCIM tokens. 20 characters, or the newer
    // routable form with `.` separators.
    run(
        "gitlab-token",
        "glpat-",
        &["glpat-"],
        Chars::Dotted,
        20,
        300,
        "https://docs.gitlab.com/security/tokens/#token-prefixes",
    ),
    run(
        "gitlab-token",
        "gldt-",
        &["gldt-"],
        Chars::Dotted,
        20,
        300,
        "https://docs.gitlab.com/security/tokens/#token-prefixes",
    ),
    run(
        "gitlab-token",
        "glrt-",
        &["glrt-"],
        Chars::Dotted,
        20,
        300,
        "https://docs.gitlab.com/security/tokens/#token-prefixes",
    ),
    run(
        "gitlab-token",
        "glptt-",
        &["glptt-"],
        Chars::Dotted,
        20,
        300,
        "https://docs.gitlab.com/security/tokens/#token-prefixes",
    ),
    run(
        "gitlab-token",
        "glcbt-",
        &["glcbt-"],
        Chars::Dotted,
        20,
        300,
        "https://docs.gitlab.com/security/tokens/#token-prefixes",
    ),
    run(
        "gitlab-token",
        "glimt-",
        &["glimt-"],
        Chars::Dotted,
        20,
        300,
        "https://docs.gitlab.com/security/tokens/#token-prefixes",
    ),
    run(
        "gitlab-token",
        "glft-",
        &["glft-"],
        Chars::Dotted,
        20,
        300,
        "https://docs.gitlab.com/security/tokens/#token-prefixes",
    ),
    run(
        "gitlab-token",
        "gloas-",
        &["gloas-"],
        Chars::Dotted,
        20,
        300,
        "https://docs.gitlab.com/security/tokens/#token-prefixes",
    ),
    run(
        "gitlab-token",
        "glagent-",
        &["glagent-"],
        Chars::Dotted,
        20,
        300,
        "https://docs.gitlab.com/security/tokens/#token-prefixes",
    ),
    run(
        "gitlab-token",
        "glsoat-",
        &["glsoat-"],
        Chars::Dotted,
        20,
        300,
        "https://docs.gitlab.com/security/tokens/#token-prefixes",
    ),
    // https://www.twilio.com/docs/iam/api-keys: an API key's SID is `SK` + 32
    // hex (34 characters); scanners treat it as the credential's half.
    run(
        "twilio-key",
        "SK",
        TWILIO_TRIGGERS,
        Chars::LowerHex,
        32,
        32,
        "https://www.twilio.com/docs/iam/api-keys",
    ),
    // https://huggingface.co/docs/hub/security-tokens: user access tokens
    // start with `hf_` (34 letters follow in every token issued so far).
    run(
        "huggingface-token",
        "hf_",
        &["hf_"],
        Chars::Letters,
        34,
        34,
        "https://huggingface.co/docs/hub/security-tokens",
    ),
    run(
        "huggingface-token",
        "api_org_",
        &["api_org_"],
        Chars::Letters,
        34,
        34,
        "https://huggingface.co/docs/hub/security-tokens",
    ),
    // https://docs.databricks.com/en/dev-tools/auth/pat.html: personal access
    // tokens `dapi` + 32 hex (some end in `-2`).
    run(
        "databricks-token",
        "dapi",
        &["dapi"],
        Chars::LowerHex,
        32,
        32,
        "https://docs.databricks.com/en/dev-tools/auth/pat.html",
    ),
    // https://docs.digitalocean.com/reference/api/create-personal-access-token/:
    // `dop_v1_` (personal), `doo_v1_` (OAuth), `dor_v1_` (refresh) + 64 hex.
    run(
        "digitalocean-token",
        "dop_v1_",
        &["dop_v1_"],
        Chars::LowerHex,
        64,
        64,
        "https://docs.digitalocean.com/reference/api/create-personal-access-token/",
    ),
    run(
        "digitalocean-token",
        "doo_v1_",
        &["doo_v1_"],
        Chars::LowerHex,
        64,
        64,
        "https://docs.digitalocean.com/reference/api/create-personal-access-token/",
    ),
    run(
        "digitalocean-token",
        "dor_v1_",
        &["dor_v1_"],
        Chars::LowerHex,
        64,
        64,
        "https://docs.digitalocean.com/reference/api/create-personal-access-token/",
    ),
    // https://shopify.dev/changelog/length-of-the-shopify-access-token-is-increasing:
    // `shpat_`, `shpca_`, `shppa_` + 32; app secrets `shpss_` + 32
    // (https://shopify.dev/changelog/app-secret-key-length-has-increased).
    run(
        "shopify-token",
        "shpat_",
        &["shpat_"],
        Chars::Hex,
        32,
        32,
        "https://shopify.dev/changelog/length-of-the-shopify-access-token-is-increasing",
    ),
    run(
        "shopify-token",
        "shpca_",
        &["shpca_"],
        Chars::Hex,
        32,
        32,
        "https://shopify.dev/changelog/length-of-the-shopify-access-token-is-increasing",
    ),
    run(
        "shopify-token",
        "shppa_",
        &["shppa_"],
        Chars::Hex,
        32,
        32,
        "https://shopify.dev/changelog/length-of-the-shopify-access-token-is-increasing",
    ),
    run(
        "shopify-token",
        "shpss_",
        &["shpss_"],
        Chars::Hex,
        32,
        32,
        "https://shopify.dev/changelog/app-secret-key-length-has-increased",
    ),
    // https://documentation.mailgun.com/docs/mailgun/api-reference/authentication:
    // the (legacy) private API key is `key-` + 32 hex.
    run(
        "mailgun-key",
        "key-",
        &["key-"],
        Chars::LowerHex,
        32,
        32,
        "https://documentation.mailgun.com/docs/mailgun/api-reference/authentication",
    ),
    // https://mailchimp.com/developer/marketing/guides/quick-start/: the key
    // ends in `-us` and the data centre (`…-us6`); 32 hex before it.
    TokenFormat {
        rule: "mailchimp-key",
        prefix: "",
        triggers: &["-us"],
        chars: Chars::LowerHex,
        min: 32,
        max: 32,
        shape: Shape::Mailchimp,
        checksum: Checksum::None,
        #[cfg(test)]
        source: "https://mailchimp.com/developer/marketing/guides/quick-start/",
    },
    // https://devcenter.heroku.com/articles/authentication: API keys made
    // since 2024 start with `HRKU-`; `HRKU-AA` + 58 base64url.
    run(
        "heroku-key",
        "HRKU-AA",
        &["HRKU-AA"],
        Chars::Base64Url,
        58,
        58,
        "https://devcenter.heroku.com/articles/authentication",
    ),
    // https://developer.hashicorp.com/vault/docs/concepts/tokens#token-prefixes:
    // `hvs.` service, `hvb.` batch, `hvr.` recovery tokens.
    run(
        "vault-token",
        "hvs.",
        &["hvs."],
        Chars::Base64Url,
        24,
        500,
        "https://developer.hashicorp.com/vault/docs/concepts/tokens#token-prefixes",
    ),
    run(
        "vault-token",
        "hvb.",
        &["hvb."],
        Chars::Base64Url,
        24,
        500,
        "https://developer.hashicorp.com/vault/docs/concepts/tokens#token-prefixes",
    ),
    run(
        "vault-token",
        "hvr.",
        &["hvr."],
        Chars::Base64Url,
        24,
        500,
        "https://developer.hashicorp.com/vault/docs/concepts/tokens#token-prefixes",
    ),
    // https://core.telegram.org/bots/api#authorizing-your-bot: `<bot id>:<35
    // characters>` (`123456:ABC-DEF1234ghIkl-zyx57W2v1u123ew11`); every
    // issued token's secret half starts with `AA`, which the prefilter uses.
    TokenFormat {
        rule: "telegram-bot-token",
        prefix: ":AA",
        triggers: &[":AA"],
        chars: Chars::Base64Url,
        min: 33,
        max: 33,
        shape: Shape::Telegram,
        checksum: Checksum::None,
        #[cfg(test)]
        source: "https://core.telegram.org/bots/api#authorizing-your-bot",
    },
    // https://discord.com/developers/docs/reference#authentication: a bot
    // token (`Authorization: Bot <token>`); its three parts are the bot's
    // id in base64, a timestamp and an HMAC.
    TokenFormat {
        rule: "discord-bot-token",
        prefix: "",
        triggers: DISCORD_TRIGGERS,
        chars: Chars::Alnum,
        min: 24,
        max: 26,
        shape: Shape::Discord,
        checksum: Checksum::None,
        #[cfg(test)]
        source: "https://discord.com/developers/docs/reference#authentication",
    },
    // https://age-encryption.org/v1: an X25519 identity is Bech32 with HRP
    // `AGE-SECRET-KEY-`, upper case: `AGE-SECRET-KEY-1` + 58 characters.
    run(
        "age-secret-key",
        "AGE-SECRET-KEY-1",
        &["SECRET-KEY-1"], // not `AGE-`: `age` starts `page`, `usage`
        Chars::Bech32Upper,
        58,
        58,
        "https://age-encryption.org/v1",
    ),
    // https://learn.microsoft.com/azure/storage/common/storage-sas-overview:
    // a SAS token's `sig=` is its HMAC-SHA256 signature, base64 and
    // percent-encoded; with it the URL is the credential.
    TokenFormat {
        rule: "azure-sas",
        prefix: "sig=",
        triggers: &["sig="],
        chars: Chars::Alnum,
        min: 20,
        max: 200,
        shape: Shape::AzureSig,
        checksum: Checksum::None,
        #[cfg(test)]
        source: "https://learn.microsoft.com/azure/storage/common/storage-sas-overview",
    },
    // A trigger is the rarest part of a prefix: the prefilter's first test
    // is a token's first two bytes, and `fo`, `nt`, `pl`, `ul` start a pair
    // every few dozen bytes of English and code (the bench journal's pairs
    // that pass it went from 634,000 to 781,000 per 10 MB with the prefixes
    // themselves as triggers, and redaction 5% slower). Pulumi's `pul-`
    // has no rare part: it is not a row.
    // Model providers' keys an agent's own environment holds. Their
    // shapes are not in the vendors' documents; these are the secret
    // scanners' (gitleaks, MongoDB's kingfisher), matched to keys seen.
    run("groq-key", "gsk_", &["sk_"], Chars::Alnum, 52, 52, KINGFISHER),
    run("xai-key", "xai-", &["xai-"], Chars::Alnum, 80, 80, KINGFISHER),
    run("openrouter-key", "sk-or-v1-", &["sk-or-v1-"], Chars::LowerHex, 64, 64, KINGFISHER),
    run("replicate-token", "r8_", &["r8_"], Chars::Alnum, 37, 37, KINGFISHER),
    run("perplexity-key", "pplx-", &["lx-"], Chars::Alnum, 48, 48, GITLEAKS),
    // Developer services whose tokens a transcript shows in command output
    // (gitleaks' rules, each with the vendor's prefix).
    run("linear-key", "lin_api_", &["n_api_"], Chars::Alnum, 40, 40, GITLEAKS),
    // `PMAK-` + 24 hex + `-` + 34 hex.
    run("postman-key", "PMAK-", &["AK-"], Chars::Base64Url, 59, 59, GITLEAKS),
    run("atlassian-token", "ATATT3", &["TT3"], Chars::Base64UrlPad, 186, 186, GITLEAKS),
    run("newrelic-key", "NRAK-", &["NRAK-"], Chars::Alnum, 27, 27, GITLEAKS),
    run("doppler-token", "dp.pt.", &["dp.pt."], Chars::Alnum, 43, 43, GITLEAKS),
    run("sentry-token", "sntryu_", &["sntryu_"], Chars::LowerHex, 64, 64, GITLEAKS),
    // `glsa_` + 32 alphanumerics + `_` + 8 hex; `glc_` + base64.
    run("grafana-token", "glsa_", &["glsa_"], Chars::Base64Url, 41, 41, GITLEAKS),
    run("grafana-token", "glc_", &["glc_"], Chars::Base64, 32, 400, GITLEAKS),
    run("notion-token", "ntn_", &["tn_"], Chars::Alnum, 46, 46, GITLEAKS),
    run("planetscale-token", "pscale_tkn_", &["pscale_tkn_"], Chars::Dotted, 32, 64, GITLEAKS),
    run("planetscale-token", "pscale_pw_", &["pscale_pw_"], Chars::Dotted, 32, 64, GITLEAKS),
    run("flyio-token", "fo1_", &["o1_"], Chars::Base64Url, 43, 43, GITLEAKS),
    run("flyio-token", "fm2_", &["fm2_"], Chars::Base64, 100, 4000, GITLEAKS),
    run("flyio-token", "fm1a_", &["fm1a_"], Chars::Base64, 100, 4000, GITLEAKS),
    run("flyio-token", "fm1r_", &["fm1r_"], Chars::Base64, 100, 4000, GITLEAKS),
    run("1password-token", "ops_eyJ", &["_eyJ"], Chars::Base64, 250, 4000, GITLEAKS),
    // Stop 53: more that reach a transcript bare (`docker login -p`, a
    // .env a tool printed): Docker Hub's access tokens, Supabase's and
    // Figma's personal tokens (kingfisher), Clojars' (gitleaks); each
    // trigger the part whose first two bytes start few pairs (`gd_`,
    // `OJARS_`). Not Cloudflare's origin CA keys: `v1.0-` has no rarer
    // part, and `v1` starts a pair in every API path.
    run("dockerhub-token", "dckr_pat_", &["dckr_"], Chars::Base64Url, 27, 27, KINGFISHER),
    run("supabase-token", "sbp_", &["sbp_"], Chars::Alnum, 40, 40, KINGFISHER),
    run("figma-token", "figd_", &["gd_"], Chars::Base64Url, 40, 40, KINGFISHER),
    run("clojars-token", "CLOJARS_", &["OJARS_"], Chars::Alnum, 60, 60, GITLEAKS),
    // https://tailscale.com/kb/1085/auth-keys: `tskey-auth-…`, `tskey-api-…`,
    // `tskey-client-…`: a kind, a key id and its secret.
    run(
        "tailscale-key",
        "tskey-",
        &["tskey-"],
        Chars::Base64Url,
        30,
        200,
        "https://tailscale.com/kb/1085/auth-keys",
    ),
    // https://the.earth.li/~sgtatham/putty/0.81/htmldoc/AppendixC.html: a
    // `.ppk` file's private half is the `Private-Lines: N` lines of base64
    // (then `Private-MAC:`).
    TokenFormat {
        rule: "putty-private-key",
        prefix: "Private-Lines:",
        triggers: &["Private-Lines:"],
        chars: Chars::Alnum,
        min: 1,
        max: 200,
        shape: Shape::PuttyPrivate,
        checksum: Checksum::None,
        #[cfg(test)]
        source: "https://the.earth.li/~sgtatham/putty/0.81/htmldoc/AppendixC.html",
    },
];

/// No token here is longer.
const MAX_TOKEN: usize = 4096;

fn is_word(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}

/// Whether the letter before `pos` ends an escape or a colour code rather
/// than a word, so a token may start at `pos`: `\n`, `\t` (a tool's JSON
/// output inside a string shows its newlines so), and a terminal's
/// ESC [ … m or ESC [ K (`grep --color`, a test runner's green), the ESC as
/// the byte or as `\u001b`, `\x1b`, `\033`, `\e`.
pub(super) fn after_escape(text: &[u8], pos: usize) -> bool {
    let Some(&last) = text[..pos].last() else { return false };
    if pos >= 2 && text[pos - 2] == b'\\' && matches!(last, b'n' | b't' | b'r' | b'b' | b'f' | b'v' | b'e') {
        return true;
    }
    if !last.is_ascii_alphabetic() {
        return false;
    }
    let mut i = pos - 1;
    while i > 0 && pos - i < 32 && (text[i - 1].is_ascii_digit() || text[i - 1] == b';') {
        i -= 1;
    }
    if i == 0 || text[i - 1] != b'[' {
        return false;
    }
    let before = &text[..i - 1];
    [&b"\x1b"[..], b"\\u001b", b"\\u001B", b"\\x1b", b"\\x1B", b"\\033", b"\\e"]
        .iter()
        .any(|esc| before.ends_with(esc))
}

/// The end of the run of `f` bytes from `start`, at most `max` long.
fn run_end(text: &[u8], start: usize, max: usize, f: impl Fn(u8) -> bool) -> usize {
    let limit = text.len().min(start + max);
    text[start.min(limit)..limit].iter().position(|&b| !f(b)).map_or(limit, |i| start + i)
}

/// At most two distinct characters: `npm_xxxx…`, `hf_aaaa…`.
fn is_placeholder(body: &[u8]) -> bool {
    let mut seen: Vec<u8> = Vec::new();
    for &b in body {
        if !seen.contains(&b) {
            seen.push(b);
            if seen.len() > 2 {
                return false;
            }
        }
    }
    true
}

/// The span of the token of format `i` whose trigger is at `pos`.
pub fn detect(text: &[u8], pos: usize, i: usize) -> Option<(usize, usize)> {
    let f = TOKENS.get(i)?;
    match f.shape {
        Shape::Run => {
            // A trigger inside the prefix (`SECRET-KEY-1` of `AGE-SECRET-KEY-1`)
            // puts the token's start before it.
            let inside = f.triggers.iter().find(|t| text[pos..].starts_with(t.as_bytes()));
            let pos = pos.checked_sub(inside.and_then(|t| f.prefix.find(*t)).unwrap_or(0))?;
            if !text[pos..].starts_with(f.prefix.as_bytes())
                || (pos > 0 && is_word(text[pos - 1]) && !after_escape(text, pos))
            {
                return None;
            }
            let body = pos + f.prefix.len();
            let end = run_end(text, body, usize::from(f.max) + 1, |b| f.chars.has(b));
            let len = end - body;
            let ok = len >= usize::from(f.min)
                && len <= usize::from(f.max)
                && !is_placeholder(&text[body..end])
                // A longer run of the same characters is not this token
                // (except for open-ended rows, whose max is a cap).
                && text.get(end).is_none_or(|&b| !f.chars.has(b) && !is_word(b));
            ok.then_some((pos, end))
        }
        Shape::SendGrid => {
            let a = pos + 3;
            let a_end = run_end(text, a, 23, |b| Chars::Base64Url.has(b));
            if a_end - a != 22 || text.get(a_end) != Some(&b'.') {
                return None;
            }
            let b = a_end + 1;
            let b_end = run_end(text, b, 44, |b| Chars::Base64Url.has(b));
            (b_end - b == 43 && !is_placeholder(&text[b..b_end])).then_some((pos, b_end))
        }
        Shape::Mailchimp => {
            let start = pos.checked_sub(32)?;
            let key = &text[start..pos];
            if !key.iter().all(|&b| Chars::LowerHex.has(b))
                || (start > 0 && text[start - 1].is_ascii_alphanumeric())
            {
                return None;
            }
            let dc = run_end(text, pos + 3, 3, |b| b.is_ascii_digit());
            let ok = dc > pos + 3
                && text.get(dc).is_none_or(|b| !b.is_ascii_alphanumeric())
                && !is_placeholder(key);
            ok.then_some((start, dc))
        }
        Shape::Telegram => {
            let digits = text[..pos].iter().rev().take(11).take_while(|b| b.is_ascii_digit()).count();
            let start = pos - digits;
            let before_ok =
                start == 0 || !text[start - 1].is_ascii_alphanumeric() || text[..start].ends_with(b"bot");
            if !(8..=10).contains(&digits) || !before_ok {
                return None;
            }
            let body = pos + 3;
            let end = run_end(text, body, 34, |b| Chars::Base64Url.has(b));
            let ok = end - body == 33 && text.get(end).is_none_or(|&b| !Chars::Base64Url.has(b));
            ok.then_some((start, end))
        }
        Shape::Discord => {
            if pos > 0 && Chars::Base64Url.has(text[pos - 1]) {
                return None;
            }
            let a_end = run_end(text, pos, 27, |b| b.is_ascii_alphanumeric());
            if !(24..=26).contains(&(a_end - pos)) || text.get(a_end) != Some(&b'.') {
                return None;
            }
            let b = a_end + 1;
            let b_end = run_end(text, b, 7, |b| Chars::Base64Url.has(b));
            if b_end - b != 6 || text.get(b_end) != Some(&b'.') {
                return None;
            }
            let c = b_end + 1;
            let c_end = run_end(text, c, 39, |b| Chars::Base64Url.has(b));
            let ok =
                (27..=38).contains(&(c_end - c)) && text.get(c_end).is_none_or(|&b| !Chars::Base64Url.has(b));
            ok.then_some((pos, c_end))
        }
        Shape::AzureSig => {
            if !(pos > 0 && matches!(text[pos - 1], b'?' | b'&' | b';')) {
                return None;
            }
            let v = pos + 4;
            let end = run_end(text, v, 201, |b| b.is_ascii_alphanumeric() || b"%+/=".contains(&b));
            let ok = (20..=200).contains(&(end - v)) && !is_placeholder(&text[v..end]);
            ok.then_some((v, end))
        }
        Shape::PuttyPrivate => {
            let mut at = pos + f.prefix.len();
            while text.get(at) == Some(&b' ') {
                at += 1;
            }
            let digits_end = run_end(text, at, 4, |b| b.is_ascii_digit());
            let n: usize = std::str::from_utf8(&text[at..digits_end]).ok()?.parse().ok()?;
            if n == 0 {
                return None;
            }
            // The lines after this one: N of base64, then `Private-MAC: …`.
            let mut line = text[digits_end..].iter().position(|&b| b == b'\n').map(|i| digits_end + i + 1)?;
            let start = line;
            let mut end = start;
            for _ in 0..n.min(200) {
                let le = text[line..].iter().position(|&b| b == b'\n').map_or(text.len(), |i| line + i);
                let body = text[line..le].trim_ascii_end();
                if body.is_empty() || !body.iter().all(|&b| b.is_ascii_alphanumeric() || b"+/=".contains(&b))
                {
                    break;
                }
                end = line + body.len();
                line = (le + 1).min(text.len());
                if end - start > MAX_TOKEN {
                    break;
                }
            }
            if text[line..].starts_with(b"Private-MAC:") {
                end = text[line..]
                    .iter()
                    .position(|&b| b == b'\n' || b == b'\r')
                    .map_or(text.len(), |i| line + i);
            }
            (end > start).then_some((start, end))
        }
    }
}

/// CRC32 (IEEE), bitwise: only tests call it.
#[cfg(test)]
fn crc32(data: &[u8]) -> u32 {
    let mut crc = !0u32;
    for &b in data {
        crc ^= u32::from(b);
        for _ in 0..8 {
            crc = if crc & 1 != 0 { (crc >> 1) ^ 0xEDB8_8320 } else { crc >> 1 };
        }
    }
    !crc
}

/// `n` in base62 (`0-9A-Za-z`), left-padded with `0` to `width`.
#[cfg(test)]
pub fn base62(mut n: u32, width: usize) -> Vec<u8> {
    const DIGITS: &[u8] = b"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
    let mut out = Vec::new();
    while n > 0 {
        out.push(DIGITS[(n % 62) as usize]);
        n /= 62;
    }
    while out.len() < width {
        out.push(b'0');
    }
    out.reverse();
    out
}

/// The 6-character checksum a CRC32/base62 token ends with, for `entropy`.
#[cfg(test)]
pub fn crc32_base62(entropy: &[u8]) -> Vec<u8> {
    base62(crc32(entropy), 6)
}

/// Whether a token of format `i` carries a valid checksum (true where the
/// format has none).
#[cfg(test)]
pub fn checksum_ok(i: usize, token: &[u8]) -> bool {
    let Some(f) = TOKENS.get(i) else { return false };
    match f.checksum {
        Checksum::None => true,
        Checksum::Crc32Base62Last6 => {
            let body = token.strip_prefix(f.prefix.as_bytes()).unwrap_or(token);
            body.len() == 36 && crc32_base62(&body[..30]) == body[30..]
        }
    }
}

#[cfg(test)]
#[path = "tokens_tests.rs"]
mod tests;
