//! Reading a scenario: parse the document once with spans, apply the
//! `--set` overrides to it, then read every table: plain tables by serde,
//! tagged tables (`topology`, `switch.scheduler`, `switch.aqm`,
//! `switch.ingress`, `transport`, `[[workload]]`) through their family's
//! registry row. Every check runs on the overridden document, and every
//! error is located at the key (in the file, or in the override).

use super::Routing;
use super::error::{ScenarioError, Source};
use super::overrides;
use super::types::*;
use crate::registry::{self, Family};
use net::buffer::BufferPolicy;
use net::packet::PRIORITIES;
use net::sched::MAX_CLASSES;
use serde::de::DeserializeOwned;
use sim_core::QueueSize;
use std::ops::Range;
use std::path::Path;
use toml::Spanned;
use toml::de::{DeTable, DeValue, ValueDeserializer};

type SpannedValue<'a> = Spanned<DeValue<'a>>;

/// Reads the scenario at `path`, applies `overrides` (`KEY=VALUE`, as
/// given to `--set`) and validates the result.
pub fn load(path: &Path, overrides: &[String]) -> Result<Scenario, ScenarioError> {
    let file = path.display().to_string();
    let text = super::inputs::read_text(path)
        .map_err(|e| ScenarioError::unreadable(&file, "scenario", e))?;
    let mut sc = load_str(&file, &text, overrides)?;
    sc.inputs
        .insert(0, super::InputFile::of(path, text.as_bytes()));
    sc.name = path
        .file_stem()
        .map_or("scenario".into(), |s| s.to_string_lossy().into_owned());
    Ok(sc)
}

/// Parses and validates scenario text without overrides; `file` names it in errors.
pub fn parse_str(file: &str, text: &str) -> Result<Scenario, ScenarioError> {
    load_str(file, text, &[])
}

/// One tagged table handed to a registry row: the kind's keys (without
/// `kind`), where they are, and what the row's checks may know.
pub struct Table<'a> {
    src: &'a Source<'a>,
    span: Option<Range<usize>>,
    table: DeTable<'a>,
    prefix: String,
    ctx: LoadCtx,
}

impl<'a> Table<'a> {
    /// Deserializes the table's keys (unknown keys are errors that list the valid ones).
    pub fn read<T: DeserializeOwned>(&self) -> Result<T, ScenarioError> {
        de(
            self.src,
            self.span.clone(),
            self.table.clone(),
            &self.prefix,
        )
    }

    /// An error about `key` (relative to the table: `k_max`, `links[2].a`),
    /// located at it if it was given, else at the table.
    pub fn invalid(&self, key: &str, message: impl Into<String>) -> ScenarioError {
        let at = locate(&self.table, key).or(self.span.clone());
        self.src
            .error(at, &format!("{}.{key}", self.prefix), message)
    }

    /// What the checks may know.
    pub fn ctx(&self) -> &LoadCtx {
        &self.ctx
    }

    /// Reads a file the table names (relative to the scenario's folder),
    /// recording it among the scenario's inputs.
    pub fn read_input(&self, path: &Path) -> std::io::Result<String> {
        let text = super::inputs::read_text(path).map_err(|e| {
            let at =
                e.at.map_or(String::new(), |(l, c)| format!(" (line {l}, column {c})"));
            std::io::Error::other(format!("{}{at}", e.why))
        })?;
        self.src
            .inputs
            .borrow_mut()
            .push(super::InputFile::of(path, text.as_bytes()));
        Ok(text)
    }

    /// Takes the tagged sub-table `key` out of this table and reads it
    /// through `family`'s rows: a kind name (`cc = "dctcp"`), a table with
    /// `kind`, or, when absent, the kind `default`. Returns it and the rest
    /// of this table, to be read as usual.
    pub fn take_tagged<O>(
        &self,
        key: &str,
        family: &Family<O>,
        default: &str,
    ) -> Result<(O, Table<'a>), ScenarioError> {
        let mut rest = self.table.clone();
        let prefix = format!("{}.{key}", self.prefix);
        let kind_of = |name: Spanned<DeValue<'a>>, span: Range<usize>| {
            let mut t = DeTable::new();
            t.insert(Spanned::new(span.clone(), "kind".into()), name);
            Spanned::new(span, DeValue::Table(t))
        };
        let value = match rest.remove(key) {
            None => {
                let span = self.span.clone().unwrap_or(0..0);
                let name = Spanned::new(span.clone(), DeValue::String(default.to_string().into()));
                kind_of(name, span)
            }
            Some(v) => match v.get_ref() {
                DeValue::String(_) => {
                    let span = v.span();
                    kind_of(v, span)
                }
                DeValue::Table(_) => v,
                _ => {
                    let msg = format!(
                        "expected a kind name or a table with `kind`: one of {}",
                        family.choices()
                    );
                    return Err(self.src.error(Some(v.span()), &prefix, msg));
                }
            },
        };
        let o = pick(self.src, family, Some(&value), &prefix, self.ctx)?;
        Ok((o, self.with_keys(rest)))
    }

    /// Whether the table gives `key`.
    pub fn has(&self, key: &str) -> bool {
        self.table.contains_key(key)
    }

    /// Takes the string `key` out of this table: its value (if given) and
    /// the rest of the table. A value that is not a string is an error.
    pub fn take_str(&self, key: &str) -> Result<(Option<String>, Table<'a>), ScenarioError> {
        let mut rest = self.table.clone();
        let value = match rest.remove(key) {
            None => None,
            Some(v) => match v.get_ref() {
                DeValue::String(s) => Some(s.to_string()),
                _ => return Err(self.invalid(key, "expected a string")),
            },
        };
        Ok((value, self.with_keys(rest)))
    }

    /// This table with `keys` in place of its own (what is left of it
    /// after a key was taken out).
    fn with_keys(&self, keys: DeTable<'a>) -> Table<'a> {
        Table {
            src: self.src,
            span: self.span.clone(),
            table: keys,
            prefix: self.prefix.clone(),
            ctx: self.ctx,
        }
    }

    /// The directory of the scenario file (paths in it are relative to it).
    pub fn base_dir(&self) -> std::path::PathBuf {
        Path::new(self.src.file)
            .parent()
            .map_or_else(|| ".".into(), Path::to_path_buf)
    }
}

