//! Which URLs leave the app and which the webview may load.
//!
//! Links open in the system browser only when they are plain `http`/`https` URLs without
//! credentials; the main webview never navigates away from the app's own origin (a link, a
//! redirect or injected script that tries is stopped by the navigation guard in `lib.rs`).

use tauri::Url;

/// Why a link was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LinkError {
    /// Not a URL at all.
    #[error("not a link: {0}")]
    Unparsable(String),
    /// A scheme other than http or https (`file:`, `javascript:`, `smb:`, …).
    #[error("only http and https links open in the browser, not {0}:")]
    Scheme(String),
    /// `user:password@host`: such links are phishing bait and may carry credentials.
    #[error("links with a user name or password are not opened")]
    Userinfo,
    /// No host to go to.
    #[error("the link has no host")]
    NoHost,
}

/// Parses `raw` and accepts it only as an `http`/`https` URL with a host and no userinfo.
pub fn external_link(raw: &str) -> Result<Url, LinkError> {
    let url = Url::parse(raw.trim()).map_err(|e| LinkError::Unparsable(e.to_string()))?;
    if !matches!(url.scheme(), "http" | "https") {
        return Err(LinkError::Scheme(url.scheme().to_owned()));
    }
    if !url.username().is_empty() || url.password().is_some() {
        return Err(LinkError::Userinfo);
    }
    if url.host_str().is_none_or(str::is_empty) {
        return Err(LinkError::NoHost);
    }
    Ok(url)
}

/// Whether the main webview may load `url`: only the app's own assets, served over Tauri's
/// custom protocol (`tauri://localhost` on Linux and macOS, `http(s)://tauri.localhost` on
/// Windows), and `about:blank`, which WebKit loads while a page is created.
pub fn is_app_origin(url: &Url) -> bool {
    match url.scheme() {
        "tauri" => url.host_str() == Some("localhost"),
        "http" | "https" => url.host_str() == Some("tauri.localhost") && url.port().is_none(),
        "about" => url.path() == "blank",
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn url(raw: &str) -> Url {
        Url::parse(raw).expect("test URL parses")
    }

    #[test]
    fn open_link_accepts_plain_web_links() {
        for raw in [
            "https://openrouter.ai/models",
            "http://127.0.0.1:8080/v1",
            "  https://example.com/a?b=c#d ",
        ] {
            assert!(external_link(raw).is_ok(), "{raw}");
        }
    }

    #[test]
    fn open_link_refuses_prefix_tricks_and_other_schemes() {
        // The old check was `starts_with("http://")`, which these defeat or which it let through.
        assert_eq!(
            external_link("https://user:pass@evil.example/"),
            Err(LinkError::Userinfo)
        );
        assert_eq!(
            external_link("https://openrouter.ai@evil.example/"),
            Err(LinkError::Userinfo)
        );
        assert_eq!(
            external_link("file:///etc/passwd"),
            Err(LinkError::Scheme("file".into()))
        );
        assert_eq!(
            external_link("javascript:alert(1)"),
            Err(LinkError::Scheme("javascript".into()))
        );
        assert!(matches!(
            external_link("https://"),
            Err(LinkError::Unparsable(_) | LinkError::NoHost)
        ));
        assert!(matches!(
            external_link("not a url"),
            Err(LinkError::Unparsable(_))
        ));
    }

    #[test]
    fn navigation_guard_allows_only_the_app_origin() {
        assert!(is_app_origin(&url("tauri://localhost/")));
        assert!(is_app_origin(&url("tauri://localhost/index.html#/models")));
        assert!(is_app_origin(&url("http://tauri.localhost/")));
        assert!(is_app_origin(&url("about:blank")));
        for raw in [
            "https://evil.example/",
            "http://localhost:1420/",
            "tauri://evil/",
            "http://tauri.localhost.evil.example/",
            "http://tauri.localhost:8080/",
            "file:///etc/passwd",
            "data:text/html,<h1>x</h1>",
        ] {
            assert!(!is_app_origin(&url(raw)), "{raw} must be refused");
        }
    }
}
