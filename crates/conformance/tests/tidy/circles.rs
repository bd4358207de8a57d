//! Tidy (issue 59.3, STYLE 2): sibling files depend one way. Where two
//! files of one folder each use the other, neither can be read, changed or
//! tested alone, and whatever both need belongs in a third. The check
//! reads paths (`crate::`, `super::`, `use super::{..}`), not method calls
//! or what a crate root re-exports.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use super::{root, rust_sources};

/// A module's path inside its crate: `["casino", "cage"]` for `casino/cage.rs`.
type Module = Vec<String>;

/// The module a file under `src` holds: `mod.rs`, `lib.rs` and `main.rs`
/// hold their folder's.
fn module_of(src: &Path, file: &Path) -> Module {
    let rel = file.strip_prefix(src).expect("under src").with_extension("");
    let mut parts: Module = rel.iter().map(|p| p.to_string_lossy().into_owned()).collect();
    if matches!(parts.last().map(String::as_str), Some("mod" | "lib" | "main")) {
        parts.pop();
    }
    parts
}

fn is_ident(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_'
}

/// The names at the top level of a `{...}` group starting at `text[0] == '{'`.
fn group_names(text: &str) -> Vec<String> {
    let mut names = Vec::new();
    let (mut depth, mut at_item) = (0, true);
    let mut chars = text.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        match c {
            '{' => {
                depth += 1;
                at_item = depth == 1;
            }
            '}' => {
                depth -= 1;
                if depth == 0 {
                    break;
                }
            }
            ',' if depth == 1 => at_item = true,
            c if depth == 1 && at_item && is_ident(c) => {
                let name: String = text[i..].chars().take_while(|c| is_ident(*c)).collect();
                for _ in 1..name.len() {
                    chars.next();
                }
                names.push(name);
                at_item = false;
            }
            _ => {}
        }
    }
    names
}

/// The modules a file's `crate::` and `super::` paths name, as far as
/// they name modules of the crate (`modules`).
fn named_modules(module: &Module, text: &str, modules: &BTreeSet<Module>) -> BTreeSet<Module> {
    let mut named = BTreeSet::new();
    let code: String = text
        .lines()
        .map(|l| l.split("//").next().unwrap_or_default())
        .collect::<Vec<_>>()
        .join("\n");
    for head in ["crate::", "super::"] {
        for (at, _) in code.match_indices(head) {
            // `super::super::` is one path, read from its first `super`.
            if code[..at].chars().next_back().is_some_and(|c| is_ident(c) || c == ':') {
                continue;
            }
            let mut base: Module = match head {
                "crate::" => Vec::new(),
                _ => module[..module.len().saturating_sub(1)].to_vec(),
            };
            let mut rest = &code[at + head.len()..];
            loop {
                if let Some(after) = rest.strip_prefix("super::") {
                    base.pop();
                    rest = after;
                    continue;
                }
                if rest.starts_with('{') {
                    for name in group_names(rest) {
                        let next = [base.clone(), vec![name]].concat();
                        if modules.contains(&next) {
                            named.insert(next);
                        }
                    }
                    break;
                }
                let name: String = rest.chars().take_while(|c| is_ident(*c)).collect();
                let next = [base.clone(), vec![name.clone()]].concat();
                if name.is_empty() || !modules.contains(&next) {
                    break;
                }
                base = next;
                rest = &rest[name.len()..];
                match rest.strip_prefix("::") {
                    Some(after) => rest = after,
                    None => break,
                }
            }
            if !base.is_empty() {
                named.insert(base);
            }
        }
    }
    named
}

/// The sibling each named module is, or is inside of.
fn siblings_used(module: &Module, named: &BTreeSet<Module>) -> BTreeSet<Module> {
    let Some((_, parent)) = module.split_last() else {
        return BTreeSet::new();
    };
    named
        .iter()
        .filter(|n| n.len() >= module.len() && n[..parent.len()] == *parent)
        .map(|n| n[..module.len()].to_vec())
        .filter(|s| s != module)
        .collect()
}

/// What a file's paths make each folder it is inside of use: a file of
/// `casino/table/` naming `casino/cage` makes `casino/table` use it.
fn uses_at_every_level(module: &Module, named: &BTreeSet<Module>) -> Vec<(Module, BTreeSet<Module>)> {
    (1..=module.len())
        .map(|depth| {
            let at = module[..depth].to_vec();
            let used = siblings_used(&at, named);
            (at, used)
        })
        .collect()
}

