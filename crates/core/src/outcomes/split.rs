//! The seeded train/test split and shuffles: splitmix64 over the seed, so a seed names the
//! same split on every machine and in every version.

/// Row indices in a seeded random order (Fisher–Yates).
pub fn shuffled(n: usize, seed: u64) -> Vec<usize> {
    let mut order: Vec<usize> = (0..n).collect();
    let mut state = seed;
    for i in (1..n).rev() {
        state = splitmix(state);
        let j = (state % (i as u64 + 1)) as usize;
        order.swap(i, j);
    }
    order
}

/// The train and test rows: the first `round(n × fraction)` of the seeded order train, the
/// rest test. Each part keeps the file's row order.
pub fn train_test(n: usize, seed: u64, train_fraction: f64) -> (Vec<usize>, Vec<usize>) {
    let order = shuffled(n, seed);
    let n_train = ((n as f64) * train_fraction).round() as usize;
    let (mut train, mut test) = (
        order[..n_train.min(n)].to_vec(),
        order[n_train.min(n)..].to_vec(),
    );
    train.sort_unstable();
    test.sort_unstable();
    (train, test)
}

fn splitmix(mut x: u64) -> u64 {
    x = x.wrapping_add(0x9e37_79b9_7f4a_7c15);
    x = (x ^ (x >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    x ^ (x >> 31)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_split_is_a_partition_fixed_by_its_seed() {
        let (train, test) = train_test(10, 42, 0.7);
        assert_eq!((train.len(), test.len()), (7, 3));
        let mut all: Vec<usize> = train.iter().chain(&test).copied().collect();
        all.sort_unstable();
        assert_eq!(all, (0..10).collect::<Vec<_>>());
        assert_eq!(train_test(10, 42, 0.7), (train, test));
        assert_ne!(shuffled(50, 1), shuffled(50, 2));
    }
}
