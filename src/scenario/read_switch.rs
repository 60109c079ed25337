//! `[switch]`: its classes and their priorities, its buffer policy, PFC
//! or trimming, header priority, and the scheduler, AQM and ingress plugin
//! its registry rows read; each step a function that refuses a bad value
//! at its key.

use super::error::{ScenarioError, Source};
use super::load::{SpannedValue, de, locate, optional_table, pick, read_keys};
use super::types::*;
use crate::registry;
use net::buffer::BufferPolicy;
use net::packet::PRIORITIES;
use net::sched::MAX_CLASSES;
use toml::Spanned;
use toml::de::{DeTable, DeValue};

/// The `[switch]` table being read: errors are located at its keys.
struct At<'s, 'a> {
    src: &'s Source<'s>,
    v: &'s SpannedValue<'a>,
    t: &'s DeTable<'a>,
}

impl At<'_, '_> {
    /// An error at `switch.KEY` (the table itself where the key is absent).
    fn err(&self, key: &str, msg: impl Into<String>) -> ScenarioError {
        let at = locate(self.t, key).or(Some(self.v.span()));
        self.src.error(at, &format!("switch.{key}"), msg.into())
    }
}

/// Reads `[switch]`, noting in `ctx` what later tables check against.
pub(super) fn switch(
    src: &Source,
    v: &SpannedValue,
    ctx: &mut LoadCtx,
) -> Result<SwitchConfig, ScenarioError> {
    let DeValue::Table(t) = v.get_ref() else {
        return Err(src.error(Some(v.span()), "switch", "expected a table"));
    };
    let base: SwitchBase = de(src, Some(v.span()), t.clone(), "switch")?;
    let at = At { src, v, t };
    let classes = base.classes as usize;
    if !(1..=MAX_CLASSES).contains(&classes) {
        let msg = format!("{classes} classes: a port has 1 to {MAX_CLASSES} class queues");
        return Err(at.err("classes", msg));
    }
    let class_of_priority = class_of_priority(&at, &base, classes, ctx)?;
    let buffer = buffer_policy(&at, &base)?;
    let pfc = pfc(&at, &buffer)?;
    let trim = trim(&at, pfc.is_some())?;
    let header_priority = header_priority(&at, &base, trim.is_some(), pfc.is_some())?;
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

/// Each priority's class: `class_of_priority` where given (its length is
/// then the run's priority count), else priority p to class p, the last
/// class taking the rest.
fn class_of_priority(
    at: &At,
    base: &SwitchBase,
    classes: usize,
    ctx: &mut LoadCtx,
) -> Result<[u8; PRIORITIES], ScenarioError> {
    let mut class_of_priority = std::array::from_fn(|p| p.min(classes - 1) as u8);
    let Some(m) = &base.class_of_priority else {
        return Ok(class_of_priority);
    };
    if m.is_empty() || m.len() > PRIORITIES {
        let msg = format!(
            "lists the class of priorities 0, 1, ...: 1 to {PRIORITIES} entries (has {})",
            m.len()
        );
        return Err(at.err("class_of_priority", msg));
    }
    if let Some(c) = m.iter().find(|&&c| c as usize >= classes) {
        let msg = format!("class {c} does not exist: classes are 0 to {}", classes - 1);
        return Err(at.err("class_of_priority", msg));
    }
    class_of_priority[..m.len()].copy_from_slice(m);
    ctx.priorities = m.len();
    Ok(class_of_priority)
}

/// A per-port `buffer` or a per-switch `shared_buffer` (with its
/// `dt_alpha`), each holding at least one full packet; exactly one.
fn buffer_policy(at: &At, base: &SwitchBase) -> Result<BufferPolicy, ScenarioError> {
    let mtu = net::packet::MTU_BYTES as u64;
    match (base.buffer, base.shared_buffer) {
        (Some(b), None) => {
            if base.dt_alpha.is_some() {
                let msg = "dt_alpha applies to a shared_buffer, not to per-port buffers";
                return Err(at.err("dt_alpha", msg));
            }
            if b.amount() < if b.is_bytes() { mtu } else { 1 } {
                let msg = format!("must hold at least one full packet: 1pkt or {mtu}B");
                return Err(at.err("buffer", msg));
            }
            Ok(BufferPolicy::PerPort(b))
        }
        (None, Some(sb)) => {
            let dt_alpha = base.dt_alpha.unwrap_or(1.0);
            if !(dt_alpha > 0.0 && dt_alpha.is_finite()) {
                return Err(at.err("dt_alpha", "must be a positive number (e.g. 1, 0.5, 2)"));
            }
            if sb.0 < mtu {
                return Err(at.err("shared_buffer", "must hold at least one 1500B packet"));
            }
            Ok(BufferPolicy::Shared {
                bytes: sb.0,
                dt_alpha,
            })
        }
        (Some(_), Some(_)) => {
            let msg =
                "give either `buffer` (per port) or `shared_buffer` (per switch), not both";
            Err(at.err("shared_buffer", msg))
        }
        (None, None) => Err(at.src.error(
            Some(at.v.span()),
            "switch.buffer",
            "missing `buffer` (per-port limit, e.g. \"300pkt\") or `shared_buffer` (per switch, e.g. \"9MB\")",
        )),
    }
}

/// `[switch.pfc]`, which needs a shared buffer; `pfc = false` is
/// explicitly off (a sweep case that runs a lossy transport on a lossless
/// base replaces the table with it).
fn pfc(at: &At, buffer: &BufferPolicy) -> Result<Option<net::pfc::PfcConfig>, ScenarioError> {
    let src = at.src;
    let Some((pv, pt)) = optional_table(src, at.t.get("pfc"), "switch.pfc", "no PFC")? else {
        return Ok(None);
    };
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
    Ok(Some(cfg))
}

/// `[switch.trim]`, which PFC excludes.
fn trim(at: &At, pfc: bool) -> Result<Option<net::TrimConfig>, ScenarioError> {
    let src = at.src;
    let Some((tv, tt)) = optional_table(src, at.t.get("trim"), "switch.trim", "no trimming")?
    else {
        return Ok(None);
    };
    let cfg = read_keys(src, tv, tt, "switch.trim", |k: super::trim::TrimKeys| {
        k.build()
    })?;
    if pfc {
        let msg = "trimming stands in for a drop, and PFC keeps lossless classes from \
                   dropping: run one or the other";
        return Err(src.error(Some(tv.span()), "switch.trim", msg));
    }
    Ok(Some(cfg))
}

/// `header_priority`: always on under trimming, never under PFC.
fn header_priority(
    at: &At,
    base: &SwitchBase,
    trim: bool,
    pfc: bool,
) -> Result<bool, ScenarioError> {
    match (base.header_priority, trim, pfc) {
        (Some(false), true, _) => {
            let msg = "false with [switch.trim]: trimming always serves its headers ahead of \
                       the data (drop the key, or [switch.trim] to queue them with it)";
            Err(at.err("header_priority", msg))
        }
        (Some(true), false, true) => {
            let msg = "true with [switch.pfc]: a full header queue drops, which a lossless \
                       class may not (run one or the other)";
            Err(at.err("header_priority", msg))
        }
        (given, _, _) => Ok(given.unwrap_or(false)),
    }
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
