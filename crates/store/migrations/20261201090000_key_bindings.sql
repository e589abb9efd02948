-- Which origin (scheme://host[:port]) each provider's stored key is bound to. The key itself
-- lives in the OS keychain under the account `<provider>@<origin>`; this table only records the
-- binding (and the key's last four characters, which the UI may show) so the Keys page and
-- `switchyard keys list` can say "key held for <origin>" without enumerating the keychain.
-- One row per provider: storing or moving a key replaces it, deleting the key deletes it.
CREATE TABLE key_bindings (
    provider  TEXT PRIMARY KEY NOT NULL CHECK (length(provider) BETWEEN 1 AND 40),
    origin    TEXT NOT NULL CHECK (origin LIKE 'http://%' OR origin LIKE 'https://%'),
    last4     TEXT NOT NULL CHECK (length(last4) <= 4),
    stored_at TEXT NOT NULL
) STRICT;