/// The span of the key at dotted `path` (`a.b[2].c`, the form of
/// `--set` keys) in `table`: the deepest part of the path that exists.
pub(super) fn locate(table: &DeTable, path: &str) -> Option<Range<usize>> {
    let mut table = table;
    let mut found = None;
    for step in overrides::steps(path)? {
        let (name, index) = step.parts();
        let Some(mut v) = table.get(name) else {
            break;
        };
        found = Some(v.span());
        if let (Some(i), DeValue::Array(a)) = (index, v.get_ref()) {
            let Some(e) = a.get(i) else { break };
            v = e;
            found = Some(v.span());
        }
        let DeValue::Table(t) = v.get_ref() else {
            break;
        };
        table = t;
    }
    found
}

/// Deserializes `T` from a spanned table, keeping the spans for errors.
fn de<T: DeserializeOwned>(
    src: &Source,
    span: Option<Range<usize>>,
    table: DeTable,
    prefix: &str,
) -> Result<T, ScenarioError> {
    T::deserialize(ValueDeserializer::from(Spanned::new(
        span.unwrap_or(0..0),
        DeValue::Table(table),
    )))
    .map_err(|e| src.toml_error(&e, prefix))
}

/// Reads table `t` (the value `v`) at `prefix` as keys `K` and builds
/// them; a key `build` refuses is named `prefix.key` at its place.
fn read_keys<K: DeserializeOwned, T>(
    src: &Source,
    v: &SpannedValue,
    t: &DeTable,
    prefix: &str,
    build: impl FnOnce(K) -> Result<T, (&'static str, String)>,
) -> Result<T, ScenarioError> {
    let keys: K = de(src, Some(v.span()), t.clone(), prefix)?;
    build(keys).map_err(|(key, msg)| {
        src.error(
            locate(t, key).or(Some(v.span())),
            &format!("{prefix}.{key}"),
            msg,
        )
    })
}

/// A sub-table that `false` turns off: the table with its value, `None`
/// when absent or off, an error naming `key` when it is anything else.
fn optional_table<'v, 'a>(
    src: &Source,
    v: Option<&'v SpannedValue<'a>>,
    key: &str,
    off: &str,
) -> Result<Option<(&'v SpannedValue<'a>, &'v DeTable<'a>)>, ScenarioError> {
    let Some(v) = v else {
        return Ok(None);
    };
    match v.get_ref() {
        DeValue::Boolean(false) => Ok(None),
        DeValue::Table(t) => Ok(Some((v, t))),
        _ => {
            let msg = format!("expected a table ([{key}]), or false for {off}");
            Err(src.error(Some(v.span()), key, msg))
        }
    }
}

/// Reads a tagged table through its family's rows: the row named by
/// `kind` (or the family's default when the table or its `kind` is absent).
fn pick<'a, O>(
    src: &'a Source<'a>,
    family: &Family<O>,
    value: Option<&SpannedValue<'a>>,
    prefix: &str,
    ctx: LoadCtx,
) -> Result<O, ScenarioError> {
    let kind_key = format!("{prefix}.kind");
    let (mut table, span) = match value {
        None => (DeTable::new(), None),
        Some(v) => match v.get_ref() {
            DeValue::Table(t) => (t.clone(), Some(v.span())),
            _ => return Err(src.error(Some(v.span()), prefix, "expected a table")),
        },
    };
    let kind = match (table.remove("kind"), family.default) {
        (Some(k), _) => match k.get_ref().as_str() {
            Some(name) => family.find(name).ok_or_else(|| {
                let msg = format!(
                    "unknown kind \"{name}\": valid kinds are {}",
                    family.choices()
                );
                src.error(Some(k.span()), &kind_key, msg)
            })?,
            None => {
                let msg = format!("`kind` must be a string: one of {}", family.choices());
                return Err(src.error(Some(k.span()), &kind_key, msg));
            }
        },
        (None, Some(default)) => family
            .find(default)
            .expect("a family's default is one of its rows"),
        (None, None) if value.is_none() => {
            return Err(src.error(None, prefix, format!("missing table [{prefix}]")));
        }
        (None, None) => {
            let msg = format!("missing `kind`: one of {}", family.choices());
            return Err(src.error(span, &kind_key, msg));
        }
    };
    let t = Table {
        src,
        span,
        table,
        prefix: prefix.to_string(),
        ctx,
    };
    (kind.parse)(&t)
}

/// The transports of `[transport]`: one unnamed table (named `default`,
/// also when the table is absent), or `[transport.NAME]` tables, told apart
/// by every key of `[transport]` being a table other than `cc`.
fn transports(
    src: &Source,
    value: Option<&SpannedValue>,
    ctx: LoadCtx,
) -> Result<Vec<NamedTransport>, ScenarioError> {
    let family = &registry::transport::FAMILY;
    match value.map(|v| v.get_ref()) {
        Some(DeValue::Table(t))
            if !t.is_empty()
                && t.iter().all(|(k, v)| {
                    k.get_ref() != "cc" && matches!(v.get_ref(), DeValue::Table(_))
                }) =>
        {
            t.iter()
                .map(|(name, v)| {
                    if name.get_ref().trim().is_empty() {
                        let msg = "a named transport needs a name: [transport.NAME], NAME \
                                   being what workloads give as transport = \"NAME\"";
                        return Err(src.error(Some(name.span()), "transport", msg));
                    }
                    let prefix = format!("transport.{}", name.get_ref());
                    Ok(NamedTransport {
                        name: name.get_ref().to_string(),
                        config: pick(src, family, Some(v), &prefix, ctx)?,
                    })
                })
                .collect()
        }
        _ => Ok(vec![NamedTransport {
            name: DEFAULT_TRANSPORT.into(),
            config: pick(src, family, value, "transport", ctx)?,
        }]),
    }
}

/// The name of the transport of an unnamed `[transport]`.
pub const DEFAULT_TRANSPORT: &str = "default";

