//! A server-sent-events decoder fed with arbitrary byte chunks.
//!
//! Lines end in `\n`, `\r\n` or `\r`; `data:` lines accumulate, `event:` names the event, a
//! blank line dispatches, lines starting with `:` are comments (OpenRouter sends
//! `: OPENROUTER PROCESSING` keep-alives). Bytes are buffered until a line is complete, so a
//! UTF-8 character split across chunks decodes correctly.

/// One dispatched event.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct SseEvent {
    /// The `event:` field; empty when absent (OpenAI sends none).
    pub event: String,
    /// The `data:` lines joined with `\n`.
    pub data: String,
}

/// Incremental decoder state.
#[derive(Debug, Default)]
pub(crate) struct SseDecoder {
    buffer: Vec<u8>,
    event: String,
    data: Vec<String>,
    has_data: bool,
    /// The previous chunk ended in `\r`; a `\n` starting this one belongs to it.
    pending_cr: bool,
}

impl SseDecoder {
    /// Feeds bytes; returns the events completed by them.
    pub fn push(&mut self, bytes: &[u8]) -> Vec<SseEvent> {
        let mut events = Vec::new();
        let mut bytes = bytes;
        if self.pending_cr {
            self.pending_cr = false;
            if bytes.first() == Some(&b'\n') {
                bytes = &bytes[1..];
            }
        }
        let mut start = 0;
        let mut i = 0;
        while i < bytes.len() {
            let b = bytes[i];
            if b == b'\n' || b == b'\r' {
                self.buffer.extend_from_slice(&bytes[start..i]);
                let line = std::mem::take(&mut self.buffer);
                self.line(&String::from_utf8_lossy(&line), &mut events);
                if b == b'\r' {
                    if i + 1 < bytes.len() {
                        if bytes[i + 1] == b'\n' {
                            i += 1;
                        }
                    } else {
                        self.pending_cr = true;
                    }
                }
                start = i + 1;
            }
            i += 1;
        }
        self.buffer.extend_from_slice(&bytes[start..]);
        events
    }

    /// Ends the input: an event whose closing blank line never came is still returned (some
    /// servers close right after the last `data:` line).
    pub fn finish(&mut self) -> Option<SseEvent> {
        if !self.buffer.is_empty() {
            let line = std::mem::take(&mut self.buffer);
            let mut events = Vec::new();
            self.line(&String::from_utf8_lossy(&line), &mut events);
        }
        self.dispatch()
    }

    fn line(&mut self, line: &str, events: &mut Vec<SseEvent>) {
        if line.is_empty() {
            events.extend(self.dispatch());
            return;
        }
        if line.starts_with(':') {
            return;
        }
        let (field, value) = match line.split_once(':') {
            Some((field, value)) => (field, value.strip_prefix(' ').unwrap_or(value)),
            None => (line, ""),
        };
        match field {
            "data" => {
                self.data.push(value.to_owned());
                self.has_data = true;
            }
            "event" => self.event = value.to_owned(),
            _ => {}
        }
    }

    fn dispatch(&mut self) -> Option<SseEvent> {
        let event = std::mem::take(&mut self.event);
        let data = std::mem::take(&mut self.data);
        if !std::mem::take(&mut self.has_data) {
            return None;
        }
        Some(SseEvent {
            event,
            data: data.join("\n"),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ev(event: &str, data: &str) -> SseEvent {
        SseEvent {
            event: event.into(),
            data: data.into(),
        }
    }

    #[test]
    fn events_split_anywhere_decode_the_same() {
        let stream = "event: message_start\ndata: {\"a\":\"é\"}\n\n: keep-alive\r\n\r\ndata: x\r\ndata: y\r\n\r\ndata: [DONE]\n\n";
        let expected = vec![
            ev("message_start", "{\"a\":\"é\"}"),
            ev("", "x\ny"),
            ev("", "[DONE]"),
        ];
        let bytes = stream.as_bytes();
        for split in 0..bytes.len() {
            let mut decoder = SseDecoder::default();
            let mut events = decoder.push(&bytes[..split]);
            events.extend(decoder.push(&bytes[split..]));
            assert_eq!(decoder.finish(), None);
            assert_eq!(events, expected, "split at {split}");
        }
    }

    #[test]
    fn byte_by_byte_and_unterminated_last_event() {
        let mut decoder = SseDecoder::default();
        let mut events = Vec::new();
        for b in "data:{\"x\":1}\r\rdata: tail".bytes() {
            events.extend(decoder.push(&[b]));
        }
        assert_eq!(events, vec![ev("", "{\"x\":1}")]);
        assert_eq!(decoder.finish(), Some(ev("", "tail")));
    }
}
