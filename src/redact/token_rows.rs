//! The rows of `tokens::TOKENS`, one per vendor format: data, read by the
//! prefilter (`triggers.rs`) for their literals and by `tokens::detect`.
//! Each row says where its shape comes from.
#![forbid(unsafe_code)]

use super::{Chars, Checksum, Shape, TokenFormat};

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
