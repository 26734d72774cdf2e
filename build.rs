//! Sets the cfgs that let environment-bound tests run where they can and show as ignored
//! (never as passed) where they cannot:
//! - `cfg(nginx)` when Debian's nginx is installed (the proxy-cache test);
//! - `cfg(client_ts)` when the generated TypeScript client's packages are installed
//!   (`npm ci --prefix tests/client-ts`; tests/client_ts.rs).

fn main() {
    println!("cargo::rustc-check-cfg=cfg(nginx)");
    // The directory's time changes when a package adds or removes a program there.
    println!("cargo::rerun-if-changed=/usr/sbin");
    if std::path::Path::new("/usr/sbin/nginx").exists() {
        println!("cargo::rustc-cfg=nginx");
    }

    println!("cargo::rustc-check-cfg=cfg(client_ts)");
    // The folder (not the absent node_modules, which would re-run this on every build).
    println!("cargo::rerun-if-changed=tests/client-ts");
    if std::path::Path::new("tests/client-ts/node_modules/.package-lock.json").exists() {
        println!("cargo::rustc-cfg=client_ts");
    }
}
