//! The byte-capped, replayable output of one child.
//!
//! Every byte the child writes gets an absolute offset (bytes since the start, stdout and
//! stderr interleaved in arrival order). The buffer keeps a ring of the **tail**: when the
//! retained bytes would exceed the cap, the oldest are dropped. The tail is what matters for
//! both consumers — a worker's final `result` line and a test runner's summary come last —
//! and a reader that falls behind or opens late still gets the freshest output, told by
//! `truncated_before` that some came before it. The total written is counted however much was
//! dropped.
//!
//! Memory is bounded by the cap *including* bookkeeping: each retained chunk is charged
//! [`CHUNK_OVERHEAD`] bytes on top of its payload, and small appends to the same stream are
//! merged, so a child writing one byte at a time cannot grow the buffer past the cap either.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex, MutexGuard};

use bytes::Bytes;
use tokio::sync::watch;

/// Which pipe a chunk came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Stream {
    Stdout,
    Stderr,
}

/// What each retained chunk costs against the cap beyond its payload (its slot in the ring).
pub const CHUNK_OVERHEAD: usize = 64;

/// Appends to the same stream are merged into the last chunk while it stays below this size.
const MERGE_BELOW: usize = 8 * 1024;

/// Default cap: 8 MiB of output per child.
pub const DEFAULT_OUTPUT_CAP: usize = 8 * 1024 * 1024;

/// A run of bytes from one stream, at an absolute offset.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OutputChunk {
    pub stream: Stream,
    /// Offset of the first byte of `bytes` since the child started.
    pub offset: u64,
    pub bytes: Bytes,
}

/// The answer to [`OutputBuffer::read_from`].
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct OutputRead {
    /// Retained chunks from the requested offset (or the oldest retained byte) on, in order.
    pub chunks: Vec<OutputChunk>,
    /// The offset to ask for next: one past the last byte returned (or the requested offset
    /// when nothing new was there).
    pub next_offset: u64,
    /// Bytes between the requested offset and the first returned byte were dropped by the cap.
    pub truncated_before: bool,
}

impl OutputRead {
    /// All returned bytes, both streams, in order.
    pub fn bytes(&self) -> Vec<u8> {
        self.chunks
            .iter()
            .flat_map(|c| c.bytes.iter().copied())
            .collect()
    }

    /// The returned bytes of one stream, in order.
    pub fn stream_bytes(&self, stream: Stream) -> Vec<u8> {
        self.chunks
            .iter()
            .filter(|c| c.stream == stream)
            .flat_map(|c| c.bytes.iter().copied())
            .collect()
    }

    /// All returned bytes as text (invalid UTF-8 replaced).
    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.bytes()).into_owned()
    }
}

/// Where the buffer stands; what subscribers are woken with.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct OutputProgress {
    /// Bytes written so far (the offset one past the newest byte).
    pub written: u64,
    /// The child's pipes are closed: no more bytes will come.
    pub closed: bool,
}

#[derive(Debug)]
struct Ring {
    chunks: VecDeque<OutputChunk>,
    /// Payload bytes plus [`CHUNK_OVERHEAD`] per chunk.
    cost: usize,
    written: u64,
    stdout_written: u64,
    stderr_written: u64,
}

#[derive(Debug)]
struct Shared {
    cap: usize,
    ring: Mutex<Ring>,
    progress: watch::Sender<OutputProgress>,
}

/// A byte-capped, replayable buffer of a child's output. Cheap to clone (shared).
#[derive(Debug, Clone)]
pub struct OutputBuffer {
    shared: Arc<Shared>,
}

impl OutputBuffer {
    /// An empty buffer that retains at most `cap` bytes (payload plus bookkeeping). A cap below
    /// one chunk's overhead still keeps the newest bytes of the last append, trimmed to fit.
    pub fn new(cap: usize) -> Self {
        let (progress, _) = watch::channel(OutputProgress::default());
        Self {
            shared: Arc::new(Shared {
                cap,
                ring: Mutex::new(Ring {
                    chunks: VecDeque::new(),
                    cost: 0,
                    written: 0,
                    stdout_written: 0,
                    stderr_written: 0,
                }),
                progress,
            }),
        }
    }

