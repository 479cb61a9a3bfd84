// Types of @garuda/session (JOURNAL.md §8). The same API in Node (CommonJS
// and ESM) and in browsers (ESM; the module initialises its wasm on import).

/** A JSON value, as journals hold them. */
export type Json = string | number | boolean | null | Json[] | { [key: string]: Json };

/** Token usage of a model request (JOURNAL.md §2). Missing counts are 0. */
export interface Usage {
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens: number;
  cacheWriteTokens: number;
}

/** A text block. */
export interface TextBlock { type: "text"; text: string; citations?: Json[] | null; cache_control?: Json; [key: string]: unknown }
/** An image (or document) from a source: base64 data, a URL or a file. */
export interface ImageBlock { type: "image"; source: { type: string; media_type?: string; data?: string; url?: string; [key: string]: unknown }; cache_control?: Json; [key: string]: unknown }
export interface DocumentBlock { type: "document"; source: { type: string; [key: string]: unknown }; [key: string]: unknown }
/** Thinking, with the signature the API checks on resume. */
export interface ThinkingBlock { type: "thinking"; thinking: string; signature: string; [key: string]: unknown }
export interface RedactedThinkingBlock { type: "redacted_thinking"; data: string; [key: string]: unknown }
export interface ToolUseBlock { type: "tool_use"; id: string; name: string; input: { [key: string]: Json } | Record<string, unknown>; [key: string]: unknown }
export interface ToolResultBlock { type: "tool_result"; tool_use_id: string; content?: string | ContentBlock[]; is_error?: boolean; [key: string]: unknown }
export interface ServerToolUseBlock { type: "server_tool_use"; id: string; name: string; input: unknown; [key: string]: unknown }
export interface WebSearchToolResultBlock { type: "web_search_tool_result"; tool_use_id: string; content: unknown; [key: string]: unknown }

/**
 * A content block of the Anthropic Messages API (JOURNAL.md §2): a union that
 * narrows on `type` (`block.type === "tool_use"` gives a ToolUseBlock).
 * Blocks of types the API adds later pass through the journal unchanged at
 * run time; give them this type with a cast where you meet them.
 */
export type ContentBlock =
  | TextBlock
  | ImageBlock
  | DocumentBlock
  | ThinkingBlock
  | RedactedThinkingBlock
  | ToolUseBlock
  | ToolResultBlock
  | ServerToolUseBlock
  | WebSearchToolResultBlock;

/** A message as the API sees it. */
export interface Message {
  role: "user" | "assistant";
  content: string | ContentBlock[];
  [key: string]: unknown;
}

/** What resume needs to know about the record a message came from. */
export interface MessageOrigin {
  /** The record's strings were changed by the Redactor. */
  redacted: boolean;
  /** The number of model switches before the message. */
  epoch: number;
  /** The 1-based journal line of the record the message came from. */
  line: number;
  /** Replay could not carry the message as written (it nested deeper than 100 levels): a short note of the same role stands in its place. */
  dropped?: true;
}

export type WarningKind = "bad-json" | "bad-record" | "bad-field" | "unknown-type" | "empty-undo" | "empty-redo" | "too-deep" | "line-too-long";

/** A line the reader skipped or a record it could not apply; `line` is 1-based. */
export interface Warning {
  line: number;
  kind: WarningKind;
  message: string;
}

/** An undo snapshot: the file tree before a turn and the message count then. */
export interface Snapshot {
  tree?: Json;
  messages: number;
  prompt?: Json;
}

/** A turn taken out by undo, ready for redo. */
export interface Undone {
  snapshot: Snapshot;
  after?: Json;
  messages: Message[];
  messageOrigins: MessageOrigin[];
}

/** The replayed session (JOURNAL.md §3). */
export interface SessionState {
  sessionId?: Json;
  root?: Json;
  version?: Json;
  model?: string;
  executor?: Json;
  isolation?: Json;
  limits?: { maxSteps?: number; tokenBudget?: number; contextWindow?: number; [key: string]: unknown };
  /** The conversation as the API will see it (before resume repair). */
  messages: Message[];
  /** One per message, in the same order. */
  messageOrigins: MessageOrigin[];
  /** Reported usage only. */
  usage: Usage;
  unreportedTokens: number;
  /** Pending subagent tokens by child session id. */
  childDebits: Record<string, number>;
  /** Known cost in USD; null when a price was missing. */
  costUsd: number | null;
  /** The cost is only a known minimum. */
  costIncomplete: boolean;
  contextTokens: number;
  steps: number;
  prompts: number;
  /** The prompt of the first user record. */
  firstPrompt?: string;
  title?: string;
  thinking?: Json;
  ended?: { stopReason: Json; steps: number | null };
  undo: Snapshot[];
  redo: Undone[];
  /** Model switches so far. */
  epoch: number;
  warnings: Warning[];
  /** The last line was cut off by a crash mid-write, and ignored. */
  tornTail: boolean;
}

