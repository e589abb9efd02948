//! Scheduling a run's nodes: which pending nodes may start now, which can never start, and
//! whether the graph is sound. The engine starts each ready node as soon as a slot frees; it
//! never waits for a whole wave.

use std::collections::{HashMap, HashSet};

use serde::{Deserialize, Serialize};
use specta::Type;

use super::state::NodeState;

/// When a node's dependencies let it start.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, Type)]
#[serde(rename_all = "camelCase")]
pub enum Join {
    /// Every dependency is done (the default).
    #[default]
    All,
    /// Every dependency has ended and at least one is done (a collective's merge node uses
    /// whichever members answered).
    Any,
}

/// One node as the scheduler sees it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DagNode {
    pub id: String,
    pub depends_on: Vec<String>,
    pub state: NodeState,
    pub join: Join,
}

/// What is wrong with a graph.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DagError {
    #[error("node id {0:?} appears more than once")]
    Duplicate(String),
    #[error("node {node} depends on {missing}, which is not a node of the run")]
    UnknownDependency { node: String, missing: String },
    #[error("node {0} depends on itself, directly or through other nodes")]
    Cycle(String),
    #[error("a run needs at least one node")]
    Empty,
}

fn by_id(nodes: &[DagNode]) -> HashMap<&str, &DagNode> {
    nodes.iter().map(|n| (n.id.as_str(), n)).collect()
}

/// The column each node is drawn in: 0 without dependencies, else one past its deepest
/// dependency (so every arrow points forward). A dependency naming no node, or a cycle, is
/// tolerated (counted as none) rather than trusted.
pub fn columns(nodes: &[DagNode]) -> HashMap<String, u32> {
    fn visit<'a>(
        id: &'a str,
        nodes: &HashMap<&'a str, &'a DagNode>,
        done: &mut HashMap<String, u32>,
        visiting: &mut Vec<&'a str>,
    ) -> Option<u32> {
        if let Some(column) = done.get(id) {
            return Some(*column);
        }
        let node = nodes.get(id)?;
        if visiting.contains(&id) {
            return None;
        }
        visiting.push(id);
        let column = node
            .depends_on
            .iter()
            .filter_map(|dep| visit(dep, nodes, done, visiting))
            .map(|c| c + 1)
            .max()
            .unwrap_or(0);
        visiting.pop();
        done.insert(id.to_owned(), column);
        Some(column)
    }
    let index = by_id(nodes);
    let mut done = HashMap::new();
    for node in nodes {
        visit(&node.id, &index, &mut done, &mut Vec::new());
    }
    done
}

/// How many nodes the longest chain from each node to a final node holds (the node
/// included): 1 for a node nothing depends on.
pub fn levels(nodes: &[DagNode]) -> HashMap<String, u32> {
    let mut dependents: HashMap<&str, Vec<&str>> = HashMap::new();
    for node in nodes {
        for dep in &node.depends_on {
            dependents
                .entry(dep.as_str())
                .or_default()
                .push(node.id.as_str());
        }
    }
    let mut level: HashMap<String, u32> = HashMap::new();
    for id in topological(nodes).iter().rev() {
        let below = dependents
            .get(id.as_str())
            .map(|ds| {
                ds.iter()
                    .filter_map(|d| level.get(*d))
                    .copied()
                    .max()
                    .unwrap_or(0)
            })
            .unwrap_or(0);
        level.insert(id.clone(), below + 1);
    }
    level
}

/// Pending nodes whose dependencies let them start now, the longest remaining chain first
/// (then list order): when more are ready than slots are free, the critical path goes first,
/// which keeps a limited number of slots busy to the end.
pub fn ready(nodes: &[DagNode]) -> Vec<String> {
    let level = levels(nodes);
    let mut found = ready_in_order(nodes);
    // Stable: equal levels keep list order.
    found.sort_by_key(|id| std::cmp::Reverse(level.get(id).copied().unwrap_or(0)));
    found
}

