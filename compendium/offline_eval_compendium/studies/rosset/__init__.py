"""rosset: Ranking-Based Evaluation of Regression Models (ICDM 2005).

:mod:`.measures` is the study of ``notebooks/rosset_measures.py`` (Sections 2-4: the measures, their identities,
the three curves and the evaluation breakdown); :mod:`.wallet` the study of ``notebooks/rosset_wallet.py``
(Section 5: the IT-wallet case study), built on the synthetic survey and one seed of its experiment
(``_survey``).
"""
