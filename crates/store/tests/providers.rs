//! Provider settings against a real SQLite file.

use switchyard_core::providers::ProviderKind;
use switchyard_store::providers::ProviderRecord;
use switchyard_store::{Store, DATABASE_FILE};

const T0: &str = "2026-11-29T11:00:00Z";
const T1: &str = "2026-11-29T11:05:00Z";

async fn store() -> (tempfile::TempDir, Store) {
    let dir = tempfile::tempdir().expect("tempdir");
    let store = Store::open(&dir.path().join(DATABASE_FILE))
        .await
        .expect("open");
    (dir, store)
}

#[tokio::test]
async fn base_url_overrides_are_set_replaced_and_cleared() {
    let (_dir, store) = store().await;
    assert_eq!(store.provider_records().await.expect("list"), vec![]);
    store
        .set_provider_base_url("openai", "http://127.0.0.1:9/v1", T0)
        .await
        .expect("set");
    store
        .set_provider_base_url("openai", "http://127.0.0.1:10/v1", T1)
        .await
        .expect("replace");
    assert_eq!(
        store.provider_record("openai").await.expect("get"),
        Some(ProviderRecord::Override {
            id: "openai".into(),
            base_url: "http://127.0.0.1:10/v1".into()
        })
    );
    assert!(store
        .clear_provider_base_url("openai")
        .await
        .expect("clear"));
    assert!(!store
        .clear_provider_base_url("openai")
        .await
        .expect("clear again"));
    assert_eq!(store.provider_record("openai").await.expect("get"), None);
}

#[tokio::test]
async fn custom_providers_are_added_once_updated_and_deleted() {
    let (dir, store) = store().await;
    let added = store
        .insert_custom_provider(
            "my-vllm",
            "My vLLM",
            ProviderKind::OpenaiCompatible,
            "http://h:8000/v1",
            T0,
        )
        .await
        .expect("insert");
    assert!(added);
    let again = store
        .insert_custom_provider("my-vllm", "Other", ProviderKind::Anthropic, "http://x", T1)
        .await
        .expect("insert again");
    assert!(!again, "an existing id is not replaced");
    store
        .insert_custom_provider("proxy", "Proxy", ProviderKind::Anthropic, "http://p", T0)
        .await
        .expect("insert");
    store
        .set_provider_base_url("my-vllm", "http://h:9000/v1", T1)
        .await
        .expect("move");
    // Clearing an override never removes a custom provider.
    assert!(!store
        .clear_provider_base_url("my-vllm")
        .await
        .expect("clear"));

    let records = store.provider_records().await.expect("list");
    assert_eq!(
        records,
        vec![
            ProviderRecord::Custom {
                id: "my-vllm".into(),
                name: "My vLLM".into(),
                kind: ProviderKind::OpenaiCompatible,
                base_url: "http://h:9000/v1".into(),
            },
            ProviderRecord::Custom {
                id: "proxy".into(),
                name: "Proxy".into(),
                kind: ProviderKind::Anthropic,
                base_url: "http://p".into(),
            },
        ]
    );
    assert_eq!(records[0].id(), "my-vllm");
    assert_eq!(records[1].base_url(), "http://p");

    assert!(store.delete_custom_provider("proxy").await.expect("delete"));
    assert!(!store
        .delete_custom_provider("proxy")
        .await
        .expect("delete again"));
    store.close().await;

    let reopened = Store::open(&dir.path().join(DATABASE_FILE))
        .await
        .expect("reopen");
    assert_eq!(reopened.provider_records().await.expect("list").len(), 1);
}

#[tokio::test]
async fn the_schema_refuses_kinds_it_cannot_call() {
    let (_dir, store) = store().await;
    let err = store
        .insert_custom_provider("lab", "Lab", ProviderKind::Local, "http://h", T0)
        .await
        .expect_err("local is built in only");
    assert!(err.to_string().contains("CHECK constraint failed"), "{err}");
}

#[tokio::test]
async fn key_bindings_are_recorded_replaced_and_deleted() {
    use switchyard_store::keys::KeyBinding;
    let (_dir, store) = store().await;
    assert_eq!(store.key_bindings().await.expect("list"), vec![]);
    let binding = |origin: &str, last4: &str, at: &str| KeyBinding {
        provider: "openai".into(),
        origin: origin.into(),
        last4: last4.into(),
        stored_at: at.into(),
    };
    store
        .set_key_binding(&binding("https://api.openai.com", "55d2", T0))
        .await
        .expect("set");
    store
        .set_key_binding(&binding("http://127.0.0.1:9", "9f8e", T1))
        .await
        .expect("replace");
    assert_eq!(
        store.key_binding("openai").await.expect("get"),
        Some(binding("http://127.0.0.1:9", "9f8e", T1))
    );
    assert_eq!(store.key_bindings().await.expect("list").len(), 1);
    let bad = KeyBinding {
        origin: "ftp://h".into(),
        ..binding("x", "1", T0)
    };
    assert!(
        store.set_key_binding(&bad).await.is_err(),
        "only http(s) origins"
    );
    assert!(store.delete_key_binding("openai").await.expect("delete"));
    assert!(!store.delete_key_binding("openai").await.expect("again"));
    assert_eq!(store.key_binding("openai").await.expect("get"), None);
}
