use std::fmt;

/// A secret value (an API key). It cannot be printed, logged or serialized: `Debug` and
/// `Display` redact, there is no `Serialize`, and the only way out is [`Secret::expose`],
/// which call sites use right where the value goes onto the wire.
#[derive(Clone, PartialEq, Eq)]
pub struct Secret(String);

impl Secret {
    /// Wraps a value, trimming surrounding whitespace (pasted keys often carry a newline).
    pub fn new(value: impl Into<String>) -> Self {
        Self(value.into().trim().to_owned())
    }

    /// The raw value, for an HTTP header. Never for a log, an error or the UI.
    pub fn expose(&self) -> &str {
        &self.0
    }

    /// Whether the value is empty.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// The last four characters, which the UI may show to tell keys apart.
    pub fn last4(&self) -> String {
        let chars: Vec<char> = self.0.chars().collect();
        let start = chars.len().saturating_sub(4);
        chars[start..].iter().collect()
    }
}

impl fmt::Debug for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Secret(<redacted>)")
    }
}

impl fmt::Display for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("<redacted>")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn debug_and_display_redact() {
        let secret = Secret::new("sk-test-ABCDEFGH1234\n");
        assert_eq!(format!("{secret:?}"), "Secret(<redacted>)");
        assert_eq!(format!("{secret}"), "<redacted>");
        assert_eq!(secret.expose(), "sk-test-ABCDEFGH1234");
        assert_eq!(secret.last4(), "1234");
        assert_eq!(Secret::new("ab").last4(), "ab");
    }
}
