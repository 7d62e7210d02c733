//! A status page served here, on 127.0.0.1, answering as a test says (the real payloads of
//! `tests/fixtures/<platform>/`, failures, waits), and running `outages` against it. No
//! test touches the internet.

use std::collections::{BTreeMap, HashMap};
use std::net::SocketAddr;
use std::process::Output;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use axum::body::{Body, Bytes};
use axum::extract::{Request, State};
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};

use super::{Site, stderr, tree};

const DATA: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/statuspage");

/// A real payload of `tests/fixtures/statuspage/`.
pub fn payload(name: &str) -> String {
    std::fs::read_to_string(format!("{DATA}/{name}")).unwrap()
}

/// The real incidents of `tests/fixtures/statuspage/incidents/` (each as
/// `api/v2/incidents/<code>.json` answers it), newest first.
pub fn real_incidents() -> Vec<serde_json::Value> {
    let mut all: Vec<serde_json::Value> = std::fs::read_dir(format!("{DATA}/incidents"))
        .unwrap()
        .map(|entry| {
            serde_json::from_str(&std::fs::read_to_string(entry.unwrap().path()).unwrap()).unwrap()
        })
        .collect();
    all.sort_by(|a, b| {
        let at = |v: &serde_json::Value| v["incident"]["created_at"].as_str().unwrap().to_string();
        at(b).cmp(&at(a))
    });
    all
}

/// How the server answers one path, in turn; the last answer repeats.
#[derive(Clone)]
pub enum Reply {
    /// JSON with an ETag: 304 when the request names it.
    Json {
        body: String,
        etag: String,
    },
    Status(u16),
    /// 429 or 503 asking to come back in so many seconds.
    RetryAfter(u16, u64),
    Slow(Duration),
    Redirect(String),
    /// A chunked answer of so many MiB, no length given.
    Huge(usize),
    /// An answer of so many MiB, its length given.
    Sized(usize),
    /// JSON with a Last-Modified date: 304 when the request asks "modified since" it.
    Dated {
        body: String,
        date: String,
    },
    /// Any bytes of a media type, with an ETag: 304 when the request names it.
    Raw {
        body: Vec<u8>,
        media_type: &'static str,
        etag: String,
    },
}

pub fn json(body: &str, etag: &str) -> Reply {
    Reply::Json {
        body: body.to_string(),
        etag: format!("\"{etag}\""),
    }
}

/// Bytes of a media type, with an ETag.
pub fn raw(body: impl Into<Vec<u8>>, media_type: &'static str, etag: &str) -> Reply {
    Reply::Raw {
        body: body.into(),
        media_type,
        etag: format!("\"{etag}\""),
    }
}

/// A real payload of `tests/fixtures/<folder>/`, as bytes.
pub fn fixture(folder: &str, name: &str) -> Vec<u8> {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures");
    std::fs::read(format!("{path}/{folder}/{name}")).unwrap()
}

#[derive(Default)]
pub struct Book {
    pub replies: HashMap<String, Vec<Reply>>,
    /// Every request: path and its If-None-Match.
    pub seen: Vec<(String, Option<String>, Instant)>,
    /// Every request's User-Agent.
    pub agents: Vec<String>,
    pub in_flight: usize,
    pub most_in_flight: usize,
    /// Requests whose path holds the text, after so many of them, get this answer: a
    /// server that gives out half way.
    pub cut: Option<(String, usize, Reply)>,
}

/// A status page server on a free port of 127.0.0.1, on its own runtime.
pub struct Server {
    addr: SocketAddr,
    pub book: Arc<Mutex<Book>>,
    _runtime: tokio::runtime::Runtime,
}

impl Server {
    pub fn start() -> Server {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .unwrap();
        let book = Arc::new(Mutex::new(Book::default()));
        let listener = runtime
            .block_on(tokio::net::TcpListener::bind("127.0.0.1:0"))
            .unwrap();
        let addr = listener.local_addr().unwrap();
        let app = axum::Router::new()
            .fallback(answer)
            .with_state(book.clone());
        runtime.spawn(async move { axum::serve(listener, app).await });
        Server {
            addr,
            book,
            _runtime: runtime,
        }
    }

    /// The status page address of a provider served under `/<prefix>`.
    pub fn page(&self, prefix: &str) -> String {
        format!("http://{}/{prefix}", self.addr)
    }

