//! Model prices (issue 12): the built-in, dated table (`prices.json`, one
//! source and date per entry), hosts' overrides in the same shape, and the
//! cost of one request.
//!
//! Rules kept here:
//! - a model not in the table has no price: its cost is `None`, never 0;
//! - 5-minute and 1-hour cache writes have prices of their own;
//! - long context, as Anthropic states it: once one request's input (input +
//!   cache read + cache write) is above the threshold, *all* of that
//!   request's tokens are charged at the long-context rates (ccusage charges
//!   only the excess; we do not copy that). Gemini's tiers and OpenAI's
//!   over-272k rule use the same field;
//! - model ids are matched exactly after provider prefixes and version
//!   suffixes are taken off (`us.anthropic.claude-haiku-4-5-20251001-v1:0`
//!   is `claude-haiku-4-5`), so `gpt-5.3-codex` never takes `gpt-5`'s price.

#![forbid(unsafe_code)]

use std::rc::Rc;

const BUILT_IN: &str = include_str!("prices.json");

/// USD per million tokens.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Rates {
    pub input: f64,
    pub output: f64,
    /// Absent: a cache read costs what input costs.
    pub cache_read: Option<f64>,
    /// Absent: the provider does not charge cache writes apart (OpenAI, Gemini): they cost what input costs.
    pub cache_write5m: Option<f64>,
    /// Absent: as `cache_write5m`.
    pub cache_write1h: Option<f64>,
}

/// The long-context rates of a model, and when they apply.
#[derive(Debug, Clone, PartialEq)]
pub struct LongContext {
    /// A request whose input tokens are above this is charged at `rates`, all of it.
    pub above: u64,
    pub rates: Rates,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Price {
    pub rates: Rates,
    pub long_context: Option<LongContext>,
    /// What a regional endpoint adds (0.1: 10%) for a geographic profile
    /// (`us.`, `eu.`, `apac.`, `jp.`, `au.` Bedrock ids); 0 when the
    /// provider charges none (Anthropic: from Sonnet 4.5 and Haiku 4.5 on).
    pub regional_premium: f64,
}

/// The rates of one table entry (or of its `longContext`), read from a
/// generic Value: the table is read once, and a derive per shape would cost
/// the wasm module more than the whole table.
fn rates_of(v: &serde_json::Value) -> Option<Rates> {
    let f = |k: &str| v.get(k).and_then(serde_json::Value::as_f64);
    Some(Rates {
        input: f("input")?,
        output: f("output")?,
        cache_read: f("cacheRead"),
        cache_write5m: f("cacheWrite5m"),
        cache_write1h: f("cacheWrite1h"),
    })
}

fn price_of(v: &serde_json::Value) -> Option<Price> {
    let long_context = match v.get("longContext") {
        None | Some(serde_json::Value::Null) => None,
        Some(l) => Some(LongContext {
            above: l.get("above").and_then(serde_json::Value::as_u64)?,
            rates: rates_of(l)?,
        }),
    };
    let regional_premium = v
        .get("regionalPremium")
        .and_then(serde_json::Value::as_f64)
        .filter(|p| p.is_finite() && *p >= 0.0)
        .unwrap_or(0.0);
    Some(Price { rates: rates_of(v)?, long_context, regional_premium })
}

/// The tokens of one request, as pricing needs them (`input` without cached tokens).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Tokens {
    pub input: u64,
    pub output: u64,
    pub cache_read: u64,
    pub cache_write_5m: u64,
    pub cache_write_1h: u64,
}

impl Tokens {
    pub fn input_side(&self) -> u64 {
        self.input
            .saturating_add(self.cache_read)
            .saturating_add(self.cache_write_5m)
            .saturating_add(self.cache_write_1h)
    }
}

/// A price table: the built-in one, with a host's entries over it.
#[derive(Debug, Clone, PartialEq)]
pub struct Prices {
    /// Sorted by normalised model id, searched by halves: a plain sorted
    /// list, not a map, because a map of this type would cost the wasm module
    /// more code than the whole table.
    models: Vec<(String, Price)>,
    /// Requests served by Vertex AI (message ids `msg_vrtx_…`) went to a
    /// regional or multi-region endpoint, not the global one: the host said
    /// so (`vertexRegion`, as Claude Code's `CLOUD_ML_REGION`), since the
    /// session files do not name the region.
    vertex_regional: bool,
}