fn ready_in_order(nodes: &[DagNode]) -> Vec<String> {
    let index = by_id(nodes);
    nodes
        .iter()
        .filter(|n| n.state == NodeState::Pending)
        .filter(|n| {
            let deps: Vec<NodeState> = n
                .depends_on
                .iter()
                .filter_map(|d| index.get(d.as_str()).map(|d| d.state))
                .collect();
            match n.join {
                Join::All => deps.iter().all(|s| s.satisfies_dependents()),
                Join::Any => {
                    deps.is_empty()
                        || (deps.iter().all(|s| s.is_final())
                            && deps.iter().any(|s| s.satisfies_dependents()))
                }
            }
        })
        .map(|n| n.id.clone())
        .collect()
}

/// Pending nodes that can never start because of their dependencies' states, in list order.
/// Skipping them and asking again finds the nodes that depended on them.
pub fn blocked(nodes: &[DagNode]) -> Vec<String> {
    let index = by_id(nodes);
    nodes
        .iter()
        .filter(|n| n.state == NodeState::Pending)
        .filter(|n| {
            let deps: Vec<NodeState> = n
                .depends_on
                .iter()
                .filter_map(|d| index.get(d.as_str()).map(|d| d.state))
                .collect();
            match n.join {
                Join::All => deps.iter().any(|s| s.blocks_dependents()),
                Join::Any => !deps.is_empty() && deps.iter().all(|s| s.blocks_dependents()),
            }
        })
        .map(|n| n.id.clone())
        .collect()
}

/// Nodes no other node depends on: the run's results.
pub fn sinks(nodes: &[DagNode]) -> Vec<String> {
    let needed: HashSet<&str> = nodes
        .iter()
        .flat_map(|n| n.depends_on.iter().map(String::as_str))
        .collect();
    nodes
        .iter()
        .filter(|n| !needed.contains(n.id.as_str()))
        .map(|n| n.id.clone())
        .collect()
}

/// Every node `id` depends on, directly or not, in an order where each comes after its own
/// dependencies (list order among equals).
pub fn ancestors(nodes: &[DagNode], id: &str) -> Vec<String> {
    let index = by_id(nodes);
    let mut wanted: HashSet<&str> = HashSet::new();
    let mut stack: Vec<&str> = index
        .get(id)
        .map(|n| n.depends_on.iter().map(String::as_str).collect())
        .unwrap_or_default();
    while let Some(next) = stack.pop() {
        if wanted.insert(next) {
            if let Some(node) = index.get(next) {
                stack.extend(node.depends_on.iter().map(String::as_str));
            }
        }
    }
    topological(nodes)
        .into_iter()
        .filter(|n| wanted.contains(n.as_str()))
        .collect()
}

/// The nodes in an order where each comes after its dependencies (Kahn, list order among
/// equals); nodes on a cycle are left out.
pub fn topological(nodes: &[DagNode]) -> Vec<String> {
    let mut done: HashSet<&str> = HashSet::new();
    let mut order = Vec::with_capacity(nodes.len());
    loop {
        let before = order.len();
        for node in nodes {
            if done.contains(node.id.as_str()) {
                continue;
            }
            if node.depends_on.iter().all(|d| done.contains(d.as_str())) {
                done.insert(node.id.as_str());
                order.push(node.id.clone());
            }
        }
        if order.len() == before {
            return order;
        }
    }
}

/// Checks the graph: at least one node, unique ids, known dependencies, no cycle.
///
/// # Errors
/// The first [`DagError`] found.
pub fn validate(nodes: &[DagNode]) -> Result<(), DagError> {
    if nodes.is_empty() {
        return Err(DagError::Empty);
    }
    let mut seen = HashSet::new();
    for node in nodes {
        if !seen.insert(node.id.as_str()) {
            return Err(DagError::Duplicate(node.id.clone()));
        }
    }
    for node in nodes {
        if let Some(missing) = node.depends_on.iter().find(|d| !seen.contains(d.as_str())) {
            return Err(DagError::UnknownDependency {
                node: node.id.clone(),
                missing: missing.clone(),
            });
        }
    }
    let order = topological(nodes);
    if order.len() < nodes.len() {
        let placed: HashSet<&str> = order.iter().map(String::as_str).collect();
        let stuck = nodes
            .iter()
            .find(|n| !placed.contains(n.id.as_str()))
            .map(|n| n.id.clone())
            .unwrap_or_default();
        return Err(DagError::Cycle(stuck));
    }
    Ok(())
}

