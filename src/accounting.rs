//! Tokens and dollars (spec §4): what counts as reported usage, when the cost
//! is unknown or only a minimum, how subagent debits settle, and the two
//! display strings (`formatCost`, `budgetNote`).

use serde::{Deserialize, Deserializer, Serialize};
use std::collections::BTreeMap;

/// Token usage of one model request. Missing fields (and `null`) are 0.
///
/// The Anthropic API's own snake_case names are accepted too, so a response
/// copied verbatim from the API counts the same as one Garuda normalised.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct Usage {
    #[serde(alias = "input_tokens", deserialize_with = "count")]
    pub input_tokens: u64,
    #[serde(alias = "output_tokens", deserialize_with = "count")]
    pub output_tokens: u64,
    #[serde(alias = "cache_read_input_tokens", deserialize_with = "count")]
    pub cache_read_tokens: u64,
    #[serde(alias = "cache_creation_input_tokens", deserialize_with = "count")]
    pub cache_write_tokens: u64,
}

/// A token count: a non-negative integer, or null for 0.
fn count<'de, D: Deserializer<'de>>(d: D) -> Result<u64, D::Error> {
    Ok(Option::<u64>::deserialize(d)?.unwrap_or(0))
}

impl Usage {
    /// The tokens of a usage: the sum of all four counts.
    pub fn tokens(&self) -> u64 {
        self.input_tokens
            .saturating_add(self.output_tokens)
            .saturating_add(self.cache_read_tokens)
            .saturating_add(self.cache_write_tokens)
    }

    /// Adds another usage's counts (saturating).
    pub fn add_all(&mut self, other: &Usage) {
        self.add(other);
    }

    fn add(&mut self, other: &Usage) {
        self.input_tokens = self.input_tokens.saturating_add(other.input_tokens);
        self.output_tokens = self.output_tokens.saturating_add(other.output_tokens);
        self.cache_read_tokens = self.cache_read_tokens.saturating_add(other.cache_read_tokens);
        self.cache_write_tokens = self.cache_write_tokens.saturating_add(other.cache_write_tokens);
    }
}

/// A subagent's report inside a `tool_results` call.
#[derive(Debug, Default, Clone, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Report {
    pub child_session_id: Option<String>,
    #[serde(default)]
    pub usage: Usage,
    pub cost_usd: Option<f64>,
    pub cost_incomplete: Option<bool>,
    pub steps: Option<u64>,
}

/// The running totals of §4. Every record that costs something goes through
/// one of the `add_*`/`debit`/`reserve` methods, live and in replay alike.
#[derive(Debug, Clone, PartialEq)]
pub struct Accounts {
    /// Reported usage only.
    pub usage: Usage,
    pub unreported_tokens: u64,
    /// Pending subagent tokens by child session id; a child at 0 is absent.
    pub child_debits: BTreeMap<String, u64>,
    /// Known cost; `None` once any priced-less usage was reported (sticky).
    pub cost_usd: Option<f64>,
    /// A subagent report said its own cost was incomplete.
    pub report_incomplete: bool,
}

impl Default for Accounts {
    fn default() -> Self {
        Accounts {
            usage: Usage::default(),
            unreported_tokens: 0,
            child_debits: BTreeMap::new(),
            cost_usd: Some(0.0),
            report_incomplete: false,
        }
    }
}

impl Accounts {
    /// A model response (assistant, compaction summary, side usage).
    /// `reported: false` responses count for context size only: their whole
    /// reservation is already in an `unreported` record.
    /// A response's (or a summary's, a side request's) usage and cost; a
    /// `costUsd: null` makes the session's cost unknown whatever its usage.
    pub fn add_response(&mut self, usage: &Usage, reported: bool, cost: crate::record::Cost) {
        if reported {
            self.usage.add(usage);
            self.add_cost(usage, cost.known());
            if cost.is_unknown() {
                self.cost_usd = None;
            }
        }
    }

