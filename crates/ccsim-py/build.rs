//! The engine's identity for caches (`engine_id()`): the crate version
//! does not change with every behaviour change, so a sweep's cached run
//! would outlive the engine that made it. A digest of the engine's
//! sources (`ccsim-core`'s `src/` and manifest, the workspace lock file)
//! does: any edit that can move a result gives another identity.
use sha2::{Digest, Sha256};
use std::path::{Path, PathBuf};

fn files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    for e in entries.flatten() {
        let p = e.path();
        if p.is_dir() {
            files(&p, out);
        } else {
            out.push(p);
        }
    }
}

fn main() {
    let here = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR"));
    let core = here.join("../ccsim-core");
    let lock = here.join("../../Cargo.lock");
    // (name, path): each file named by its place in the workspace, not
    // by where the checkout lies, so every checkout of a commit agrees
    let mut paths = Vec::new();
    files(&core.join("src"), &mut paths);
    paths.push(core.join("Cargo.toml"));
    let mut named: Vec<(String, PathBuf)> = paths
        .into_iter()
        .filter(|p| p.is_file())
        .filter_map(|p| {
            let rel = p.strip_prefix(&core).ok()?.to_string_lossy().replace('\\', "/");
            Some((format!("ccsim-core/{rel}"), p))
        })
        .collect();
    if lock.is_file() {
        named.push(("Cargo.lock".to_string(), lock.clone()));
    }
    named.sort();
    let mut h = Sha256::new();
    for (name, p) in &named {
        h.update(name.as_bytes());
        h.update([0]);
        h.update(std::fs::read(p).unwrap_or_default());
        h.update([0]);
    }
    let digest = if named.len() > 2 {
        h.finalize().iter().take(8).map(|b| format!("{b:02x}")).collect::<String>()
    } else {
        println!("cargo:warning=ccsim-core's sources not found beside ccsim-py: engine_id() without a digest");
        "nosource".to_string()
    };
    println!("cargo:rustc-env=CCSIM_ENGINE_SOURCE={digest}");
    println!("cargo:rerun-if-changed={}", core.join("src").display());
    println!("cargo:rerun-if-changed={}", core.join("Cargo.toml").display());
    println!("cargo:rerun-if-changed={}", lock.display());
}
