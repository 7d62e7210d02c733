//! The preview's HTTP side (axum on hyper): files from memory, the site's 404 page for what
//! is not there, GET and HEAD only, and a server-sent-events stream that tells pages to
//! reload. Files are looked up by name in memory, so no request can reach the disk. No
//! client can hold the server: a request's head must arrive in [`HEADER_TIMEOUT`], and past
//! [`MAX_CONNECTIONS`] a new connection closes the oldest.

use std::collections::BTreeMap;
use std::convert::Infallible;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use axum::Router;
use axum::body::Body;
use axum::extract::State;
use axum::http::{HeaderValue, Method, StatusCode, Uri, header};
use axum::response::sse::{Event, KeepAlive, Sse};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::service::TowerToHyperService;
use tokio::task::AbortHandle;
use tokio_stream::StreamExt;
use tokio_stream::wrappers::BroadcastStream;

use super::{Reload, Shared};

const SCRIPT_PATH: &str = "/__outages/reload.js";
const EVENTS_PATH: &str = "/__outages/events";
const SCRIPT: &str = include_str!("reload.js");

/// A request's head (and, on an idle kept-alive connection, the next one) must arrive
/// within this: a browser on this machine sends it at once.
const HEADER_TIMEOUT: Duration = Duration::from_secs(5);
/// Connections kept open at once, far above what browsers open (a few per tab, one event
/// stream each) and far below the usual limit of 1,024 open files.
const MAX_CONNECTIONS: usize = 256;

/// Serves until Ctrl-C.
pub fn serve(listener: std::net::TcpListener, shared: Arc<Shared>) -> Result<(), super::Error> {
    use super::Error::Runtime;
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .map_err(Runtime)?;
    runtime.block_on(async move {
        listener.set_nonblocking(true).map_err(Runtime)?;
        let listener = tokio::net::TcpListener::from_std(listener).map_err(Runtime)?;
        let app = Router::new()
            .route(SCRIPT_PATH, get(script))
            .route(EVENTS_PATH, get(events))
            .fallback(file)
            .with_state(shared);
        tokio::select! {
            () = accept(listener, app) => Ok(()),
            _ = tokio::signal::ctrl_c() => {
                println!("stopped");
                Ok(())
            }
        }
    })
}

/// Serves each connection in its own task, the oldest closed when there are too many.
async fn accept(listener: tokio::net::TcpListener, app: Router) {
    let open: Arc<Mutex<BTreeMap<u64, AbortHandle>>> = Arc::default();
    let mut http = hyper::server::conn::http1::Builder::new();
    http.timer(TokioTimer::new())
        .header_read_timeout(HEADER_TIMEOUT);
    for id in 0u64.. {
        let stream = match listener.accept().await {
            Ok((stream, _)) => stream,
            // Out of file descriptors, say: some close soon.
            Err(_) => {
                tokio::time::sleep(Duration::from_millis(50)).await;
                continue;
            }
        };
        let connection =
            http.serve_connection(TokioIo::new(stream), TowerToHyperService::new(app.clone()));
        // Locked until the new task is registered, so that it cannot unregister first.
        let mut connections = open.lock().unwrap_or_else(PoisonError::into_inner);
        if connections.len() >= MAX_CONNECTIONS
            && let Some((_, oldest)) = connections.pop_first()
        {
            oldest.abort();
        }
        let registry = Arc::clone(&open);
        let task = tokio::spawn(async move {
            let _ = connection.await;
            registry
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .remove(&id);
        });
        connections.insert(id, task.abort_handle());
    }
}

async fn script() -> Response {
    (
        [
            (header::CONTENT_TYPE, "text/javascript; charset=utf-8"),
            (header::CACHE_CONTROL, "no-store"),
        ],
        SCRIPT,
    )
        .into_response()
}

async fn events(State(shared): State<Arc<Shared>>) -> impl IntoResponse {
    let stream = BroadcastStream::new(shared.reload.subscribe()).filter_map(|message| {
        let name = match message.ok()? {
            Reload::Page => "reload",
            Reload::Css => "css",
        };
        Some(Ok::<Event, Infallible>(
            Event::default().event(name).data(name),
        ))
    });
    Sse::new(stream).keep_alive(KeepAlive::default())
}

