// Search matches marked inside a drawn entry: each occurrence of the query
// (case ignored) in the entry's text nodes wrapped in <mark>, and the folds
// holding one opened so the match shows. Built from text nodes only (the
// match is a text node moved into a mark element): nothing is parsed as HTML.

const SKIP = new Set(["MARK", "SCRIPT", "STYLE"]);

/** Marks `query` in `root`; returns the marks made, in document order. */
export function markMatches(root, query) {
  unmark(root);
  const q = query.toLowerCase();
  if (!q) return [];
  const texts = [];
  const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT, {
    acceptNode: (t) => (t.nodeValue && !SKIP.has(t.parentElement?.tagName) && t.nodeValue.toLowerCase().includes(q) ? NodeFilter.FILTER_ACCEPT : NodeFilter.FILTER_REJECT),
  });
  for (let t = walker.nextNode(); t; t = walker.nextNode()) texts.push(t);
  const marks = [];
  for (let t of texts) {
    for (;;) {
      const at = t.nodeValue.toLowerCase().indexOf(q);
      if (at < 0) break;
      const match = t.splitText(at);
      t = match.splitText(q.length);
      const mark = document.createElement("mark");
      mark.className = "search-mark";
      match.replaceWith(mark);
      mark.append(match);
      marks.push(mark);
    }
  }
  // A match inside a folded call, result or thinking: its folds open.
  for (const m of marks) {
    for (let d = m.parentElement?.closest("details"); d; d = d.parentElement?.closest("details")) d.open = true;
  }
  return marks;
}

/** Takes the marks out again (their text stays). */
export function unmark(root) {
  for (const m of root.querySelectorAll("mark.search-mark")) m.replaceWith(...m.childNodes);
  root.normalize();
}
