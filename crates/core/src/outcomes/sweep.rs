//! Scoring a router the way RouteLLM does: sort the test prompts by the router's score (the
//! most likely to need the strong model first), send the top share to the strong model and
//! the rest to the weak one, and sweep that share from 0 to 100 %. At each share the
//! performance gap recovered is (accuracy − weak accuracy) / (strong accuracy − weak
//! accuracy); APGR is the area under that curve, CPT(x) the smallest strong share that
//! recovers x of the gap.

use super::OutcomeRow;

/// How a router did on a set of prompts.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Sweep {
    pub weak_accuracy: f64,
    pub strong_accuracy: f64,
    /// `None` when the two models are equally accurate: there is no gap to recover.
    pub apgr: Option<f64>,
    pub cpt50: Option<f64>,
    pub cpt80: Option<f64>,
}

/// Sweeps the strong share one prompt at a time. Equal scores keep the rows' order, so the
/// result is deterministic.
pub fn sweep(rows: &[&OutcomeRow], scores: &[f64]) -> Sweep {
    let n = rows.len();
    let count = |pick: fn(&OutcomeRow) -> bool| rows.iter().filter(|row| pick(row)).count();
    let weak = count(|row| row.weak_correct);
    let strong = count(|row| row.strong_correct);
    let (weak_accuracy, strong_accuracy) = if n == 0 {
        (0.0, 0.0)
    } else {
        (weak as f64 / n as f64, strong as f64 / n as f64)
    };
    let gap = strong as f64 - weak as f64;
    if n == 0 || gap == 0.0 {
        return Sweep {
            weak_accuracy,
            strong_accuracy,
            apgr: None,
            cpt50: None,
            cpt80: None,
        };
    }
    let mut order: Vec<usize> = (0..n).collect();
    order.sort_by(|&a, &b| scores[b].total_cmp(&scores[a]).then(a.cmp(&b)));
    // Correct answers with the top k prompts sent to the strong model, for k = 0..=n.
    let mut correct = weak as f64;
    let mut recovered = Vec::with_capacity(n + 1);
    recovered.push(0.0);
    for &at in &order {
        let row = rows[at];
        correct += f64::from(u8::from(row.strong_correct)) - f64::from(u8::from(row.weak_correct));
        recovered.push((correct - weak as f64) / gap);
    }
    let area = recovered
        .windows(2)
        .map(|pair| (pair[0] + pair[1]) / 2.0)
        .sum::<f64>()
        / n as f64;
    let cpt = |target: f64| {
        recovered
            .iter()
            .position(|&pgr| pgr >= target)
            .map(|k| k as f64 / n as f64)
    };
    Sweep {
        weak_accuracy,
        strong_accuracy,
        apgr: Some(area),
        cpt50: cpt(0.5),
        cpt80: cpt(0.8),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(weak: bool, strong: bool) -> OutcomeRow {
        OutcomeRow {
            prompt: String::new(),
            weak_correct: weak,
            strong_correct: strong,
        }
    }

    #[test]
    fn a_perfect_router_recovers_the_gap_first_and_a_reversed_one_last() {
        // Two prompts only the strong model gets right, two both get right.
        let rows = [
            row(false, true),
            row(false, true),
            row(true, true),
            row(true, true),
        ];
        let refs: Vec<&OutcomeRow> = rows.iter().collect();
        let perfect = sweep(&refs, &[1.0, 0.9, 0.1, 0.0]);
        let reversed = sweep(&refs, &[0.0, 0.1, 0.9, 1.0]);
        assert_eq!(perfect.weak_accuracy, 0.5);
        assert_eq!(perfect.strong_accuracy, 1.0);
        // PGR by share: 0, .5, 1, 1, 1 → area (0.25 + 0.75 + 1 + 1) / 4.
        assert_eq!(perfect.apgr, Some(0.75));
        assert_eq!(perfect.cpt50, Some(0.25));
        assert_eq!(perfect.cpt80, Some(0.5));
        // PGR by share: 0, 0, 0, .5, 1 → area (0 + 0 + .25 + .75) / 4.
        assert_eq!(reversed.apgr, Some(0.25));
        assert_eq!(reversed.cpt80, Some(1.0));
    }

    #[test]
    fn no_gap_means_no_figures() {
        let rows = [row(true, true), row(false, false)];
        let refs: Vec<&OutcomeRow> = rows.iter().collect();
        let result = sweep(&refs, &[0.0, 1.0]);
        assert_eq!(result.apgr, None);
        assert_eq!(result.cpt50, None);
    }
}
