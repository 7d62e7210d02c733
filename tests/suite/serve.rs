//! `outages serve` end to end: a real server over a temp site, real HTTP requests, the
//! reload stream, edits of every kind, and at the end the served pages equal a fresh build.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc::{self, Receiver};
use std::time::{Duration, Instant};

use crate::common::{SEED, Site, incident};

const WAIT: Duration = Duration::from_secs(15);

struct Server {
    child: Child,
    port: u16,
    events: Receiver<String>,
}

impl Server {
    fn start(site: &Site) -> Server {
        Server::start_with(site, &[])
    }

    fn start_with(site: &Site, args: &[&str]) -> Server {
        Server::spawn(site, Command::new(env!("CARGO_BIN_EXE_outages")), args)
    }

    /// `serve` allowed only `files` open files, through the shell's `ulimit`.
    fn start_limited(site: &Site, files: u32) -> Server {
        let mut command = Command::new("sh");
        command
            .arg("-c")
            .arg(format!("ulimit -n {files} && exec \"$0\" \"$@\""))
            .arg(env!("CARGO_BIN_EXE_outages"));
        Server::spawn(site, command, &[])
    }

    fn spawn(site: &Site, mut command: Command, args: &[&str]) -> Server {
        let mut child = command
            .args(["serve", "--port", "0", "--root"])
            .arg(site.root())
            .args(args)
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
        let port = loop {
            let line = lines.next().expect("serve prints its address").unwrap();
            if let Some(url) = line.split(" at ").nth(1) {
                let port = url.split(':').nth(2).unwrap().split('/').next().unwrap();
                break port.parse().unwrap();
            }
        };
        // Keep reading stdout so the server never blocks on a full pipe.
        std::thread::spawn(move || lines.for_each(drop));
        let events = subscribe(port);
        Server {
            child,
            port,
            events,
        }
    }

    fn get(&self, path: &str) -> (u16, String) {
        let (status, body) = request(self.port, "GET", path);
        (status, String::from_utf8_lossy(&body).into_owned())
    }

    /// Waits for the next reload event, then until `ready` holds (a change may come in two
    /// batches; the page is what counts).
    fn after_change(&self, what: &str, ready: impl Fn(&Server) -> bool) {
        let deadline = Instant::now() + WAIT;
        let event = self
            .events
            .recv_timeout(WAIT)
            .unwrap_or_else(|_| panic!("no reload event after {what}"));
        assert!(event == "reload" || event == "css", "{event}");
        while !ready(self) {
            assert!(
                Instant::now() < deadline,
                "{what}: the served site did not follow"
            );
            std::thread::sleep(Duration::from_millis(20));
        }
        while self.events.try_recv().is_ok() {}
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
    }
}

/// A response's headers, names in lower case.
fn headers(port: u16, path: &str) -> Vec<(String, String)> {
    let (_, head, _) = exchange(port, "GET", path);
    head.lines()
        .skip(1)
        .filter_map(|l| l.split_once(": "))
        .map(|(n, v)| (n.to_ascii_lowercase(), v.to_string()))
        .collect()
}

/// A raw HTTP/1.1 request, so that paths go out exactly as written (no client cleans `..`).
fn request(port: u16, method: &str, path: &str) -> (u16, Vec<u8>) {
    let (status, _, body) = exchange(port, method, path);
    (status, body)
}

/// The status, head and body of a raw request.
fn exchange(port: u16, method: &str, path: &str) -> (u16, String, Vec<u8>) {
    let mut stream = TcpStream::connect(("127.0.0.1", port)).unwrap();
    stream.set_read_timeout(Some(WAIT)).unwrap();
    write!(
        stream,
        "{method} {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n"
    )
    .unwrap();
    let mut response = Vec::new();
    stream.read_to_end(&mut response).unwrap();
    let split = response
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .expect("a complete response");
    let head = String::from_utf8_lossy(&response[..split]).into_owned();
    let status = head.split(' ').nth(1).unwrap().parse().unwrap();
    (status, head, response[split + 4..].to_vec())
}

