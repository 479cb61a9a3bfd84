//! Bindings: the Journal (live writes, replay, the transcript); rebuildState
//! and importSession, and the options they share with it, are in replay.rs.

use super::*;

// ---- Journal and replay ---------------------------------------------------

/// The pure in-memory journal: `write` redacts, applies and returns the line
/// to append; `feed`/`finish` replay existing text.
#[wasm_bindgen]
pub struct Journal {
    inner: CoreJournal,
    /// The transcript, built as the journal reads (see `extended_transcript`).
    transcript: crate::transcript::Transcript,
    /// `lean: true`: a Garuda journal's history forgets each message once
    /// the transcript has its entry; the host hands its lines back.
    lean: bool,
    /// The bytes `inputBuffer` lends the host to read a file into (zero
    /// copy): allocated once, never moved, so no view of it goes stale but
    /// by wasm memory growing (which detaches every view: the host takes a
    /// fresh one after each call).
    input: Vec<u8>,
    /// The bytes of `input` lent: the size the first `inputBuffer` asked
    /// for (a buffer kept from a freed journal may be longer).
    input_size: usize,
    /// `strictLoad: true`: `finish` fails closed on a malformed line.
    strict_load: bool,
}

thread_local! {
    /// The input buffer of the last journal freed, for the next one's
    /// `inputBuffer`: a usage report reads each of 1,400 files with a
    /// journal of its own, and zeroing a fresh buffer for each (up to 4 MB)
    /// was 12 ms of each reading thread's 280 on 500 MB. Wasm memory never
    /// shrinks, so keeping it costs no memory the module would give back.
    static SPARE: std::cell::Cell<Vec<u8>> = const { std::cell::Cell::new(Vec::new()) };
}

/// Buffers larger than this are not kept for the next journal.
const SPARE_MAX: usize = 8 << 20;

impl Drop for Journal {
    fn drop(&mut self) {
        let input = std::mem::take(&mut self.input);
        if input.len() <= SPARE_MAX {
            SPARE.with(|spare| {
                let kept = spare.take();
                spare.set(if kept.len() > input.len() { kept } else { input });
            });
        }
    }
}

impl Journal {
    fn corruption_of(&self) -> Option<crate::context::Corruption> {
        crate::context::corruption(self.inner.state(), self.inner.line_count())
    }
}

#[wasm_bindgen]
impl Journal {
    #[wasm_bindgen(constructor)]
    pub fn new(options: JsValue) -> Result<Journal, JsValue> {
        let mut lean = false;
        let mut strict_load = false;
        let mut inner = match redactor_of(&options, "new Journal(options)")? {
            Some(redactor) => CoreJournal::shared(redactor),
            None => CoreJournal::default(),
        };
        if options.is_object() {
            let what = "new Journal(options): options";
            let on = |name: &str| flag(&options, name, what);
            inner = inner.with_model_view(on("modelView")?).with_strict(on("strict")?);
            inner = ReadOptions::from_js(&options, what)?.apply(inner);
            if on("keepTranslation")? {
                inner = inner.keeping_translation();
            }
            if on("keepRuns")? {
                inner = inner.keeping_runs();
            }
            if on("usageOnly")? {
                inner = inner.for_usage();
            }
            lean = on("lean")?;
            strict_load = on("strictLoad")?;
            let max = js_sys::Reflect::get(&options, &"maxLineBytes".into()).unwrap_or(JsValue::UNDEFINED);
            if !max.is_undefined() {
                match max.as_f64() {
                    Some(n) if n >= 1.0 && n.fract() == 0.0 && n <= 4_294_967_295.0 => {
                        inner = inner.with_max_line(n as usize)
                    }
                    _ => {
                        return Err(error(format!(
                            "new Journal(options): options.maxLineBytes must be a whole number of bytes from 1 to 2^32 - 1, got {}",
                            type_name(&max)
                        )))
                    }
                }
            }
        }
        // With `lean`: where each fed line starts, to read it again.
        if lean {
            inner = inner.with_line_starts();
        }
        Ok(Journal {
            inner,
            transcript: Default::default(),
            lean,
            input: Vec::new(),
            input_size: 0,
            strict_load,
        })
    }

