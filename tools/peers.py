"""Re-create the vendored census data and the peer's outputs: ``make peers`` (never part of ``make reproduce``).

Run by NannyML's own environment (``build/peers-venv``, pins in ``tools/peers-requirements.txt``):

1. ``pip download nannyml==0.13.1 --no-deps`` (the wheel, into ``build/peers/``) and read the three
   ``employment_MA_*.pq`` files straight from it, checking their SHA-256 against the data README's;
2. write ``data/real/census_ma/employment_ma_2015_2018.parquet``: the columns the study uses, 2015-2018
   in one table (the 2016-2018 labels joined on ``id``);
3. run NannyML's CBPE, fitted on each offline set of 2015 (the representative one and the declared
   non-representative one, ``studies/piovano/_census_data.py``), on every live year and chunk, and write its
   estimates to ``cbpe_<offline set>.csv`` with its version and parameters in ``cbpe_run.json``.

Floats are written at 10 significant digits, so a second run gives the same bytes.  The usage
telemetry of NannyML is switched off (``NML_DISABLE_USAGE_LOGGING=1``) before it is imported.
"""

from __future__ import annotations

import argparse
import hashlib
import importlib.util
import io
import json
import os
import subprocess
import sys
import zipfile
from pathlib import Path

os.environ["NML_DISABLE_USAGE_LOGGING"] = "1"

import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "data" / "real" / "census_ma"
NANNYML = "0.13.1"
WHEEL = f"nannyml-{NANNYML}-py3-none-any.whl"
ORIGINALS = {  # the files inside the wheel and their SHA-256 (also in data/real/census_ma/README.md)
    "employment_MA_reference.pq": "21d0e33655666071bde9ed21bf35b24fe14c1476e3dd37a5194b827ad5a570e4",
    "employment_MA_analysis.pq": "591328bcf7e46139660f2cc6b1705a6f2f66edf2418ce2a893cf2892be3f66a7",
    "employment_MA_analysis_target.pq": "c306840f0c092bda7608a09e61e7e715ac2b7fb2d17da8062900c3ecd6fdbe30",
}
CBPE_METRICS = ["confusion_matrix", "accuracy", "precision", "recall", "specificity"]
DIGITS = 10


