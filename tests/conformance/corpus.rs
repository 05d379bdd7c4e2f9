//! Which producer a folder of vectors holds, and where the corpora live.
//!
//! The two corpora share file names (`state-model.json`, `continuation.json`,
//! …) but not formats, so a folder is never run with the wrong handlers: its
//! producer comes from its name (`cognesy-v1.22`, `instructor-php-v2.7`) or,
//! for a renamed copy, from the provenance its `README.md` states.

use std::path::{Path, PathBuf};

/// A producer release with a corpus.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[allow(non_camel_case_types)]
pub enum Producer {
    /// instructor-php v1.22.0, `packages/addons` (`Cognesy\Addons\Agent`).
    V1_22,
    /// instructor-php v2.7.0, `packages/agents` (`Cognesy\Agents`).
    V2_7,
}

impl Producer {
    /// The prefix of every line the runner prints for this producer.
    pub fn label(self) -> &'static str {
        match self {
            Producer::V1_22 => "v1.22",
            Producer::V2_7 => "v2.7",
        }
    }

    /// The producer of `dir`: by folder name, else by the README's provenance.
    pub fn of_folder(dir: &Path) -> Result<Producer, String> {
        let name = dir.file_name().and_then(|n| n.to_str()).unwrap_or("");
        if let Some(p) = Producer::of_name(name) {
            return Ok(p);
        }
        let readme = std::fs::read_to_string(dir.join("README.md")).map_err(|_| {
            "cannot tell the producer: the folder name is not a known corpus and it has no README.md"
                .to_string()
        })?;
        Producer::of_readme(&readme).ok_or_else(|| {
            "cannot tell the producer: the README names neither instructor-php v1.22.0 nor v2.7.0"
                .to_string()
        })
    }

    fn of_name(name: &str) -> Option<Producer> {
        match name {
            "cognesy-v1.22" => Some(Producer::V1_22),
            "instructor-php-v2.7" => Some(Producer::V2_7),
            _ => None,
        }
    }

    /// The README's provenance: v2.7's names its tag and package, v1.22's its release.
    fn of_readme(text: &str) -> Option<Producer> {
        let v2 = text.contains("v2.7.0") && text.contains("packages/agents");
        let v1 = text.contains("v1.22.0") && text.contains("packages/addons");
        // v2.7's README mentions v1.22 too (its table of differences), so the
        // provenance paragraph, which comes first, decides.
        let at = |needle: &str| text.find(needle).unwrap_or(usize::MAX);
        match (v1, v2) {
            (true, true) if at("v2.7.0") < at("v1.22.0") => Some(Producer::V2_7),
            (true, _) => Some(Producer::V1_22),
            (false, true) => Some(Producer::V2_7),
            (false, false) => None,
        }
    }
}

/// The committed corpora: every folder under `tests/vectors/`, in name
/// order, but `dialects/` (other producers' streams, each read by its own
/// test: `tests/dialect_*.rs`).
pub fn committed_folders() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/vectors");
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(&root)
        .map(|it| {
            it.filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| p.is_dir() && !p.ends_with("dialects"))
                .collect()
        })
        .unwrap_or_default();
    dirs.sort();
    dirs
}

/// The `.json` files of `dir` that no suite covers, so a file without
/// handlers is named in the output rather than passed over in silence.
pub fn unchecked_files<'a>(dir: &Path, covered: impl Iterator<Item = &'a str>) -> Vec<String> {
    let covered: Vec<&str> = covered.collect();
    let mut out: Vec<String> = std::fs::read_dir(dir)
        .map(|it| {
            it.filter_map(|e| e.ok()?.file_name().into_string().ok())
                .filter(|n| n.ends_with(".json") && !covered.contains(&n.as_str()))
                .collect()
        })
        .unwrap_or_default();
    out.sort();
    out
}

/// A committed corpus must stay byte-identical to the shared one it was copied
/// from (`../shared/vectors/<folder>`), when that is present beside the checkout.
pub fn same_as_shared(dir: &Path) -> Result<(), String> {
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
    let Some(name) = dir.file_name() else {
        return Ok(());
    };
    if dir.parent() != Some(manifest.join("tests/vectors").as_path()) {
        return Ok(()); // a folder given with STEPLINE_VECTORS is checked as it is
    }
    let shared = manifest.join("../shared/vectors").join(name);
    let Ok(entries) = std::fs::read_dir(&shared) else {
        return Ok(());
    };
    let mut names: Vec<_> = entries
        .filter_map(|e| e.ok()?.file_name().into_string().ok())
        .collect();
    names.sort();
    for file in names {
        let ours = std::fs::read(dir.join(&file));
        let theirs = std::fs::read(shared.join(&file));
        match (ours, theirs) {
            (Ok(a), Ok(b)) if a == b => {}
            (Err(_), _) => return Err(format!("{file}: missing from {}", dir.display())),
            _ => {
                return Err(format!(
                    "{file}: differs from {}",
                    shared.join(&file).display()
                ))
            }
        }
    }
    Ok(())
}
