//! tool_use ids made unique across a history, as the repair makes them:
//! the API answers 400 for an id used twice anywhere in a request. The
//! repair (`rename_duplicate_ids`) and the live view's steps (`view.rs`
//! `Taker`) both go through this, so a name the repair gives is one the
//! live view knows: a later call that happens to use it is renamed too,
//! not sent beside the renamed one.

#![forbid(unsafe_code)]

use std::collections::{HashMap, HashSet};

#[derive(Debug, Clone, Default)]
pub(crate) struct UniqueIds {
    /// Every id given so far, the fresh names included.
    given: HashSet<String>,
    /// Each id's next `_dup` number to try: the taken ones only grow, so the
    /// first free one is never below the last one given. Counted from 2 each
    /// time, an id reused in every turn made the repair quadratic (4,000
    /// turns of one id took 1 s).
    next_dup: HashMap<String, u32>,
}

impl UniqueIds {
    /// The next call's id: None when it is new (kept as it is), else the
    /// fresh name it gets (`<id>_dupN`, the first N from 2 on that no id
    /// given so far has). Either is given from then on.
    pub(crate) fn give(&mut self, id: &str) -> Option<String> {
        if !self.given.contains(id) {
            self.given.insert(id.to_owned());
            return None;
        }
        let n = self.next_dup.entry(id.to_owned()).or_insert(2);
        let fresh = loop {
            let candidate = format!("{id}_dup{n}");
            *n += 1;
            if !self.given.contains(&candidate) {
                break candidate;
            }
        };
        self.given.insert(fresh.clone());
        Some(fresh)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_fresh_name_is_never_one_given_before_or_after() {
        let mut ids = UniqueIds::default();
        let given: Vec<String> = ["x", "x_dup2", "x", "x", "x_dup2", "y"]
            .iter()
            .map(|id| ids.give(id).unwrap_or(id.to_string()))
            .collect();
        assert_eq!(given, ["x", "x_dup2", "x_dup3", "x_dup4", "x_dup2_dup2", "y"]);
        let mut ids = UniqueIds::default();
        // The repair's name for the second `x`, then a call that uses it as written.
        let given: Vec<String> =
            ["x", "x", "x_dup2"].iter().map(|id| ids.give(id).unwrap_or(id.to_string())).collect();
        assert_eq!(given, ["x", "x_dup2", "x_dup2_dup2"]);
    }
}
