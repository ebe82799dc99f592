# mtsig: testing the significance tests of machine-translation evaluation.
# Reproduces Graham, Mathur & Baldwin (2014) end to end; see README.md. Reading the rules top to bottom tells the analysis.
import os

# One BLAS thread per job: the engine's products are small ([256, N] @ [N, S*k]) and jobs already run side by side.
# With OpenBLAS's default (a thread per core) the calibration study took 2.2x the CPU time on 2 busy cores, for
# byte-identical tables (benchmarks/README.md, "Threads"). A value already set in the environment wins.
for variable in ("OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(variable, "1")


# Relative to the Snakefile, so that `--directory elsewhere` still finds the defaults.
configfile: os.path.join(workflow.basedir, "config", "config.yaml")


report: "workflow/report/workflow.rst"


include: "workflow/rules/common.smk"
include: "workflow/rules/data.smk"
include: "workflow/rules/metrics.smk"
include: "workflow/rules/significance.smk"
include: "workflow/rules/human.smk"
include: "workflow/rules/evaluation.smk"
include: "workflow/rules/figures.smk"
include: "workflow/rules/segment_level.smk"
include: "workflow/rules/calibration.smk"
include: "workflow/rules/human_ranking_calibration.smk"
include: "workflow/rules/nbest.smk"
include: "workflow/rules/meta_evaluation.smk"
include: "workflow/rules/metrics_task.smk"
include: "workflow/rules/metrics_protocol.smk"
include: "workflow/rules/human_ranking.smk"
include: "workflow/rules/replicability.smk"
include: "workflow/rules/verify.smk"
# last: its rules make the data files that the jobs of the rules above read (with the download root)
include: "workflow/rules/download.smk"


rule all:
    default_target: True
    input:
        all_targets(),


# Every file of data/sources.tsv that the workflow can download, in the data root: with the download root, what
# the download rules (workflow/rules/data.smk) make; with an existing data root, a check that it has them all.
rule download_data:
    input:
        lambda wildcards: data_files(
            DATA_ROOT / row.dataset / row.path
            for row in mtsig_data.read_manifest(MANIFEST).itertuples()
            if mtsig_data.obtainable(row.source)
        ),


# Every rule's named inputs, outputs, params and wildcards against the arguments of the step named after it
# (mtsig.steps.check_rules): a name changed on one side only fails here, before any job runs.
mtsig_steps.check_rules(workflow.rules)
