"""The script of every rule: run the step named after the rule (mtsig.steps.<rules file>.<rule>) with the rule's
named inputs, outputs, params and wildcards as keyword arguments, logging to the rule's log."""

import os
import sys
from pathlib import Path

# The checkout's code, as the Snakefile itself uses it: works without installing mtsig, also in --use-conda envs.
sys.path.insert(0, str(Path(snakemake.scriptdir).resolve().parents[1] / "src"))

from mtsig.steps import run_step  # noqa: E402

if __name__ == "__main__":  # metric_stats' process pool (spawn) re-imports this module in its workers
    run_step(snakemake)
    # Every output is written and closed, the log too: end without the interpreter's teardown, which frees numpy,
    # pandas, scipy and matplotlib object by object (about 0.3 s CPU per job, 40 s of the default run's 162 jobs).
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(0)
