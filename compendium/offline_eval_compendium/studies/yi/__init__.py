"""yi: Predictive Model Performance: Offline and Online Evaluations (KDD 2013).

Each public module is the study of the notebook ``notebooks/yi_<name>.py``: :mod:`.auc_anomalies` (Tables 1-4),
:mod:`.metrics_behaviour`, :mod:`.production_scale` (Tables 2-4 on Dask) and :mod:`.offline_online` (Tables 5-6).
Their private modules: the printed bins of Tables 2-4 recomputed (``_bins``), the paper's formulas against direct
implementations (``_formulas``), the sponsored-search auction world (``_auction``), its calibration
(``_calibration``) and its seed sweeps (``_worlds``).
"""
