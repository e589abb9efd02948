//! The one task that owns a child from spawn to its recorded exit.

use std::future::pending;
use std::os::unix::process::ExitStatusExt;
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::Duration;

use nix::sys::signal::Signal;
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWriteExt};
use tokio::process::{Child, ChildStderr, ChildStdin, ChildStdout};
use tokio::sync::watch;
use tokio::time::{sleep_until, Instant};
use tokio_util::sync::CancellationToken;

use super::{EndedBy, Grace, Group, GroupSignal, OutputBuffer, OutputTap, ProcessExit, Stream};

/// Bytes read from a pipe at a time.
const READ_CHUNK: usize = 64 * 1024;

/// Kills the group if the monitor is dropped before it finished (the runtime shut down).
struct KillOnDrop(Arc<Group>);

impl Drop for KillOnDrop {
    fn drop(&mut self) {
        self.0.signal(Signal::SIGKILL);
    }
}

pub(super) struct Monitor {
    pub child: Child,
    pub stdin: Option<ChildStdin>,
    pub stdout: Option<ChildStdout>,
    pub stderr: Option<ChildStderr>,
    pub stdin_payload: Vec<u8>,
    pub group: Arc<Group>,
    pub output: OutputBuffer,
    pub tap: Option<OutputTap>,
    pub cancel: CancellationToken,
    pub timeout: Option<Duration>,
    pub grace: Grace,
    pub drain: Duration,
    pub exit: watch::Sender<Option<ProcessExit>>,
}

async fn read_some<R: AsyncRead + Unpin>(pipe: &mut Option<R>, buf: &mut [u8]) -> usize {
    match pipe {
        // A read error ends the pipe like EOF does.
        Some(pipe) => pipe.read(buf).await.unwrap_or(0),
        None => pending().await,
    }
}

async fn write_some(pipe: &mut Option<ChildStdin>, bytes: &[u8]) -> Option<usize> {
    match pipe {
        Some(pipe) => pipe.write(bytes).await.ok(),
        None => pending().await,
    }
}

async fn sleep_until_some(at: Option<Instant>) {
    match at {
        Some(at) => sleep_until(at).await,
        None => pending().await,
    }
}

impl Monitor {
    pub async fn run(self) {
        let Monitor {
            mut child,
            mut stdin,
            mut stdout,
            mut stderr,
            stdin_payload,
            group,
            output,
            mut tap,
            cancel,
            timeout,
            grace,
            drain,
            exit,
        } = self;
        let _kill_on_drop = KillOnDrop(group.clone());
        let started = Instant::now();
        let deadline = timeout.map(|t| started + t);
        let mut out_buf = vec![0u8; READ_CHUNK];
        let mut err_buf = vec![0u8; READ_CHUNK];
        let mut written_in = 0usize;
        if stdin_payload.is_empty() {
            stdin = None;
        }

        let mut stopping: Option<EndedBy> = None;
        let mut signals_sent: Vec<GroupSignal> = Vec::new();
        let mut next_signal_at: Option<Instant> = None;
        let mut status: Option<Option<std::process::ExitStatus>> = None;
        let mut drain_until: Option<Instant> = None;
        let mut output_cut_off = false;

        loop {
            if status.is_some() && stdout.is_none() && stderr.is_none() {
                break;
            }
            let leader_alive = status.is_none();
            tokio::select! {
                waited = child.wait(), if leader_alive => {
                    let waited = waited.ok();
                    // The wait status, not the flag, says who ended the leader: it may have
                    // exited on its own and sat unreaped (a busy runtime had not polled this
                    // branch yet) when the handle was dropped. The drop's SIGKILL then found a
                    // zombie, and the leader's own exit code is what it ended with.
                    if stopping.is_none()
                        && group.dropped.load(Ordering::SeqCst)
                        && killed_by_sigkill(waited)
                    {
                        stopping = Some(EndedBy::Dropped);
                    }
                    status = Some(waited);
                    // The leader is gone: nothing of its group may outlive it.
                    group.signal(Signal::SIGKILL);
                    stdin = None;
                    drain_until = Some(Instant::now() + drain);
                }
                n = read_some(&mut stdout, &mut out_buf) => {
                    if n == 0 {
                        stdout = None;
                    } else {
                        deliver(&mut tap, &output, Stream::Stdout, &out_buf[..n]);
                    }
                }
                n = read_some(&mut stderr, &mut err_buf) => {
                    if n == 0 {
                        stderr = None;
                    } else {
                        deliver(&mut tap, &output, Stream::Stderr, &err_buf[..n]);
                    }
                }
                n = write_some(&mut stdin, &stdin_payload[written_in..]), if leader_alive => {
                    match n {
                        Some(n) if n > 0 => {
                            written_in += n;
                            if written_in >= stdin_payload.len() {
                                // Dropping the pipe closes it: the child sees EOF.
                                stdin = None;
                            }
                        }
                        // EPIPE: the child closed its stdin; stop feeding it.
                        _ => stdin = None,
                    }
                }
                _ = cancel.cancelled(), if leader_alive && stopping.is_none() => {
                    if group.dropped.load(Ordering::SeqCst) {
                        stopping = Some(EndedBy::Dropped);
                    } else {
                        stopping = Some(EndedBy::Canceled);
                        send(&group, GroupSignal::Interrupt, &mut signals_sent);
                        next_signal_at = Some(Instant::now() + grace.interrupt);
                    }
                }
                _ = sleep_until_some(deadline), if leader_alive && stopping.is_none() => {
                    stopping = Some(EndedBy::TimedOut);
                    send(&group, GroupSignal::Interrupt, &mut signals_sent);
                    next_signal_at = Some(Instant::now() + grace.interrupt);
                }
                _ = sleep_until_some(next_signal_at), if leader_alive => {
                    if signals_sent.last() == Some(&GroupSignal::Interrupt) {
                        send(&group, GroupSignal::Terminate, &mut signals_sent);
                        next_signal_at = Some(Instant::now() + grace.terminate);
                    } else {
                        send(&group, GroupSignal::Kill, &mut signals_sent);
                        next_signal_at = None;
                    }
                }
                _ = sleep_until_some(drain_until), if !leader_alive => {
                    // Someone outside the group still holds the pipes open.
                    output_cut_off = stdout.is_some() || stderr.is_some();
                    stdout = None;
                    stderr = None;
                }
            }
        }

        let status = status.flatten();
        let ended_by = stopping.unwrap_or(EndedBy::Exited);
        let record = ProcessExit {
            code: status.and_then(|s| s.code()),
            signal: status.and_then(|s| s.signal()),
            ended_by,
            signals_sent,
            duration: started.elapsed(),
            stdout_bytes: output.stream_written(Stream::Stdout),
            stderr_bytes: output.stream_written(Stream::Stderr),
            output_cut_off,
        };
        output.close();
        group.mark_gone();
        exit.send_replace(Some(record));
    }
}

/// Whether the leader died of SIGKILL: the only way the drop's kill can end it.
fn killed_by_sigkill(status: Option<std::process::ExitStatus>) -> bool {
    status.and_then(|s| s.signal()) == Some(Signal::SIGKILL as i32)
}

fn send(group: &Group, signal: GroupSignal, signals_sent: &mut Vec<GroupSignal>) {
    signals_sent.push(signal);
    group.signal(signal.signal());
}

fn deliver(tap: &mut Option<OutputTap>, output: &OutputBuffer, stream: Stream, bytes: &[u8]) {
    if let Some(tap) = tap.as_mut() {
        tap(stream, bytes);
    }
    output.append(stream, bytes);
}