    /// Takes a record (an object, or its JSON text), redacts it, applies it,
    /// and returns the line to append (without its newline).
    #[wasm_bindgen(unchecked_return_type = "string")]
    pub fn write(&mut self, record: JsValue) -> Result<JsValue, JsValue> {
        let line = if record.is_string() {
            record
        } else if record.is_object() && !js_sys::Array::is_array(&record) {
            js_sys::JSON::stringify(&record)
                .map(JsValue::from)
                .map_err(|_| error("write(record): record could not be turned into JSON"))?
        } else {
            return Err(error(format!(
                "write(record): record must be an object or a JSON string, got {}",
                type_name(&record)
            )));
        };
        let inner = &mut self.inner;
        let written = with_js_text(&line, |text| match inner.write(text) {
            // Unchanged: hand back the caller's own string, no copy.
            Ok(std::borrow::Cow::Borrowed(_)) => Ok(None),
            Ok(std::borrow::Cow::Owned(out)) => Ok(Some(JsValue::from_str(&out))),
            Err(e) => {
                let code = if e.to_string().contains("maximum line size") {
                    "ERR_LINE_TOO_LONG"
                } else {
                    "ERR_BAD_RECORD"
                };
                Err(coded(code, format!("write(record): {e}")))
            }
        })
        .ok_or_else(|| error("write(record): record could not be turned into JSON"))??;
        Ok(written.unwrap_or(line))
    }

    /// Feeds journal text read from disk (a string, or bytes as read from
    /// the file): any chunking, no redaction.
    pub fn feed(&mut self, chunk: JsValue) -> Result<(), JsValue> {
        if let Some(text) = chunk.dyn_ref::<js_sys::JsString>() {
            feed_js_string(&mut self.inner, text, None, "feed(chunk)")?;
        } else if chunk.is_instance_of::<js_sys::Uint8Array>() {
            feed_js_bytes(&mut self.inner, chunk.unchecked_ref(), "feed(chunk)")?;
        } else {
            return Err(error(format!(
                "feed(chunk): chunk must be a string or a Uint8Array, got {}",
                type_name(&chunk)
            )));
        }
        Ok(())
    }

    /// Zero-copy input: a `Uint8Array` over `size` bytes of wasm memory the
    /// journal owns, for the host to read a file's next chunk straight into
    /// (`fs.readSync(fd, view)`), then `feedInput(n)`. `feed(bytes)` copies
    /// the host's buffer into wasm memory first; this read lands there.
    /// The buffer is allocated at the first call (or taken over from a freed
    /// journal: its bytes are undefined until read into) and never moves; a
    /// later call may ask for as much or less. Growing wasm memory (any call may)
    /// detaches the view: take a fresh one after every call.
    #[wasm_bindgen(js_name = inputBuffer)]
    pub fn input_buffer(&mut self, size: JsValue) -> Result<js_sys::Uint8Array, JsValue> {
        let size = match size.as_f64() {
            Some(n) if n >= 1.0 && n.fract() == 0.0 && n <= (1u32 << 26) as f64 => n as usize,
            _ => {
                return Err(error(format!(
                    "inputBuffer(size): size must be a whole number of bytes from 1 to 2^26, got {}",
                    type_name(&size)
                )))
            }
        };
        if self.input_size == 0 {
            // A freed journal's buffer when it is large enough: its bytes
            // are the file it read until this host reads over them.
            let spare = SPARE.with(|spare| spare.take());
            self.input = if spare.len() >= size { spare } else { vec![0; size] };
            self.input_size = size;
        } else if size > self.input_size {
            // Moving the buffer would leave an older view writing into freed memory.
            return Err(error(format!(
                "inputBuffer(size): this journal's input buffer holds {} bytes; ask for that or less",
                self.input_size
            )));
        }
        let buf = &mut self.input[..size];
        // SAFETY: the view covers memory this journal owns for its whole
        // life (the buffer never moves); JS can only write bytes into it,
        // and wasm memory growing detaches the view rather than moving it.
        Ok(unsafe { js_sys::Uint8Array::view_mut_raw(buf.as_mut_ptr(), buf.len()) })
    }

