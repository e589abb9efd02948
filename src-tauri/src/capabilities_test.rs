//! The main window's permissions are exactly the ones listed here, each with its reason: a
//! permission added to `capabilities/` without a reason (or a reason left for one that was
//! removed) fails this test.

/// Every permission the webview holds, and why it needs it.
const GRANTED: &[(&str, &str)] = &[
    (
        "core:event:allow-listen",
        "the UI subscribes to typed events (DoctorUpdated, catalog refresh progress) through the generated bindings",
    ),
    (
        "core:event:allow-unlisten",
        "pages unsubscribe from those events when they unmount",
    ),
];

#[test]
fn every_permission_of_the_main_window_has_a_reason() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/capabilities/default.json");
    let text = std::fs::read_to_string(path).expect("read capabilities/default.json");
    let json: serde_json::Value = serde_json::from_str(&text).expect("capabilities are JSON");
    let mut held: Vec<String> = json["permissions"]
        .as_array()
        .expect("a permissions list")
        .iter()
        .map(|p| match p {
            serde_json::Value::String(id) => id.clone(),
            other => other["identifier"].as_str().unwrap_or_default().to_owned(),
        })
        .collect();
    held.sort();
    let mut reasoned: Vec<String> = GRANTED.iter().map(|(id, _)| (*id).to_owned()).collect();
    reasoned.sort();
    assert_eq!(
        held, reasoned,
        "capabilities/default.json and GRANTED must list the same permissions; give a reason \
         for each one you add"
    );
    assert!(
        !held
            .iter()
            .any(|p| p.ends_with(":default") || p.contains("shell") || p.contains("dialog")),
        "no default sets and no shell or dialog permission for the webview: {held:?}"
    );
    let files: Vec<_> = std::fs::read_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/capabilities"))
        .expect("list capabilities/")
        .map(|e| e.expect("entry").file_name())
        .collect();
    assert_eq!(files.len(), 1, "one capability file only: {files:?}");
}
