//! The top-level modules of src/ form no cycle: every `crate::<module>` a
//! module's code names (comments aside) points down the layers that
//! ARCHITECTURE.md draws. A cycle is printed as the path that closes it.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

type Graph = BTreeMap<String, BTreeSet<String>>;

/// The top-level modules: `src/<name>.rs` and `src/<name>/`, without the
/// crate root and the binaries.
fn modules(src: &Path) -> BTreeMap<String, Vec<PathBuf>> {
    let mut out = BTreeMap::new();
    for entry in fs::read_dir(src).expect("src/ is readable") {
        let path = entry.expect("a directory entry").path();
        let name = path
            .file_stem()
            .and_then(|s| s.to_str())
            .expect("a UTF-8 file name")
            .to_string();
        if name == "lib" || name == "bin" {
            continue;
        }
        let files = if path.is_dir() {
            rust_files(&path)
        } else if path.extension().is_some_and(|e| e == "rs") {
            vec![path]
        } else {
            continue;
        };
        out.entry(name).or_insert_with(Vec::new).extend(files);
    }
    out
}

fn rust_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for entry in fs::read_dir(dir).expect("a readable module folder") {
        let path = entry.expect("a directory entry").path();
        if path.is_dir() {
            out.extend(rust_files(&path));
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
    out
}

/// The line without its `//` comment (a `//` inside a string literal cuts
/// the line early, which can only hide a use, never invent one).
fn code_of(line: &str) -> &str {
    line.split("//").next().unwrap_or("")
}

/// The identifiers that follow `crate::` in `code`, and those listed in a
/// `crate::{a, b::c}` group.
fn crate_paths(code: &str, out: &mut BTreeSet<String>) {
    let ident = |s: &str| -> String {
        s.chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
            .collect()
    };
    let mut rest = code;
    while let Some(at) = rest.find("crate::") {
        let before = rest[..at].chars().next_back();
        rest = &rest[at + "crate::".len()..];
        if before.is_some_and(|c| c.is_ascii_alphanumeric() || c == '_' || c == '$') {
            continue; // `$crate::` in a macro, or another path's tail
        }
        if let Some(group) = rest.strip_prefix('{') {
            let end = group.find('}').unwrap_or(group.len());
            for item in group[..end].split(',') {
                out.insert(ident(item.trim()));
            }
        } else {
            out.insert(ident(rest));
        }
    }
}

fn graph(src: &Path) -> Graph {
    let mods = modules(src);
    let names: BTreeSet<String> = mods.keys().cloned().collect();
    let mut g = Graph::new();
    for (name, files) in &mods {
        let mut used = BTreeSet::new();
        for file in files {
            let text = fs::read_to_string(file).expect("a readable source file");
            for line in text.lines() {
                crate_paths(code_of(line), &mut used);
            }
        }
        used.retain(|u| u != name && names.contains(u));
        g.insert(name.clone(), used);
    }
    g
}

/// A cycle as the path that closes it (`a -> b -> a`), if there is one.
fn cycle(g: &Graph) -> Option<Vec<String>> {
    #[derive(Clone, Copy, PartialEq)]
    enum Mark {
        Open,
        Done,
    }
    fn visit(
        g: &Graph,
        node: &str,
        marks: &mut BTreeMap<String, Mark>,
        path: &mut Vec<String>,
    ) -> Option<Vec<String>> {
        match marks.get(node) {
            Some(Mark::Done) => return None,
            Some(Mark::Open) => {
                let from = path.iter().position(|n| n == node).unwrap_or(0);
                let mut found = path[from..].to_vec();
                found.push(node.to_string());
                return Some(found);
            }
            None => {}
        }
        marks.insert(node.to_string(), Mark::Open);
        path.push(node.to_string());
        for next in g.get(node).into_iter().flatten() {
            if let Some(found) = visit(g, next, marks, path) {
                return Some(found);
            }
        }
        path.pop();
        marks.insert(node.to_string(), Mark::Done);
        None
    }
    let mut marks = BTreeMap::new();
    g.keys()
        .find_map(|node| visit(g, node, &mut marks, &mut Vec::new()))
}

/// Each module's layer: one above the highest layer it uses.
fn layers(g: &Graph) -> BTreeMap<String, usize> {
    fn layer(g: &Graph, node: &str, memo: &mut BTreeMap<String, usize>) -> usize {
        if let Some(&l) = memo.get(node) {
            return l;
        }
        let l = g
            .get(node)
            .into_iter()
            .flatten()
            .map(|d| layer(g, d, memo) + 1)
            .max()
            .unwrap_or(0);
        memo.insert(node.to_string(), l);
        l
    }
    let mut memo = BTreeMap::new();
    for node in g.keys() {
        layer(g, node, &mut memo);
    }
    memo
}

#[test]
fn the_top_level_modules_form_no_cycle() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let g = graph(&src);
    assert!(g.len() > 10, "found only {:?} in src/", g.keys());
    if let Some(found) = cycle(&g) {
        panic!("the top-level modules form a cycle: {}", found.join(" -> "));
    }
    let mut by_layer: BTreeMap<usize, Vec<&str>> = BTreeMap::new();
    let l = layers(&g);
    for (name, layer) in &l {
        by_layer.entry(*layer).or_default().push(name);
    }
    for (layer, names) in by_layer {
        println!("layer {layer}: {}", names.join(", "));
    }
}

#[test]
fn the_lower_layers_never_name_the_higher_ones() {
    // The order ARCHITECTURE.md draws, bottom-up; a module may use only
    // modules listed before it.
    const ORDER: &[&str] = &[
        "error",
        "sort",
        "host",
        "json",
        "php",
        "secrets",
        "model",
        "snapshot",
        "state_formats",
        "event",
        "envelope",
        "dialects",
        "lint",
        "session",
        "cost",
        "otel",
        "schema",
        "wasm",
    ];
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let g = graph(&src);
    let unplaced: Vec<&String> = g.keys().filter(|k| !ORDER.contains(&k.as_str())).collect();
    assert!(
        unplaced.is_empty(),
        "modules not placed in a layer: {unplaced:?}"
    );
    let mut upward = Vec::new();
    for (name, deps) in &g {
        let at = ORDER.iter().position(|o| o == name).unwrap_or(0);
        for dep in deps {
            if ORDER.iter().position(|o| o == dep).unwrap_or(0) > at {
                upward.push(format!("{name} -> {dep}"));
            }
        }
    }
    assert!(upward.is_empty(), "uses up the layers: {upward:?}");
}

#[test]
fn a_cycle_is_found_and_printed_as_its_path() {
    // The checker itself: a graph with a cycle is caught.
    let mut g = Graph::new();
    g.insert("json".into(), BTreeSet::from(["wasm".to_string()]));
    g.insert("wasm".into(), BTreeSet::from(["session".to_string()]));
    g.insert("session".into(), BTreeSet::from(["json".to_string()]));
    g.insert("error".into(), BTreeSet::new());
    let found = cycle(&g).expect("the cycle");
    assert_eq!(found.first(), found.last());
    assert_eq!(found.len(), 4);
    let mut used = BTreeSet::new();
    crate_paths(
        "use crate::{json::Value, model};  $crate::x  crate::wasm::number",
        &mut used,
    );
    assert_eq!(
        used,
        BTreeSet::from(["json".into(), "model".into(), "wasm".into()])
    );
}
