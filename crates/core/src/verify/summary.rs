//! Reading test runners' closing summaries from a log, one line at a time.
//!
//! Each runner has its own grammar; the scanner tries all of them on every line and keeps what
//! each one needs (cargo's `test result:` lines are summed, most others report once at the end
//! and the last report wins). The plain `N passed, N failed` line is used only when no specific
//! runner was recognised, so a runner's own line is never counted twice.

use super::{CountUnit, TestCounts, TestRunner};

#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
struct Tally {
    passed: u32,
    failed: u32,
    skipped: u32,
    errors: u32,
}

impl Tally {
    fn add(&mut self, other: Tally) {
        self.passed = self.passed.saturating_add(other.passed);
        self.failed = self.failed.saturating_add(other.failed);
        self.skipped = self.skipped.saturating_add(other.skipped);
        self.errors = self.errors.saturating_add(other.errors);
    }

    fn counts(self, runner: TestRunner, unit: CountUnit) -> TestCounts {
        TestCounts {
            runner,
            unit,
            passed: self.passed,
            failed: self.failed,
            skipped: self.skipped,
            errors: self.errors,
        }
    }
}

#[derive(Debug, Default, Clone)]
struct GoTally {
    seen: bool,
    packages_ok: u32,
    packages_failed: u32,
    tests_passed: u32,
    tests_failed: u32,
    tests_skipped: u32,
}

#[derive(Debug, Default, Clone)]
struct NodeTally {
    seen: bool,
    pass: u32,
    fail: u32,
    skipped: u32,
    todo: u32,
    cancelled: u32,
}

/// Feeds log lines, returns the summaries found. Pure and incremental: the runner feeds it every
/// line of an arbitrarily long log without keeping the log.
#[derive(Debug, Default, Clone)]
pub struct SummaryScanner {
    cargo: Option<Tally>,
    nextest: Option<Tally>,
    pytest: Option<Tally>,
    jest: Option<Tally>,
    vitest: Option<Tally>,
    go: GoTally,
    node: NodeTally,
    plain: Option<Tally>,
}

impl SummaryScanner {
    pub fn new() -> Self {
        Self::default()
    }

    /// Reads one line (without its newline; colour escapes are stripped here).
    pub fn feed_line(&mut self, line: &str) {
        let clean = strip_ansi(line);
        let line = clean.trim_end();
        if let Some(t) = cargo_line(line) {
            self.cargo.get_or_insert_with(Tally::default).add(t);
        } else if let Some(t) = nextest_line(line) {
            self.nextest = Some(t);
        } else if let Some(t) = pytest_line(line) {
            self.pytest = Some(t);
        } else if let Some(t) = jest_line(line) {
            self.jest = Some(t);
        } else if let Some(t) = vitest_line(line) {
            self.vitest = Some(t);
        } else if !self.go_line(line) && !self.node_line(line) {
            if let Some(t) = plain_line(line) {
                self.plain = Some(t);
            }
        }
    }

    /// The summaries recognised so far, in a fixed runner order.
    pub fn finish(&self) -> Vec<TestCounts> {
        let mut found = Vec::new();
        let tests = CountUnit::Tests;
        // nextest prints each failing test's own libtest output, `test result:` line included;
        // its summary is the count.
        if let (Some(t), None) = (self.cargo, self.nextest) {
            found.push(t.counts(TestRunner::Cargo, tests));
        }
        if let Some(t) = self.nextest {
            found.push(t.counts(TestRunner::Nextest, tests));
        }
        if let Some(t) = self.pytest {
            found.push(t.counts(TestRunner::Pytest, tests));
        }
        if let Some(t) = self.jest {
            found.push(t.counts(TestRunner::Jest, tests));
        }
        if let Some(t) = self.vitest {
            found.push(t.counts(TestRunner::Vitest, tests));
        }
        if self.go.seen {
            let go = &self.go;
            // `--- PASS` lines appear only with -v; without them passing tests are unnamed and
            // the honest count is per package.
            found.push(if go.tests_passed > 0 {
                Tally {
                    passed: go.tests_passed,
                    failed: go.tests_failed,
                    skipped: go.tests_skipped,
                    errors: 0,
                }
                .counts(TestRunner::Go, tests)
            } else {
                Tally {
                    passed: go.packages_ok,
                    failed: go.packages_failed,
                    skipped: 0,
                    errors: 0,
                }
                .counts(TestRunner::Go, CountUnit::Packages)
            });
        }
        if self.node.seen {
            let n = &self.node;
            found.push(TestCounts {
                runner: TestRunner::Node,
                unit: tests,
                passed: n.pass,
                failed: n.fail,
                skipped: n.skipped.saturating_add(n.todo),
                errors: n.cancelled,
            });
        }
        if found.is_empty() {
            if let Some(t) = self.plain {
                found.push(t.counts(TestRunner::Plain, tests));
            }
        }
        found
    }

