//! Sets `cfg(client_ts)` when the generated TypeScript client's packages are installed
//! (`npm ci --prefix tests/client-ts`): without them tests/client_ts.rs shows its client
//! test as ignored rather than failing or passing. Watching the folder (not the absent
//! node_modules) keeps the script from re-running on every build.
use std::path::Path;

fn main() {
    println!("cargo::rustc-check-cfg=cfg(client_ts)");
    println!("cargo::rerun-if-changed=tests/client-ts");
    if Path::new("tests/client-ts/node_modules/.package-lock.json").exists() {
        println!("cargo::rustc-cfg=client_ts");
    }
}