/// The shortest time a schedule of `nodes` can take with `parallel` slots when node `i` takes
/// `durations[i]`: the larger of the critical path and the total work spread over the slots.
/// A lower bound, for measuring how close a real schedule comes.
pub fn schedule_lower_bound(nodes: &[DagNode], durations: &[f64], parallel: u32) -> f64 {
    let index: HashMap<&str, usize> = nodes
        .iter()
        .enumerate()
        .map(|(i, n)| (n.id.as_str(), i))
        .collect();
    let mut finish: HashMap<&str, f64> = HashMap::new();
    for id in topological(nodes) {
        let Some(&i) = index.get(id.as_str()) else {
            continue;
        };
        let start = nodes[i]
            .depends_on
            .iter()
            .filter_map(|d| finish.get(d.as_str()))
            .fold(0.0f64, |a, &b| a.max(b));
        finish.insert(
            nodes[i].id.as_str(),
            start + durations.get(i).copied().unwrap_or(0.0),
        );
    }
    let critical = finish.values().fold(0.0f64, |a, &b| a.max(b));
    let total: f64 = durations.iter().sum();
    critical.max(total / f64::from(parallel.max(1)))
}

/// How long the engine's own policy ([`ready`] into `parallel` slots, each node started as
/// soon as a slot frees) takes for `nodes` when node `i` takes `durations[i]` and the engine
/// costs nothing: the ideal schedule a measured run is compared with.
pub fn simulate_schedule(nodes: &[DagNode], durations: &[f64], parallel: u32) -> f64 {
    let mut state: Vec<DagNode> = nodes
        .iter()
        .map(|n| DagNode {
            state: NodeState::Pending,
            ..n.clone()
        })
        .collect();
    let duration = |id: &str| {
        nodes
            .iter()
            .position(|n| n.id == id)
            .and_then(|i| durations.get(i))
            .copied()
            .unwrap_or(0.0)
    };
    let mut running: Vec<(f64, String)> = Vec::new();
    let mut now = 0.0f64;
    loop {
        for id in ready(&state) {
            if running.len() >= parallel.max(1) as usize {
                break;
            }
            if let Some(node) = state.iter_mut().find(|n| n.id == id) {
                node.state = NodeState::Running;
            }
            running.push((now + duration(&id), id));
        }
        let Some(next) = running.iter().map(|(t, _)| *t).reduce(f64::min) else {
            return now;
        };
        now = next;
        let (ended, still): (Vec<_>, Vec<_>) = running.into_iter().partition(|(t, _)| *t <= now);
        running = still;
        for (_, id) in ended {
            if let Some(node) = state.iter_mut().find(|n| n.id == id) {
                node.state = NodeState::Done;
            }
        }
    }
}

#[cfg(test)]
mod column_tests {
    use super::*;

    fn n(id: &str, deps: &[&str]) -> DagNode {
        DagNode {
            id: id.into(),
            depends_on: deps.iter().map(|d| (*d).to_owned()).collect(),
            state: NodeState::Pending,
            join: Join::All,
        }
    }

