//! The names of the session formats this crate reads: a leaf module, so the
//! state can say which format it was read from without knowing the readers
//! (`formats` detects the format and runs its reader; the journal holds it).

#![forbid(unsafe_code)]

/// The session formats this crate reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    Garuda,
    ClaudeCode,
    Codex,
    Pi,
    Gemini,
}

impl Format {
    pub const ALL: [Format; 5] =
        [Format::Garuda, Format::ClaudeCode, Format::Codex, Format::Pi, Format::Gemini];

    pub fn as_str(self) -> &'static str {
        match self {
            Format::Garuda => "garuda",
            Format::ClaudeCode => "claude-code",
            Format::Codex => "codex",
            Format::Pi => "pi",
            Format::Gemini => "gemini",
        }
    }

    pub fn parse(name: &str) -> Option<Format> {
        Format::ALL.into_iter().find(|f| f.as_str() == name)
    }
}
