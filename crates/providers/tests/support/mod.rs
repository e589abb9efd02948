//! A scripted HTTP/1.1 server on 127.0.0.1 for client tests.
//!
//! Each accepted connection takes the next [`Reply`] of the script and records the request
//! (method, path, headers, body, arrival time). Every reply carries `connection: close`, so one
//! request is one connection and the script order is the request order. Bodies are sent with
//! `content-length` or chunked transfer encoding (SSE), can pause between chunks, end cleanly,
//! break off (truncated stream) or hang; the server notices when the client hangs up. An
//! endless reply repeats one chunk until the client hangs up (a body, or an SSE line, that
//! never ends); a redirect reply points elsewhere (another server = another origin).
//!
//! Instead of a script, a responder may choose each reply from the request (for concurrent
//! clients whose order is not fixed: [`TestServer::start_with`]). The server counts requests
//! in flight (from the request's arrival until its reply ended or the client hung up) and
//! the most that were in flight at once.
//!
//! Shared with the engine's tests through `#[path]`, so it depends only on tokio, std and
//! serde_json.

#![allow(dead_code)]

pub mod wire;

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::Notify;

/// How a chunked body ends.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum End {
    /// The terminating zero-length chunk.
    Complete,
    /// Close the connection mid-body (a truncated stream).
    Abort,
    /// Keep the connection open, send nothing more.
    Hang,
}

/// One scripted answer.
#[derive(Debug, Clone)]
pub enum Reply {
    /// A complete response with `content-length`.
    Full {
        status: u16,
        headers: Vec<(String, String)>,
        body: String,
    },
    /// A chunked response: each chunk after its delay.
    Chunked {
        status: u16,
        headers: Vec<(String, String)>,
        chunks: Vec<(Duration, String)>,
        end: End,
    },
    /// `chunk` again and again until the client hangs up; chunked, or raw bytes after a
    /// `content-length` of `announce` (a length the body will never reach, or exceed).
    Endless {
        status: u16,
        headers: Vec<(String, String)>,
        chunk: String,
        announce: Option<u64>,
    },
    /// Read the request, never answer.
    Hang,
    /// Read the request, close the connection without answering.
    Drop,
}

impl Reply {
    /// A JSON response.
    pub fn json(status: u16, body: impl ToString) -> Self {
        Reply::Full {
            status,
            headers: vec![("content-type".into(), "application/json".into())],
            body: body.to_string(),
        }
    }

    /// A plain-text response.
    pub fn text(status: u16, body: impl ToString) -> Self {
        Reply::Full {
            status,
            headers: vec![("content-type".into(), "text/plain".into())],
            body: body.to_string(),
        }
    }

    /// An SSE response sending `events` at once and ending cleanly.
    pub fn sse(events: Vec<String>) -> Self {
        Self::sse_paced(
            events.into_iter().map(|e| (Duration::ZERO, e)).collect(),
            End::Complete,
        )
    }

    /// An SSE response with a delay before each event and the given ending.
    pub fn sse_paced(chunks: Vec<(Duration, String)>, end: End) -> Self {
        Reply::Chunked {
            status: 200,
            headers: vec![
                ("content-type".into(), "text/event-stream".into()),
                ("cache-control".into(), "no-cache".into()),
            ],
            chunks,
            end,
        }
    }

    /// A redirect (`301`, `302`, `307`, `308`) to `location`.
    pub fn redirect(status: u16, location: &str) -> Self {
        Reply::Full {
            status,
            headers: vec![("location".into(), location.into())],
            body: String::new(),
        }
    }

    /// A JSON body that never ends: `{"data":[` and then `{"id":"x"},` forever, chunked.
    pub fn endless_json() -> Self {
        Reply::Endless {
            status: 200,
            headers: vec![("content-type".into(), "application/json".into())],
            chunk: r#"{"id":"endless-model-entry-padding-padding-padding"},"#.repeat(256),
            announce: None,
        }
    }

    /// An SSE stream whose first line never ends: `data: xxxx…` forever.
    pub fn endless_sse_line() -> Self {
        Reply::Endless {
            status: 200,
            headers: vec![("content-type".into(), "text/event-stream".into())],
            chunk: "x".repeat(16 * 1024),
            announce: None,
        }
    }

    /// Adds a response header.
    pub fn with_header(mut self, name: &str, value: &str) -> Self {
        match &mut self {
            Reply::Full { headers, .. }
            | Reply::Chunked { headers, .. }
            | Reply::Endless { headers, .. } => headers.push((name.into(), value.into())),
            Reply::Hang | Reply::Drop => {}
        }
        self
    }
}

/// One request as the server saw it.
#[derive(Debug, Clone)]
pub struct Recorded {
    pub method: String,
    pub path: String,
    /// Names lowercased.
    pub headers: Vec<(String, String)>,
    pub body: String,
    pub at: Instant,
}