    /// The cap this buffer was made with.
    pub fn cap(&self) -> usize {
        self.shared.cap
    }

    fn ring(&self) -> MutexGuard<'_, Ring> {
        // A panic while holding the lock leaves the ring consistent (every mutation completes
        // before the next), so a poisoned lock is still safe to use.
        self.shared
            .ring
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Appends `bytes` from `stream`, drops the oldest bytes beyond the cap and wakes
    /// subscribers. Appending after [`close`](Self::close) is ignored.
    pub fn append(&self, stream: Stream, bytes: &[u8]) {
        if bytes.is_empty() || self.shared.progress.borrow().closed {
            return;
        }
        let written = {
            let mut ring = self.ring();
            let offset = ring.written;
            ring.written += bytes.len() as u64;
            match stream {
                Stream::Stdout => ring.stdout_written += bytes.len() as u64,
                Stream::Stderr => ring.stderr_written += bytes.len() as u64,
            }
            // Only the newest `cap - overhead` bytes of a huge append can ever be retained.
            let keep = self.shared.cap.saturating_sub(CHUNK_OVERHEAD).max(1);
            let (offset, bytes) = if bytes.len() > keep {
                let skip = bytes.len() - keep;
                (offset + skip as u64, &bytes[skip..])
            } else {
                (offset, bytes)
            };
            let merged = match ring.chunks.back_mut() {
                Some(last)
                    if last.stream == stream
                        && last.bytes.len() + bytes.len() <= MERGE_BELOW
                        && last.offset + last.bytes.len() as u64 == offset =>
                {
                    let mut joined = Vec::with_capacity(last.bytes.len() + bytes.len());
                    joined.extend_from_slice(&last.bytes);
                    joined.extend_from_slice(bytes);
                    last.bytes = Bytes::from(joined);
                    true
                }
                _ => false,
            };
            if merged {
                ring.cost += bytes.len();
            } else {
                ring.chunks.push_back(OutputChunk {
                    stream,
                    offset,
                    bytes: Bytes::copy_from_slice(bytes),
                });
                ring.cost += bytes.len() + CHUNK_OVERHEAD;
            }
            evict(&mut ring, self.shared.cap);
            ring.written
        };
        self.shared.progress.send_modify(|p| p.written = written);
    }

    /// Marks the output complete (the child's pipes closed) and wakes subscribers.
    pub fn close(&self) {
        self.shared.progress.send_modify(|p| p.closed = true);
    }

    /// Everything retained from `offset` on. An offset older than the oldest retained byte
    /// returns from the oldest retained byte with `truncated_before` set; an offset at or past
    /// the end returns no chunks and `next_offset == offset`.
    pub fn read_from(&self, offset: u64) -> OutputRead {
        let ring = self.ring();
        let first = ring
            .chunks
            .partition_point(|c| c.offset + c.bytes.len() as u64 <= offset);
        let mut chunks = Vec::with_capacity(ring.chunks.len() - first);
        let mut truncated_before = false;
        for chunk in ring.chunks.iter().skip(first) {
            if chunks.is_empty() {
                if chunk.offset > offset {
                    truncated_before = true;
                    chunks.push(chunk.clone());
                } else {
                    let skip = usize::try_from(offset - chunk.offset).unwrap_or(usize::MAX);
                    chunks.push(OutputChunk {
                        stream: chunk.stream,
                        offset,
                        bytes: chunk.bytes.slice(skip.min(chunk.bytes.len())..),
                    });
                }
            } else {
                chunks.push(chunk.clone());
            }
        }
        if chunks.is_empty() && offset < ring.written {
            // Everything from `offset` on was dropped and nothing newer is retained (only
            // possible with a zero-sized cap).
            truncated_before = true;
        }
        let next_offset = match chunks.last() {
            Some(last) => last.offset + last.bytes.len() as u64,
            None if truncated_before => ring.written,
            None => offset,
        };
        OutputRead {
            chunks,
            next_offset,
            truncated_before,
        }
    }