/** One `/sessions` row (JOURNAL.md §7). */
export interface SessionRow {
  id: string;
  updated: string;
  /** The first line of the first prompt, 60 characters at most. */
  prompt: string;
  prompts: number;
  model: string | null;
  title: string | null;
  /** As formatCost. */
  cost: string;
  costUsd: number | null;
  costIncomplete: boolean;
}

interface RecordBase {
  /** ISO-8601 time. */
  t?: string;
  /** The Redactor changed the record's strings. */
  redacted?: boolean;
}

/** The session's metadata, as start, resume and model records carry it. */
export interface SessionMetadata {
  sessionId?: string;
  root?: string;
  version?: Json;
  model?: string;
  executor?: Json;
  isolation?: Json;
  limits?: { maxSteps?: number; tokenBudget?: number; contextWindow?: number; [key: string]: Json | undefined };
}

/** A model response as the journal keeps it: its content, camelCase usage, whether usage was reported. */
export interface ResponseRecord {
  content: ContentBlock[];
  usage: Partial<Usage>;
  usageReported?: boolean;
  [key: string]: unknown;
}

/** A tool call of a `tool_results` record; `report` is a subagent's. */
export interface ToolCallRecord {
  toolUseId: string;
  name: string;
  durationMs: number;
  executor?: Json;
  isolation?: Json;
  synthetic?: boolean;
  report?: { childSessionId: string; usage: Partial<Usage>; costUsd?: number; costIncomplete?: boolean; steps?: number };
}

export interface StartRecord extends RecordBase, SessionMetadata { type: "start" }
export interface ResumeRecord extends RecordBase, SessionMetadata { type: "resume" }
export interface ModelRecord extends RecordBase, SessionMetadata { type: "model"; model: string }
export interface UserRecord extends RecordBase { type: "user"; message: Message }
export interface AssistantRecord extends RecordBase { type: "assistant"; step: number; response: ResponseRecord; costUsd?: number; usageReported?: boolean }
export interface ToolResultsRecord extends RecordBase { type: "tool_results"; message: Message; calls: ToolCallRecord[]; synthetic?: boolean }
export interface CompactionRecord extends RecordBase { type: "compaction"; stage: 1 | 2; beforeTokens: number; afterTokens: number; messages: Message[]; summary?: ResponseRecord; costUsd?: number; usageReported?: boolean }
export interface SnapshotRecord extends RecordBase { type: "snapshot"; tree: Json; messages: number; prompt: string; durationMs: number }
export interface UndoRecord extends RecordBase { type: "undo"; after?: Json }
export interface RedoRecord extends RecordBase { type: "redo" }
export interface TitleRecord extends RecordBase { type: "title"; title: string }
export interface ThinkingRecord extends RecordBase { type: "thinking"; choice: Json }
export interface ContinueRecord extends RecordBase { type: "continue"; message: Message; maxTokens: number }
export interface UnreportedRecord extends RecordBase { type: "unreported"; tokens: number }
export interface ChildDebitRecord extends RecordBase { type: "child_debit"; childSessionId: string; tokens: number }
export interface SideUsageRecord extends RecordBase { type: "side_usage"; purpose: string; usage: Partial<Usage>; costUsd?: number; usageReported?: boolean }
export interface EndRecord extends RecordBase { type: "end"; stopReason: Json; steps: number }

/**
 * A journal record (JOURNAL.md §2): one interface per record type, a union
 * that narrows on `type`. A misspelled type does not compile. (Records a
 * newer writer adds may be read from disk; replay skips them with a warning.)
 */
export type JournalRecord =
  | StartRecord
  | ResumeRecord
  | ModelRecord
  | UserRecord
  | AssistantRecord
  | ToolResultsRecord
  | CompactionRecord
  | SnapshotRecord
  | UndoRecord
  | RedoRecord
  | TitleRecord
  | ThinkingRecord
  | ContinueRecord
  | UnreportedRecord
  | ChildDebitRecord
  | SideUsageRecord
  | EndRecord;

/** A journal: the whole text, the file's bytes, or its lines (or records, as a store's read() gives them). */
export type JournalInput = string | Uint8Array | (string | JournalRecord)[];

export interface RedactorOptions {
  /** The environment; values of secret-named variables are removed wherever they appear. */
  env?: Record<string, string | undefined>;
  /**
   * Your own token formats, as gitleaks rules are written: each pattern in regex-lite syntax
   * (searches are linear, so no pattern can hang on a hostile line). They apply wherever the
   * built-in formats do, exemptions included, and are counted under their names. A bad pattern
   * throws an Error naming the rule and the position.
   */
  rules?: RedactionRule[];
}

/** A user's redaction rule. A pattern that starts with a literal of 3 bytes or more (`acme_[a-z0-9]{32}`) is searched only where that literal occurs. */
export interface RedactionRule {
  name: string;
  pattern: string;
}

