"""The statistics of Graham, Mathur & Baldwin (2014) and what extends them directly.

- :mod:`mtsig.stats.resampling`: the randomized tests (paper Figs. 1-4, Riezler & Maxwell 2005, block bootstraps)
  and their registry ``TESTS``.
- :mod:`mtsig.stats.conclusions`: three-way conclusions of a pair from one-sided p-values.
- :mod:`mtsig.stats.evaluation`: conclusions of the tests against the gold, accuracy (paper Tables 1-2),
  chi-square, agreement, multiple-testing corrections.
- :mod:`mtsig.stats.human`: the gold standard from human judgments (paper Sec. 4).
- :mod:`mtsig.stats.meta_evaluation.system_level`: system-level metric meta-evaluation: correlation with human scores, MAD
  outlier systems, the Williams test and its winners (the WMT metrics tasks).
- :mod:`mtsig.stats.seeding`: stable seeds, so results do not depend on cores or sharding.
- :mod:`mtsig.stats.intervals`, :mod:`mtsig.stats.clusters`, :mod:`mtsig.stats.training_runs`: confidence
  intervals, significance clusters and comparisons over several training runs (the power study, which simulates
  with the calibration study's planted pairs, is :mod:`mtsig.studies.power`).
"""