    /// The last `max` retained bytes of both streams, and whether older output exists that is
    /// not in them.
    pub fn tail(&self, max: usize) -> (Vec<u8>, bool) {
        let written = self.progress().written;
        let start = written.saturating_sub(max as u64);
        let read = self.read_from(start);
        (read.bytes(), read.truncated_before || start > 0)
    }

    /// Bytes written so far and whether the output is complete.
    pub fn progress(&self) -> OutputProgress {
        *self.shared.progress.borrow()
    }

    /// Total bytes written to one stream (counted even when dropped by the cap).
    pub fn stream_written(&self, stream: Stream) -> u64 {
        let ring = self.ring();
        match stream {
            Stream::Stdout => ring.stdout_written,
            Stream::Stderr => ring.stderr_written,
        }
    }

    /// Payload bytes currently retained (excluding bookkeeping); never more than the cap.
    pub fn retained_bytes(&self) -> usize {
        self.ring().chunks.iter().map(|c| c.bytes.len()).sum()
    }

    /// What the retained chunks cost against the cap (payload plus bookkeeping).
    pub fn retained_cost(&self) -> usize {
        self.ring().cost
    }

    /// A receiver woken whenever bytes are appended or the output closes.
    pub fn subscribe(&self) -> watch::Receiver<OutputProgress> {
        self.shared.progress.subscribe()
    }

    /// A cursor that streams output from `offset` on, for a page that opens late or
    /// reconnects.
    pub fn cursor(&self, offset: u64) -> OutputCursor {
        OutputCursor {
            buffer: self.clone(),
            offset,
            progress: self.subscribe(),
        }
    }
}

fn evict(ring: &mut Ring, cap: usize) {
    while ring.cost > cap {
        let over = ring.cost - cap;
        let Some(front) = ring.chunks.front_mut() else {
            break;
        };
        if over >= front.bytes.len() {
            let dropped = front.bytes.len() + CHUNK_OVERHEAD;
            ring.chunks.pop_front();
            ring.cost -= dropped;
        } else {
            // Trim the oldest chunk's head just enough to fit.
            front.bytes = front.bytes.slice(over..);
            front.offset += over as u64;
            ring.cost -= over;
        }
    }
}

/// Streams a buffer's output from an offset: each [`next`](Self::next) returns what arrived
/// since the last call, waiting when there is nothing new, and `None` once the output is
/// complete and fully read.
#[derive(Debug)]
pub struct OutputCursor {
    buffer: OutputBuffer,
    offset: u64,
    progress: watch::Receiver<OutputProgress>,
}

impl OutputCursor {
    /// The offset the next read starts at.
    pub fn offset(&self) -> u64 {
        self.offset
    }

