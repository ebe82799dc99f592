# Artifact review: every file of the run against the committed checksums (mtsig verify). Not part of
# `all`: `snakemake --cores 8 verify` runs what is missing, then checks; the job fails on any difference.


rule verify:
    input:
        targets=all_targets(),
    output:
        report=RESULTS / "verification.txt",
    log:
        "logs/verify.log",
    conda:
        "../envs/mtsig.yaml"
    params:
        results=lambda wildcards, output: str(Path(output.report).parent),
        expected=str(BASE_DIR / SETTINGS.verification.expected),
    script:
        "../scripts/step.py"