    /// Sets how `/<prefix>/api/v2/<endpoint>` answers.
    pub fn on(&self, prefix: &str, endpoint: &str, replies: Vec<Reply>) {
        self.at(&format!("/{prefix}/api/v2/{endpoint}"), replies);
    }

    /// Sets how the path (with its query, if it has one) answers.
    pub fn at(&self, path: &str, replies: Vec<Reply>) {
        self.book
            .lock()
            .unwrap()
            .replies
            .insert(path.to_string(), replies);
    }

    /// A provider whose incidents and maintenances answer as given, with a history that
    /// lists nothing (until [`Server::history`] says otherwise), and a summary that says it
    /// is a Statuspage.
    pub fn provider(&self, prefix: &str, incidents: Vec<Reply>, maintenances: Vec<Reply>) {
        let summary = format!("{{\"page\": {{\"id\": \"kctbh9vrtdwd\", \"name\": \"{prefix}\"}}}}");
        self.on(prefix, "summary.json", vec![json(&summary, "s")]);
        self.on(prefix, "incidents.json", incidents);
        self.on(prefix, "scheduled-maintenances.json", maintenances);
        let empty = json("{\"months\": []}", "h");
        let path = format!("/{prefix}/history.json");
        self.book.lock().unwrap().replies.insert(path, vec![empty]);
    }

    /// A history of these pages (`history.json?page=1`, 2…), each listing these incidents
    /// (`api/v2/incidents/<code>.json` answers each whole), in the shape Statuspage gives:
    /// months, newest first; the page after the last lists no month.
    pub fn history(&self, prefix: &str, pages: &[Vec<serde_json::Value>]) {
        let mut book = self.book.lock().unwrap();
        for (n, incidents) in pages.iter().enumerate() {
            let mut months: Vec<serde_json::Value> = Vec::new();
            for incident in incidents {
                let inner = &incident["incident"];
                let at = inner["created_at"].as_str().unwrap();
                let (year, month) = (&at[..4], &at[5..7]);
                let listed = serde_json::json!({
                    "code": inner["id"], "name": inner["name"], "impact": inner["impact"],
                    "message": "", "timestamp": at,
                });
                let same = months
                    .last_mut()
                    .filter(|m| m["year"] == year.parse::<u32>().unwrap() && m["name"] == month);
                match same {
                    Some(m) => m["incidents"].as_array_mut().unwrap().push(listed),
                    None => months.push(serde_json::json!({
                        "name": month, "year": year.parse::<u32>().unwrap(),
                        "incidents": [listed],
                    })),
                }
                let code = inner["id"].as_str().unwrap();
                let path = format!("/{prefix}/api/v2/incidents/{code}.json");
                book.replies
                    .insert(path, vec![json(&incident.to_string(), code)]);
            }
            let page = serde_json::json!({ "months": months }).to_string();
            let path = format!("/{prefix}/history.json?page={}", n + 1);
            book.replies
                .insert(path, vec![json(&page, &format!("p{n}"))]);
        }
    }

    /// The requests so far for paths under `/<prefix>/`, with their If-None-Match.
    pub fn seen(&self, prefix: &str) -> Vec<(String, Option<String>)> {
        let start = format!("/{prefix}/");
        self.book
            .lock()
            .unwrap()
            .seen
            .iter()
            .filter(|(path, ..)| path.starts_with(&start))
            .map(|(path, tag, _)| (path.clone(), tag.clone()))
            .collect()
    }
}