/// Where a request path leads.
#[derive(Debug, PartialEq, Eq)]
enum Target {
    File(String),
    /// A folder asked without its trailing slash, or the base path without it.
    Redirect(String),
    NotFound,
    BadRequest,
}

/// Maps a raw request path to a file of the site. Every segment is percent-decoded once;
/// a decoded `.`, `..`, slash, backslash or NUL is refused.
fn resolve(base_path: &str, raw: &str) -> Target {
    let Some(rest) = raw.strip_prefix(base_path) else {
        return if format!("{raw}/") == base_path {
            Target::Redirect(base_path.to_string())
        } else {
            Target::NotFound
        };
    };
    let mut segments = Vec::new();
    for segment in rest.split('/') {
        let Ok(decoded) = percent_encoding::percent_decode_str(segment).decode_utf8() else {
            return Target::BadRequest;
        };
        if decoded == "." || decoded == ".." || decoded.contains(['/', '\\', '\0']) {
            return Target::BadRequest;
        }
        segments.push(decoded.into_owned());
    }
    let path = segments.join("/");
    if path.is_empty() || path.ends_with('/') {
        Target::File(crate::routes::page(&path))
    } else {
        Target::File(path)
    }
}

async fn file(State(shared): State<Arc<Shared>>, method: Method, uri: Uri) -> Response {
    if method != Method::GET && method != Method::HEAD {
        return (
            StatusCode::METHOD_NOT_ALLOWED,
            [(header::ALLOW, "GET, HEAD")],
            "only GET and HEAD\n",
        )
            .into_response();
    }
    let store = shared.store.read().unwrap_or_else(PoisonError::into_inner);
    let (status, path) = match resolve(&shared.base_path, uri.path()) {
        Target::BadRequest => return (StatusCode::BAD_REQUEST, "bad request\n").into_response(),
        Target::Redirect(to) => return redirect(&to),
        Target::File(path) if store.files.contains_key(&path) => (StatusCode::OK, path),
        Target::File(path)
            if store
                .files
                .contains_key(&crate::routes::page(&format!("{path}/"))) =>
        {
            return redirect(&format!("{}/", uri.path()));
        }
        Target::File(_) | Target::NotFound => {
            (StatusCode::NOT_FOUND, crate::routes::NOT_FOUND.to_string())
        }
    };
    let Some(bytes) = store.files.get(&path).cloned() else {
        // No site yet (the first build failed): the error page is all there is.
        let body = inject(
            b"<!doctype html><html lang=en><title>outages</title><body></body></html>",
            store.error.as_deref(),
        );
        return respond(StatusCode::NOT_FOUND, crate::routes::HOME, body, method);
    };
    let error = store.error.clone();
    let host = store
        .files
        .get(crate::routes::HEADERS)
        .map(|rules| host_headers(rules, uri.path()))
        .unwrap_or_default();
    drop(store);
    let body = if path.ends_with(".html") {
        inject(&bytes, error.as_deref())
    } else {
        bytes.to_vec()
    };
    let mut response = respond(status, &path, body, method);
    for (name, value) in host {
        response.headers_mut().insert(name, value);
    }
    response
}

