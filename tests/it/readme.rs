//! The README's quickstart block is what the run prints, line for line,
//! but for the wall-clock line and the output paths.
use crate::common;

#[test]
fn the_readme_quickstart_output_is_the_runs() {
    let readme = std::fs::read_to_string("README.md").expect("README.md");
    let at = readme
        .find("The first prints")
        .expect("the quickstart block");
    let block = readme[at..].split("```").nth(1).expect("a fenced block");
    let out = common::temp_dir("readme").join("run");
    let o = common::run_cli(&[
        "run".as_ref(),
        "scenarios/quickstart.toml".as_ref(),
        "--out".as_ref(),
        out.as_os_str(),
    ]);
    let printed = String::from_utf8_lossy(&o.stdout).into_owned();
    let keep = |l: &&str| {
        let l = l.trim_start();
        !(l.starts_with("wall ") || l.starts_with("results ") || l.starts_with("plots "))
    };
    let want: Vec<&str> = block
        .lines()
        .filter(|l| !l.is_empty())
        .filter(keep)
        .collect();
    let got: Vec<&str> = printed.lines().filter(keep).collect();
    assert_eq!(
        want, got,
        "README.md's quickstart block is stale: update it"
    );
    std::fs::remove_dir_all(out.parent().expect("temp")).expect("cleanup");
}

/// The README's feature list names every kind of every registry family
/// (as `name`, the way a scenario selects it), so that it cannot fall
/// behind a new row.
#[test]
fn the_readme_feature_list_names_every_registry_kind() {
    let readme = std::fs::read_to_string("README.md").expect("README.md");
    let list = readme
        .split("What works today")
        .nth(1)
        .and_then(|s| s.split("\n## ").next())
        .expect("the feature list");
    let mut missing = Vec::new();
    for family in dcnsim::registry::families() {
        for row in &family.kinds {
            if !list.contains(&format!("`{}`", row.name)) {
                missing.push(format!("{} `{}`", family.name, row.name));
            }
        }
    }
    assert!(
        missing.is_empty(),
        "README.md's feature list lacks {missing:?}"
    );
}

/// Issue 58: every `cargo install` a reader is told to run (README, docs,
/// the Slurm scripts) is `--locked`, so that it builds the versions the
/// tests ran.
#[test]
fn every_install_command_is_locked() {
    let mut files = vec![std::path::PathBuf::from("README.md")];
    for dir in ["docs", "scripts"] {
        files.extend(common::files_under(std::path::Path::new(dir), &|p| {
            p.extension()
                .is_some_and(|e| e == "md" || e == "sh" || e == "sbatch")
        }));
    }
    let mut unlocked = Vec::new();
    for f in &files {
        let text = std::fs::read_to_string(f).expect("readable");
        for (n, line) in text.lines().enumerate() {
            if line.contains("cargo install ") && !line.contains("cargo install --locked") {
                unlocked.push(format!("{}:{}: {line}", f.display(), n + 1));
            }
        }
    }
    assert!(files.len() > 10, "{files:?}");
    assert!(unlocked.is_empty(), "{}", unlocked.join("\n"));
}
