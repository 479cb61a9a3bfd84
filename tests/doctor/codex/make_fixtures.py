#!/usr/bin/env python3
"""Writes the doctor's hand-made Codex rollouts (tests/doctor/codex/*.jsonl),
one per shape: lines as Codex CLI 0.1xx writes them (`{timestamp, type,
payload}`, `session_meta` first, `response_item` for the history,
`compacted` with a `replacement_history`). A torn write is bytes: the line
cut in the middle of a UTF-8 character, the next line appended right after.

Run it again only to change a fixture; the expected reports and repaired
files are rewritten by `DOCTOR_BLESS=1 cargo test --test doctor_codex` and
must be read before they are committed."""
import json, os

HERE = os.path.dirname(os.path.abspath(__file__))
SID = "019e2a40-5c1d-7e2f-9a3b-4c5d6e7f8091"


class Rollout:
    def __init__(self, meta=True):
        self.lines, self.n = [], 0
        if meta:
            self.add("session_meta", {"id": SID, "timestamp": "2026-11-20T10:00:00.000Z", "cwd": "/home/dev/app",
                                      "originator": "codex_cli_rs", "cli_version": "0.130.0", "source": "cli",
                                      "model_provider": "openai"})
        self.add("turn_context", {"cwd": "/home/dev/app", "approval_policy": "on-request", "model": "gpt-5.2-codex",
                                  "effort": "medium", "summary": "auto"})

    def add(self, kind, payload):
        self.n += 1
        t = "2026-11-20T10:%02d:%02d.000Z" % (self.n // 60, self.n % 60)
        self.lines.append(json.dumps({"timestamp": t, "type": kind, "payload": payload},
                                     ensure_ascii=False, separators=(",", ":")).encode())

    def item(self, payload):
        self.add("response_item", payload)

    def user(self, text):
        self.item({"type": "message", "role": "user", "content": [{"type": "input_text", "text": text}]})

    def say(self, text):
        self.item({"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": text}]})

    def reason(self, n):
        self.item({"type": "reasoning", "summary": [{"type": "summary_text", "text": "**Plan %d**" % n}],
                   "content": None, "encrypted_content": "gAAAAABfake%04d" % n + "Zm9v" * 12})

    def call(self, cid, cmd):
        self.item({"type": "function_call", "name": "exec_command",
                   "arguments": json.dumps({"cmd": cmd}), "call_id": cid})

    def output(self, cid, out):
        self.item({"type": "function_call_output", "call_id": cid, "output": out})

    def write(self, name, raw=None):
        data = b"\n".join(self.lines) + b"\n" if raw is None else raw
        with open(os.path.join(HERE, name + ".jsonl"), "wb") as f:
            f.write(data)


# A crash between a call and its output (the process killed while the
# command ran): Codex answers it "aborted" itself; the file resumes.
r = Rollout()
r.user("run the tests")
r.reason(1)
r.call("call_crash1", "cargo test")
r.write("orphan-crash")

# A compaction cut a pair: the call went into the summary, its output was
# written after the compacted line. Codex drops the output; resumes.
r = Rollout()
r.user("list the files")
r.call("call_cut1", "ls")
r.add("compacted", {"message": "The user asked for the files.", "replacement_history": [
    {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "list the files"}]},
    {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "Summary: listing."}]}]})
r.output("call_cut1", "a.rs\nb.rs")
r.say("Two files.")
r.write("orphan-compaction")

# Reasoning with encrypted content between a call and its output, a custom
# tool call (apply_patch) answered, parallel calls answered out of order:
# nothing to say, nothing to change.
r = Rollout()
r.user("fix the typo")
r.reason(1)
r.call("call_a", "rg typo")
r.call("call_b", "git status")
r.reason(2)
r.output("call_b", "clean")
r.output("call_a", "src/x.rs:1: typo")
r.item({"type": "custom_tool_call", "status": "completed", "call_id": "call_p", "name": "apply_patch",
        "input": "*** Begin Patch\n*** End Patch"})
r.item({"type": "custom_tool_call_output", "call_id": "call_p", "output": "Success."})
r.say("Fixed.")
r.write("reasoning-pairs")

# A torn write: the output line cut inside "é" (two bytes, the first kept),
# then the next line appended without a newline between. Not UTF-8: Codex
# cannot read the file at all. The repair drops the torn line.
r = Rollout()
r.user("say café")
r.call("call_t", "echo café")
r.output("call_t", "café")
r.say("Done.")
torn = r.lines[-2][: r.lines[-2].index("é".encode()) + 1]
raw = b"\n".join(r.lines[:-2]) + b"\n" + torn + r.lines[-1] + b"\n"
r.write("torn-utf8", raw)

# No session_meta (the first line lost): Codex refuses; no edit can give
# the session back its id, so the repair leaves it.
r = Rollout(meta=False)
r.user("hello")
r.say("Hi.")
r.write("no-session-meta")