impl Prices {
    /// The built-in table, parsed once per thread and shared.
    pub fn built_in() -> Rc<Prices> {
        thread_local! {
            static TABLE: Rc<Prices> = Rc::new(Prices::parse(BUILT_IN).unwrap_or(Prices { models: Vec::new(), vertex_regional: false }));
        }
        TABLE.with(Rc::clone)
    }

    #[inline(never)]
    fn parse(json: &str) -> Result<Prices, String> {
        const SHAPE: &str = r#"a price table is {"models": {"<model>": {"input": n, "output": n, ...}}, "vertexRegion"?: "<region>"}"#;
        let table: serde_json::Value = serde_json::from_str(json).map_err(|e| format!("{SHAPE}: {e}"))?;
        let region = match table.get("vertexRegion") {
            None | Some(serde_json::Value::Null) => None,
            Some(r) => Some(r.as_str().ok_or_else(|| format!("{SHAPE}: `vertexRegion` must be a string"))?),
        };
        let empty = serde_json::Map::new();
        let models = match table.get("models") {
            None if region.is_some() => &empty,
            m => m.and_then(serde_json::Value::as_object).ok_or_else(|| SHAPE.to_owned())?,
        };
        // `global` is Vertex's global endpoint; any other name is a region or a multi-region.
        let vertex_regional =
            region.is_some_and(|r| !r.trim().eq_ignore_ascii_case("global") && !r.trim().is_empty());
        let mut out = Prices { models: Vec::new(), vertex_regional };
        for (name, entry) in models {
            let price = price_of(entry).ok_or_else(|| format!("{SHAPE}: `{name}` needs numbers `input` and `output` (and `longContext.above` when it has one)"))?;
            out.set(normalise(name), price);
        }
        Ok(out)
    }

    /// The built-in table with the host's entries (JSON, the built-in shape) over it.
    pub fn with_overrides(json: &str) -> Result<Prices, String> {
        let mut prices = (*Prices::built_in()).clone();
        let extra = Prices::parse(json)?;
        prices.vertex_regional = extra.vertex_regional;
        for (name, price) in extra.models {
            prices.set(name, price);
        }
        Ok(prices)
    }

    /// Adds or replaces one model's price, keeping the list sorted.
    fn set(&mut self, key: String, price: Price) {
        match self.models.binary_search_by(|(k, _)| k.cmp(&key)) {
            Ok(i) => self.models[i].1 = price,
            Err(i) => self.models.insert(i, (key, price)),
        }
    }

    pub fn get(&self, model: &str) -> Option<&Price> {
        let i = with_normalised(model, |key| self.models.binary_search_by(|(k, _)| k.as_str().cmp(key)).ok());
        i.map(|i| &self.models[i].1)
    }

    /// The cost of one request in USD, or `None` when the model has no price.
    pub fn cost(&self, model: &str, t: &Tokens) -> Option<f64> {
        self.cost_of(model, t, false)
    }

    /// The cost of one response, knowing its message id: Vertex AI's
    /// (`msg_vrtx_…`) cost the regional premium when the host said its
    /// requests went to a regional endpoint (`vertexRegion`).
    pub fn cost_of_response(&self, model: &str, id: Option<&str>, t: &Tokens) -> Option<f64> {
        let vertex = id.is_some_and(|id| id.starts_with("msg_vrtx_"));
        self.cost_of(model, t, vertex && self.vertex_regional)
    }