    /// Feeds the first `n` bytes of the input buffer (`inputBuffer`), as
    /// `feed` feeds a chunk of the file.
    #[wasm_bindgen(js_name = feedInput)]
    pub fn feed_input(&mut self, n: JsValue) -> Result<(), JsValue> {
        let n = match n.as_f64() {
            Some(n) if n >= 0.0 && n.fract() == 0.0 && n <= self.input_size as f64 => n as usize,
            _ => {
                return Err(error(format!(
                    "feedInput(n): n must be a whole number of bytes from 0 to the input buffer's {}, got {}",
                    self.input_size,
                    type_name(&n)
                )))
            }
        };
        self.inner.feed_bytes(&self.input[..n]);
        room("feedInput(n)")
    }

    /// Ends fed text: a last line without a newline is applied, or is a torn
    /// tail. With `strictLoad: true` it throws ERR_JOURNAL_CORRUPT when any
    /// line read was malformed or unknown (the state stays readable).
    pub fn finish(&mut self) -> Result<(), JsValue> {
        self.inner.finish();
        match (self.strict_load, self.corruption_of()) {
            (true, Some(c)) => Err(corrupt("Journal.finish() with strictLoad", &c)),
            _ => Ok(()),
        }
    }

    /// The first line a strict load refuses (`{ line, kind, message }`), or null.
    #[wasm_bindgen(getter, unchecked_return_type = "JournalCorruption | null")]
    pub fn corruption(&self) -> JsValue {
        let Some(c) = self.corruption_of() else { return JsValue::NULL };
        let out = js_sys::Object::new();
        let _ = js_sys::Reflect::set(&out, &"line".into(), &(c.line as f64).into());
        let _ = js_sys::Reflect::set(&out, &"kind".into(), &c.kind.into());
        let _ = js_sys::Reflect::set(&out, &"message".into(), &c.message.into());
        out.into()
    }

    /// With `keepTranslation`: the records read from another agent's session
    /// since the last call, as `[line, record JSON text]` pairs (the line of
    /// the file each came from); none for a Garuda journal.
    #[wasm_bindgen(unchecked_return_type = "[number, string][]")]
    pub fn translated(&mut self) -> Result<JsValue, JsValue> {
        let mut out = String::from("[");
        for (i, (line, record)) in self.inner.take_translated().iter().enumerate() {
            if i > 0 {
                out.push(',');
            }
            out.push_str(&format!("[{line},{}]", crate::json_str::str_literal(record)));
        }
        out.push(']');
        parse_json(&out)
    }

    /// The format read so far: null until a line says one.
    #[wasm_bindgen(getter, unchecked_return_type = "SessionFormat | null")]
    pub fn format(&self) -> JsValue {
        self.inner.state().format.map_or(JsValue::NULL, |f| JsValue::from_str(f.as_str()))
    }

    /// After `finish` of a `usageOnly` read: one row of 9 numbers per
    /// request, `[time ms (NaN: none), model index (usageModels), input,
    /// output, cache read, cache write, of it 1-hour, cost USD (NaN:
    /// unknown), key (Claude Code's message.id + requestId as an integer;
    /// 0: none)]`, for a report over many files to group by any period and
    /// count a copied request once. Empty unless `usageOnly`.
    #[wasm_bindgen(js_name = usageRows)]
    pub fn usage_rows(&self) -> Vec<f64> {
        self.inner.request_rows().map(|r| r.rows.clone()).unwrap_or_default()
    }

    /// The models `usageRows` names by index (JSON array text).
    #[wasm_bindgen(js_name = usageModels)]
    pub fn usage_models(&self) -> String {
        let models = self.inner.request_rows().map(|r| r.models.as_slice()).unwrap_or_default();
        crate::usage_rows::models_json(models)
    }

    #[wasm_bindgen(getter, js_name = lineCount)]
    pub fn line_count(&self) -> f64 {
        self.inner.line_count() as f64
    }

    /// The number of messages in the conversation (a number, no JSON).
    #[wasm_bindgen(getter, js_name = messageCount)]
    pub fn message_count(&self) -> f64 {
        self.inner.state().messages.len() as f64
    }

    /// The number of warnings so far, kept or only counted (a number, no JSON).
    #[wasm_bindgen(getter, js_name = warningCount)]
    pub fn warning_count(&self) -> f64 {
        self.inner.state().warning_total() as f64
    }

