//! An empty window that reports its first paint the way Switchyard does: the page calls
//! `first_paint` after its first frame; with `SWITCHYARD_EXIT_ON_FIRST_PAINT=1` the process
//! prints `first_paint_ms=<n>` (since main) and exits.

use std::sync::OnceLock;
use std::time::Instant;

static START: OnceLock<Instant> = OnceLock::new();

#[tauri::command]
fn first_paint(app: tauri::AppHandle) -> u32 {
    let millis = START
        .get()
        .map_or(0, |s| u32::try_from(s.elapsed().as_millis()).unwrap_or(u32::MAX));
    if std::env::var("SWITCHYARD_EXIT_ON_FIRST_PAINT").as_deref() == Ok("1") {
        println!("first_paint_ms={millis}");
        app.exit(0);
    }
    millis
}

fn main() {
    START.get_or_init(Instant::now);
    // Switchyard's own WebKit setting (src-tauri/src/startup.rs).
    if std::env::var_os("WEBKIT_DISABLE_COMPOSITING_MODE").is_none() {
        std::env::set_var("WEBKIT_DISABLE_COMPOSITING_MODE", "1");
    }
    tauri::Builder::default()
        .invoke_handler(tauri::generate_handler![first_paint])
        .run(tauri::generate_context!())
        .unwrap_or_else(|e| panic!("the empty app failed: {e}"));
}