/// The most threads one run may ask for (`simulation.threads`), and the
/// most LPs (`simulation.lps`).
pub const MAX_THREADS: usize = 1024;

/// Takes a workload's `transport = "NAME"` out of its table: the table
/// without it, and the key's value if given.
fn take_transport<'a>(w: &SpannedValue<'a>) -> (SpannedValue<'a>, Option<SpannedValue<'a>>) {
    let DeValue::Table(table) = w.get_ref() else {
        return (w.clone(), None);
    };
    let mut table = table.clone();
    let named = table.remove("transport");
    (Spanned::new(w.span(), DeValue::Table(table)), named)
}

/// The transport of a workload (`spec`) whose table gave `named`: a
/// workload of flows names one of `transports` (or none when there is one);
/// a packet source takes none (index 0, unused).
fn transport_of_workload(
    src: &Source,
    w_span: Range<usize>,
    prefix: &str,
    spec: &registry::workload::Spec,
    named: Option<&SpannedValue>,
    transports: &[NamedTransport],
) -> Result<u32, ScenarioError> {
    let names = || {
        transports
            .iter()
            .map(|t| format!("\"{}\"", t.name))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let key = format!("{prefix}.transport");
    match named {
        Some(v) if !spec.uses_transport() => {
            let msg = format!(
                "a {} workload sends bare packets, not flows over a transport: remove its \
                 transport",
                spec.kind()
            );
            Err(src.error(Some(v.span()), &key, msg))
        }
        None if !spec.uses_transport() || transports.len() == 1 => Ok(0),
        None => {
            let msg = format!(
                "missing `transport`: the scenario defines several, name one of {}",
                names()
            );
            Err(src.error(Some(w_span), &key, msg))
        }
        Some(v) => {
            let found = v
                .get_ref()
                .as_str()
                .and_then(|n| transports.iter().position(|t| t.name == n));
            match found {
                Some(i) => Ok(i as u32),
                None => {
                    let msg = format!("unknown transport: valid transports are {}", names());
                    Err(src.error(Some(v.span()), &key, msg))
                }
            }
        }
    }
}

/// Homa sends at `levels` priorities from a workload's own up: they must
/// exist, and PFC must be off (Homa's levels are lossy priority queues;
/// under PFC they would be its pause classes).
fn levels_fit(
    src: &Source,
    span: Option<Range<usize>>,
    prefix: &str,
    w: &registry::workload::Spec,
    family: &dyn transport::Family,
    levels: u8,
    ctx: LoadCtx,
) -> Result<(), ScenarioError> {
    let key = format!("{prefix}.transport");
    let name = family.cc_name();
    if ctx.pfc {
        let msg = format!(
            "its transport is {}, whose priority levels are lossy queues: \
             run it without switch.pfc",
            super::capitalised(name)
        );
        return Err(src.error(span, &key, msg));
    }
    let low = w.priority() as usize;
    let top = low + w.priority_span() as usize - 1 + levels as usize - 1;
    if top >= ctx.priorities {
        let msg = format!(
            "{}'s {levels} levels take priorities {low} to {top}, but {}: lower the \
             workload's priority or the transport's priorities",
            super::capitalised(name),
            if ctx.priorities < PRIORITIES {
                format!(
                    "switch.class_of_priority lists 0 to {} only",
                    ctx.priorities - 1
                )
            } else {
                format!("priorities (DSCP classes) are 0 to {}", PRIORITIES - 1)
            }
        );
        return Err(src.error(span, &key, msg));
    }
    Ok(())
}

/// Each transport family's rules against the rest of the scenario
/// ([`transport::Family::check`]), and one credit setting per run: the
/// key at fault and why.
fn check_families(sc: &Scenario) -> Result<(), (String, String)> {
    let key_of = |t: &crate::scenario::NamedTransport, key: &str| t.key(key);
    let wire = sc.topology.framing.wire();
    let credits: Vec<_> = sc
        .transports
        .iter()
        .filter_map(|t| Some((t, t.config.family_rules().credit_queues(wire)?)))
        .collect();
    if let Some((t, _)) = credits.iter().find(|(_, c)| *c != credits[0].1) {
        let msg = "the switches' credit queues are one setting per run: every ExpressPass \
                   transport must have the same credit_queue, credit_burst and mss";
        return Err((format!("transport.{}", t.name), msg.into()));
    }
    let view = sc.switch.family_view();
    for t in &sc.transports {
        t.config
            .family_rules()
            .check(&view)
            .map_err(|e| (key_of(t, e.key), e.msg))?;
    }
    Ok(())
}

/// Parses and validates scenario text with `overrides` applied.
pub fn load_str(file: &str, text: &str, overrides: &[String]) -> Result<Scenario, ScenarioError> {
    let src = Source {
        file,
        text,
        overrides,
        inputs: Default::default(),
    };
    let doc = DeTable::parse(text).map_err(|e| src.toml_error(&e, ""))?;
    let doc_span = doc.span();
    let mut root = doc.into_inner();
    for (i, o) in overrides.iter().enumerate() {
        overrides::apply(&mut root, i, o).map_err(|message| {
            let mut e = ScenarioError::whole_file(file, message);
            e.set_by = Some(o.clone());
            e.key = o
                .split_once('=')
                .map_or(o.as_str(), |(k, _)| k)
                .trim()
                .to_string();
            e
        })?;
    }
    // serde would read a struct from a list too (`simulation = [1]` as
    // seed 1): the plain tables must be tables.
    for name in ["simulation", "output"] {
        if let Some(v) = root.get(name)
            && !matches!(v.get_ref(), DeValue::Table(_))
        {
            return Err(src.error(Some(v.span()), name, "expected a table"));
        }
    }
    let base: ScenarioBase = <ScenarioBase as serde::Deserialize>::deserialize(
        toml::de::Deserializer::from(Spanned::new(doc_span, root.clone())),
    )
    .map_err(|e| src.toml_error(&e, ""))?;

    let mut ctx = LoadCtx {
        hosts: 0,
        hosts_per_rack: None,
        classes: 1,
        queue_limit: QueueSize::Packets(0),
        max_host_rate: sim_core::Bandwidth::from_bps(1),
        priorities: PRIORITIES,
        pfc: false,
    };
    let topology = topology(&src, root.get("topology"), ctx)?;
    ctx.hosts = topology.spec.size.hosts;
    ctx.hosts_per_rack = topology.spec.shape.hosts_per_rack();
    ctx.max_host_rate = topology.spec.shape.max_host_rate();

    let switch_v = root
        .get("switch")
        .ok_or_else(|| src.error(None, "switch", "missing table [switch]"))?;
    let switch = switch(&src, switch_v, &mut ctx)?;

    let mut transports = transports(&src, root.get("transport"), ctx)?;
    let view = switch.family_view();
    for t in &mut transports {
        t.config.family_rules_mut().settle(&view);
    }

    let mut workloads = Vec::new();
    let mut workload_transport = Vec::new();
    if let Some(v) = root.get("workload") {
        let DeValue::Array(items) = v.get_ref() else {
            return Err(src.error(Some(v.span()), "workload", "expected [[workload]] tables"));
        };
        for (i, w) in items.iter().enumerate() {
            let prefix = format!("workload[{i}]");
            let (w, named) = take_transport(w);
            let w = super::racks::expand(&w, ctx.hosts_per_rack, ctx.hosts).map_err(
                |(key, span, why)| src.error(Some(span), &format!("{prefix}.{key}"), why),
            )?;
            workloads.push(pick(
                &src,
                &registry::workload::FAMILY,
                Some(&w),
                &prefix,
                ctx,
            )?);
            let spec = workloads.last().expect("just pushed");
            let t =
                transport_of_workload(&src, w.span(), &prefix, spec, named.as_ref(), &transports)?;
            let family = transports[t as usize].config.family_rules();
            if let (true, Some(levels)) = (spec.uses_transport(), family.priority_levels()) {
                levels_fit(&src, Some(w.span()), &prefix, spec, family, levels, ctx)?;
            }
            workload_transport.push(t);
        }
    }

    let (routing, failures) = routing_and_failures(&src, &root, &topology)?;
    let sc = Scenario {
        name: "scenario".into(),
        simulation: base.simulation,
        topology,
        switch,
        transports,
        workloads,
        workload_transport,
        routing,
        failures,
        output: base.output,
        inputs: src.inputs.take(),
        warnings: Vec::new(),
    };
    let mut sc = sc;
    super::nodes::resolve(&mut sc)
        .map_err(|(key, msg)| src.error(locate(&root, &key), &key, msg))?;
    check(&src, &root, &sc)?;
    sc.warnings = super::warnings::located(&src, &root, super::warnings::warnings(&sc));
    Ok(sc)
}

/// Reads `[routing]` and every `[[failure]]` (the topology's graph is
/// built only when they need it: to count tiers or find cables).
fn routing_and_failures(
    src: &Source,
    root: &DeTable,
    topology: &TopologyConfig,
) -> Result<(Routing, Vec<net::LinkFault>), ScenarioError> {
    let (rv, fv) = (root.get("routing"), root.get("failure"));
    if rv.is_none() && fv.is_none() {
        return Ok((Routing::default(), Vec::new()));
    }
    let graph = topology.spec.shape.build();
    let tiers = graph
        .nodes
        .iter()
        .filter_map(|k| match k {
            net::NodeKind::Switch { tier } => Some(*tier as usize),
            net::NodeKind::Host => None,
        })
        .max()
        .unwrap_or(0);
    let routing = match rv {
        None => Routing::default(),
        Some(v) => {
            let DeValue::Table(t) = v.get_ref() else {
                return Err(src.error(Some(v.span()), "routing", "expected a table"));
            };
            read_keys(src, v, t, "routing", |k: super::paths::RoutingKeys| {
                k.build(tiers)
            })?
        }
    };
    let mut failures = Vec::new();
    if let Some(v) = fv {
        let DeValue::Array(items) = v.get_ref() else {
            return Err(src.error(Some(v.span()), "failure", "expected [[failure]] tables"));
        };
        let names = topology.spec.shape.node_names();
        let nodes = super::nodes::Nodes::new(&names, topology.spec.size.hosts);
        for (i, item) in items.iter().enumerate() {
            let prefix = format!("failure[{i}]");
            let DeValue::Table(t) = item.get_ref() else {
                return Err(src.error(Some(item.span()), &prefix, "expected a table"));
            };
            let build = |k: super::paths::FailureKeys| k.build(&nodes, &graph.cables);
            failures.push(read_keys(src, item, t, &prefix, build)?);
        }
        super::paths::check_one_cable(&failures).map_err(|(i, msg)| {
            let key = format!("failure[{i}]");
            src.error(locate(root, &key), &key, msg)
        })?;
    }
    Ok((routing, failures))
}

/// Checks that schemes that pair a flow's data and ACKs (or credits) at
/// one port run on symmetric routes, and that a link goes down only
/// where what it models holds: the key at fault and why.
fn check_paths(sc: &Scenario) -> Result<(), (String, String)> {
    check_spraying(sc)?;
    check_planes(sc)?;
    if let Some((key, what)) = sc.routing.asymmetry() {
        let key = format!("routing.{key}");
        if sc.switch.ingress.is_some() {
            let msg = format!(
                "{what} sends a flow's packets over several paths, but the [switch.ingress] \
                 plugin pairs each flow's ACKs with its data at one port: it needs per-flow \
                 ECMP without spraying"
            );
            return Err((key, msg));
        }
        if let Some(t) = sc
            .transports
            .iter()
            .find(|t| t.config.family_rules().needs_symmetric_paths())
        {
            let msg = format!(
                "{what} sends a flow's packets over several paths, but transport \"{}\" \
                 ({}) needs its data on its credits' path: it needs per-flow ECMP without \
                 spraying",
                t.name,
                t.config.family_rules().name()
            );
            return Err((key, msg));
        }
    }
    if sc.output.max_min && !sc.routing.symmetric() {
        let msg = "max_min allocates each flow its one ECMP path, but [routing] spreads flows \
                   over several: leave routing.choice at \"ecmp\" and routing.spray at \"none\"";
        return Err(("output.max_min".into(), msg.into()));
    }
    let down = sc
        .failures
        .iter()
        .position(|f| f.kind == net::FaultKind::Down);
    if let (Some(i), Some(_)) = (down, &sc.switch.pfc) {
        let msg = "a link that goes down under PFC would strand its PAUSE state, which \
                   dcnsim does not model: give `degrade`, or run without switch.pfc";
        return Err((format!("failure[{i}]"), msg.into()));
    }
    Ok(())
}

/// `switch.header_priority = true` serves header-only packets first, and
/// only a family whose control packets are headers sends them (trimming
/// makes its own): refused where no transport of the scenario would be
/// touched by it.
fn check_header_priority(sc: &Scenario) -> Result<(), (String, String)> {
    let header_only = (sc.transports.iter()).any(|t| t.config.control_is_header());
    if sc.switch.header_priority && sc.switch.trim.is_none() && !header_only {
        let msg = "true, but no transport here sends header-only packets (control packets \
                   that are headers, as UEC's and NDP's ACKs, NACKs and pulls are): it would \
                   change nothing";
        return Err(("switch.header_priority".into(), msg.into()));
    }
    Ok(())
}

/// A transport that sets its own entropy values (it sprays) against
/// `[routing] spray` and what needs one path per flow.
fn check_spraying(sc: &Scenario) -> Result<(), (String, String)> {
    let spraying = sc
        .transports
        .iter()
        .find(|t| t.config.family_rules().sprays());
    if let Some(t) = spraying {
        let key = t.key("spray");
        if sc.routing.spray != net::path_choice::Spray::None {
            let msg = format!(
                "transport \"{}\" sets its packets' entropy values itself, and [routing] spray \
                 would overwrite them: leave routing.spray at \"none\" and choose the transport's spray",
                t.name
            );
            return Err(("routing.spray".into(), msg));
        }
        if sc.switch.ingress.is_some() || sc.output.max_min {
            let what = if sc.output.max_min {
                "output.max_min allocates each flow its one ECMP path"
            } else {
                "the [switch.ingress] plugin pairs each flow's ACKs with its data at one port"
            };
            let msg = format!(
                "sprays each flow's packets over several paths, but {what}: give spray = \"none\""
            );
            return Err((key, msg));
        }
    }
    Ok(())
}

/// What a multi-plane fabric's NICs do not model.
fn check_planes(sc: &Scenario) -> Result<(), (String, String)> {
    if sc.topology.spec.shape.planes() > 1 {
        let (key, what) = if sc.switch.pfc.is_some() {
            ("switch.pfc", "PFC")
        } else if sc.switch.ingress.is_some() {
            ("switch.ingress", "an ingress plugin")
        } else {
            ("", "")
        };
        if !key.is_empty() {
            let msg = format!(
                "{what} is not modelled on a multi-plane fabric, whose hosts' NICs forward \
                 to the planes: run topology.planes = 1, or without {key}"
            );
            return Err((key.into(), msg));
        }
    }
    Ok(())
}

/// Checks that `[switch.ingress] switches` places a plugin and names each
/// switch once, by its topology name (`tor3`) or its index (`s3`): the
/// entry at fault and why.
fn check_ingress_switches(sc: &Scenario, list: &[String]) -> Result<(), (Option<usize>, String)> {
    if sc.switch.ingress.is_none() {
        let msg = "places the ingress plugin, but kind \"none\" runs none: give a kind or leave switches out";
        return Err((None, msg.into()));
    }
    let names = sc.topology.spec.shape.node_names();
    let switches = &names[sc.topology.spec.size.hosts as usize..];
    for (i, name) in list.iter().enumerate() {
        let Some(s) = switch_index(switches, name) else {
            let shown: Vec<&str> = switches.iter().take(8).map(String::as_str).collect();
            let more = if switches.len() > 8 { ", ..." } else { "" };
            let msg = format!(
                "no switch is named \"{name}\": the topology's switches are {}{more} (or s0 to s{})",
                shown.join(", "),
                switches.len().saturating_sub(1)
            );
            return Err((Some(i), msg));
        };
        if list[..i]
            .iter()
            .any(|n| switch_index(switches, n) == Some(s))
        {
            return Err((Some(i), format!("\"{name}\" is named twice")));
        }
    }
    Ok(())
}

/// The index of the switch named `name` (its topology name or `sN`).
pub fn switch_index(switches: &[String], name: &str) -> Option<usize> {
    switches.iter().position(|n| n == name).or_else(|| {
        let i: usize = name.strip_prefix('s')?.parse().ok()?;
        (i < switches.len()).then_some(i)
    })
}

/// Checks that every `queue_ports` entry names a node that exists and, for
/// a link, that the two nodes are linked: the index of the entry at fault
/// and why.
fn check_queue_ports(sc: &Scenario, list: &[PortSelector]) -> Result<(), (usize, String)> {
    let size = sc.topology.spec.size;
    let exists = |n: NodeRef| match n {
        NodeRef::Host(h) if h >= size.hosts => Err(format!(
            "host h{h} does not exist: the topology has hosts h0 to h{}",
            size.hosts - 1
        )),
        NodeRef::Switch(s) if s >= size.switches => Err(format!(
            "switch s{s} does not exist: the topology has switches s0 to s{}",
            size.switches.saturating_sub(1)
        )),
        _ => Ok(()),
    };
    let mut graph = None;
    for (i, p) in list.iter().enumerate() {
        match *p {
            PortSelector::TowardsHost(h) if h >= size.hosts => {
                let msg = format!(
                    "host {h} does not exist: the topology has hosts 0 to {}",
                    size.hosts - 1
                );
                return Err((i, msg));
            }
            PortSelector::TowardsHost(_) => {}
            PortSelector::Named(_) => unreachable!("names are read before the checks"),
            PortSelector::Switch(s) => exists(NodeRef::Switch(s)).map_err(|m| (i, m))?,
            PortSelector::Link { from, to } => {
                exists(NodeRef::Switch(from)).map_err(|m| (i, m))?;
                exists(to).map_err(|m| (i, m))?;
                let g: &net::TopologyGraph =
                    graph.get_or_insert_with(|| sc.topology.spec.shape.build());
                let a = net::NodeId(NodeRef::Switch(from).index(size.hosts));
                let b = net::NodeId(to.index(size.hosts));
                if !g
                    .cables
                    .iter()
                    .any(|c| (c.a, c.b) == (a, b) || (c.a, c.b) == (b, a))
                {
                    return Err((i, format!("s{from} and {to} are not linked")));
                }
            }
        }
    }
    Ok(())
}

fn topology(
    src: &Source,
    v: Option<&SpannedValue>,
    ctx: LoadCtx,
) -> Result<TopologyConfig, ScenarioError> {
    let v = v.ok_or_else(|| src.error(None, "topology", "missing table [topology]"))?;
    let DeValue::Table(t) = v.get_ref() else {
        return Err(src.error(Some(v.span()), "topology", "expected a table"));
    };
    let (mut common, mut rest) = (DeTable::new(), t.clone());
    for k in TOPOLOGY_COMMON_KEYS {
        if let Some((key, val)) = rest.remove_entry(*k) {
            common.insert(key, val);
        }
    }
    let common: TopologyCommon = de(src, Some(v.span()), common, "topology")?;
    let mtu = net::packet::MTU_BYTES as u64;
    if common.nic_buffer.0 < mtu {
        let msg = format!(
            "must hold at least one full packet ({mtu}B): a NIC that cannot take a segment stalls every flow"
        );
        return Err(src.error(locate(t, "nic_buffer"), "topology.nic_buffer", msg));
    }
    let rest = Spanned::new(v.span(), DeValue::Table(rest));
    let spec = pick(
        src,
        &registry::topology::FAMILY,
        Some(&rest),
        "topology",
        ctx,
    )?;
    Ok(TopologyConfig {
        spec,
        framing: common.framing,
        nic_buffer: common.nic_buffer,
    })
}

fn switch(
    src: &Source,
    v: &SpannedValue,
    ctx: &mut LoadCtx,
) -> Result<SwitchConfig, ScenarioError> {
    let DeValue::Table(t) = v.get_ref() else {
        return Err(src.error(Some(v.span()), "switch", "expected a table"));
    };
    let base: SwitchBase = de(src, Some(v.span()), t.clone(), "switch")?;
    let at = |key: &str| locate(t, key).or(Some(v.span()));
    let err = |key: &str, msg: String| src.error(at(key), &format!("switch.{key}"), msg);
    let classes = base.classes as usize;
    if !(1..=MAX_CLASSES).contains(&classes) {
        return Err(err(
            "classes",
            format!("{classes} classes: a port has 1 to {MAX_CLASSES} class queues"),
        ));
    }
    // Default: priority p goes to class p, the last class taking the rest.
    let mut class_of_priority = std::array::from_fn(|p| p.min(classes - 1) as u8);
    if let Some(m) = &base.class_of_priority {
        if m.is_empty() || m.len() > PRIORITIES {
            return Err(err(
                "class_of_priority",
                format!(
                    "lists the class of priorities 0, 1, ...: 1 to {PRIORITIES} entries (has {})",
                    m.len()
                ),
            ));
        }
        if let Some(c) = m.iter().find(|&&c| c as usize >= classes) {
            return Err(err(
                "class_of_priority",
                format!("class {c} does not exist: classes are 0 to {}", classes - 1),
            ));
        }
        class_of_priority[..m.len()].copy_from_slice(m);
        ctx.priorities = m.len();
    }
    let buffer = match (base.buffer, base.shared_buffer) {
        (Some(b), None) => {
            if base.dt_alpha.is_some() {
                return Err(err(
                    "dt_alpha",
                    "dt_alpha applies to a shared_buffer, not to per-port buffers".into(),
                ));
            }
            let mtu = net::packet::MTU_BYTES as u64;
            if b.amount() < if b.is_bytes() { mtu } else { 1 } {
                return Err(err(
                    "buffer",
                    format!("must hold at least one full packet: 1pkt or {mtu}B"),
                ));
            }
            BufferPolicy::PerPort(b)
        }
        (None, Some(sb)) => {
            let dt_alpha = base.dt_alpha.unwrap_or(1.0);
            if !(dt_alpha > 0.0 && dt_alpha.is_finite()) {
                return Err(err(
                    "dt_alpha",
                    "must be a positive number (e.g. 1, 0.5, 2)".into(),
                ));
            }
            if sb.0 < net::packet::MTU_BYTES as u64 {
                return Err(err(
                    "shared_buffer",
                    "must hold at least one 1500B packet".into(),
                ));
            }
            BufferPolicy::Shared {
                bytes: sb.0,
                dt_alpha,
            }
        }
        (Some(_), Some(_)) => {
            return Err(err(
                "shared_buffer",
                "give either `buffer` (per port) or `shared_buffer` (per switch), not both".into(),
            ));
        }
        (None, None) => {
            return Err(src.error(
                Some(v.span()),
                "switch.buffer",
                "missing `buffer` (per-port limit, e.g. \"300pkt\") or `shared_buffer` (per switch, e.g. \"9MB\")",
            ));
        }
    };
    // `pfc = false`: explicitly off (a sweep case that runs a lossy
    // transport on a lossless base replaces the table with it).
    let pfc = match optional_table(src, t.get("pfc"), "switch.pfc", "no PFC")? {
        None => None,
        Some((pv, pt)) => {
            let cfg = read_keys(src, pv, pt, "switch.pfc", |k: super::pfc::PfcKeys| {
                k.build()
            })?;
            if !matches!(buffer, BufferPolicy::Shared { .. }) {
                return Err(src.error(
                    Some(pv.span()),
                    "switch.pfc",
                    "PFC needs one buffer shared by each switch's ports: give `shared_buffer` \
                     (e.g. \"1MiB\") instead of `buffer`",
                ));
            }
            Some(cfg)
        }
    };
    let trim = match optional_table(src, t.get("trim"), "switch.trim", "no trimming")? {
        None => None,
        Some((tv, tt)) => {
            let cfg = read_keys(src, tv, tt, "switch.trim", |k: super::trim::TrimKeys| {
                k.build()
            })?;
            if pfc.is_some() {
                let msg = "trimming stands in for a drop, and PFC keeps lossless classes from \
                           dropping: run one or the other";
                return Err(src.error(Some(tv.span()), "switch.trim", msg));
            }
            Some(cfg)
        }
    };
    let header_priority = match (base.header_priority, &trim, &pfc) {
        (Some(false), Some(_), _) => {
            let msg = "false with [switch.trim]: trimming always serves its headers ahead of \
                       the data (drop the key, or [switch.trim] to queue them with it)";
            return Err(err("header_priority", msg.into()));
        }
        (Some(true), None, Some(_)) => {
            let msg = "true with [switch.pfc]: a full header queue drops, which a lossless \
                       class may not (run one or the other)";
            return Err(err("header_priority", msg.into()));
        }
        (given, _, _) => given.unwrap_or(false),
    };
    ctx.classes = classes;
    ctx.queue_limit = queue_limit(buffer);
    ctx.pfc = pfc.is_some();
    let ctx = *ctx;
    let (ingress, ingress_switches) = take_ingress_switches(src, t.get("ingress"))?;
    Ok(SwitchConfig {
        pfc,
        trim,
        header_priority,
        buffer,
        classes,
        class_of_priority,
        scheduler: pick(
            src,
            &registry::scheduler::FAMILY,
            t.get("scheduler"),
            "switch.scheduler",
            ctx,
        )?,
        aqm: pick(src, &registry::aqm::FAMILY, t.get("aqm"), "switch.aqm", ctx)?,
        ingress: pick(
            src,
            &registry::ingress::FAMILY,
            ingress.as_ref(),
            "switch.ingress",
            ctx,
        )?,
        ingress_switches,
    })
}

/// Takes `switches` (the switches an ingress plugin runs at) out of the
/// `[switch.ingress]` table, which the plugin's own keys then fill alone.
fn take_ingress_switches<'a>(
    src: &Source,
    value: Option<&SpannedValue<'a>>,
) -> Result<(Option<SpannedValue<'a>>, Option<Vec<String>>), ScenarioError> {
    let Some(v) = value else {
        return Ok((None, None));
    };
    let DeValue::Table(t) = v.get_ref() else {
        return Ok((Some(v.clone()), None));
    };
    let mut rest = t.clone();
    let Some(list) = rest.remove("switches") else {
        return Ok((Some(v.clone()), None));
    };
    let key = "switch.ingress.switches";
    let expected = "expected a list of switch names, e.g. [\"tor3\"]";
    let DeValue::Array(items) = list.get_ref() else {
        return Err(src.error(Some(list.span()), key, expected));
    };
    let mut names = Vec::with_capacity(items.len());
    for item in items.iter() {
        match item.get_ref() {
            DeValue::String(n) => names.push(n.to_string()),
            _ => return Err(src.error(Some(item.span()), key, expected)),
        }
    }
    if names.is_empty() {
        return Err(src.error(
            Some(list.span()),
            key,
            "names no switch: leave it out to run the plugin at every switch",
        ));
    }
    Ok((
        Some(Spanned::new(v.span(), DeValue::Table(rest))),
        Some(names),
    ))
}

