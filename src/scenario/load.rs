//! Reading a scenario: parse the document once with spans, dispatch the
//! tagged tables (`topology`, `switch.aqm`, `[[workload]]`) on their `kind`,
//! deserialize each variant from its own spanned table, then check what the
//! types cannot (host indices against the topology, run bounds).

use super::error::{ScenarioError, Source};
use super::types::*;
use aqm::StepEcn;
use net::buffer::BufferPolicy;
use net::sched::{Discipline, MAX_CLASSES};
use serde::de::DeserializeOwned;
use sim_core::SimDuration;
use sim_core::{Bytes, QueueSize};
use std::ops::Range;
use std::path::Path;
use toml::Spanned;
use toml::de::{DeTable, DeValue, ValueDeserializer};

type SpannedValue<'a> = Spanned<DeValue<'a>>;

/// Reads and validates the scenario at `path`.
pub fn load_file(path: &Path) -> Result<Scenario, ScenarioError> {
    let file = path.display().to_string();
    let text = std::fs::read_to_string(path).map_err(|e| ScenarioError {
        file: file.clone(),
        line: 0,
        col: 0,
        key: String::new(),
        message: format!("cannot read the scenario: {e}"),
    })?;
    let name = path
        .file_stem()
        .map_or("scenario".into(), |s| s.to_string_lossy().into_owned());
    let mut sc = parse_str(&file, &text)?;
    sc.name = name;
    Ok(sc)
}

/// Parses and validates scenario text; `file` names it in errors.
pub fn parse_str(file: &str, text: &str) -> Result<Scenario, ScenarioError> {
    let src = Source { file, text };
    let root = DeTable::parse(text).map_err(|e| src.toml_error(&e, ""))?;
    let base: ScenarioBase = <ScenarioBase as serde::Deserialize>::deserialize(
        toml::de::Deserializer::from(root.clone()),
    )
    .map_err(|e| src.toml_error(&e, ""))?;
    let table = root.get_ref();

    let topo = table
        .get("topology")
        .ok_or_else(|| src.error(None, "topology", "missing table [topology]"))?;
    let topology = topology(&src, topo)?;

    let switch_v = table
        .get("switch")
        .ok_or_else(|| src.error(None, "switch", "missing table [switch]"))?;
    let switch = switch(&src, switch_v)?;

    let workloads = match table.get("workload") {
        None => Vec::new(),
        Some(v) => match v.get_ref() {
            DeValue::Array(items) => items
                .iter()
                .enumerate()
                .map(|(i, w)| workload(&src, w, &format!("workload[{i}]")))
                .collect::<Result<_, _>>()?,
            _ => return Err(src.error(Some(v.span()), "workload", "expected [[workload]] tables")),
        },
    };
    if let Err(e) = base.transport.validate() {
        return Err(src.error(
            key_span(table, &["transport", e.key]),
            &format!("transport.{}", e.key),
            e.message,
        ));
    }

    let mut transport = base.transport;
    // The host shim is on exactly when switches rewrite rwnd, unless set.
    transport.window_scale_shim = Some(
        transport
            .window_scale_shim
            .unwrap_or(switch.ingress.rewrites_rwnd()),
    );
    let sc = Scenario {
        name: "scenario".into(),
        simulation: base.simulation,
        topology,
        switch,
        transport,
        workloads,
        output: base.output,
    };
    check(&src, table, &sc)?;
    Ok(sc)
}

/// Deserializes `T` from a spanned table, keeping the spans for errors.
fn de<T: DeserializeOwned>(
    src: &Source,
    span: Range<usize>,
    table: DeTable,
    prefix: &str,
) -> Result<T, ScenarioError> {
    T::deserialize(ValueDeserializer::from(Spanned::new(
        span,
        DeValue::Table(table),
    )))
    .map_err(|e| src.toml_error(&e, prefix))
}

