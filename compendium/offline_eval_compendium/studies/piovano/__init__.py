"""Piovano et al., *Online Adaptive Metrics for Model Evaluation on Non-representative Offline Test Data*: one
study per notebook (``census_shift``, ``matrices_table1``, ``table2_digits``, ``table3_convergence``) and the
private modules they are built on."""