/// Checks that need more than one table: every run is bounded, the output
/// keys fit the topology.
/// The sampled series and the flow lists of `[output]`: intervals of at
/// least 1 ns, lists of flows that exist, a list only with its series.
fn check_series(sc: &Scenario) -> Result<(), (&'static str, String)> {
    let min = crate::report::volume::MIN_SAMPLE_INTERVAL_PS;
    let cc_trace = sc.output.cc_trace.as_ref();
    if cc_trace.is_some_and(|c| c.flows.is_empty()) {
        return Err(("output.cc_trace.flows", "name at least one flow".into()));
    }
    for (key, interval) in [
        ("output.queue_interval", sc.output.queue_interval),
        ("output.goodput_interval", sc.output.goodput_interval),
        ("output.rtt_interval", sc.output.rtt_interval),
        ("output.link_interval", sc.output.link_interval),
        ("output.cc_trace.interval", cc_trace.map(|c| c.interval)),
    ] {
        if interval.is_some_and(|i| i.ps() < min) {
            let msg = "must be at least 1ns (the sampled rows a run may write are bounded too)";
            return Err((key, msg.into()));
        }
    }
    if sc.output.queue_from.is_some() && sc.output.queue_interval.is_none() {
        let msg = "queue_from reads the queue samples: give queue_interval too (sampling is off without it)";
        return Err(("output.queue_from", msg.into()));
    }
    if sc.output.goodput_flows.is_some() && sc.output.goodput_interval.is_none() {
        let msg = "goodput_flows needs goodput_interval (the series is off without it)";
        return Err(("output.goodput_flows", msg.into()));
    }
    let traced = cc_trace.map(|c| c.flows.clone());
    let logged = sc.output.events.as_ref().and_then(|e| e.flows.clone());
    let lists = [
        ("output.goodput_flows", &sc.output.goodput_flows),
        ("output.jain_flows", &sc.output.jain_flows),
        ("output.cc_trace.flows", &traced),
        ("output.events.flows", &logged),
    ];
    if lists.iter().any(|l| l.1.is_some()) {
        let flows: usize = crate::registry::workload::plan_all(sc, sc.simulation.seed)
            .iter()
            .map(|p| p.plan.flows.len())
            .sum();
        for (key, list) in lists {
            let Some(list) = list else { continue };
            if let Some(&bad) = list.iter().find(|&&f| f as usize >= flows) {
                let msg = format!(
                    "flow {bad} does not exist: the scenario's workloads make {flows} flows (ids 0 to {})",
                    flows.saturating_sub(1)
                );
                return Err((key, msg));
            }
        }
    }
    Ok(())
}