/// Listens to the reload stream, sending each event's name.
fn subscribe(port: u16) -> Receiver<String> {
    let (sender, events) = mpsc::channel();
    let mut stream = TcpStream::connect(("127.0.0.1", port)).unwrap();
    write!(
        stream,
        "GET /__outages/events HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"
    )
    .unwrap();
    std::thread::spawn(move || {
        for line in BufReader::new(stream).lines() {
            let Ok(line) = line else { return };
            if let Some(name) = line.strip_prefix("event: ")
                && sender.send(name.trim().to_string()).is_err()
            {
                return;
            }
        }
    });
    // The stream is open once the server has answered a request made after it.
    std::thread::sleep(Duration::from_millis(100));
    events
}

/// The page as `build` writes it: without the preview's script and overlay.
fn strip_preview(html: &str) -> String {
    match html.find("<script src=\"/__outages/reload.js\"") {
        Some(start) => {
            let end = html[start..]
                .find("</body>")
                .map_or(html.len(), |i| start + i);
            format!("{}{}", &html[..start], &html[end..])
        }
        None => html.to_string(),
    }
}

#[test]
fn serve_follows_every_edit_and_serves_what_build_writes() {
    let site = Site::new(&[
        ("content/lightstep/seed.md", SEED),
        ("content/acme/_index.md", "---\nname: Acme\n---\n"),
        (
            "content/acme/a.md",
            &incident("Alpha", "2024-03-05T14:00:00Z"),
        ),
        (
            "content/acme/b.md",
            &incident("Bravo", "2024-02-05T14:00:00Z"),
        ),
        (
            "content/acme/c.md",
            &incident("Charlie", "2024-01-05T14:00:00Z"),
        ),
    ]);
    let server = Server::start(&site);

    let (status, home) = server.get("/");
    assert_eq!(status, 200);
    assert!(home.contains("Alpha") && home.contains("/__outages/reload.js"));
    assert_eq!(server.get("/acme/a/").0, 200);
    assert_eq!(request(server.port, "HEAD", "/acme/a/").0, 200);
    assert_eq!(request(server.port, "POST", "/acme/a/").0, 405);

    // Edit.
    site.write(
        "content/acme/a.md",
        &incident("Alpha, edited", "2024-03-05T14:00:00Z"),
    );
    server.after_change("an edit", |s| s.get("/acme/a/").1.contains("Alpha, edited"));

    // A new incident shows on its provider page and in the feed.
    site.write(
        "content/acme/d.md",
        &incident("Delta", "2024-03-05T15:00:00Z"),
    );
    server.after_change("a new file", |s| {
        s.get("/acme/").1.contains("Delta") && s.get("/acme/feed.xml").1.contains("Delta")
    });

    // Rename one (the way editors save: write a temp file, rename it over) and delete one.
    site.write("content/acme/.b2.md.swp", "swap");
    std::fs::rename(
        site.path("content/acme/b.md"),
        site.path("content/acme/b2.md"),
    )
    .unwrap();
    server.after_change("a rename", |s| {
        s.get("/acme/b/").0 == 404 && s.get("/acme/b2/").0 == 200
    });
    std::fs::remove_file(site.path("content/acme/c.md")).unwrap();
    server.after_change("a delete", |s| {
        s.get("/acme/c/").0 == 404 && !s.get("/acme/").1.contains("Charlie")
    });
    let (status, missing) = server.get("/acme/c/");
    assert_eq!(status, 404);
    assert!(missing.contains("Page not found"), "the site's 404 page");

    // A template, in a templates/ folder that did not exist when serve started.
    site.write(
        "templates/404.html",
        "<!doctype html><html lang=en><title>gone</title><body><p>Custom 404</p></body></html>",
    );
    server.after_change("a new template", |s| {
        s.get("/nope/").1.contains("Custom 404")
    });

    // A static file: a stylesheet change swaps styles without a reload.
    site.write("static/style.css", "body { color: rebeccapurple }");
    let event = server
        .events
        .recv_timeout(WAIT)
        .expect("an event after a CSS change");
    assert_eq!(event, "css");
    assert_eq!(server.get("/style.css").1, "body { color: rebeccapurple }");

    // A broken file: the overlay shows, the last good pages stay; fixing it clears it.
    site.write(
        "content/acme/a.md",
        "---\ntitle: Alpha\nimpact: sever\n---\n",
    );
    server.after_change("a broken file", |s| s.get("/").1.contains("outages-error"));
    let (_, page) = server.get("/acme/a/");
    assert!(
        page.contains("Alpha, edited") && page.contains("unknown impact `sever`"),
        "old page plus overlay"
    );
    site.write(
        "content/acme/a.md",
        &incident("Alpha, fixed", "2024-03-05T14:00:00Z"),
    );
    server.after_change("a fix", |s| {
        !s.get("/").1.contains("outages-error") && s.get("/acme/a/").1.contains("Alpha, fixed")
    });

    // No request reaches outside the site.
    for path in [
        "/../../../etc/passwd",
        "/%2e%2e/%2e%2e/etc/passwd",
        "/acme/..%2f..%2fCargo.toml",
        "/..%5c..%5cetc",
        "/%2E%2E/",
    ] {
        let (status, body) = request(server.port, "GET", path);
        assert!(status == 400 || status == 404, "{path}: {status}");
        assert!(!String::from_utf8_lossy(&body).contains("root:"), "{path}");
    }

    // Everything served equals a fresh full build of the same folder, made as `serve`
    // makes it (the same base URL; asset names without hashes, so CSS can be swapped live).
    let base = format!("http://127.0.0.1:{}/", server.port);
    let options = outages::site::Options {
        base_url: Some(outages::config::BaseUrl::parse(&base).unwrap()),
        hash_assets: false,
        ..outages::site::Options::new(site.root())
    };
    let fresh = outages::site::Site::load(&options).expect("a fresh build succeeds");
    let pages: Vec<_> = fresh.pages.iter().collect();
    let built: std::collections::BTreeMap<String, Vec<u8>> =
        outages::site::render_pages(&fresh.renderer(), &pages, |page, bytes| {
            (page.path.clone(), bytes)
        })
        .expect("every page renders")
        .into_iter()
        .collect();
    assert!(built.len() > 20, "{}", built.len());
    for (path, bytes) in built {
        let url = format!("/{}", path.strip_suffix("index.html").unwrap_or(&path));
        let (status, served) = request(server.port, "GET", &url);
        assert_eq!(status, 200, "{url}");
        if path.ends_with(".html") {
            assert_eq!(
                strip_preview(&String::from_utf8_lossy(&served)),
                String::from_utf8_lossy(&bytes),
                "{url}"
            );
        } else {
            assert_eq!(served, bytes, "{url}");
        }
    }
    // The search index follows on its own thread: once it has caught up, it is the index
    // a build makes of the same site, file for file.
    let index = outages::search::index(
        &fresh.archive.incidents,
        &fresh.views.incidents.provider_names(),
        &fresh.config.language,
        |_| None,
        &mut outages::search::Memory::default(),
    )
    .unwrap();
    let entry = &index
        .iter()
        .find(|(path, _)| path == "pagefind/words/pagefind-entry.json")
        .unwrap()
        .1;
    let start = Instant::now();
    while request(server.port, "GET", "/pagefind/words/pagefind-entry.json").1 != *entry {
        assert!(start.elapsed() < WAIT, "the index never caught up");
        std::thread::sleep(Duration::from_millis(50));
    }
    for (path, bytes) in &index {
        assert_eq!(
            request(server.port, "GET", &format!("/{path}")).1,
            *bytes,
            "{path}"
        );
    }
    assert!(
        !site.path("public").exists(),
        "serve writes nothing into the site folder"
    );
}

