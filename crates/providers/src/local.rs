//! Local model servers: Ollama (`GET /api/tags`) and LM Studio (`GET /v1/models`).

use std::time::Duration;

use serde::Deserialize;

/// The local servers Switchyard knows, with their default addresses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LocalServer {
    /// Ollama (`ollama serve`).
    Ollama,
    /// LM Studio's local server.
    LmStudio,
}

impl LocalServer {
    /// Both known servers.
    pub const ALL: [LocalServer; 2] = [LocalServer::Ollama, LocalServer::LmStudio];

    /// The provider id (`ollama`, `lmstudio`).
    pub fn id(self) -> &'static str {
        match self {
            LocalServer::Ollama => "ollama",
            LocalServer::LmStudio => "lmstudio",
        }
    }

    /// Display name.
    pub fn name(self) -> &'static str {
        match self {
            LocalServer::Ollama => "Ollama",
            LocalServer::LmStudio => "LM Studio",
        }
    }

    /// The server root on this machine (without `/v1`).
    pub fn default_base_url(self) -> &'static str {
        match self {
            LocalServer::Ollama => "http://127.0.0.1:11434",
            LocalServer::LmStudio => "http://127.0.0.1:1234",
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

/// Lists the model names a local server has; `base_url` is the server root or its `/v1` base.
/// Short timeouts: a local server answers fast or is not there.
pub async fn list_models(server: LocalServer, base_url: &str) -> Result<Vec<String>, LocalError> {
    // Accept the server root or the OpenAI-compatible base (`…/v1`) the registry uses.
    let root = base_url.trim_end_matches('/');
    let root = root.strip_suffix("/v1").unwrap_or(root);
    let url = format!("{root}{}", server.list_path());
    let client = reqwest::Client::builder()
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
    let body = response
        .bytes()
        .await
        .map_err(|e| LocalError::Unreachable {
            url: url.clone(),
            detail: describe(&e),
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
