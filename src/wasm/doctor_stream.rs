//! The doctor's diagnosis of a file fed in chunks (issue 28: a 1 GB Claude
//! Code session in bounded memory): `new Diagnoser({ format })`,
//! `feed(chunk)` as the file is read, `finish()` for the same `Diagnosis`
//! `diagnose` gives on the whole file. The file's bytes never cross into
//! the wasm at once, and no line's text is kept (`doctor::Streaming`).

use super::doctor::format_option;
use super::{error, parse_json, type_name};
use crate::doctor;
use crate::formats::Format;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

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
    /// UTF-8 character). A JsValue, not a `&[u8]`: the glue read
    /// `undefined.length` (a TypeError without a code) and took a number
    /// as no bytes.
    pub fn feed(
        &mut self,
        #[wasm_bindgen(unchecked_param_type = "Uint8Array")] chunk: JsValue,
    ) -> Result<(), JsValue> {
        let Some(bytes) = chunk.dyn_ref::<js_sys::Uint8Array>() else {
            return Err(error(format!(
                "Diagnoser.feed(chunk): chunk must be a Uint8Array, got {}",
                type_name(&chunk)
            )));
        };
        self.stream.feed(&bytes.to_vec());
        Ok(())
    }

    /// The diagnosis of all that was fed; the diagnoser is then ready for
    /// another file.
    #[wasm_bindgen(unchecked_return_type = "Diagnosis")]
    pub fn finish(&mut self) -> Result<JsValue, JsValue> {
        let stream = std::mem::replace(&mut self.stream, doctor::Streaming::new(self.format));
        parse_json(&stream.finish().to_json())
    }
}
