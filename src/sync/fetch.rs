//! Fetching a status page's JSON as a good citizen: conditional requests, a `User-Agent`
//! that names us, connect and total timeouts, a cap on what an answer may hold (counted as
//! it arrives, after decompression), retries with backoff on 5xx and timeouts, `Retry-After`
//! honoured on 429 and 503, and redirects that never go from https down to http.

use std::time::Duration;

use reqwest::header::{self, HeaderMap, HeaderValue};
use reqwest::{StatusCode, Url};
use serde::{Deserialize, Serialize};

/// What a server said about an answer, sent back to ask "changed since?".
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Validators {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) etag: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) last_modified: Option<String>,
}

impl Validators {
    fn of(headers: &HeaderMap) -> Option<Validators> {
        let text = |name| {
            headers
                .get(name)
                .and_then(|v: &HeaderValue| v.to_str().ok())
                .map(str::to_string)
        };
        let validators = Validators {
            etag: text(header::ETAG),
            last_modified: text(header::LAST_MODIFIED),
        };
        (validators != Validators::default()).then_some(validators)
    }
}

/// What a fetch gave.
#[derive(Debug)]
pub enum Fetched {
    /// 304: nothing new since the validators.
    NotModified,
    /// An answer, whole.
    Body {
        /// What it holds, decompressed.
        bytes: Vec<u8>,
        /// What to ask "changed since?" with next time, when the server said.
        validators: Option<Validators>,
    },
}

/// Why a fetch gave nothing, in the user's words.
#[derive(Debug, Clone, PartialEq)]
pub struct Failure {
    pub(crate) url: String,
    pub(crate) reason: String,
    pub(crate) hint: Option<String>,
    /// No answer came at all (no connection, or none in time): asking the host anything
    /// else at once is no use.
    pub silent: bool,
}

/// How patient and how generous a client is.
#[derive(Debug, Clone)]
pub struct Limits {
    /// The longest wait to connect.
    pub connect_timeout: Duration,
    /// The longest wait for the whole request and answer, connecting included.
    pub timeout: Duration,
    /// Attempts after the first, on 5xx, 429 and timeouts.
    pub retries: u32,
    /// The first wait between attempts, doubled each time.
    pub backoff: Duration,
    /// The longest `Retry-After` waited for; a server that asks for more is tried next run.
    pub max_wait: Duration,
    /// The most an answer may hold, decompressed.
    pub max_bytes: usize,
}

/// What a sync reads: JSON APIs and feeds.
const ACCEPT: &str =
    "application/json, application/atom+xml, application/rss+xml, application/xml;q=0.9, */*;q=0.8";

/// The redirects followed, at most.
pub const MAX_REDIRECTS: usize = 5;

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            connect_timeout: Duration::from_secs(10),
            timeout: Duration::from_secs(30),
            retries: 2,
            backoff: Duration::from_millis(500),
            max_wait: Duration::from_secs(60),
            max_bytes: crate::import::MAX_PAYLOAD_BYTES,
        }
    }
}

pub(crate) struct Client {
    http: reqwest::Client,
    limits: Limits,
}

/// A redirect that is not followed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum BadRedirect {
    /// More than [`MAX_REDIRECTS`] in a row.
    #[error("more than {} redirects", MAX_REDIRECTS)]
    TooMany,
    /// Back to an address already asked.
    #[error("a redirect loop back to {0}")]
    Loop(Url),
    /// From https down to http.
    #[error("a redirect from https down to {0}, which would send the request unencrypted")]
    Down(Url),
}

/// Whether to follow a redirect from the last of `previous` to `next`.
pub fn redirect_verdict(previous: &[Url], next: &Url) -> Result<(), BadRedirect> {
    if previous.len() > MAX_REDIRECTS {
        return Err(BadRedirect::TooMany);
    }
    if previous.contains(next) {
        return Err(BadRedirect::Loop(next.clone()));
    }
    match previous.last() {
        Some(from) if from.scheme() == "https" && next.scheme() != "https" => {
            Err(BadRedirect::Down(next.clone()))
        }
        _ => Ok(()),
    }
}

/// An HTTP client that cannot be made (its TLS, say).
#[derive(Debug, thiserror::Error)]
#[error("cannot start an HTTP client: {0}")]
pub struct NoClient(String);

/// Why one attempt gave nothing: the user's words, and whether the server said anything.
struct Miss {
    reason: String,
    silent: bool,
}

impl Miss {
    /// The server answered, with something of no use.
    fn said(reason: String) -> Miss {
        Miss {
            reason,
            silent: false,
        }
    }

    /// The server gave no answer.
    fn silent(reason: String) -> Miss {
        Miss {
            reason,
            silent: true,
        }
    }
}

/// One attempt's end: done, or worth another try after a wait.
enum Attempt {
    Done(Result<Fetched, Miss>),
    Again { miss: Miss, wait: Option<Duration> },
}

