//! The doctor's diagnosis of a file fed in chunks (issue 28: a 1 GB Claude
//! Code session in bounded memory): `new Diagnoser({ format })`,
//! `feed(chunk)` as the file is read, `finish()` for the same `Diagnosis`
//! `diagnose` gives on the whole file. The file's bytes never cross into
//! the wasm at once, and no line's text is kept (`doctor::Streaming`).

use super::doctor::format_option;
use super::parse_json;
use crate::doctor;
use crate::formats::Format;
use wasm_bindgen::prelude::*;

#[wasm_bindgen]
pub struct Diagnoser {
    format: Option<Format>,
    stream: doctor::Streaming,
}

#[wasm_bindgen]
impl Diagnoser {
    #[wasm_bindgen(constructor)]
    pub fn new(options: JsValue) -> Result<Diagnoser, JsValue> {
        let format = format_option(&options, "new Diagnoser(options)")?;
        Ok(Diagnoser { format, stream: doctor::Streaming::new(format) })
    }

    /// The next bytes of the file (a chunk may end anywhere, even inside a
    /// UTF-8 character).
    pub fn feed(&mut self, chunk: &[u8]) {
        self.stream.feed(chunk);
    }

    /// The diagnosis of all that was fed; the diagnoser is then ready for
    /// another file.
    #[wasm_bindgen(unchecked_return_type = "Diagnosis")]
    pub fn finish(&mut self) -> Result<JsValue, JsValue> {
        let stream = std::mem::replace(&mut self.stream, doctor::Streaming::new(self.format));
        parse_json(&stream.finish().to_json())
    }
}