/// Deserializes a plugin's table, then runs its cross-key `validate`, whose
/// `(key, message)` error is located at that key (or at the table).
fn validated<T: DeserializeOwned>(
    src: &Source,
    span: Range<usize>,
    table: DeTable,
    prefix: &str,
    validate: impl Fn(&T) -> Result<(), (&'static str, String)>,
) -> Result<T, ScenarioError> {
    let spans: Vec<(String, Range<usize>)> = table
        .iter()
        .map(|(k, v)| (k.get_ref().to_string(), v.span()))
        .collect();
    let value: T = de(src, span.clone(), table, prefix)?;
    if let Err((key, msg)) = validate(&value) {
        let at = spans
            .iter()
            .find(|(k, _)| k == key)
            .map_or(span, |(_, s)| s.clone());
        return Err(src.error(Some(at), &format!("{prefix}.{key}"), msg));
    }
    Ok(value)
}

/// Splits a tagged table into its `kind` (checked against `valid`) and the rest.
fn split_kind<'a>(
    src: &Source,
    v: &SpannedValue<'a>,
    prefix: &str,
    valid: &[&str],
) -> Result<(String, DeTable<'a>), ScenarioError> {
    let DeValue::Table(t) = v.get_ref() else {
        return Err(src.error(Some(v.span()), prefix, "expected a table"));
    };
    let mut t = t.clone();
    let list = valid
        .iter()
        .map(|k| format!("\"{k}\""))
        .collect::<Vec<_>>()
        .join(", ");
    let kind_key = format!("{prefix}.kind");
    let Some(kind) = t.remove("kind") else {
        return Err(src.error(
            Some(v.span()),
            &kind_key,
            format!("missing `kind`: one of {list}"),
        ));
    };
    let Some(name) = kind.get_ref().as_str() else {
        return Err(src.error(
            Some(kind.span()),
            &kind_key,
            format!("`kind` must be a string: one of {list}"),
        ));
    };
    if !valid.contains(&name) {
        let msg = format!("unknown kind \"{name}\": valid kinds are {list}");
        return Err(src.error(Some(kind.span()), &kind_key, msg));
    }
    Ok((name.to_string(), t))
}

fn topology(src: &Source, v: &SpannedValue) -> Result<TopologyConfig, ScenarioError> {
    let (kind, mut rest) = split_kind(
        src,
        v,
        "topology",
        &[
            "star",
            "dumbbell",
            "leaf-spine",
            "fat-tree",
            "k-ary-fat-tree",
            "explicit",
        ],
    )?;
    let mut common = DeTable::new();
    for k in TOPOLOGY_COMMON_KEYS {
        if let Some((key, val)) = rest.remove_entry(*k) {
            common.insert(key, val);
        }
    }
    let common: TopologyCommon = de(src, v.span(), common, "topology")?;
    let kind = match kind.as_str() {
        "star" => TopologyKind::Star(de(src, v.span(), rest, "topology")?),
        "dumbbell" => TopologyKind::Dumbbell(de(src, v.span(), rest, "topology")?),
        "leaf-spine" => TopologyKind::LeafSpine(de(src, v.span(), rest, "topology")?),
        "fat-tree" => TopologyKind::FatTree(de(src, v.span(), rest, "topology")?),
        "k-ary-fat-tree" => TopologyKind::KAryFatTree(de(src, v.span(), rest, "topology")?),
        _ => TopologyKind::Explicit(de(src, v.span(), rest, "topology")?),
    };
    Ok(TopologyConfig {
        kind,
        framing: common.framing,
        nic_buffer: common.nic_buffer,
    })
}

