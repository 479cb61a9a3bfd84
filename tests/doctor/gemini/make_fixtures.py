#!/usr/bin/env python3
"""Writes the doctor's hand-made Gemini CLI sessions (tests/doctor/gemini/),
one per shape, messages as Gemini CLI's ChatRecordingService writes them
(fields and values after ../shared/peers/gemini): the older one-document
`session-*.json` (JSON.stringify(conversation, null, 2)) and the newer
JSONL (a metadata line, one message a line, `{"$set":...}` and
`{"$rewindTo":...}` lines). A tool call carries its result inside its
record (`toolCalls[].result`, an array of functionResponse parts).

Run it again only to change a fixture; the expected reports and repaired
files are rewritten by `DOCTOR_BLESS=1 cargo test --test doctor_pi_gemini`
and must be read before they are committed."""
import json, os

HERE = os.path.dirname(os.path.abspath(__file__))
SID = "5b959dae-8655-4cd1-b10f-720b8c336ea2"
HASH = "0b7dfb1274ee51b336813b17f2ddab1f56b6591f723e7314126bbd502c69e9c9"
TOKENS = {"input": 11855, "output": 81, "cached": 0, "thoughts": 0, "tool": 0, "total": 11936}


def t(n):
    return "2026-11-20T10:00:%02d.000Z" % n


def user(n, text):
    return {"id": "msg-user-%d" % n, "timestamp": t(n), "type": "user", "content": [{"text": text}]}


def record(cid, name, args, output, status="success"):
    r = {"id": cid, "name": name, "args": args}
    if output is not None:
        r["result"] = [{"functionResponse": {"id": cid, "name": name, "response": {"output": output}}}]
    r.update({"status": status, "timestamp": t(30), "displayName": name, "description": json.dumps(args),
              "renderOutputAsMarkdown": False})
    return r


def gemini(n, text, calls=None, content=None):
    m = {"id": "msg-gemini-%d" % n, "timestamp": t(n), "type": "gemini", "content": text if content is None else content,
         "thoughts": [{"subject": "Planning", "description": "List, then read.", "timestamp": t(n)}],
         "tokens": TOKENS, "model": "gemini-3-pro-preview"}
    if calls is not None:
        m["toolCalls"] = calls
    return m


def document(name, messages):
    doc = {"sessionId": SID, "projectHash": HASH, "startTime": t(0), "lastUpdated": t(59), "messages": messages}
    with open(os.path.join(HERE, name + ".json"), "w") as f:
        f.write(json.dumps(doc, ensure_ascii=False, indent=2))


def jsonl(name, records):
    head = {"sessionId": SID, "projectHash": HASH, "startTime": t(0), "lastUpdated": t(0), "kind": "main"}
    with open(os.path.join(HERE, name + ".jsonl"), "w") as f:
        for r in [head] + records:
            f.write(json.dumps(r, ensure_ascii=False, separators=(",", ":")) + "\n")


ls = {"dir_path": "."}
# A crash while the tool ran (gemini-cli#1690): its record has no result;
# Gemini CLI sends the call with no response and the API refuses it.
document("orphan-crash", [
    user(1, "list the files and read the README"),
    gemini(2, "", [record("list_directory-1764625554423-6b5d2c6179cc4", "list_directory", ls,
                          "Directory listing for /w:\nREADME.md\nsrc/"),
                   record("read_file-1764625560264-22036414d7d65", "read_file", {"file_path": "README.md"}, None,
                          "executing")]),
    user(3, "are you still there?"),
    gemini(4, "Yes: the README says hello."),
])

# The JSONL file of the same crash; the message line was written twice
# while it streamed (the second copy is the one Gemini CLI keeps).
first = gemini(2, "", [record("run_shell_command-1", "run_shell_command", {"command": "npm test"}, None, "scheduled")])
again = gemini(2, "", [record("run_shell_command-1", "run_shell_command", {"command": "npm test"}, None, "executing")])
jsonl("orphan-crash-jsonl", [
    user(1, "run the tests"),
    {"$set": {"lastUpdated": t(1)}},
    first,
    again,
    user(3, "it hung; go on"),
    gemini(4, "The tests did not finish."),
])

# A crash before a rewind (`/rewind`): the message with the open call was
# rewound away, so nothing of it is sent: the file resumes and stays.
jsonl("rewound", [
    user(1, "run the tests"),
    gemini(2, "", [record("run_shell_command-1", "run_shell_command", {"command": "npm test"}, None, "executing")]),
    {"$rewindTo": "msg-gemini-2"},
    gemini(5, "Let us start over: which tests?"),
])

# A modern message (its calls are functionCall parts of its content): a
# call with no record, and a record whose result answers no call of it.
call = {"functionCall": {"id": "read_file-7", "name": "read_file", "args": {"file_path": "a.txt"}},
        "thoughtSignature": "CiQB0e2Kb1" + "x" * 30}
jsonl("modern-pairs", [
    user(1, "read a.txt"),
    gemini(2, "", [record("read_file-9", "read_file", {"file_path": "b.txt"}, "b")], content=[call]),
    user(3, "well?"),
    gemini(4, "a.txt is empty."),
])
