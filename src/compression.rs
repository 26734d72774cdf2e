//! Content codings (br, zstd, gzip) and conditional answers, in one place.
//!
//! Immutable bytes (levels, packs, previews, the dashboard's files) are held as
//! [`Variants`]: the identity bytes plus each coding, compressed once on first use and
//! kept beside them, so a warm request only picks bytes and headers. Dynamic answers go
//! through tower-http's `CompressionLayer` ([`dynamic`]). Every coding has its own strong
//! ETag, and [`respond`] answers `If-None-Match` for whichever one the client gets.

use std::io::Write;
use std::sync::OnceLock;

use axum::body::{Body, Bytes};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::Response;
use tower_http::compression::predicate::{NotForContentType, Predicate, SizeAbove};
use tower_http::compression::{CompressionLayer, CompressionLevel};

/// Bodies below this many bytes are sent as they are: `Content-Encoding` and `Vary` add
/// about 45 bytes of headers and a coding's framing 10-20 more, which is most of what
/// compressing 200 bytes of JSON saves. A 360-byte level still shrinks by 40 %.
pub const MIN_SIZE: usize = 256;

/// Levels of the one-off compression of immutable bytes, chosen on a 73 KB pack of 100
/// expert tetropica levels and on single levels: brotli 5 gives 9.8 KB in ~2.5 ms (11
/// gives 7.9 KB in ~320 ms), zstd 9 9.6 KB in ~1.9 ms (19: 8.5 KB, ~120 ms), gzip 6
/// 9.9 KB; a single level takes well under 0.1 ms with each.
const BROTLI_QUALITY: u32 = 5;
const BROTLI_WINDOW_BITS: u32 = 22;
const GZIP_LEVEL: u32 = 6;
const ZSTD_LEVEL: i32 = 9;

/// A content coding the server can send.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Encoding {
    Identity,
    Brotli,
    Zstd,
    Gzip,
}

impl Encoding {
    /// The compressed codings, in the server's order of preference when the client likes
    /// several equally (the smallest output first).
    pub const COMPRESSED: [Encoding; 3] = [Encoding::Brotli, Encoding::Zstd, Encoding::Gzip];

    /// The `Content-Encoding` token.
    pub fn token(self) -> &'static str {
        match self {
            Encoding::Identity => "identity",
            Encoding::Brotli => "br",
            Encoding::Zstd => "zstd",
            Encoding::Gzip => "gzip",
        }
    }

    /// The `Content-Encoding` header value.
    fn header_value(self) -> HeaderValue {
        static VALUES: [HeaderValue; 4] = [
            HeaderValue::from_static("identity"),
            HeaderValue::from_static("br"),
            HeaderValue::from_static("zstd"),
            HeaderValue::from_static("gzip"),
        ];
        VALUES[self as usize].clone()
    }

    fn slot(self) -> Option<usize> {
        Encoding::COMPRESSED.iter().position(|&e| e == self)
    }

    /// Compresses `bytes` with this coding (identity: a copy).
    pub fn compress(self, bytes: &[u8]) -> Vec<u8> {
        match self {
            Encoding::Identity => bytes.to_vec(),
            Encoding::Brotli => {
                let mut out = Vec::with_capacity(bytes.len() / 3);
                let params = brotli::enc::BrotliEncoderParams {
                    quality: BROTLI_QUALITY as i32,
                    lgwin: BROTLI_WINDOW_BITS as i32,
                    size_hint: bytes.len(),
                    ..Default::default()
                };
                brotli::BrotliCompress(&mut &bytes[..], &mut out, &params)
                    .expect("compressing into memory cannot fail");
                out
            }
            Encoding::Zstd => {
                zstd::bulk::compress(bytes, ZSTD_LEVEL).expect("compressing into memory")
            }
            Encoding::Gzip => {
                let mut encoder = flate2::write::GzEncoder::new(
                    Vec::with_capacity(bytes.len() / 3),
                    flate2::Compression::new(GZIP_LEVEL),
                );
                encoder.write_all(bytes).expect("writing into memory");
                encoder.finish().expect("writing into memory")
            }
        }
    }
}

