//! The doctor for hosts (issue 28): `diagnose(bytes, { format })` and
//! `repair(bytes, { format })`, so a viewer can say why a session will not
//! resume and offer the repaired file.

use super::{error, parse_json, text_arg, too_large, type_name};
use crate::doctor;
use crate::formats::Format;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

/// The most a whole-input doctor call takes (1 GiB): it holds the bytes, a
/// row per line and (repair) the repaired copy at once; `Diagnoser` streams
/// a file of any size.
const WHOLE_MAX: u32 = 1 << 30;

/// The file's bytes: a Uint8Array as read, or a string.
fn input(v: &JsValue, what: &str) -> Result<Vec<u8>, JsValue> {
    if v.is_instance_of::<js_sys::Uint8Array>() {
        let bytes: &js_sys::Uint8Array = v.unchecked_ref();
        if bytes.length() > WHOLE_MAX {
            return Err(too_large(
                what,
                "diagnose it with a Diagnoser (feed, then finish), which streams it",
            ));
        }
        Ok(bytes.to_vec())
    } else if v.is_string() {
        Ok(text_arg(v, what)?.into_bytes())
    } else {
        Err(error(format!("{what}: bytes must be a Uint8Array or a string, got {}", type_name(v))))
    }
}

/// `{ format }`: one of the format names, or absent (detected).
pub(super) fn format_option(options: &JsValue, what: &str) -> Result<Option<Format>, JsValue> {
    if options.is_undefined() || options.is_null() {
        return Ok(None);
    }
    if !options.is_object() {
        return Err(error(format!("{what}: options must be an object, got {}", type_name(options))));
    }
    let format = js_sys::Reflect::get(options, &"format".into()).unwrap_or(JsValue::UNDEFINED);
    if format.is_undefined() {
        return Ok(None);
    }
    let names: Vec<&str> = Format::ALL.iter().map(|f| f.as_str()).collect();
    format.as_string().and_then(|f| Format::parse(&f)).map(Some).ok_or_else(|| {
        error(format!(
            "{what}: options.format must be one of {}, got {}",
            names.join(", "),
            type_name(&format)
        ))
    })
}

/// Why a session would not resume: `{ format, resumes, problems: [{ line, kind, severity, message }] }`.
#[wasm_bindgen(js_name = diagnose, unchecked_return_type = "Diagnosis")]
pub fn diagnose(bytes: JsValue, options: JsValue) -> Result<JsValue, JsValue> {
    let what = "diagnose(bytes, options)";
    let format = format_option(&options, what)?;
    parse_json(&doctor::diagnose(&input(&bytes, what)?, format).to_json())
}

/// The repaired file in its own format and what was changed:
/// `{ bytes: Uint8Array, report: { changes, after } }`.
#[wasm_bindgen(js_name = repair, unchecked_return_type = "Repaired")]
pub fn repair(bytes: JsValue, options: JsValue) -> Result<JsValue, JsValue> {
    let what = "repair(bytes, options)";
    let format = format_option(&options, what)?;
    let r = doctor::repair(&input(&bytes, what)?, format);
    let out = js_sys::Object::new();
    let _ = js_sys::Reflect::set(&out, &"bytes".into(), &js_sys::Uint8Array::from(r.bytes.as_slice()).into());
    let _ = js_sys::Reflect::set(&out, &"report".into(), &parse_json(&r.report_json())?);
    Ok(out.into())
}
