//! The run's USD ledger: what was spent, what is reserved by calls in flight, and the cap.
//!
//! Every call reserves its worst case before it is made ([`Ledger::try_reserve`]) and settles
//! with its actual cost afterwards ([`Ledger::settle`]) or gives the reservation back
//! ([`Ledger::release`]). A reservation that does not fit is refused, so `spent + reserved`
//! never exceeds the cap as long as no call costs more than it reserved — which the worst case
//! guarantees: [`prompt_token_bound`] is an upper bound on the prompt's tokens and the output
//! is capped by the request's `max_tokens`.

use serde::{Deserialize, Serialize};
use specta::Type;

use crate::catalog::card::Pricing;

/// Rounding slack when comparing dollar amounts (a thousandth of a cent).
const EPSILON_USD: f64 = 1e-9;

/// Tokens a chat request's framing may add to its text (roles, separators).
const FRAMING_TOKENS: u32 = 16;

/// A reservation that does not fit under the cap.
#[derive(Debug, Clone, Copy, PartialEq, thiserror::Error)]
#[error("the call's worst case of ${needed_usd:.4} does not fit: ${available_usd:.4} of the ${cap_usd:.4} cap is left")]
pub struct BudgetExceeded {
    /// The worst case asked for.
    pub needed_usd: f64,
    /// What was left under the cap.
    pub available_usd: f64,
    /// The cap.
    pub cap_usd: f64,
}

/// One run's money: the cap, what calls cost, and what calls in flight may still cost.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, Type)]
#[serde(rename_all = "camelCase")]
pub struct Ledger {
    pub cap_usd: f64,
    pub spent_usd: f64,
    pub reserved_usd: f64,
}

impl Ledger {
    /// An empty ledger under `cap_usd`.
    pub fn new(cap_usd: f64) -> Ledger {
        Ledger {
            cap_usd,
            spent_usd: 0.0,
            reserved_usd: 0.0,
        }
    }

    /// What may still be reserved.
    pub fn available_usd(&self) -> f64 {
        (self.cap_usd - self.spent_usd - self.reserved_usd).max(0.0)
    }

    /// Reserves `worst_case_usd` if `spent + reserved + worst_case` stays within the cap.
    ///
    /// # Errors
    /// [`BudgetExceeded`] (nothing is reserved) when it does not fit, or when the amount is
    /// negative or not a number.
    pub fn try_reserve(&mut self, worst_case_usd: f64) -> Result<(), BudgetExceeded> {
        let refused = BudgetExceeded {
            needed_usd: worst_case_usd,
            available_usd: self.available_usd(),
            cap_usd: self.cap_usd,
        };
        if !worst_case_usd.is_finite() || worst_case_usd < 0.0 {
            return Err(refused);
        }
        if self.spent_usd + self.reserved_usd + worst_case_usd > self.cap_usd + EPSILON_USD {
            return Err(refused);
        }
        self.reserved_usd += worst_case_usd;
        Ok(())
    }

    /// A call that reserved `reserved_usd` ended having cost `actual_usd`: the reservation is
    /// given back and the actual cost is spent. The actual cost is recorded as given even
    /// when it exceeds the reservation (money spent is a fact); callers keep it within by
    /// reserving the worst case.
    pub fn settle(&mut self, reserved_usd: f64, actual_usd: f64) {
        self.release(reserved_usd);
        if actual_usd.is_finite() && actual_usd > 0.0 {
            self.spent_usd += actual_usd;
        }
    }

    /// Gives back a reservation whose call was not made.
    pub fn release(&mut self, reserved_usd: f64) {
        if reserved_usd.is_finite() && reserved_usd > 0.0 {
            self.reserved_usd = (self.reserved_usd - reserved_usd).max(0.0);
        }
        if self.reserved_usd < EPSILON_USD {
            self.reserved_usd = 0.0;
        }
    }
}

/// An upper bound on the tokens of a prompt of `text`: no tokenizer in use makes a token of
/// less than one byte, plus a few tokens of message framing. Deliberately pessimistic: it
/// bounds the worst case, it does not estimate the bill.
pub fn prompt_token_bound(text: &str) -> u32 {
    u32::try_from(text.len())
        .unwrap_or(u32::MAX)
        .saturating_add(FRAMING_TOKENS)
}