/// The headers the host adds to `path`, as the site's own `_headers` says (the last rule
/// that sets one wins, as on Netlify): its content types and what other origins may fetch,
/// so the API, the feeds and the badges are served as on the host. Not its security
/// policy, which would block the reload script `serve` adds.
fn host_headers(rules: &[u8], path: &str) -> Vec<(header::HeaderName, HeaderValue)> {
    let taken = [
        header::CONTENT_TYPE,
        header::ACCESS_CONTROL_ALLOW_ORIGIN,
        header::HeaderName::from_static("cross-origin-resource-policy"),
    ];
    let mut found: Vec<(header::HeaderName, HeaderValue)> = Vec::new();
    let mut applies = false;
    for line in String::from_utf8_lossy(rules).lines() {
        if line.starts_with('#') || line.trim().is_empty() {
            continue;
        }
        if !line.starts_with(char::is_whitespace) {
            applies = matches_pattern(line.trim(), path);
            continue;
        }
        let Some((name, value)) = line.trim().split_once(": ") else {
            continue;
        };
        let Some(name) = taken.iter().find(|n| n.as_str().eq_ignore_ascii_case(name)) else {
            continue;
        };
        if let (true, Ok(value)) = (applies, HeaderValue::from_str(value)) {
            found.retain(|(n, _)| n != name);
            found.push((name.clone(), value));
        }
    }
    found
}

/// Whether `path` matches a `_headers` pattern, where `*` stands for any run of characters.
fn matches_pattern(pattern: &str, path: &str) -> bool {
    let mut pieces = pattern.split('*');
    let first = pieces.next().unwrap_or_default();
    let Some(mut rest) = path.strip_prefix(first) else {
        return false;
    };
    let pieces: Vec<&str> = pieces.collect();
    let Some((last, middle)) = pieces.split_last() else {
        return rest.is_empty();
    };
    for piece in middle {
        match rest.find(piece) {
            Some(at) => rest = &rest[at + piece.len()..],
            None => return false,
        }
    }
    rest.ends_with(last)
}

fn redirect(to: &str) -> Response {
    (
        StatusCode::PERMANENT_REDIRECT,
        [(header::LOCATION, to.to_string())],
    )
        .into_response()
}

fn respond(status: StatusCode, path: &str, body: Vec<u8>, method: Method) -> Response {
    let mime = mime_guess::from_path(path).first_or_octet_stream();
    let content_type = match mime.type_() {
        mime_guess::mime::TEXT => format!("{mime}; charset=utf-8"),
        _ if path.ends_with(".json") || path.ends_with(".xml") => format!("{mime}; charset=utf-8"),
        _ => mime.to_string(),
    };
    let length = body.len();
    let body = if method == Method::HEAD {
        Body::empty()
    } else {
        Body::from(body)
    };
    let mut response = Response::new(body);
    *response.status_mut() = status;
    let headers = response.headers_mut();
    headers.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_str(&content_type).expect("a mime type is a header"),
    );
    headers.insert(header::CONTENT_LENGTH, HeaderValue::from(length));
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    headers.insert(
        "x-content-type-options",
        HeaderValue::from_static("nosniff"),
    );
    response
}

/// Adds the reload script, and the error overlay when the last rebuild failed, before
/// `</body>`. Only what `serve` sends has them; the site itself never does.
fn inject(html: &[u8], error: Option<&str>) -> Vec<u8> {
    let mut extra =
        format!("<script src=\"{SCRIPT_PATH}\" data-events=\"{EVENTS_PATH}\"></script>");
    if let Some(error) = error {
        // `all:initial` on every element: the site's stylesheet (its `pre`, its colours, its
        // dark mode) cannot reach the overlay, which reads the same on any theme.
        extra.push_str(&format!(
            "<div id=\"outages-error\" role=\"alert\" style=\"all:initial;display:block;position:fixed;left:0;right:0;bottom:0;\
             max-height:60vh;overflow:auto;z-index:2147483647;box-sizing:border-box;padding:1rem 1.25rem;background:#1b1f24;\
             color:#f0f3f6;border-top:4px solid #e5534b;font:13px/1.5 ui-monospace,SFMono-Regular,Menlo,Consolas,monospace\">\
             <strong style=\"all:initial;display:block;color:#ffffff;font:bold 14px/1.5 system-ui,sans-serif\">\
             outages: the last change did not build; this is the last good version.</strong>\
             <pre style=\"all:initial;display:block;white-space:pre-wrap;margin:.5rem 0 0;color:#ffd8d3;background:transparent;\
             font:13px/1.5 ui-monospace,SFMono-Regular,Menlo,Consolas,monospace\">{}</pre></div>",
            crate::render::feeds::escape(error)
        ));
    }
    let at = find_body_end(html).unwrap_or(html.len());
    let mut out = Vec::with_capacity(html.len() + extra.len());
    out.extend_from_slice(&html[..at]);
    out.extend_from_slice(extra.as_bytes());
    out.extend_from_slice(&html[at..]);
    out
}

