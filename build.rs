//! Sets `cfg(nginx)` when Debian's nginx is installed, so that the proxy-cache test runs
//! where it can and is reported as ignored (never as passed) where it cannot.

fn main() {
    println!("cargo::rustc-check-cfg=cfg(nginx)");
    // The directory's time changes when a package adds or removes a program there.
    println!("cargo::rerun-if-changed=/usr/sbin");
    if std::path::Path::new("/usr/sbin/nginx").exists() {
        println!("cargo::rustc-cfg=nginx");
    }
}
