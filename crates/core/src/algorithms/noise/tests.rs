//! Statistical tests with fixed seeds: the noise added has the variance
//! the result states, and correlated2 keeps covariances up to its stated
//! factor. Tolerances are 5 standard errors at n = 20,000 (a sample
//! variance's relative standard error is √(2/n) ≈ 1%).

use super::*;

const N: usize = 20_000;

/// Three correlated columns: log-normal incomes, expenditure tied to them,
/// and an independent normal one.
fn data() -> Vec<Vec<f64>> {
    let mut rng = ChaCha8Rng::seed_from_u64(7);
    let mut normal = Normal::default();
    let mut a = Vec::with_capacity(N);
    let mut b = Vec::with_capacity(N);
    let mut c = Vec::with_capacity(N);
    for _ in 0..N {
        let z = normal.sample(&mut rng);
        let income = (10.0 + 0.5 * z).exp();
        a.push(income);
        b.push(0.6 * income + 3000.0 * normal.sample(&mut rng));
        c.push(50.0 + 10.0 * normal.sample(&mut rng));
    }
    vec![a, b, c]
}

fn run(x: &[Vec<f64>], method: NoiseMethod, seed: u64) -> Noised {
    noise_values(x, None, &|c| c.to_string(), method, seed, &Progress::new()).unwrap()
}

fn mean(v: &[f64]) -> f64 {
    v.iter().sum::<f64>() / v.len() as f64
}

fn cov(a: &[f64], b: &[f64]) -> f64 {
    let (ma, mb) = (mean(a), mean(b));
    a.iter()
        .zip(b)
        .map(|(x, y)| (x - ma) * (y - mb))
        .sum::<f64>()
        / (a.len() - 1) as f64
}

#[test]
fn additive_noise_has_the_stated_variance() {
    let x = data();
    let out = run(&x, NoiseMethod::Additive { noise: 50.0 }, 1);
    assert_eq!(out.scale, 1.0);
    assert_eq!(out.covariance_factor, 1.0);
    let added: Vec<Vec<f64>> = (0..3)
        .map(|c| {
            x[c].iter()
                .zip(&out.values[c])
                .map(|(o, p)| p - o)
                .collect()
        })
        .collect();
    for c in 0..3 {
        let sd = cov(&x[c], &x[c]).sqrt();
        assert!(
            (out.noise_sd[c] - 0.5 * sd).abs() <= 1e-9 * sd,
            "stated sd, column {c}"
        );
        let var = cov(&added[c], &added[c]);
        let stated = out.noise_sd[c].powi(2);
        let tol = 5.0 * (2.0 / N as f64).sqrt();
        assert!(
            (var / stated - 1.0).abs() < tol,
            "column {c}: {var} vs {stated}"
        );
        // Centred: the mean of the noise within 5 standard errors of 0.
        assert!(mean(&added[c]).abs() < 5.0 * out.noise_sd[c] / (N as f64).sqrt());
    }
    // Independent between columns.
    for (i, j) in [(0, 1), (0, 2), (1, 2)] {
        let r = cov(&added[i], &added[j]) / (out.noise_sd[i] * out.noise_sd[j]);
        assert!(
            r.abs() < 5.0 / (N as f64).sqrt(),
            "noise of {i} and {j} correlate: {r}"
        );
    }
}

#[test]
fn correlated2_keeps_covariances_up_to_the_stated_factor() {
    let x = data();
    let delta = 0.5;
    let out = run(&x, NoiseMethod::Correlated2 { delta }, 2);
    assert!((out.covariance_factor - 0.75).abs() < 1e-12);
    for (c, col) in x.iter().enumerate() {
        let sd = cov(col, col).sqrt();
        assert!((out.noise_sd[c] - delta * sd).abs() <= 1e-9 * sd);
        // The random term: x' − d·x − (1 − d)·mean.
        let m = mean(col);
        let term: Vec<f64> = col
            .iter()
            .zip(&out.values[c])
            .map(|(o, p)| p - out.scale * o - (1.0 - out.scale) * m)
            .collect();
        let var = cov(&term, &term);
        let tol = 5.0 * (2.0 / N as f64).sqrt();
        assert!(
            (var / out.noise_sd[c].powi(2) - 1.0).abs() < tol,
            "column {c}"
        );
        // Mean and variance of the column preserved.
        let vp = cov(&out.values[c], &out.values[c]);
        assert!((vp / (sd * sd) - 1.0).abs() < tol, "variance of column {c}");
        assert!((mean(&out.values[c]) - m).abs() < 5.0 * out.noise_sd[c] / (N as f64).sqrt());
    }
    // Covariances scaled by 1 − δ², within 5 standard errors (each sample
    // covariance of the noise terms is about sdᵢ·sdⱼ/√n).
    for (i, j) in [(0, 1), (0, 2), (1, 2)] {
        let (si, sj) = (cov(&x[i], &x[i]).sqrt(), cov(&x[j], &x[j]).sqrt());
        let got = cov(&out.values[i], &out.values[j]);
        let want = out.covariance_factor * cov(&x[i], &x[j]);
        assert!(
            (got - want).abs() < 5.0 * si * sj / (N as f64).sqrt(),
            "cov {i},{j}: {got} vs {want}"
        );
    }
    // The factor is visible: columns 0 and 1 correlate strongly, and the
    // unscaled covariance is outside the tolerance.
    let (s0, s1) = (cov(&x[0], &x[0]).sqrt(), cov(&x[1], &x[1]).sqrt());
    let got = cov(&out.values[0], &out.values[1]);
    assert!((got - cov(&x[0], &x[1])).abs() > 5.0 * s0 * s1 / (N as f64).sqrt());
}

#[test]
fn seeded_and_stratified() {
    let x = vec![vec![1.0, 2.0, 3.0, 1000.0, 2000.0, 3000.0]];
    let codes = [0, 0, 0, 1, 1, 1];
    let name = |c: u32| format!("s{c}");
    let m = NoiseMethod::Additive { noise: 10.0 };
    let p = Progress::new();
    let a = noise_values(&x, Some(&codes), &name, m, 5, &p).unwrap();
    let b = noise_values(&x, Some(&codes), &name, m, 5, &p).unwrap();
    let c = noise_values(&x, Some(&codes), &name, m, 6, &p).unwrap();
    assert_eq!(a, b);
    assert_ne!(a.values, c.values);
    // Each stratum's noise follows its own standard deviation (1 and 1000).
    assert!((a.stratum_noise_sd[0][0] - 0.1).abs() < 1e-12);
    assert!((a.stratum_noise_sd[1][0] - 100.0).abs() < 1e-9);
    let pooled = ((3.0 * 0.01 + 3.0 * 10000.0) / 6.0f64).sqrt();
    assert!((a.noise_sd[0] - pooled).abs() < 1e-9);
    let err = noise_values(&x, Some(&[0, 0, 0, 0, 0, 1]), &name, m, 5, &p).unwrap_err();
    assert!(err.to_string().contains("s1 has 1 record"), "{err}");
    let err = noise_values(
        &x,
        None,
        &name,
        NoiseMethod::Correlated2 { delta: 1.5 },
        5,
        &p,
    )
    .unwrap_err();
    assert!(err.to_string().contains("delta must be in (0, 1]"), "{err}");
}