/// The captures and the event log of `[output]`: ports that exist, a
/// snap length in range, no empty list.
fn check_observers(src: &Source, root: &DeTable, sc: &Scenario) -> Result<(), ScenarioError> {
    let err = |key: &str, msg: String| src.error(locate(root, key), key, msg);
    if let Some(pcap) = &sc.output.pcap {
        use crate::observe::pcap::{MAX_SNAPLEN, MIN_SNAPLEN};
        if pcap.ports.is_empty() {
            let msg = "names no port: list the ports to capture, as ports.csv names them, e.g. [\"tor0->host3\"]";
            return Err(err("output.pcap.ports", msg.into()));
        }
        if !(MIN_SNAPLEN..=MAX_SNAPLEN).contains(&pcap.snaplen) {
            let msg = format!(
                "must be {MIN_SNAPLEN} to {MAX_SNAPLEN} bytes (the headers take up to 128), got {}",
                pcap.snaplen
            );
            return Err(err("output.pcap.snaplen", msg));
        }
    }
    if let Some(ev) = &sc.output.events {
        if ev.ports.as_ref().is_some_and(Vec::is_empty) {
            let msg = "an empty list logs nothing: name ports, or leave ports out for every port";
            return Err(err("output.events.ports", msg.into()));
        }
        for (key, empty) in [
            (
                "output.events.flows",
                ev.flows.as_ref().is_some_and(Vec::is_empty),
            ),
            (
                "output.events.kinds",
                ev.kinds.as_ref().is_some_and(Vec::is_empty),
            ),
        ] {
            if empty {
                let msg = "an empty list logs nothing: name some, or leave the key out for all";
                return Err(err(key, msg.into()));
            }
        }
    }
    Ok(())
}