/** Replaces secrets with `[REDACTED]` (JOURNAL.md §5). */
export class Redactor {
  constructor(options?: RedactorOptions);
  /** The line to write; an unchanged line comes back byte-identical, a changed record gains `"redacted": true`. Throws when the line is not a JSON object. */
  redactLine(line: string): { line: string; changed: boolean };
  /** Redacts free text. */
  redact(text: string): string;
  /** Redacts a whole journal (its text or the file's bytes): records as redactLine does, other lines as free text. */
  redactJournal(journal: string | Uint8Array): {
    text: string;
    lines: number;
    /** Lines that changed. */
    changed: number;
    /** Lines that are not records (redacted as free text). */
    notRecords: number;
    /** Secrets removed, by rule: env-value, assignment, record-field, jwt, private-key, github-token, ... */
    rules: Record<string, number>;
  };
  /** Frees the wasm memory now rather than at garbage collection. */
  free(): void;
}

export interface JournalOptions {
  /** Defaults to a Redactor with no environment (known formats and assignments only). */
  redactor?: Redactor;
  /** The longest line written or read, in bytes (default 64 MiB). A longer record is refused by write(); a longer line is skipped by replay with a "line-too-long" warning, never held in memory whole. */
  maxLineBytes?: number;
}

/** The pure in-memory journal. After every write its state equals rebuildState of the lines written. */
export class Journal {
  constructor(options?: JournalOptions);
  /** Redacts the record, applies it, and returns the line to append (without its newline). Throws when the record is not one JSON object. */
  write(record: JournalRecord | string): string;
  /** Feeds journal text read from disk (any chunking; chunks of bytes may split characters). No redaction. */
  feed(chunk: string | Uint8Array): void;
  /** Ends fed text: a last line without a newline is applied, or reported as a torn tail. */
  finish(): void;
  /** Lines read or written so far. */
  readonly lineCount: number;
  state(): SessionState;
  messages(): Message[];
  free(): void;
}

export function rebuildState(journal: JournalInput): SessionState;
/** "unknown", "≥ $X (incomplete)" or "$X". */
export function formatCost(state: SessionState): string;
/** Null when the budget equals reported usage; else one line naming reported, unreported and pending tokens. */
export function budgetNote(state: SessionState): string | null;
export function summariseSession(id: string, updated: string | Date, journal: JournalInput): SessionRow;
/** Letters, digits, "-" and "_" only, and not empty. */
export function validateSessionId(id: string): boolean;
/** `YYYYMMDD-HHMMSS-xxxx` in UTC. */
export function newSessionId(now?: Date): string;

export interface ResumeOptions {
  /** The model the session resumes with (default: the session's last model). A different model drops all thinking. */
  model?: string;
  /** Whether the next request enables thinking. `false` drops all thinking; `true` also repairs an unfinished tool loop that lacks thinking. */
  thinking?: boolean;
}

export type ThinkingDropReason =
  | "model-switch"
  | "thinking-off"
  | "redacted-record"
  | "legacy-redacted"
  | "unsigned"
  | "thinking-only"
  | "after-repair";

/** What resume changed (JOURNAL.md §6). */
export interface RepairReport {
  thinkingDropped: Record<ThinkingDropReason, number>;
  /** Each thinking block left out: the index of its message in state.messages, its block index, why. */
  dropped: { message: number; block: number; reason: ThinkingDropReason }[];
  /** Tool calls answered with "[Interrupted before result was recorded]". */
  toolCallsAnswered: string[];
  messagesRemoved: number;
  messagesMerged: number;
  orphanResultsToText: number;
  resultsMovedFirst: number;
  blankTextRemoved: number;
  toolUseIdsRenamed: number;
  leadingNoteAdded: boolean;
  toolLoopToText: boolean;
  /** Blocks of a shape the API refuses that were left out. */
  blocksDropped: number;
  /** Blocks of a shape the API refuses that were turned into text keeping what they said. */
  blocksMended: number;
  /** Each such block: its message in state.messages, its block index, the journal line, what was wrong, what was done. */
  badBlocks: { message: number; block: number; line: number; problem: string; fix: "dropped" | "mended" }[];
  /** Messages replay could not carry (nested too deep); a note stands in for each. */
  messagesDroppedAtReplay: number;
  /** Rules the result still breaks: always empty unless there is a bug. */
  remaining: MessageProblem[];
}

export type MessageProblemKind =
  | "no-messages"
  | "not-a-message"
  | "first-not-user"
  | "tool-use-unanswered"
  | "tool-result-orphan"
  | "tool-result-not-first"
  | "empty-content"
  | "empty-text"
  | "thinking-unsigned"
  | "thinking-missing"
  | "bad-block";

/** A rule of the Messages API that a history breaks (the API would answer 400). */
export interface MessageProblem {
  index: number;
  kind: MessageProblemKind;
  message: string;
}

/** The messages to send after a resume, repaired so the API accepts them. */
export function resumeMessages(state: SessionState, options?: ResumeOptions): Message[];
/** resumeMessages with its repair report. */
export function repairForResume(state: SessionState, options?: ResumeOptions): { messages: Message[]; report: RepairReport };
/** The synthetic tool_results record for the open tool calls of the last assistant message, or null. Write it before the next user message. */
export function closeOpenToolCalls(state: SessionState): ToolResultsRecord | null;
/** The problems for which the Messages API answers 400. */
export function checkMessages(messages: Message[], options?: { thinking?: boolean }): MessageProblem[];