    /// The next batch of output, or `None` when the child's output is complete and read.
    pub async fn next(&mut self) -> Option<OutputRead> {
        loop {
            // Mark the current state seen *before* reading, so an append that lands between
            // the read and the wait still wakes us.
            let progress = *self.progress.borrow_and_update();
            let read = self.buffer.read_from(self.offset);
            if !read.chunks.is_empty() {
                self.offset = read.next_offset;
                return Some(read);
            }
            if read.truncated_before {
                self.offset = read.next_offset;
            }
            if progress.closed {
                return None;
            }
            if self.progress.changed().await.is_err() {
                // The buffer is gone (cannot happen while we hold a clone); nothing more will
                // come.
                return None;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn read_from_an_offset_replays_the_rest() {
        let buffer = OutputBuffer::new(1024);
        buffer.append(Stream::Stdout, b"hello\n");
        buffer.append(Stream::Stderr, b"oops\n");
        buffer.append(Stream::Stdout, b"world\n");
        let read = buffer.read_from(6);
        assert_eq!(read.text(), "oops\nworld\n");
        assert_eq!(read.next_offset, 17);
        assert!(!read.truncated_before);
        assert_eq!(read.stream_bytes(Stream::Stderr), b"oops\n");
        let mid = buffer.read_from(8);
        assert_eq!(mid.text(), "ps\nworld\n");
        assert_eq!(mid.chunks[0].offset, 8);
        let end = buffer.read_from(17);
        assert!(end.chunks.is_empty());
        assert_eq!(end.next_offset, 17);
    }

    #[test]
    fn the_cap_keeps_the_tail_and_counts_everything() {
        let cap = 4 * 1024;
        let buffer = OutputBuffer::new(cap);
        let line: Vec<u8> = (0..100u8).map(|i| b'a' + i % 26).collect();
        for _ in 0..1000 {
            buffer.append(Stream::Stdout, &line);
        }
        assert_eq!(buffer.progress().written, 100_000);
        assert!(buffer.retained_cost() <= cap, "{}", buffer.retained_cost());
        let read = buffer.read_from(0);
        assert!(read.truncated_before);
        assert_eq!(read.next_offset, 100_000);
        let bytes = read.bytes();
        assert_eq!(bytes.len() as u64, 100_000 - read.chunks[0].offset);
        // The retained bytes are exactly the last ones written.
        assert_eq!(&bytes[bytes.len() - 100..], line.as_slice());
    }

    #[test]
    fn one_byte_appends_cannot_grow_past_the_cap() {
        let cap = 2048;
        let buffer = OutputBuffer::new(cap);
        for i in 0..100_000u32 {
            let stream = if i % 2 == 0 {
                Stream::Stdout
            } else {
                Stream::Stderr
            };
            buffer.append(stream, b"x");
        }
        assert!(buffer.retained_cost() <= cap);
        assert_eq!(buffer.progress().written, 100_000);
        assert_eq!(buffer.stream_written(Stream::Stdout), 50_000);
    }

    #[test]
    fn an_append_larger_than_the_cap_keeps_its_newest_bytes() {
        let buffer = OutputBuffer::new(256);
        let big: Vec<u8> = (0..10_000u32).map(|i| (i % 251) as u8).collect();
        buffer.append(Stream::Stdout, &big);
        let read = buffer.read_from(0);
        assert!(read.truncated_before);
        let bytes = read.bytes();
        assert!(bytes.len() <= 256);
        assert_eq!(bytes.as_slice(), &big[big.len() - bytes.len()..]);
        assert_eq!(read.next_offset, 10_000);
    }

    #[test]
    fn tail_returns_the_last_bytes() {
        let buffer = OutputBuffer::new(1024);
        buffer.append(Stream::Stdout, b"0123456789");
        assert_eq!(buffer.tail(4), (b"6789".to_vec(), true));
        assert_eq!(buffer.tail(100), (b"0123456789".to_vec(), false));
    }

    #[tokio::test]
    async fn a_cursor_wakes_on_new_data_and_ends_on_close() {
        let buffer = OutputBuffer::new(1024);
        let mut cursor = buffer.cursor(0);
        let writer = buffer.clone();
        let task = tokio::spawn(async move {
            tokio::time::sleep(std::time::Duration::from_millis(20)).await;
            writer.append(Stream::Stdout, b"first");
            tokio::time::sleep(std::time::Duration::from_millis(20)).await;
            writer.append(Stream::Stdout, b"second");
            writer.close();
        });
        let mut seen = Vec::new();
        while let Some(read) = cursor.next().await {
            seen.extend(read.bytes());
        }
        task.await.expect("writer");
        assert_eq!(seen, b"firstsecond");
        assert_eq!(cursor.offset(), 11);
        buffer.append(Stream::Stdout, b"ignored after close");
        assert_eq!(buffer.progress().written, 11);
    }
}
