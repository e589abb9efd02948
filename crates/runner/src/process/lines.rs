//! Splitting a byte stream into lines with bounded memory.

/// Assembles lines from chunks of one stream. A line longer than `max_line` is cut: its first
/// `max_line` bytes are emitted (flagged as cut) and the rest up to the newline is skipped, so
/// a child that never writes a newline cannot grow memory. A trailing `\r` is removed.
#[derive(Debug)]
pub struct LineAssembler {
    pending: Vec<u8>,
    max_line: usize,
    /// The current line was already emitted cut; skip until the next newline.
    skipping: bool,
}

/// One assembled line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Line<'a> {
    pub bytes: &'a [u8],
    /// The line was longer than the limit and this is only its beginning.
    pub cut: bool,
}

impl LineAssembler {
    /// An assembler that keeps at most `max_line` bytes of an unfinished line.
    pub fn new(max_line: usize) -> Self {
        Self {
            pending: Vec::new(),
            max_line: max_line.max(1),
            skipping: false,
        }
    }

    /// Feeds a chunk; calls `on_line` for every line completed (or cut) by it.
    pub fn push(&mut self, mut bytes: &[u8], mut on_line: impl FnMut(Line<'_>)) {
        while !bytes.is_empty() {
            match bytes.iter().position(|b| *b == b'\n') {
                Some(newline) => {
                    let (head, rest) = bytes.split_at(newline);
                    bytes = &rest[1..];
                    if self.skipping {
                        self.skipping = false;
                        continue;
                    }
                    if self.pending.is_empty() && head.len() <= self.max_line {
                        on_line(Line {
                            bytes: strip_cr(head),
                            cut: false,
                        });
                        continue;
                    }
                    let room = self.max_line - self.pending.len();
                    if head.len() > room {
                        self.pending.extend_from_slice(&head[..room]);
                        on_line(Line {
                            bytes: &self.pending,
                            cut: true,
                        });
                    } else {
                        self.pending.extend_from_slice(head);
                        on_line(Line {
                            bytes: strip_cr(&self.pending),
                            cut: false,
                        });
                    }
                    self.pending.clear();
                }
                None => {
                    if !self.skipping {
                        let room = self.max_line - self.pending.len();
                        if bytes.len() > room {
                            self.pending.extend_from_slice(&bytes[..room]);
                            on_line(Line {
                                bytes: &self.pending,
                                cut: true,
                            });
                            self.pending.clear();
                            self.skipping = true;
                        } else {
                            self.pending.extend_from_slice(bytes);
                        }
                    }
                    bytes = &[];
                }
            }
        }
    }

    /// Emits the unfinished last line, if any (the stream ended without a newline).
    pub fn finish(&mut self, mut on_line: impl FnMut(Line<'_>)) {
        if !self.pending.is_empty() {
            on_line(Line {
                bytes: strip_cr(&self.pending),
                cut: false,
            });
            self.pending.clear();
        }
        self.skipping = false;
    }
}

fn strip_cr(line: &[u8]) -> &[u8] {
    line.strip_suffix(b"\r").unwrap_or(line)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn collect(assembler: &mut LineAssembler, chunks: &[&[u8]]) -> Vec<(String, bool)> {
        let mut lines = Vec::new();
        for chunk in chunks {
            assembler.push(chunk, |line| {
                lines.push((String::from_utf8_lossy(line.bytes).into_owned(), line.cut))
            });
        }
        assembler.finish(|line| {
            lines.push((String::from_utf8_lossy(line.bytes).into_owned(), line.cut))
        });
        lines
    }

    #[test]
    fn lines_split_across_chunks_are_joined() {
        let mut assembler = LineAssembler::new(100);
        let lines = collect(&mut assembler, &[b"hel", b"lo\r\nwor", b"ld\n", b"tail"]);
        assert_eq!(
            lines,
            vec![
                ("hello".to_owned(), false),
                ("world".to_owned(), false),
                ("tail".to_owned(), false)
            ]
        );
    }

    #[test]
    fn an_endless_line_is_cut_once_and_skipped_to_the_newline() {
        let mut assembler = LineAssembler::new(8);
        let endless = vec![b'x'; 1000];
        let lines = collect(&mut assembler, &[b"abc", &endless, &endless, b"x\nnext\n"]);
        assert_eq!(
            lines,
            vec![("abcxxxxx".to_owned(), true), ("next".to_owned(), false)]
        );
        assert!(assembler.pending.capacity() <= 64);
    }
}
