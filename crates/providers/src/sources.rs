//! Fetching the catalog sources over HTTP. Bytes only: parsing is `core`'s job, storing is
//! the engine's. Every endpoint is a setting so tests (and mirrors) can point elsewhere.
//!
//! Every body is read against [`MAX_BODY`] (checked against `Content-Length` first, then
//! counted as it arrives). The Artificial Analysis key goes out through a keyed client
//! ([`http::keyed_client`]): never to another origin. The HF pager plans its pages with the
//! capped [`rows::page_offsets`] and stops at the first empty page, whatever
//! `num_rows_total` the server claims.

use std::time::Duration;

use futures_util::stream::{self, StreamExt};
use serde::Deserialize;
use switchyard_core::catalog::record::SourceId;
use switchyard_core::catalog::sources::hf_leaderboard::rows;
use switchyard_keychain::Secret;

use crate::http::{self, BodyError, CrossOriginRedirect};

/// Where each source is fetched from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SourceEndpoints {
    /// OpenRouter model list (no key).
    pub openrouter: String,
    /// Artificial Analysis API v2 (header `x-api-key`).
    pub artificial_analysis: String,
    /// HF datasets-server rows endpoint for the Open LLM Leaderboard contents dataset
    /// (`offset` and `length` are appended).
    pub hf_rows: String,
    /// LMArena leaderboard JSON (arena-catalog, style control).
    pub lmarena: String,
    /// LiveBench base URL; `table_<release>.csv` and `categories_<release>.json` live under it.
    pub livebench: String,
    /// LiveBench releases to try, newest first (the site publishes no index of them).
    pub livebench_releases: Vec<String>,
}

impl Default for SourceEndpoints {
    fn default() -> Self {
        Self {
            openrouter: "https://openrouter.ai/api/v1/models".into(),
            artificial_analysis: "https://artificialanalysis.ai/api/v2/data/llms/models".into(),
            hf_rows: "https://datasets-server.huggingface.co/rows?dataset=open-llm-leaderboard%2Fcontents&config=default&split=train".into(),
            lmarena: "https://raw.githubusercontent.com/lmarena/arena-catalog/main/data/leaderboard-text-style-control.json".into(),
            livebench: "https://livebench.ai".into(),
            livebench_releases: vec!["2026_06_25".into(), "2026_01_08".into()],
        }
    }
}

/// One fetched source: what to hand to `core::catalog::sources::parse_file`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FetchedSource {
    /// A file name the parser recognises (`models.json`, `table_2026_01_08.csv`, `rows.json`).
    pub name: String,
    pub bytes: Vec<u8>,
    /// LiveBench's categories file, when it exists for the release.
    pub companion: Option<Vec<u8>>,
    /// The URL read (for the status line).
    pub origin: String,
    /// Release date when the URL names one (`YYYY-MM-DD`).
    pub data_date: Option<String>,
    /// LiveBench only: older releases, newest first (releases are partial; the engine keeps
    /// each model's newest row).
    pub older: Vec<FetchedSource>,
}

/// Why a source could not be fetched. Never contains a key.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FetchError {
    #[error("{url}: {detail}")]
    Network { url: String, detail: String },
    /// The body (or, for the HF pager, all pages together) is larger than `limit` bytes;
    /// reading stopped there.
    #[error("{url}: the answer is larger than {limit} bytes")]
    TooLarge { url: String, limit: usize },
    /// A request carrying the key was redirected to another origin; nothing was sent there.
    #[error("{url}: {refused}")]
    Redirected {
        url: String,
        refused: CrossOriginRedirect,
    },
    #[error("{url} answered HTTP {status}: {body}")]
    Status {
        url: String,
        status: u16,
        body: String,
    },
    #[error("{0}")]
    MissingKey(String),
    #[error("{url}: unexpected response: {detail}")]
    Body { url: String, detail: String },
}

/// Most rows pages of the HF leaderboard fetched at once.
pub const HF_CONCURRENCY: usize = 4;
/// Rows per HF datasets-server page (its maximum).
pub const HF_PAGE: u64 = 100;
/// Most response bytes read from one URL, and from all HF pages together.
pub const MAX_BODY: usize = 64 * 1024 * 1024;

/// Most bytes of an error body read for its message.
const MAX_ERROR_BODY: usize = 4 * 1024;

