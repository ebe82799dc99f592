"""What the Snakemake workflow needs besides its steps: the configuration (:mod:`mtsig.pipeline.config`: experiment
files, the data root, per-experiment paths), the public data (:mod:`mtsig.pipeline.data`: the sources manifest,
verified downloads, derived files) and the verification of a run's results against committed checksums
(:mod:`mtsig.pipeline.verification`).

The top layer with :mod:`mtsig.steps`: the library below never imports it.
"""
