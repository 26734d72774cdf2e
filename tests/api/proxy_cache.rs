//! The origin behind a real shared cache: Debian's nginx with `proxy_cache`, configured by
//! the repository's deploy/nginx-cache.conf, in front of the real server. Ignored (reported
//! as such) without the `test-nginx` feature, which needs `apt-get install -y nginx`.
#![cfg_attr(not(feature = "test-nginx"), allow(dead_code, unused_imports))]

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Child, Command};
use std::time::Duration;

use crate::helpers::{self, TestApp};
use reqwest::StatusCode;
use reqwest::header::HeaderMap;
use serde_json::json;

const NGINX: &str = "/usr/sbin/nginx";
const CODINGS: [&str; 4] = ["identity", "gzip", "br", "zstd"];

/// nginx on a free local port with a temporary prefix, proxying to `origin`.
struct Cache {
    base: String,
    prefix: PathBuf,
    child: Child,
}

impl Cache {
    fn start(origin: &str) -> Cache {
        let origin = origin.trim_start_matches("http://");
        let prefix = std::env::temp_dir().join(format!(
            "levelforge_nginx_{}_{}",
            std::process::id(),
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .unwrap()
                .as_nanos()
        ));
        std::fs::create_dir_all(&prefix).unwrap();
        let port = free_port();
        let rules = Path::new(env!("CARGO_MANIFEST_DIR")).join("deploy/nginx-cache.conf");
        let p = prefix.display();
        let config = format!(
            "daemon off;
master_process off;
worker_processes 1;
pid {p}/nginx.pid;
error_log {p}/error.log warn;
events {{ worker_connections 256; }}
http {{
    access_log {p}/access.log;
    client_body_temp_path {p}/body;
    proxy_temp_path {p}/proxy;
    fastcgi_temp_path {p}/fastcgi;
    uwsgi_temp_path {p}/uwsgi;
    scgi_temp_path {p}/scgi;
    proxy_cache_path {p}/cache levels=1:2 keys_zone=levelforge:1m max_size=64m inactive=1d use_temp_path=off;
    upstream levelforge {{ server {origin}; keepalive 8; }}
    server {{
        listen 127.0.0.1:{port};
        include {rules};
    }}
}}
",
            rules = rules.display()
        );
        std::fs::write(prefix.join("nginx.conf"), config).unwrap();
        let child = Command::new(NGINX)
            .arg("-p")
            .arg(&prefix)
            .arg("-e")
            .arg(prefix.join("error.log"))
            .arg("-c")
            .arg(prefix.join("nginx.conf"))
            .spawn()
            .expect("nginx starts");
        let cache = Cache {
            base: format!("http://127.0.0.1:{port}"),
            prefix,
            child,
        };
        for _ in 0..100 {
            if std::net::TcpStream::connect(("127.0.0.1", port)).is_ok() {
                return cache;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        panic!("nginx did not listen: {}", cache.error_log());
    }

    fn url(&self, path: &str) -> String {
        format!("{}{path}", self.base)
    }

    fn error_log(&self) -> String {
        std::fs::read_to_string(self.prefix.join("error.log")).unwrap_or_default()
    }

    /// The lifetime nginx gave the stored answer of `path` (any variant), in seconds: the
    /// file cache header's `valid_sec - date` (nginx's `ngx_http_file_cache_header_t`,
    /// version 5: a word of version, then `valid_sec`, and `date` at byte 40).
    fn stored_lifetime(&self, path: &str) -> Option<i64> {
        let key = format!("\nKEY: httplevelforge{path}\n");
        let files = walk(&self.prefix.join("cache"));
        files.iter().find_map(|file| {
            let bytes = std::fs::read(file).ok()?;
            let text = String::from_utf8_lossy(&bytes);
            if !text.contains(&key) {
                return None;
            }
            let word = |at: usize| i64::from_ne_bytes(bytes[at..at + 8].try_into().unwrap());
            assert_eq!(word(0), 5, "nginx cache header version");
            Some(word(8) - word(40))
        })
    }
}

impl Drop for Cache {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        let _ = std::fs::remove_dir_all(&self.prefix);
    }
}

fn free_port() -> u16 {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    listener.local_addr().unwrap().port()
}

fn walk(dir: &Path) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    entries
        .flatten()
        .flat_map(|e| {
            let path = e.path();
            if path.is_dir() {
                walk(&path)
            } else {
                vec![path]
            }
        })
        .collect()
}