fn find_body_end(html: &[u8]) -> Option<usize> {
    html.windows(7)
        .rposition(|w| w.eq_ignore_ascii_case(b"</body>"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn header_patterns_match_as_hosts_match_them() {
        assert!(matches_pattern("/repo/*", "/repo/a/b.json"));
        assert!(matches_pattern("/repo/*/feed.xml", "/repo/acme/feed.xml"));
        assert!(matches_pattern("/repo/feed.xml", "/repo/feed.xml"));
        assert!(!matches_pattern("/repo/feed.xml", "/repo/feed.xml.gz"));
        assert!(!matches_pattern("/repo/*/feed.xml", "/repo/feed.json"));
        assert!(!matches_pattern("/other/*", "/repo/x"));
        let rules = b"# x\n/*\n  Content-Security-Policy: default-src 'none'\n  Content-Type: text/plain\n/api/v1/*\n  Content-Type: application/json; charset=utf-8\n  Access-Control-Allow-Origin: *\n";
        let found = host_headers(rules, "/api/v1/providers.json");
        let text: Vec<(String, String)> = found
            .iter()
            .map(|(n, v)| (n.to_string(), v.to_str().unwrap().to_string()))
            .collect();
        assert_eq!(
            text,
            [
                (
                    "content-type".into(),
                    "application/json; charset=utf-8".into()
                ),
                ("access-control-allow-origin".into(), "*".into()),
            ],
            "the last rule wins, and no security policy is taken"
        );
    }

    #[test]
    fn requests_resolve_inside_the_site_only() {
        let file = |p: &str| Target::File(p.to_string());
        assert_eq!(resolve("/", "/"), file("index.html"));
        assert_eq!(resolve("/", "/acme/"), file("acme/index.html"));
        assert_eq!(resolve("/", "/feed.xml"), file("feed.xml"));
        assert_eq!(resolve("/", "/caf%C3%A9/"), file("café/index.html"));
        for bad in [
            "/../etc/passwd",
            "/a/%2e%2e/%2e%2e/x",
            "/%2E%2E/x",
            "/a%2fb",
            "/a%5c..%5cb",
            "/./x",
            "/a%00b",
            "/%ff",
        ] {
            assert_eq!(resolve("/", bad), Target::BadRequest, "{bad}");
        }
        assert_eq!(resolve("/repo/", "/repo/acme/"), file("acme/index.html"));
        assert_eq!(
            resolve("/repo/", "/repo"),
            Target::Redirect("/repo/".into())
        );
        assert_eq!(resolve("/repo/", "/other/"), Target::NotFound);
    }

    #[test]
    fn the_script_goes_before_the_body_end() {
        let html = inject(
            b"<html><body><p>x</p></BODY></html>",
            Some("a.md:1:1: <bad>"),
        );
        let html = String::from_utf8(html).unwrap();
        assert!(html.contains("</div></BODY>"), "{html}");
        assert!(html.contains("a.md:1:1: &lt;bad&gt;"), "{html}");
        assert!(html.contains(SCRIPT_PATH));
    }

    #[test]
    fn no_rule_of_the_site_reaches_the_overlay() {
        let html = inject(b"<html><body></body></html>", Some("a.md:1:1: bad"));
        let page = scraper::Html::parse_document(&String::from_utf8(html).unwrap());
        let selector = scraper::Selector::parse("#outages-error, #outages-error *").unwrap();
        let styles: Vec<&str> = page
            .select(&selector)
            .map(|element| element.value().attr("style").unwrap_or(""))
            .collect();
        assert_eq!(styles.len(), 3, "{styles:?}");
        assert!(
            styles.iter().all(|s| s.starts_with("all:initial;")),
            "{styles:?}"
        );
    }
}
