//! Reading a scenario: parse the document once with spans, apply the
//! `--set` overrides to it, then read every table: plain tables by serde,
//! tagged tables (`topology`, `switch.scheduler`, `switch.aqm`,
//! `switch.ingress`, `transport`, `[[workload]]`) through their family's
//! registry row. Every check runs on the overridden document, and every
//! error is located at the key (in the file, or in the override).

use super::Routing;
use super::checks::check;
use super::error::{ScenarioError, Source};
use super::overrides;
use super::read_transport::{levels_fit, take_transport, transport_of_workload, transports};
use super::types::*;
use crate::registry::{self, Family};
use net::packet::PRIORITIES;
use serde::de::DeserializeOwned;
use sim_core::QueueSize;
use std::ops::Range;
use std::path::Path;
use toml::Spanned;
use toml::de::{DeTable, DeValue, ValueDeserializer};

pub(super) type SpannedValue<'a> = Spanned<DeValue<'a>>;

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

    /// Reads a binary file the table names (relative to the scenario's
    /// folder), recording it among the scenario's inputs.
    pub fn read_input_bytes(&self, path: &Path) -> std::io::Result<Vec<u8>> {
        let bytes = super::inputs::read_bytes(path).map_err(std::io::Error::other)?;
        self.src
            .inputs
            .borrow_mut()
            .push(super::InputFile::of(path, &bytes));
        Ok(bytes)
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
pub(super) fn de<T: DeserializeOwned>(
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
pub(super) fn read_keys<K: DeserializeOwned, T>(
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
pub(super) fn optional_table<'v, 'a>(
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
pub(super) fn pick<'a, O>(
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
        gpus_per_server: 1,
        classes: 1,
        queue_limit: QueueSize::Packets(0),
        max_host_rate: sim_core::Bandwidth::from_bps(1),
        priorities: PRIORITIES,
        pfc: false,
    };
    let topology = topology(&src, root.get("topology"), ctx)?;
    ctx.hosts = topology.spec.size.hosts;
    ctx.hosts_per_rack = topology.spec.shape.hosts_per_rack();
    ctx.gpus_per_server = topology.spec.shape.gpus_per_server();
    ctx.max_host_rate = topology.spec.shape.max_host_rate();

    let switch_v = root
        .get("switch")
        .ok_or_else(|| src.error(None, "switch", "missing table [switch]"))?;
    let switch = super::read_switch::switch(&src, switch_v, &mut ctx)?;

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
