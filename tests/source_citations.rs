//! Source comments cite only what the repository holds (docs/seeds/README.md).
//!
//! Under src/:
//! - no file names the product brief that lives outside the repository;
//! - every numbered producer quirk names its list: "v1.22 quirk N" (the
//!   numbered list of tests/vectors/README.md) or "v2.7 quirk N" (the one of
//!   tests/vectors/instructor-php-v2.7/README.md), also "v1.22 quirks 3 and 4";
//! - every "seed NNN" has its document, docs/seeds/NNN-*.md;
//! - every repo-relative path a comment names (one with a `/`, ending in
//!   `.md`, `.json`, `.rs`, `.mjs` or `.ts`) exists, from the repository's root
//!   or from src/.
//!
//! Under pkg-template/, www/src/, scripts/, bench/ and tests/, no comment names
//! the product brief either (strings a script prints are not comments).
//!
//! Comments are told from code and string literals by a small lexer per
//! language (Rust, and JavaScript/TypeScript); there is no regex crate.
#![cfg(not(target_arch = "wasm32"))]

use std::fs;
use std::path::{Path, PathBuf};

/// The product brief's file name, built so that this file never names it.
const BRIEF: &str = concat!("DESIGN", ".md");

/// Extensions of the path-like tokens whose existence is checked.
const PATH_EXTENSIONS: [&str; 5] = [".md", ".json", ".rs", ".mjs", ".ts"];

/// The file extensions read as JavaScript or TypeScript.
const JS_EXTENSIONS: [&str; 8] = ["js", "mjs", "cjs", "ts", "mts", "cts", "tsx", "jsx"];

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// Every file under `dir`, sorted, without build output and installed packages.
fn files_under(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    let mut paths: Vec<PathBuf> = entries.filter_map(|e| Some(e.ok()?.path())).collect();
    paths.sort();
    for path in paths {
        let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
        if matches!(name, "node_modules" | "target" | "pkg" | "dist" | ".git") {
            continue;
        }
        if path.is_dir() {
            files_under(&path, out);
        } else {
            out.push(path);
        }
    }
}

fn relative(path: &Path) -> String {
    path.strip_prefix(root())
        .unwrap_or(path)
        .to_string_lossy()
        .replace('\\', "/")
}

/// The text of one comment on one line (1-based), its markers left out.
struct Comment {
    line: usize,
    text: String,
}

/// Collects comment text, one entry per source line it spans.
struct Collector {
    comments: Vec<Comment>,
    current: Option<Comment>,
}

impl Collector {
    fn new() -> Self {
        Collector {
            comments: Vec::new(),
            current: None,
        }
    }

    fn push(&mut self, line: usize, c: char) {
        if c == '\n' {
            self.end();
            return;
        }
        match &mut self.current {
            Some(comment) if comment.line == line => comment.text.push(c),
            _ => {
                self.end();
                self.current = Some(Comment {
                    line,
                    text: c.to_string(),
                });
            }
        }
    }

    fn end(&mut self) {
        if let Some(mut comment) = self.current.take() {
            // Doc-comment markers and a block comment's leading stars.
            let trimmed = comment.text.trim_start_matches(|c: char| {
                c == '/' || c == '!' || c == '*' || c.is_whitespace()
            });
            comment.text = trimmed.trim_end_matches(['*', '/']).trim_end().to_string();
            if !comment.text.is_empty() {
                self.comments.push(comment);
            }
        }
    }
}