impl Client {
    pub fn new(limits: Limits) -> Result<Client, NoClient> {
        // The TLS provider is chosen once per process; it is already there on a second call.
        let _ = rustls::crypto::ring::default_provider().install_default();
        let http = reqwest::Client::builder()
            .user_agent(concat!(
                "outages/",
                env!("CARGO_PKG_VERSION"),
                " (static outage archive; sync)"
            ))
            .connect_timeout(limits.connect_timeout)
            .timeout(limits.timeout)
            .redirect(reqwest::redirect::Policy::custom(
                |attempt| match redirect_verdict(attempt.previous(), attempt.url()) {
                    Ok(()) => attempt.follow(),
                    Err(why) => attempt.error(why),
                },
            ))
            .build()
            .map_err(|e| NoClient(reason(&e)))?;
        Ok(Client { http, limits })
    }

    /// GETs `url`, asking "changed since `known`?"; retries what is worth retrying.
    pub async fn get(&self, url: &Url, known: Option<&Validators>) -> Result<Fetched, Failure> {
        let fail = |miss: Miss, hint: Option<String>| Failure {
            url: url.to_string(),
            reason: miss.reason,
            hint,
            silent: miss.silent,
        };
        let mut backoff = self.limits.backoff;
        let mut attempt = 0;
        loop {
            match self.attempt(url, known).await {
                Attempt::Done(Ok(fetched)) => return Ok(fetched),
                Attempt::Done(Err(miss)) => return Err(fail(miss, None)),
                Attempt::Again { miss, wait } => {
                    let later = || Some("the provider is tried again on the next sync".into());
                    if attempt >= self.limits.retries {
                        let tries = attempt + 1;
                        let reason = format!("{} ({tries} tries)", miss.reason);
                        return Err(fail(Miss { reason, ..miss }, later()));
                    }
                    let wait = match wait {
                        Some(asked) if asked > self.limits.max_wait => {
                            let secs = asked.as_secs();
                            let reason = format!("{}, and asks to wait {secs} s", miss.reason);
                            return Err(fail(Miss { reason, ..miss }, later()));
                        }
                        Some(asked) => asked,
                        None => backoff,
                    };
                    tokio::time::sleep(wait).await;
                    backoff = backoff.saturating_mul(2);
                    attempt += 1;
                }
            }
        }
    }

    async fn attempt(&self, url: &Url, known: Option<&Validators>) -> Attempt {
        let mut request = self.http.get(url.clone()).header(header::ACCEPT, ACCEPT);
        if let Some(known) = known {
            if let Some(etag) = known.etag.as_deref().and_then(header_value) {
                request = request.header(header::IF_NONE_MATCH, etag);
            }
            if let Some(date) = known.last_modified.as_deref().and_then(header_value) {
                request = request.header(header::IF_MODIFIED_SINCE, date);
            }
        }
        let response = match request.send().await {
            Ok(response) => response,
            Err(error) => return self.failed(&error),
        };
        let status = response.status();
        if status == StatusCode::NOT_MODIFIED {
            return Attempt::Done(Ok(Fetched::NotModified));
        }
        let said = status_text(status);
        if status == StatusCode::TOO_MANY_REQUESTS || status == StatusCode::SERVICE_UNAVAILABLE {
            let wait = retry_after(response.headers(), chrono::Utc::now());
            let miss = Miss::said(said);
            return Attempt::Again { miss, wait };
        }
        if status.is_server_error() {
            let miss = Miss::said(said);
            return Attempt::Again { miss, wait: None };
        }
        if !status.is_success() {
            return Attempt::Done(Err(Miss::said(said)));
        }
        let validators = Validators::of(response.headers());
        match self.body(response).await {
            Ok(bytes) => Attempt::Done(Ok(Fetched::Body { bytes, validators })),
            Err(Ok(too_big)) => Attempt::Done(Err(Miss::said(too_big))),
            Err(Err(error)) => self.failed(&error),
        }
    }

    /// Reads the answer a chunk at a time, refusing it once it passes the cap.
    async fn body(
        &self,
        mut response: reqwest::Response,
    ) -> Result<Vec<u8>, Result<String, reqwest::Error>> {
        let cap = self.limits.max_bytes;
        let too_big = || {
            Ok(format!(
                "the answer is over {} MB, more than a status page's history holds; refused",
                cap / (1024 * 1024)
            ))
        };
        if response
            .content_length()
            .is_some_and(|length| length > cap as u64)
        {
            return Err(too_big());
        }
        let mut bytes = Vec::new();
        while let Some(chunk) = response.chunk().await.map_err(Err)? {
            if bytes.len().saturating_add(chunk.len()) > cap {
                return Err(too_big());
            }
            bytes.extend_from_slice(&chunk);
        }
        Ok(bytes)
    }

