"""The public-API fuzz (``fuzz_public_api.py``), bounded to a few seconds: no silent wrong answer, and every
error names its argument."""

import importlib.util
from pathlib import Path

spec = importlib.util.spec_from_file_location("fuzz_public_api", Path(__file__).with_name("fuzz_public_api.py"))
fuzz = importlib.util.module_from_spec(spec)
spec.loader.exec_module(fuzz)


def test_fuzz_finds_no_silent_wrong_answer_and_no_unnamed_error():
    counts = fuzz.run(600, seed=50, time_limit=1.0)
    assert counts["cases"] == 600
    assert counts["silent_wrong"] == 0, counts["examples"]["silent_wrong"]
    assert counts["unnamed_errors"] == 0, counts["examples"]["unnamed_errors"]
