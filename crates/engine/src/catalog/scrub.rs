//! Keeping keys out of refresh texts. A source may echo the key it was sent (the Artificial
//! Analysis API has); its error body then becomes a source error that is stored in SQLite,
//! sent in progress events, returned by `catalog_status` and logged. Every such text passes
//! through [`Scrubber::scrub`] first.

use switchyard_keychain::Secret;
use switchyard_providers::client::redact;

/// Shortest tail of a text that is redacted when it is the start of a key (a body cut at a
/// length limit can end part-way through an echoed key).
const MIN_CUT_PREFIX: usize = 6;

/// The keys one refresh holds, and how to remove them from text.
#[derive(Default)]
pub(super) struct Scrubber {
    keys: Vec<Secret>,
}

impl Scrubber {
    /// A scrubber for `keys` (empty ones are ignored).
    pub(super) fn new(keys: impl IntoIterator<Item = Secret>) -> Self {
        Self {
            keys: keys.into_iter().filter(|k| !k.is_empty()).collect(),
        }
    }

    /// `text` with every key replaced by `<redacted>` (through the providers' client
    /// redaction), and with a trailing start of a key, as a cut body leaves it, redacted too.
    pub(super) fn scrub(&self, text: &str) -> String {
        let mut text = text.to_owned();
        for key in &self.keys {
            text = redact(&text, Some(key));
            text = redact_cut_tail(&text, key.expose());
        }
        text
    }
}

/// Replaces the longest proper prefix of `key` (at least [`MIN_CUT_PREFIX`] characters) that
/// `text` ends with.
fn redact_cut_tail(text: &str, key: &str) -> String {
    let cuts = key
        .char_indices()
        .map(|(at, _)| at)
        .filter(|&at| at >= MIN_CUT_PREFIX);
    let longest = cuts.filter(|&at| text.ends_with(&key[..at])).max();
    match longest {
        Some(at) => format!("{}<redacted>", &text[..text.len() - at]),
        None => text.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const KEY: &str = "aa-SCRUB-1234567890abcdef";

    #[test]
    fn whole_keys_and_cut_keys_are_redacted() {
        let scrubber = Scrubber::new([Secret::new(KEY)]);
        assert_eq!(
            scrubber.scrub(&format!("bad key {KEY}, really {KEY}")),
            "bad key <redacted>, really <redacted>"
        );
        let cut = format!("HTTP 500: {}", &KEY[..14]);
        assert_eq!(scrubber.scrub(&cut), "HTTP 500: <redacted>");
        // A short accidental overlap is left alone.
        assert_eq!(scrubber.scrub("ends in aa-S"), "ends in aa-S");
        assert_eq!(
            Scrubber::default().scrub(&format!("no keys {KEY}")),
            format!("no keys {KEY}")
        );
    }
}
