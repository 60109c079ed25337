//! `"racks A-B"` in a workload's host keys (`hosts`, `senders`,
//! `receivers`): the hosts under ToRs A to B, which only the topology
//! knows (hosts are numbered ToR by ToR). The loader turns each such
//! string into host ranges before the workload reads its keys, so that a
//! job "on racks 0-3" or "one rack in two" (`"racks 0-15/2"`) needs no
//! list of host numbers.

use std::borrow::Cow;
use toml::Spanned;
use toml::de::DeValue;

type SpannedValue<'a> = Spanned<DeValue<'a>>;

/// The keys whose values are host sets.
const HOST_KEYS: [&str; 3] = ["hosts", "senders", "receivers"];

/// `w` (a `[[workload]]` table) with every rack string of its host keys
/// replaced by host ranges; or the key, its span and why not.
pub(super) fn expand<'a>(
    w: &SpannedValue<'a>,
    hosts_per_rack: Option<u32>,
    hosts: u32,
) -> Result<SpannedValue<'a>, (String, std::ops::Range<usize>, String)> {
    let DeValue::Table(table) = w.get_ref() else {
        return Ok(w.clone());
    };
    let mut table = table.clone();
    for key in HOST_KEYS {
        let Some(v) = table.get_mut(key) else {
            continue;
        };
        let span = v.span();
        let fail = |why: String| (key.to_string(), span.clone(), why);
        let new = match v.get_ref() {
            DeValue::String(s) if is_racks(s) => {
                let ranges = ranges_of(s, hosts_per_rack, hosts).map_err(fail)?;
                Some(DeValue::Array(
                    ranges
                        .into_iter()
                        .map(|r| Spanned::new(span.clone(), DeValue::String(Cow::Owned(r))))
                        .collect(),
                ))
            }
            DeValue::Array(items)
                if items
                    .iter()
                    .any(|i| matches!(i.get_ref(), DeValue::String(s) if is_racks(s))) =>
            {
                let mut out = Vec::new();
                for item in items {
                    match item.get_ref() {
                        DeValue::String(s) if is_racks(s) => {
                            for r in ranges_of(s, hosts_per_rack, hosts).map_err(fail)? {
                                out.push(Spanned::new(item.span(), DeValue::String(Cow::Owned(r))));
                            }
                        }
                        _ => out.push(item.clone()),
                    }
                }
                Some(DeValue::Array(out.into_iter().collect()))
            }
            _ => None,
        };
        if let Some(new) = new {
            *v = Spanned::new(span, new);
        }
    }
    Ok(Spanned::new(w.span(), DeValue::Table(table)))
}

fn is_racks(s: &str) -> bool {
    s.trim_start().starts_with("rack")
}

/// `"rack R"`, `"racks A-B"` or `"racks A-B/S"` as host ranges
/// (`"FIRST-LAST"`, one per rack named).
fn ranges_of(s: &str, hosts_per_rack: Option<u32>, hosts: u32) -> Result<Vec<String>, String> {
    let Some(per) = hosts_per_rack.filter(|&p| p > 0) else {
        return Err(format!(
            "'{s}': this topology has no racks of equal size (leaf-spine, fat-tree and \
             k-ary-fat-tree have): name the hosts"
        ));
    };
    let racks = hosts / per;
    let bad = || {
        format!("'{s}' is not a rack set: expected \"rack R\", \"racks A-B\" or \"racks A-B/STEP\"")
    };
    let rest = s.trim();
    let rest = rest
        .strip_prefix("racks")
        .or_else(|| rest.strip_prefix("rack"))
        .ok_or_else(bad)?
        .trim();
    let (range, step) = match rest.split_once('/') {
        Some((r, st)) => (r, st.trim().parse::<u32>().map_err(|_| bad())?),
        None => (rest, 1),
    };
    let (first, last) = match range.split_once('-') {
        Some((a, b)) => (
            a.trim().parse::<u32>().map_err(|_| bad())?,
            b.trim().parse::<u32>().map_err(|_| bad())?,
        ),
        None => {
            let r = range.parse::<u32>().map_err(|_| bad())?;
            (r, r)
        }
    };
    if first > last || step == 0 {
        return Err(bad());
    }
    if last >= racks {
        return Err(format!(
            "'{s}': rack {last} does not exist: the topology has racks 0 to {} ({per} hosts each)",
            racks - 1
        ));
    }
    Ok((first..=last)
        .step_by(step as usize)
        .map(|r| format!("{}-{}", r * per, r * per + per - 1))
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn racks_become_the_host_ranges_under_them() {
        let r = |s: &str| ranges_of(s, Some(4), 128);
        assert_eq!(r("rack 2").unwrap(), ["8-11"]);
        assert_eq!(r("racks 0-1").unwrap(), ["0-3", "4-7"]);
        assert_eq!(r("racks 0-7/4").unwrap(), ["0-3", "16-19"]);
        assert!(r("racks 30-32").unwrap_err().contains("racks 0 to 31"));
        assert!(r("racks two").unwrap_err().contains("not a rack set"));
        assert!(
            ranges_of("rack 0", None, 8)
                .unwrap_err()
                .contains("no racks")
        );
    }
}