    /// A subagent report: its usage and cost count, and it settles at most
    /// its own tokens of the child's pending debit.
    pub fn add_report(&mut self, report: &Report) {
        self.usage.add(&report.usage);
        self.add_cost(&report.usage, report.cost_usd);
        if report.cost_incomplete == Some(true) {
            self.report_incomplete = true;
        }
        if let Some(child) = &report.child_session_id {
            if let Some(pending) = self.child_debits.get_mut(child) {
                *pending = pending.saturating_sub(report.usage.tokens());
                if *pending == 0 {
                    self.child_debits.remove(child);
                }
            }
        }
    }

    pub fn reserve(&mut self, tokens: u64) {
        self.unreported_tokens = self.unreported_tokens.saturating_add(tokens);
    }

    pub fn debit(&mut self, child: &str, tokens: u64) {
        if tokens == 0 {
            return;
        }
        let pending = self.child_debits.entry(child.to_owned()).or_insert(0);
        *pending = pending.saturating_add(tokens);
    }

    /// A usage with tokens and no price makes the cost unknown for good. A
    /// usage of zero tokens needs no price.
    fn add_cost(&mut self, usage: &Usage, cost_usd: Option<f64>) {
        match (self.cost_usd, cost_usd) {
            (Some(total), Some(cost)) if cost.is_finite() => self.cost_usd = Some(total + cost),
            (Some(_), _) if usage.tokens() > 0 => self.cost_usd = None,
            _ => {}
        }
    }

    pub fn pending_child_tokens(&self) -> u64 {
        self.child_debits.values().fold(0u64, |a, b| a.saturating_add(*b))
    }

    /// The cost is a known minimum: something was spent that has no price yet.
    pub fn cost_incomplete(&self) -> bool {
        self.unreported_tokens > 0 || self.report_incomplete || self.pending_child_tokens() > 0
    }
}

/// `formatCost`: "unknown", "≥ $X (incomplete)" or "$X"; X has 2 decimals at
/// or above $1 and 4 below.
pub fn format_cost(accounts: &Accounts) -> String {
    format_cost_parts(accounts.cost_usd, accounts.cost_incomplete())
}

/// `formatCost` from the two fields of a state object.
pub fn format_cost_parts(cost_usd: Option<f64>, incomplete: bool) -> String {
    let Some(cost) = cost_usd else {
        return "unknown".to_owned();
    };
    // A negative cost (a recorded one can be) keeps its sign before the
    // dollar sign: "-$1.00", not "$-1.0000".
    let sign = if cost < 0.0 { "-" } else { "" };
    let cost = cost.abs();
    let amount = if cost >= 1.0 { format!("{sign}${cost:.2}") } else { format!("{sign}${cost:.4}") };
    if incomplete {
        format!("≥ {amount} (incomplete)")
    } else {
        amount
    }
}

/// `addCosts`: the cost of a session together with its subagents' runs,
/// each read from its own file, added a part at a time. The known costs are
/// added; a part whose cost is unknown (or that could not be read: add
/// `None`) makes the sum a lower bound, as an incomplete part does, and the
/// sum is unknown only when no part's cost is known. Unlike one journal's
/// accounts, where a request without a price makes the cost unknown, across
/// files a known part is still worth showing: `usage --by session` sums them
/// the same way. One rule here, so the CLI's `list` and the viewer cannot
/// each keep their own.
#[derive(Debug, Default, Clone, Copy)]
pub struct CostSum {
    pub cost_usd: Option<f64>,
    pub incomplete: bool,
}

impl CostSum {
    pub fn add(&mut self, cost: Option<f64>, incomplete: bool) {
        match cost {
            Some(c) => self.cost_usd = Some(self.cost_usd.unwrap_or(0.0) + c),
            None => self.incomplete = true,
        }
        self.incomplete |= incomplete;
    }
}

/// `budgetNote`: null when the budget equals the reported usage, else one line
/// naming the three parts.
pub fn budget_note(accounts: &Accounts) -> Option<String> {
    budget_note_parts(accounts.usage.tokens(), accounts.unreported_tokens, accounts.pending_child_tokens())
}

