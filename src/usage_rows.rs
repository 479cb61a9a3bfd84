//! One row per request for a usage report (`Journal::for_usage`): its time,
//! model, tokens, cost and (Claude Code) the key ccusage counts a request
//! once by. A report over many files groups these by any period in any time
//! zone (days, weeks, 5-hour blocks) and drops a copied request by its key;
//! the rows go to JS as one Float64Array, not a string per request (the
//! per-request strings and their parsing made `usage` 20-30% slower).

/// Numbers per row: see `RequestRows::push`.
pub const STRIDE: usize = 9;

/// The rows, flat, and the models they name by index.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct RequestRows {
    /// `[time ms (NaN: none), model index, input, output, cache read,
    /// cache write, of it 1-hour cache write, cost (NaN: unknown), key]`.
    pub rows: Vec<f64>,
    pub models: Vec<String>,
}

impl RequestRows {
    /// Books one request (the key and 1-hour split are set after, by the
    /// reader that knows them: `set_key`).
    pub fn push(
        &mut self,
        t: Option<&str>,
        model: &str,
        usage: &crate::accounting::Usage,
        cost: Option<f64>,
    ) {
        let m = match self.models.iter().position(|x| x == model) {
            Some(i) => i,
            None => {
                self.models.push(model.to_owned());
                self.models.len() - 1
            }
        };
        self.rows.extend_from_slice(&[
            t.and_then(iso_ms).unwrap_or(f64::NAN),
            m as f64,
            usage.input_tokens as f64,
            usage.output_tokens as f64,
            usage.cache_read_tokens as f64,
            usage.cache_write_tokens as f64,
            0.0,
            cost.filter(|c| c.is_finite()).unwrap_or(f64::NAN),
            0.0,
        ]);
    }

    pub fn len(&self) -> usize {
        self.rows.len() / STRIDE
    }

    pub fn is_empty(&self) -> bool {
        self.rows.is_empty()
    }

    /// Row `i`'s key (`key_of`) and how much of its cache write was 1-hour.
    pub fn set_key(&mut self, i: usize, key: f64, cache_write_1h: u64) {
        if let Some(row) = self.rows.get_mut(i * STRIDE..(i + 1) * STRIDE) {
            row[6] = cache_write_1h as f64;
            row[8] = key;
        }
    }
}

/// The models as a JSON array (the core's string writer: no serializer
/// code for one list in the wasm module).
pub fn models_json(models: &[String]) -> String {
    let mut out = String::from("[");
    for (i, m) in models.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        crate::json_str::push_str_literal(&mut out, m);
    }
    out.push(']');
    out
}

/// A request's key (`message.id`, `requestId`) as a non-zero integer below
/// 2^53 (exact in a JS number): FNV-1a over both, 53 bits kept. Two
/// different requests share one with odds of about n²/2^54 (n = 1e6: 1 in
/// 18,000,000), and then one is left out: far rarer than the copies the key
/// finds.
pub fn key_of(id: &str, request: Option<&str>) -> f64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    let mut eat = |bytes: &[u8]| {
        for b in bytes {
            h ^= u64::from(*b);
            h = h.wrapping_mul(0x0100_0000_01b3);
        }
    };
    eat(id.as_bytes());
    eat(&[0xff]);
    if let Some(r) = request {
        eat(&[1]);
        eat(r.as_bytes());
    }
    ((h >> 11).max(1)) as f64
}

