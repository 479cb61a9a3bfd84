//! The Redactor over code nobody here wrote, both ways.
//!
//! Minified JavaScript is what an agent reads back when it opens a bundle
//! (`cat dist/cli.js`, a grep through `node_modules`): the Claude Code 2.0.30
//! bundle that `.ci/install-agents` installs for the doctor's tests, cut
//! into statements, must come back almost byte for byte. Before the
//! Redactor knew minified code (a `,` with no blank after it ending a value,
//! `Z1` as a minifier's name, `a.Key=a.Token=void 0` as a chain), 919 of its
//! 91,965 statements came back changed; the changes left are listed.
//!
//! And the other way: made values under secret names in code and prose
//! positions (the contexts code is judged in, not the data contexts of
//! `tests/smoke/redaction-at-rest.test.mjs`), from a fixed-seed generator,
//! must go. A run of six of the value's characters left in the output
//! counts as a leak.

#[path = "support/rng.rs"]
mod rng;

use garuda_session::Redactor;
use rng::Rng;
use std::path::Path;

const BUNDLE: &str = ".ci/agents/clis/node_modules/claude-code-2.0.30/cli.js";

/// Statements of minified code: lines, cut again at each `;` before a letter.
fn statements(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    for line in text.split('\n') {
        let b = line.as_bytes();
        let mut s = 0;
        for i in 0..b.len() {
            if b[i] == b';' && b.get(i + 1).is_some_and(u8::is_ascii_alphabetic) {
                out.push(&line[s..i]);
                s = i + 1;
            }
        }
        out.push(&line[s..]);
    }
    out
}

#[test]
fn a_minified_bundle_comes_back() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(BUNDLE);
    let Ok(text) = std::fs::read_to_string(&path) else {
        eprintln!("skipped: {BUNDLE} is absent (bash .ci/install-agents installs it)");
        return;
    };
    let r = Redactor::default();
    let all = statements(&text);
    let changed: Vec<(&str, String)> =
        all.iter().filter_map(|s| Some((*s, r.redact(s).into_owned())).filter(|(s, out)| s != out)).collect();
    for (before, after) in &changed {
        let i = before.bytes().zip(after.bytes()).take_while(|(a, b)| a == b).count();
        let from = (0..=i.saturating_sub(50)).rev().find(|&k| before.is_char_boundary(k)).unwrap_or(0);
        let to = (i + 40..after.len()).find(|&k| after.is_char_boundary(k)).unwrap_or(after.len());
        println!("  {:?}", &after[from..to]);
    }
    println!("{BUNDLE}: {} statements, {} changed", all.len(), changed.len());
    assert!(all.len() > 90_000, "the bundle cut into {} statements", all.len());
    // 35 when this was written: example values in help text (`-H "X-Api-Key:
    // abc123"`), ternaries and optional chains under a secret's name
    // (`credentials:w?F:void 0`), quoted words under `PASSWORD`.
    assert!(changed.len() <= 40, "{} statements of minified code came back changed", changed.len());
}

const LETTERS: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

/// (alphabet, its characters, at most this many leaks of `PER_CELL` in any
/// one position). When this was written the worst position left 28 letter
/// values (before: all 1,000 of them, bare in prose or a comparison), 3
/// alphanumeric ones (before: 76) and 75 with symbols (before: 87). The
/// minified member (`this.password=V;this.user=B`) leaked none before only
/// because its value ran to the line's end, code and all.
const ALPHABETS: &[(&str, &[u8], usize)] = &[
    ("letters", LETTERS, 30),
    ("alnum", b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789", 5),
    ("symbols", b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789!%*+-.=?@^_~", 80),
    // Brackets and `;<>` (`the password: TGQXP}fa+;N>Upjt` leaked from the
    // `}` on): 509 to 550 leaks in prose, a bare assignment and a bare
    // comparison before a value went on past a `)`, `]` or `}` that closes
    // nothing, 244 to 321 after. What is left stops at `<` or `>` (which end
    // a value in types and markup: `Option<String>`, `{todo.id}>`), and the
    // minified member (528) is cut at `;` by design (`;this.user=B`).
    ("brackets", b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+;<>)]}", 530),
];

const PER_CELL: usize = 1000;

#[allow(clippy::type_complexity)]
const POSITIONS: &[(&str, fn(&str) -> String)] = &[
    ("a JS constant", |v| format!("const apiKey = \"{v}\";")),
    ("a JS object", |v| format!("  apiKey: '{v}',")),
    ("minified", |v| format!("let G={{apiKey:\"{v}\",baseURL:A}}")),
    ("a bare assignment in prose", |v| format!("then set api_key={v} and retry")),
    ("a member, minified", |v| format!("this.password={v};this.user=B")),
    ("a bare comparison", |v| format!("if token == {v}")),
    ("a quoted comparison", |v| format!("if (password === \"{v}\") {{")),
    ("a keyword argument", |v| format!("client = OpenAI(api_key=\"{v}\")")),
    ("prose", |v| format!("the password: {v}")),
];

#[test]
fn made_values_in_code_positions_go() {
    let r = Redactor::default();
    let mut failures = Vec::new();
    for (name, alphabet, most) in ALPHABETS {
        for (k, (position, carrier)) in POSITIONS.iter().enumerate() {
            let mut rng = Rng(0x9e37_79b9_7f4a_7c15 ^ ((k as u64 + 1) * 0x1000_0000_01b3));
            let mut leaks = Vec::new();
            for _ in 0..PER_CELL {
                let v = format!("{}{}", rng.pick(LETTERS, 1), rng.pick(alphabet, 15));
                let text = carrier(&v);
                let out = r.redact(&text);
                let rest = text.replacen(&v, "", 1);
                if (0..=v.len() - 6).any(|i| out.contains(&v[i..i + 6]) && !rest.contains(&v[i..i + 6])) {
                    leaks.push(out.into_owned());
                }
            }
            println!("{name:8} {position:28} {:4} of {PER_CELL} {:?}", leaks.len(), leaks.first());
            if leaks.len() > *most {
                failures.push(format!("{name} in {position}: {} leaks, at most {most}", leaks.len()));
            }
        }
    }
    assert!(failures.is_empty(), "{failures:#?}");
}
