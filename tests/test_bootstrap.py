import numpy as np
import pytest

from lhl_platform.stats.bootstrap import rdi_cluster_interval, rdi_interval


def test_instance_bootstrap_is_seeded_and_brackets_the_estimate():
    first = rdi_interval(210, 49, 1000, seed=7, key="gpt")
    assert first == rdi_interval(210, 49, 1000, seed=7, key="gpt")
    assert first != rdi_interval(210, 49, 1000, seed=8, key="gpt")
    low, high = first
    assert low < 0.161 < high
    # the normal-approximation half-width of a mean of {+1, -1, 0} labels
    p_e, p_m = 0.21, 0.049
    sd = np.sqrt(p_e + p_m - (p_e - p_m) ** 2) / np.sqrt(1000)
    assert (high - low) / 2 == pytest.approx(1.96 * sd, rel=0.15)


def test_multinomial_shortcut_matches_resampling_instances():
    labels = np.array([1] * 21 + [-1] * 5 + [0] * 74)
    rng = np.random.default_rng(0)
    brute = [rng.choice(labels, size=labels.size, replace=True).mean() for _ in range(4000)]
    low, high = rdi_interval(21, 5, 100, resamples=4000, seed=1)
    assert low == pytest.approx(np.quantile(brute, 0.025), abs=0.02)
    assert high == pytest.approx(np.quantile(brute, 0.975), abs=0.02)


def test_no_contradictions_gives_no_interval():
    assert rdi_interval(0, 0, 0) == (None, None)
    assert rdi_cluster_interval([], [], []) == (None, None)


def test_cluster_bootstrap_is_wider_when_contracts_are_heterogeneous():
    # Ten contracts all-extra, ten all-missing: instance bootstrap is too narrow for clustered data.
    extra = [10] * 10 + [0] * 10
    missing = [0] * 10 + [10] * 10
    contradicted = [10] * 20
    c_low, c_high = rdi_cluster_interval(extra, missing, contradicted, seed=3)
    i_low, i_high = rdi_interval(100, 100, 200, seed=3)
    assert c_high - c_low > 2 * (i_high - i_low)
    assert c_low < 0 < c_high


def test_interval_does_not_depend_on_other_models():
    assert rdi_interval(30, 10, 100, seed=0, key="a") == rdi_interval(30, 10, 100, seed=0, key="a")
    assert rdi_interval(30, 10, 100, seed=0, key="a") != rdi_interval(30, 10, 100, seed=0, key="b")
