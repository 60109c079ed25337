//! `[transport]` tables and each workload's transport: read through the
//! transport family's registry row, numbered in first-use order, and
//! checked against the rest of the scenario (a family's own rules, Homa's
//! priority levels).

use super::error::{ScenarioError, Source};
use super::load::{SpannedValue, pick};
use super::types::*;
use crate::registry::{self};
use net::packet::PRIORITIES;
use std::ops::Range;
use toml::Spanned;
use toml::de::DeValue;

/// The transports of `[transport]`: one unnamed table (named `default`,
/// also when the table is absent), or `[transport.NAME]` tables, told apart
/// by every key of `[transport]` being a table other than `cc`.
pub(super) fn transports(
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

/// Takes a workload's `transport = "NAME"` out of its table: the table
/// without it, and the key's value if given.
pub(super) fn take_transport<'a>(
    w: &SpannedValue<'a>,
) -> (SpannedValue<'a>, Option<SpannedValue<'a>>) {
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
pub(super) fn transport_of_workload(
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
pub(super) fn levels_fit(
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
pub(super) fn check_families(sc: &Scenario) -> Result<(), (String, String)> {
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
