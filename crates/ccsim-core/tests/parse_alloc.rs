//! A scenario that parses is not copied: `Scenario::from_json` and
//! `from_toml` re-read the text only on the error path, which needs the
//! document to name a field. Measured as bytes allocated by this thread, with a
//! counting allocator (this test binary's own), around a document whose
//! `name` is 1 MB: a copy of the document allocates that megabyte again.
use ccsim_core::Scenario;
use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

struct Counting;

thread_local! {
    static ALLOCATED: Cell<usize> = const { Cell::new(0) };
}

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // try_with: a thread being torn down has no counter left
        let _ = ALLOCATED.try_with(|a| a.set(a.get() + layout.size()));
        System.alloc(layout)
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        System.dealloc(ptr, layout)
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let _ = ALLOCATED.try_with(|a| a.set(a.get() + new_size.saturating_sub(layout.size())));
        System.realloc(ptr, layout, new_size)
    }
}

#[global_allocator]
static A: Counting = Counting;

/// Bytes this thread allocates while running `f`.
fn allocated<T>(f: impl FnOnce() -> T) -> (usize, T) {
    let before = ALLOCATED.with(|a| a.get());
    let out = f();
    (ALLOCATED.with(|a| a.get()) - before, out)
}

const NAME_BYTES: usize = 1 << 20;

fn name() -> String {
    "n".repeat(NAME_BYTES)
}

const BODY_TOML: &str = "duration_s = 1.0\n[topology]\nkind = \"dumbbell\"\nbottleneck_rate_bps = 1e7\n\
                         bottleneck_queue = { limit_pkts = 20 }\n[[flows]]\nrtt_s = 0.1\n";

fn json_doc(name: &str) -> String {
    format!(
        r#"{{"name": "{name}", "duration_s": 1.0, "topology": {{"kind": "dumbbell", "bottleneck_rate_bps": 1e7,
            "bottleneck_queue": {{"limit_pkts": 20}}}}, "flows": [{{"rtt_s": 0.1}}]}}"#
    )
}

#[test]
fn from_json_copies_no_document_when_it_parses() {
    let text = json_doc(&name());
    // what reading the text into a document costs, the name once included
    let (doc, v) = allocated(|| serde_json::from_str::<serde_json::Value>(&text).unwrap());
    drop(v);
    let (parse, sc) = allocated(|| Scenario::from_json(&text).unwrap());
    assert_eq!(sc.name.len(), NAME_BYTES);
    // a copy of the document (or of its name) would add another megabyte
    assert!(parse < doc + NAME_BYTES / 2, "from_json allocated {parse} B; the document alone takes {doc} B");
}

#[test]
fn from_toml_copies_no_document_when_it_parses() {
    let text = format!("name = \"{}\"\n{BODY_TOML}", name());
    let (doc, v) = allocated(|| toml::from_str::<toml::Value>(&text).unwrap());
    drop(v);
    let (parse, sc) = allocated(|| Scenario::from_toml(&text).unwrap());
    assert_eq!(sc.name.len(), NAME_BYTES);
    assert!(parse < doc + NAME_BYTES / 2, "from_toml allocated {parse} B; the document alone takes {doc} B");
}

#[test]
fn errors_still_name_the_field_and_the_allowed_values() {
    // the error path re-reads the text: misspelt kind and a unit-variant value
    let e = Scenario::from_json(&json_doc("x").replace("\"dumbbell\"", "\"dumbell\"")).unwrap_err();
    assert_eq!(e.field, "topology.kind", "{e}");
    assert!(e.msg.contains("dumbbell") && e.msg.contains("parking_lot"), "{e}");
    let e = Scenario::from_toml(&format!("{BODY_TOML}pacing = 5\n")).unwrap_err();
    assert_eq!(e.field, "flows[0].pacing", "{e}");
    assert!(e.msg.starts_with("5 is not allowed") && e.msg.contains("interval"), "{e}");
    // an error inside the topology table names its field
    let e = Scenario::from_toml(&BODY_TOML.replace("bottleneck_rate_bps = 1e7", "bottleneck_rate_bps = \"x\""))
        .unwrap_err();
    assert_eq!(e.field, "topology.bottleneck_rate_bps", "{e}");
}
