# %% [markdown]
# # piovano: Table II (many classes) and real classifiers on real data
#
# Reproduces from Piovano et al., *Online Adaptive Metrics for Model Evaluation on Non-representative
# Offline Test Data*:
#
# * **Table II** — the news-headline experiment: 50,214 live items, an offline set of N = 2,500, "the
#   offline joint distribution randomly generated from the live one" (Section IV-A). The headlines and the
#   SVM / BERT models are not available, so the live traffic is simulated
#   (`offline_eval.synth.classifiers.two_model_world`): `n_classes` classes with a Zipf prior
#   (`zipf_exponent`); each model is right on class k with a per-class probability (spread
#   `accuracy_spread`, prior-weighted mean = the printed online accuracies 0.560 and 0.752); hard items
#   are hard for both (Gaussian copula, correlation 0.5); wrong labels come from a sparse confusion matrix
#   shared by both models. The offline cell distribution is `M^(l)^flatten · exp(sigma Z) · boost^[i≠j]`
#   normalised (`random_offline_joint`): a random log-normal distortion of every cell; disagreements
#   over-sampled by `disagreement_boost` ("It is a common practice to draw a large fraction of those
#   confused utterances for re-annotation to be added to the offline test set", Section II-C); and the cells
#   flattened by the exponent `flatten` ("the offline data are sampled according to the Gaussian
#   distribution while the online data are skewed and heavy-tailed", Section I). The offline set takes
#   those counts from the live cells.
# * **Calibrate, then predict.** The paper prints one pair of matrices drawn this way (the 5-class
#   dataset's `M^(l)` and `M^(o)`, Section IV-A). By default (`sigma`, `disagreement_boost`, `flatten` =
#   None) the three knobs are first fitted to that pair (`calibrate_offline_distortion`: least squares of the
#   printed offline log-shares on the live log-shares and the disagreement indicator), recorded as a
#   calibration. That world's offline sets were far less distorted than Table II's (baseline offline
#   accuracy 0.296 against the printed 0.160), so the strength of the distortion (`disagreement_boost`)
#   and how often the two models err together (`error_correlation`, which bounds how low a by-cell offline
#   draw can take the baseline) are then fitted to Table II's two printed offline accuracies (declared
#   calibration rows); sigma and flatten keep Table I's fit. Every other printed cell of Table II -- the
#   offline std cells, the IndDis and JointDis rows -- and its claims are predictions, the seeds' interval
#   against the printed value's band (+-50%). Said plainly: the flattening term was added after the world without it (sigma 0.55,
#   boost 4.37) predicted offline accuracies far above the printed ones; earlier values (sigma 1.0, boost
#   8, set by hand) are quoted in the notes.
# * **Real models on real data** — the same protocol on scikit-learn's bundled handwritten digits
#   (1,797 images, 10 classes): a Gaussian naive Bayes baseline and a logistic-regression candidate
#   trained on `train_fraction` of the images, the rest as live traffic, a biased offline set of
#   `n_offline_digits` items drawn by cell. The labels are real, so this claim does not rest on a
#   simulated `p(G | B, C)`.
#
# Columns as in Table I: Acc, and "std" = standard deviation across classes of (estimated − online)
# recall / precision (ddof = 0, over classes where both are defined; the reading Table I's printed numbers
# support), with the root mean square of the same differences beside it (`rms_Rec`, `rms_Prec`). `uncovered_mass` is the live mass
# in (B, C) cells with no offline item: eq. (7) cannot re-weight it and the OAM are then estimates on the
# covered part of the traffic (see `online_adaptive_metrics`). Each claim declares its effect (the gap by which
# it holds, the smaller of the two models'; delta 0.02, the paper's smallest printed gap) and is judged by the
# estimate rule: its interval over `n_seeds` seeds beside a **control world** whose offline set is drawn without bias (`sigma = 0`, no over-sampling of
# disagreements, no flattening: `P.CONTROL_RANDOM`), the paper's mechanism switched off. The online accuracies are the
# world's calibration targets (rows of kind `calibration`), so in the Table II world "offline under-estimates
# the accuracy" compares four calibration targets: a check of the calibration, not the paper's result. The
# confirmation block was renewed when the claims moved to the estimate rule. The claims are declared first, in the study
# `offline_eval_compendium.studies.piovano.table2_digits` (table below); the experiment only fills values.
#
# * **Fig. 1** — the paper's motivating figure (an NLU application: "the offline data are sampled
#   according to the Gaussian distribution while the online data are skewed and heavy-tailed"). Its data
#   are not given; the analogue shows the class distributions of the Table II world's live traffic and
#   offline set, and checks whether the offline one is flatter (normalised entropy): it is by construction
#   (the flattening knob was fitted to make it so), so that row is a check of ours, not a reproduction.

# %% tags=["parameters"]
seed = 0
n_live = None  # None: as printed, 50,214 live items (data/reference/piovano); range: 5_000..200_000
n_offline = None  # None: the printed offline size, 2,500; range: 500..10_000
n_classes = 41  # range: 10..41
zipf_exponent = 1.0
accuracy_spread = 0.15
sigma = None  # None: fitted to the printed 5-class matrices
disagreement_boost = None  # None: fitted to Table II's printed offline accuracies
flatten = None  # None: fitted to the printed 5-class matrices
error_correlation = None  # None: fitted to Table II's printed offline accuracies
n_calibration_seeds = 4  # range: 1..16
train_fraction = 0.35
n_offline_digits = 200  # range: 50..1_000
digits_sigma = 1.0  # the digits check keeps its own hand-set knobs (real labels, its own protocol)
digits_boost = 4.0
n_seeds = 20  # seeds in each block (declared: P.SEEDS); range: 2..80
output_root = None