/// `budgetNote` from reported tokens, unreported tokens and pending child tokens.
pub fn budget_note_parts(reported: u64, unreported: u64, pending: u64) -> Option<String> {
    if unreported == 0 && pending == 0 {
        return None;
    }
    let total = reported.saturating_add(unreported).saturating_add(pending);
    Some(format!(
        "budget {} tokens: {} reported + {} unreported + {} pending (subagents)",
        thousands(total),
        thousands(reported),
        thousands(unreported),
        thousands(pending)
    ))
}

/// 12345 -> "12,345".
pub fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::record::Cost;

    fn usage(n: u64) -> Usage {
        Usage { input_tokens: n, ..Usage::default() }
    }

    #[test]
    fn thousands_groups_digits() {
        assert_eq!(thousands(0), "0");
        assert_eq!(thousands(999), "999");
        assert_eq!(thousands(1000), "1,000");
        assert_eq!(thousands(12345678), "12,345,678");
    }

    #[test]
    fn format_cost_decimals_and_flags() {
        let mut a = Accounts::default();
        assert_eq!(format_cost(&a), "$0.0000");
        a.add_response(&usage(10), true, Cost::Known(0.01234));
        assert_eq!(format_cost(&a), "$0.0123");
        a.add_response(&usage(10), true, Cost::Known(1.5));
        assert_eq!(format_cost(&a), "$1.51");
        a.reserve(5);
        assert_eq!(format_cost(&a), "≥ $1.51 (incomplete)");
        a.add_response(&usage(10), true, Cost::Absent);
        assert_eq!(format_cost(&a), "unknown");
        a.add_response(&usage(10), true, Cost::Known(1.0));
        assert_eq!(a.cost_usd, None, "a missing price sticks");
        // A negative figure (only a recorded one can be) signs the amount.
        assert_eq!(format_cost_parts(Some(-1.0), false), "-$1.00");
        assert_eq!(format_cost_parts(Some(-0.5), false), "-$0.5000");
    }

    #[test]
    fn costs_across_files_add_known_parts_and_mark_the_rest() {
        // (parts, sum, incomplete): an unknown part is a lower bound, never $0.
        type Part = (Option<f64>, bool);
        let cases: [(&[Part], Option<f64>, bool); 6] = [
            (&[], None, false),
            (&[(Some(1.0), false), (Some(0.25), false)], Some(1.25), false),
            (&[(Some(1.0), false), (None, false)], Some(1.0), true),
            (&[(None, false), (Some(0.5), false)], Some(0.5), true),
            (&[(None, false), (None, true)], None, true),
            (&[(Some(1.0), false), (Some(2.0), true)], Some(3.0), true),
        ];
        let add_costs = |parts: &[Part]| {
            let mut sum = CostSum::default();
            for &(cost, incomplete) in parts {
                sum.add(cost, incomplete);
            }
            (sum.cost_usd, sum.incomplete)
        };
        for (parts, sum, incomplete) in cases {
            assert_eq!(add_costs(parts), (sum, incomplete), "{parts:?}");
        }
        assert_eq!(
            format_cost_parts(add_costs(&[(Some(1.0), false), (None, false)]).0, true),
            "≥ $1.00 (incomplete)"
        );
    }

    #[test]
    fn report_settles_at_most_its_own_tokens() {
        let mut a = Accounts::default();
        a.debit("c1", 100);
        let report = Report {
            child_session_id: Some("c1".into()),
            usage: usage(30),
            cost_usd: Some(0.1),
            ..Report::default()
        };
        a.add_report(&report);
        assert_eq!(a.child_debits.get("c1"), Some(&70));
        let big = Report { usage: usage(500), ..report };
        a.add_report(&big);
        assert!(a.child_debits.is_empty(), "a child at 0 leaves the map");
        assert_eq!(a.usage.tokens(), 530);
    }

    #[test]
    fn budget_note_names_three_parts() {
        let mut a = Accounts::default();
        assert_eq!(budget_note(&a), None);
        a.add_response(&usage(10_000), true, Cost::Known(0.0));
        a.reserve(2_000);
        a.debit("c", 345);
        assert_eq!(
            budget_note(&a).as_deref(),
            Some("budget 12,345 tokens: 10,000 reported + 2,000 unreported + 345 pending (subagents)")
        );
    }
}
