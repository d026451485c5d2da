"""piovano's numbered equations against direct implementations: eqs. (1)-(13) and Algorithm 1.

Each equation the library (:mod:`offline_eval.adaptive`) implements is recomputed by a direct,
obviously-right implementation -- explicit loops over the indices of the paper's sums, and over the data
points for the counts of Algorithm 1 -- on random inputs (full-support Dirichlet draws of ``M_BCG^(o)``
and ``M_BC^(l)``; random labels for Algorithm 1), and the largest absolute difference is reported.

Each row checks our code against a loop we wrote, not the paper's formula against the paper's numbers: it is
of kind ``check``, counted with our checks, never among the paper's recomputed results.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from offline_eval.adaptive import joint_distribution, metrics_from_joint, online_adaptive_metrics, reweighted_joint
from ...claims import Claim

#: The largest absolute difference at which an equation is the library's (binary floating point only).
TOL = 1e-12
SOURCE = "Sections II-B and III"

#: (row id, where, the paper's formula as printed) -- one row per equation.
EQUATIONS = (
    ("eq-mbc", "Section II-A", "M_BC^(o)(i, j) = sum_k M_BCG^(o)(i, j, k)"),
    ("eq1", "eq. (1)", "R_B(C_k) = sum_j M_BCG(k, j, k) / sum_{i,j} M_BCG(i, j, k)"),
    ("eq2", "eq. (2)", "R_C(C_k) = sum_i M_BCG(i, k, k) / sum_{i,j} M_BCG(i, j, k)"),
    ("eq3", "eq. (3)", "P_B(C_k) = sum_j M_BCG(k, j, k) / sum_j M_BC(k, j)"),
    ("eq4", "eq. (4)", "P_C(C_k) = sum_i M_BCG(i, k, k) / sum_i M_BC(i, k)"),
    ("eq5", "eq. (5)", "A_B = sum_{k,j} M_BCG(k, j, k)"),
    ("eq6", "eq. (6)", "A_C = sum_{k,i} M_BCG(i, k, k)"),
    ("eq7", "eq. (7)", "M_BCG^(l)(i, j, k) ~ M_BCG^(o)(i, j, k) M_BC^(l)(i, j) / M_BC^(o)(i, j)"),
    ("eq8", "eq. (8)", "R^_B(C_k) = sum_j M_BCG^(o)(k, j, k) w(k, j) / sum_{i,j} M_BCG^(o)(i, j, k) w(i, j), "
                       "w = M_BC^(l) / M_BC^(o)"),
    ("eq9", "eq. (9)", "R^_C(C_k) = sum_i M_BCG^(o)(i, k, k) w(i, k) / sum_{i,j} M_BCG^(o)(i, j, k) w(i, j)"),
    ("eq10", "eq. (10)", "P^_B(C_k) = sum_j M_BCG^(o)(k, j, k) w(k, j) / sum_j M_BC^(l)(k, j)"),
    ("eq11", "eq. (11)", "P^_C(C_k) = sum_i M_BCG^(o)(i, k, k) w(i, k) / sum_i M_BC^(l)(i, k)"),
    ("eq12", "eq. (12)", "A^_B = sum_{k,j} M_BCG^(o)(k, j, k) w(k, j)"),
    ("eq13", "eq. (13)", "A^_C = sum_{i,k} M_BCG^(o)(i, k, k) w(i, k)"),
    ("alg1", "Algorithm 1", "compute M_BC^(o), M_BCG^(o) (1/N counts) and M_BC^(l) (1/M counts); substitute "
                            "M_BC^(o)(i, j) with M_BC^(l)(i, j) and M_BCG^(o)(i, j, k) with "
                            "M_BCG^(o)(i, j, k) M_BC^(l)(i, j) / M_BC^(o)(i, j) in eqs. (1)-(6)"),
)


def equation_claims(evidence=("piovano/equations.csv",)) -> list[Claim]:
    """One ``check`` declaration per equation: ``piovano-eq<n>``, ``piovano-eq-mbc`` and ``piovano-alg1``."""
    return [Claim(f"piovano-{key}", where, formula, "check",
                  f"the library's value equals a direct implementation of the formula (explicit loops we wrote) on "
                  f"random inputs: max |difference| <= {TOL:g}", evidence=evidence,
                  revised="declared a formula of the paper; the row checks our code against a loop we wrote, not the "
                          "formula against the paper's numbers, so it is a check of ours")
            for key, where, formula in EQUATIONS]


# -- the direct implementations: loops over the indices of the paper's sums -----------------------
def _metrics(m, m_bc_den=None, w=None):
    """Eqs. (1)-(6) on ``m`` -- or, with the weights ``w`` and live ``m_bc_den``, eqs. (8)-(13) -- by loops."""
    k = m.shape[0]
    w = np.ones((k, k)) if w is None else w
    m_bc = [[sum(m[i, j, g] for g in range(k)) for j in range(k)] for i in range(k)]
    den_bc = m_bc if m_bc_den is None else m_bc_den
    out = {}
    for c in range(k):
        truth = sum(m[i, j, c] * w[i, j] for i in range(k) for j in range(k))
        right_b = sum(m[c, j, c] * w[c, j] for j in range(k))
        right_c = sum(m[i, c, c] * w[i, c] for i in range(k))
        out.setdefault("R_B", []).append(right_b / truth)
        out.setdefault("R_C", []).append(right_c / truth)
        out.setdefault("P_B", []).append(right_b / sum(den_bc[c][j] for j in range(k)))
        out.setdefault("P_C", []).append(right_c / sum(den_bc[i][c] for i in range(k)))
    out["A_B"] = [sum(m[c, j, c] * w[c, j] for c in range(k) for j in range(k))]
    out["A_C"] = [sum(m[i, c, c] * w[i, c] for i in range(k) for c in range(k))]
    return {key: np.array(v) for key, v in out.items()}


def _library(res):
    return {"R_B": res.baseline.recall, "R_C": res.candidate.recall, "P_B": res.baseline.precision,
            "P_C": res.candidate.precision, "A_B": np.array([res.baseline.accuracy]),
            "A_C": np.array([res.candidate.accuracy])}


def _counts(b, c, g, k, n):
    """1/n |{d : H_B(d) = i, H_C(d) = j (, G(d) = l)}| by a loop over the data points."""
    m_bc, m_bcg = np.zeros((k, k)), np.zeros((k, k, k))
    for d in range(len(b)):
        m_bc[b[d], c[d]] += 1 / n
        if g is not None:
            m_bcg[b[d], c[d], g[d]] += 1 / n
    return m_bc, m_bcg


def _labels(rng, k, n):
    """``n`` random (B, C, G) labels with every (B, C) cell present (so no cell is uncovered)."""
    cells = np.array([(i, j) for i in range(k) for j in range(k)])
    b = np.concatenate([cells[:, 0], rng.integers(0, k, n - k * k)])
    c = np.concatenate([cells[:, 1], np.where(rng.random(n - k * k) < 0.6, b[k * k:], rng.integers(0, k, n - k * k))])
    g = np.where(rng.random(n) < 0.7, b, rng.integers(0, k, n))
    return b, c, g


def equations_table(seed: int = 0, *, n_draws: int = 20, n_classes: int = 4) -> pd.DataFrame:
    """Each equation of :data:`EQUATIONS`: the library against the direct implementation on ``n_draws`` inputs.

    Columns ``equation, formula, check, max_abs_diff, holds``.
    """
    rng = np.random.default_rng(seed)
    k = n_classes
    diff = {key: 0.0 for key, _, _ in EQUATIONS}
    eq_of = {"R_B": ("eq1", "eq8"), "R_C": ("eq2", "eq9"), "P_B": ("eq3", "eq10"), "P_C": ("eq4", "eq11"),
             "A_B": ("eq5", "eq12"), "A_C": ("eq6", "eq13")}
    for _ in range(n_draws):
        m = rng.dirichlet(np.ones(k**3)).reshape(k, k, k)
        m_l = rng.dirichlet(np.ones(k * k)).reshape(k, k)
        m_bc = m.sum(axis=2)
        m_bc_loop = np.array([[sum(m[i, j, g] for g in range(k)) for j in range(k)] for i in range(k)])
        diff["eq-mbc"] = max(diff["eq-mbc"], float(np.abs(m_bc - m_bc_loop).max()))
        off, lib_off = _metrics(m), _library(metrics_from_joint(m))
        w = np.array([[m_l[i, j] / m_bc_loop[i, j] for j in range(k)] for i in range(k)])
        oam, lib_oam = _metrics(m, m_l, w), _library(metrics_from_joint(reweighted_joint(m, m_l)[0]))
        for key, (plain, adapted) in eq_of.items():
            diff[plain] = max(diff[plain], float(np.abs(lib_off[key] - off[key]).max()))
            diff[adapted] = max(diff[adapted], float(np.abs(lib_oam[key] - oam[key]).max()))
        w7 = np.array([[[m[i, j, g] * m_l[i, j] / m_bc_loop[i, j] for g in range(k)] for j in range(k)]
                       for i in range(k)])
        diff["eq7"] = max(diff["eq7"], float(np.abs(reweighted_joint(m, m_l)[0] - w7).max()))
        # Algorithm 1 from the data points: offline (B, C, G) labels and a live (B, C) sample
        b_o, c_o, g_o = _labels(rng, k, 300)
        b_l, c_l, _ = _labels(rng, k, 500)
        mo_bc, mo_bcg = _counts(b_o, c_o, g_o, k, len(b_o))
        ml_bc, _ = _counts(b_l, c_l, None, k, len(b_l))
        direct = _metrics(mo_bcg, ml_bc, ml_bc / mo_bc)
        lib = _library(online_adaptive_metrics(b_o, c_o, g_o, b_l, c_l, n_classes=k, method="joint"))
        lib_m = np.abs(joint_distribution(b_o, c_o, g_o, n_classes=k) - mo_bcg).max()
        diff["alg1"] = max(diff["alg1"], float(lib_m), *(float(np.abs(lib[x] - direct[x]).max()) for x in direct))
    checks = {"eq-mbc": "M_BC^(o) = M_BCG^(o).sum(axis=2) against the loop over k",
              "eq7": "reweighted_joint against the loop over (i, j, k)",
              "alg1": "online_adaptive_metrics(method='joint') and joint_distribution on labels against counts "
                      "by a loop over the data points, then eqs. (8)-(13) by loops"}
    rows = []
    for key, where, formula in EQUATIONS:
        n = int(key[2:]) if key.startswith("eq") and key[2:].isdigit() else 0
        check = checks.get(key) or (f"metrics_from_joint(M_BCG) against the loops of eq. ({n})" if n <= 6 else
                                    f"metrics_from_joint(reweighted_joint(M_BCG, M_BC^(l))) against the loops "
                                    f"of eq. ({n})")
        rows.append(dict(equation=where, formula=formula, check=check, max_abs_diff=diff[key],
                         holds=diff[key] <= TOL))
    return pd.DataFrame(rows)


def fill_equation_claims(ledger, table: pd.DataFrame, *, n_draws: int) -> None:
    """One ``check`` row per equation, from :func:`equations_table`."""
    for (key, _, _), r in zip(EQUATIONS, table.itertuples()):
        ledger.check(f"piovano-{key}", holds=bool(r.holds), paper_value="the formula as printed",
                     reproduced_value=f"max |difference| {r.max_abs_diff:.2g} over {n_draws} random inputs",
                     criterion=r.check)