/// Milliseconds since 1970 of an ISO 8601 time (`2026-01-10T23:58:01.123Z`,
/// an offset `+02:00`, or no zone: read as UTC, as JS reads a time with
/// one); None when it is not one.
pub fn iso_ms(t: &str) -> Option<f64> {
    let b = t.as_bytes();
    let num = |from: usize, len: usize| -> Option<i64> {
        let s = b.get(from..from + len)?;
        s.iter().all(u8::is_ascii_digit).then(|| s.iter().fold(0i64, |a, c| a * 10 + i64::from(c - b'0')))
    };
    let (y, mo, d) = (num(0, 4)?, num(5, 2)?, num(8, 2)?);
    if b.get(4) != Some(&b'-') || b.get(7) != Some(&b'-') || !(1..=12).contains(&mo) || !(1..=31).contains(&d)
    {
        return None;
    }
    let (mut h, mut mi, mut s, mut ms, mut at) = (0, 0, 0, 0.0, 10);
    if matches!(b.get(10), Some(b'T' | b't' | b' ')) {
        h = num(11, 2)?;
        mi = num(14, 2)?;
        if b.get(13) != Some(&b':') {
            return None;
        }
        at = 16;
        if b.get(16) == Some(&b':') {
            s = num(17, 2)?;
            at = 19;
            if b.get(19) == Some(&b'.') {
                let digits = b[20..].iter().take_while(|c| c.is_ascii_digit()).count();
                if digits == 0 {
                    return None;
                }
                // Milliseconds: the first three digits (more are cut, as Date.parse cuts them).
                ms = b[20..20 + digits.min(3)].iter().fold(0.0, |a, c| a * 10.0 + f64::from(c - b'0'))
                    * [100.0, 10.0, 1.0][digits.min(3) - 1];
                at = 20 + digits;
            }
        }
        if h > 23 || mi > 59 || s > 60 {
            return None;
        }
    }
    let offset = match b.get(at) {
        None | Some(b'Z' | b'z') => 0,
        Some(sign @ (b'+' | b'-')) => {
            let oh = num(at + 1, 2)?;
            let om = if b.get(at + 3) == Some(&b':') { num(at + 4, 2)? } else { num(at + 3, 2).unwrap_or(0) };
            let m = oh * 60 + om;
            if *sign == b'+' {
                m
            } else {
                -m
            }
        }
        _ => return None,
    };
    // Days from the civil date (Howard Hinnant's algorithm).
    let yy = if mo <= 2 { y - 1 } else { y };
    let era = yy.div_euclid(400);
    let yoe = yy - era * 400;
    let mp = (mo + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    let days = era * 146_097 + doe - 719_468;
    let secs = days * 86_400 + h * 3600 + mi * 60 + s - offset * 60;
    Some(secs as f64 * 1000.0 + ms)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn iso_times_read_as_js_date_parse_reads_them() {
        // Figures from `Date.parse` in Node.
        for (t, ms) in [
            ("1970-01-01T00:00:00Z", 0.0),
            ("2026-01-10T23:58:01.123Z", 1_768_089_481_123.0),
            ("2026-01-11T01:58:01.123+02:00", 1_768_089_481_123.0),
            ("2024-02-29T12:00:00.5Z", 1_709_208_000_500.0),
            ("2026-03-01", 1_772_323_200_000.0),
            ("2025-12-31T23:59:59.999999Z", 1_767_225_599_999.0),
        ] {
            assert_eq!(iso_ms(t), Some(ms), "{t}");
        }
        for bad in [
            "",
            "yesterday",
            "2026-13-01T00:00:00Z",
            "2026-01-10T25:00:00Z",
            "2026-01-10T10:00:00Q",
            "2026/01/10",
        ] {
            assert_eq!(iso_ms(bad), None, "{bad}");
        }
    }

    #[test]
    fn models_are_a_json_array_of_strings() {
        let models = vec!["claude-sonnet-4-5".to_owned(), "we\"ird\n".to_owned()];
        let back: Vec<String> = serde_json::from_str(&models_json(&models)).unwrap();
        assert_eq!(back, models);
        assert_eq!(models_json(&[]), "[]");
    }

    #[test]
    fn keys_are_exact_js_integers_and_tell_requests_apart() {
        let a = key_of("msg_1", Some("req_1"));
        assert!((1.0..9_007_199_254_740_992.0).contains(&a) && a.fract() == 0.0);
        assert_eq!(a, key_of("msg_1", Some("req_1")));
        assert_ne!(a, key_of("msg_1", Some("req_2")));
        assert_ne!(a, key_of("msg_1", None));
        assert_ne!(key_of("msg_1r", Some("eq_1")), a);
    }
}
