//! The engine's modules depend one way, bottom to top (docs/architecture.md,
//! "Dependencies"): a module may name (`crate::<module>`) only modules of
//! its own layer or below. Test code (files named `*tests.rs` and inline
//! `#[cfg(test)] mod tests` blocks, which the crate keeps at the end of a
//! file) may reach higher, e.g. to run a whole scenario.
use std::path::{Path, PathBuf};

/// Each top-level module's layer; a higher number sits above.
const LAYERS: &[(&str, u8)] = &[
    ("sim", 0),
    ("scenario", 1),
    ("net", 2),
    ("transport", 3),
    ("flow", 4),
    ("app", 5),
    ("stats", 5),
    ("parts", 6),
    ("world", 6),
    ("catalog", 6),
];

fn layer(module: &str) -> Option<u8> {
    LAYERS.iter().find(|(m, _)| *m == module).map(|&(_, l)| l)
}

fn sources(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            sources(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

/// The top-level module a source file belongs to (`src/net/queue/red.rs`:
/// `net`; `src/world.rs`: `world`).
fn owner(src: &Path, file: &Path) -> String {
    let rel = file.strip_prefix(src).unwrap();
    let first = rel.components().next().unwrap().as_os_str().to_string_lossy().to_string();
    first.trim_end_matches(".rs").to_string()
}

/// `crate::<module>` names on the file's non-test lines, with line numbers.
fn crate_refs(text: &str) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    let mut lines = text.lines().enumerate().peekable();
    while let Some((i, line)) = lines.next() {
        if line.trim_start().starts_with("#[cfg(test)]")
            && lines.peek().is_some_and(|(_, l)| l.trim_start().starts_with("mod "))
        {
            break; // the test module closes the file
        }
        let code = line.split("//").next().unwrap_or("");
        let mut rest = code;
        while let Some(k) = rest.find("crate::") {
            let name: String = rest[k + 7..].chars().take_while(|c| c.is_ascii_alphanumeric() || *c == '_').collect();
            out.push((i + 1, name));
            rest = &rest[k + 7..];
        }
    }
    out
}

#[test]
fn modules_depend_only_on_their_layer_or_below() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    sources(&src, &mut files);
    files.sort();
    let mut upward = Vec::new();
    for f in &files {
        let name = f.file_name().unwrap().to_string_lossy();
        if name.ends_with("tests.rs") {
            continue;
        }
        let own = owner(&src, f);
        let Some(mine) = layer(&own) else { continue }; // lib.rs
        for (line, used) in crate_refs(&std::fs::read_to_string(f).unwrap()) {
            match layer(&used) {
                Some(l) if l > mine => upward.push(format!("{}:{line}: {own} names crate::{used}", f.display())),
                None if !used.is_empty()
                    && !["Scenario", "ConfigError", "Results", "Simulation"].contains(&used.as_str()) =>
                {
                    upward.push(format!("{}:{line}: crate::{used} is in no layer (add it to LAYERS)", f.display()))
                }
                _ => {}
            }
        }
    }
    assert!(upward.is_empty(), "dependencies that point up:\n{}", upward.join("\n"));
}

#[test]
fn every_module_has_a_layer() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let lib = std::fs::read_to_string(src.join("lib.rs")).unwrap();
    for line in lib.lines().filter(|l| l.starts_with("pub mod ")) {
        let m = line.trim_start_matches("pub mod ").trim_end_matches(';');
        assert!(layer(m).is_some(), "module {m} has no layer in tests/layers.rs");
    }
}

#[test]
fn the_check_sees_an_upward_name() {
    let refs = crate_refs("use crate::world::Simulation;\n#[cfg(test)]\nmod tests {\n use crate::world::X;\n}\n");
    assert_eq!(refs, [(1, "world".to_string())], "code before the test module only");
}
