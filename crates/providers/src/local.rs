//! Local model servers: Ollama (`GET /api/tags`) and LM Studio (`GET /v1/models`).
//!
//! [`list_models`] is the one probe of a local server: the provider list, the Keys page's Test,
//! the doctor, the planner and the catalog's local models all call it with the base URL the
//! user configured, so they agree on whether a server is there.

use std::time::Duration;

use serde::Deserialize;

use crate::http::{self, BodyError};

/// Largest model-list body read from a local server (a list of names; a few KiB in practice).
pub const MAX_LIST_BODY: usize = 4 * 1024 * 1024;

/// The local servers Switchyard knows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LocalServer {
    /// Ollama (`ollama serve`).
    Ollama,
    /// LM Studio's local server.
    LmStudio,
}

impl LocalServer {
    /// The provider id (`ollama`, `lmstudio`); its registry entry holds the name and the
    /// default base URL.
    pub fn id(self) -> &'static str {
        match self {
            LocalServer::Ollama => "ollama",
            LocalServer::LmStudio => "lmstudio",
        }
    }

    fn list_path(self) -> &'static str {
        match self {
            LocalServer::Ollama => "/api/tags",
            LocalServer::LmStudio => "/v1/models",
        }
    }
}

/// Why a local server did not give a model list.
#[derive(Debug, thiserror::Error)]
pub enum LocalError {
    /// Nothing answered (refused, timed out).
    #[error("not reachable at {url}: {detail}")]
    Unreachable {
        /// The URL requested.
        url: String,
        /// Why.
        detail: String,
    },
    /// It answered with an error status.
    #[error("{url} answered HTTP {status}")]
    Status {
        /// The URL requested.
        url: String,
        /// The HTTP status.
        status: u16,
    },
    /// It answered with a body larger than [`MAX_LIST_BODY`]; reading stopped there.
    #[error("{url} answered with more than {limit} bytes")]
    TooLarge {
        /// The URL requested.
        url: String,
        /// The cap in bytes.
        limit: usize,
    },
    /// It answered, but not with a model list.
    #[error("{url} answered with an unexpected body: {detail}")]
    Body {
        /// The URL requested.
        url: String,
        /// The parse error.
        detail: String,
    },
}

#[derive(Deserialize)]
struct OllamaTags {
    models: Vec<OllamaModel>,
}

#[derive(Deserialize)]
struct OllamaModel {
    name: String,
}

#[derive(Deserialize)]
struct OpenAiList {
    data: Vec<OpenAiModel>,
}

#[derive(Deserialize)]
struct OpenAiModel {
    id: String,
}

/// The server root of a local base URL: `http://127.0.0.1:11434/v1` → `http://127.0.0.1:11434`.
pub fn server_root(base_url: &str) -> &str {
    let root = base_url.trim_end_matches('/');
    root.strip_suffix("/v1").unwrap_or(root)
}

/// The model-list URL of `server` at `base_url` (the server root or its `/v1` base).
pub fn list_url(server: LocalServer, base_url: &str) -> String {
    format!("{}{}", server_root(base_url), server.list_path())
}

/// Lists the model names a local server has; `base_url` is the server root or its `/v1` base
/// (pass the provider's configured base URL). Short timeouts: a local server answers fast or
/// is not there. The body is read against [`MAX_LIST_BODY`].
pub async fn list_models(server: LocalServer, base_url: &str) -> Result<Vec<String>, LocalError> {
    let url = list_url(server, base_url);
    let client = reqwest::Client::builder()
        .user_agent(http::USER_AGENT)
        .connect_timeout(Duration::from_millis(500))
        .timeout(Duration::from_secs(2))
        .no_proxy()
        .build()
        .map_err(|e| LocalError::Unreachable {
            url: url.clone(),
            detail: e.to_string(),
        })?;
    let response = client
        .get(&url)
        .send()
        .await
        .map_err(|e| LocalError::Unreachable {
            url: url.clone(),
            detail: describe(&e),
        })?;
    let status = response.status();
    if !status.is_success() {
        return Err(LocalError::Status {
            url,
            status: status.as_u16(),
        });
    }
    let body = http::read_body(response, MAX_LIST_BODY, None)
        .await
        .map_err(|error| match error {
            BodyError::TooLarge { limit } => LocalError::TooLarge {
                url: url.clone(),
                limit,
            },
            BodyError::Transport(e) => LocalError::Unreachable {
                url: url.clone(),
                detail: describe(&e),
            },
            other => LocalError::Unreachable {
                url: url.clone(),
                detail: other.to_string(),
            },
        })?;
    let names = match server {
        LocalServer::Ollama => serde_json::from_slice::<OllamaTags>(&body)
            .map(|tags| tags.models.into_iter().map(|m| m.name).collect()),
        LocalServer::LmStudio => serde_json::from_slice::<OpenAiList>(&body)
            .map(|list| list.data.into_iter().map(|m| m.id).collect()),
    };
    names.map_err(|e| LocalError::Body {
        url,
        detail: e.to_string(),
    })
}

fn describe(error: &reqwest::Error) -> String {
    if error.is_connect() {
        "connection refused".into()
    } else if error.is_timeout() {
        "timed out".into()
    } else {
        error.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    use tokio::net::TcpListener;

    /// Serves exactly one HTTP response on 127.0.0.1 and returns the base URL.
    async fn serve_once(status: &'static str, body: &'static str) -> String {
        let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
        let addr = listener.local_addr().expect("addr");
        tokio::spawn(async move {
            if let Ok((mut socket, _)) = listener.accept().await {
                let mut buf = [0u8; 2048];
                let _ = socket.read(&mut buf).await;
                let response = format!(
                    "HTTP/1.1 {status}\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
                    body.len()
                );
                let _ = socket.write_all(response.as_bytes()).await;
            }
        });
        format!("http://{addr}")
    }

    #[tokio::test]
    async fn ollama_tags_are_listed() {
        let url = serve_once(
            "200 OK",
            r#"{"models":[{"name":"llama3.2:3b","size":1},{"name":"qwen2.5-coder:7b"}]}"#,
        )
        .await;
        let names = list_models(LocalServer::Ollama, &url).await.expect("list");
        assert_eq!(names, vec!["llama3.2:3b", "qwen2.5-coder:7b"]);
    }

    #[tokio::test]
    async fn lmstudio_models_are_listed() {
        let url = serve_once(
            "200 OK",
            r#"{"object":"list","data":[{"id":"qwen2.5-7b-instruct","object":"model"}]}"#,
        )
        .await;
        let names = list_models(LocalServer::LmStudio, &url)
            .await
            .expect("list");
        assert_eq!(names, vec!["qwen2.5-7b-instruct"]);
    }

    #[tokio::test]
    async fn wrong_body_and_status_and_refused_are_distinct_errors() {
        let url = serve_once("200 OK", r#"{"unexpected":true}"#).await;
        assert!(matches!(
            list_models(LocalServer::Ollama, &url).await,
            Err(LocalError::Body { .. })
        ));
        let url = serve_once("500 Internal Server Error", "{}").await;
        assert!(matches!(
            list_models(LocalServer::Ollama, &url).await,
            Err(LocalError::Status { status: 500, .. })
        ));
        // A port we bound and released: nothing listens there.
        let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
        let addr = listener.local_addr().expect("addr");
        drop(listener);
        let err = list_models(LocalServer::LmStudio, &format!("http://{addr}"))
            .await
            .expect_err("refused");
        assert!(matches!(err, LocalError::Unreachable { .. }), "{err}");
    }
}
