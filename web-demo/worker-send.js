// What the viewer's worker posts of a session's entries, and what it keeps
// to post only what the page lacks (viewer-entries.js takes it):
// - drafts, while the journal is read: each entry once, as the core built
//   it, 256 a piece, as JSON bytes;
// - the patch, once read: what settling decided of every entry, in columns,
//   a slice of 3,072 entries at a time;
// - or every entry again, settled, as JSON text, when settling moved entries
//   (another agent's reader can) or the session was read again whole.
// A followed session's update is the same: drafts of the entries it gained
// and the patch's slices whose text changed. Sending every entry again was
// 220 MB of JSON a second for a followed 1 GB journal, parsed again whole
// by the page.

// Entries drafted per message, and settled per patch (about 100 KB of JSON
// each): V8 puts a string of more than 128 KB in its large-object space,
// freed only by a full collection, and a 1 GB load's 1 MB pieces of JSON
// piled up there, on both threads, to the tab's peak. (A patch is in
// columns: about 32 bytes an entry.)
export const PIECE = 256;
export const PATCH = 3072;
// Entries per message when they are sent whole, as JSON text (a 1 GB journal has millions).
export const BATCH = 20000;

export class Sender {
  /** `post(message, transfer)` posts to the page; `journal` may be set later (the core loads while the first bytes are read). */
  constructor(post, load, journal = null) {
    this.post = post;
    this.load = load;
    this.journal = journal;
    // Entries the page has a draft or a whole copy of.
    this.drafted = 0;
    // The patch's slices last posted, by slice, while a session is
    // followed (`follow()`); else null, and every slice is posted.
    this.sent = null;
  }

  /** From now on, post only the patch's slices that changed (a followed session). */
  follow() {
    this.sent ??= [];
  }

  /** Drafts of the entries built since the last call (unsettled: the patch settles them). */
  draft(length = this.journal.transcriptLength) {
    for (let from = this.drafted; from < length; from += PIECE) {
      const to = Math.min(length, from + PIECE);
      const bytes = this.journal.transcriptDraftJson(from, to);
      this.post({ type: "entries", load: this.load, from, to, bytes }, [bytes.buffer]);
    }
    this.drafted = Math.max(this.drafted, length);
  }

  /**
   * What settling decided of entries `0..total` (transcriptPatchJson, in
   * columns: 19 MB for a 1 GB journal), a slice at a time: slices are freed
   * as they go, and the page settles one while the core writes the next.
   * Following, a slice is posted only when its text changed. False when
   * settling moved entries (post them whole).
   */
  patch(total = this.journal.transcriptLength) {
    for (let from = 0, k = 0; from < total; from += PATCH, k++) {
      const patch = this.journal.transcriptPatchJson(from, Math.min(total, from + PATCH));
      // None comes as undefined from the binding (the old `!== null` test
      // let a reordered transcript through unsettled).
      if (patch == null) return false;
      if (this.sent) {
        if (this.sent[k] === patch) continue;
        this.sent[k] = patch;
      }
      this.post({ type: "patch", load: this.load, from, patch });
    }
    return true;
  }

  /** Every entry, settled, as JSON text in batches (copying a string costs a fraction of cloning the objects). */
  whole(total = this.journal.transcriptLength) {
    for (let from = 0; from < total; from += BATCH) {
      this.post({ type: "entries", load: this.load, from, json: this.journal.transcriptJson(from, from + BATCH) });
    }
    this.drafted = total;
    // The page starts again from these: it has none of the slices.
    if (this.sent) this.sent = [];
  }

  /** What the page lacks, once the journal is read or gained bytes: drafts of the entries it has not had and the patch (following, the slices that changed), or all of it whole. */
  update() {
    const total = this.journal.transcriptLength;
    if (total < this.drafted) return this.whole(total);
    this.draft(total);
    if (!this.patch(total)) this.whole(total);
  }
}
