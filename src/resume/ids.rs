//! A set of tool ids for one message or turn: a list while it is small (a
//! turn has a few calls; a hash set per message cost more than the search),
//! a hash set once it is not (a turn of thousands of calls stays linear).

use std::borrow::Borrow;
use std::collections::HashSet;
use std::hash::Hash;

const SMALL: usize = 16;

pub(crate) struct Ids<T> {
    few: Vec<T>,
    many: Option<HashSet<T>>,
}

impl<T> Default for Ids<T> {
    fn default() -> Self {
        Ids { few: Vec::new(), many: None }
    }
}

impl<T: Borrow<str> + Eq + Hash> Ids<T> {
    pub(crate) fn contains(&self, id: &str) -> bool {
        match &self.many {
            Some(set) => set.contains(id),
            None => self.few.iter().any(|x| x.borrow() == id),
        }
    }

    pub(crate) fn insert(&mut self, id: T) {
        if let Some(set) = &mut self.many {
            set.insert(id);
            return;
        }
        self.few.push(id);
        if self.few.len() > SMALL {
            self.many = Some(self.few.drain(..).collect());
        }
    }
}

impl<T: Borrow<str> + Eq + Hash> FromIterator<T> for Ids<T> {
    fn from_iter<I: IntoIterator<Item = T>>(iter: I) -> Ids<T> {
        let mut ids = Ids::default();
        for id in iter {
            ids.insert(id);
        }
        ids
    }
}

#[cfg(test)]
mod tests {
    use super::Ids;

    #[test]
    fn small_and_large_sets_answer_alike() {
        for n in [0, 3, 16, 17, 500] {
            let names: Vec<String> = (0..n).map(|i| format!("t{i}")).collect();
            let ids: Ids<&str> = names.iter().map(String::as_str).collect();
            assert!(names.iter().all(|x| ids.contains(x)), "{n}");
            assert!(!ids.contains("t-1") && !ids.contains(""), "{n}");
        }
    }
}