/// The client's choice by `Accept-Encoding`: the coding with the highest q-value (`*`
/// covering the ones not named); ties go to the server's order, and to a compressed
/// coding over identity. Identity when the header is absent or nothing else is acceptable
/// (RFC 9110 §12.5.3: then answer without a coding rather than 406).
///
/// Written here because tower-http keeps its parser private and the `headers` crate has
/// no typed Accept-Encoding; the grammar is a comma list of `token[;q=value]`.
pub fn negotiate<'h>(accept_encoding: impl Iterator<Item = &'h [u8]>) -> Encoding {
    let mut named = [None::<u16>; 3];
    let mut identity = None::<u16>;
    let mut wildcard = None::<u16>;
    for value in accept_encoding {
        let Some(value) = visible_ascii(value) else {
            continue;
        };
        for item in value.split(',') {
            let mut parts = item.split(';');
            let token = parts.next().unwrap_or("").trim();
            let Some(q) = parts
                .find_map(|p| {
                    let (name, v) = p.split_once('=')?;
                    name.trim()
                        .eq_ignore_ascii_case("q")
                        .then(|| parse_qvalue(v.trim()))
                })
                .unwrap_or(Some(1000))
            else {
                continue; // a malformed q-value: ignore the item, as if absent
            };
            let is = |name: &str| token.eq_ignore_ascii_case(name);
            let slot = if is("br") {
                &mut named[0]
            } else if is("zstd") {
                &mut named[1]
            } else if is("gzip") || is("x-gzip") {
                &mut named[2]
            } else if is("identity") {
                &mut identity
            } else if token == "*" {
                &mut wildcard
            } else {
                continue;
            };
            *slot = Some(slot.map_or(q, |old: u16| old.max(q)));
        }
    }
    let (best, best_q) = Encoding::COMPRESSED
        .iter()
        .zip(named)
        .map(|(&e, q)| (e, q.or(wildcard).unwrap_or(0)))
        .fold((Encoding::Identity, 0), |acc, (e, q)| {
            if q > acc.1 { (e, q) } else { acc }
        });
    let identity_q = identity.unwrap_or(0);
    if best_q == 0 || identity_q > best_q {
        Encoding::Identity
    } else {
        best
    }
}

/// A q-value in thousandths: `0`, `1`, `0.x` up to three decimals, `1.000`.
fn parse_qvalue(text: &str) -> Option<u16> {
    let (whole, fraction) = text.split_once('.').unwrap_or((text, ""));
    if fraction.len() > 3 || !fraction.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let thousandths = format!("{fraction:0<3}").parse::<u16>().ok()?;
    match whole {
        "0" => Some(thousandths),
        "1" if thousandths == 0 => Some(1000),
        _ => None,
    }
}

/// Whether `If-None-Match` names `etag` (or `*`), by the weak comparison RFC 9110 §13.1.2
/// asks for: `W/"x"` matches `"x"`. Our tags hold no commas, so splitting the list on
/// commas cannot cut one of them.
pub fn none_match<'h>(if_none_match: impl Iterator<Item = &'h [u8]>, etag: &str) -> bool {
    if_none_match
        .filter_map(visible_ascii)
        .flat_map(|v| v.split(','))
        .map(str::trim)
        .any(|tag| tag == "*" || tag.trim_start_matches("W/") == etag)
}

/// A header value as text, if it is visible ASCII (as `HeaderValue::to_str` takes it).
fn visible_ascii(value: &[u8]) -> Option<&str> {
    let visible = value.iter().all(|&b| b == b'\t' || (32..127).contains(&b));
    visible.then(|| std::str::from_utf8(value).ok()).flatten()
}

/// The values of the header `name` in `headers`, in order.
fn values(headers: &HeaderMap, name: header::HeaderName) -> impl Iterator<Item = &[u8]> {
    headers.get_all(name).into_iter().map(HeaderValue::as_bytes)
}

/// One representation: its bytes and its strong ETag.
#[derive(Debug)]
pub struct Encoded {
    pub encoding: Encoding,
    pub bytes: Bytes,
    pub etag: HeaderValue,
}

/// Immutable bytes and their compressed forms, each made on first use and kept.
#[derive(Debug)]
pub struct Variants {
    identity: Encoded,
    /// By [`Encoding::COMPRESSED`] order; `None` once a coding turned out not to gain.
    compressed: [OnceLock<Option<Encoded>>; 3],
}