    fn cost_of(&self, model: &str, t: &Tokens, regional: bool) -> Option<f64> {
        let price = self.get(model)?;
        let rates = match &price.long_context {
            Some(long) if t.input_side() > long.above => &long.rates,
            _ => &price.rates,
        };
        // A Bedrock geographic profile (routed within one geography) is a
        // regional endpoint, and so is a Vertex region (`regional`);
        // `global.`, Vertex's global endpoint and Anthropic's own ids are not.
        let scale = if price.regional_premium > 0.0 && (regional || is_geographic(model)) {
            1.0 + price.regional_premium
        } else {
            1.0
        };
        let per = |n: u64, rate: f64| n as f64 * rate * scale / 1e6;
        let read = rates.cache_read.unwrap_or(rates.input);
        let w5 = rates.cache_write5m.unwrap_or(rates.input);
        let w1 = rates.cache_write1h.or(rates.cache_write5m).unwrap_or(rates.input);
        Some(
            per(t.input, rates.input)
                + per(t.output, rates.output)
                + per(t.cache_read, read)
                + per(t.cache_write_5m, w5)
                + per(t.cache_write_1h, w1),
        )
    }
}

/// Whether a model id names a Bedrock geographic inference profile
/// (`us.anthropic.…`, `converse/jp.anthropic.…`).
pub fn is_geographic(model: &str) -> bool {
    let m = model.trim().to_ascii_lowercase();
    let m = m.rsplit('/').next().unwrap_or("");
    ["us.", "eu.", "apac.", "jp.", "au.", "us-gov."].iter().any(|p| m.starts_with(p))
}

/// A model id as the table keys it: lower case, without a provider prefix
/// (`anthropic/`, `converse/`, `us.anthropic.`), a Bedrock version
/// (`-v1:0`), a Vertex `@date`, `-latest`, or a date suffix (`-20250929`,
/// `-2025-09-29`).
pub fn normalise(model: &str) -> String {
    let mut m = model.trim().to_ascii_lowercase();
    if let Some(i) = m.rfind('/') {
        m = m[i + 1..].to_owned();
    }
    for prefix in ["us.", "eu.", "apac.", "jp.", "au.", "us-gov.", "global."] {
        if let Some(rest) = m.strip_prefix(prefix) {
            m = rest.to_owned();
        }
    }
    if let Some(rest) = m.strip_prefix("anthropic.") {
        m = rest.to_owned();
    }
    if let Some(i) = m.find('@') {
        m.truncate(i);
    }
    if let Some(rest) = m.strip_suffix("-latest") {
        m = rest.to_owned();
    }
    if let Some(i) = m.rfind("-v") {
        if m[i + 2..].chars().all(|c| c.is_ascii_digit() || c == ':') && m.len() > i + 2 {
            m.truncate(i);
        }
    }
    // -YYYYMMDD or -YYYY-MM-DD at the end.
    let b = m.as_bytes();
    let digits = |s: &[u8]| s.iter().all(u8::is_ascii_digit);
    if b.len() > 9 && b[b.len() - 9] == b'-' && digits(&b[b.len() - 8..]) {
        m.truncate(m.len() - 9);
    } else if b.len() > 11
        && b[b.len() - 11] == b'-'
        && digits(&b[b.len() - 10..b.len() - 6])
        && b[b.len() - 6] == b'-'
        && b[b.len() - 3] == b'-'
    {
        m.truncate(m.len() - 11);
    }
    m
}

/// Context windows by model family (tokens), for charts of context size:
/// Anthropic's models overview (200k; 1M only behind a beta header), OpenAI's
/// model pages (GPT-5 family 400k, GPT-4.1 1,047,576, GPT-4o 128k, o3/o4-mini
/// 200k) and Google's Gemini models page (1,048,576), read 2025-11-24. The
/// longest matching prefix wins; None: unknown.
const CONTEXT_WINDOWS: &[(&str, u64)] = &[
    ("claude-", 200_000),
    ("codex-mini", 200_000),
    ("gemini-", 1_048_576),
    ("gpt-4.1", 1_047_576),
    ("gpt-4o", 128_000),
    ("gpt-5", 400_000),
    ("o3", 200_000),
    ("o4-mini", 200_000),
];

/// The context window of a model, when its family is known.
pub fn context_window(model: &str) -> Option<u64> {
    with_normalised(model, |m| {
        CONTEXT_WINDOWS.iter().filter(|(p, _)| m.starts_with(p)).max_by_key(|(p, _)| p.len()).map(|(_, w)| *w)
    })
}