fn switch(src: &Source, v: &SpannedValue) -> Result<SwitchConfig, ScenarioError> {
    let DeValue::Table(t) = v.get_ref() else {
        return Err(src.error(Some(v.span()), "switch", "expected a table"));
    };
    let base: SwitchBase = de(src, v.span(), t.clone(), "switch")?;
    let aqm = match t.get("aqm") {
        None => AqmSpec::DropTail,
        Some(a) => {
            let (kind, rest) = split_kind(
                src,
                a,
                "switch.aqm",
                &["droptail", "step-ecn", "red", "mq-ecn"],
            )?;
            match kind.as_str() {
                "droptail" => {
                    let _: NoKeys = de(src, a.span(), rest, "switch.aqm")?;
                    AqmSpec::DropTail
                }
                "step-ecn" => AqmSpec::StepEcn(de::<StepEcn>(src, a.span(), rest, "switch.aqm")?),
                "mq-ecn" => AqmSpec::MqEcn(validated(
                    src,
                    a.span(),
                    rest,
                    "switch.aqm",
                    aqm::mq_ecn::MqEcnConfig::validate,
                )?),
                _ => AqmSpec::Red(validated(
                    src,
                    a.span(),
                    rest,
                    "switch.aqm",
                    aqm::red::RedConfig::validate,
                )?),
            }
        }
    };
    let classes = *base.classes.get_ref() as usize;
    if !(1..=MAX_CLASSES).contains(&classes) {
        let msg = format!("{classes} classes: a port has 1 to {MAX_CLASSES} class queues");
        return Err(src.error(Some(base.classes.span()), "switch.classes", msg));
    }
    let class_of_priority = match &base.class_of_priority {
        // Default: priority p goes to class p, the last class taking the rest.
        None => std::array::from_fn(|p| p.min(classes - 1) as u8),
        Some(m) => {
            let key = "switch.class_of_priority";
            let map: [u8; 8] = m.get_ref().as_slice().try_into().map_err(|_| {
                src.error(
                    Some(m.span()),
                    key,
                    "needs 8 entries: the class of priorities 0 to 7",
                )
            })?;
            if let Some(c) = map.iter().find(|&&c| c as usize >= classes) {
                let msg = format!("class {c} does not exist: classes are 0 to {}", classes - 1);
                return Err(src.error(Some(m.span()), key, msg));
            }
            map
        }
    };
    let scheduler = match t.get("scheduler") {
        None => Discipline::StrictPriority,
        Some(sv) => scheduler(src, sv, classes)?,
    };
    let buffer = match (&base.buffer, &base.shared_buffer) {
        (Some(b), None) => {
            if let Some(a) = &base.dt_alpha {
                let msg = "dt_alpha applies to a shared_buffer, not to per-port buffers";
                return Err(src.error(Some(a.span()), "switch.dt_alpha", msg));
            }
            BufferPolicy::PerPort(*b)
        }
        (None, Some(sb)) => {
            let dt_alpha = base.dt_alpha.as_ref().map_or(1.0, |a| *a.get_ref());
            if !(dt_alpha > 0.0 && dt_alpha.is_finite()) {
                let span = base.dt_alpha.as_ref().map(|a| a.span());
                let msg = "must be a positive number (e.g. 1, 0.5, 2)";
                return Err(src.error(span, "switch.dt_alpha", msg));
            }
            if sb.get_ref().0 < 1500 {
                let msg = "must hold at least one 1500B packet";
                return Err(src.error(Some(sb.span()), "switch.shared_buffer", msg));
            }
            BufferPolicy::Shared {
                bytes: sb.get_ref().0,
                dt_alpha,
            }
        }
        (Some(_), Some(sb)) => {
            let msg = "give either `buffer` (per port) or `shared_buffer` (per switch), not both";
            return Err(src.error(Some(sb.span()), "switch.shared_buffer", msg));
        }
        (None, None) => {
            let msg = "missing `buffer` (per-port limit, e.g. \"300pkt\") or `shared_buffer` (per switch, e.g. \"9MB\")";
            return Err(src.error(Some(v.span()), "switch.buffer", msg));
        }
    };
    let mut sc = SwitchConfig {
        buffer,
        classes,
        class_of_priority,
        scheduler,
        aqm,
        ingress: IngressSpec::None,
    };
    if let Some(iv) = t.get("ingress") {
        sc.ingress = ingress(src, iv, sc.queue_limit())?;
    }
    Ok(sc)
}

/// `[switch.ingress]`.
fn ingress(
    src: &Source,
    v: &SpannedValue,
    queue_limit: QueueSize,
) -> Result<IngressSpec, ScenarioError> {
    let p = "switch.ingress";
    let (kind, rest) = split_kind(src, v, p, &["none", "r-aqm", "abq", "fairq", "hscc"])?;
    let span = v.span();
    Ok(match kind.as_str() {
        "none" => {
            let _: NoKeys = de(src, span, rest, p)?;
            IngressSpec::None
        }
        "r-aqm" => IngressSpec::RAqm(validated(
            src,
            span,
            rest,
            p,
            aqm::r_aqm::RAqmConfig::validate,
        )?),
        "abq" => IngressSpec::Abq(validated(src, span, rest, p, |c: &aqm::abq::AbqConfig| {
            c.validate(queue_limit)
        })?),
        "fairq" => IngressSpec::Fairq(validated(
            src,
            span,
            rest,
            p,
            aqm::fairq::FairqConfig::validate,
        )?),
        _ => IngressSpec::Hscc(validated(
            src,
            span,
            rest,
            p,
            aqm::hscc::HsccConfig::validate,
        )?),
    })
}