impl Variants {
    pub fn new(bytes: impl Into<Bytes>) -> Variants {
        let bytes = bytes.into();
        let etag = strong_etag(&bytes);
        Variants {
            identity: Encoded {
                encoding: Encoding::Identity,
                etag: HeaderValue::from_str(&etag).expect("etag is ASCII"),
                bytes,
            },
            compressed: Default::default(),
        }
    }

    /// The uncompressed bytes.
    pub fn bytes(&self) -> &Bytes {
        &self.identity.bytes
    }

    /// The uncompressed bytes' strong ETag, e.g. `"0123456789abcdef"`.
    pub fn etag(&self) -> &str {
        self.identity.etag.to_str().expect("etag is ASCII")
    }

    /// Whether the bytes are large enough to be worth compressing.
    pub fn compressible(&self) -> bool {
        self.identity.bytes.len() >= MIN_SIZE
    }

    /// The representation in `encoding`, compressed now if this is its first use; the
    /// identity one when the bytes are too small or the coding would not make them smaller.
    pub fn get(&self, encoding: Encoding) -> &Encoded {
        let Some(slot) = encoding.slot().filter(|_| self.compressible()) else {
            return &self.identity;
        };
        self.compressed[slot]
            .get_or_init(|| self.encode(encoding))
            .as_ref()
            .unwrap_or(&self.identity)
    }

    fn encode(&self, encoding: Encoding) -> Option<Encoded> {
        let bytes = encoding.compress(&self.identity.bytes);
        if bytes.len() >= self.identity.bytes.len() {
            return None;
        }
        // The identity tag with the coding inside the quotes: distinct per coding, and
        // the same on every replica that holds the same bytes.
        let identity = self.etag();
        let etag = format!("{}-{}\"", &identity[..identity.len() - 1], encoding.token());
        Some(Encoded {
            encoding,
            bytes: Bytes::from(bytes),
            etag: HeaderValue::from_str(&etag).expect("etag is ASCII"),
        })
    }

    /// Bytes held now: identity and the compressed forms made so far. No cache weighs by
    /// it: moka weighs an entry once, when inserted, before any compressed form exists,
    /// so the pack cache estimates them instead (`LevelService::new`).
    pub fn held_bytes(&self) -> usize {
        self.identity.bytes.len()
            + self
                .compressed
                .iter()
                .filter_map(|c| c.get().and_then(Option::as_ref))
                .map(|e| e.bytes.len())
                .sum::<usize>()
    }
}

/// A strong ETag: 64-bit FNV-1a of the exact bytes (stable across builds and replicas).
pub fn strong_etag(bytes: &[u8]) -> String {
    let hash = bytes.iter().fold(0xcbf2_9ce4_8422_2325u64, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    });
    format!("\"{hash:016x}\"")
}

/// The headers of every answer of one media type and caching policy, made once per coding
/// and status, with a placeholder ETag. An answer clones its template and sets the ETag in
/// place: a clone copies two small arrays, where inserting each header hashes and probes
/// it (and an insert into a clone, whose arrays are full, grows them), which was most of a
/// warm answer's own cost. Shared by every body of the kind: no memory per level.
pub struct HeaderTemplates {
    /// Indexed by `Encoding as usize` (declaration order); `[without Vary, with Vary]`.
    ok: [[Template; 2]; 4],
    /// 304: no Content-Type or Content-Encoding.
    not_modified: [Template; 2],
}

/// One set of headers: as a map (for hyper) and as the lines HTTP/1.1 writes, the ETag's
/// left out (for the warm connection, which writes them itself).
struct Template {
    headers: HeaderMap,
    lines: Vec<u8>,
}

impl Template {
    fn new(headers: HeaderMap) -> Template {
        let mut lines = Vec::new();
        for (name, value) in headers.iter().filter(|(name, _)| *name != header::ETAG) {
            for part in [name.as_str().as_bytes(), b": ", value.as_bytes(), b"\r\n"] {
                lines.extend_from_slice(part);
            }
        }
        Template { headers, lines }
    }
}

