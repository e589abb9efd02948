//! The egress proxy: the only way out of a sandbox whose network is provider-only.
//!
//! It listens on Unix sockets in a private directory that is bound into the sandbox, where
//! `socat` bridges each to a loopback port (see [`super::bwrap`]):
//! - `proxy.sock`: an HTTP proxy (`HTTPS_PROXY`/`HTTP_PROXY` point at its bridge). `CONNECT
//!   host:port` is tunnelled and a plain `http://` request forwarded only when `host:port` is
//!   on the allowlist; anything else is answered `403` and reported as a refusal naming the
//!   host;
//! - `fwd-<port>.sock`, one per allowed loopback origin: the sandbox's own `127.0.0.1:<port>`
//!   reaches the host's, so a client that never uses a proxy for loopback still gets to a
//!   local provider.
//!
//! Only the request line's target is read; headers (which carry the provider key) are passed
//! through untouched and never reported. Built on tokio and `httparse` (the parser under
//! hyper): the proxy crates we looked at are either full MITM frameworks (`hudsucker`) or
//! servers with their own runtime and config, while what is needed here is an allowlisted
//! `CONNECT` and one rewritten request line.

use std::io;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpStream, UnixListener, UnixStream};
use tokio::task::JoinHandle;

use super::bwrap::PROXY_PORT;
use super::Bridge;

/// Longest request head read before a target is known.
const MAX_HEAD: usize = 16 * 1024;
/// How long a client may take to send its request head.
const HEAD_TIMEOUT: Duration = Duration::from_secs(30);
/// How long connecting to an allowed origin may take.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(30);

/// `host:port`, the unit the allowlist holds.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Target {
    /// Lower case; an IPv6 address without brackets.
    pub host: String,
    pub port: u16,
}

impl Target {
    pub fn new(host: &str, port: u16) -> Self {
        Target {
            host: host
                .trim_start_matches('[')
                .trim_end_matches(']')
                .to_ascii_lowercase(),
            port,
        }
    }

    /// Parses `host:port` or `[v6]:port`.
    pub fn parse(authority: &str) -> Option<Self> {
        let (host, port) = authority.rsplit_once(':')?;
        let port = port.parse().ok()?;
        (!host.is_empty()).then(|| Target::new(host, port))
    }

    /// Whether this is this machine (a loopback origin is forwarded, not proxied).
    pub fn is_loopback(&self) -> bool {
        self.host == "localhost"
            || self.host == "::1"
            || self
                .host
                .parse::<std::net::Ipv4Addr>()
                .is_ok_and(|ip| ip.is_loopback())
    }

    fn connect_address(&self) -> String {
        if self.host.contains(':') {
            format!("[{}]:{}", self.host, self.port)
        } else {
            format!("{}:{}", self.host, self.port)
        }
    }
}

impl std::fmt::Display for Target {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.connect_address())
    }
}

/// What the proxy did with one connection.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ProxyEvent {
    Allowed { target: Target },
    Refused { target: String, reason: String },
}

/// Called with every event, from the proxy's tasks.
pub type ProxyLog = Arc<dyn Fn(ProxyEvent) + Send + Sync>;

/// A running egress proxy for one attempt. Dropping it stops it and removes its sockets.
pub struct EgressProxy {
    dir: PathBuf,
    bridges: Vec<Bridge>,
    proxy_port: u16,
    tasks: Vec<JoinHandle<()>>,
}

impl std::fmt::Debug for EgressProxy {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("EgressProxy")
            .field("dir", &self.dir)
            .field("bridges", &self.bridges)
            .finish_non_exhaustive()
    }
}

impl EgressProxy {
    /// Starts listening in `dir` (created, emptied of old sockets) for a sandbox that may reach
    /// only `allowed`. Must be called inside a tokio runtime.
    ///
    /// # Errors
    /// When the directory or a socket cannot be created.
    pub fn start(dir: &Path, allowed: Vec<Target>, log: ProxyLog) -> io::Result<Self> {
        std::fs::create_dir_all(dir)?;
        let allowed = Arc::new(allowed);
        let mut bridges = Vec::new();
        let mut tasks = Vec::new();
        let mut forwarded = Vec::new();
        for target in allowed.iter().filter(|t| t.is_loopback()) {
            if forwarded.contains(&target.port) {
                continue;
            }
            forwarded.push(target.port);
            let socket = dir.join(format!("fwd-{}.sock", target.port));
            let listener = bind(&socket)?;
            tasks.push(tokio::spawn(forward_loop(
                listener,
                target.clone(),
                log.clone(),
            )));
            bridges.push(Bridge {
                port: target.port,
                socket,
            });
        }
        let proxy_port = (PROXY_PORT..u16::MAX)
            .find(|p| !forwarded.contains(p))
            .unwrap_or(PROXY_PORT);
        let socket = dir.join("proxy.sock");
        let listener = bind(&socket)?;
        tasks.push(tokio::spawn(proxy_loop(listener, allowed, log)));
        bridges.push(Bridge {
            port: proxy_port,
            socket,
        });
        Ok(EgressProxy {
            dir: dir.to_path_buf(),
            bridges,
            proxy_port,
            tasks,
        })
    }