/// `[switch.scheduler]`.
fn scheduler(src: &Source, v: &SpannedValue, classes: usize) -> Result<Discipline, ScenarioError> {
    let p = "switch.scheduler";
    let (kind, rest) = split_kind(src, v, p, &["strict-priority", "dwrr", "wrr", "sp-dwrr"])?;
    let quanta = |one: &Option<Spanned<Bytes>>, many: &Option<Spanned<Vec<Bytes>>>, min: u64| {
        let q: Vec<u64> = match (one, many) {
            (Some(q), None) => vec![q.get_ref().0; classes],
            (None, Some(qs)) if qs.get_ref().len() == classes => {
                qs.get_ref().iter().map(|b| b.0).collect()
            }
            (None, Some(qs)) => {
                let msg = format!(
                    "{} quanta for {classes} classes: give one per class",
                    qs.get_ref().len()
                );
                return Err(src.error(Some(qs.span()), &format!("{p}.quanta"), msg));
            }
            _ => {
                let msg =
                    "give either `quantum` (the same for every class) or `quanta` (one per class)";
                return Err(src.error(Some(v.span()), &format!("{p}.quantum"), msg));
            }
        };
        if let Some(&bad) = q.iter().find(|&&x| x < min) {
            let span = one
                .as_ref()
                .map(|s| s.span())
                .or(many.as_ref().map(|s| s.span()));
            let msg = format!("quantum {bad}B is below {min}B");
            return Err(src.error(span, &format!("{p}.quantum"), msg));
        }
        Ok(q)
    };
    Ok(match kind.as_str() {
        "strict-priority" => {
            let _: NoKeys = de(src, v.span(), rest, p)?;
            Discipline::StrictPriority
        }
        "dwrr" => {
            let s: RoundRobinSpec = de(src, v.span(), rest, p)?;
            Discipline::Dwrr {
                quanta: quanta(&s.quantum, &s.quanta, 1)?,
            }
        }
        "wrr" => {
            // MQ-ECN 3.3.2: a WRR class sends at most its quantum per round, so
            // a quantum below one MTU (1500 B) could never send a full packet.
            let s: RoundRobinSpec = de(src, v.span(), rest, p)?;
            Discipline::Wrr {
                quanta: quanta(&s.quantum, &s.quanta, 1500)?,
            }
        }
        _ => {
            let s: SpDwrrSpec = de(src, v.span(), rest, p)?;
            let strict = *s.strict.get_ref() as usize;
            if strict >= classes {
                let msg = format!("{strict} strict classes leave none of the {classes} for DWRR");
                return Err(src.error(Some(s.strict.span()), &format!("{p}.strict"), msg));
            }
            Discipline::SpDwrr {
                strict,
                quanta: quanta(&s.quantum, &s.quanta, 1)?,
            }
        }
    })
}

fn workload(src: &Source, v: &SpannedValue, prefix: &str) -> Result<WorkloadSpec, ScenarioError> {
    let (kind, rest) = split_kind(src, v, prefix, &["incast", "long-flows", "poisson-packets"])?;
    Ok(match kind.as_str() {
        "incast" => WorkloadSpec::Incast(de(src, v.span(), rest, prefix)?),
        "long-flows" => WorkloadSpec::LongFlows(de(src, v.span(), rest, prefix)?),
        _ => WorkloadSpec::PoissonPackets(de(src, v.span(), rest, prefix)?),
    })
}

/// The span of a nested key, e.g. `["transport", "mss"]`.
fn key_span(table: &DeTable, path: &[&str]) -> Option<Range<usize>> {
    let (first, rest) = path.split_first()?;
    let v = table.get(*first)?;
    match (rest.is_empty(), v.get_ref()) {
        (true, _) => Some(v.span()),
        (false, DeValue::Table(t)) => key_span(t, rest).or(Some(v.span())),
        _ => Some(v.span()),
    }
}