impl HeaderTemplates {
    pub fn new(content_type: &'static str, cache_control: &'static str) -> HeaderTemplates {
        let content_type = HeaderValue::from_static(content_type);
        let cache_control = HeaderValue::from_static(cache_control);
        let template = |encoding: Option<Encoding>, vary: bool| {
            let mut headers = HeaderMap::with_capacity(5);
            headers.insert(header::ETAG, HeaderValue::from_static("\"\""));
            if let Some(encoding) = encoding {
                headers.insert(header::CONTENT_TYPE, content_type.clone());
                if encoding != Encoding::Identity {
                    headers.insert(header::CONTENT_ENCODING, encoding.header_value());
                }
            }
            headers.insert(header::CACHE_CONTROL, cache_control.clone());
            if vary {
                headers.insert(header::VARY, HeaderValue::from_static("accept-encoding"));
            }
            Template::new(headers)
        };
        let both = |encoding| [false, true].map(|vary| template(encoding, vary));
        HeaderTemplates {
            // In `Encoding`'s declaration order (`choose` indexes by discriminant).
            ok: [
                Encoding::Identity,
                Encoding::Brotli,
                Encoding::Zstd,
                Encoding::Gzip,
            ]
            .map(|encoding| both(Some(encoding))),
            not_modified: both(None),
        }
    }
}

/// The answer for immutable bytes: the client's coding with its ETag, `Vary:
/// Accept-Encoding` when the bytes are large enough to vary, and 304 when `If-None-Match`
/// names the representation the client would get; the other headers from `templates`.
pub fn respond(request: &HeaderMap, variants: &Variants, templates: &HeaderTemplates) -> Response {
    let accept_encoding = values(request, header::ACCEPT_ENCODING);
    let if_none_match = values(request, header::IF_NONE_MATCH);
    choose(accept_encoding, if_none_match, variants, templates)
        .into_response()
        .map(Body::from)
}

/// [`respond`]'s choice, from the values of the request's `Accept-Encoding` and
/// `If-None-Match`: the warm path reads them without a `HeaderMap`, and the warm connection
/// writes the answer without one (`http::warm_connection`).
pub fn choose<'h, 't>(
    accept_encoding: impl Iterator<Item = &'h [u8]>,
    if_none_match: impl Iterator<Item = &'h [u8]>,
    variants: &Variants,
    templates: &'t HeaderTemplates,
) -> Chosen<'t> {
    let chosen = variants.get(negotiate(accept_encoding));
    let etag = chosen.etag.to_str().expect("etag is ASCII");
    let vary = usize::from(variants.compressible());
    if none_match(if_none_match, etag) {
        Chosen {
            status: StatusCode::NOT_MODIFIED,
            etag: chosen.etag.clone(),
            body: Bytes::new(),
            template: &templates.not_modified[vary],
        }
    } else {
        Chosen {
            status: StatusCode::OK,
            etag: chosen.etag.clone(),
            body: chosen.bytes.clone(),
            template: &templates.ok[chosen.encoding as usize][vary],
        }
    }
}

/// The answer [`choose`] picked: status, ETag, body and the headers of its kind.
pub struct Chosen<'t> {
    pub status: StatusCode,
    pub etag: HeaderValue,
    pub body: Bytes,
    template: &'t Template,
}

impl Chosen<'_> {
    /// As a response: the template's headers with the ETag set.
    pub fn into_response(self) -> axum::http::Response<Bytes> {
        let mut response = axum::http::Response::new(self.body);
        *response.status_mut() = self.status;
        let mut headers = self.template.headers.clone();
        if let Some(etag) = headers.get_mut(header::ETAG) {
            *etag = self.etag;
        }
        *response.headers_mut() = headers;
        response
    }

    /// The header lines as HTTP/1.1 writes them (`name: value\r\n`), in the response's
    /// order: the ETag first.
    pub fn write_header_lines(&self, out: &mut Vec<u8>) {
        for part in [
            b"etag: ",
            self.etag.as_bytes(),
            b"\r\n",
            &self.template.lines,
        ] {
            out.extend_from_slice(part);
        }
    }
}

/// Per-request compression for dynamic answers (`/stats`, `/games`, browse): the same
/// codings and size floor as the immutable bytes, at the codecs' fast default levels.
pub fn dynamic() -> CompressionLayer<impl Predicate> {
    CompressionLayer::new()
        .no_deflate()
        .quality(CompressionLevel::Default)
        .compress_when(
            SizeAbove::new(MIN_SIZE as u64)
                .and(NotForContentType::GRPC)
                .and(NotForContentType::IMAGES)
                .and(NotForContentType::const_new("text/event-stream")),
        )
}

