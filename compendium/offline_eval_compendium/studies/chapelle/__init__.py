"""chapelle: Offline Evaluation of Response Prediction in Online Advertising Auctions (WWW 2015 Companion).

:mod:`.auctions` is the study of ``notebooks/chapelle_auctions.py``; its private modules are the paper's
equations against direct implementations (``_formulas``), the calibrated synthetic world (``_world``) and the
seed sweep beside its control worlds (``_sweep``).
"""