#[test]
fn search_turned_off_and_on_while_serving() {
    let site = Site::new(&[(
        "content/acme/a.md",
        &incident("Alpha", "2024-03-05T14:00:00Z"),
    )]);
    let server = Server::start(&site);
    let until = |what: &str, ready: &dyn Fn(&Server) -> bool| {
        let start = Instant::now();
        while !ready(&server) {
            assert!(start.elapsed() < WAIT, "{what}");
            std::thread::sleep(Duration::from_millis(50));
        }
    };
    until("the index is served", &|s| {
        s.get("/pagefind/words/pagefind-entry.json").0 == 200
    });
    assert_eq!(server.get("/search/").0, 200);
    assert!(server.get("/").1.contains("class=\"search-box\""));

    // An edit: the new index comes in, and the old one's files stay for a search page
    // opened on it.
    let entry = server.get("/pagefind/words/pagefind-entry.json").1;
    let meta = |entry: &str| {
        let entry: serde_json::Value = serde_json::from_str(entry).unwrap();
        format!(
            "/pagefind/words/pagefind.{}.pf_meta",
            entry["languages"]["en"]["hash"].as_str().unwrap()
        )
    };
    site.write(
        "content/acme/a.md",
        &incident("Alpha renamed", "2024-03-05T14:00:00Z"),
    );
    until("a new index", &|s| {
        s.get("/pagefind/words/pagefind-entry.json").1 != entry
    });
    let old = meta(&entry);
    assert_ne!(
        meta(&server.get("/pagefind/words/pagefind-entry.json").1),
        old
    );
    assert_eq!(server.get(&old).0, 200, "{old} went with the swap");
    while server.events.try_recv().is_ok() {}

    site.write("site.yaml", "search: false\n");
    server.after_change("search off", |s| !s.get("/").1.contains("search-box"));
    assert_eq!(server.get("/search/").0, 404);
    until("the index is gone", &|s| {
        s.get("/pagefind/words/pagefind-entry.json").0 == 404
    });

    site.write("site.yaml", "search: true\n");
    server.after_change("search on", |s| s.get("/").1.contains("search-box"));
    until("the index is back", &|s| {
        s.get("/pagefind/words/pagefind-entry.json").0 == 200
    });
    assert_eq!(server.get("/search/").0, 200);
}