/// The strongly connected groups of more than one module (Tarjan's).
fn circles(edges: &BTreeMap<Module, BTreeSet<Module>>) -> Vec<BTreeSet<Module>> {
    struct Walk<'a> {
        edges: &'a BTreeMap<Module, BTreeSet<Module>>,
        index: BTreeMap<&'a Module, (usize, usize)>,
        stack: Vec<&'a Module>,
        found: Vec<BTreeSet<Module>>,
    }
    impl<'a> Walk<'a> {
        fn visit(&mut self, v: &'a Module) {
            let n = self.index.len();
            self.index.insert(v, (n, n));
            self.stack.push(v);
            let edges = self.edges;
            for w in edges.get(v).into_iter().flatten() {
                let low = match self.index.get(w) {
                    None => {
                        self.visit(w);
                        self.index[w].1
                    }
                    Some(&(i, _)) if self.stack.contains(&w) => i,
                    Some(_) => continue,
                };
                let entry = self.index.get_mut(v).expect("visited");
                entry.1 = entry.1.min(low);
            }
            let (i, low) = self.index[v];
            if i == low {
                let at = self.stack.iter().position(|m| *m == v).expect("on the stack");
                let group: BTreeSet<Module> = self.stack.drain(at..).cloned().collect();
                if group.len() > 1 {
                    self.found.push(group);
                }
            }
        }
    }
    let mut walk = Walk {
        edges,
        index: BTreeMap::new(),
        stack: Vec::new(),
        found: Vec::new(),
    };
    for v in edges.keys() {
        if !walk.index.contains_key(v) {
            walk.visit(v);
        }
    }
    walk.found
}

/// Each crate's circles, a line each: `crate: a b c`.
fn measured() -> BTreeSet<String> {
    let mut lines = BTreeSet::new();
    for krate in std::fs::read_dir(root().join("crates")).expect("crates").flatten() {
        let src = krate.path().join("src");
        if !src.is_dir() {
            continue;
        }
        let mut files = Vec::new();
        rust_sources(&src, &mut files);
        let modules: BTreeSet<Module> = files.iter().map(|f| module_of(&src, f)).collect();
        let mut edges: BTreeMap<Module, BTreeSet<Module>> = BTreeMap::new();
        for file in &files {
            let module = module_of(&src, file);
            let text = std::fs::read_to_string(file).expect("read source");
            let production = text.split("#[cfg(test)]").next().unwrap_or_default();
            let named = named_modules(&module, production, &modules);
            for (at, used) in uses_at_every_level(&module, &named) {
                edges.entry(at).or_default().extend(used);
            }
        }
        let name = krate.file_name().to_string_lossy().into_owned();
        for circle in circles(&edges) {
            let members: Vec<String> = circle.iter().map(|m| m.join("/")).collect();
            lines.insert(format!("{name}: {}", members.join(" ")));
        }
    }
    lines
}

#[test]
fn sibling_files_depend_one_way() {
    let circles: Vec<String> = measured()
        .into_iter()
        .map(|c| format!("{c}: these files use each other; move what they share so one uses the other"))
        .collect();
    assert!(circles.is_empty(), "{}", circles.join("\n"));
}

// The reading the check stands on: a path's sibling, a group's names, a
// folder's use through its files, a circle of three.
#[test]
fn a_path_and_a_group_name_their_siblings_and_three_files_make_a_circle() {
    let m = |s: &str| -> Module { s.split('/').map(str::to_string).collect() };
    let modules: BTreeSet<Module> = ["a", "a/b", "a/c", "a/d", "e"].into_iter().map(m).collect();
    let text = "use super::{c, d::Thing};\nfn f() { crate::e::g(); super::super::a::b::h(); }\n// super::x\n";
    let named = named_modules(&m("a/b"), text, &modules);
    // `a` is the group's own module: its parent, no sibling.
    let want: BTreeSet<Module> = ["a", "a/c", "a/d", "e", "a/b"].into_iter().map(m).collect();
    assert_eq!(named, want);
    assert_eq!(
        siblings_used(&m("a/b"), &named),
        ["a/c", "a/d"].into_iter().map(m).collect()
    );
    // A file inside `a/b/` naming `a/c` makes the folder `a/b` use it.
    let deep = named_modules(&m("a/b/x"), "use crate::a::c::Thing;", &modules);
    let levels = uses_at_every_level(&m("a/b/x"), &deep);
    assert_eq!(levels[1], (m("a/b"), [m("a/c")].into_iter().collect()));
    let edges: BTreeMap<Module, BTreeSet<Module>> = [("a/b", "a/c"), ("a/c", "a/d"), ("a/d", "a/b"), ("e", "a")]
        .into_iter()
        .map(|(from, to)| (m(from), [m(to)].into_iter().collect()))
        .collect();
    let found = circles(&edges);
    assert_eq!(found, vec![["a/b", "a/c", "a/d"].into_iter().map(m).collect()]);
}
