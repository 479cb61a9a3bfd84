// Types of @garuda/session/node: the file store (JOURNAL.md §7).
import type { JournalRecord, Redactor, SessionRow, SessionState } from "../index.js";

/** A session file open for writing (one writer: it holds `<id>.lock`). */
export class FileJournal {
  readonly path: string;
  /** The file ended mid-line (a crash) and open() ended that line; replay reports it as a bad line. */
  readonly repairedTornTail: boolean;
  /** Redacts the record, appends its line with one write, applies it, and returns the line. */
  write(record: JournalRecord | string): string;
  state(): SessionState;
  /** Closes the file and releases the lock. */
  close(): void;
}

export interface StoreOptions {
  /** Defaults to a Redactor over process.env. */
  redactor?: Redactor;
}

export class FileSessionStore {
  /** `dir` defaults to `.garuda/sessions`. */
  constructor(dir?: string, options?: StoreOptions);
  readonly dir: string;
  /** Opens or creates `<dir>/<id>.jsonl`. Throws for an invalid id or a session another live process writes. */
  open(id: string): FileJournal;
  /** A subagent run: `<dir>/<id>/<childId>.jsonl`. */
  openChild(id: string, childId: string): FileJournal;
  /** The records that parse. */
  read(id: string): JournalRecord[];
  /** The replayed state (warnings and tornTail included). */
  replay(id: string): SessionState;
  /** The newest session; child folders are ignored. */
  latest(): string | undefined;
  /** `/sessions` rows, newest first. */
  list(): SessionRow[];
  /** Appends a title record; the file keeps its time. */
  setTitle(id: string, title: string): void;
  /** Deletes the file and the subagent folder. */
  remove(id: string): void;
}
