//! Problems found in a site, as values: collected across every file, rendered once at the edge.

use std::fmt;
use std::path::{Path, PathBuf};

use annotate_snippets::{AnnotationKind, Group, Level, Renderer, Snippet};
use serde::{Deserialize, Serialize};

/// `n` and a noun, in the plural unless `n` is 1: `1 incident`, `10,088 incidents`.
pub fn count(n: usize, noun: &str) -> String {
    if n == 1 {
        format!("1 {noun}")
    } else {
        format!("{} {noun}s", thousands(n))
    }
}

/// The exit code of a command that cannot be carried out as given.
pub const EXIT_USAGE: u8 = 2;
/// The exit code of a command whose site, payload or output is wrong.
pub const EXIT_INVALID: u8 = 1;

/// An error a command ends with: its words, and the exit code that says it (a usage
/// error, unless it says otherwise). `main.rs` prints every one the same way.
pub trait Failure: std::fmt::Display {
    /// The code the process exits with: [`EXIT_USAGE`] unless the error says otherwise.
    fn exit_code(&self) -> u8 {
        EXIT_USAGE
    }
}

/// A count with its thousands grouped: `10,088`. Messages, the templates' `thousands` filter
/// and the charts' words all write counts with it, so every page and message groups alike.
/// Any integer type: one past `i64` (never a count) is written as `i64::MAX`.
pub fn thousands(n: impl TryInto<i64>) -> String {
    let n: i64 = n.try_into().unwrap_or(i64::MAX);
    let digits = n.unsigned_abs().to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3 + 1);
    if n < 0 {
        out.push('-');
    }
    for (i, digit) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(digit);
    }
    out
}

/// Whether a problem stops the build.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub(crate) enum Severity {
    #[default]
    Error,
    /// Builds as written, but is probably not what was meant (`resolvd`).
    Warning,
}

/// One problem with one file, pointing at the line and column where it is.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Diagnostic {
    pub(crate) severity: Severity,
    pub(crate) path: PathBuf,
    /// 1-based; 0 when the problem is with the file as a whole.
    pub line: usize,
    /// 1-based, in characters.
    pub col: usize,
    /// What is wrong, in words for the writer (the location is shown apart).
    pub message: String,
    /// What would be right, when we can tell.
    pub hint: Option<Box<str>>,
    /// The source line, to show under the message. (Boxed, as the hint: a diagnostic is
    /// the error of many results and stays small.)
    pub source_line: Option<Box<str>>,
    /// How many characters of the line the problem spans.
    pub width: usize,
}

impl Diagnostic {
    /// A problem with a whole file (it cannot be read, it is empty...).
    pub fn file(path: impl Into<PathBuf>, message: impl Into<String>) -> Diagnostic {
        Diagnostic {
            severity: Severity::Error,
            path: path.into(),
            line: 0,
            col: 0,
            message: message.into(),
            hint: None,
            source_line: None,
            width: 0,
        }
    }

    /// A problem at a position of `text` (the whole file, after BOM and CRLF clean-up).
    pub fn at(
        path: impl Into<PathBuf>,
        text: &str,
        line: usize,
        col: usize,
        width: usize,
        message: impl Into<String>,
    ) -> Diagnostic {
        Diagnostic {
            severity: Severity::Error,
            path: path.into(),
            line,
            col,
            message: message.into(),
            hint: None,
            source_line: text.lines().nth(line.saturating_sub(1)).map(Box::from),
            width: width.max(1),
        }
    }

    /// The same problem, as a warning.
    pub fn warning(self) -> Diagnostic {
        Diagnostic {
            severity: Severity::Warning,
            ..self
        }
    }

    pub(crate) fn is_error(&self) -> bool {
        self.severity == Severity::Error
    }

    pub(crate) fn with_hint(mut self, hint: impl Into<String>) -> Diagnostic {
        self.hint = Some(hint.into().into_boxed_str());
        self
    }

    /// The `path:line:col` an editor can jump to.
    pub fn location(&self) -> String {
        let path = self.path.display();
        if self.line == 0 {
            path.to_string()
        } else {
            format!("{path}:{}:{}", self.line, self.col)
        }
    }