fn check(src: &Source, root: &DeTable, sc: &Scenario) -> Result<(), ScenarioError> {
    let err = |key: &str, msg: String| src.error(locate(root, key), key, msg);
    check_workloads(sc).map_err(|(key, msg)| err(&key, msg))?;
    check_series(sc).map_err(|(key, msg)| err(key, msg))?;
    check_families(sc).map_err(|(key, msg)| err(&key, msg))?;
    check_header_priority(sc).map_err(|(key, msg)| err(&key, msg))?;
    super::sizes::check_sizes(sc).map_err(|(key, msg)| err(&key, msg))?;
    super::sizes::check_pfc_pools(sc).map_err(|msg| err("switch.shared_buffer", msg))?;
    check_paths(sc).map_err(|(key, msg)| err(&key, msg))?;
    let edges = &sc.output.size_buckets;
    if edges.first().is_some_and(|b| b.0 == 0) || edges.windows(2).any(|w| w[0] >= w[1]) {
        let msg = "bucket edges must be positive and increasing, e.g. [\"100KB\", \"10MB\"]";
        return Err(err("output.size_buckets", msg.into()));
    }
    if let Some(list) = &sc.switch.ingress_switches {
        check_ingress_switches(sc, list).map_err(|(i, msg)| {
            let key = match i {
                Some(i) => format!("switch.ingress.switches[{i}]"),
                None => "switch.ingress.switches".into(),
            };
            err(&key, msg)
        })?;
    }
    if let Some(p) = &sc.output.queue_ports {
        if sc.output.queue_interval.is_none() {
            return Err(err(
                "output.queue_ports",
                "queue_ports needs queue_interval (sampling is off without it)".into(),
            ));
        }
        if let QueuePorts::List(list) = p {
            check_queue_ports(sc, list).map_err(|(i, msg)| {
                let key = format!("output.queue_ports[{i}]");
                src.error(locate(root, &key), &key, msg)
            })?;
        }
    }
    check_observers(src, root, sc)?;
    if sc
        .output
        .dir
        .as_deref()
        .is_some_and(|d| d.trim().is_empty())
    {
        return Err(err(
            "output.dir",
            "must name a folder (absent: results/<scenario name>)".into(),
        ));
    }
    let lps_given = root
        .get("simulation")
        .and_then(|v| v.get_ref().as_table())
        .is_some_and(|t| t.contains_key("lps"));
    check_simulation(&sc.simulation, lps_given).map_err(|(key, why)| err(key, why))
}