/// Checks a topology's sizes and returns its host count.
fn topology_hosts(src: &Source, kind: &TopologyKind) -> Result<u32, ScenarioError> {
    let at_least = |n: &Spanned<u32>, min: u32, key: &str| {
        if *n.get_ref() < min {
            Err(src.error(Some(n.span()), key, format!("must be at least {min}")))
        } else {
            Ok(*n.get_ref())
        }
    };
    Ok(match kind {
        TopologyKind::Star(s) => at_least(&s.hosts, 2, "topology.hosts")?,
        TopologyKind::Dumbbell(d) => {
            at_least(&d.left, 1, "topology.left")? + at_least(&d.right, 1, "topology.right")?
        }
        TopologyKind::LeafSpine(l) => {
            at_least(&l.spines, 1, "topology.spines")?;
            at_least(&l.leaves, 1, "topology.leaves")?
                * at_least(&l.hosts_per_leaf, 1, "topology.hosts_per_leaf")?
        }
        TopologyKind::FatTree(f) => {
            let aggs = at_least(&f.aggs_per_pod, 1, "topology.aggs_per_pod")?;
            let cores = at_least(&f.cores, 1, "topology.cores")?;
            if cores % aggs != 0 {
                let msg = format!(
                    "{cores} cores cannot be split evenly over {aggs} aggregation switches per pod"
                );
                return Err(src.error(Some(f.cores.span()), "topology.cores", msg));
            }
            at_least(&f.pods, 1, "topology.pods")?
                * at_least(&f.tors_per_pod, 1, "topology.tors_per_pod")?
                * at_least(&f.hosts_per_tor, 1, "topology.hosts_per_tor")?
        }
        TopologyKind::KAryFatTree(k) => {
            let n = *k.k.get_ref();
            if n < 2 || n % 2 != 0 || n > 64 {
                return Err(src.error(
                    Some(k.k.span()),
                    "topology.k",
                    "k must be even, from 2 to 64",
                ));
            }
            n * n * n / 4
        }
        TopologyKind::Explicit(e) => {
            let hosts = at_least(&e.hosts, 1, "topology.hosts")?;
            let switches = *e.switches.get_ref();
            if let Some(t) = &e.switch_tiers {
                if t.get_ref().len() != switches as usize || t.get_ref().contains(&0) {
                    let msg = format!("needs {switches} tiers, one per switch, each at least 1");
                    return Err(src.error(Some(t.span()), "topology.switch_tiers", msg));
                }
            }
            for (i, l) in e.links.iter().enumerate() {
                for end in [&l.get_ref().a, &l.get_ref().b] {
                    if explicit_node(end.get_ref(), hosts, switches).is_none() {
                        let msg = format!(
                            "'{}' is not a node: hosts are h0 to h{}, switches s0 to s{}",
                            end.get_ref(),
                            hosts - 1,
                            switches.saturating_sub(1)
                        );
                        return Err(src.error(
                            Some(end.span()),
                            &format!("topology.links[{i}]"),
                            msg,
                        ));
                    }
                }
            }
            hosts
        }
    })
}

/// The node index of an explicit topology's `"hN"` or `"sM"` (hosts first).
pub(crate) fn explicit_node(name: &str, hosts: u32, switches: u32) -> Option<u32> {
    let (kind, num) = name.split_at_checked(1)?;
    let n: u32 = num.parse().ok()?;
    match kind {
        "h" if n < hosts => Some(n),
        "s" if n < switches => Some(hosts + n),
        _ => None,
    }
}

/// A workload's `stop`, if given, must come after its `start`.
fn check_stop(
    src: &Source,
    prefix: &str,
    start: SimDuration,
    stop: Option<&Spanned<SimDuration>>,
) -> Result<(), ScenarioError> {
    match stop {
        Some(t) if *t.get_ref() <= start => Err(src.error(
            Some(t.span()),
            &format!("{prefix}.stop"),
            "stop must be after start",
        )),
        _ => Ok(()),
    }
}