    #[test]
    fn a_node_sits_one_column_past_its_deepest_dependency_and_a_cycle_is_tolerated() {
        let nodes = [
            n("a", &[]),
            n("b", &["a"]),
            n("c", &["a", "b"]),
            n("d", &["missing"]),
            n("x", &["y"]),
            n("y", &["x"]),
        ];
        let columns = columns(&nodes);
        assert_eq!(columns["a"], 0);
        assert_eq!(columns["b"], 1);
        assert_eq!(columns["c"], 2);
        assert_eq!(columns["d"], 0);
        assert!(columns["x"] <= 1 && columns["y"] <= 1);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use NodeState::*;

    fn node(id: &str, deps: &[&str], state: NodeState) -> DagNode {
        DagNode {
            id: id.into(),
            depends_on: deps.iter().map(|d| (*d).to_owned()).collect(),
            state,
            join: Join::All,
        }
    }

    #[test]
    fn a_node_is_ready_as_soon_as_its_own_dependencies_are_done() {
        // a → c; b → d. When a is done, c is ready although b (same wave as a) still runs.
        let nodes = vec![
            node("a", &[], Done),
            node("b", &[], Running),
            node("c", &["a"], Pending),
            node("d", &["b"], Pending),
        ];
        assert_eq!(ready(&nodes), ["c"]);
        assert!(blocked(&nodes).is_empty());
    }

    #[test]
    fn a_failed_dependency_blocks_its_dependents_transitively() {
        let mut nodes = vec![
            node("a", &[], Failed),
            node("b", &["a"], Pending),
            node("c", &["b"], Pending),
            node("d", &[], Pending),
        ];
        assert_eq!(ready(&nodes), ["d"]);
        assert_eq!(blocked(&nodes), ["b"]);
        nodes[1].state = Skipped;
        assert_eq!(blocked(&nodes), ["c"]);
    }

    #[test]
    fn an_any_join_waits_for_every_member_and_needs_one_answer() {
        let mut merge = node("m", &["a", "b"], Pending);
        merge.join = Join::Any;
        let mut nodes = vec![node("a", &[], Done), node("b", &[], Running), merge];
        assert!(ready(&nodes).is_empty(), "b may still answer");
        nodes[1].state = Failed;
        assert_eq!(ready(&nodes), ["m"]);
        nodes[0].state = Failed;
        assert!(ready(&nodes).is_empty());
        assert_eq!(blocked(&nodes), ["m"]);
    }

    #[test]
    fn validation_finds_duplicates_unknown_dependencies_and_cycles() {
        assert_eq!(validate(&[]), Err(DagError::Empty));
        assert!(matches!(
            validate(&[node("a", &[], Pending), node("a", &[], Pending)]),
            Err(DagError::Duplicate(_))
        ));
        assert!(matches!(
            validate(&[node("a", &["z"], Pending)]),
            Err(DagError::UnknownDependency { .. })
        ));
        assert!(matches!(
            validate(&[node("a", &["b"], Pending), node("b", &["a"], Pending)]),
            Err(DagError::Cycle(_))
        ));
        assert!(validate(&[node("a", &[], Pending), node("b", &["a"], Pending)]).is_ok());
    }

    #[test]
    fn the_longest_remaining_chain_starts_first_and_the_simulation_uses_it() {
        // x is alone; a → b → c is a chain. With one slot, a goes first.
        let nodes = vec![
            node("x", &[], Pending),
            node("a", &[], Pending),
            node("b", &["a"], Pending),
            node("c", &["b"], Pending),
        ];
        assert_eq!(ready(&nodes), ["a", "x"]);
        assert_eq!(levels(&nodes).get("a"), Some(&3));
        // Two slots: a, b, c back to back while x fits beside them.
        assert_eq!(simulate_schedule(&nodes, &[1.0; 4], 2), 3.0);
        assert_eq!(simulate_schedule(&nodes, &[1.0; 4], 1), 4.0);
        // List order would start x first on one of two slots and still need 3; with the
        // chain second on a single slot the order does not matter. A case where it does:
        let wide = vec![
            node("x1", &[], Pending),
            node("x2", &[], Pending),
            node("a", &[], Pending),
            node("b", &["a"], Pending),
        ];
        // Chain first: {a, x1}, {b, x2} = 2; list order would give {x1, x2}, {a}, {b} = 3.
        assert_eq!(simulate_schedule(&wide, &[1.0; 4], 2), 2.0);
    }

    #[test]
    fn ancestors_sinks_and_the_schedule_bound() {
        let nodes = vec![
            node("a", &[], Pending),
            node("b", &["a"], Pending),
            node("c", &["b"], Pending),
            node("d", &[], Pending),
        ];
        assert_eq!(ancestors(&nodes, "c"), ["a", "b"]);
        assert_eq!(sinks(&nodes), ["c", "d"]);
        // Critical path a-b-c = 3; total 4 over 4 slots = 1.
        assert_eq!(schedule_lower_bound(&nodes, &[1.0; 4], 4), 3.0);
        // One slot: the total.
        assert_eq!(schedule_lower_bound(&nodes, &[1.0; 4], 1), 4.0);
    }
}