impl Recorded {
    /// A header value by (lowercase) name.
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }

    /// The body as JSON.
    pub fn json(&self) -> serde_json::Value {
        serde_json::from_str(&self.body).expect("request body is JSON")
    }
}

/// Chooses the reply to a request.
pub type Responder = Arc<dyn Fn(&Recorded) -> Reply + Send + Sync>;

#[derive(Default)]
struct State {
    replies: VecDeque<Reply>,
    requests: Vec<Recorded>,
    hangups: usize,
    responder: Option<Responder>,
    in_flight: usize,
    max_in_flight: usize,
}

/// Counts a request in flight until dropped.
struct InFlight(Arc<Mutex<State>>);

impl Drop for InFlight {
    fn drop(&mut self) {
        let mut state = self.0.lock().unwrap_or_else(|p| p.into_inner());
        state.in_flight = state.in_flight.saturating_sub(1);
    }
}

/// The running server; stops when dropped.
pub struct TestServer {
    /// `http://127.0.0.1:<port>`.
    pub url: String,
    state: Arc<Mutex<State>>,
    hangup: Arc<Notify>,
    task: tokio::task::JoinHandle<()>,
}

impl TestServer {
    /// Starts serving `script` on a free port.
    pub async fn start(script: Vec<Reply>) -> Self {
        Self::start_state(State {
            replies: script.into(),
            ..State::default()
        })
        .await
    }

    /// Starts serving the replies `responder` chooses for each request.
    pub async fn start_with(
        responder: impl Fn(&Recorded) -> Reply + Send + Sync + 'static,
    ) -> Self {
        Self::start_state(State {
            responder: Some(Arc::new(responder)),
            ..State::default()
        })
        .await
    }

    async fn start_state(state: State) -> Self {
        let listener = TcpListener::bind("127.0.0.1:0")
            .await
            .expect("bind 127.0.0.1");
        let url = format!("http://{}", listener.local_addr().expect("local addr"));
        let state = Arc::new(Mutex::new(state));
        let hangup = Arc::new(Notify::new());
        let (task_state, task_hangup) = (state.clone(), hangup.clone());
        let task = tokio::spawn(async move {
            while let Ok((socket, _)) = listener.accept().await {
                tokio::spawn(serve(socket, task_state.clone(), task_hangup.clone()));
            }
        });
        Self {
            url,
            state,
            hangup,
            task,
        }
    }

    /// The URL of `path` on this server.
    pub fn at(&self, path: &str) -> String {
        format!("{}{path}", self.url)
    }

    /// Requests received so far, in arrival order.
    pub fn requests(&self) -> Vec<Recorded> {
        self.state.lock().expect("state").requests.clone()
    }

    /// Requests whose reply has not ended yet (and whose client is still there).
    pub fn in_flight(&self) -> usize {
        self.state.lock().expect("state").in_flight
    }

    /// The most requests that were in flight at once.
    pub fn max_in_flight(&self) -> usize {
        self.state.lock().expect("state").max_in_flight
    }

    /// Scripted replies not used yet.
    pub fn unused_replies(&self) -> usize {
        self.state.lock().expect("state").replies.len()
    }

    /// Waits until the client has hung up on a hanging reply; `false` on timeout.
    pub async fn wait_for_hangup(&self, timeout: Duration) -> bool {
        let deadline = tokio::time::Instant::now() + timeout;
        loop {
            let notified = self.hangup.notified();
            tokio::pin!(notified);
            notified.as_mut().enable();
            if self.state.lock().expect("state").hangups > 0 {
                return true;
            }
            if tokio::time::timeout_at(deadline, notified).await.is_err() {
                return self.state.lock().expect("state").hangups > 0;
            }
        }
    }
}

impl Drop for TestServer {
    fn drop(&mut self) {
        self.task.abort();
    }
}

