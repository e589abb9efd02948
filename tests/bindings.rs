//! `ui/src/ipc/bindings.ts` is generated from the Rust types. This test regenerates it and
//! fails when the committed file differs, so stale bindings never pass CI. Locally the file is
//! rewritten, so running the test twice makes it pass; commit the result.

use std::path::Path;

use switchyard_desktop::{render_bindings, BINDINGS_PATH};

#[test]
fn committed_bindings_match_the_rust_types() {
    let committed_path = Path::new(env!("CARGO_MANIFEST_DIR")).join(BINDINGS_PATH);
    let dir = tempfile::tempdir().expect("tempdir");
    let fresh_path = dir.path().join("bindings.ts");
    render_bindings(&fresh_path).expect("export bindings");
    let fresh = std::fs::read_to_string(&fresh_path).expect("read fresh bindings");
    assert!(
        fresh.contains("getAppInfo") && fresh.contains("doctorUpdated"),
        "unexpected export"
    );

    let committed = std::fs::read_to_string(&committed_path).unwrap_or_default();
    if committed != fresh {
        std::fs::write(&committed_path, &fresh).expect("rewrite bindings");
        panic!(
            "{BINDINGS_PATH} was stale and has been regenerated; review and commit it \
             (CI fails until the committed file matches the Rust types)"
        );
    }
}