#[cfg(test)]
mod tests {
    use std::sync::LazyLock;

    use super::*;

    static TEXT: LazyLock<HeaderTemplates> =
        LazyLock::new(|| HeaderTemplates::new("text/plain", "no-cache"));

    /// The coding chosen for one `Accept-Encoding` value.
    fn negotiated(value: &str) -> Encoding {
        negotiate(std::iter::once(value.as_bytes()))
    }

    fn accept(value: &str) -> HeaderMap {
        let mut headers = HeaderMap::new();
        headers.insert(
            header::ACCEPT_ENCODING,
            HeaderValue::from_str(value).unwrap(),
        );
        headers
    }

    #[test]
    fn negotiation_follows_q_values_and_the_servers_order_on_ties() {
        use Encoding::*;
        assert_eq!(negotiate(std::iter::empty()), Identity);
        assert_eq!(negotiated(""), Identity);
        assert_eq!(negotiated("gzip"), Gzip);
        assert_eq!(negotiated("x-gzip"), Gzip);
        assert_eq!(negotiated("gzip, deflate, br"), Brotli);
        assert_eq!(negotiated("gzip, br, zstd"), Brotli);
        assert_eq!(negotiated("gzip, zstd"), Zstd);
        assert_eq!(negotiated("br;q=0.5, gzip;q=0.8"), Gzip);
        assert_eq!(negotiated("BR;Q=1.000, gzip;q=0.999"), Brotli);
        assert_eq!(negotiated("br;q=0, gzip"), Gzip);
        assert_eq!(negotiated("br;q=0, gzip;q=0"), Identity);
        assert_eq!(negotiated("*"), Brotli);
        assert_eq!(negotiated("*;q=0.5, br;q=0"), Zstd);
        assert_eq!(negotiated("gzip;q=0.5, identity"), Identity);
        assert_eq!(negotiated("gzip, identity;q=0"), Gzip);
        assert_eq!(negotiated("deflate, compress"), Identity);
        // A malformed q-value drops its item only.
        assert_eq!(negotiated("br;q=2, gzip;q=0.1"), Gzip);
        assert_eq!(negotiated("br;q=0.0001, gzip;q=0.1"), Gzip);
    }

    #[test]
    fn etag_is_strong_and_depends_on_every_byte() {
        let a = strong_etag(b"{\"par\":3}");
        assert!(a.starts_with('"') && a.ends_with('"') && !a.starts_with("W/"));
        assert_ne!(a, strong_etag(b"{\"par\":4}"));
        assert_eq!(a, strong_etag(b"{\"par\":3}"));
    }

    #[test]
    fn q_values_parse_strictly() {
        assert_eq!(parse_qvalue("1"), Some(1000));
        assert_eq!(parse_qvalue("1.000"), Some(1000));
        assert_eq!(parse_qvalue("0.5"), Some(500));
        assert_eq!(parse_qvalue("0.05"), Some(50));
        assert_eq!(parse_qvalue("0"), Some(0));
        for bad in ["1.5", "2", "-0.1", "0.1234", "", "x", ".5", "0.5x"] {
            assert_eq!(parse_qvalue(bad), None, "{bad}");
        }
    }

