//! Tidy: the habits the codebase keeps, checked on every test run.

use std::path::{Path, PathBuf};
use std::process::Command;

// Sibling files depend one way.
#[path = "tidy/circles.rs"]
mod circles;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn rust_sources(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).expect("read dir").flatten() {
        let path = entry.path();
        if path.is_dir() {
            rust_sources(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// Each crate's non-test source: every `src/` file up to its `#[cfg(test)]` module.
fn production_sources() -> Vec<(PathBuf, String)> {
    let mut files = Vec::new();
    for krate in std::fs::read_dir(root().join("crates")).expect("crates").flatten() {
        rust_sources(&krate.path().join("src"), &mut files);
    }
    files
        .into_iter()
        .map(|path| {
            let text = std::fs::read_to_string(&path).expect("read source");
            let production = text.split("#[cfg(test)]").next().unwrap_or_default().to_string();
            (path, production)
        })
        .collect()
}

/// The names in a crate manifest's `[dependencies]` table.
fn dependencies(krate: &str) -> Vec<String> {
    let manifest = std::fs::read_to_string(root().join("crates").join(krate).join("Cargo.toml")).expect("manifest");
    let mut in_deps = false;
    let mut names = Vec::new();
    for line in manifest.lines() {
        let line = line.trim();
        if line.starts_with('[') {
            in_deps = line == "[dependencies]";
        } else if in_deps && !line.is_empty() && !line.starts_with('#') {
            names.push(line.split(['=', '.']).next().unwrap_or_default().trim().to_string());
        }
    }
    names
}

#[test]
fn formatting_is_rustfmt_clean() {
    let status = Command::new(env!("CARGO"))
        .args(["fmt", "--all", "--", "--check"])
        .current_dir(root())
        .status()
        .expect("cargo fmt runs");
    assert!(status.success(), "run `cargo fmt --all`");
}

#[test]
fn core_depends_on_nothing_with_effects() {
    // STYLE 1-2: the core is pure; dependencies point one way.
    // `time` holds calendar dates (tournament days) and, built without its
    // "std" feature, has no clock to read. `serde` only describes the core's
    // state: the casino's checkpoints write it, the core writes nothing.
    assert_eq!(dependencies("core"), ["serde", "thiserror", "time"]);
    for (path, text) in production_sources() {
        if !path.to_string_lossy().contains("crates/core/") {
            continue;
        }
        for forbidden in [
            "std::fs",
            "std::net",
            "std::time",
            "SystemTime",
            "Instant",
            "std::env",
            "std::io",
            "async ",
            "rand::",
            "thread_rng",
        ] {
            assert!(!text.contains(forbidden), "{} uses {forbidden}", path.display());
        }
    }
    assert_eq!(
        dependencies("profiles"),
        ["croupier-core", "serde", "toml", "thiserror", "time"]
    );
    assert!(!dependencies("math")
        .iter()
        .any(|d| d == "croupier-profiles" || d == "croupier"));
}

#[test]
fn no_unwrap_in_production_code() {
    // Input paths return errors; a broken invariant is an assertion with a message.
    let mut offenders = Vec::new();
    for (path, text) in production_sources() {
        for (i, line) in text.lines().enumerate() {
            if line.contains(".unwrap()") || line.contains("panic!(") {
                offenders.push(format!("{}:{}: {}", path.display(), i + 1, line.trim()));
            }
        }
    }
    assert!(offenders.is_empty(), "{}", offenders.join("\n"));
}

#[test]
fn code_never_branches_on_a_jurisdiction() {
    // STYLE 4: jurisdictions are data.
    let names = [
        "colorado",
        "colorado-2013",
        "colorado-2014",
        "maryland",
        "european-casino",
        "low-limit-house",
    ];
    let mut offenders = Vec::new();
    for (path, text) in production_sources() {
        for (i, line) in text.lines().enumerate() {
            for name in names {
                let quoted = format!("\"{name}\"");
                if line.contains(&format!("== {quoted}")) || line.contains(&format!("{quoted} =>")) {
                    offenders.push(format!("{}:{}: {}", path.display(), i + 1, line.trim()));
                }
            }
        }
    }
    assert!(offenders.is_empty(), "{}", offenders.join("\n"));
}

/// The `use crate::...` paths of a file, as the module names they begin with.
fn crate_imports(text: &str) -> Vec<String> {
    let mut found = Vec::new();
    for (at, _) in text.match_indices("crate::") {
        let rest = &text[at + "crate::".len()..];
        let name: String = rest
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
            .collect();
        if !name.is_empty() {
            found.push(name);
        }
    }
    found
}

#[test]
fn the_servers_layers_depend_one_way() {
    // The wire knows no other layer; the casino knows no runtime and no HTTP;
    // the runtime knows no HTTP (STYLE 2, 17).
    let forbidden: [(&str, &[&str]); 3] = [
        ("api", &["casino", "runtime", "http"]),
        ("casino", &["runtime", "http"]),
        ("runtime", &["http"]),
    ];
    let mut offenders = Vec::new();
    for (path, text) in production_sources() {
        let path_text = path.to_string_lossy().replace('\\', "/");
        let Some(inside) = path_text.split("crates/server/src/").nth(1) else {
            continue;
        };
        let layer = inside.split(['/', '.']).next().unwrap_or_default();
        for (of, not) in forbidden {
            if layer != of {
                continue;
            }
            for name in crate_imports(&text) {
                if not.contains(&name.as_str()) {
                    offenders.push(format!("{}: the {layer} layer uses crate::{name}", path.display()));
                }
            }
        }
        // The casino is pure: no clock, no threads, no randomness, no async.
        if layer == "casino" {
            for effect in [
                "SystemTime",
                "Instant",
                "std::thread",
                "TcpStream",
                "TcpListener",
                "UdpSocket",
                "tokio",
                "async ",
                "CasinoRng",
                "from_os",
                "std::fs",
            ] {
                if text.contains(effect) {
                    offenders.push(format!("{}: the casino uses {effect}", path.display()));
                }
            }
        }
    }
    assert!(offenders.is_empty(), "{}", offenders.join("\n"));
}

/// The allowances of `size_allowances.txt`: a file's or a function's
/// ceiling, keyed `path` or `path fn name`.
fn size_allowances() -> std::collections::BTreeMap<String, usize> {
    let text =
        std::fs::read_to_string(root().join("crates/conformance/tests/size_allowances.txt")).expect("allowances");
    text.lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
        .map(|l| {
            let (key, n) = l.rsplit_once(' ').expect("`key lines`");
            (key.to_string(), n.parse().expect("a number of lines"))
        })
        .collect()
}

/// Each function of a rustfmt-formatted file with a body, and its length in
/// lines from its `fn` to the closing brace at its own indent.
fn function_lengths(text: &str) -> Vec<(String, usize)> {
    let lines: Vec<&str> = text.lines().collect();
    let mut found = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        let body = line.trim_start();
        let indent = &line[..line.len() - body.len()];
        let signature = ["pub ", "pub(crate) ", "pub(super) ", "async ", "const ", "unsafe "]
            .iter()
            .fold(body, |rest, word| rest.strip_prefix(word).unwrap_or(rest));
        let Some(name) = signature.strip_prefix("fn ") else {
            continue;
        };
        let name: String = name.chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
        // The signature ends at `{` (a body), `;` (none) or `}` (a body on one line).
        let Some(open) = lines[i..].iter().position(|l| {
            let l = l.trim_end();
            l.ends_with('{') || l.ends_with(';') || l.ends_with('}')
        }) else {
            continue;
        };
        if !lines[i + open].trim_end().ends_with('{') {
            continue;
        }
        let close = format!("{indent}}}");
        if let Some(end) = lines[i + open + 1..].iter().position(|l| *l == close) {
            found.push((name, open + end + 2));
        }
    }
    found
}

// Issue 59.4, STYLE 18: a file is one idea; past 600 lines it is usually
// two. A function past 70 lines is usually several. What exceeds either
// today is listed with its length in `size_allowances.txt`, which may only
// shrink: a listed file or function may not grow, and one back within the
// cap (or gone) must leave the list.
#[test]
fn files_and_functions_keep_to_their_caps() {
    const FILE_LINES_MAX: usize = 600;
    const FN_LINES_MAX: usize = 70;
    let allowed = size_allowances();
    let mut measured = std::collections::BTreeMap::new();
    let mut files = Vec::new();
    for krate in std::fs::read_dir(root().join("crates")).expect("crates").flatten() {
        rust_sources(&krate.path().join("src"), &mut files);
    }
    for path in files {
        let text = std::fs::read_to_string(&path).expect("read");
        let rel = path
            .strip_prefix(root())
            .unwrap_or(&path)
            .to_string_lossy()
            .replace('\\', "/");
        let rel = rel.trim_start_matches("./").to_string();
        let n = text.lines().count();
        if n > FILE_LINES_MAX {
            measured.insert(rel.clone(), n);
        }
        for (name, n) in function_lengths(&text) {
            if n > FN_LINES_MAX {
                // Two functions of one name in one file share the longer's allowance.
                let key = format!("{rel} fn {name}");
                let longest = measured.get(&key).copied().unwrap_or(0).max(n);
                measured.insert(key, longest);
            }
        }
    }
    let mut problems = Vec::new();
    for (key, n) in &measured {
        match allowed.get(key) {
            None => problems.push(format!("{key}: {n} lines, over the cap; split it")),
            Some(ceiling) if n > ceiling => {
                problems.push(format!("{key}: {n} lines, grown past its allowance of {ceiling}"))
            }
            Some(_) => {}
        }
    }
    for (key, ceiling) in &allowed {
        match measured.get(key) {
            None => problems.push(format!("{key}: within the cap now; remove it from size_allowances.txt")),
            Some(n) if n < ceiling => problems.push(format!("{key}: {n} lines; lower its allowance from {ceiling}")),
            Some(_) => {}
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn the_server_logs_through_tracing_not_print() {
    let mut offenders = Vec::new();
    for (path, text) in production_sources() {
        let p = path.to_string_lossy();
        if !(p.contains("crates/server/") || p.contains("crates/ledger/")) {
            continue;
        }
        for (i, line) in text.lines().enumerate() {
            if line.contains("eprintln!") || line.contains("println!") {
                offenders.push(format!("{}:{}: {}", path.display(), i + 1, line.trim()));
            }
        }
    }
    assert!(offenders.is_empty(), "{}", offenders.join("\n"));
}

/// ARCHITECTURE.md's code map: its items, each a bullet with the lines that continue it.
fn map_items(map: &str) -> Vec<String> {
    let mut items: Vec<String> = Vec::new();
    for line in map.lines() {
        if line.trim_start().starts_with("- `") {
            items.push(line.to_string());
        } else if let Some(last) = items.last_mut() {
            last.push(' ');
            last.push_str(line.trim());
        }
    }
    items
}

/// The modules a folder holds that the map must name: its files but `lib.rs`,
/// `mod.rs` and `tests.rs`, and its folders that hold one.
fn named_modules(dir: &Path) -> (Vec<String>, Vec<PathBuf>) {
    let mut files = Vec::new();
    let mut folders = Vec::new();
    for entry in std::fs::read_dir(dir).expect("read dir").flatten() {
        let path = entry.path();
        let name = entry.file_name().to_string_lossy().to_string();
        if path.is_dir() {
            let mut inside = Vec::new();
            rust_sources(&path, &mut inside);
            if inside
                .iter()
                .any(|f| !f.ends_with("tests.rs") && !f.ends_with("mod.rs"))
            {
                files.push(format!("{name}/"));
                folders.push(path);
            }
        } else if path
            .extension()
            .is_some_and(|e| e == "rs" || e == "html" || e == "js" || e == "css")
            && !["lib.rs", "mod.rs", "tests.rs"].contains(&name.as_str())
        {
            files.push(name);
        }
    }
    (files, folders)
}

// Issue 59.5: the map a newcomer reads in five minutes names every module
// and page, and stays short.
#[test]
fn the_architecture_map_is_short_and_names_every_module() {
    let map = std::fs::read_to_string(root().join("ARCHITECTURE.md")).expect("ARCHITECTURE.md");
    let words = map.split_whitespace().count();
    assert!(
        words < 1500,
        "ARCHITECTURE.md has {words} words; keep it under 1,500 (history goes to docs/)"
    );
    let items = map_items(&map);
    let item_of = |key: &str| items.iter().find(|i| i.contains(&format!("`{key}`"))).cloned();
    let mut unnamed = Vec::new();
    for krate in std::fs::read_dir(root().join("crates")).expect("crates").flatten() {
        let name = krate.file_name().to_string_lossy().to_string();
        let Some(crate_item) = item_of(&format!("{name}/")) else {
            unnamed.push(format!("the crate `{name}/`"));
            continue;
        };
        let mut folders = vec![(krate.path().join("src"), String::new(), crate_item, 1)];
        if name == "server" {
            folders.push((krate.path().join("web"), "web/".into(), String::new(), 1));
        }
        while let Some((dir, rel, parent_item, depth)) = folders.pop() {
            // A folder with a bullet of its own names its modules there.
            let item = item_of(&format!("{name}/{rel}")).unwrap_or(parent_item);
            let (modules, inner) = named_modules(&dir);
            for module in modules {
                if !item.contains(&format!("`{module}`")) {
                    unnamed.push(format!("`{module}` in {name}/{rel}"));
                }
            }
            if depth < 2 {
                for folder in inner {
                    let sub = folder.file_name().unwrap_or_default().to_string_lossy().to_string();
                    folders.push((folder, format!("{rel}{sub}/"), item.clone(), depth + 1));
                }
            }
        }
    }
    assert!(
        unnamed.is_empty(),
        "ARCHITECTURE.md's code map does not name: {}",
        unnamed.join(", ")
    );
}
