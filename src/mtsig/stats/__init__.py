"""Statistics of arrays, in rooms by what they judge (docs/design.md, "Where in the code").

The paper's (Graham, Mathur & Baldwin 2014) and what extends them directly, at the top:

- :mod:`mtsig.stats.resampling`: the randomized tests (paper Figs. 1-4, Riezler & Maxwell 2005, block bootstraps)
  and their registry ``TESTS``.
- :mod:`mtsig.stats.conclusions`: three-way conclusions of a pair from one-sided p-values.
- :mod:`mtsig.stats.evaluation`: conclusions of the tests against the gold, accuracy (paper Tables 1-2),
  chi-square, agreement, multiple-testing corrections.
- :mod:`mtsig.stats.human`: the gold standard from human judgments (paper Sec. 4).
- :mod:`mtsig.stats.seeding`: stable seeds, so results do not depend on cores or sharding.
- :mod:`mtsig.stats.intervals`, :mod:`mtsig.stats.clusters`, :mod:`mtsig.stats.training_runs`,
  :mod:`mtsig.stats.replicability`: confidence intervals, significance clusters, comparisons over several
  training runs and replicability across test sets (the power study, which simulates with the calibration
  study's planted pairs, is :mod:`mtsig.studies.power`).

Three packages beside them:

- :mod:`mtsig.stats.meta_evaluation`: the metric meta-evaluation, every statistic that scores metrics against
  human scores of the same systems and items, or one metric against another (correlations, pairwise accuracies,
  tie calibration, SPA, their tests, intervals, chance levels and power).
- :mod:`mtsig.stats.ranking_measures`: measures of a ranked list of items against a gold ranking (RankEval,
  n-best lists).
- :mod:`mtsig.stats.system_ranking`: procedures that rank systems from human item scores (``PROCEDURES``).
"""
