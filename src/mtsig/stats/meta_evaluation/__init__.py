"""The metric meta-evaluation: how well do automatic metrics agree with human judgments, and is one metric better?

A statistic belongs here when it scores metrics' scores of systems x items against human scores of the same cells
(or one metric against another on them), or draws the null distributions, intervals, chance levels and power of
such scores (docs/design.md, "Where in the code"):

- :mod:`~mtsig.stats.meta_evaluation.system_level`: system-level correlations, MAD outlier systems, the Williams
  test and its winners, the orientation check (the WMT metrics tasks 2015-2020).
- :mod:`~mtsig.stats.meta_evaluation.grouped_correlation` (with :mod:`~.correlation_pvalues`): correlations of a
  systems x items matrix grouped by item or system (mt-metrics-eval); :mod:`~.tie_calibration` (acc-t),
  :mod:`~.pooled_accuracy`, :mod:`~.soft_pairwise_accuracy` (with its compiled loop :mod:`~.spa_compiled`): the
  WMT23/24 task statistics; :mod:`~.item_sampling`: item sub-samples of a task.
- :mod:`~.metric_comparison` (BOOT and PERM-BOTH, pairwise accuracy), :mod:`~.metric_permutation` and
  :mod:`~.score_permutation` (with :mod:`~.pdp_compiled`): tests between two metrics; :mod:`~.metric_ranking`:
  clusters of metrics and the weighted task average; :mod:`~.task_bootstrap`: bootstrap intervals of task values;
  :mod:`~.chance` (with :mod:`~.chance_compiled`): chance levels; :mod:`~.power`: power and stability of the
  tests on re-drawn test sets; :mod:`~.delta_agreement`: the metric deltas humans notice.

Modules are imported by their full name (nothing is re-exported here), so that a job imports only what it uses.
"""
