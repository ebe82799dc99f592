"""Loading and validating every input format; errors name the file, the line and the problem.

- :mod:`mtsig.io.text`: plain-text system outputs and references (HTML unescaping, line-count checks).
- :mod:`mtsig.io.human`: DA ratings in the WMT/MTurk/Appraise formats and the tidy TSV format.
- :mod:`mtsig.io.rankings`: relative rankings (WMT RNK csv, RankEval's JCML).
- :mod:`mtsig.io.documents`: document ids of test segments (WMT sgm, WMT22 xml).
- :mod:`mtsig.io.staple`: STAPLE n-best gold and predictions.
"""
