//! Agents over MCP: the approve setting (off by default, stored, unreadable values off) and
//! the connect snippets naming the `switchyard` binary found beside a folder.

use switchyard_engine::{Engine, EngineConfig, AGENTS_MAY_APPROVE_SETTING};

async fn engine(home: &std::path::Path) -> Engine {
    Engine::open(EngineConfig {
        home: Some(home.to_path_buf()),
    })
    .await
    .expect("engine")
}

#[tokio::test]
async fn approval_by_agents_is_off_until_set_and_survives_a_restart() {
    let dir = tempfile::tempdir().expect("tempdir");
    let engine = engine(dir.path()).await;
    assert!(!engine.agents_may_approve().await.expect("read"));
    assert!(engine.set_agents_may_approve(true).await.expect("set"));
    engine.close().await;
    let engine = self::engine(dir.path()).await;
    assert!(engine.agents_may_approve().await.expect("read"));
    assert!(
        engine
            .agent_connect(None)
            .await
            .expect("connect")
            .agents_may_approve
    );
    engine.close().await;

    let store = switchyard_store::Store::open(&dir.path().join(switchyard_store::DATABASE_FILE))
        .await
        .expect("store");
    store
        .set_setting(
            AGENTS_MAY_APPROVE_SETTING,
            "yes please",
            "2026-12-02T00:00:00Z",
        )
        .await
        .expect("set");
    store.close().await;
    let engine = self::engine(dir.path()).await;
    assert!(
        !engine.agents_may_approve().await.expect("read"),
        "an unreadable value keeps approval with the human"
    );
    engine.close().await;
}

#[cfg(unix)]
#[tokio::test]
async fn snippets_name_the_binary_beside_the_given_folder() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().expect("tempdir");
    let engine = engine(&dir.path().join("home")).await;
    let bin = dir.path().join("my apps");
    std::fs::create_dir_all(&bin).expect("bin");
    let binary = bin.join("switchyard");
    std::fs::write(&binary, "#!/bin/sh\n").expect("write");

    // Not executable: not taken.
    let connect = engine.agent_connect(Some(&bin)).await.expect("connect");
    assert_ne!(connect.binary.as_deref(), binary.to_str());

    std::fs::set_permissions(&binary, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    let connect = engine.agent_connect(Some(&bin)).await.expect("connect");
    let path = binary.to_str().expect("utf-8");
    assert_eq!(connect.binary.as_deref(), Some(path));
    assert_eq!(connect.problem, None);
    assert_eq!(connect.configs.len(), 5);
    assert_eq!(
        connect.configs[0].snippet,
        format!("claude mcp add switchyard -- '{path}' mcp")
    );
    assert!(connect.configs[1]
        .snippet
        .contains(&format!("command = \"{path}\"")));
    engine.close().await;
}
