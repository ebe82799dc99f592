"""The script of every rule: run the step named after the rule (mtsig.steps.<rules file>.<rule>) with the rule's
named inputs, outputs, params and wildcards as keyword arguments, logging to the rule's log."""

import sys
from pathlib import Path

# The checkout's code, as the Snakefile itself uses it: works without installing mtsig, also in --use-conda envs.
sys.path.insert(0, str(Path(snakemake.scriptdir).resolve().parents[1] / "src"))

from mtsig.steps import run_step  # noqa: E402

if __name__ == "__main__":  # metric_stats' process pool (spawn) re-imports this module in its workers
    run_step(snakemake)
