"""mtsig: testing the significance tests of machine-translation evaluation.

Reproduces Graham, Mathur & Baldwin (2014), *Randomized Significance Tests in Machine Translation*,
and extends it (see README.md). All logic lives in this package; the Snakemake workflow only calls it.
"""

__version__ = "0.1.0"
