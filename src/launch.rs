//! How this process was launched: alone, or as one of several processes
//! of an MPI launcher (`mpirun -np N`, `srun` with PMI). A run across
//! processes needs each to hold its share of the LPs and rank 0 alone to
//! write (docs/architecture.md, "Across machines"): the `mpi` feature
//! (`crate::ranks`). A build without it refuses to be one of several,
//! rather than let N copies of one run race on one output folder.

/// The environment variables MPI launchers set to the number of
/// processes started: Open MPI's `mpirun`, and the PMI of MPICH's Hydra,
/// Intel MPI and Slurm's `srun --mpi=pmi2`.
pub const SIZE_VARIABLES: [&str; 2] = ["OMPI_COMM_WORLD_SIZE", "PMI_SIZE"];

/// The launcher's process count, with the variable that gave it, where
/// this process is one of several (`None` when alone or not launched by
/// MPI). `get` reads a variable (`std::env::var` in the binary).
pub fn several_processes(get: impl Fn(&str) -> Option<String>) -> Option<(&'static str, u64)> {
    SIZE_VARIABLES.into_iter().find_map(|v| {
        let n: u64 = get(v)?.trim().parse().ok()?;
        (n > 1).then_some((v, n))
    })
}

/// Refuses a `dcnsim run` that [`several_processes`] found to be one of
/// several MPI processes, in a build without the `mpi` feature: it runs
/// a scenario in one process (on its threads), so each of them would run
/// all of it into the same folder.
pub fn refuse(several: Option<(&'static str, u64)>) -> Result<(), String> {
    match several {
        None => Ok(()),
        Some((var, n)) => Err(format!(
            "dcnsim run was started as one of {n} MPI processes ({var}={n}), but this build \
             runs a scenario in one process: the {n} copies would each run all of it into the \
             same folder. Build it with MPI (cargo build --release --features mpi, over an \
             installed MPI), or start it once, without mpirun or srun: `--threads N` spreads \
             a cut fabric over N cores"
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env<'a>(vars: &'a [(&'a str, &'a str)]) -> impl Fn(&str) -> Option<String> + 'a {
        move |k| {
            vars.iter()
                .find(|(n, _)| *n == k)
                .map(|(_, v)| v.to_string())
        }
    }

    #[test]
    fn one_process_runs_and_several_are_refused_naming_the_variable() {
        assert_eq!(several_processes(env(&[])), None);
        assert_eq!(
            several_processes(env(&[("OMPI_COMM_WORLD_SIZE", "1")])),
            None
        );
        assert_eq!(several_processes(env(&[("PMI_SIZE", "x")])), None);
        assert_eq!(
            several_processes(env(&[("PMI_SIZE", "4")])),
            Some(("PMI_SIZE", 4))
        );
        let err = refuse(several_processes(env(&[("OMPI_COMM_WORLD_SIZE", "2")])))
            .expect_err("two processes");
        assert!(err.contains("OMPI_COMM_WORLD_SIZE=2"), "{err}");
    }
}