def _rules():
    """``studies/piovano/_census_data.py`` loaded by its path (this environment does not have the package)."""
    path = ROOT / "compendium" / "offline_eval_compendium" / "studies" / "piovano" / "_census_data.py"
    spec = importlib.util.spec_from_file_location("piovano_census_data", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def fetch_wheel(folder: Path) -> Path:
    wheel = folder / WHEEL
    if not wheel.is_file():
        folder.mkdir(parents=True, exist_ok=True)
        subprocess.run([sys.executable, "-m", "pip", "download", "--quiet", "--no-deps", f"nannyml=={NANNYML}",
                        "-d", str(folder)], check=True)
    return wheel


def read_originals(wheel: Path) -> dict:
    frames = {}
    with zipfile.ZipFile(wheel) as z:
        for name, sha in ORIGINALS.items():
            raw = z.read(f"nannyml/datasets/data/{name}")
            got = hashlib.sha256(raw).hexdigest()
            if got != sha:
                raise SystemExit(f"{name} in {wheel.name}: SHA-256 {got}, expected {sha}")
            frames[name] = pd.read_parquet(io.BytesIO(raw))
    return frames


def vendored_table(frames: dict, rules) -> pd.DataFrame:
    ref = frames["employment_MA_reference.pq"]
    ana = frames["employment_MA_analysis.pq"].merge(frames["employment_MA_analysis_target.pq"], on="id",
                                                    how="left", validate="one_to_one")
    df = pd.concat([ref, ana], ignore_index=True)[list(rules.COLUMNS)]
    if df[rules.LABEL].isna().any():
        raise SystemExit("a live row without its label")
    out = pd.DataFrame({"id": df["id"].astype("int32"), "year": df["year"].astype("int16")})
    for f in rules.FEATURES:  # ACS codes are small integers (categorical strings in the originals)
        out[f] = df[f].astype(str).astype(float).astype("int16")
    out[rules.PREDICTION] = df[rules.PREDICTION].astype("int8")
    out[rules.PROBABILITY] = df[rules.PROBABILITY].astype("float64")
    out[rules.LABEL] = df[rules.LABEL].astype("int8")
    return out.sort_values(["year", "id"], kind="stable").reset_index(drop=True)


def cbpe_estimates(table: pd.DataFrame, rules, which: str, chunk_size: int):
    import warnings

    import nannyml as nml

    # one estimate per period (chunk_number=1): NannyML's warning about few chunks is expected
    warnings.filterwarnings("ignore", message="The resulting number of chunks is too low")
    offline = table[table["year"] == rules.OFFLINE_YEAR].reset_index(drop=True)
    reference = offline[rules.offline_mask(offline, which)].reset_index(drop=True)
    live = rules.live_periods(table[table["year"] != rules.OFFLINE_YEAR], chunk_size)
    params = dict(problem_type="classification_binary", y_pred_proba=rules.PROBABILITY, y_pred=rules.PREDICTION,
                  y_true=rules.LABEL, metrics=CBPE_METRICS, chunk_number=1, normalize_confusion_matrix=None)
    est = nml.CBPE(**params)
    est.fit(reference)
    rows = []
    periods = [(f"{y}", "year", live[live["year"] == y]) for y in rules.LIVE_YEARS]
    periods += [(c, "chunk", rows_) for c, rows_ in live.groupby("chunk", sort=True)]
    for period, level, part in periods:
        res = est.estimate(part.drop(columns=[rules.LABEL, "chunk"])).filter(period="analysis").to_df()
        if len(res) != 1:
            raise SystemExit(f"CBPE gave {len(res)} analysis chunks for period {period}; expected 1")
        row = dict(period=period, level=level, n=len(part))
        for metric in ("true_positive", "false_positive", "false_negative", "true_negative", "accuracy", "precision",
                       "recall", "specificity"):
            row[metric] = float(res[(metric, "value")].iloc[0])
        rows.append(row)
    return pd.DataFrame(rows), dict(params, reference_rows=int(len(reference)), offline_set=which)


def write_csv(df: pd.DataFrame, path: Path) -> None:
    text = df.to_csv(index=False, float_format=f"%.{DIGITS}g", lineterminator="\n")
    path.write_text(text)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--wheel-dir", default=str(ROOT / "build" / "peers"))
    args = ap.parse_args(argv)
    rules = _rules()
    import nannyml as nml

    if nml.__version__ != NANNYML:
        raise SystemExit(f"this script pins nannyml {NANNYML}; the environment has {nml.__version__}")
    frames = read_originals(fetch_wheel(Path(args.wheel_dir)))
    table = vendored_table(frames, rules)
    OUT.mkdir(parents=True, exist_ok=True)
    table.to_parquet(OUT / rules.DATA_FILE, index=False, compression="zstd", compression_level=19)
    run = dict(peer="nannyml", version=nml.__version__, estimator="CBPE", chunk_size=rules.CHUNK_SIZE,
               chunks="each live year cut into floor(n / chunk_size) consecutive chunks by id (equal sizes +-1 row)",
               nonrepresentative_rule=rules.NONREPRESENTATIVE_RULE, float_digits=DIGITS, runs={})
    for which in rules.OFFLINE_SETS:
        est, params = cbpe_estimates(table, rules, which, rules.CHUNK_SIZE)
        write_csv(est, OUT / f"cbpe_{which}.csv")
        run["runs"][which] = params
    (OUT / "cbpe_run.json").write_text(json.dumps(run, indent=2, sort_keys=True) + "\n")
    for p in sorted(OUT.glob("*")):
        if p.suffix != ".md":
            print(f"{hashlib.sha256(p.read_bytes()).hexdigest()}  {p.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