#[test]
fn serve_under_the_path_of_the_base_url() {
    let site = Site::new(&[(
        "content/acme/a.md",
        &incident("Alpha", "2024-03-05T14:00:00Z"),
    )]);
    let server = Server::start_with(&site, &["--base-url", "https://user.github.io/repo/"]);
    let (status, home) = server.get("/repo/");
    assert_eq!(status, 200);
    assert!(
        home.contains("href=\"/repo/acme/a/\""),
        "links carry the path"
    );
    assert_eq!(server.get("/repo/acme/a/").0, 200);
    assert_eq!(server.get("/acme/a/").0, 404);
    assert_eq!(request(server.port, "GET", "/repo").0, 308);
    assert_eq!(
        request(server.port, "GET", "/repo/acme").0,
        308,
        "a folder without its slash redirects"
    );
    // The API, the feeds and the badges as the host serves them, from `_headers`.
    let header = |path: &str, name: &str| {
        headers(server.port, path)
            .into_iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v)
    };
    for path in ["/repo/api/v1/providers.json", "/repo/api/v1/index.json"] {
        assert_eq!(
            header(path, "content-type").as_deref(),
            Some("application/json; charset=utf-8")
        );
        assert_eq!(
            header(path, "access-control-allow-origin").as_deref(),
            Some("*")
        );
    }
    assert_eq!(
        header("/repo/acme/feed.xml", "content-type").as_deref(),
        Some("application/atom+xml; charset=utf-8")
    );
    assert_eq!(
        header("/repo/badges/acme.svg", "access-control-allow-origin").as_deref(),
        Some("*")
    );
    assert_eq!(header("/repo/acme/", "access-control-allow-origin"), None);
    assert_eq!(
        header("/repo/acme/", "content-security-policy"),
        None,
        "the reload script runs"
    );
}

#[test]
fn serve_exits_cleanly_on_ctrl_c() {
    let site = Site::new(&[(
        "content/acme/a.md",
        &incident("Alpha", "2024-03-05T14:00:00Z"),
    )]);
    let mut server = Server::start(&site);
    assert_eq!(server.get("/").0, 200);
    let pid = server.child.id().to_string();
    assert!(
        Command::new("kill")
            .args(["-INT", &pid])
            .status()
            .unwrap()
            .success()
    );
    let deadline = Instant::now() + WAIT;
    let status = loop {
        if let Some(status) = server.child.try_wait().unwrap() {
            break status;
        }
        assert!(Instant::now() < deadline, "serve did not stop on SIGINT");
        std::thread::sleep(Duration::from_millis(20));
    };
    assert!(status.success(), "{status}");
}

