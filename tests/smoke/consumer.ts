// Uses every export with its declared types; tsc --strict must accept it.
import { Journal, Redactor, rebuildState, formatCost, budgetNote, summariseSession, validateSessionId, newSessionId, type SessionState, type Message } from "@garuda/session";
const r = new Redactor({ env: { API_KEY: "x" } });
const j = new Journal({ redactor: r });
const line: string = j.write({ type: "user", message: { role: "user", content: "hi" } });
const s: SessionState = rebuildState(line);
const m: Message[] = s.messages;
const c: string = formatCost(s);
const n: string | null = budgetNote(s);
const row = summariseSession("a", new Date(), [line]);
const ok: boolean = validateSessionId(row.id);
const id: string = newSessionId();
const out: { line: string; changed: boolean } = r.redactLine(line);
console.log(m, c, n, ok, id, out, j.lineCount, s.costUsd ?? 0);