    #[wasm_bindgen(unchecked_return_type = "SessionState")]
    pub fn state(&self) -> Result<JsValue, JsValue> {
        parse_json(&self.inner.state().to_json())
    }

    /// The figures an agent reads every turn (usage, cost, context size,
    /// message count, model, ...) without the messages: O(1) of the
    /// conversation.
    #[wasm_bindgen(unchecked_return_type = "JournalFigures")]
    pub fn figures(&self) -> Result<JsValue, JsValue> {
        parse_json(&crate::json::figures_json(self.inner.state()))
    }

    /// The messages from index `from` on, with their origins: a host that
    /// keeps its own copy asks only for what is new.
    #[wasm_bindgen(js_name = messagesFrom, unchecked_return_type = "{ messages: Message[]; messageOrigins: MessageOrigin[] }")]
    pub fn messages_from(
        &self,
        #[wasm_bindgen(unchecked_param_type = "number")] from: JsValue,
    ) -> Result<JsValue, JsValue> {
        // A JsValue, not an f64: the glue's number conversion threw a
        // TypeError without a code for a BigInt or a Symbol.
        let from = from.as_f64().unwrap_or(f64::NAN);
        if !(from >= 0.0 && from.fract() == 0.0) {
            return Err(error("messagesFrom(from): from must be a whole number of messages, 0 or more"));
        }
        parse_json(&crate::json::messages_from_json(self.inner.state(), from as usize))
    }

    /// Only the messages, for hosts that need no more.
    #[wasm_bindgen(unchecked_return_type = "Message[]")]
    pub fn messages(&self) -> Result<JsValue, JsValue> {
        parse_json(&self.inner.state().messages_json())
    }

    /// The number of messages the model gets (`viewFrom`): the conversation
    /// with the seed's rules applied to what came before the latest start,
    /// resume or model record.
    #[wasm_bindgen(getter, js_name = viewCount)]
    pub fn view_count(&mut self) -> f64 {
        let (view, state) = self.inner.model_view();
        view.len(state) as f64
    }

    /// Changes whenever the view changed other than by one message appended
    /// at its end (a resume, a model switch, a compaction, an undo or redo):
    /// a host that keeps the messages as objects fetches them again then.
    #[wasm_bindgen(getter, js_name = viewGeneration)]
    pub fn view_generation(&mut self) -> f64 {
        self.inner.model_view().0.generation() as f64
    }

    /// The messages the model gets, from index `from` on: what the API
    /// accepts after a resume or a model switch (spec §6), owned by the core.
    #[wasm_bindgen(js_name = viewFrom, unchecked_return_type = "Message[]")]
    pub fn view_from(
        &mut self,
        #[wasm_bindgen(unchecked_param_type = "number")] from: JsValue,
    ) -> Result<JsValue, JsValue> {
        let from = from.as_f64().unwrap_or(f64::NAN);
        if !(from >= 0.0 && from.fract() == 0.0) {
            return Err(coded(
                "ERR_INVALID_ARG",
                "viewFrom(from): from must be a whole number of messages, 0 or more",
            ));
        }
        let (view, state) = self.inner.model_view();
        parse_json(&view.json_from(state, from as usize))
    }

    /// What the view's repair changed in the messages before the latest
    /// start, resume or model record.
    #[wasm_bindgen(js_name = viewReport, unchecked_return_type = "RepairReport")]
    pub fn view_report(&mut self) -> Result<JsValue, JsValue> {
        parse_json(&self.inner.model_view().0.report().to_json())
    }

    /// The number of tool calls of the view's last assistant message that
    /// nothing answers yet (kept as records are written: no JSON, no walk).
    #[wasm_bindgen(getter, js_name = openToolCalls)]
    pub fn open_tool_calls(&mut self) -> f64 {
        self.inner.model_view().0.open_calls().len() as f64
    }