/// A scenario has workloads, and one that never ends has a stop time:
/// the key at fault and why.
fn check_workloads(sc: &Scenario) -> Result<(), (String, String)> {
    if sc.workloads.is_empty() {
        let msg = "the scenario has no [[workload]]: a run of it would carry nothing and \
                   report \"completed\"; give at least one";
        return Err(("workload".into(), msg.into()));
    }
    let endless = sc
        .workloads
        .iter()
        .enumerate()
        .find_map(|(i, w)| w.endless().map(|what| (i, what)));
    if let (Some((i, what)), None) = (endless, sc.simulation.stop_time) {
        let msg =
            format!("{what} never ends: set simulation.stop_time, or give the workload a stop");
        return Err((format!("workload[{i}]"), msg));
    }
    Ok(())
}

/// `[simulation]`'s bounds: the key and why, if one is out of them.
/// `lps_given`: the file or an override gives `lps`.
fn check_simulation(
    sim: &super::SimulationConfig,
    lps_given: bool,
) -> Result<(), (&'static str, String)> {
    if sim
        .stop_time
        .is_some_and(|t| t == sim_core::SimDuration::MAX)
    {
        let why = "must be below 2^64 - 1 ps (about 213 days)";
        return Err(("simulation.stop_time", why.into()));
    }
    if sim.threads.is_some_and(|t| !(1..=MAX_THREADS).contains(&t)) {
        return Err(("simulation.threads", format!("must be 1 to {MAX_THREADS}")));
    }
    if !(1..=MAX_THREADS as u32).contains(&sim.lps) {
        return Err(("simulation.lps", format!("must be 1 to {MAX_THREADS}")));
    }
    if sim.max_events == 0 {
        return Err(("simulation.max_events", "must be at least 1".into()));
    }
    // A key only a mode reads is refused without it (as credit_packets
    // is without rccc): `lps` bounds a cut, and "none" makes none.
    if lps_given && sim.partition == Cut::None {
        let msg = "bounds how many LPs a cut makes, and partition = \"none\" makes none: leave \
                   it out, or set partition = \"pods\" or \"auto\"";
        return Err(("simulation.lps", msg.into()));
    }
    Ok(())
}
