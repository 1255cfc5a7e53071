#!/usr/bin/env python3
"""Writes scipy-mannwhitneyu.json: sample vectors with scipy's Mann-Whitney U answers and numpy's quantiles.

The Gates tests compare blerig's own statistics with these answers. Regenerate with a venv that has scipy:

    python3 -m venv .venv-gates && .venv-gates/bin/pip install scipy
    .venv-gates/bin/python Tests/GatesTests/Fixtures/make_scipy_fixture.py

Vectors come from a seeded generator, so the file changes only when scipy's answers do.
"""
import json
import os
import sys

import numpy as np
import scipy
from scipy.stats import mannwhitneyu

rng = np.random.default_rng(20261126)
cases = []


def add(name, x, y, method):
    x = [float(v) for v in x]
    y = [float(v) for v in y]
    for alternative in ("greater", "less", "two-sided"):
        result = mannwhitneyu(x, y, alternative=alternative, method=method, use_continuity=True)
        cases.append({
            "name": name, "x": x, "y": y, "alternative": alternative, "method": method,
            "statistic": float(result.statistic), "pvalue": float(result.pvalue),
        })


# Exact: small samples without ties.
for n1, n2 in [(1, 1), (1, 5), (3, 4), (5, 5), (6, 9), (8, 8), (10, 7), (20, 20), (30, 25)]:
    values = rng.permutation(np.arange(n1 + n2) * 1.5 + 100)
    add(f"exact {n1}x{n2}", values[:n1], values[n1:], "exact")
# Exact: clearly shifted, a small p.
add("exact shifted 12x12", rng.normal(120, 5, 12), rng.normal(100, 5, 12), "exact")
# Asymptotic without ties.
for n1, n2, shift in [(20, 20, 0.0), (40, 60, 3.0), (200, 150, -1.0), (500, 500, 0.5)]:
    add(f"normal {n1}x{n2} shift {shift}", rng.normal(50 + shift, 10, n1), rng.normal(50, 10, n2), "asymptotic")
# Asymptotic with many ties: latencies on a 1.25 ms grid, as connection intervals make them.
for n1, n2, shift in [(20, 20, 0), (30, 50, 2), (100, 100, 1), (64, 48, -3)]:
    x = np.round(rng.normal(40 + shift, 4, n1) / 1.25) * 1.25
    y = np.round(rng.normal(40, 4, n2) / 1.25) * 1.25
    add(f"tied {n1}x{n2} shift {shift}", x, y, "asymptotic")
# Two values only, heavily tied.
add("two levels", [10] * 15 + [20] * 5, [10] * 18 + [20] * 2, "asymptotic")
# Log-normal, skewed like latencies, 20 % slower.
add("lognormal +20%", rng.lognormal(np.log(240), 0.15, 40), rng.lognormal(np.log(200), 0.15, 40), "asymptotic")

quantiles = []
for n in [1, 2, 3, 4, 7, 10, 33]:
    values = [float(v) for v in rng.normal(0, 1, n)]
    for p in [0.0, 0.25, 0.5, 0.95, 0.99, 1.0]:
        quantiles.append({"values": values, "p": p, "quantile": float(np.quantile(values, p))})

out = {
    "generator": "Tests/GatesTests/Fixtures/make_scipy_fixture.py",
    "scipy": scipy.__version__,
    "numpy": np.__version__,
    "mannwhitneyu": cases,
    "quantiles": quantiles,
}
path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "scipy-mannwhitneyu.json")
with open(path, "w") as f:
    json.dump(out, f, indent=1, sort_keys=True)
    f.write("\n")
print(f"wrote {len(cases)} Mann-Whitney cases and {len(quantiles)} quantiles to {path} (scipy {scipy.__version__})",
      file=sys.stderr)