async fn answer(State(book): State<Arc<Mutex<Book>>>, request: Request) -> Response {
    let path = match request.uri().query() {
        Some(query) => format!("{}?{query}", request.uri().path()),
        None => request.uri().path().to_string(),
    };
    let bare = request.uri().path().to_string();
    // Read before any await: a request is not to be held across one.
    let (tag, since, agent) = {
        let header = |name| {
            request
                .headers()
                .get(name)
                .map(|v: &axum::http::HeaderValue| v.to_str().unwrap().to_string())
        };
        (
            header(header::IF_NONE_MATCH),
            header(header::IF_MODIFIED_SINCE),
            header(header::USER_AGENT).unwrap_or_default(),
        )
    };
    let reply = {
        let mut book = book.lock().unwrap();
        book.seen.push((path.clone(), tag.clone(), Instant::now()));
        book.agents.push(agent);
        book.in_flight += 1;
        book.most_in_flight = book.most_in_flight.max(book.in_flight);
        let cut = match &mut book.cut {
            Some((part, left, reply)) if path.contains(part.as_str()) => {
                match left.checked_sub(1) {
                    Some(fewer) => {
                        *left = fewer;
                        None
                    }
                    None => Some(reply.clone()),
                }
            }
            _ => None,
        };
        let key = match book.replies.contains_key(&path) {
            true => path.clone(),
            false => bare,
        };
        match book.replies.get_mut(&key) {
            _ if cut.is_some() => cut,
            Some(replies) if replies.len() > 1 => Some(replies.remove(0)),
            Some(replies) => replies.first().cloned(),
            None => None,
        }
    };
    let response = match reply {
        None => StatusCode::NOT_FOUND.into_response(),
        Some(Reply::Json { etag, .. }) if tag.as_deref() == Some(etag.as_str()) => {
            (StatusCode::NOT_MODIFIED, [(header::ETAG, etag)]).into_response()
        }
        Some(Reply::Json { body, etag }) => (
            [
                (header::ETAG, etag),
                (header::CONTENT_TYPE, "application/json".into()),
            ],
            body,
        )
            .into_response(),
        Some(Reply::Status(code)) => StatusCode::from_u16(code).unwrap().into_response(),
        Some(Reply::RetryAfter(code, secs)) => (
            StatusCode::from_u16(code).unwrap(),
            [(header::RETRY_AFTER, secs.to_string())],
        )
            .into_response(),
        Some(Reply::Slow(wait)) => {
            tokio::time::sleep(wait).await;
            (StatusCode::OK, "{\"incidents\": []}").into_response()
        }
        Some(Reply::Redirect(to)) => (StatusCode::FOUND, [(header::LOCATION, to)]).into_response(),
        Some(Reply::Sized(mib)) => vec![b' '; mib << 20].into_response(),
        Some(Reply::Dated { date, .. }) if since.as_deref() == Some(date.as_str()) => {
            StatusCode::NOT_MODIFIED.into_response()
        }
        Some(Reply::Dated { body, date }) => {
            ([(header::LAST_MODIFIED, date)], body).into_response()
        }
        Some(Reply::Raw { etag, .. }) if tag.as_deref() == Some(etag.as_str()) => {
            (StatusCode::NOT_MODIFIED, [(header::ETAG, etag)]).into_response()
        }
        Some(Reply::Raw {
            body,
            media_type,
            etag,
        }) => (
            [
                (header::ETAG, etag),
                (header::CONTENT_TYPE, media_type.to_string()),
            ],
            body,
        )
            .into_response(),
        Some(Reply::Huge(mib)) => {
            let chunks =
                (0..mib * 16).map(|_| Ok::<_, std::io::Error>(Bytes::from(vec![b' '; 65536])));
            Body::from_stream(tokio_stream::iter(chunks)).into_response()
        }
    };
    book.lock().unwrap().in_flight -= 1;
    response
}

pub fn run(site: &Site, args: &[&str]) -> (Output, String) {
    let output = site.run(args);
    let stdout = String::from_utf8(output.stdout.clone()).unwrap();
    (output, stdout)
}

/// Runs a sync that must succeed; its stdout.
pub fn sync(site: &Site, args: &[&str]) -> String {
    let mut all = vec!["sync"];
    all.extend_from_slice(args);
    let (output, stdout) = run(site, &all);
    assert!(
        output.status.success(),
        "sync failed ({:?}):\n{stdout}\n{}",
        output.status.code(),
        stderr(&output)
    );
    stdout
}

/// Runs `outages <args>`, which must be a usage error (exit 2) that says `says`.
pub fn refused(site: &Site, args: &[&str], says: &str) {
    let (output, _) = run(site, args);
    let errors = stderr(&output);
    assert_eq!(output.status.code(), Some(2), "{errors}");
    assert!(errors.contains(says), "expected `{says}` in:\n{errors}");
}

pub fn add(site: &Site, args: &[&str]) -> String {
    let mut all = vec!["provider", "add"];
    all.extend_from_slice(args);
    let (output, stdout) = run(site, &all);
    assert!(output.status.success(), "{}", stderr(&output));
    stdout
}

/// The archive's sources: what a sync may change.
pub fn content(site: &Site) -> BTreeMap<String, Vec<u8>> {
    tree(&site.path("content"))
}

/// A site with `content/` and nothing in it.
pub fn empty_site() -> Site {
    let site = Site::new(&[]);
    std::fs::create_dir_all(site.path("content")).unwrap();
    site
}
