//! Node image selection of Azure update runs (rollout.md A.5, R-AZ-50 … R-AZ-52).
use crate::sorted_map::{SortedMap, SortedSet};
use serde::{Deserialize, Serialize};

/// `nodeImageSelection.type`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
pub enum NodeImageSelection {
    /// Newest image of the pool's type in the pool's region (R-AZ-50).
    Latest,
    /// Latest version common to every region hosting the image type, frozen at run start (R-AZ-51).
    Consistent,
}

/// `region → imageType → versions`.
pub type ImageCatalogue = SortedMap<String, SortedMap<String, Vec<String>>>;

/// A node pool as the selection sees it.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PoolView {
    /// Pool name.
    pub name: String,
    /// Image type (`AKSUbuntu-2204gen2containerd`).
    pub image_type: String,
    /// Current image version (`202405.03.0`).
    pub current: String,
}

/// A member and its pools.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct MemberPools {
    /// Member name.
    pub name: String,
    /// Azure region.
    pub region: String,
    /// Node pools.
    pub node_pools: Vec<PoolView>,
}

/// Why a pool does not move.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum PoolSkipReason {
    /// Already on the selected image.
    AlreadyAtSelectedImage,
    /// Consistent: no version common to all regions of the image type.
    NoCommonImage,
    /// Latest: the region lists no image of this type.
    NoImageInRegion,
    /// The pool is on a newer image than the selected one; images are never downgraded.
    NewerThanSelectedImage,
}

/// What happens to one pool.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "action", rename_all = "camelCase")]
pub enum PoolAction {
    /// Moves to `to`.
    Upgrade {
        /// Target image version.
        to: String,
    },
    /// Stays.
    Skip {
        /// Why.
        reason: PoolSkipReason,
    },
}

/// The selection for a set of members.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ImageSelectionResult {
    /// Consistent: the version picked per image type (`None` = no common version).
    pub selected: SortedMap<String, Option<String>>,
    /// `"member/pool" → action`.
    pub pools: SortedMap<String, PoolAction>,
    /// Members with at least one pool to move.
    pub members_upgrading: SortedSet<String>,
}

/// Image versions sort as opaque strings within one image type (R-AZ-52 note, ASSUME).
fn newest<'a>(versions: impl Iterator<Item = &'a String>) -> Option<&'a String> {
    versions.max()
}

/// Selects images for every pool of `members` (R-AZ-50/51).
pub fn select(
    selection: NodeImageSelection,
    catalogue: &ImageCatalogue,
    members: &[MemberPools],
) -> ImageSelectionResult {
    let mut selected: SortedMap<String, Option<String>> = SortedMap::new();
    if selection == NodeImageSelection::Consistent {
        let regions_of = SortedMap::grouped(
            members
                .iter()
                .flat_map(|m| {
                    m.node_pools
                        .iter()
                        .map(|p| (p.image_type.as_str(), &m.region))
                })
                .collect(),
        );
        for (image_type, regions) in regions_of {
            // The versions listed in every region of the image type (a region repeated or
            // in any order intersects the same; the newest is picked).
            let mut common: Option<Vec<&String>> = None;
            for region in regions {
                let versions = catalogue
                    .get(region)
                    .and_then(|r| r.get(image_type))
                    .map_or(&[][..], Vec::as_slice);
                common = Some(match common {
                    None => versions.iter().collect(),
                    Some(mut c) => {
                        c.retain(|v| versions.contains(v));
                        c
                    }
                });
            }
            let pick = common.and_then(|c| newest(c.into_iter()).cloned());
            selected.insert(image_type.to_string(), pick);
        }
    }
    let mut pools = Vec::new();
    let mut members_upgrading = SortedSet::new();
    for m in members {
        for p in &m.node_pools {
            let target = match selection {
                NodeImageSelection::Consistent => match selected.get(&p.image_type) {
                    Some(Some(v)) => Ok(v.clone()),
                    _ => Err(PoolSkipReason::NoCommonImage),
                },
                NodeImageSelection::Latest => catalogue
                    .get(&m.region)
                    .and_then(|r| r.get(&p.image_type))
                    .and_then(|v| newest(v.iter()))
                    .cloned()
                    .ok_or(PoolSkipReason::NoImageInRegion),
            };
            let action = match target {
                Err(reason) => PoolAction::Skip { reason },
                Ok(to) if to == p.current => PoolAction::Skip {
                    reason: PoolSkipReason::AlreadyAtSelectedImage,
                },
                Ok(to) if to < p.current => PoolAction::Skip {
                    reason: PoolSkipReason::NewerThanSelectedImage,
                },
                Ok(to) => {
                    members_upgrading.insert(m.name.clone());
                    PoolAction::Upgrade { to }
                }
            };
            pools.push((format!("{}/{}", m.name, p.name), action));
        }
    }
    ImageSelectionResult {
        selected,
        // A repeated member/pool: the last one wins.
        pools: SortedMap::from_entries(pools),
        members_upgrading,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn member(name: &str, region: &str, pools: &[(&str, &str)]) -> MemberPools {
        MemberPools {
            name: name.into(),
            region: region.into(),
            node_pools: pools
                .iter()
                .map(|(image_type, current)| PoolView {
                    name: format!("{image_type}-pool"),
                    image_type: (*image_type).into(),
                    current: (*current).into(),
                })
                .collect(),
        }
    }

    #[test]
    fn consistent_picks_the_newest_version_listed_in_every_region() {
        let list = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        let catalogue: ImageCatalogue = SortedMap::from_entries(vec![
            (
                "east".into(),
                SortedMap::from_entries(vec![
                    ("ubuntu".into(), list(&["3", "1", "2", "3"])),
                    ("azl".into(), list(&["7"])),
                ]),
            ),
            (
                "west".into(),
                SortedMap::from_entries(vec![("ubuntu".into(), list(&["2", "1", "4"]))]),
            ),
        ]);
        let members = [
            member("a", "east", &[("ubuntu", "1"), ("azl", "7")]),
            member("b", "west", &[("ubuntu", "1")]),
            member("c", "east", &[("ubuntu", "0")]),
            member("d", "west", &[("azl", "6")]),
        ];
        let r = select(NodeImageSelection::Consistent, &catalogue, &members);
        assert!(r.selected.iter().eq([
            (&"azl".to_string(), &None),
            (&"ubuntu".to_string(), &Some("2".to_string())),
        ]));
        assert_eq!(
            r.pools.get("c/ubuntu-pool"),
            Some(&PoolAction::Upgrade { to: "2".into() })
        );
        assert_eq!(
            r.pools.get("d/azl-pool"),
            Some(&PoolAction::Skip {
                reason: PoolSkipReason::NoCommonImage
            })
        );
        assert!(r.members_upgrading.iter().eq(["a", "b", "c"]));
    }
}
