#!/usr/bin/env node
// garuda-session: inspect Garuda journals from a terminal. This file only
// dispatches: each command, its options and its help are in
// commands/<command>.cjs (what they share is in cli.cjs).
// Exit codes: 0 ok; 1 problems found; 2 bad usage or unreadable input.
"use strict";

const { UsageError, parseArgs, redactorFor, known, session } = require("./cli.cjs");

const USAGE = `usage: garuda-session <command> ...
  replay <file> [--json]                      summary: messages, usage, cost, warnings
  usage [paths...] [--by day|week|month|session|block|model] [--since D] [--until D] [--json] (usage --help)
                                              tokens and cost of every session under the paths
                                              (default: the folders of Claude Code, Codex, pi, Gemini CLI and Garuda;
                                              ccusage's names too: usage daily|weekly|monthly|session|blocks|statusline)
  import <file> -o <out.jsonl>                another agent's session as a Garuda journal (redacted)
  redact <file> [-o out | --in-place] [--rules rules.json]   a redacted copy, with counts per rule
  resume <file> [--model m] [--thinking on|off]   resume messages (stdout), repair report (stderr)
  check <file> [--model m] [--thinking on|off] [--strict]
                                                  exit 1 when the API would refuse the history
                                                  (--strict: or when a line is malformed or unknown)
  list <dir>                                  the /sessions table of a sessions folder
  export <file> --format md|html [-o out] [--rules rules.json] [--live] [--no-redact]
                                              the whole transcript, readable and redacted
  export <folder> --format md|html -o <out folder>
                                              every session of a folder, a file each
                                              (--live: only what the model sees now)
  serve <dir> [--port n] [--no-redact]        browse a sessions folder on http://127.0.0.1 (other agents' files redacted)
  statusline                                  Claude Code's status line hook (its JSON on stdin, one line out)
  doctor <file|folder> [--fix -o out | --in-place] [--redact] [--json]
                                              why a session will not resume (exit 1), each problem with its line;
                                              --fix writes a repaired copy in the agent's own format
Every command reads Garuda journals and Claude Code, Codex, pi and Gemini CLI sessions,
detecting the format; --format garuda|claude-code|codex|pi|gemini forces it (export: --from).
--prices prices.json adds or replaces model prices ({"models": {"<model>": {"input", "output", ...}}}).
--vertex-region R (or CLOUD_ML_REGION, as Claude Code reads it): Vertex AI responses went to region R, whose
rates are 10% over the global endpoint's for the models Anthropic prices so (global: the global endpoint).
Sessions on Redis (RedisSessionStore): give --redis URL [--prefix p] to replay, list, usage,
export and serve, with a session id where a file goes (list and serve take no folder).`;

const DOCTOR_HELP = `usage: garuda-session doctor <file|folder> [--fix -o out | --in-place] [--redact] [--rules rules.json] [--json] [--format f]
  why a session will not resume (exit 1), each problem with its line;
  --fix writes a repaired copy in the agent's own format (-o), or replaces
  the file, keeping the original as .bak (--in-place: the exit is then the
  replaced file's); a named file in no known format is refused (exit 2)`;

/** name -> module file (loaded on use: \`usage\` does not load the viewer's bundle). */
const COMMANDS = {
  replay: "replay",
  redact: "redact",
  resume: "resume",
  check: "check",
  list: "list",
  export: "export",
  serve: "serve",
  usage: "usage",
  import: "import",
  statusline: "statusline",
};

/** The command's module: `{ help, run(args) }`. */
function commandOf(name) {
  if (name === "doctor") return { help: DOCTOR_HELP, run: (a) => require("./commands/doctor.cjs")(a, { session, parseArgs, UsageError, redactorFor, known }) };
  if (!Object.hasOwn(COMMANDS, name)) return null;
  return require(`./commands/${COMMANDS[name]}.cjs`);
}

const version = () => `garuda-session ${require("../package.json").version}\n`;

async function main(argv) {
  const [command, ...rest] = argv;
  if (command === undefined) {
    // No command is bad usage (exit 2, as the README says): the usage goes to stderr.
    process.stderr.write(USAGE + "\n");
    return 2;
  }
  if (command === "--help" || command === "-h" || command === "help") {
    // `help <command>`: that command's help.
    const asked = command === "help" && rest[0] !== undefined ? commandOf(rest[0]) : null;
    process.stdout.write((asked ? asked.help : USAGE) + "\n");
    return 0;
  }
  if (command === "--version" || command === "-V" || command === "-v") {
    process.stdout.write(version());
    return 0;
  }
  const cmd = commandOf(command);
  if (!cmd) {
    process.stderr.write(`garuda-session: unknown command "${command}" (commands: ${[...Object.keys(COMMANDS), "doctor"].sort().join(", ")}; garuda-session --help)\n`);
    return 2;
  }
  // --help anywhere before a lone `--` is a question, not an option.
  const options = rest.indexOf("--") < 0 ? rest : rest.slice(0, rest.indexOf("--"));
  if (options.includes("--help") || options.includes("-h")) {
    process.stdout.write(cmd.help + "\n");
    return 0;
  }
  if (options.includes("--version")) {
    process.stdout.write(version());
    return 0;
  }
  try {
    return await cmd.run(rest);
  } catch (e) {
    // A usage error names what was wrong, and where the command's help is (not the whole help).
    const hint = e instanceof UsageError ? ` (garuda-session ${command} --help)` : "";
    // A folder where a file goes (`-o` naming one): said so, not as Node's EISDIR.
    const message = e.code === "EISDIR" ? `${e.path ?? "the path given"} is a folder: give a file` : e.message;
    process.stderr.write(`garuda-session ${command}: ${message}${hint}\n`);
    return 2;
  }
}

// `garuda-session export x --format md | head` closes the pipe early: not
// an error. Said to the stream when a command first asks for it: creating
// it is a few ms that the fast answers (cli.cjs writeOut) do without.
const stdoutOf = Object.getOwnPropertyDescriptor(process, "stdout").get;
Object.defineProperty(process, "stdout", {
  configurable: true,
  enumerable: true,
  get() {
    const stream = stdoutOf.call(process);
    Object.defineProperty(process, "stdout", { configurable: true, enumerable: true, writable: false, value: stream });
    stream.on("error", (e) => {
      if (e.code === "EPIPE") process.exit(0);
      throw e;
    });
    return stream;
  },
});

main(process.argv.slice(2)).then((code) => {
  if (code !== null) process.exitCode = code;
});