/// `f(&normalise(model))`, the last model's normalised id remembered: a
/// journal names one model for thousands of records, and normalising it (a
/// lowercase copy, and a copy per prefix it drops) for each record's price
/// and context window was 25 ms of the viewer's reading of 1 GB.
fn with_normalised<R>(model: &str, f: impl FnOnce(&str) -> R) -> R {
    // ("", ""): normalise("") is "".
    thread_local! {
        static LAST: std::cell::RefCell<(String, String)> = const { std::cell::RefCell::new((String::new(), String::new())) };
    }
    LAST.with(|last| match last.try_borrow_mut() {
        Ok(mut last) => {
            if last.0 != model {
                *last = (model.to_owned(), normalise(model));
            }
            f(&last.1)
        }
        // Asked from inside `f` (it never is): no memory then.
        Err(_) => f(&normalise(model)),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_matched_exactly_after_prefixes_and_versions_come_off() {
        for (id, key) in [
            ("claude-sonnet-4-5-20250929", "claude-sonnet-4-5"),
            ("claude-sonnet-4-20250514", "claude-sonnet-4"),
            ("converse/jp.anthropic.claude-haiku-4-5-20251001-v1:0", "claude-haiku-4-5"),
            ("us.anthropic.claude-opus-4-5-20251101-v1:0", "claude-opus-4-5"),
            ("claude-opus-4-1@20250805", "claude-opus-4-1"),
            ("anthropic/claude-3-5-haiku-latest", "claude-3-5-haiku"),
            ("gpt-5.1-codex", "gpt-5.1-codex"),
            ("gpt-5-2025-08-07", "gpt-5"),
        ] {
            assert_eq!(normalise(id), key, "{id}");
            // Remembered (with_normalised) as normalised, asked twice and after another.
            assert_eq!(with_normalised(id, str::to_owned), key, "{id}");
            assert_eq!(with_normalised(id, str::to_owned), key, "{id}");
        }
        // The memory starts as ("", ""): what normalise makes of "".
        assert_eq!(normalise(""), "");
        let p = Prices::built_in();
        assert!(p.get("gpt-5.4-codex").is_none(), "no price is borrowed from gpt-5");
        assert!(p.get("gpt-5.1-codex-mini").is_some());
    }

    #[test]
    fn a_geographic_profile_costs_the_regional_premium_where_anthropic_charges_it() {
        // Anthropic's pricing page: from Claude Sonnet 4.5 and Haiku 4.5 on,
        // Bedrock's regional endpoints cost 10% more than its global ones;
        // older models keep one price.
        let p = Prices::built_in();
        let t = Tokens {
            input: 1_000_000,
            output: 1_000_000,
            cache_read: 1_000_000,
            cache_write_5m: 1_000_000,
            cache_write_1h: 0,
        };
        let global = p.cost("claude-haiku-4-5-20251001", &t).unwrap();
        assert!((global - (1.0 + 5.0 + 0.1 + 1.25)).abs() < 1e-9);
        for id in [
            "converse/jp.anthropic.claude-haiku-4-5-20251001-v1:0",
            "eu.anthropic.claude-haiku-4-5-20251001-v1:0",
            "apac.anthropic.claude-haiku-4-5-20251001-v1:0",
            "us.anthropic.claude-haiku-4-5-20251001-v1:0",
        ] {
            let c = p.cost(id, &t).unwrap();
            assert!((c - global * 1.1).abs() < 1e-9, "{id}: {c}");
        }
        assert_eq!(p.cost("global.anthropic.claude-haiku-4-5-20251001-v1:0", &t), Some(global));
        let old = p.cost("claude-sonnet-4-20250514", &t).unwrap();
        assert_eq!(
            p.cost("us.anthropic.claude-sonnet-4-20250514-v1:0", &t),
            Some(old),
            "Sonnet 4 has one price"
        );
    }

    #[test]
    fn a_vertex_response_costs_the_regional_premium_only_when_the_host_names_a_region() {
        // Anthropic's pricing page: on Vertex AI, regional and multi-region
        // endpoints cost 10% over the global one (Sonnet 4.5, Haiku 4.5 on).
        // The session files name no region; a Vertex response is known by
        // its message id (`msg_vrtx_…`, as Vertex's responses carry it).
        let t = Tokens { input: 1_000_000, output: 1_000_000, ..Tokens::default() };
        let model = "claude-sonnet-4-5@20250929";
        let built_in = Prices::built_in();
        let global = built_in.cost(model, &t).unwrap();
        let vertex = Some("msg_vrtx_0162rhgehxa9rvJM5BSVLZ9j");
        // No region said: the global endpoint's price.
        assert_eq!(built_in.cost_of_response(model, vertex, &t), Some(global));
        for region in ["us-east5", "europe-west1", "us"] {
            let p = Prices::with_overrides(&format!(r#"{{"vertexRegion":"{region}"}}"#)).unwrap();
            let c = p.cost_of_response(model, vertex, &t).unwrap();
            assert!((c - global * 1.1).abs() < 1e-9, "{region}: {c}");
            // Not a Vertex response (Anthropic's API, Bedrock's global profile): no premium.
            assert_eq!(p.cost_of_response(model, Some("msg_01XFDUDYJgAACzvnptvVoYEL"), &t), Some(global));
            assert_eq!(p.cost_of_response(model, None, &t), Some(global));
            // A model with one price everywhere keeps it.
            let old = p.cost("claude-sonnet-4-20250514", &t);
            assert_eq!(p.cost_of_response("claude-sonnet-4@20250514", vertex, &t), old);
        }
        let p = Prices::with_overrides(r#"{"vertexRegion":"global"}"#).unwrap();
        assert_eq!(p.cost_of_response(model, vertex, &t), Some(global));
        // With models of its own, and a region that is not a string.
        let p = Prices::with_overrides(
            r#"{"vertexRegion":"us-east5","models":{"x-model":{"input":1,"output":2}}}"#,
        )
        .unwrap();
        assert!(p.get("x-model").is_some());
        assert!(Prices::with_overrides(r#"{"vertexRegion":5}"#).is_err());
        assert!(Prices::with_overrides(r#"{}"#).is_err());
    }

    #[test]
    fn an_unknown_model_has_no_cost() {
        let t = Tokens { input: 10, output: 10, ..Tokens::default() };
        assert_eq!(Prices::built_in().cost("some-new-model", &t), None);
    }

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() < 1e-9
    }

    /// One request over 200k input tokens is charged at the long-context
    /// rates for all of its tokens, output included.
    #[test]
    fn long_context_charges_the_whole_request() {
        let p = Prices::built_in();
        let under = Tokens { input: 100_000, cache_read: 100_000, output: 1_000, ..Tokens::default() };
        assert!(close(p.cost("claude-sonnet-4-5", &under).unwrap(), 0.3 + 0.03 + 0.015));
        let over = Tokens { input: 100_001, cache_read: 100_000, output: 1_000, ..Tokens::default() };
        let expect = 100_001.0 * 6.0 / 1e6 + 100_000.0 * 0.6 / 1e6 + 1_000.0 * 22.5 / 1e6;
        assert!(close(p.cost("claude-sonnet-4-5", &over).unwrap(), expect));
    }

    #[test]
    fn cache_writes_are_priced_by_their_lifetime() {
        let p = Prices::built_in();
        let t = Tokens { cache_write_5m: 1_000_000, cache_write_1h: 1_000_000, ..Tokens::default() };
        assert!(close(p.cost("claude-opus-4-5", &t).unwrap(), 6.25 + 10.0));
    }

    #[test]
    fn hosts_override_and_add_prices() {
        let p = Prices::with_overrides(r#"{"models":{"gpt-5.3-codex":{"input":2,"output":16,"cacheRead":0.2,"longContext":{"above":272000,"input":4,"output":24,"cacheRead":0.4}}}}"#).unwrap();
        let t = Tokens { input: 300_000, output: 1_000_000, ..Tokens::default() };
        assert!(close(p.cost("gpt-5.3-codex", &t).unwrap(), 1.2 + 24.0), "OpenAI's rule over 272k");
        assert!(Prices::with_overrides("{").is_err());
    }
}