    #[test]
    fn each_coding_round_trips_and_has_its_own_strong_etag() {
        let text = "{\"cells\":[".to_string() + &"[0,1,2,3],".repeat(200) + "[]]}";
        let variants = Variants::new(text.clone());
        let mut etags = vec![variants.etag().to_string()];
        for encoding in Encoding::COMPRESSED {
            let encoded = variants.get(encoding);
            assert_eq!(encoded.encoding, encoding);
            assert!(encoded.bytes.len() * 4 < text.len(), "{encoding:?}");
            let etag = encoded.etag.to_str().unwrap().to_string();
            assert!(etag.starts_with('"') && etag.ends_with('"') && !etag.contains(','));
            etags.push(etag);
            let mut plain = Vec::new();
            match encoding {
                Encoding::Brotli => {
                    brotli::BrotliDecompress(&mut &encoded.bytes[..], &mut plain).unwrap();
                }
                Encoding::Zstd => plain = zstd::decode_all(&encoded.bytes[..]).unwrap(),
                Encoding::Gzip => {
                    use std::io::Read;
                    flate2::read::GzDecoder::new(&encoded.bytes[..])
                        .read_to_end(&mut plain)
                        .unwrap();
                }
                Encoding::Identity => unreachable!(),
            }
            assert_eq!(plain, text.as_bytes(), "{encoding:?}");
            // Kept: the second use returns the same bytes without compressing again.
            assert!(std::ptr::eq(encoded, variants.get(encoding)));
        }
        etags.sort();
        etags.dedup();
        assert_eq!(etags.len(), 4);
        assert!(variants.held_bytes() < text.len() * 2);
    }

    #[test]
    fn every_coding_is_answered_with_its_own_headers() {
        let text = "{\"cells\":[".to_string() + &"[0,1,2,3],".repeat(200) + "[]]}";
        let variants = Variants::new(text);
        for (asked, expected) in [
            ("identity", None),
            ("br", Some("br")),
            ("zstd", Some("zstd")),
            ("gzip", Some("gzip")),
        ] {
            let response = respond(&accept(asked), &variants, &TEXT);
            let headers = response.headers();
            let encoding = headers.get(header::CONTENT_ENCODING);
            assert_eq!(encoding.map(|v| v.to_str().unwrap()), expected, "{asked}");
            let chosen = variants.get(negotiated(asked));
            assert_eq!(headers[header::ETAG], chosen.etag, "{asked}");
            assert_eq!(headers[header::CONTENT_TYPE], "text/plain", "{asked}");
            assert_eq!(headers[header::CACHE_CONTROL], "no-cache", "{asked}");
            assert_eq!(headers[header::VARY], "accept-encoding", "{asked}");
        }
    }

    #[test]
    fn small_bodies_stay_identity() {
        let variants = Variants::new(vec![b'a'; MIN_SIZE - 1]);
        assert!(!variants.compressible());
        for encoding in Encoding::COMPRESSED {
            assert_eq!(variants.get(encoding).encoding, Encoding::Identity);
        }
        let mut request = accept("br, gzip");
        let response = respond(&request, &variants, &TEXT);
        assert!(response.headers().get(header::VARY).is_none());
        assert!(response.headers().get(header::CONTENT_ENCODING).is_none());
        request.insert(
            header::IF_NONE_MATCH,
            HeaderValue::from_str(variants.etag()).unwrap(),
        );
        let response = respond(&request, &variants, &TEXT);
        assert_eq!(response.status(), StatusCode::NOT_MODIFIED);
    }

    #[test]
    fn if_none_match_takes_lists_weak_tags_and_the_chosen_codings_tag_only() {
        let variants = Variants::new("x".repeat(4 * MIN_SIZE));
        let gzip_tag = variants
            .get(Encoding::Gzip)
            .etag
            .to_str()
            .unwrap()
            .to_string();
        let ask = |encoding: &str, tags: &str| {
            let mut request = accept(encoding);
            request.insert(header::IF_NONE_MATCH, HeaderValue::from_str(tags).unwrap());
            let response = respond(&request, &variants, &TEXT);
            let vary = response.headers()[header::VARY]
                .to_str()
                .unwrap()
                .to_string();
            assert_eq!(vary, "accept-encoding");
            (
                response.status(),
                response.headers()[header::ETAG]
                    .to_str()
                    .unwrap()
                    .to_string(),
            )
        };
        let list = format!("\"other\", W/{gzip_tag}");
        assert_eq!(
            ask("gzip", &list),
            (StatusCode::NOT_MODIFIED, gzip_tag.clone())
        );
        assert_eq!(ask("gzip", "*").0, StatusCode::NOT_MODIFIED);
        // The gzip tag does not validate the brotli or identity bytes.
        assert_eq!(ask("br", &gzip_tag).0, StatusCode::OK);
        assert_eq!(ask("identity", &gzip_tag).0, StatusCode::OK);
        assert_eq!(
            ask("identity", variants.etag()),
            (StatusCode::NOT_MODIFIED, variants.etag().to_string())
        );
    }
}
