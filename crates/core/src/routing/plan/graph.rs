//! Graph work on step indices: cycles (with their edges), transitive reduction and waves.

/// Edges inside cycles, one list per strongly connected component (self-loops included),
/// each in input order. Empty for a DAG.
pub(crate) fn cycles(n: usize, edges: &[(usize, usize)]) -> Vec<Vec<(usize, usize)>> {
    let component = strongly_connected(n, edges);
    let mut sizes = vec![0usize; n];
    for c in &component {
        if let Some(size) = sizes.get_mut(*c) {
            *size += 1;
        }
    }
    let mut groups: Vec<(usize, Vec<(usize, usize)>)> = Vec::new();
    for &(from, to) in edges {
        let (Some(&cf), Some(&ct)) = (component.get(from), component.get(to)) else {
            continue;
        };
        if cf != ct || (from != to && sizes.get(cf).copied().unwrap_or(0) < 2) {
            continue;
        }
        match groups.iter_mut().find(|(c, _)| *c == cf) {
            Some((_, list)) => list.push((from, to)),
            None => groups.push((cf, vec![(from, to)])),
        }
    }
    groups.into_iter().map(|(_, list)| list).collect()
}

/// Tarjan's algorithm, iterative; returns a component number per node.
fn strongly_connected(n: usize, edges: &[(usize, usize)]) -> Vec<usize> {
    let mut adjacency = vec![Vec::new(); n];
    for &(from, to) in edges {
        if from < n && to < n {
            adjacency[from].push(to);
        }
    }
    const UNSEEN: usize = usize::MAX;
    let mut index = vec![UNSEEN; n];
    let mut low = vec![0usize; n];
    let mut on_stack = vec![false; n];
    let mut stack = Vec::new();
    let mut component = vec![UNSEEN; n];
    let mut next_index = 0;
    let mut next_component = 0;
    for root in 0..n {
        if index[root] != UNSEEN {
            continue;
        }
        let mut work: Vec<(usize, usize)> = vec![(root, 0)];
        while let Some(&mut (node, ref mut child)) = work.last_mut() {
            if *child == 0 && index[node] == UNSEEN {
                index[node] = next_index;
                low[node] = next_index;
                next_index += 1;
                stack.push(node);
                on_stack[node] = true;
            }
            if let Some(&next) = adjacency[node].get(*child) {
                *child += 1;
                if index[next] == UNSEEN {
                    work.push((next, 0));
                } else if on_stack[next] {
                    low[node] = low[node].min(index[next]);
                }
                continue;
            }
            work.pop();
            if let Some(&(parent, _)) = work.last() {
                low[parent] = low[parent].min(low[node]);
            }
            if low[node] == index[node] {
                while let Some(member) = stack.pop() {
                    on_stack[member] = false;
                    component[member] = next_component;
                    if member == node {
                        break;
                    }
                }
                next_component += 1;
            }
        }
    }
    component
}

/// The edges of a DAG without those implied by longer paths, in input order.
pub(crate) fn transitive_reduction(n: usize, edges: &[(usize, usize)]) -> Vec<(usize, usize)> {
    let words = n.div_ceil(64);
    let mut successors = vec![Vec::new(); n];
    for &(from, to) in edges {
        if from < n && to < n && !successors[from].contains(&to) {
            successors[from].push(to);
        }
    }
    let Some(order) = topological_order(n, edges) else {
        return edges.to_vec();
    };
    // reach[v]: nodes reachable from v by a path of one or more edges.
    let mut reach = vec![vec![0u64; words]; n];
    for &node in order.iter().rev() {
        let mut bits = vec![0u64; words];
        for &next in &successors[node] {
            bits[next / 64] |= 1 << (next % 64);
            for (word, other) in bits.iter_mut().zip(&reach[next]) {
                *word |= other;
            }
        }
        reach[node] = bits;
    }
    let mut kept = Vec::new();
    for &(from, to) in edges {
        if from >= n || to >= n || kept.contains(&(from, to)) {
            continue;
        }
        let implied = successors[from]
            .iter()
            .any(|&other| other != to && reach[other][to / 64] & (1 << (to % 64)) != 0);
        if !implied {
            kept.push((from, to));
        }
    }
    kept
}

/// A topological order, or `None` when there is a cycle.
fn topological_order(n: usize, edges: &[(usize, usize)]) -> Option<Vec<usize>> {
    let levels = levels(n, edges);
    if levels.iter().any(Option::is_none) {
        return None;
    }
    let mut order: Vec<usize> = (0..n).collect();
    order.sort_by_key(|node| (levels[*node], *node));
    Some(order)
}

/// Dependency level of each node (longest path from a source); `None` for nodes in a
/// cycle or depending on one.
pub(crate) fn levels(n: usize, edges: &[(usize, usize)]) -> Vec<Option<u32>> {
    let mut indegree = vec![0usize; n];
    let mut successors = vec![Vec::new(); n];
    for &(from, to) in edges {
        if from < n && to < n {
            indegree[to] += 1;
            successors[from].push(to);
        }
    }
    let mut level: Vec<Option<u32>> = vec![None; n];
    let mut ready: Vec<usize> = (0..n).filter(|v| indegree[*v] == 0).collect();
    for v in &ready {
        level[*v] = Some(0);
    }
    while let Some(node) = ready.pop() {
        let here = level[node].unwrap_or(0);
        for &next in &successors[node] {
            level[next] = Some(level[next].map_or(here + 1, |l| l.max(here + 1)));
            indegree[next] -= 1;
            if indegree[next] == 0 {
                ready.push(next);
            }
        }
    }
    for v in 0..n {
        if indegree[v] > 0 {
            level[v] = None;
        }
    }
    level
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reduction_drops_implied_edges_only() {
        let edges = [(0, 1), (1, 2), (0, 2), (0, 3), (3, 2)];
        assert_eq!(
            transitive_reduction(4, &edges),
            vec![(0, 1), (1, 2), (0, 3), (3, 2)]
        );
        let chain = [(0, 1), (1, 2), (2, 3), (0, 3), (1, 3)];
        assert_eq!(
            transitive_reduction(4, &chain),
            vec![(0, 1), (1, 2), (2, 3)]
        );
    }

    #[test]
    fn levels_are_longest_paths_and_none_in_cycles() {
        let edges = [(0, 1), (1, 2), (0, 2), (3, 4), (4, 3), (4, 5)];
        assert_eq!(
            levels(6, &edges),
            vec![Some(0), Some(1), Some(2), None, None, None]
        );
    }

    #[test]
    fn cycles_list_their_edges_and_skip_acyclic_parts() {
        let edges = [(0, 1), (1, 2), (2, 1), (3, 3), (2, 4)];
        assert_eq!(cycles(5, &edges), vec![vec![(1, 2), (2, 1)], vec![(3, 3)]]);
        assert!(cycles(3, &[(0, 1), (1, 2)]).is_empty());
    }

    #[test]
    fn reduction_scales_past_64_nodes() {
        let n = 130;
        let mut edges: Vec<(usize, usize)> = (0..n - 1).map(|i| (i, i + 1)).collect();
        edges.push((0, n - 1));
        let kept = transitive_reduction(n, &edges);
        assert_eq!(kept.len(), n - 1);
        assert!(!kept.contains(&(0, n - 1)));
    }
}