    fn failed(&self, error: &reqwest::Error) -> Attempt {
        if error.is_timeout() {
            let secs = self.limits.timeout.as_secs_f64();
            let miss = Miss::silent(format!("no complete answer within {secs} s"));
            return Attempt::Again { miss, wait: None };
        }
        if error.is_redirect() {
            return Attempt::Done(Err(Miss::said(reason(error))));
        }
        // Only timeouts are worth another try at once: a name that does not resolve, a
        // refused connection or a bad certificate will be the same in a second.
        let why = reason(error);
        if error.is_connect() {
            return Attempt::Done(Err(Miss::silent(format!("cannot connect: {why}"))));
        }
        Attempt::Done(Err(Miss::silent(why)))
    }
}

/// A client's requests to one host, one at a time with a pause between them, so a long
/// walk of a history does not weigh on the server.
pub struct Paced<'a> {
    client: &'a Client,
    delay: Duration,
    asked: bool,
}

impl<'a> Paced<'a> {
    pub(crate) fn new(client: &'a Client, delay: Duration) -> Paced<'a> {
        Paced {
            client,
            delay,
            asked: false,
        }
    }

    /// `Client::get`, after the pause when a request went before.
    pub async fn get(&mut self, url: &Url, known: Option<&Validators>) -> Result<Fetched, Failure> {
        if self.asked && !self.delay.is_zero() {
            tokio::time::sleep(self.delay).await;
        }
        self.asked = true;
        self.client.get(url, known).await
    }
}

fn header_value(text: &str) -> Option<HeaderValue> {
    HeaderValue::from_str(text).ok()
}

fn status_text(status: StatusCode) -> String {
    match status.canonical_reason() {
        Some(words) => format!("HTTP {} {words}", status.as_u16()),
        None => format!("HTTP {}", status.as_u16()),
    }
}

/// `Retry-After`: seconds, or an HTTP date (RFC 9110 §10.2.3).
pub fn retry_after(headers: &HeaderMap, now: chrono::DateTime<chrono::Utc>) -> Option<Duration> {
    let text = headers.get(header::RETRY_AFTER)?.to_str().ok()?.trim();
    if let Ok(secs) = text.parse::<u64>() {
        return Some(Duration::from_secs(secs));
    }
    let at = chrono::DateTime::parse_from_rfc2822(text).ok()?;
    Some(
        (at.with_timezone(&chrono::Utc) - now)
            .to_std()
            .unwrap_or_default(),
    )
}

/// The innermost cause of an error: what went wrong, without the library's wrapping.
fn reason(error: &reqwest::Error) -> String {
    let mut cause: &dyn std::error::Error = error;
    while let Some(inner) = cause.source() {
        cause = inner;
    }
    cause.to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn url(text: &str) -> Url {
        Url::parse(text).unwrap()
    }

    #[test]
    fn redirects_never_go_down_to_http_loop_or_run_on() {
        let https = url("https://status.example.com/api/v2/incidents.json");
        let other = url("https://www.example.com/api/v2/incidents.json");
        assert_eq!(
            redirect_verdict(std::slice::from_ref(&https), &other),
            Ok(())
        );
        let down = url("http://status.example.com/api/v2/incidents.json");
        let refused = redirect_verdict(std::slice::from_ref(&https), &down).unwrap_err();
        assert_eq!(refused, BadRedirect::Down(down.clone()));
        assert!(
            refused.to_string().contains("https down to http://"),
            "{refused}"
        );
        // A page given as http may move up to https, or stay.
        assert_eq!(
            redirect_verdict(std::slice::from_ref(&down), &https),
            Ok(())
        );
        assert_eq!(
            redirect_verdict(&[https.clone(), other.clone()], &https),
            Err(BadRedirect::Loop(https.clone()))
        );
        let chain: Vec<Url> = (0..=MAX_REDIRECTS)
            .map(|i| url(&format!("https://example.com/{i}")))
            .collect();
        assert_eq!(redirect_verdict(&chain, &other), Err(BadRedirect::TooMany));
        assert_eq!(redirect_verdict(&chain[..MAX_REDIRECTS], &other), Ok(()));
    }

    #[test]
    fn retry_after_reads_seconds_and_dates() {
        let now = chrono::DateTime::parse_from_rfc3339("2015-10-21T07:27:00Z")
            .unwrap()
            .with_timezone(&chrono::Utc);
        let with = |value: &str| {
            let mut headers = HeaderMap::new();
            headers.insert(header::RETRY_AFTER, HeaderValue::from_str(value).unwrap());
            retry_after(&headers, now)
        };
        assert_eq!(with("1"), Some(Duration::from_secs(1)));
        assert_eq!(
            with("Wed, 21 Oct 2015 07:28:00 GMT"),
            Some(Duration::from_secs(60))
        );
        assert_eq!(with("Wed, 21 Oct 2015 07:00:00 GMT"), Some(Duration::ZERO));
        assert_eq!(with("soon"), None);
        assert_eq!(retry_after(&HeaderMap::new(), now), None);
    }
}
