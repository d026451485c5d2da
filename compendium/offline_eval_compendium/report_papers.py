"""What each paper prints, in the paper's order: the report's sections of a paper page.

One :class:`Item` per table, figure (and numbered section with equations or propositions) of a paper, in
the order the paper prints them, with the paper's caption.  A ledger row belongs to the first item whose
``sources`` pattern matches its ``source`` (the item order below is the paper's, the matching order is
``priority`` first, so that ``Section 3.2 (Fig. 3)`` goes to Fig. 3, not to Section 3); rows no item claims
land in a last section, so that no row is ever left off a page.  ``figures`` and ``tables`` name our own
outputs (``figures/<paper>/<stem>.png`` / ``.csv``) that reproduce the item; the other output files the
item's ledger rows name as evidence are shown as supporting tables.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

__all__ = ["ITEMS", "Item", "assign"]


@dataclass(frozen=True)
class Item:
    """One table, figure or numbered section of a paper."""

    slug: str
    label: str
    caption: str
    sources: str  # a regular expression on the ledger's `source`, matched from its start
    figures: tuple[str, ...] = ()
    tables: tuple[str, ...] = ()
    reference: tuple[str, ...] = ()  # `source` values of data/reference/<paper>/*.csv printed in this item
    math: str = ""  # the paper's formulas for this item, in LaTeX (display math)
    priority: int = 0
    kind: str = field(default="table")  # table, figure or section
    quoted: bool = True  # the caption is the paper's (a section's summary and our own sections are ours)

    @property
    def caption_is_the_papers(self) -> bool:
        return self.quoted and self.kind != "section"


ITEMS: dict[str, list[Item]] = {
    "yi": [
        Item("section2", "Section 2", "Online advertising: the rank score of an ad (eq. 1) and the generalized "
             "second price.", r"(Section 2\b|Section 2\.|eq\. \(1\))", kind="section"),
        Item("table1", "Table 1", "A summary of evaluation metrics used by papers accepted to the WWW, the ACM WSDM, "
             "and the ACM SIGKDD conferences in years 2011 and 2012 in the area of algorithmic search and online "
             "advertising.", r"Table 1\b", tables=("table1", "table1_checks"), reference=("Table 1",)),
        Item("section4", "Sections 4-5", "The offline metrics as the paper defines them: AUC, RIG (eq. 2), MSE, "
             "NMSE, MAE and prediction error, and AUC's invariance to a rank-preserving change of the scores.",
             r"(Section 4\.[1-5]\b|Section 5\.1\b|eq\. \(2\))", kind="section"),
        Item("table2", "Table 2", "The AUC Anomaly 1: a poorly fitted model has even higher AUC in the presence of a "
             "large number of negative samples concentrated on the low end of the pClick score range.",
             r"Table 2\b", tables=("table2",), reference=("Table 2",),
             math=r"\mathrm{AUC} = \Pr\left(p_{\text{click}} > p_{\text{no click}}\right),\qquad "
                  r"\mathrm{CTR} = \frac{\text{clicks}}{\text{impressions}}"),
        Item("table3", "Table 3", "The AUC Anomaly 2: changes in the sample distribution on either end of FPR impact "
             "the AUC score quite substantially, although the actual model performance is quite similar at the "
             "practical operating point.", r"Table 3\b", tables=("table3",), reference=("Table 3",)),
        Item("table4", "Table 4", "The AUC Anomaly 3: a poorly fitted model has the same AUC as a well-fitted model.",
             r"Table 4\b", tables=("table4", "anomaly_summary"), reference=("Table 4",)),
        Item("tables2-4", "Tables 2-4 together", "The three anomalies' ROC curves, and their AUC recomputed from "
             "row-level logs and at production scale (no figure in the paper).", r"Tables 2-4",
             figures=("roc_tables2-4",), kind="figure", quoted=False),
        Item("fig1", "Figure 1", "ROC curves of sponsored search and contextual ads.", r"Figure 1\b",
             figures=("fig1",), tables=("fig1_auc",), reference=("Figure 1",), kind="figure"),
        Item("fig2", "Figure 2", "The RIG and PE scores over varying CTR of sample data: the RIG scores drop with "
             "increasing CTR.", r"Figure 2\b", figures=("fig2",), tables=("fig2_data",), kind="figure",
             math=r"\mathrm{RIG} = 1 - \frac{-\frac1n\sum_i \left(c_i\log p_i + (1-c_i)\log(1-p_i)\right)}"
                  r"{-\left(\gamma\log\gamma + (1-\gamma)\log(1-\gamma)\right)},\qquad "
                  r"\mathrm{PE} = \frac{\overline{p}}{\gamma} - 1"),
        Item("table5", "Table 5", "Offline and online metrics of a new model (model-2) compared to the baseline "
             "model.", r"Table 5\b", tables=("table5",), reference=("Table 5",)),
        Item("table6", "Table 6", "Simulated metric of a new model (model-2) compared to the baseline model "
             "(Section 4.6: replaying logged auctions).", r"(Table 6\b|Section 4\.6)", tables=("table6",),
             reference=("Table 6",)),
        Item("fig3-4", "Figures 3-4", "Figure 3: relative contribution of log-loss over the typical range of pClick "
             "of interest. Figure 4: pClick prediction error (PE).", r"Figures? 3", figures=("fig3", "fig4"),
             tables=("fig3_fig4_breakdown",), kind="figure"),
        Item("section7", "Section 7", "Summary and discussions: which offline metrics are reliable, and the "
             "simulated metrics.", r"Section 7\b", kind="section"),
    ],
    "rosset": [
        Item("section2", "Section 2", "Residual- and ranking-based evaluation: the T and R statistics and their "
             "link to Kendall's tau and Spearman's rho (eqs. 2-5).", r"(eq\. [45]\b|Section 2\b)",
             tables=("identities",), kind="section",
             math=r"T = \sum_{i<j} \mathbf{1}\{s_i > s_j\},\quad \hat\tau = 1 - \frac{4T}{n(n-1)},\qquad "
                  r"R = \sum_{i<j} (j-i)\,\mathbf{1}\{s_i > s_j\},\quad \hat\rho = 1 - \frac{12R}{n(n-1)(n+1)}"),
        Item("section3-1", "Section 3.1", "Statistical properties of tau: its variance (eq. 6) and a confidence "
             "interval.", r"Section 3\.1", kind="section",
             math=r"\operatorname{Var}(\hat\tau) = \frac{8}{n(n-1)}\left(\pi_c(1-\pi_c) + 2(n-2)"
                  r"(\pi_{cc} - \pi_c^2)\right)"),
        Item("fig1", "Figure 1", "Percent of correctly ranked pairs involving a particular prediction.",
             r"(Fig\. 1\b|Figs\. 1-2|Section 3\.2 \(Fig\. 1)", figures=("fig1",), reference=("Figure 1",), kind="figure", priority=1),
        Item("fig2", "Figure 2", "AUC as a function of cutoff position above which the truth will be assigned to "
             "class 1, adjusted for the number of pairs.", r"(Fig\. 2\b|Section 3\.2 \(Fig\. 2)",
             figures=("fig2",), kind="figure", priority=1),
        Item("fig3", "Figure 3", "Lift-curve of the cumulative rank.", r"(Fig\. 3\b|Section 3\.2 \(Fig\. 3)",
             figures=("fig3",), reference=("Figure 3",), kind="figure", priority=1),
        Item("section4", "Section 4", "Evaluation robustness and ranking-based evaluation (Propositions 1-2).",
             r"(Section 4\b|Proposition)", figures=("breakdown",), tables=("breakdown_k",), kind="section"),
        Item("fig4", "Figure 4", "IT Wallet distribution (the x-axis on a logarithmic scale).", r"Fig\. 4\b",
             figures=("fig4",), kind="figure"),
        Item("table1", "Table 1", "The effect of the single most influential observation on different measures.",
             r"Table 1\b", tables=("table1",), reference=("Table 1",)),
        Item("table2", "Table 2", "Performance measures and statistical analysis for two IT Wallet models.",
             r"(Table 2\b|Section 5\.3)", tables=("table2", "printed_consistency"), reference=("Table 2", "Section 5.3")),
        Item("fig5", "Figure 5", "Comparative model performance in terms of AUC across all cutoffs.",
             r"(Fig\. 5\b|Section 5\.4)", figures=("fig5",), tables=("fig5_cutoffs",), reference=("Section 5.4",),
             kind="figure"),
    ],
    "piovano": [
        Item("fig1", "Fig. 1", "Comparison of offline and online distribution of the utterance intent counts in an "
             "NLU application.", r"Fig\. 1\b", figures=("fig1",), tables=("fig1_class_counts",), kind="figure"),
        Item("section2", "Section II", "The toy example: the joint distribution of two models' predictions, "
             "offline and online.", r"(Section II\b|eq\. \([1-6]\))", tables=("toy",), reference=("Section II toy example",),
             kind="section",
             math=r"M_{BC}^{(o)}(i,j) = \frac1N\left|\{d \in \mathbb{D}^{(o)} : H_B(d) = C_i,\ H_C(d) = C_j\}\right|"),
        Item("section3", "Section III", "Online adaptive metrics: re-weighting offline recall and precision by "
             "the joint distribution of the two models' predictions on live data (eqs. 1-13, Theorem 2).",
             r"(Section III|Theorem 2|eq\. \(([7-9]|1[0-3])\)|Algorithm 1)", figures=("convergence",), tables=("convergence",), kind="section",
             math=r"R_B^{(\cdot)}(C_k) = \frac{\sum_j M_{BCG}^{(\cdot)}(k,j,k)}{\sum_{i,j} M_{BCG}^{(\cdot)}(i,j,k)},"
                  r"\qquad P_B^{(\cdot)}(C_k) = \frac{\sum_j M_{BCG}^{(\cdot)}(k,j,k)}{\sum_j M_{BC}^{(\cdot)}(k,j)}"),
        Item("section4a", "Section IV-A", "The printed live and offline joint distributions of the conference-paper "
             "experiment.", r"Section IV-A", figures=("matrices",), tables=("matrices",),
             reference=("Section IV-A",), kind="section"),
        Item("table1", "Table I", "Classification results for both baseline and candidate models on the conference "
             "paper dataset.", r"Table I\b", tables=("table1",), reference=("Table I",)),
        Item("table2", "Table II", "Classification results for both baseline and candidate models on the news "
             "headline dataset.", r"Table II\b", tables=("table2", "digits"), reference=("Table II",)),
        Item("protocol", "Tables I-II (protocol)", "The experimental protocol both tables share.",
             r"Tables I-II", kind="section"),
        Item("table3", "Table III", "Relative improvement on the correlation between offline metrics and online "
             "measurements for a commercial dataset using the proposed re-weighting method.", r"Table III\b",
             tables=("table3", "table3_releases"), reference=("Table III",)),
        Item("census", "Real data", "The online adaptive metrics on a real shift (US Census ACS employment, "
             "Massachusetts: 2015 offline, 2016-2018 live), beside NannyML's CBPE.", r"(Real data|.*on real data)",
             figures=("census_shift_errors",), tables=("census_shift_errors", "census_shift_periods"),
             kind="section", priority=2, quoted=False),
    ],
    "chapelle": [
        Item("section2", "Section 2", "Offline metrics of a response model in an auction: the utility, its limits "
             "(eq. 2), and the expected utility under a Gamma competing bid.", r"(Section 2|eq\. \(\d+\))",
             tables=("closed_form",), kind="section",
             math=r"EU = \int_0^{pv} (av - \tilde c)\,\Pr(\tilde c \mid c)\,d\tilde c,\qquad "
                  r"\Pr(\tilde c \mid c, \beta) \propto \tilde c^{\beta c} e^{-\beta \tilde c}"),
        Item("algorithm1", "Algorithm 1", "Computation of the correlation coefficients.", r"Algorithm 1",
             reference=("Algorithm 1",), kind="section"),
        Item("section3", "Section 3", "The experimental set-up: A/B tests on publisher networks.",
             r"Section 3\b", tables=("networks", "differences", "click_noise"), reference=("Section 3",),
             kind="section"),
        Item("fig1", "Figure 1", "Correlation between A/B test results and the expected utility as a function of "
             "beta. As beta goes to 0 the metric is equivalent to a weighted MSE, as it goes to infinity to the "
             "utility.", r"Fig\. 1\b", figures=("fig1",), kind="figure", priority=1),
        Item("table1", "Table 1", "Correlation coefficients and their standard deviation, as computed by "
             "Algorithm 1, between A/B test results and offline metrics.", r"Table 1\b", tables=("table1",),
             reference=("Table 1",)),
        Item("fig2", "Figure 2", "Scatter plots of offline vs online results, each point a publisher network. "
             "Left: expected utility, right: weighted MSE.", r"Fig\. 2\b", figures=("fig2",), kind="figure"),
    ],
}

ITEMS["arena"] = [
    Item("which_when", "Which estimate to trust when", "Per mechanism, the estimates that predict the expected online "
         "outcome (no A/B noise) best where the mechanism acts and where it is switched off, from per-seed paired "
         "differences on the confirmation block, Holm over every cell; a tie only where two one-sided tests place "
         "the gap within +-0.05; the real logs' row below the worlds.", r"(?!)", tables=("which_when",),
         kind="section", quoted=False),
    Item("leaderboard", "Leaderboard", "Which offline estimate predicts the A/B outcome: candidate models against a "
         "production model in chapelle's RTB world, yi's sponsored-search world (with IPS, SNIPS and doubly robust "
         "estimates on exploration logs) and piovano's classifier world; every pair of estimates compared on the "
         "same seeds and candidates, an order printed only where the corrected interval excludes 0.", r".",
         figures=("leaderboard",), tables=("leaderboard", "pairs"), kind="figure", quoted=False),
]

OTHER = Item("other", "Other claims", "Ledger rows whose source names no table, figure or section above.", r"(?!)",
             kind="section", quoted=False)


def assign(paper: str, sources) -> list[Item]:
    """The item of each ledger ``source`` of ``paper`` (:data:`OTHER` when none matches)."""
    items = sorted(ITEMS.get(paper, []), key=lambda it: -it.priority)
    out = []
    for s in sources:
        out.append(next((it for it in items if re.match(it.sources, str(s))), OTHER))
    return out