# %%
from IPython.display import Markdown

from offline_eval_compendium.claims import Ledger
from offline_eval_compendium.io import OutputDir
from offline_eval_compendium.studies.piovano import table2_digits as P

out = OutputDir("piovano", output_root)
blocks = P.SEEDS.sized(n_seeds, development=seed)
ledger = Ledger("piovano", "piovano_table2_digits", claims=P.CLAIMS, seeds=blocks)

# %%
run = P.run_experiment(
    blocks, seed=seed, n_live=n_live, n_offline=n_offline, n_classes=n_classes, zipf_exponent=zipf_exponent,
    accuracy_spread=accuracy_spread, sigma=sigma, disagreement_boost=disagreement_boost, flatten=flatten,
    error_correlation=error_correlation, n_calibration_seeds=n_calibration_seeds, train_fraction=train_fraction,
    n_offline_digits=n_offline_digits, digits_sigma=digits_sigma, digits_boost=digits_boost)
run.world["accuracy"]

# %% [markdown]
# ## The claims, declared before the experiment
# Every sweep runs on two seed blocks of `n_seeds` seeds, declared here before any result: the development block
# (the seeds the claims were developed on) and a confirmation block derived from the notebook's name, which no
# development run used. A status comes from the confirmation block, the development result beside it.

# %%
print(f"development seeds {blocks.text('development')}; confirmation seeds {blocks.text('confirmation')}")
P.CLAIMS.frame()

# %% [markdown]
# ## The offline-set generator calibrated on the printed 5-class matrices

# %%
dist = run.distortion
out.table(dist.cells, "offline_distortion_calibration", floatfmt=".3f")
print(f"fitted: sigma = {dist.sigma_fit:g}, boost = {dist.boost_fit:g}, flatten = {dist.flatten_fit:g}")

# %% [markdown]
# ## Table II's world calibrated on Table II's printed offline accuracies
# With the Table I fit alone the world's offline sets are far less distorted than Table II's (when this world was
# built, the baseline's offline accuracy came out near twice the printed 0.160: a record of that development
# step, not this run's number). So the disagreement boost and the live models' error correlation are fitted to
# the two printed offline accuracies (`calibrate_table2_world`: a grid search on calibration seeds apart from the
# sweep's); sigma and flatten keep Table I's fit. Every other cell stays a
# prediction, the offline std cells included (the grid shows how far they can move).

# %%
out.table(run.calibration, "table2_calibration")
print(f"used: {run.knobs}")
run.calibration.sort_values("objective").head(3)

# %% [markdown]
# ## Table II analogue (one seed, the printed table beside it)
# The world's inputs are the online accuracies, the distortion's shape fitted to Table I's printed pair and
# its strength fitted to Table II's offline accuracies, so every other printed offline and OAM cell of Table II
# is a prediction: the seeds' mean with its interval against the printed value's band (+-50%), the control
# world's beside it.

# %%
out.table(run.table2, "table2", floatfmt=".3f")
run.table2

# %%
for b in blocks.BLOCKS:
    out.table(run.sweeps[b], "table2_seed_sweep" + blocks.suffix(b))
    out.table(run.controls[b], "table2_seed_sweep_control" + blocks.suffix(b))
run.sweep_means

# %% [markdown]
# What else was tried: a larger random distortion of every cell, on the first `n_seeds // 2` seeds, beside the
# calibrated world's sweep (the notes of the std claims quote it).

# %%
out.table(run.tried, "table2_tried")
run.tried

# %% [markdown]
# Why the printed offline std cells stay out of reach: the widened families the paper's text allows (a class-level
# dispersion of the offline cells, a wider per-class accuracy spread), at the calibrated knobs on the calibration
# seeds, beside the printed Offline metrics row (a diagnosis: no family is chosen from it).

# %%
out.table(run.reach, "table2_dispersion")
run.reach

# %% [markdown]
# ## Real classifiers on the handwritten digits

# %%
out.table(run.digits, "digits", floatfmt=".3f")
run.digits

# %%
for b in blocks.BLOCKS:
    out.table(run.digits_sweeps[b], "digits_seed_sweep" + blocks.suffix(b))
    out.table(run.digits_controls[b], "digits_seed_sweep_control" + blocks.suffix(b))
run.digits_means

# %% [markdown]
# ## Fig. 1: offline vs online class distribution (Table II world)

# %%
out.table(run.fig1, "fig1_class_counts", floatfmt=".4f")
out.figure(P.fig1_figure(run.fig1), "fig1", caption="piovano Fig. 1 (analogue): class shares of the live traffic and of "
           "the offline set of the Table II world, classes by decreasing online count")
for b in blocks.BLOCKS:
    out.table(run.fig1_tables[b], "fig1_seed_sweep" + blocks.suffix(b))

# %% [markdown]
# ## Claims

# %%
for b in ledger.blocks:
    P.add_claims(ledger, run, block=b)
out.claims(ledger)
ledger.frame()[["claim_id", "kind", "paper_value", "reproduced_value", "status", "control"]]

# %%
Markdown(ledger.verdict())