/// The HTTP clients of source fetching: timeouts, a user agent, no cookies. Keyless sources
/// follow redirects as usual; the one carrying a key follows only those within its origin.
#[derive(Debug, Clone)]
pub struct SourceClient {
    plain: reqwest::Client,
    keyed: reqwest::Client,
}

/// The clients for [`fetch`].
pub fn http_client() -> Result<SourceClient, FetchError> {
    let build = |builder: reqwest::ClientBuilder| {
        builder
            .connect_timeout(Duration::from_secs(10))
            .timeout(Duration::from_secs(60))
            .user_agent(http::USER_AGENT)
            .build()
            .map_err(|e| FetchError::Network {
                url: String::new(),
                detail: e.to_string(),
            })
    };
    Ok(SourceClient {
        plain: build(reqwest::Client::builder())?,
        keyed: build(http::keyed_client())?,
    })
}

async fn get(
    client: &SourceClient,
    url: &str,
    key: Option<(&'static str, &Secret)>,
) -> Result<Vec<u8>, FetchError> {
    let request = match key {
        Some((header, secret)) => {
            let value = http::key_header(secret.expose()).map_err(|e| FetchError::Network {
                url: url.to_owned(),
                detail: e.to_string(),
            })?;
            client.keyed.get(url).header(header, value)
        }
        None => client.plain.get(url),
    };
    let response = request
        .send()
        .await
        .map_err(|e| match http::refused_redirect(&e) {
            Some(refused) => FetchError::Redirected {
                url: url.to_owned(),
                refused: refused.clone(),
            },
            None => FetchError::Network {
                url: url.to_owned(),
                detail: without_url(&e),
            },
        })?;
    let status = response.status();
    if !status.is_success() {
        let bytes = http::read_body_prefix(response, MAX_ERROR_BODY, None)
            .await
            .unwrap_or_default();
        // Redact before cutting: a cut through an echoed key would leave its first part.
        let body = crate::client::redact(&String::from_utf8_lossy(&bytes), key.map(|(_, k)| k));
        let body: String = body.chars().take(300).collect();
        return Err(FetchError::Status {
            url: url.to_owned(),
            status: status.as_u16(),
            body,
        });
    }
    http::read_body(response, MAX_BODY, None)
        .await
        .map_err(|error| match error {
            BodyError::TooLarge { limit } => FetchError::TooLarge {
                url: url.to_owned(),
                limit,
            },
            BodyError::Transport(e) => FetchError::Network {
                url: url.to_owned(),
                detail: without_url(&e),
            },
            other => FetchError::Network {
                url: url.to_owned(),
                detail: other.to_string(),
            },
        })
}

fn without_url(error: &reqwest::Error) -> String {
    if error.is_timeout() {
        "timed out".into()
    } else if error.is_connect() {
        "cannot connect".into()
    } else {
        error.to_string()
    }
}

/// Fetches one source. `aa_key` is needed for Artificial Analysis only.
pub async fn fetch(
    client: &SourceClient,
    endpoints: &SourceEndpoints,
    source: SourceId,
    aa_key: Option<&Secret>,
) -> Result<FetchedSource, FetchError> {
    match source {
        SourceId::OpenRouter => simple(client, &endpoints.openrouter, "models.json", None).await,
        SourceId::ArtificialAnalysis => {
            let key = aa_key.ok_or_else(|| {
                FetchError::MissingKey(
                    "Artificial Analysis needs an API key (add it on the Keys page or set ARTIFICIAL_ANALYSIS_API_KEY)".into(),
                )
            })?;
            simple(
                client,
                &endpoints.artificial_analysis,
                "models.json",
                Some(("x-api-key", key)),
            )
            .await
        }
        SourceId::LmArena => simple(client, &endpoints.lmarena, "leaderboard.json", None).await,
        SourceId::LiveBench => livebench(client, endpoints).await,
        SourceId::HfLeaderboard => hf_rows(client, &endpoints.hf_rows).await,
    }
}

async fn simple(
    client: &SourceClient,
    url: &str,
    name: &str,
    key: Option<(&'static str, &Secret)>,
) -> Result<FetchedSource, FetchError> {
    let bytes = get(client, url, key).await?;
    Ok(FetchedSource {
        name: name.into(),
        bytes,
        companion: None,
        origin: url.into(),
        data_date: None,
        older: Vec::new(),
    })
}

async fn livebench(
    client: &SourceClient,
    endpoints: &SourceEndpoints,
) -> Result<FetchedSource, FetchError> {
    let base = endpoints.livebench.trim_end_matches('/');
    let mut found: Vec<FetchedSource> = Vec::new();
    let mut last_error = None;
    for release in &endpoints.livebench_releases {
        let table_url = format!("{base}/table_{release}.csv");
        match get(client, &table_url, None).await {
            Ok(bytes) => {
                let categories_url = format!("{base}/categories_{release}.json");
                let companion = get(client, &categories_url, None).await.ok();
                found.push(FetchedSource {
                    name: format!("table_{release}.csv"),
                    bytes,
                    companion,
                    origin: table_url,
                    data_date: Some(release.replace('_', "-")),
                    older: Vec::new(),
                });
            }
            Err(error) => last_error = Some(error),
        }
    }
    if found.is_empty() {
        return Err(last_error.unwrap_or_else(|| FetchError::Body {
            url: base.to_owned(),
            detail: "no LiveBench release configured".into(),
        }));
    }
    // A release without its own categories file uses the newest older one's.
    for i in (0..found.len()).rev() {
        if found[i].companion.is_none() {
            found[i].companion = found[i + 1..].iter().find_map(|r| r.companion.clone());
        }
    }
    let mut newest = found.remove(0);
    newest.older = found;
    Ok(newest)
}

#[derive(Deserialize)]
struct RowsPage {
    #[serde(default)]
    rows: Vec<serde_json::Value>,
    num_rows_total: Option<u64>,
}

/// Pages through the datasets-server rows API, `HF_CONCURRENCY` pages at a time, and joins
/// the pages into one rows document the HF parser reads (`{rows:[…], num_rows_total}`).
///
/// `num_rows_total` is the server's word only: the pages are planned by the capped
/// [`rows::page_offsets`], paging stops at the first empty page, and all pages together are
/// held to [`MAX_BODY`].
async fn hf_rows(client: &SourceClient, base: &str) -> Result<FetchedSource, FetchError> {
    let page_url = |offset: u64| format!("{base}&offset={offset}&length={HF_PAGE}");
    let first_url = page_url(0);
    let first_bytes = get(client, &first_url, None).await?;
    let mut held = first_bytes.len();
    let first: RowsPage = serde_json::from_slice(&first_bytes).map_err(|e| FetchError::Body {
        url: first_url.clone(),
        detail: e.to_string(),
    })?;
    drop(first_bytes);
    let claimed = first.num_rows_total.unwrap_or(first.rows.len() as u64);
    let page_size = u32::try_from(HF_PAGE).unwrap_or(rows::MAX_PAGE_SIZE);
    let offsets: Vec<u64> = rows::page_offsets(claimed, page_size)
        .into_iter()
        .filter(|&offset| offset > 0)
        .collect();
    let mut pages = stream::iter(offsets)
        .map(|offset| {
            let url = page_url(offset);
            async move {
                let bytes = get(client, &url, None).await?;
                let size = bytes.len();
                let page =
                    serde_json::from_slice::<RowsPage>(&bytes).map_err(|e| FetchError::Body {
                        url,
                        detail: e.to_string(),
                    })?;
                Ok::<_, FetchError>((size, page))
            }
        })
        .buffered(HF_CONCURRENCY);
    let mut rows = first.rows;
    while let Some(page) = pages.next().await {
        let (size, page) = page?;
        held = held.saturating_add(size);
        if held > MAX_BODY {
            return Err(FetchError::TooLarge {
                url: base.to_owned(),
                limit: MAX_BODY,
            });
        }
        if page.rows.is_empty() {
            break;
        }
        rows.extend(page.rows);
    }
    drop(pages);
    let total = rows.len() as u64;
    let bytes = serde_json::to_vec(&serde_json::json!({ "rows": rows, "num_rows_total": total }))
        .map_err(|e| FetchError::Body {
        url: base.to_owned(),
        detail: e.to_string(),
    })?;
    Ok(FetchedSource {
        name: "rows.json".into(),
        bytes,
        companion: None,
        origin: base.to_owned(),
        data_date: None,
        older: Vec::new(),
    })
}