    /// The message with the source line and a caret under the problem, for a terminal.
    pub fn render(&self, renderer: &Renderer) -> String {
        let (word, level) = match self.severity {
            Severity::Error => ("error", Level::ERROR),
            Severity::Warning => ("warning", Level::WARNING),
        };
        let mut out = format!("{}: {word}: {}", self.location(), self.message);
        let mut group = Group::with_level(level);
        let mut has_elements = false;
        if let Some(line) = &self.source_line {
            let start = char_to_byte(line, self.col.saturating_sub(1));
            let end = char_to_byte(line, self.col.saturating_sub(1) + self.width).max(start);
            group = group.element(
                Snippet::source(&**line)
                    .line_start(self.line)
                    .annotation(AnnotationKind::Primary.span(start..end)),
            );
            has_elements = true;
        }
        if let Some(hint) = &self.hint {
            group = group.element(Level::HELP.message(&**hint));
            has_elements = true;
        }
        if has_elements {
            out.push('\n');
            out.push_str(&renderer.render(&[group]));
        }
        out
    }
}

fn char_to_byte(line: &str, chars: usize) -> usize {
    line.char_indices()
        .nth(chars)
        .map_or(line.len(), |(i, _)| i)
}

impl fmt::Display for Diagnostic {
    /// One plain line: `path:line:col: message (hint)`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.location(), self.message)?;
        if let Some(hint) = &self.hint {
            write!(f, " ({hint})")?;
        }
        Ok(())
    }
}

/// Every problem of a failed build, sorted by file and position so the report is stable.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Diagnostics(pub Vec<Diagnostic>);

impl Diagnostics {
    /// The problems, sorted by file, line, column and message.
    pub fn sorted(mut list: Vec<Diagnostic>) -> Diagnostics {
        list.sort_by(|a, b| {
            (&a.path, a.line, a.col, &a.message).cmp(&(&b.path, b.line, b.col, &b.message))
        });
        Diagnostics(list)
    }

    pub(crate) fn files(&self) -> usize {
        let mut paths: Vec<&Path> = self.0.iter().map(|d| d.path.as_path()).collect();
        paths.dedup();
        paths.len()
    }

    /// Every problem as [`Diagnostic::render`] shows it, then a count of the errors and
    /// warnings and of the files they are in.
    pub fn render(&self, renderer: &Renderer) -> String {
        let mut out = String::new();
        for diagnostic in &self.0 {
            out.push_str(&diagnostic.render(renderer));
            out.push_str("\n\n");
        }
        let errors = self.0.iter().filter(|d| d.is_error()).count();
        let warnings = self.0.len() - errors;
        let what = match (errors, warnings) {
            (0, warnings) => count(warnings, "warning"),
            (errors, 0) => count(errors, "error"),
            (errors, warnings) => format!(
                "{} and {}",
                count(errors, "error"),
                count(warnings, "warning")
            ),
        };
        out.push_str(&format!("{what} in {}", count(self.files(), "file")));
        out
    }
}

impl Diagnostics {
    /// Prints the report to stderr, in colour on a terminal.
    pub fn eprint(&self) {
        let renderer = if std::io::IsTerminal::is_terminal(&std::io::stderr()) {
            Renderer::styled()
        } else {
            Renderer::plain()
        };
        eprintln!("{}", self.render(&renderer));
    }
}

impl fmt::Display for Diagnostics {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for diagnostic in &self.0 {
            writeln!(f, "{diagnostic}")?;
        }
        Ok(())
    }
}

impl std::error::Error for Diagnostics {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_group_their_thousands() {
        let shown = [0, 7, 999, 1000, 10_088, 999_999, 1_234_567, -4321, i64::MIN].map(thousands);
        assert_eq!(
            shown,
            [
                "0",
                "7",
                "999",
                "1,000",
                "10,088",
                "999,999",
                "1,234,567",
                "-4,321",
                "-9,223,372,036,854,775,808"
            ]
        );
    }

    #[test]
    fn counts_name_their_noun_once_or_many_times_and_group_thousands() {
        assert_eq!(count(1, "incident"), "1 incident");
        assert_eq!(count(0, "file"), "0 files");
        assert_eq!(count(10_088, "incident"), "10,088 incidents");
    }
}
