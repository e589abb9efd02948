//! Where a request goes, as far as a key is concerned: the origin `scheme://host[:port]` of
//! the URL it is sent to, and the rules for which keys may go there.
//!
//! Every stored provider key is bound to one origin (the one it was entered for). A key is
//! only ever looked up for the origin of the request about to be made, so changing a
//! provider's base URL can never make a key travel to another host; moving it is an explicit
//! act of the user (a native dialog in the app, `--keep-key` in the CLI).
//!
//! Rules, all pure:
//! - [`Origin::accepts_keys`]: a key goes only over `https`, or to this machine (loopback,
//!   where plain `http` never leaves the host).
//! - [`env_key_allowed`]: a key read from an environment variable (`OPENAI_API_KEY`, …) goes
//!   only to the provider's built-in default origin or to a loopback origin, because nothing
//!   binds a variable to an origin and a changed base URL must not turn it into a way out.

use std::fmt;
use std::net::{IpAddr, Ipv6Addr};

/// The origin of a URL: scheme, host and port, with the scheme's default port dropped and the
/// host lowercased (IDNA hosts in their ASCII form, IPv6 in brackets), e.g.
/// `https://api.openai.com`, `http://127.0.0.1:8000`. Equal origins compare equal as values.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Origin {
    text: String,
    https: bool,
    loopback: bool,
}

/// Why a URL has no usable origin.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum OriginError {
    /// Not a URL at all.
    #[error("not a URL: {0}")]
    NotAUrl(String),
    /// Not `http` or `https`.
    #[error("scheme {0:?} is not http or https")]
    Scheme(String),
    /// No host part.
    #[error("the URL has no host")]
    NoHost,
}

impl Origin {
    /// The origin of `url` (any path, query or fragment is ignored). Errors: not a URL, a
    /// scheme other than `http`/`https`, no host.
    pub fn of_url(url: &str) -> Result<Origin, OriginError> {
        let parsed =
            url::Url::parse(url.trim()).map_err(|e| OriginError::NotAUrl(format!("{e}")))?;
        let https = match parsed.scheme() {
            "https" => true,
            "http" => false,
            other => return Err(OriginError::Scheme(other.to_owned())),
        };
        let loopback = match parsed.host() {
            None => return Err(OriginError::NoHost),
            Some(url::Host::Domain(domain)) => domain.eq_ignore_ascii_case("localhost"),
            Some(url::Host::Ipv4(ip)) => ip.is_loopback(),
            Some(url::Host::Ipv6(ip)) => ipv6_loopback(ip),
        };
        if parsed.host_str().is_none_or(str::is_empty) {
            return Err(OriginError::NoHost);
        }
        Ok(Origin {
            text: parsed.origin().ascii_serialization(),
            https,
            loopback,
        })
    }

    /// `scheme://host[:port]`.
    pub fn as_str(&self) -> &str {
        &self.text
    }

    /// The scheme is `https`.
    pub fn is_https(&self) -> bool {
        self.https
    }

    /// The host is this machine: `localhost`, `127.0.0.0/8` or `::1`.
    pub fn is_loopback(&self) -> bool {
        self.loopback
    }

    /// Whether a key may be sent here at all: over `https`, or to a loopback host (plain
    /// `http` to another host would put the key on the network in clear text).
    pub fn accepts_keys(&self) -> bool {
        self.https || self.loopback
    }
}

impl fmt::Display for Origin {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)
    }
}

/// Whether a key taken from a provider's environment variable may be sent to `target`: only
/// to the provider's built-in `default` origin, or to a loopback origin. Custom providers
/// (no default) have no variable, so this is only asked for built-ins.
pub fn env_key_allowed(target: &Origin, default: Option<&Origin>) -> bool {
    target.is_loopback() || default == Some(target)
}

fn ipv6_loopback(ip: Ipv6Addr) -> bool {
    ip.is_loopback()
        || ip
            .to_ipv4_mapped()
            .is_some_and(|v4| IpAddr::V4(v4).is_loopback())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn origin(url: &str) -> Origin {
        Origin::of_url(url).unwrap_or_else(|e| panic!("{url}: {e}"))
    }

    #[test]
    fn origins_drop_paths_default_ports_and_case() {
        assert_eq!(
            origin("https://API.OpenAI.com/v1/").as_str(),
            "https://api.openai.com"
        );
        assert_eq!(
            origin("https://api.openai.com:443/v1"),
            origin("https://api.openai.com")
        );
        assert_eq!(origin("http://127.0.0.1:80/x").as_str(), "http://127.0.0.1");
        assert_eq!(
            origin("http://127.0.0.1:8000/v1").as_str(),
            "http://127.0.0.1:8000"
        );
        assert_ne!(
            origin("http://127.0.0.1:8000"),
            origin("http://127.0.0.1:8001")
        );
        assert_ne!(origin("http://example.com"), origin("https://example.com"));
        assert_eq!(origin("http://[::1]:9/v1").as_str(), "http://[::1]:9");
        assert_eq!(
            origin("https://bücher.example/v1").as_str(),
            "https://xn--bcher-kva.example"
        );
    }

    #[test]
    fn bad_urls_have_no_origin() {
        assert!(matches!(
            Origin::of_url("ftp://h"),
            Err(OriginError::Scheme(_))
        ));
        assert!(matches!(
            Origin::of_url("not a url"),
            Err(OriginError::NotAUrl(_))
        ));
        assert!(Origin::of_url("http://").is_err());
    }

    #[test]
    fn keys_go_over_https_or_to_loopback_only() {
        for url in [
            "https://api.openai.com",
            "http://127.0.0.1:8000",
            "http://127.1.2.3",
            "http://localhost:11434",
            "http://[::1]:9",
            "http://[::ffff:127.0.0.1]:9",
        ] {
            assert!(origin(url).accepts_keys(), "{url}");
        }
        for url in [
            "http://api.openai.com",
            "http://10.0.0.5:8000",
            "http://0.0.0.0:8000",
            "http://localhost.evil.example",
            "http://[::2]",
        ] {
            assert!(!origin(url).accepts_keys(), "{url}");
        }
    }

    #[test]
    fn environment_keys_go_to_the_default_origin_or_loopback() {
        let default = origin("https://api.openai.com/v1");
        assert!(env_key_allowed(
            &origin("https://api.openai.com/other"),
            Some(&default)
        ));
        assert!(env_key_allowed(
            &origin("http://127.0.0.1:9/v1"),
            Some(&default)
        ));
        assert!(!env_key_allowed(
            &origin("https://proxy.example/v1"),
            Some(&default)
        ));
        assert!(!env_key_allowed(&origin("https://proxy.example/v1"), None));
    }
}