/// The most a call with `prompt_tokens` in and at most `max_output_tokens` out can cost at
/// `pricing`; `None` when either price is unknown (such a model cannot be called under a cap
/// unless it is free).
pub fn worst_case_usd(
    prompt_tokens: u32,
    max_output_tokens: u32,
    pricing: &Pricing,
) -> Option<f64> {
    let input = pricing.prompt_per_m?;
    let output = pricing.completion_per_m?;
    if !input.is_finite() || !output.is_finite() || input < 0.0 || output < 0.0 {
        return None;
    }
    Some((f64::from(prompt_tokens) * input + f64::from(max_output_tokens) * output) / 1_000_000.0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn reservations_fit_until_the_cap_then_are_refused() {
        let mut ledger = Ledger::new(1.0);
        assert!(ledger.try_reserve(0.4).is_ok());
        assert!(ledger.try_reserve(0.4).is_ok());
        let refused = ledger.try_reserve(0.4).expect_err("over the cap");
        assert!((refused.available_usd - 0.2).abs() < 1e-12);
        assert!((ledger.reserved_usd - 0.8).abs() < 1e-12);
        ledger.settle(0.4, 0.05);
        assert!((ledger.spent_usd - 0.05).abs() < 1e-12);
        assert!(ledger.try_reserve(0.4).is_ok(), "settling freed room");
        assert!(ledger.try_reserve(f64::NAN).is_err());
        assert!(ledger.try_reserve(-1.0).is_err());
    }

    #[test]
    fn an_exact_fit_is_allowed_despite_rounding() {
        let mut ledger = Ledger::new(0.3);
        for _ in 0..3 {
            ledger.try_reserve(0.1).expect("fits");
        }
        assert!(ledger.try_reserve(0.000_01).is_err());
    }

    #[test]
    fn worst_case_needs_both_prices() {
        let pricing = Pricing {
            prompt_per_m: Some(2.0),
            completion_per_m: Some(10.0),
        };
        let worst = worst_case_usd(1000, 4096, &pricing).expect("priced");
        assert!((worst - (0.002 + 0.04096)).abs() < 1e-12);
        let unknown = Pricing {
            prompt_per_m: Some(2.0),
            completion_per_m: None,
        };
        assert_eq!(worst_case_usd(1000, 4096, &unknown), None);
        assert!(prompt_token_bound("héllo") >= 6, "bytes, not characters");
    }

    #[derive(Debug, Clone)]
    enum Op {
        Reserve(f64),
        /// Settle the reservation at this index (mod the open ones) at this fraction of it.
        Settle(usize, f64),
        Release(usize),
    }

    fn op() -> impl Strategy<Value = Op> {
        prop_oneof![
            (0.0f64..0.7).prop_map(Op::Reserve),
            (any::<usize>(), 0.0f64..=1.0).prop_map(|(i, f)| Op::Settle(i, f)),
            any::<usize>().prop_map(Op::Release),
        ]
    }

    proptest! {
        /// Whatever order calls reserve, settle (at most what they reserved) and release in,
        /// spent + reserved never exceeds the cap, and every refusal was necessary.
        #[test]
        fn spent_plus_reserved_never_exceeds_the_cap(
            cap in 0.0f64..3.0,
            ops in proptest::collection::vec(op(), 0..200),
        ) {
            let mut ledger = Ledger::new(cap);
            let mut open: Vec<f64> = Vec::new();
            for op in ops {
                match op {
                    Op::Reserve(worst) => {
                        let before = ledger;
                        match ledger.try_reserve(worst) {
                            Ok(()) => open.push(worst),
                            Err(_) => {
                                prop_assert_eq!(ledger, before);
                                prop_assert!(before.spent_usd + before.reserved_usd + worst > cap);
                            }
                        }
                    }
                    Op::Settle(i, fraction) if !open.is_empty() => {
                        let reserved = open.remove(i % open.len());
                        ledger.settle(reserved, reserved * fraction);
                    }
                    Op::Release(i) if !open.is_empty() => {
                        let reserved = open.remove(i % open.len());
                        ledger.release(reserved);
                    }
                    Op::Settle(..) | Op::Release(_) => {}
                }
                prop_assert!(ledger.spent_usd + ledger.reserved_usd <= cap + 1e-6,
                    "{ledger:?}");
                prop_assert!(ledger.reserved_usd >= 0.0);
                let open_sum: f64 = open.iter().sum();
                prop_assert!((ledger.reserved_usd - open_sum).abs() < 1e-6);
            }
        }
    }
}