    /// The synthetic `tool_results` record that answers the open tool
    /// calls, timed `now`, or null: O(1) when nothing is open.
    #[wasm_bindgen(js_name = closeOpenToolCalls, unchecked_return_type = "JournalRecord | null")]
    pub fn close_open_tool_calls(&mut self, now: JsValue) -> Result<JsValue, JsValue> {
        let open = self.inner.model_view().0.open_calls();
        if open.is_empty() {
            return Ok(JsValue::NULL);
        }
        let now = now.as_string().ok_or_else(|| {
            coded(
                "ERR_INVALID_ARG_TYPE",
                "closeOpenToolCalls(now): now must be the record's time (an ISO string)",
            )
        })?;
        let pairs: Vec<(&str, &str)> = open.iter().map(|(a, b)| (a.as_str(), b.as_str())).collect();
        match resume::closing_record(&pairs, &now) {
            Some(record) => parse_json(&record),
            None => Ok(JsValue::NULL),
        }
    }

    /// The snapshot an undo would restore (`"undo"`), or the one the last
    /// undo took back (`"redo"`): `{ tree, prompt, messages, after? }`, or
    /// null when there is none. What /undo restores, without a state().
    #[wasm_bindgen(js_name = snapshotTop, unchecked_return_type = "{ tree?: Json; prompt?: Json; messages: number; after?: Json } | null")]
    pub fn snapshot_top(&self, which: JsValue) -> Result<JsValue, JsValue> {
        let state = self.inner.state();
        let (snapshot, after) = match which.as_string().as_deref() {
            Some("undo") => (state.undo.last(), None),
            Some("redo") => match state.redo.last() {
                Some(u) => (Some(&u.snapshot), u.after.as_deref()),
                None => (None, None),
            },
            _ => {
                return Err(coded(
                    "ERR_INVALID_ARG",
                    "snapshotTop(which): which must be \"undo\" or \"redo\"",
                ))
            }
        };
        let Some(snapshot) = snapshot else { return Ok(JsValue::NULL) };
        let mut out = format!(r#"{{"messages":{}"#, snapshot.messages);
        for (key, value) in
            [("tree", snapshot.tree.as_deref()), ("prompt", snapshot.prompt.as_deref()), ("after", after)]
        {
            if let Some(v) = value {
                out.push_str(&format!(r#","{key}":{v}"#));
            }
        }
        out.push('}');
        parse_json(&out)
    }

    /// What resume would change in this journal's conversation (the report
    /// of `repairForResume`, without handing the messages over).
    #[wasm_bindgen(js_name = resumeReport, unchecked_return_type = "RepairReport")]
    pub fn resume_report(&self) -> Result<JsValue, JsValue> {
        parse_json(&resume::resume(self.inner.state(), &resume::ResumeOptions::default()).report.to_json())
    }

    /// The number of transcript entries (a Journal made with `history: true`).
    #[wasm_bindgen(getter, js_name = transcriptLength)]
    pub fn transcript_length(&mut self) -> f64 {
        self.extended_transcript().len() as f64
    }

    /// Transcript entries `from..to` (all by default): the index a reader
    /// lists, built by the core once per change (`history: true` keeps what
    /// it needs; without it, only warnings are entries).
    #[wasm_bindgen(unchecked_return_type = "TranscriptEntry[]")]
    pub fn transcript(&mut self, from: JsValue, to: JsValue) -> Result<JsValue, JsValue> {
        parse_json(&self.transcript_json(from, to).map_err(|_| {
            coded("ERR_INVALID_ARG", "transcript(from, to): from and to must be whole numbers, 0 or more")
        })?)
    }

    /// `transcript(from, to)` as JSON text: a worker hands it to its page as
    /// one string (a copy), not as objects (a structured clone of each).
    #[wasm_bindgen(js_name = transcriptJson)]
    pub fn transcript_json(&mut self, from: JsValue, to: JsValue) -> Result<String, JsValue> {
        let (from, to) = range_of(&from, &to, "transcriptJson")?;
        Ok(self.built_transcript().index_json(from, to))
    }

    /// The entries read so far, `from..to`, as UTF-8 JSON bytes, before
    /// what needs the whole journal (fates, tool pairs, thinking on resume)
    /// is settled: a worker transfers them to its page while the journal is
    /// still being read (bytes, not a string: decoding 25 MB of JSON into a
    /// string took the worker 60 ms of a 100 MB load, and the page decodes
    /// as it parses), and `transcriptPatchJson` settles them at the end.
    #[wasm_bindgen(js_name = transcriptDraftJson)]
    pub fn transcript_draft_json(&mut self, from: JsValue, to: JsValue) -> Result<Vec<u8>, JsValue> {
        let (from, to) = range_of(&from, &to, "transcriptDraftJson")?;
        Ok(self.extended_transcript().index_json(from, to).into_bytes())
    }

    /// What settling decided of entries `from..to` (fate, tools,
    /// thinkingFate, droppedWhy, underCalls) in columns (`TranscriptPatch`,
    /// `Transcript::patch_json`), to set on entries taken with
    /// `transcriptDraftJson`; null when settling moved entries, and they
    /// must be taken again.
    #[wasm_bindgen(js_name = transcriptPatchJson)]
    pub fn transcript_patch_json(&mut self, from: JsValue, to: JsValue) -> Result<Option<String>, JsValue> {
        let (from, to) = range_of(&from, &to, "transcriptPatchJson")?;
        Ok(self.built_transcript().patch_json(from, to))
    }

    /// What a summary says of the whole transcript without taking every
    /// entry (`TranscriptNotes`): the indices of the first 50 warning
    /// entries (a summary's), how many there are, and the subagent reports
    /// the entries hold.
    #[wasm_bindgen(js_name = transcriptNotes, unchecked_return_type = "TranscriptNotes")]
    pub fn transcript_notes(&mut self) -> Result<JsValue, JsValue> {
        parse_json(&self.built_transcript().notes_json(50))
    }

    /// With `keepRuns`, after `finish`: the run the Task call `toolUseId`
    /// started inside this Claude Code file (`sidechain-<toolUseId>`), read
    /// from what this read kept, as `new Journal({ run: toolUseId })` reads
    /// it from the whole file (with this journal's options); undefined when
    /// there is no such run. The file is not read again.
    #[wasm_bindgen(js_name = runJournal)]
    pub fn run_journal(&mut self, tool_use_id: JsValue) -> Result<Option<Journal>, JsValue> {
        let Some(id) = tool_use_id.as_string() else {
            return Err(coded(
                "ERR_INVALID_ARG",
                format!("runJournal(toolUseId): toolUseId must be a string, got {}", type_name(&tool_use_id)),
            ));
        };
        Ok(self.inner.run_journal(&id).map(|inner| Journal {
            inner,
            transcript: Default::default(),
            lean: false,
            input: Vec::new(),
            input_size: 0,
            strict_load: self.strict_load,
        }))
    }

    /// `[start, end)`: the bytes of line `line` (1-based, without its
    /// newline) in what was fed, for reading it again; a Journal made with
    /// `lean: true` keeps them. Undefined otherwise, or for a line not fed.
    #[wasm_bindgen(js_name = lineRange, unchecked_return_type = "[number, number] | undefined")]
    pub fn line_range(&self, line: JsValue) -> Result<JsValue, JsValue> {
        let Some(n) = whole(&line, 1.0) else {
            return Err(coded("ERR_INVALID_ARG", "lineRange(line): line must be a whole number, 1 or more"));
        };
        Ok(match self.inner.line_range(n) {
            Some((a, b)) => js_sys::Array::of2(&(a as f64).into(), &(b as f64).into()).into(),
            None => JsValue::UNDEFINED,
        })
    }

    /// The journal lines `transcriptEntry(index, lines)` needs (`lean: true`):
    /// the entry's own and its calls' results', when the history forgot them.
    #[wasm_bindgen(js_name = transcriptLinesFor)]
    pub fn transcript_lines_for(&mut self, index: JsValue) -> Result<Vec<f64>, JsValue> {
        let Some(i) = whole(&index, 0.0) else {
            return Err(coded(
                "ERR_INVALID_ARG",
                "transcriptLinesFor(index): index must be a whole number, 0 or more",
            ));
        };
        self.built_transcript();
        Ok(self.transcript.lines_for(self.inner.state(), index_of(i)).into_iter().map(|l| l as f64).collect())
    }

    /// One transcript entry whole (its message as typed parts), or null.
    /// `lines`: `[line number, text]` pairs of the lines `transcriptLinesFor`
    /// named (a lean journal forgot their messages).
    #[wasm_bindgen(js_name = transcriptEntry, unchecked_return_type = "TranscriptEntryDetail | null")]
    pub fn transcript_entry(
        &mut self,
        index: JsValue,
        #[wasm_bindgen(unchecked_param_type = "[number, string][] | undefined")] lines: JsValue,
    ) -> Result<JsValue, JsValue> {
        let Some(i) = whole(&index, 0.0) else {
            return Err(coded(
                "ERR_INVALID_ARG",
                "transcriptEntry(index): index must be a whole number, 0 or more",
            ));
        };
        let mut given: Vec<(u64, String)> = Vec::new();
        if !lines.is_undefined() && !lines.is_null() {
            let bad = || {
                coded(
                    "ERR_INVALID_ARG",
                    "transcriptEntry(index, lines): lines must be [line number, text] pairs",
                )
            };
            let array = lines.dyn_ref::<js_sys::Array>().ok_or_else(bad)?;
            for pair in array.iter() {
                let pair = pair.dyn_ref::<js_sys::Array>().ok_or_else(bad)?;
                let line = whole(&pair.get(0), 1.0).ok_or_else(bad)?;
                let text = pair.get(1).as_string().ok_or_else(bad)?;
                given.push((line, text));
            }
        }
        let given: Vec<(u64, &str)> = given.iter().map(|(l, t)| (*l, t.as_str())).collect();
        self.built_transcript();
        match self.transcript.entry_json_with(self.inner.state(), index_of(i), &given) {
            Some(json) => parse_json(&json),
            None => Ok(JsValue::NULL),
        }
    }

    /// The transcript entries whose text holds `query` (ASCII case ignored).
    #[wasm_bindgen(js_name = searchTranscript)]
    pub fn search_transcript(&mut self, query: JsValue) -> Result<Vec<u32>, JsValue> {
        let Some(q) = query.as_string() else {
            return Err(coded("ERR_INVALID_ARG", "searchTranscript(query): query must be a string"));
        };
        self.built_transcript();
        Ok(self.transcript.search(self.inner.state(), &q))
    }
}

impl Journal {
    /// The transcript, extended by what the journal read since (entries
    /// are built while a journal is read in chunks) and settled.
    fn built_transcript(&mut self) -> &crate::transcript::Transcript {
        self.extended_transcript();
        self.transcript.settle(self.inner.state());
        &self.transcript
    }

    fn extended_transcript(&mut self) -> &mut crate::transcript::Transcript {
        self.transcript.extend(self.inner.state());
        // Only a Garuda journal's lines hold its messages as they are kept;
        // another agent's are translated, so their history stays whole.
        if self.lean && self.inner.state().format == Some(crate::formats::Format::Garuda) {
            self.transcript.forget_messages(self.inner.history_mut());
        }
        &mut self.transcript
    }
}

/// `from` and `to` of a transcript range: whole numbers, 0 and all by default.
fn range_of(from: &JsValue, to: &JsValue, what: &str) -> Result<(usize, usize), JsValue> {
    let bound = |v: &JsValue, name: &str, default: usize| match whole(v, 0.0) {
        Some(n) => Ok(index_of(n)),
        None if v.is_undefined() => Ok(default),
        None => Err(coded(
            "ERR_INVALID_ARG",
            format!("{what}(from, to): {name} must be a whole number, 0 or more"),
        )),
    };
    Ok((bound(from, "from", 0)?, bound(to, "to", usize::MAX)?))
}

/// A JS number that is a whole number, `min` or more (an index, a line number).
fn whole(v: &JsValue, min: f64) -> Option<u64> {
    v.as_f64().filter(|n| *n >= min && n.fract() == 0.0).map(|n| n as u64)
}

/// An index past what wasm32 can address is past every end, not a wrap.
fn index_of(n: u64) -> usize {
    usize::try_from(n).unwrap_or(usize::MAX)
}

/// ERR_JOURNAL_CORRUPT, naming the line (also as `line` and `kind` on the error).
pub(super) fn corrupt(what: &str, c: &crate::context::Corruption) -> JsValue {
    let e = coded("ERR_JOURNAL_CORRUPT", format!("{what}: line {} is {}: {}", c.line, c.kind, c.message));
    let _ = js_sys::Reflect::set(&e, &"line".into(), &(c.line as f64).into());
    let _ = js_sys::Reflect::set(&e, &"kind".into(), &c.kind.into());
    e
}