    fn go_line(&mut self, line: &str) -> bool {
        let go = &mut self.go;
        if let Some(rest) = line.strip_prefix("--- ") {
            let counted = if rest.starts_with("PASS: ") {
                Some(&mut go.tests_passed)
            } else if rest.starts_with("FAIL: ") {
                Some(&mut go.tests_failed)
            } else if rest.starts_with("SKIP: ") {
                Some(&mut go.tests_skipped)
            } else {
                None
            };
            if let Some(n) = counted {
                *n = n.saturating_add(1);
                go.seen = true;
                return true;
            }
            return false;
        }
        // `ok  \tpkg\t0.01s`, `ok  \tpkg\t(cached)`, `FAIL\tpkg\t0.01s`, `FAIL\tpkg [build failed]`.
        let mut fields = line.split('\t');
        let head = fields.next().unwrap_or_default().trim_end();
        let Some(package) = fields.next() else {
            return false;
        };
        if package.is_empty() || (package.contains(' ') && !package.ends_with(" failed]")) {
            return false;
        }
        match head {
            "ok" => go.packages_ok = go.packages_ok.saturating_add(1),
            "FAIL" => go.packages_failed = go.packages_failed.saturating_add(1),
            _ => return false,
        }
        go.seen = true;
        true
    }

    fn node_line(&mut self, line: &str) -> bool {
        let Some(rest) = line
            .strip_prefix("# ")
            .or_else(|| line.strip_prefix("\u{2139} "))
        else {
            return false;
        };
        let mut words = rest.split_whitespace();
        let (Some(key), Some(value), None) = (words.next(), words.next(), words.next()) else {
            return false;
        };
        let Ok(value) = value.parse::<u32>() else {
            return false;
        };
        let node = &mut self.node;
        match key {
            "pass" => node.pass = value,
            "fail" => node.fail = value,
            "skipped" => node.skipped = value,
            "todo" => node.todo = value,
            "cancelled" => node.cancelled = value,
            "tests" | "suites" => {}
            _ => return false,
        }
        node.seen = true;
        true
    }
}

/// All summaries in a whole log (a convenience over [`SummaryScanner`]).
pub fn parse_summary(log: &str) -> Vec<TestCounts> {
    let mut scanner = SummaryScanner::new();
    for line in log.lines() {
        scanner.feed_line(line);
    }
    scanner.finish()
}

/// Removes ANSI escape sequences (colours, cursor moves) so a forced-colour log parses too.
pub fn strip_ansi(line: &str) -> std::borrow::Cow<'_, str> {
    if !line.contains('\u{1b}') {
        return std::borrow::Cow::Borrowed(line);
    }
    let mut out = String::with_capacity(line.len());
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '\u{1b}' {
            out.push(c);
            continue;
        }
        match chars.peek() {
            Some('[') => {
                chars.next();
                // CSI: parameters and intermediates, then one final byte in @..~.
                for c in chars.by_ref() {
                    if ('@'..='~').contains(&c) {
                        break;
                    }
                }
            }
            Some(']') => {
                chars.next();
                // OSC: up to BEL or ESC \.
                while let Some(c) = chars.next() {
                    if c == '\u{7}' {
                        break;
                    }
                    if c == '\u{1b}' && chars.peek() == Some(&'\\') {
                        chars.next();
                        break;
                    }
                }
            }
            Some(_) => {
                chars.next();
            }
            None => {}
        }
    }
    std::borrow::Cow::Owned(out)
}

/// `N word` → (N, word).
fn count_word(item: &str) -> Option<(u32, &str)> {
    let mut parts = item.split_whitespace();
    let n = parts.next()?.parse().ok()?;
    let word = parts.next()?;
    parts.next().is_none().then_some((n, word))
}