/// A GET with `Accept-Encoding: coding` (none for identity): status, headers, and the
/// body decoded from its `Content-Encoding`.
async fn get(url: &str, coding: &str) -> (StatusCode, HeaderMap, Vec<u8>) {
    get_as(url, coding, None).await
}

/// `get`, with `Authorization: Bearer <key>` when a key is given.
async fn get_as(url: &str, coding: &str, key: Option<&str>) -> (StatusCode, HeaderMap, Vec<u8>) {
    let mut request = helpers::client().get(url);
    if let Some(key) = key {
        request = request.bearer_auth(key);
    }
    if coding != "identity" {
        request = request.header("accept-encoding", coding);
    }
    let response = request.send().await.unwrap();
    let (status, headers) = (response.status(), response.headers().clone());
    let raw = response.bytes().await.unwrap();
    let sent = headers
        .get("content-encoding")
        .map(|v| v.to_str().unwrap().to_string());
    let mut plain = Vec::new();
    match sent.as_deref() {
        None => plain = raw.to_vec(),
        Some("gzip") => {
            flate2::read::GzDecoder::new(&raw[..])
                .read_to_end(&mut plain)
                .unwrap();
        }
        Some("br") => brotli::BrotliDecompress(&mut &raw[..], &mut plain).unwrap(),
        Some("zstd") => plain = zstd::decode_all(&raw[..]).unwrap(),
        Some(other) => panic!("unexpected coding {other}"),
    }
    (status, headers, plain)
}

fn header<'a>(headers: &'a HeaderMap, name: &str) -> &'a str {
    headers.get(name).map_or("", |v| v.to_str().unwrap())
}

#[tokio::test]
#[cfg_attr(
    not(feature = "test-nginx"),
    ignore = "needs Debian's nginx (apt-get install -y nginx) and --features test-nginx"
)]
async fn levels_come_from_the_origin_once_per_coding_then_from_the_cache() {
    let origin = TestApp::spawn().await;
    let cache = Cache::start(&origin.base);
    // Large enough to be compressed (a fruit level is ~400 B, a hashi expert ~1.2 KB).
    let paths = [
        "/levels/expert/3?game=hashi",
        "/levels/hard/2/preview.svg?game=fruit",
        "/levels/medium?game=tetropica&from=5&count=4",
    ];
    for path in paths {
        let (_, _, identity) = get(&origin.url(path), "identity").await;
        let mut etags = Vec::new();
        for coding in CODINGS {
            let (status, headers, body) = get(&cache.url(path), coding).await;
            assert_eq!(status, StatusCode::OK, "{path} {coding}");
            assert_eq!(
                header(&headers, "x-cache-status"),
                "MISS",
                "{path} {coding}"
            );
            assert_eq!(header(&headers, "vary"), "accept-encoding", "{path}");
            assert_eq!(body, identity, "{path} {coding}");
            etags.push(header(&headers, "etag").to_string());
        }
        etags.dedup();
        assert_eq!(etags.len(), CODINGS.len(), "one ETag per coding: {etags:?}");
        assert_eq!(cache.stored_lifetime(path), Some(31_536_000), "{path}");
    }
    // The origin is gone: every coding still comes, from the cache, each in its own coding.
    origin.stop().await;
    for path in paths {
        for coding in CODINGS {
            let (status, headers, body) = get(&cache.url(path), coding).await;
            assert_eq!(status, StatusCode::OK, "{path} {coding}");
            assert_eq!(header(&headers, "x-cache-status"), "HIT", "{path} {coding}");
            let expected = if coding == "identity" { "" } else { coding };
            assert_eq!(header(&headers, "content-encoding"), expected, "{path}");
            assert!(body.first().is_some_and(|b| b"[{<".contains(b)), "{path}");
        }
    }
}

