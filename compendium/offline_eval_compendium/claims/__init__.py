"""The claims ledger: each published number or claim beside ours, with a status.

Claims are declared before the experiment, as data
--------------------------------------------------
Each study opens with its claims table (:func:`declare` of :class:`Claim` objects):
the id, where the paper states it, the paper's sentence quoted, the kind, the
criterion, the world it is checked on and the mechanism its control world
switches off, and the output files that will back it.  The notebook builds a
:class:`Ledger` on that table; the experiment code then *fills in values*
(:meth:`Ledger.printed`, :meth:`Ledger.estimate`, :meth:`Ledger.check`, ...)
and the ledger alone decides the status, by the rule of the row's kind.  A
criterion changed after it was run keeps its earlier form in the declaration
(``revised``: the earlier criterion and the reason), and the row shows it.
``make reproduce`` gathers every notebook's rows into
``figures/<paper>/claims.csv`` and ``figures/claims.csv`` / ``claims.md``
(:func:`gather`).

Kinds of row
------------
Every row says what it is (column ``kind``, :data:`KINDS`), and where its
value comes from (column ``world``: ``paper`` for the paper's own printed
inputs, ``synthetic: <name>``, ``real: <name>``, or ``ours``):

printed
    a printed cell recomputed from the paper's own printed inputs (world ``paper``);
formula
    a formula, identity or derivation the paper states, checked numerically (world ``paper``);
prediction
    a printed cell predicted by a synthetic (or real) world: the interval of
    its effect over the seeds beside the printed value's band;
claim
    a qualitative or magnitude claim of the paper, checked on the paper's
    printed inputs or on a synthetic or real world;
calibration
    a printed value the synthetic world's knobs were fitted to: shown beside
    the paper, never counted as a reproduction;
check
    a check of ours (an identity of our code, anything that holds by
    construction), not a claim of the paper.

The counts come as three tables (:func:`count_tables`): the papers' printed
numbers, formulas and claims recomputed from their printed inputs; the
papers' claims and predictions on synthetic or real worlds; calibrations and
our checks.

One path to a synthetic status
------------------------------
A claim or prediction on a synthetic (or real) world gets its status only
from the estimate rule (:meth:`Ledger.estimate`,
:func:`~.estimates.estimate_verdict`): its declared effect
(:class:`Effect`: the quantity computed on each seed, the claimed direction
or printed value, and the smallest effect that matters) over the
confirmation block's seeds, the mean with its 95% interval beside the paired
interval of world minus control.  It ``holds`` when the interval lies beyond
0 as claimed and world minus control excludes 0; it ``differs`` when the
interval lies on the other side, inside +-delta, or (a printed value)
outside its band; it is ``not tested`` when no control discriminates; and
``inconclusive`` -- counted apart -- when the seeds cannot decide.  A
main-seed value is shown beside its sweep as an illustration, never with a
status of its own.

Confirmation
------------
Each study declares its seed blocks before any result (:class:`SeedBlocks`):
the seed count (the same for every claim and its control; :data:`SWEEP_SEEDS`
unless a larger one is declared up front), the development block its claims
were developed on, and a confirmation block derived from the notebook's name
(:func:`confirmation_start`), which no development run used.  The notebook
fills the ledger once per block (:meth:`Ledger.block`); a swept row takes its
status from the confirmation block and shows the development result beside
it (columns ``seeds``, ``confirmation``, ``development``).  A row changed
after a confirmation result was seen is ``exploratory``; a reading chosen
because it fits is ``ambiguous``; both are counted apart.

Statuses
--------
exact
    equal to the paper's value at its printed precision;
within-tolerance
    within a tolerance stated in the ``criterion`` column;
holds
    a qualitative claim that passes its stated criterion (on a synthetic
    world: its effect's interval lies beyond 0 as claimed, and world minus
    control excludes 0);
differs
    does not meet its criterion -- reported, never hidden, with a note saying why;
not tested
    a claim or prediction on a synthetic world that no control can
    discriminate;
inconclusive
    a claim or prediction on a synthetic or real world whose seeds cannot
    decide: counted apart, with the seeds a decision would take;
erratum
    the paper's printed value is inconsistent with its own inputs; the
    ``note`` gives the evidence;
exploratory
    changed (criterion, world, reading, rule or seed count) after a
    confirmation result was seen: counted apart, never a reproduction;
ambiguous
    the paper's text admits two readings and only the chosen one fits: both
    readings' values shown, counted apart.

Modules
-------
``schema``     the columns, kinds and statuses; :class:`Claim`, :func:`declare`
``estimates``  the estimate rule: :class:`Effect`, :func:`estimate_verdict`
``rules``      the printed-precision test, the tolerance rule, :func:`seed_sweep` (:func:`paired_seed_sweep`),
               :class:`SeedBlocks`
``ledger``     :class:`Ledger`, filled from the declared claims
``tables``     the count tables, the worlds table, the verdict, :func:`gather`
``audit``      :func:`problems` (the rules a gathered ledger must keep), :func:`uncited_files`

:func:`compare` (two ledgers' differing rows) lives beside what uses it, in
:mod:`offline_eval_compendium.changes`; it is re-exported here.
"""

from __future__ import annotations

from ..changes import COMPARED, compare
from .audit import problems, uncited_files
from .ledger import Ledger
from .rules import (SIZE_RTOL, SWEEP_SEEDS, SeedBlocks, confirmation_start, matches_printed, paired_seed_sweep,
                    seed_sweep, tolerance_too_wide)
from .estimates import DELTAS, RENEWAL, Effect, EstimateVerdict, estimate_verdict
from .schema import (APART, COLUMNS, KINDS, REPRODUCTION_KINDS, STATUSES, UNCONFIRMED, WORLD_PATTERN, Claim, Claims,
                     declare)
from .tables import COUNT_TABLES, count_tables, gather, table_of, verdict, worlds_table

__all__ = [
    "COLUMNS",
    "DELTAS",
    "RENEWAL",
    "Claim",
    "Effect",
    "EstimateVerdict",
    "estimate_verdict",
    "Claims",
    "count_tables",
    "declare",
    "problems",
    "uncited_files",
    "KINDS",
    "REPRODUCTION_KINDS",
    "STATUSES",
    "SWEEP_SEEDS",
    "SeedBlocks",
    "APART",
    "UNCONFIRMED",
    "confirmation_start",
    "tolerance_too_wide",
    "Ledger",
    "compare",
    "table_of",
    "gather",
    "matches_printed",
    "paired_seed_sweep",
    "seed_sweep",
    "verdict",
    "worlds_table",
]
