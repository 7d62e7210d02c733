//! Files that static hosts read from the output root: `_headers` and `_redirects`, in the
//! format Netlify and Cloudflare Pages share (a path pattern on its own line, then its
//! headers indented; `from to status` for redirects).

use std::fmt::Write as _;

use crate::config::BaseUrl;
use crate::routes::{self, FeedFormat};

/// What the default theme needs, and nothing more: scripts, styles and images from the
/// site itself (its script shows times in the reader's zone; images in incident text may
/// come from anywhere over https), nothing inline, and forms only to the site (the
/// header's search box).
pub const CONTENT_SECURITY_POLICY: &str = "default-src 'none'; script-src 'self'; style-src 'self'; \
     img-src 'self' https: data:; font-src 'self'; base-uri 'none'; form-action 'self'; \
     frame-ancestors 'none'";

/// The search page's, the one page with a script: the theme's own and Pagefind's, which
/// compiles its WebAssembly (`wasm-unsafe-eval`, not `unsafe-eval`), fetches the index and
/// searches in a worker (which runs under the policy of its own file, in `pagefind/`).
/// Nothing inline, nothing from elsewhere.
pub const SEARCH_CONTENT_SECURITY_POLICY: &str = "default-src 'none'; script-src 'self' 'wasm-unsafe-eval'; \
     connect-src 'self'; worker-src 'self'; style-src 'self'; img-src 'self' https: data:; \
     font-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'";

const SHORT: &str = "public, max-age=300, must-revalidate";
const YEAR: &str = "public, max-age=31536000, immutable";

/// `_headers`: security headers everywhere; short caching for pages, feeds and the API,
/// with the feeds' own content types; a year for assets whose names carry a hash.
pub fn headers(base: &BaseUrl, hashed_assets: &[&str], search: bool) -> Vec<u8> {
    let root = base.root_path();
    let mut out = String::from("# Read by Netlify and Cloudflare Pages. Written by outages.\n");
    let mut rule = |pattern: String, headers: &[(&str, &str)]| {
        let _ = writeln!(out, "{pattern}");
        for (name, value) in headers {
            // No value: `! Name`, Cloudflare's way to drop a header an earlier rule set.
            if value.is_empty() {
                let _ = writeln!(out, "  {name}");
            } else {
                let _ = writeln!(out, "  {name}: {value}");
            }
        }
    };
    rule(
        format!("{root}*"),
        &[
            ("X-Content-Type-Options", "nosniff"),
            ("Referrer-Policy", "strict-origin-when-cross-origin"),
            ("Content-Security-Policy", CONTENT_SECURITY_POLICY),
        ],
    );
    if search {
        // The search page, and Pagefind's worker, whose fetches its own policy governs.
        // Cloudflare Pages joins the values of every rule that matches, which would enforce
        // both policies: `!` detaches the site's first. Netlify takes the last.
        for dir in [routes::SEARCH_DIR, routes::SEARCH_INDEX_DIR] {
            rule(
                format!("{root}{dir}*"),
                &[
                    ("! Content-Security-Policy", ""),
                    ("Content-Security-Policy", SEARCH_CONTENT_SECURITY_POLICY),
                ],
            );
        }
    }
    rule(root.to_string(), &[("Cache-Control", SHORT)]);
    rule(format!("{root}*/"), &[("Cache-Control", SHORT)]);
    for format in FeedFormat::ALL {
        let file = format.file_name();
        for pattern in [format!("{root}{file}"), format!("{root}*/{file}")] {
            rule(
                pattern,
                &[
                    ("Content-Type", format.media_type()),
                    ("Cache-Control", SHORT),
                ],
            );
        }
    }
    rule(
        format!("{root}*/{}", routes::MAINTENANCE_CALENDAR),
        &[
            ("Content-Type", "text/calendar; charset=utf-8"),
            ("Cache-Control", SHORT),
        ],
    );
    // The markdown twins, as text to read, never a page.
    rule(
        format!("{root}*/{}", routes::TWIN),
        &[
            ("Content-Type", "text/markdown; charset=utf-8"),
            ("Cache-Control", SHORT),
        ],
    );
    // The API, the data and the badges are for other sites: any origin may fetch them
    // (CORS) and embed a badge; the pages keep `frame-ancestors 'none'`.
    rule(
        format!("{root}{}*", routes::API_DIR),
        &[
            ("Content-Type", "application/json; charset=utf-8"),
            ("Cache-Control", SHORT),
            ("Access-Control-Allow-Origin", "*"),
        ],
    );
    // The archive as data: for notebooks and scripts on any origin.
    rule(
        format!("{root}{}*", routes::DATA_DIR),
        &[
            ("Cache-Control", SHORT),
            ("Access-Control-Allow-Origin", "*"),
        ],
    );
    rule(
        format!("{root}{}*", routes::BADGES_DIR),
        &[
            ("Cache-Control", SHORT),
            ("Access-Control-Allow-Origin", "*"),
            ("Cross-Origin-Resource-Policy", "cross-origin"),
        ],
    );
    for asset in hashed_assets {
        rule(format!("{root}{asset}"), &[("Cache-Control", YEAR)]);
    }
    // Pagefind's files keep the host's own caching: it names them by a short hash (7 hex
    // digits) that another build may give another file, so none is cached for a year.
    out.into_bytes()
}

/// `_redirects`: every alias to its incident, permanently.
pub fn redirects<'a>(base: &BaseUrl, aliases: impl Iterator<Item = (&'a str, String)>) -> Vec<u8> {
    let mut out = String::from(
        "# Read by Netlify and Cloudflare Pages. Written by outages: one line per alias.\n",
    );
    for (alias, target) in aliases {
        let _ = writeln!(out, "{} {target} 301", base.path(alias));
    }
    out.into_bytes()
}
