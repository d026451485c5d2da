"""Per-paper glue: read the printed numbers, run one seed of an experiment, compare."""