    /// The bridges the sandbox must start (forwards first, the proxy last).
    pub fn bridges(&self) -> &[Bridge] {
        &self.bridges
    }

    /// The proxy's URL inside the sandbox, for `HTTPS_PROXY` and `HTTP_PROXY`.
    pub fn url(&self) -> String {
        format!("http://127.0.0.1:{}", self.proxy_port)
    }

    /// The socket directory (bound into the sandbox).
    pub fn dir(&self) -> &Path {
        &self.dir
    }
}

impl Drop for EgressProxy {
    fn drop(&mut self) {
        for task in &self.tasks {
            task.abort();
        }
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

fn bind(socket: &Path) -> io::Result<UnixListener> {
    match std::fs::remove_file(socket) {
        Err(e) if e.kind() != io::ErrorKind::NotFound => return Err(e),
        _ => {}
    }
    UnixListener::bind(socket)
}

async fn forward_loop(listener: UnixListener, target: Target, log: ProxyLog) {
    while let Ok((mut client, _)) = listener.accept().await {
        let target = target.clone();
        let log = log.clone();
        tokio::spawn(async move {
            match connect(&target).await {
                Ok(mut upstream) => {
                    log(ProxyEvent::Allowed {
                        target: target.clone(),
                    });
                    let _ = tokio::io::copy_bidirectional(&mut client, &mut upstream).await;
                }
                Err(error) => log(ProxyEvent::Refused {
                    target: target.to_string(),
                    reason: format!("the provider could not be reached: {error}"),
                }),
            }
        });
    }
}

async fn proxy_loop(listener: UnixListener, allowed: Arc<Vec<Target>>, log: ProxyLog) {
    while let Ok((client, _)) = listener.accept().await {
        let allowed = allowed.clone();
        let log = log.clone();
        tokio::spawn(async move {
            if let Err(event) = serve(client, &allowed, &log).await {
                log(event);
            }
        });
    }
}

async fn connect(target: &Target) -> io::Result<TcpStream> {
    tokio::time::timeout(
        CONNECT_TIMEOUT,
        TcpStream::connect(target.connect_address()),
    )
    .await
    .map_err(|_| io::Error::new(io::ErrorKind::TimedOut, "connect timed out"))?
}

/// What the client asked for.
#[derive(Debug, PartialEq, Eq)]
enum Request {
    /// `CONNECT host:port`.
    Tunnel(Target),
    /// A plain `http://` request: the target and the head rewritten to origin form.
    Forward(Target, Vec<u8>),
}

/// Reads one request head and decides; `Err` is what to log (the client was answered).
async fn serve(
    mut client: UnixStream,
    allowed: &[Target],
    log: &ProxyLog,
) -> Result<(), ProxyEvent> {
    let (head_len, buffer) = match tokio::time::timeout(HEAD_TIMEOUT, read_head(&mut client)).await
    {
        Ok(Ok(read)) => read,
        _ => return Ok(()),
    };
    let request = match parse(&buffer[..head_len]) {
        Ok(request) => request,
        Err(reason) => {
            refuse(&mut client, "400 Bad Request", &reason).await;
            return Err(ProxyEvent::Refused {
                target: "(unreadable request)".to_owned(),
                reason,
            });
        }
    };
    let target = match &request {
        Request::Tunnel(t) | Request::Forward(t, _) => t.clone(),
    };
    if !allowed.contains(&target) {
        let reason = format!("{target} is not this worker's provider");
        refuse(&mut client, "403 Forbidden", &reason).await;
        return Err(ProxyEvent::Refused {
            target: target.to_string(),
            reason,
        });
    }
    let mut upstream = match connect(&target).await {
        Ok(upstream) => upstream,
        Err(error) => {
            let reason = format!("{target} could not be reached: {error}");
            refuse(&mut client, "502 Bad Gateway", &reason).await;
            return Err(ProxyEvent::Refused {
                target: target.to_string(),
                reason,
            });
        }
    };
    log(ProxyEvent::Allowed {
        target: target.clone(),
    });
    let rest = &buffer[head_len..];
    let sent = match request {
        Request::Tunnel(_) => {
            let answer = client
                .write_all(b"HTTP/1.1 200 Connection Established\r\n\r\n")
                .await;
            match answer {
                Ok(()) => upstream.write_all(rest).await,
                Err(e) => Err(e),
            }
        }
        Request::Forward(_, head) => match upstream.write_all(&head).await {
            Ok(()) => upstream.write_all(rest).await,
            Err(e) => Err(e),
        },
    };
    if sent.is_ok() {
        let _ = tokio::io::copy_bidirectional(&mut client, &mut upstream).await;
    }
    Ok(())
}

async fn refuse(client: &mut UnixStream, status: &str, reason: &str) {
    let body = format!("switchyard: {reason}\n");
    let answer = format!(
        "HTTP/1.1 {status}\r\nContent-Type: text/plain\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    );
    let _ = client.write_all(answer.as_bytes()).await;
    let _ = client.shutdown().await;
}

/// Reads until the end of the head (`\r\n\r\n`); returns its length and everything read.
async fn read_head(client: &mut UnixStream) -> io::Result<(usize, Vec<u8>)> {
    let mut buffer = Vec::with_capacity(1024);
    let mut chunk = [0u8; 4096];
    loop {
        let n = client.read(&mut chunk).await?;
        if n == 0 {
            return Err(io::ErrorKind::UnexpectedEof.into());
        }
        let from = buffer.len().saturating_sub(3);
        buffer.extend_from_slice(&chunk[..n]);
        if let Some(at) = buffer[from..].windows(4).position(|w| w == b"\r\n\r\n") {
            return Ok((from + at + 4, buffer));
        }
        if buffer.len() > MAX_HEAD {
            return Err(io::Error::new(
                io::ErrorKind::InvalidData,
                "request head too long",
            ));
        }
    }
}

fn parse(head: &[u8]) -> Result<Request, String> {
    let mut headers = [httparse::EMPTY_HEADER; 128];
    let mut request = httparse::Request::new(&mut headers);
    match request.parse(head) {
        Ok(httparse::Status::Complete(_)) => {}
        Ok(httparse::Status::Partial) => return Err("incomplete request head".to_owned()),
        Err(e) => return Err(format!("malformed request: {e}")),
    }
    let method = request.method.unwrap_or_default();
    let path = request.path.unwrap_or_default();
    if method.eq_ignore_ascii_case("CONNECT") {
        return Target::parse(path)
            .map(Request::Tunnel)
            .ok_or_else(|| format!("CONNECT needs host:port, not {path:?}"));
    }
    let Some(rest) = path
        .strip_prefix("http://")
        .or_else(|| path.strip_prefix("HTTP://"))
    else {
        return Err(format!(
            "only CONNECT and absolute http:// requests are proxied, not {method} {path:?}"
        ));
    };
    let (authority, origin_path) = match rest.find('/') {
        Some(at) => (&rest[..at], &rest[at..]),
        None => (rest, "/"),
    };
    let authority = authority.rsplit('@').next().unwrap_or(authority);
    let target = if authority.ends_with(']') || !authority.contains(':') {
        Target::new(authority, 80)
    } else {
        Target::parse(authority).ok_or_else(|| format!("bad authority {authority:?}"))?
    };
    // The head again, with the request line in origin form and the proxy's own headers gone.
    let version = request.version.unwrap_or(1);
    let mut out = format!("{method} {origin_path} HTTP/1.{version}\r\n").into_bytes();
    for header in request.headers.iter() {
        let name = header.name;
        if name.eq_ignore_ascii_case("proxy-connection")
            || name.eq_ignore_ascii_case("proxy-authorization")
        {
            continue;
        }
        out.extend_from_slice(name.as_bytes());
        out.extend_from_slice(b": ");
        out.extend_from_slice(header.value);
        out.extend_from_slice(b"\r\n");
    }
    out.extend_from_slice(b"\r\n");
    Ok(Request::Forward(target, out))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn targets_parse_with_ports_and_brackets() {
        assert_eq!(
            Target::parse("API.Anthropic.com:443"),
            Some(Target::new("api.anthropic.com", 443))
        );
        assert_eq!(Target::parse("[::1]:8080"), Some(Target::new("::1", 8080)));
        assert!(Target::new("::1", 1).is_loopback());
        assert!(Target::new("127.0.0.2", 1).is_loopback());
        assert!(!Target::new("10.0.0.1", 1).is_loopback());
        assert_eq!(Target::parse("nohost"), None);
    }

    #[test]
    fn connect_and_absolute_requests_name_their_target() {
        let tunnel = parse(b"CONNECT api.openai.com:443 HTTP/1.1\r\nHost: x\r\n\r\n");
        assert_eq!(
            tunnel,
            Ok(Request::Tunnel(Target::new("api.openai.com", 443)))
        );
        let forward = parse(
            b"POST http://127.0.0.1:9000/v1/messages HTTP/1.1\r\nHost: 127.0.0.1:9000\r\nProxy-Connection: keep-alive\r\nx-api-key: k\r\n\r\n",
        );
        let Ok(Request::Forward(target, head)) = forward else {
            panic!("{forward:?}");
        };
        assert_eq!(target, Target::new("127.0.0.1", 9000));
        let head = String::from_utf8_lossy(&head);
        assert!(head.starts_with("POST /v1/messages HTTP/1.1\r\n"), "{head}");
        assert!(!head.to_lowercase().contains("proxy-connection"), "{head}");
        assert!(head.contains("x-api-key: k\r\n"), "{head}");
        assert!(parse(b"GET /relative HTTP/1.1\r\n\r\n").is_err());
    }
}