/// Checks that need more than one table: hosts exist, sizes are positive,
/// every run is bounded.
fn check(src: &Source, table: &DeTable, sc: &Scenario) -> Result<(), ScenarioError> {
    let hosts = topology_hosts(src, &sc.topology.kind)?;
    let host_err = |span: Range<usize>, key: &str, h: u32| {
        let msg = format!(
            "host {h} does not exist: the topology has hosts 0 to {}",
            hosts - 1
        );
        src.error(Some(span), key, msg)
    };
    let mut unbounded = None;
    let workloads = table.get("workload").and_then(|w| match w.get_ref() {
        DeValue::Array(a) => Some(a),
        _ => None,
    });
    for (i, w) in sc.workloads.iter().enumerate() {
        let p = format!("workload[{i}]");
        let prio = w.priority();
        if *prio.get_ref() >= 8 {
            let msg = format!(
                "priority {} does not exist: priorities are 0 to 7",
                prio.get_ref()
            );
            return Err(src.error(Some(prio.span()), &format!("{p}.priority"), msg));
        }
        let table_span = workloads.and_then(|a| a.get(i)).map(|v| v.span());
        match w {
            WorkloadSpec::Incast(s) => {
                let r = *s.receiver.get_ref();
                if r >= hosts {
                    return Err(host_err(s.receiver.span(), &format!("{p}.receiver"), r));
                }
                let senders = &s.senders.get_ref().0;
                if senders.is_empty() {
                    return Err(src.error(
                        Some(s.senders.span()),
                        &format!("{p}.senders"),
                        "no senders",
                    ));
                }
                for &h in senders {
                    if h >= hosts {
                        return Err(host_err(s.senders.span(), &format!("{p}.senders"), h));
                    }
                    if h == r {
                        let msg = format!("host {h} is both a sender and the receiver");
                        return Err(src.error(
                            Some(s.senders.span()),
                            &format!("{p}.senders"),
                            msg,
                        ));
                    }
                }
                if s.size.get_ref().0 == 0 {
                    return Err(src.error(
                        Some(s.size.span()),
                        &format!("{p}.size"),
                        "a flow size must be positive",
                    ));
                }
            }
            WorkloadSpec::LongFlows(s) => {
                if s.pairs.get_ref().is_empty() {
                    return Err(src.error(Some(s.pairs.span()), &format!("{p}.pairs"), "no pairs"));
                }
                for &[a, b] in s.pairs.get_ref() {
                    for h in [a, b] {
                        if h >= hosts {
                            return Err(host_err(s.pairs.span(), &format!("{p}.pairs"), h));
                        }
                    }
                    if a == b {
                        let msg = format!("pair [{a}, {b}] sends from a host to itself");
                        return Err(src.error(Some(s.pairs.span()), &format!("{p}.pairs"), msg));
                    }
                }
                if let Some(size) = &s.size {
                    if size.get_ref().0 == 0 {
                        return Err(src.error(
                            Some(size.span()),
                            &format!("{p}.size"),
                            "a flow size must be positive",
                        ));
                    }
                }
                check_stop(src, &p, s.start, s.stop.as_ref())?;
                if s.stop.is_none() && s.size.is_none() {
                    unbounded.get_or_insert((
                        table_span.clone(),
                        p.clone(),
                        "long flows with neither stop nor size",
                    ));
                }
            }
            WorkloadSpec::PoissonPackets(s) => {
                for (h, key) in [(&s.src, "src"), (&s.dst, "dst")] {
                    if *h.get_ref() >= hosts {
                        return Err(host_err(h.span(), &format!("{p}.{key}"), *h.get_ref()));
                    }
                }
                if s.src.get_ref() == s.dst.get_ref() {
                    return Err(src.error(
                        Some(s.dst.span()),
                        &format!("{p}.dst"),
                        "dst must differ from src",
                    ));
                }
                let load = *s.load.get_ref();
                if !(load > 0.0 && load < 1.0) {
                    let msg =
                        format!("load {load} is out of range: it must be above 0 and below 1");
                    return Err(src.error(Some(s.load.span()), &format!("{p}.load"), msg));
                }
                let size = s.packet_size.get_ref().0;
                if !(net::packet::UDP_IP_HEADER_BYTES as u64..=65_535).contains(&size) {
                    let msg = format!(
                        "packet_size {size}B must be between 28B (IP+UDP headers) and 65535B"
                    );
                    return Err(src.error(
                        Some(s.packet_size.span()),
                        &format!("{p}.packet_size"),
                        msg,
                    ));
                }
                check_stop(src, &p, s.start, s.stop.as_ref())?;
                if s.stop.is_none() && s.packets.is_none() {
                    unbounded.get_or_insert((
                        table_span.clone(),
                        p.clone(),
                        "a packet source with neither stop nor packets",
                    ));
                }
            }
        }
    }
    if let (Some((span, key, what)), None) = (unbounded, sc.simulation.stop_time) {
        let msg =
            format!("{what} never ends: set simulation.stop_time, or give the workload a stop");
        return Err(src.error(span, &key, msg));
    }
    if let Some(i) = &sc.output.queue_interval {
        if i.get_ref().ps() == 0 {
            return Err(src.error(Some(i.span()), "output.queue_interval", "must be positive"));
        }
    }
    if let Some(p) = &sc.output.queue_ports {
        if sc.output.queue_interval.is_none() {
            let msg = "queue_ports needs queue_interval (sampling is off without it)";
            return Err(src.error(Some(p.span()), "output.queue_ports", msg));
        }
        if let QueuePorts::TowardsHosts(hs) = p.get_ref() {
            if let Some(&h) = hs.iter().find(|&&h| h >= hosts) {
                return Err(host_err(p.span(), "output.queue_ports", h));
            }
        }
    }
    if sc.simulation.max_events == 0 {
        let span = key_span(table, &["simulation", "max_events"]);
        return Err(src.error(span, "simulation.max_events", "must be at least 1"));
    }
    Ok(())
}
