use std::fmt;

use crate::Secret;

/// Longest provider key accepted, in bytes. Real keys are a few hundred bytes at most; the
/// cap keeps a wrong paste (a whole file) out of the keychain and out of HTTP headers.
pub const MAX_KEY_BYTES: usize = 4096;

/// Why a pasted or piped provider key was refused. The messages never contain the input.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum InvalidKey {
    /// Nothing left after trimming surrounding whitespace.
    #[error("the key is empty")]
    Empty,
    /// Spaces, line breaks, control or invisible characters inside the key (two keys pasted
    /// at once, a copied label, a zero-width space from a web page).
    #[error("the key contains spaces, line breaks or invisible characters; pass only the key, on one line")]
    Characters,
    /// Longer than [`MAX_KEY_BYTES`].
    #[error("the key is longer than {MAX_KEY_BYTES} bytes; pass only the key")]
    TooLong,
}

/// A provider key that passed the one validation rule the app and the CLI share: surrounding
/// whitespace is trimmed (pasted keys often carry a newline); the rest must be non-empty, at
/// most [`MAX_KEY_BYTES`], and free of whitespace, control characters and invisible format
/// characters (every byte of it goes into an HTTP header). Only a `ProviderKey` can be stored.
#[derive(Clone, PartialEq, Eq)]
pub struct ProviderKey(Secret);

impl ProviderKey {
    /// Validates `text` (see the type). The `String` is moved into the [`Secret`] on success.
    pub fn parse(text: impl Into<String>) -> Result<Self, InvalidKey> {
        let secret = Secret::new(text);
        let value = secret.expose();
        if value.is_empty() {
            return Err(InvalidKey::Empty);
        }
        if value.len() > MAX_KEY_BYTES {
            return Err(InvalidKey::TooLong);
        }
        if value
            .chars()
            .any(|c| c.is_whitespace() || c.is_control() || is_invisible(c))
        {
            return Err(InvalidKey::Characters);
        }
        Ok(Self(secret))
    }

    /// The key, for the keychain.
    pub fn secret(&self) -> &Secret {
        &self.0
    }

    /// The last four characters, which the UI may show.
    pub fn last4(&self) -> String {
        self.0.last4()
    }
}

impl fmt::Debug for ProviderKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("ProviderKey(<redacted>)")
    }
}

/// Format characters that render as nothing but would be sent as part of the key.
fn is_invisible(c: char) -> bool {
    matches!(
        c,
        '\u{00AD}' | '\u{200B}'..='\u{200F}' | '\u{2060}'..='\u{2064}' | '\u{FEFF}'
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn surrounding_whitespace_is_trimmed() {
        let key = ProviderKey::parse("  sk-test-ABCD1234\r\n").expect("valid");
        assert_eq!(key.secret().expose(), "sk-test-ABCD1234");
        assert_eq!(key.last4(), "1234");
        assert_eq!(format!("{key:?}"), "ProviderKey(<redacted>)");
        assert!(ProviderKey::parse("sk-π-unicode-ok").is_ok());
    }

    #[test]
    fn empty_inner_whitespace_control_invisible_and_long_keys_are_refused() {
        assert_eq!(ProviderKey::parse(" \n\t"), Err(InvalidKey::Empty));
        for bad in [
            "sk-one\nsk-two",
            "sk-one sk-two",
            "sk-tab\there",
            "sk-nul\u{0}x",
            "sk-del\u{7f}x",
            "sk-zero\u{200B}width",
            "\u{FEFF}sk-bom",
            "sk-nbsp\u{00A0}x",
        ] {
            assert_eq!(
                ProviderKey::parse(bad),
                Err(InvalidKey::Characters),
                "{bad:?}"
            );
        }
        assert!(ProviderKey::parse("k".repeat(MAX_KEY_BYTES)).is_ok());
        assert_eq!(
            ProviderKey::parse("k".repeat(MAX_KEY_BYTES + 1)),
            Err(InvalidKey::TooLong)
        );
        let message = ProviderKey::parse("sk-secret one")
            .expect_err("space")
            .to_string();
        assert!(!message.contains("sk-secret"), "{message}");
    }
}
