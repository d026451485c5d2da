"""Toy notebooks of the runner's tests: one that writes a table and fails in its last cell, and the same without it."""

FAILING = '''# %% [markdown]
# A notebook that writes one table, then fails.

# %% tags=["parameters"]
seed = 0
output_root = None

# %%
import pandas as pd
from offline_eval_compendium.io import OutputDir
OutputDir("yi", output_root).table(pd.DataFrame({"a": [1]}), "half")

# %%
raise RuntimeError("boom in cell three")
'''

GOOD = FAILING.rsplit("# %%", 1)[0]