#[test]
fn a_site_that_does_not_build_at_start_is_served_whole_once_fixed() {
    let site = Site::new(&[
        (
            "content/acme/a.md",
            &incident("Alpha", "2024-03-05T14:00:00Z"),
        ),
        (
            "templates/404.html",
            "{% extends \"base.html\" %}{% block main %}{{ nosuchvar.x }}{% endblock main %}",
        ),
    ]);
    let server = Server::start(&site);
    let (_, page) = server.get("/");
    assert!(page.contains("outages-error"), "the error is shown: {page}");
    std::fs::remove_file(site.path("templates/404.html")).unwrap();
    server.after_change("the fix", |s| s.get("/").0 == 200);
    for path in [
        "/",
        "/acme/a/",
        "/style.css",
        "/feed.xml",
        "/sitemap.xml",
        "/api/v1/providers.json",
    ] {
        assert_eq!(server.get(path).0, 200, "{path}");
    }
    assert!(!server.get("/").1.contains("outages-error"));
}

#[test]
fn slow_clients_cannot_hold_the_server() {
    let site = Site::new(&[(
        "content/acme/a.md",
        &incident("Alpha", "2024-03-05T14:00:00Z"),
    )]);
    // More clients than the server may open files: each holds its connection by sending
    // its request head a line at a time, and never finishing it.
    let server = Server::start_limited(&site, 512);
    let address = std::net::SocketAddr::from(([127, 0, 0, 1], server.port));
    let slow: Vec<TcpStream> = (0..600)
        .filter_map(|_| {
            let mut stream = TcpStream::connect_timeout(&address, Duration::from_secs(5)).ok()?;
            stream
                .write_all(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n")
                .ok()?;
            Some(stream)
        })
        .collect();
    assert!(slow.len() > 512, "{} slow clients", slow.len());
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let drip = {
        let stop = std::sync::Arc::clone(&stop);
        std::thread::spawn(move || {
            let mut slow = slow;
            for line in 0.. {
                if stop.load(std::sync::atomic::Ordering::Relaxed) {
                    break;
                }
                for stream in &mut slow {
                    let _ = write!(stream, "X-Line-{line}: y\r\n");
                }
                std::thread::sleep(Duration::from_millis(100));
            }
        })
    };
    let start = Instant::now();
    let (status, page) = server.get("/acme/a/");
    let took = start.elapsed();
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    drip.join().unwrap();
    assert_eq!(status, 200);
    assert!(page.contains("Alpha"));
    assert!(took < Duration::from_secs(5), "answered after {took:?}");
}

#[test]
fn moving_content_away_and_back_keeps_the_watch() {
    let site = Site::new(&[(
        "content/acme/a.md",
        &incident("Alpha", "2024-03-05T14:00:00Z"),
    )]);
    let server = Server::start(&site);
    std::fs::rename(site.path("content"), site.path("content.x")).unwrap();
    server.after_change("content moved away", |s| s.get("/acme/a/").0 == 404);
    std::fs::rename(site.path("content.x"), site.path("content")).unwrap();
    server.after_change("content moved back", |s| s.get("/acme/a/").0 == 200);
    site.write(
        "content/acme/a.md",
        &incident("Beta", "2024-03-05T14:00:00Z"),
    );
    server.after_change("an edit after the move", |s| {
        s.get("/acme/a/").1.contains("Beta")
    });
}

#[test]
fn a_panic_while_rebuilding_does_not_stop_serve() {
    let site = Site::new(&[(
        "content/acme/a.md",
        &incident("Alpha", "2024-03-05T14:00:00Z"),
    )]);
    let mut server = Server::start(&site);
    // Made chrono panic (an instant past the year 262143) when this test was written.
    site.write(
        "content/acme/a.md",
        "---\ntitle: Huge\nstarted: 2024-03-05T14:00:00Z\nduration: 9000000000000000s\nimpact: major\n---\n",
    );
    server.after_change("the bad file", |s| {
        s.get("/acme/a/").1.contains("outages-error")
    });
    assert!(server.child.try_wait().unwrap().is_none(), "serve stopped");
    let (status, page) = server.get("/acme/a/");
    assert_eq!(status, 200);
    assert!(page.contains("Alpha"), "the last good page is served");
    site.write(
        "content/acme/a.md",
        &incident("Fixed", "2024-03-05T14:00:00Z"),
    );
    server.after_change("the fix", |s| {
        let page = s.get("/acme/a/").1;
        page.contains("Fixed") && !page.contains("outages-error")
    });
}
