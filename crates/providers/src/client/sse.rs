//! A server-sent-events decoder fed with arbitrary byte chunks.
//!
//! Lines end in `\n`, `\r\n` or `\r`; `data:` lines accumulate, `event:` names the event, a
//! blank line dispatches, lines starting with `:` are comments (OpenRouter sends
//! `: OPENROUTER PROCESSING` keep-alives). Bytes are buffered until a line is complete, so a
//! UTF-8 character split across chunks decodes correctly. A line or an event longer than the
//! cap is an error, so a server that never ends a line cannot grow the buffer without bound.

use super::config::ResponseLimits;
use super::error::ResponsePart;

/// One dispatched event.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct SseEvent {
    /// The `event:` field; empty when absent (OpenAI sends none).
    pub event: String,
    /// The `data:` lines joined with `\n`.
    pub data: String,
}

/// Incremental decoder state.
#[derive(Debug)]
pub(crate) struct SseDecoder {
    buffer: Vec<u8>,
    event: String,
    data: Vec<String>,
    /// Bytes of `data` joined (line ends included).
    data_bytes: usize,
    has_data: bool,
    /// The previous chunk ended in `\r`; a `\n` starting this one belongs to it.
    pending_cr: bool,
    /// Longest line, and most data bytes of one event.
    max_event_bytes: usize,
}

impl Default for SseDecoder {
    fn default() -> Self {
        Self::new(ResponseLimits::default().max_event_bytes)
    }
}

impl SseDecoder {
    /// A decoder refusing lines and events longer than `max_event_bytes`.
    pub fn new(max_event_bytes: usize) -> Self {
        Self {
            buffer: Vec::new(),
            event: String::new(),
            data: Vec::new(),
            data_bytes: 0,
            has_data: false,
            pending_cr: false,
            max_event_bytes,
        }
    }

    /// Feeds bytes; returns the events completed by them, or which part went past the cap
    /// (the decoder holds at most the cap, whatever the server sends).
    pub fn push(&mut self, bytes: &[u8]) -> Result<Vec<SseEvent>, ResponsePart> {
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
                self.buffer_line_part(&bytes[start..i])?;
                let line = std::mem::take(&mut self.buffer);
                self.line(&String::from_utf8_lossy(&line), &mut events)?;
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
        self.buffer_line_part(&bytes[start..])?;
        Ok(events)
    }

    /// Ends the input: an event whose closing blank line never came is still returned (some
    /// servers close right after the last `data:` line).
    pub fn finish(&mut self) -> Result<Option<SseEvent>, ResponsePart> {
        if !self.buffer.is_empty() {
            let line = std::mem::take(&mut self.buffer);
            let mut events = Vec::new();
            self.line(&String::from_utf8_lossy(&line), &mut events)?;
        }
        Ok(self.dispatch())
    }

    fn buffer_line_part(&mut self, part: &[u8]) -> Result<(), ResponsePart> {
        if self.buffer.len().saturating_add(part.len()) > self.max_event_bytes {
            return Err(ResponsePart::Line);
        }
        self.buffer.extend_from_slice(part);
        Ok(())
    }

    fn line(&mut self, line: &str, events: &mut Vec<SseEvent>) -> Result<(), ResponsePart> {
        if line.is_empty() {
            events.extend(self.dispatch());
            return Ok(());
        }
        if line.starts_with(':') {
            return Ok(());
        }
        let (field, value) = match line.split_once(':') {
            Some((field, value)) => (field, value.strip_prefix(' ').unwrap_or(value)),
            None => (line, ""),
        };
        match field {
            "data" => {
                self.data_bytes = self.data_bytes.saturating_add(value.len() + 1);
                if self.data_bytes > self.max_event_bytes {
                    return Err(ResponsePart::Event);
                }
                self.data.push(value.to_owned());
                self.has_data = true;
            }
            "event" => self.event = value.to_owned(),
            _ => {}
        }
        Ok(())
    }

    fn dispatch(&mut self) -> Option<SseEvent> {
        let event = std::mem::take(&mut self.event);
        let data = std::mem::take(&mut self.data);
        self.data_bytes = 0;
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
            let mut events = decoder.push(&bytes[..split]).expect("within limits");
            events.extend(decoder.push(&bytes[split..]).expect("within limits"));
            assert_eq!(decoder.finish(), Ok(None));
            assert_eq!(events, expected, "split at {split}");
        }
    }

    #[test]
    fn byte_by_byte_and_unterminated_last_event() {
        let mut decoder = SseDecoder::default();
        let mut events = Vec::new();
        for b in "data:{\"x\":1}\r\rdata: tail".bytes() {
            events.extend(decoder.push(&[b]).expect("within limits"));
        }
        assert_eq!(events, vec![ev("", "{\"x\":1}")]);
        assert_eq!(decoder.finish(), Ok(Some(ev("", "tail"))));
    }

    #[test]
    fn endless_sse_line_is_refused_at_the_cap() {
        let mut decoder = SseDecoder::new(64);
        assert_eq!(decoder.push(b"data: ").map(|e| e.len()), Ok(0));
        let mut result = Ok(Vec::new());
        for _ in 0..100 {
            result = decoder.push(b"xxxxxxxxxx");
            if result.is_err() {
                break;
            }
        }
        assert_eq!(result, Err(ResponsePart::Line));
        assert!(decoder.buffer.len() <= 64);
    }

    #[test]
    fn endless_sse_event_is_refused_at_the_cap() {
        let mut decoder = SseDecoder::new(64);
        let mut result = Ok(Vec::new());
        for _ in 0..100 {
            result = decoder.push(b"data: xxxxxxxxxx\n");
            if result.is_err() {
                break;
            }
        }
        assert_eq!(result, Err(ResponsePart::Event));
        assert!(decoder.data.iter().map(String::len).sum::<usize>() <= 64);
        let mut decoder = SseDecoder::new(64);
        let events = decoder
            .push(
                b"data: xxxxxxxxxx\n\ndata: yyyyyyyyyy\n\n"
                    .repeat(20)
                    .as_slice(),
            )
            .expect("short events pass");
        assert_eq!(events.len(), 40);
    }

    proptest::proptest! {
        #[test]
        fn arbitrary_chunks_never_panic_and_stay_within_the_cap(
            chunks in proptest::collection::vec(proptest::collection::vec(proptest::prelude::any::<u8>(), 0..200), 0..20),
            cap in 1usize..300,
        ) {
            let mut decoder = SseDecoder::new(cap);
            for chunk in &chunks {
                match decoder.push(chunk) {
                    Ok(events) => {
                        for event in events {
                            proptest::prop_assert!(event.data.len() <= cap);
                        }
                    }
                    Err(_) => break,
                }
                proptest::prop_assert!(decoder.buffer.len() <= cap);
            }
            let _ = decoder.finish();
        }
    }
}
