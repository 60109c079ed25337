//! `[switch.scheduler]`: how a port serves its class queues.

use super::{Family, Key, key, row};
use crate::scenario::{NoKeys, ScenarioError, Table};
use net::sched::Discipline;
use serde::Deserialize;
use sim_core::Bytes;

/// `kind = "dwrr"` or `"wrr"`: one quantum for every class, or one per class.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
struct RoundRobinSpec {
    quantum: Option<Bytes>,
    quanta: Option<Vec<Bytes>>,
}

/// `kind = "sp-dwrr"`: `strict` classes above DWRR among the rest.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
struct SpDwrrSpec {
    strict: u32,
    quantum: Option<Bytes>,
    quanta: Option<Vec<Bytes>>,
}

/// One quantum per class from `quantum` or `quanta`, each at least `min` bytes.
fn quanta(
    t: &Table<'_>,
    one: Option<Bytes>,
    many: Option<Vec<Bytes>>,
    min: u64,
) -> Result<Vec<u64>, ScenarioError> {
    let classes = t.ctx().classes;
    let (q, key): (Vec<u64>, &str) = match (one, many) {
        (Some(q), None) => (vec![q.0; classes], "quantum"),
        (None, Some(qs)) if qs.len() == classes => (qs.iter().map(|b| b.0).collect(), "quanta"),
        (None, Some(qs)) => {
            let msg = format!(
                "{} quanta for {classes} classes: give one per class",
                qs.len()
            );
            return Err(t.invalid("quanta", msg));
        }
        _ => {
            let msg =
                "give either `quantum` (the same for every class) or `quanta` (one per class)";
            return Err(t.invalid("quantum", msg));
        }
    };
    if let Some(&bad) = q.iter().find(|&&x| x < min) {
        return Err(t.invalid(key, format!("quantum {bad}B is below {min}B")));
    }
    let max = net::sched::MAX_QUANTUM_BYTES;
    if let Some(&bad) = q.iter().find(|&&x| x > max) {
        return Err(t.invalid(key, format!("quantum {bad}B is above {max}B")));
    }
    Ok(q)
}

fn strict_priority(t: &Table<'_>) -> Result<Discipline, ScenarioError> {
    t.read::<NoKeys>()?;
    Ok(Discipline::StrictPriority)
}

fn dwrr(t: &Table<'_>) -> Result<Discipline, ScenarioError> {
    let s: RoundRobinSpec = t.read()?;
    Ok(Discipline::Dwrr {
        quanta: quanta(t, s.quantum, s.quanta, 1)?,
    })
}

fn wrr(t: &Table<'_>) -> Result<Discipline, ScenarioError> {
    // MQ-ECN 3.3.2: a WRR class sends at most its quantum per round, so a
    // quantum below one MTU could never send a full packet.
    let s: RoundRobinSpec = t.read()?;
    Ok(Discipline::Wrr {
        quanta: quanta(t, s.quantum, s.quanta, net::packet::MTU_BYTES as u64)?,
    })
}

fn sp_dwrr(t: &Table<'_>) -> Result<Discipline, ScenarioError> {
    let s: SpDwrrSpec = t.read()?;
    let classes = t.ctx().classes;
    let strict = s.strict as usize;
    if strict >= classes {
        let msg = format!("{strict} strict classes leave none of the {classes} for DWRR");
        return Err(t.invalid("strict", msg));
    }
    Ok(Discipline::SpDwrr {
        strict,
        quanta: quanta(t, s.quantum, s.quanta, 1)?,
    })
}

const QUANTA: [Key; 2] = [
    key(
        "quantum",
        "required*",
        "size",
        "bytes per round for every class (*or quanta)",
    ),
    key(
        "quanta",
        "none",
        "[size, ...]",
        "one quantum per class, instead of quantum",
    ),
];

/// The rows.
#[rustfmt::skip]
pub static FAMILY: Family<Discipline> = Family {
    name: "scheduler",
    table: "switch.scheduler",
    default: Some("strict-priority"),
    kinds: &[
        row("strict-priority", "the lowest-numbered backlogged class sends (one class: FIFO)", "", &[], strict_priority),
        row("dwrr", "deficit round robin; deficit kept across rounds, reset when a queue empties", "MQ-ECN 3.3.2", &QUANTA, dwrr),
        row("wrr", "weighted round robin: at most one quantum per class per round (each >= 1500B)", "MQ-ECN 3.3.2", &QUANTA, wrr),
        row("sp-dwrr", "classes 0..strict in strict priority, DWRR among the others", "MQ-ECN 3.3.2", &[
            key("strict", "required", "integer", "how many classes are strict"),
            key("quantum", "required*", "size", "bytes per round for every DWRR class (*or quanta)"),
            key("quanta", "none", "[size, ...]", "one quantum per class, instead of quantum"),
        ], sp_dwrr),
    ],
};