#[tokio::test]
#[cfg_attr(
    not(feature = "test-nginx"),
    ignore = "needs Debian's nginx (apt-get install -y nginx) and --features test-nginx"
)]
async fn dated_daily_levels_are_kept_and_the_undated_redirect_for_60_seconds() {
    let origin = TestApp::spawn().await;
    let cache = Cache::start(&origin.base);
    let client = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap();
    let undated = "/levels/daily?game=hashi";
    let mut location = String::new();
    for expected in ["MISS", "HIT"] {
        let response = client.get(cache.url(undated)).send().await.unwrap();
        assert_eq!(response.status(), StatusCode::TEMPORARY_REDIRECT);
        assert_eq!(header(response.headers(), "x-cache-status"), expected);
        assert_eq!(
            header(response.headers(), "cache-control"),
            "public, max-age=60"
        );
        location = header(response.headers(), "location").to_string();
    }
    assert_eq!(cache.stored_lifetime(undated), Some(60));
    for expected in ["MISS", "HIT"] {
        let (status, headers, _) = get(&cache.url(&location), "gzip").await;
        assert_eq!(status, StatusCode::OK);
        assert_eq!(header(&headers, "x-cache-status"), expected, "{location}");
    }
    assert_eq!(cache.stored_lifetime(&location), Some(31_536_000));
    origin.stop().await;
}

#[tokio::test]
#[cfg_attr(
    not(feature = "test-nginx"),
    ignore = "needs Debian's nginx (apt-get install -y nginx) and --features test-nginx"
)]
async fn designer_routes_and_posts_are_never_cached() {
    let origin = TestApp::spawn().await;
    let cache = Cache::start(&origin.base);
    let client = helpers::client();
    // A stored level to browse and post against.
    let (status, _, level) = get(&cache.url("/levels/easy/1?game=fruit"), "gzip").await;
    assert_eq!(status, StatusCode::OK);
    let solution = serde_json::from_slice::<serde_json::Value>(&level).unwrap()["solution"].clone();
    let gets = [
        "/stats",
        "/stats?format=csv",
        "/levels?game=fruit",
        "/levels?game=fruit&difficulty=easy",
        "/",
        "/healthz",
    ];
    for _ in 0..2 {
        for path in gets {
            let key = helpers::is_designer_route(path).then_some(origin.designer_key.as_str());
            for coding in ["identity", "br"] {
                let (status, headers, _) = get_as(&cache.url(path), coding, key).await;
                assert_eq!(status, StatusCode::OK, "{path}");
                let answered_by = header(&headers, "x-cache-status");
                assert!(
                    ["", "MISS", "BYPASS", "EXPIRED"].contains(&answered_by),
                    "{path} {coding}: {answered_by}"
                );
            }
        }
        let posts = [
            (
                "/levels/easy/1/check?game=fruit",
                json!({"moves": solution}),
            ),
            (
                "/levels/easy/1/plays?game=fruit",
                json!({"solved": true, "moves": solution}),
            ),
        ];
        for (path, body) in posts {
            let response = client
                .post(cache.url(path))
                .json(&body)
                .send()
                .await
                .unwrap();
            assert!(response.status().is_success(), "{path}");
            assert_ne!(
                header(response.headers(), "x-cache-status"),
                "HIT",
                "{path}"
            );
        }
    }
    // Each play reached the origin: /stats counts both.
    let designer_key = origin.designer_key.clone();
    let key = Some(designer_key.as_str());
    let (_, _, stats) = get_as(&cache.url("/stats?game=fruit"), "identity", key).await;
    let stats: serde_json::Value = serde_json::from_slice(&stats).unwrap();
    let easy = stats["groups"]
        .as_array()
        .unwrap()
        .iter()
        .find(|g| g["difficulty"] == "easy")
        .expect("the easy fruit group");
    assert_eq!(easy["plays"]["count"], 2, "{stats}");
    assert!(cache.stored_lifetime("/stats").is_none());
    assert!(cache.stored_lifetime("/levels?game=fruit").is_none());
    origin.stop().await;
    // With the origin gone, nothing of these is answered from the cache.
    for path in gets {
        let (status, _, _) = get_as(&cache.url(path), "identity", key).await;
        assert_eq!(status, StatusCode::BAD_GATEWAY, "{path}");
    }
}