/// `test result: ok. 3 passed; 0 failed; 1 ignored; 0 measured; 0 filtered out; finished in 0.00s`
fn cargo_line(line: &str) -> Option<Tally> {
    let rest = line.trim_start().strip_prefix("test result: ")?;
    let (_, items) = rest.split_once(". ")?;
    let mut tally = Tally::default();
    let mut seen = false;
    for item in items.split("; ") {
        let Some((n, word)) = count_word(item) else {
            continue;
        };
        match word {
            "passed" => tally.passed = n,
            "failed" => tally.failed = n,
            "ignored" => tally.skipped = n,
            _ => continue,
        }
        seen = true;
    }
    seen.then_some(tally)
}

/// `     Summary [   0.005s] 3 tests run: 2 passed, 1 failed, 0 skipped`
fn nextest_line(line: &str) -> Option<Tally> {
    let rest = line.trim_start().strip_prefix("Summary [")?;
    let (_, rest) = rest.split_once("] ")?;
    let (_, items) = rest.split_once(" run: ")?;
    let mut tally = Tally::default();
    for item in items.split(", ") {
        let (n, word) = count_word(item)?;
        match word {
            "passed" => tally.passed = n,
            "failed" | "timed" => tally.failed = tally.failed.saturating_add(n),
            "skipped" => tally.skipped = n,
            _ => {}
        }
    }
    Some(tally)
}

/// `===== 1 failed, 3 passed, 2 skipped, 1 error in 0.12s =====`, `3 passed in 0.01s`,
/// `=== no tests ran in 0.01s ===`.
fn pytest_line(line: &str) -> Option<Tally> {
    let inner = line.trim().trim_matches('=').trim();
    let (items, duration) = inner.rsplit_once(" in ")?;
    let seconds = duration.split_whitespace().next()?;
    seconds.strip_suffix('s')?.parse::<f64>().ok()?;
    if items == "no tests ran" {
        return Some(Tally::default());
    }
    let mut tally = Tally::default();
    for item in items.split(", ") {
        let (n, word) = count_word(item)?;
        match word {
            "passed" => tally.passed = n,
            "failed" => tally.failed = n,
            "skipped" | "deselected" | "xfailed" => tally.skipped = tally.skipped.saturating_add(n),
            // An unexpected pass of an xfail test is reported, not failed (non-strict mode).
            "xpassed" => tally.passed = tally.passed.saturating_add(n),
            "error" | "errors" => tally.errors = n,
            "warning" | "warnings" | "rerun" | "reruns" => {}
            _ => return None,
        }
    }
    Some(tally)
}

/// `Tests:       1 failed, 1 skipped, 3 passed, 5 total`
fn jest_line(line: &str) -> Option<Tally> {
    let items = line.trim_start().strip_prefix("Tests:")?.trim();
    let mut tally = Tally::default();
    let mut total = false;
    for item in items.split(", ") {
        let (n, word) = count_word(item)?;
        match word {
            "passed" => tally.passed = n,
            "failed" => tally.failed = n,
            "skipped" | "todo" => tally.skipped = tally.skipped.saturating_add(n),
            "total" => total = true,
            _ => return None,
        }
    }
    total.then_some(tally)
}

/// `      Tests  1 failed | 2 passed | 1 skipped (4)`
fn vitest_line(line: &str) -> Option<Tally> {
    let rest = line.trim_start().strip_prefix("Tests ")?;
    let rest = rest.trim_start();
    let (items, total) = rest.rsplit_once(" (")?;
    total.strip_suffix(')')?.parse::<u32>().ok()?;
    let mut tally = Tally::default();
    for item in items.split(" | ") {
        let (n, word) = count_word(item)?;
        match word {
            "passed" => tally.passed = n,
            "failed" => tally.failed = n,
            "skipped" | "todo" => tally.skipped = tally.skipped.saturating_add(n),
            _ => return None,
        }
    }
    Some(tally)
}

/// `N passed, N failed` alone on a line, `, N skipped` optional, one `Word:` optional before.
fn plain_line(line: &str) -> Option<Tally> {
    let mut line = line.trim();
    if let Some((label, rest)) = line.split_once(':') {
        if label.is_empty() || label.contains(char::is_whitespace) {
            return None;
        }
        line = rest.trim_start();
    }
    let mut items = line.split(", ");
    let (passed, "passed") = count_word(items.next()?)? else {
        return None;
    };
    let (failed, "failed") = count_word(items.next()?)? else {
        return None;
    };
    let skipped = match items.next() {
        None => 0,
        Some(item) => match count_word(item)? {
            (n, "skipped") => n,
            _ => return None,
        },
    };
    items.next().is_none().then_some(Tally {
        passed,
        failed,
        skipped,
        errors: 0,
    })
}