fn is_ident(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// The comments of Rust source: line and (nested) block comments, skipping
/// string, raw string, byte string and character literals.
fn rust_comments(src: &str) -> Vec<Comment> {
    let s: Vec<char> = src.chars().collect();
    let at = |i: usize| s.get(i).copied().unwrap_or('\0');
    let mut out = Collector::new();
    let mut line = 1;
    let mut i = 0;
    while i < s.len() {
        let c = s[i];
        if c == '\n' {
            line += 1;
            i += 1;
        } else if c == '/' && at(i + 1) == '/' {
            while i < s.len() && s[i] != '\n' {
                out.push(line, s[i]);
                i += 1;
            }
            out.end();
        } else if c == '/' && at(i + 1) == '*' {
            let mut depth = 0;
            while i < s.len() {
                if s[i] == '/' && at(i + 1) == '*' {
                    depth += 1;
                    out.push(line, '/');
                    out.push(line, '*');
                    i += 2;
                } else if s[i] == '*' && at(i + 1) == '/' {
                    depth -= 1;
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    out.push(line, s[i]);
                    if s[i] == '\n' {
                        line += 1;
                    }
                    i += 1;
                }
            }
            out.end();
        } else if c == '"' {
            i += 1;
            while i < s.len() && s[i] != '"' {
                if s[i] == '\\' {
                    if at(i + 1) == '\n' {
                        line += 1;
                    }
                    i += 1;
                } else if s[i] == '\n' {
                    line += 1;
                }
                i += 1;
            }
            i += 1;
        } else if c == 'r' && raw_string_start(&s, i) {
            let mut hashes = 0;
            i += 1;
            while at(i) == '#' {
                hashes += 1;
                i += 1;
            }
            i += 1; // the opening quote
            loop {
                if i >= s.len() {
                    break;
                }
                if s[i] == '"' && (1..=hashes).all(|k| at(i + k) == '#') {
                    i += 1 + hashes;
                    break;
                }
                if s[i] == '\n' {
                    line += 1;
                }
                i += 1;
            }
        } else if c == '\'' {
            if at(i + 1) == '\\' {
                // An escaped character literal: '\n', '\'', '\u{..}'.
                i += 3;
                while i < s.len() && s[i] != '\'' && s[i] != '\n' {
                    i += 1;
                }
                i += 1;
            } else if at(i + 2) == '\'' {
                i += 3; // 'x'
            } else {
                i += 1; // a lifetime or a label
            }
        } else if is_ident(c) {
            // Whole identifiers, so that a name ending in `r` or `b` never
            // starts a raw string.
            while i < s.len() && is_ident(s[i]) {
                if s[i] == 'r' && raw_string_start(&s, i) {
                    break;
                }
                i += 1;
            }
        } else {
            i += 1;
        }
    }
    out.end();
    out.comments
}

/// Whether `s[i]`, an `r`, starts a raw (byte or C) string literal: `r"`,
/// `r#"`, `br"`, `cr#"`, and is not the end of a longer identifier.
fn raw_string_start(s: &[char], i: usize) -> bool {
    let before = |k: usize| if i >= k { s.get(i - k).copied() } else { None };
    let prefix_ok = match before(1) {
        None => true,
        Some(p) if p == 'b' || p == 'c' => !before(2).is_some_and(is_ident),
        Some(p) => !is_ident(p),
    };
    if !prefix_ok {
        return false;
    }
    let mut j = i + 1;
    while s.get(j) == Some(&'#') {
        j += 1;
    }
    s.get(j) == Some(&'"')
}

/// The comments of JavaScript or TypeScript source: line and block comments,
/// skipping strings, template literals and regular expression literals.
fn js_comments(src: &str) -> Vec<Comment> {
    let s: Vec<char> = src.chars().collect();
    let at = |i: usize| s.get(i).copied().unwrap_or('\0');
    let mut out = Collector::new();
    let mut line = 1;
    let mut i = 0;
    // The last significant character of code, to tell a regex from a division.
    let mut last = '\0';
    let mut last_word = String::new();
    while i < s.len() {
        let c = s[i];
        if c == '\n' {
            line += 1;
            i += 1;
        } else if c.is_whitespace() {
            i += 1;
        } else if c == '/' && at(i + 1) == '/' {
            while i < s.len() && s[i] != '\n' {
                out.push(line, s[i]);
                i += 1;
            }
            out.end();
        } else if c == '/' && at(i + 1) == '*' {
            i += 2;
            while i < s.len() && !(s[i] == '*' && at(i + 1) == '/') {
                out.push(line, s[i]);
                if s[i] == '\n' {
                    line += 1;
                }
                i += 1;
            }
            i += 2;
            out.end();
        } else if c == '"' || c == '\'' || c == '`' {
            i += 1;
            while i < s.len() && s[i] != c {
                if s[i] == '\\' {
                    if at(i + 1) == '\n' {
                        line += 1;
                    }
                    i += 1;
                } else if s[i] == '\n' {
                    if c != '`' {
                        break; // an unterminated string ends with its line
                    }
                    line += 1;
                }
                i += 1;
            }
            if at(i) == c {
                i += 1;
            }
            last = c;
            last_word.clear();
        } else if c == '/' && regex_may_start(last, &last_word) {
            i += 1;
            let mut class = false;
            while i < s.len() && s[i] != '\n' {
                match s[i] {
                    '\\' => i += 1,
                    '[' => class = true,
                    ']' => class = false,
                    '/' if !class => break,
                    _ => {}
                }
                i += 1;
            }
            i += 1;
            last = 'x';
            last_word.clear();
        } else if is_ident(c) || c == '$' {
            let start = i;
            while i < s.len() && (is_ident(s[i]) || s[i] == '$') {
                i += 1;
            }
            last_word = s[start..i].iter().collect();
            last = 'x';
        } else {
            last = c;
            last_word.clear();
            i += 1;
        }
    }
    out.end();
    out.comments
}

fn regex_may_start(last: char, last_word: &str) -> bool {
    if !last_word.is_empty() {
        return matches!(
            last_word,
            "return" | "typeof" | "case" | "in" | "of" | "void" | "throw" | "else" | "do"
        );
    }
    matches!(
        last,
        '\0' | '('
            | ','
            | '='
            | ':'
            | '['
            | '!'
            | '&'
            | '|'
            | '?'
            | '{'
            | '}'
            | ';'
            | '+'
            | '-'
            | '*'
            | '%'
            | '<'
            | '>'
            | '~'
            | '^'
    )
}

fn comments_of(path: &Path, text: &str) -> Option<Vec<Comment>> {
    let ext = path.extension()?.to_str()?;
    if ext == "rs" {
        Some(rust_comments(text))
    } else if JS_EXTENSIONS.contains(&ext) {
        Some(js_comments(text))
    } else {
        None
    }
}

/// A file's comments run together: consecutive comment lines are joined by a
/// space, so a citation broken across lines reads as one; a gap of code or
/// blank lines becomes a newline, which no citation crosses.
struct Joined {
    text: String,
    /// (byte offset in `text`, source line) where each comment starts.
    starts: Vec<(usize, usize)>,
}

impl Joined {
    fn new(comments: &[Comment]) -> Self {
        let mut text = String::new();
        let mut starts = Vec::new();
        let mut previous = 0;
        for comment in comments {
            if !text.is_empty() {
                text.push(if comment.line == previous + 1 {
                    ' '
                } else {
                    '\n'
                });
            }
            starts.push((text.len(), comment.line));
            // ASCII lowercase keeps every byte offset.
            text.push_str(&comment.text.to_ascii_lowercase());
            previous = comment.line;
        }
        Joined { text, starts }
    }

    fn line_at(&self, offset: usize) -> usize {
        match self
            .starts
            .binary_search_by(|(start, _)| start.cmp(&offset))
        {
            Ok(k) => self.starts[k].1,
            Err(0) => 0,
            Err(k) => self.starts[k - 1].1,
        }
    }
}

/// Spaces and tabs, which a citation may have between its words (a newline
/// in `Joined` is a gap between comments).
fn skip_spaces(b: &[u8], mut i: usize) -> usize {
    while i < b.len() && (b[i] == b' ' || b[i] == b'\t') {
        i += 1;
    }
    i
}

/// Starts of `word` in `text` that begin a word.
fn word_starts<'a>(text: &'a str, word: &'a str) -> impl Iterator<Item = usize> + 'a {
    text.match_indices(word).map(|(p, _)| p).filter(move |&p| {
        !text[..p]
            .chars()
            .next_back()
            .is_some_and(|c| c.is_ascii_alphanumeric())
    })
}

/// "quirk N" / "quirks N" citations without their list's name in front.
fn unnamed_quirks(joined: &Joined) -> Vec<(usize, String)> {
    let text = &joined.text;
    let b = text.as_bytes();
    let mut out = Vec::new();
    for p in word_starts(text, "quirk") {
        let mut q = p + "quirk".len();
        if b.get(q) == Some(&b's') {
            q += 1;
        }
        let number = skip_spaces(b, q);
        if number == q || !b.get(number).is_some_and(u8::is_ascii_digit) {
            continue; // "quirky", "the quirk: ...", "quirks in ..."
        }
        let before = text[..p].trim_end_matches([' ', '\t']);
        let named = ["v1.22", "v2.7"].iter().any(|list| {
            before.ends_with(list)
                && !before[..before.len() - list.len()]
                    .chars()
                    .next_back()
                    .is_some_and(|c| c.is_ascii_alphanumeric() || c == '.')
        });
        if !named {
            let end = text[number..]
                .find(|c: char| !(c.is_ascii_digit() || c == '.'))
                .map_or(text.len(), |k| number + k);
            let start = before.rfind([' ', '\n']).map_or(0, |k| k + 1);
            out.push((joined.line_at(p), text[start..end].to_string()));
        }
    }
    out
}

/// The three-digit seed numbers cited: "seed 004", "seeds 000 and 003",
/// "seeds 001, 003, 004", "seeds 000/003".
fn seed_numbers(joined: &Joined) -> Vec<(usize, String)> {
    let text = &joined.text;
    let b = text.as_bytes();
    let three_digits = |i: usize| -> Option<String> {
        let digits = text.get(i..i + 3)?;
        let next_is_digit = b.get(i + 3).is_some_and(u8::is_ascii_digit);
        (digits.bytes().all(|d| d.is_ascii_digit()) && !next_is_digit).then(|| digits.to_string())
    };
    let mut out = Vec::new();
    for p in word_starts(text, "seed") {
        let mut q = p + "seed".len();
        if b.get(q) == Some(&b's') {
            q += 1;
        }
        let mut i = skip_spaces(b, q);
        if i == q {
            continue;
        }
        let line = joined.line_at(p);
        while let Some(number) = three_digits(i) {
            out.push((line, number));
            i += 3;
            let mut next = None;
            for separator in [", and ", " and ", ", ", "/", "–", "-", " or "] {
                if text[i..].starts_with(separator) {
                    next = Some(i + separator.len());
                    break;
                }
            }
            match next {
                Some(n) => i = skip_spaces(b, n),
                None => break,
            }
        }
    }
    out
}

/// Path-like tokens of a comment line that name a repository file.
fn cited_paths(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let separators = |c: char| c.is_whitespace() || "`'\"()[],;|".contains(c);
    for raw in text.split(separators) {
        if raw.contains("://") {
            continue; // a URL
        }
        let token = raw.split(['#', ':']).next().unwrap_or("");
        let token = token.trim_end_matches(['.', '!', '?']);
        if token.contains(['{', '*', '<', '>', '$']) || token.contains("..") {
            continue;
        }
        if !token.contains('/') || !PATH_EXTENSIONS.iter().any(|ext| token.ends_with(ext)) {
            continue;
        }
        out.push(token.trim_start_matches("./").to_string());
    }
    out
}

fn path_exists(token: &str) -> bool {
    // `stepline/…` is the package's own subpath: its files come from the repository.
    let token = token.trim_start_matches('/');
    let token = token.strip_prefix("stepline/").unwrap_or(token);
    !token.is_empty() && (root().join(token).exists() || root().join("src").join(token).exists())
}

/// Whether a comment names the product brief: its file, or its name in capitals
/// as a word of its own (as in "<name> fix 4").
fn names_brief(text: &str) -> bool {
    let ident = |c: Option<char>| c.is_some_and(is_ident);
    text.match_indices("DESIGN").any(|(p, w)| {
        !ident(text[..p].chars().next_back()) && !ident(text[p + w.len()..].chars().next())
    })
}

fn seed_documents() -> Vec<String> {
    let mut names: Vec<String> = fs::read_dir(root().join("docs/seeds"))
        .map(|entries| {
            entries
                .filter_map(|e| e.ok()?.file_name().into_string().ok())
                .collect()
        })
        .unwrap_or_default();
    names.sort();
    names
}

fn has_seed(documents: &[String], number: &str) -> bool {
    documents
        .iter()
        .any(|name| name.starts_with(&format!("{number}-")) && name.ends_with(".md"))
}

/// Every offence under src/, as `file:line: what`.
fn src_offences() -> Vec<String> {
    let documents = seed_documents();
    let mut files = Vec::new();
    files_under(&root().join("src"), &mut files);
    let mut out = Vec::new();
    for path in &files {
        let name = relative(path);
        let Ok(text) = fs::read_to_string(path) else {
            continue; // not text
        };
        for (k, line) in text.lines().enumerate() {
            if line.contains(BRIEF) {
                out.push(format!(
                    "{name}:{}: cites {BRIEF}, which is not in the repository",
                    k + 1
                ));
            }
        }
        let Some(comments) = comments_of(path, &text) else {
            continue;
        };
        let joined = Joined::new(&comments);
        for (line, cited) in unnamed_quirks(&joined) {
            out.push(format!(
                "{name}:{line}: \"{cited}\" does not name its list (\"v1.22 quirk N\" or \"v2.7 quirk N\")"
            ));
        }
        for (line, number) in seed_numbers(&joined) {
            if !has_seed(&documents, &number) {
                out.push(format!(
                    "{name}:{line}: cites seed {number}, which has no docs/seeds/{number}-*.md"
                ));
            }
        }
        for comment in &comments {
            if names_brief(&comment.text) && !comment.text.contains(BRIEF) {
                out.push(format!(
                    "{name}:{}: cites the product brief, which is not in the repository",
                    comment.line
                ));
            }
            for token in cited_paths(&comment.text) {
                if !path_exists(&token) {
                    out.push(format!(
                        "{name}:{}: cites {token}, which is not in the repository",
                        comment.line
                    ));
                }
            }
        }
    }
    out
}

/// Comments outside src/ that cite the product brief.
fn other_offences() -> Vec<String> {
    let mut files = Vec::new();
    for dir in ["pkg-template", "www/src", "scripts", "bench", "tests"] {
        files_under(&root().join(dir), &mut files);
    }
    let vectors = root().join("tests/vectors");
    let mut out = Vec::new();
    for path in files.iter().filter(|p| !p.starts_with(&vectors)) {
        let Ok(text) = fs::read_to_string(path) else {
            continue;
        };
        let Some(comments) = comments_of(path, &text) else {
            continue;
        };
        for comment in comments.iter().filter(|c| names_brief(&c.text)) {
            out.push(format!(
                "{}:{}: a comment cites the product brief ({BRIEF}), which is not in the repository",
                relative(path),
                comment.line
            ));
        }
    }
    out
}

#[test]
fn source_comments_cite_only_what_the_repository_holds() {
    let mut offences = src_offences();
    offences.extend(other_offences());
    for offence in &offences {
        println!("{offence}");
    }
    assert!(
        offences.is_empty(),
        "{} citation(s) of what the repository does not hold (listed above)",
        offences.len()
    );
}

#[test]
fn the_lexers_tell_comments_from_strings() {
    let rust = "let a = \"// not\"; // yes 1\nlet b = r#\"quirk 7 \"# ; /* yes /* 2 */ */\nlet c = '\"'; // yes 3\nfn f<'a>(x: &'a str) {} // yes 4\n";
    let texts: Vec<String> = rust_comments(rust).into_iter().map(|c| c.text).collect();
    assert_eq!(texts, ["yes 1", "yes /* 2", "yes 3", "yes 4"]);
    let js = "const a = '// not'; // yes 1\nconst r = /['\"]/g; /* yes 2 */\nconst t = `a ${b} // not`; x = y / 2; // yes 3\n";
    let texts: Vec<String> = js_comments(js).into_iter().map(|c| c.text).collect();
    assert_eq!(texts, ["yes 1", "yes 2", "yes 3"]);
}

#[test]
fn the_citation_scanners() {
    let comments = |lines: &[&str]| -> Vec<Comment> {
        lines
            .iter()
            .enumerate()
            .map(|(k, text)| Comment {
                line: k + 1,
                text: text.to_string(),
            })
            .collect()
    };
    let joined = Joined::new(&comments(&[
        "v1.22 quirk 7 and v2.7 quirks 5 and 6, but quirk 4, reference quirk 2,",
        "a quirky one, the quirk: none, v1.22",
        "quirk 3 across lines, V2.7 Quirk 1, xv1.22 quirk 8",
    ]));
    let unnamed: Vec<(usize, String)> = unnamed_quirks(&joined);
    assert_eq!(
        unnamed,
        [
            (1, "but quirk 4".to_string()),
            (1, "reference quirk 2".to_string()),
            (3, "xv1.22 quirk 8".to_string())
        ]
    );
    assert!(names_brief("see DESIGN fix 4") && names_brief("(the design: DESIGN.md)"));
    assert!(!names_brief("REDESIGN, DESIGN_NOTES, the design"));
    let joined = Joined::new(&comments(&[
        "seeds 000 and 003, seed 004 §issue 1, seeds 001, 002 and 005; seed 42",
    ]));
    let numbers: Vec<String> = seed_numbers(&joined).into_iter().map(|(_, n)| n).collect();
    assert_eq!(numbers, ["000", "003", "004", "001", "002", "005"]);
    assert_eq!(
        cited_paths("see `tests/vectors/README.md`, src/a/b.rs:12 and (bench/findings.md). Not schemas/<type>.json, https://x.org/a.json, ../shared/x.md or README.md"),
        ["tests/vectors/README.md", "src/a/b.rs", "bench/findings.md"]
    );
}
