//! The transcript's entries, kept in blocks of a fixed size instead of one
//! growing vector.
//!
//! A 1 GB journal has about 600,000 entries of some 240 bytes each (wasm32).
//! One `Vec` doubled as they came: its last step asked for a block of
//! 2^20 entries (252 MB) and copied the 126 MB block before it, which the
//! allocator then held free in wasm memory (a wasm module's memory never
//! shrinks). Blocks of `BLOCK` entries are allocated once each, never
//! moved: memory grows with the entries, and the tab holds no freed copy.

#![forbid(unsafe_code)]

use super::Entry;

/// Entries per block: about 1 MB on wasm32.
const BLOCK: usize = 4096;

#[derive(Debug, Clone, Default)]
pub(super) struct Entries {
    blocks: Vec<Vec<Entry>>,
    len: usize,
}

impl Entries {
    pub(super) fn len(&self) -> usize {
        self.len
    }

    pub(super) fn is_empty(&self) -> bool {
        self.len == 0
    }

    pub(super) fn push(&mut self, e: Entry) {
        match self.blocks.last_mut() {
            Some(block) if block.len() < BLOCK => block.push(e),
            _ => {
                let mut block = Vec::with_capacity(BLOCK);
                block.push(e);
                self.blocks.push(block);
            }
        }
        self.len += 1;
    }

    pub(super) fn get(&self, i: usize) -> Option<&Entry> {
        self.blocks.get(i / BLOCK)?.get(i % BLOCK)
    }

    pub(super) fn iter(&self) -> impl Iterator<Item = &Entry> {
        self.blocks.iter().flatten()
    }

    pub(super) fn iter_mut(&mut self) -> impl Iterator<Item = &mut Entry> {
        self.blocks.iter_mut().flatten()
    }

    /// Entries `from..to` (clamped to the entries there are).
    pub(super) fn range(&self, from: usize, to: usize) -> impl Iterator<Item = &Entry> {
        let to = to.min(self.len);
        let from = from.min(to);
        (from..to).filter_map(move |i| self.get(i))
    }
}

impl IntoIterator for Entries {
    type Item = Entry;
    type IntoIter = std::iter::Flatten<std::vec::IntoIter<Vec<Entry>>>;
    fn into_iter(self) -> Self::IntoIter {
        self.blocks.into_iter().flatten()
    }
}

impl std::ops::Index<usize> for Entries {
    type Output = Entry;
    fn index(&self, i: usize) -> &Entry {
        &self.blocks[i / BLOCK][i % BLOCK]
    }
}

impl std::ops::IndexMut<usize> for Entries {
    fn index_mut(&mut self, i: usize) -> &mut Entry {
        &mut self.blocks[i / BLOCK][i % BLOCK]
    }
}
