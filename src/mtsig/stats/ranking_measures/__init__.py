"""Measures of a ranked list against a gold ranking of the same items, whatever produced the list.

A statistic belongs here when its unit is a ranking of items (RankEval's per-judgment rankings of a segment's
translations, an n-best list against its STAPLE gold), not a table of system x item scores (that is
:mod:`mtsig.stats.meta_evaluation`) and not a ranking of systems from human scores (:mod:`mtsig.stats.system_ranking`):

- :mod:`~mtsig.stats.ranking_measures.rankeval`: the RankEval measures (Avramidis 2013) of rank arrays, the paper's
  and the RankEval tool's; :mod:`~.tau_bootstrap`: bootstrap intervals and paired tests of micro tau.
- :mod:`~.nbest`: STAPLE matching and the measures of n-best lists and of system rankings (Bremerman et al. 2020).

Modules are imported by their full name (nothing is re-exported here).
"""
