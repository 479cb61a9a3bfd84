// Types of @garuda/session/node: the file store (JOURNAL.md §7).
import type { JournalRecord, Redactor, SessionRow, SessionState } from "../index.js";

/** A session file open for writing (one writer: it holds `<id>.lock`). */
export class FileJournal {
  readonly path: string;
  /** The file ended mid-line (a crash) and open() ended that line; replay reports it as a bad line. */
  readonly repairedTornTail: boolean;
  /**
   * Redacts the record, applies it, appends its line, and returns the line.
   * Throws a StoreError: ERR_LINE_TOO_LONG or ERR_BAD_RECORD (nothing changed),
   * ERR_SESSION_REMOVED (the file was deleted while open), ERR_JOURNAL_CLOSED, or
   * ERR_JOURNAL_WRITE (a full disk, say: the file is cut back to its last whole
   * line and the state rebuilt from it, so the record is in neither).
   */
  write(record: JournalRecord | string): string;
  state(): SessionState;
  /** Closes the file and releases the lock. */
  close(): void;
}

export interface StoreOptions {
  /** Defaults to a Redactor over process.env. */
  redactor?: Redactor;
  /** The longest line written or read, in bytes (default 64 MiB). */
  maxLineBytes?: number;
}

/** The stable codes of the store's errors. */
export type StoreErrorCode =
  | "ERR_BAD_SESSION_ID"
  | "ERR_SESSION_LOCKED"
  | "ERR_SESSION_REMOVED"
  | "ERR_JOURNAL_CLOSED"
  | "ERR_JOURNAL_WRITE"
  | "ERR_STORE_UNWRITABLE"
  | "ERR_LINE_TOO_LONG"
  | "ERR_BAD_RECORD"
  | "ERR_INVALID_ARG_TYPE";

/** What the store throws: an Error with a stable code; `cause` is the system error, when there was one. */
export interface StoreError extends Error {
  code: StoreErrorCode;
  cause?: Error & { code?: string; syscall?: string; path?: string };
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