async fn serve(mut socket: TcpStream, state: Arc<Mutex<State>>, hangup: Arc<Notify>) {
    let Some(request) = read_request(&mut socket).await else {
        return;
    };
    let (reply, responder) = {
        let mut state = state.lock().expect("state");
        state.in_flight += 1;
        state.max_in_flight = state.max_in_flight.max(state.in_flight);
        state.requests.push(request.clone());
        match state.responder.clone() {
            Some(responder) => (None, Some(responder)),
            None => (state.replies.pop_front(), None),
        }
    };
    let _in_flight = InFlight(state.clone());
    let reply = match responder {
        Some(responder) => Some(responder(&request)),
        None => reply,
    };
    let reply = reply.unwrap_or_else(|| {
        Reply::json(
            500,
            r#"{"error":{"message":"test server script exhausted"}}"#,
        )
    });
    let wait_for_close = match reply {
        Reply::Full {
            status,
            headers,
            body,
        } => {
            let head = head(status, &headers, Some(body.len()));
            let _ = socket.write_all(format!("{head}{body}").as_bytes()).await;
            false
        }
        Reply::Chunked {
            status,
            headers,
            chunks,
            end,
        } => {
            if socket
                .write_all(head(status, &headers, None).as_bytes())
                .await
                .is_err()
            {
                return;
            }
            for (delay, data) in chunks {
                if !delay.is_zero() {
                    // Notice a client that hangs up while we wait, not only at the next write.
                    let mut probe = [0u8; 64];
                    let gone = tokio::select! {
                        () = tokio::time::sleep(delay) => false,
                        read = socket.read(&mut probe) => matches!(read, Ok(0) | Err(_)),
                    };
                    if gone {
                        note_hangup(&state, &hangup);
                        return;
                    }
                }
                let chunk = format!("{:x}\r\n{data}\r\n", data.len());
                if socket.write_all(chunk.as_bytes()).await.is_err() {
                    note_hangup(&state, &hangup);
                    return;
                }
            }
            match end {
                End::Complete => {
                    let _ = socket.write_all(b"0\r\n\r\n").await;
                    false
                }
                End::Abort => false,
                End::Hang => true,
            }
        }
        Reply::Endless {
            status,
            headers,
            chunk,
            announce,
        } => {
            let head = match announce {
                Some(length) => {
                    let mut headers = headers;
                    headers.push(("content-length".into(), length.to_string()));
                    head_only(status, &headers)
                }
                None => head(status, &headers, None),
            };
            if socket.write_all(head.as_bytes()).await.is_err() {
                return;
            }
            let framed = match announce {
                Some(_) => chunk,
                None => format!("{:x}\r\n{chunk}\r\n", chunk.len()),
            };
            while socket.write_all(framed.as_bytes()).await.is_ok() {}
            note_hangup(&state, &hangup);
            return;
        }
        Reply::Hang => true,
        Reply::Drop => false,
    };
    if wait_for_close {
        let mut buf = [0u8; 1024];
        loop {
            match socket.read(&mut buf).await {
                Ok(0) | Err(_) => break,
                Ok(_) => {}
            }
        }
        note_hangup(&state, &hangup);
    }
}

fn note_hangup(state: &Mutex<State>, hangup: &Notify) {
    state.lock().expect("state").hangups += 1;
    hangup.notify_waiters();
}

fn head(status: u16, headers: &[(String, String)], length: Option<usize>) -> String {
    let mut head = head_lines(status, headers);
    match length {
        Some(length) => head.push_str(&format!("content-length: {length}\r\n")),
        None => head.push_str("transfer-encoding: chunked\r\n"),
    }
    head.push_str("\r\n");
    head
}

/// A head whose framing header is among `headers`.
fn head_only(status: u16, headers: &[(String, String)]) -> String {
    let mut head = head_lines(status, headers);
    head.push_str("\r\n");
    head
}

fn head_lines(status: u16, headers: &[(String, String)]) -> String {
    let mut head = format!(
        "HTTP/1.1 {status} {}\r\nconnection: close\r\n",
        reason(status)
    );
    for (name, value) in headers {
        head.push_str(&format!("{name}: {value}\r\n"));
    }
    head
}

fn reason(status: u16) -> &'static str {
    match status {
        200 => "OK",
        301 => "Moved Permanently",
        302 => "Found",
        307 => "Temporary Redirect",
        308 => "Permanent Redirect",
        400 => "Bad Request",
        401 => "Unauthorized",
        403 => "Forbidden",
        404 => "Not Found",
        429 => "Too Many Requests",
        500 => "Internal Server Error",
        502 => "Bad Gateway",
        503 => "Service Unavailable",
        529 => "Overloaded",
        _ => "Status",
    }
}

async fn read_request(socket: &mut TcpStream) -> Option<Recorded> {
    let mut data = Vec::new();
    let mut buf = [0u8; 8192];
    let head_end = loop {
        if let Some(end) = data.windows(4).position(|w| w == b"\r\n\r\n") {
            break end;
        }
        let n = socket.read(&mut buf).await.ok()?;
        if n == 0 {
            return None;
        }
        data.extend_from_slice(&buf[..n]);
    };
    let at = Instant::now();
    let head = String::from_utf8_lossy(&data[..head_end]).to_string();
    let mut lines = head.split("\r\n");
    let mut request_line = lines.next()?.split(' ');
    let method = request_line.next()?.to_owned();
    let path = request_line.next()?.to_owned();
    let headers: Vec<(String, String)> = lines
        .filter_map(|line| line.split_once(':'))
        .map(|(n, v)| (n.trim().to_ascii_lowercase(), v.trim().to_owned()))
        .collect();
    let length: usize = headers
        .iter()
        .find(|(n, _)| n == "content-length")
        .and_then(|(_, v)| v.parse().ok())
        .unwrap_or(0);
    let mut body = data[head_end + 4..].to_vec();
    while body.len() < length {
        let n = socket.read(&mut buf).await.ok()?;
        if n == 0 {
            break;
        }
        body.extend_from_slice(&buf[..n]);
    }
    Some(Recorded {
        method,
        path,
        headers,
        body: String::from_utf8_lossy(&body).into(),
        at,
    })
}
