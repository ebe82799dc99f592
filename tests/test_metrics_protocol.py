"""The WMT23/WMT24 metrics-task protocol (mtsig.studies.metrics_protocol,
mtsig.stats.meta_evaluation.pooled_accuracy, ``mtsig metrics --mtme``) on the real WMT23 MQM data and on hand
cases.

Oracles: google-research/mt-metrics-eval at commit 68a481a (2026-04-23) run on the same files
($MTSIG_DATA/wmt23) by ``benchmarks/bench_wmt23_protocol.py values``: ``tasks.WMT23(k=0)`` and
``tasks.WMT24OnWMT23(k=0)``, each ``Task.Run`` on ``data.EvalSet("wmt23", lp, True)``, then
``TaskSetResults.AverageCorrs(weights)``, with PYTHONHASHSEED=0; the constants below are its printed values (12
decimals). Every WMT23 value and the acc-t tasks of WMT24 must agree to 1e-9. Soft pairwise accuracy (SPA) agrees
to 1e-3: mt-metrics-eval's p-values come from pce.py's float32 matrix product (BLAS rounding flips a few near-tie
permutation comparisons; mtsig sums exactly) and, for metrics with exactly tied permutation sums (MaTESe,
Random-sysname), depend on the order of the systems in a Python set (mtsig: sorted names); the benchmark shows
mtsig's SPA equal to 1e-16 in mt-metrics-eval's system order with pce.py's arithmetic. Hand cases for the pooled
accuracy (Kocmi et al. 2021, with numpy's sign of a tie) and for the selection of systems and metrics
(mt-metrics-eval's GetCorrelations and meta_info.WMT23, by hand). Human scores entered as metrics or used as the gold:
scipy's Pearson of the human files read on their own.
"""

from __future__ import annotations

import json
import shutil

import numpy as np
import pytest
from cli_runner import run_mtsig
from scipy import stats

from mtsig.errors import InputError
from mtsig.io.mtme import read_human_scores, read_requested_scores, read_test_set
from mtsig.stats.meta_evaluation.pooled_accuracy import pooled_pairwise_accuracy
from mtsig.studies import metrics_protocol as mp

# The module's fixtures read every WMT23 score file and run both protocols: one worker makes them, once.
pytestmark = pytest.mark.xdist_group("wmt23_protocol")

WMT23_AVERAGE = {
    "XCOMET-Ensemble": 0.824556469326,
    "XCOMET-QE-Ensemble[noref]": 0.808170457628,
    "MetricX-23": 0.807733204212,
    "GEMBA-MQM[noref]": 0.802214285811,
    "MetricX-23-QE[noref]": 0.800102243524,
    "mbr-metricx-qe[noref]": 0.788446213469,
    "MaTESe": 0.782209518621,
    "CometKiwi[noref]": 0.782059022560,
    "COMET": 0.778899122581,
    "BLEURT-20": 0.775805012931,
    "KG-BERTScore[noref]": 0.774184337406,
    "sescoreX": 0.772212698698,
    "cometoid22-wmt22[noref]": 0.772078768255,
    "docWMT22CometDA": 0.767649618398,
    "docWMT22CometKiwiDA[noref]": 0.767152344858,
    "Calibri-COMET22": 0.767058505741,
    "Calibri-COMET22-QE[noref]": 0.754579362071,
    "YiSi-1": 0.754073015575,
    "MS-COMET-QE-22[noref]": 0.744366926145,
    "prismRef": 0.744341453259,
    "mre-score-labse-regular": 0.742820443990,
    "BERTscore": 0.741881884068,
    "XLsim": 0.719407033564,
    "f200spBLEU": 0.703602594476,
    "MEE4": 0.703550220830,
    "tokengram_F": 0.702813831810,
    "embed_llama": 0.700957497423,
    "BLEU": 0.696172367471,
    "chrF": 0.694418379400,
    "eBLEU": 0.692046942847,
    "Random-sysname[noref]": 0.528691030526,
    "prismSrc[noref]": 0.455225012323,
}
WMT23_TASKS = {
    "XCOMET-Ensemble": (
        0.927710843373,
        0.980234779166,
        0.695322652915,
        0.603985507246,
        0.949630733102,
        0.556050980694,
        0.585678549093,
        0.926778048365,
        0.650305725246,
        0.542719585710,
    ),
    "MaTESe": (
        0.903614457831,
        0.918192411654,
        0.554474619530,
        0.528458498024,
        0.906424398861,
        0.458765600698,
        0.549781113196,
        0.889350305150,
        0.510629612587,
        0.478512764494,
    ),
    "BLEU": (
        0.815261044177,
        0.916540926135,
        0.192050031429,
        0.519598155468,
        0.768543701828,
        0.219797011270,
        0.441697936210,
        0.734124095828,
        0.119377675816,
        0.471772464296,
    ),
    "prismSrc[noref]": (
        0.385542168675,
        -0.327422390770,
        0.424626133620,
        0.425691699605,
        -0.017176103588,
        0.140476918764,
        0.441244527830,
        -0.406465366316,
        0.222984676256,
        0.420625480439,
    ),
    "Random-sysname[noref]": (
        0.578313253012,
        0.357349357628,
        0.063920528259,
        0.408761528327,
        0.208995642672,
        0.041414988695,
        0.428424015009,
        0.092663805211,
        0.018246875442,
        0.380871464984,
    ),
    "XCOMET-QE-Ensemble[noref]": (
        0.907630522088,
        0.974181675418,
        0.679043553681,
        0.588274044796,
        0.909471629441,
        0.498283047949,
        0.554315196998,
        0.891778075791,
        0.646756625594,
        0.532807379536,
    ),
    "MetricX-23": (
        0.907630522088,
        0.976868129317,
        0.585484138915,
        0.602602108037,
        0.909528553840,
        0.548414351976,
        0.577141963727,
        0.873426677121,
        0.624727332549,
        0.530938220658,
    ),
    "GEMBA-MQM[noref]": (
        0.943775100402,
        0.992974864999,
        0.502141971049,
        0.572068511199,
        0.938838283390,
        0.401356935246,
        0.564102564103,
        0.990697688785,
        0.448858411288,
        0.521640975847,
    ),
    "MetricX-23-QE[noref]": (
        0.891566265060,
        0.968641578913,
        0.626047176743,
        0.596442687747,
        0.858497769774,
        0.519642281744,
        0.564337085679,
        0.858586004356,
        0.646782547217,
        0.526649674313,
    ),
    "CometKiwi[noref]": (
        0.903614457831,
        0.945525970931,
        0.475268601812,
        0.569169960474,
        0.859550378387,
        0.386577798867,
        0.544105691057,
        0.963045023179,
        0.442021900811,
        0.524594408707,
    ),
    "COMET": (
        0.899598393574,
        0.990283641610,
        0.432403581974,
        0.574011857708,
        0.939587176266,
        0.400964945439,
        0.531613508443,
        0.897977353923,
        0.396228192718,
        0.513646478132,
    ),
    "BLEURT-20": (
        0.891566265060,
        0.989647962403,
        0.484439147879,
        0.572134387352,
        0.936850674926,
        0.381963457345,
        0.518918073796,
        0.879692165291,
        0.378383349257,
        0.518420520290,
    ),
    "chrF": (
        0.795180722892,
        0.865726154300,
        0.231978045386,
        0.519235836627,
        0.775862010148,
        0.220698031085,
        0.459834271420,
        0.809130550413,
        0.063482043233,
        0.484969858802,
    ),
}
WMT24_AVERAGE = {
    "GEMBA-MQM[noref]": 0.753234087557,
    "XCOMET-Ensemble": 0.750881084309,
    "MetricX-23": 0.740731009221,
    "MetricX-23-QE[noref]": 0.734646266598,
    "XCOMET-QE-Ensemble[noref]": 0.733380616820,
    "COMET": 0.728564377200,
    "mbr-metricx-qe[noref]": 0.725645684217,
    "CometKiwi[noref]": 0.723300926346,
    "BLEURT-20": 0.721161636322,
    "KG-BERTScore[noref]": 0.718257835070,
    "docWMT22CometDA": 0.717849028457,
    "docWMT22CometKiwiDA[noref]": 0.714359154654,
    "cometoid22-wmt22[noref]": 0.713965735302,
    "MaTESe": 0.705522715300,
    "sescoreX": 0.703207428833,
    "YiSi-1": 0.702682503107,
    "Calibri-COMET22": 0.699182648635,
    "MS-COMET-QE-22[noref]": 0.698751421695,
    "mre-score-labse-regular": 0.696792109589,
    "prismRef": 0.695385947929,
    "BERTscore": 0.694418762206,
    "Calibri-COMET22-QE[noref]": 0.688338718820,
    "XLsim": 0.672950850124,
    "f200spBLEU": 0.658970810122,
    "eBLEU": 0.658329811205,
    "MEE4": 0.655241064609,
    "tokengram_F": 0.653124090948,
    "BLEU": 0.653102923387,
    "chrF": 0.650620658255,
    "embed_llama": 0.640223802697,
    "Random-sysname[noref]": 0.495513913641,
    "prismSrc[noref]": 0.386019819555,
}
WMT24_SPA = {
    "en-de": {
        "XCOMET-Ensemble": 0.939409090909,
        "GEMBA-MQM[noref]": 0.982060606061,
        "MaTESe": 0.870212121212,
        "BLEU": 0.857196969697,
        "Random-sysname[noref]": 0.595803030303,
        "prismSrc[noref]": 0.269590909091,
    },
    "he-en": {
        "XCOMET-Ensemble": 0.932512820513,
        "GEMBA-MQM[noref]": 0.942846153846,
        "MaTESe": 0.908371794872,
        "BLEU": 0.831628205128,
        "Random-sysname[noref]": 0.611461538462,
        "prismSrc[noref]": 0.440128205128,
    },
    "zh-en": {
        "XCOMET-Ensemble": 0.900980952381,
        "GEMBA-MQM[noref]": 0.936685714286,
        "MaTESe": 0.897800000000,
        "BLEU": 0.796723809524,
        "Random-sysname[noref]": 0.547761904762,
        "prismSrc[noref]": 0.318838095238,
    },
}


#: ``python benchmarks/bench_wmt23_protocol.py extras`` (mt-metrics-eval at 68a481a, k=0): the WMT23 table's extra
#: column, mt-metrics-eval's ``tasks.Task("wmt23", lp, level="seg", corr_fcn="pearson", avg_by="item",
#: corr_fcn_args={"pdp": True})`` (he-en with its human translation), 12 decimals.
PDP_COLUMN = {
    "en-de": {
        "BERTscore": 0.335797538116,
        "BLEU": 0.242499175856,
        "BLEURT-20": 0.38892425504,
        "COMET": 0.448804132858,
        "Calibri-COMET22": 0.380123656355,
        "Calibri-COMET22-QE[noref]": 0.317810614806,
        "CometKiwi[noref]": 0.341327653571,
        "GEMBA-MQM[noref]": 0.398884738046,
        "KG-BERTScore[noref]": 0.339177826342,
        "MEE4": 0.249520786565,
        "MS-COMET-QE-22[noref]": 0.306442529804,
        "MaTESe": 0.324147091177,
        "MetricX-23": 0.47373976707,
        "MetricX-23-QE[noref]": 0.501246719412,
        "Random-sysname[noref]": 0.114367030575,
        "XCOMET-Ensemble": 0.488100417232,
        "XCOMET-QE-Ensemble[noref]": 0.463010382422,
        "XLsim": 0.319751732561,
        "YiSi-1": 0.371935753257,
        "chrF": 0.300158360091,
        "cometoid22-wmt22[noref]": 0.401150414099,
        "docWMT22CometDA": 0.445527655509,
        "docWMT22CometKiwiDA[noref]": 0.3335060077,
        "eBLEU": 0.094159812975,
        "embed_llama": 0.253605292225,
        "f200spBLEU": 0.273688208434,
        "mbr-metricx-qe[noref]": 0.344683946955,
        "mre-score-labse-regular": 0.208198117677,
        "prismRef": 0.120626308892,
        "prismSrc[noref]": -0.138948680261,
        "sescoreX": 0.359049729201,
        "tokengram_F": 0.301125408231,
    },
    "he-en": {
        "BERTscore": 0.358355998147,
        "BLEU": 0.223847743083,
        "BLEURT-20": 0.378060165917,
        "COMET": 0.35968350485,
        "Calibri-COMET22": 0.338084896434,
        "Calibri-COMET22-QE[noref]": 0.323837905951,
        "CometKiwi[noref]": 0.33188243335,
        "GEMBA-MQM[noref]": 0.371623036521,
        "KG-BERTScore[noref]": 0.337623045207,
        "MEE4": 0.223811876748,
        "MS-COMET-QE-22[noref]": 0.233096089782,
        "MaTESe": 0.38611933005,
        "MetricX-23": 0.475762971566,
        "MetricX-23-QE[noref]": 0.416564265757,
        "Random-sysname[noref]": 0.053662519438,
        "XCOMET-Ensemble": 0.493061521149,
        "XCOMET-QE-Ensemble[noref]": 0.403850373985,
        "XLsim": 0.262287918175,
        "YiSi-1": 0.411627948652,
        "chrF": 0.264646746256,
        "cometoid22-wmt22[noref]": 0.262907999465,
        "docWMT22CometDA": 0.330885540428,
        "docWMT22CometKiwiDA[noref]": 0.294888515344,
        "eBLEU": 0.190046300196,
        "embed_llama": 0.160552720596,
        "f200spBLEU": 0.251174938681,
        "mbr-metricx-qe[noref]": 0.393305552048,
        "mre-score-labse-regular": 0.371632481606,
        "prismRef": 0.373461703716,
        "prismSrc[noref]": 0.019269311013,
        "sescoreX": 0.291669226473,
        "tokengram_F": 0.272448820245,
    },
    "zh-en": {
        "BERTscore": 0.293726661403,
        "BLEU": 0.151947802224,
        "BLEURT-20": 0.347368671255,
        "COMET": 0.345046121034,
        "Calibri-COMET22": 0.292504938485,
        "Calibri-COMET22-QE[noref]": 0.347766391815,
        "CometKiwi[noref]": 0.39874488804,
        "GEMBA-MQM[noref]": 0.407821762411,
        "KG-BERTScore[noref]": 0.392433666418,
        "MEE4": 0.162848287065,
        "MS-COMET-QE-22[noref]": 0.32379478647,
        "MaTESe": 0.361668145686,
        "MetricX-23": 0.428460243029,
        "MetricX-23-QE[noref]": 0.442484552947,
        "Random-sysname[noref]": 0.02140849019,
        "XCOMET-Ensemble": 0.47652606171,
        "XCOMET-QE-Ensemble[noref]": 0.448564357369,
        "XLsim": 0.189368926291,
        "YiSi-1": 0.321153453925,
        "chrF": 0.21247481297,
        "cometoid22-wmt22[noref]": 0.352073459799,
        "docWMT22CometDA": 0.323534791002,
        "docWMT22CometKiwiDA[noref]": 0.35976225127,
        "eBLEU": 0.155812097989,
        "embed_llama": 0.119712092845,
        "f200spBLEU": 0.168737057835,
        "mbr-metricx-qe[noref]": 0.430704059011,
        "mre-score-labse-regular": 0.206582558381,
        "prismRef": 0.283583623781,
        "prismSrc[noref]": 0.053565160097,
        "sescoreX": 0.302852569505,
        "tokengram_F": 0.21814051732,
    },
}
#: The same run: the tasks ``tasks.WMT25()`` builds (SPA and acc-t per pair, no human translation, weight 1) with
#: test set ``wmt23``: he-en's acc-t (WMT24's he-en task includes refA as a system, WMT25's does not) and the
#: weighted average (SPA within 5e-4 as above).
WMT25_ON_WMT23_HE_EN_ACC_T = {
    "BERTscore": 0.515724316334,
    "BLEU": 0.442128603104,
    "BLEURT-20": 0.517424242424,
    "COMET": 0.52950849963,
    "Calibri-COMET22": 0.512749445676,
    "Calibri-COMET22-QE[noref]": 0.506097560976,
    "CometKiwi[noref]": 0.543311160384,
    "GEMBA-MQM[noref]": 0.562564671101,
    "KG-BERTScore[noref]": 0.536400591279,
    "MEE4": 0.437527716186,
    "MS-COMET-QE-22[noref]": 0.494382852919,
    "MaTESe": 0.545528455285,
    "MetricX-23": 0.573706577975,
    "MetricX-23-QE[noref]": 0.560716925351,
    "Random-sysname[noref]": 0.420842572062,
    "XCOMET-Ensemble": 0.584460458241,
    "XCOMET-QE-Ensemble[noref]": 0.552475979305,
    "XLsim": 0.479120473023,
    "YiSi-1": 0.529859571323,
    "chrF": 0.457501847746,
    "cometoid22-wmt22[noref]": 0.513488543976,
    "docWMT22CometDA": 0.490779748707,
    "docWMT22CometKiwiDA[noref]": 0.483906134516,
    "eBLEU": 0.443218773097,
    "embed_llama": 0.429453067258,
    "f200spBLEU": 0.448946784922,
    "mbr-metricx-qe[noref]": 0.554157427938,
    "mre-score-labse-regular": 0.516925351072,
    "prismRef": 0.528048780488,
    "prismSrc[noref]": 0.443773096822,
    "sescoreX": 0.483370288248,
    "tokengram_F": 0.459257206208,
}
WMT25_ON_WMT23_AVERAGE = {
    "GEMBA-MQM[noref]": 0.753611998941,
    "XCOMET-Ensemble": 0.751244114233,
    "MetricX-23": 0.740042089063,
    "XCOMET-QE-Ensemble[noref]": 0.736984531198,
    "MetricX-23-QE[noref]": 0.733851764352,
    "COMET": 0.729430908365,
    "CometKiwi[noref]": 0.726648302547,
    "mbr-metricx-qe[noref]": 0.725000252413,
    "KG-BERTScore[noref]": 0.721897377776,
    "BLEURT-20": 0.721407419672,
    "docWMT22CometDA": 0.717755641491,
    "docWMT22CometKiwiDA[noref]": 0.717388837031,
    "cometoid22-wmt22[noref]": 0.71265132478,
    "sescoreX": 0.706530746437,
    "YiSi-1": 0.706260544307,
    "MaTESe": 0.705375710543,
    "Calibri-COMET22": 0.700590507713,
    "prismRef": 0.699280147903,
    "BERTscore": 0.698801075015,
    "mre-score-labse-regular": 0.69650449138,
    "MS-COMET-QE-22[noref]": 0.695939365865,
    "Calibri-COMET22-QE[noref]": 0.69162927447,
    "XLsim": 0.675275698041,
    "f200spBLEU": 0.66512767426,
    "BLEU": 0.660188687217,
    "eBLEU": 0.658774085089,
    "MEE4": 0.656703408498,
    "tokengram_F": 0.655912557224,
    "chrF": 0.652582931077,
    "embed_llama": 0.640287000339,
    "Random-sysname[noref]": 0.492670891487,
    "prismSrc[noref]": 0.399528466058,
}


@pytest.fixture(scope="module")
def wmt23_inputs(data_root):
    """Both protocols' test sets and every score file they read, with DA+SQM's (read once for the module)."""
    test_sets = {lp: read_test_set(data_root / "wmt23", lp) for lp in ("en-de", "he-en", "zh-en")}
    keys = dict.fromkeys(
        mp.required_scores(mp.wmt23(), test_sets, mp.MetricSelection(human_metrics=("da-sqm",)))
        + mp.required_scores(mp.wmt24_on_wmt23(), test_sets)
    )
    return test_sets, read_requested_scores(test_sets, list(keys))


@pytest.fixture(scope="module")
def wmt23_result(wmt23_inputs):
    return mp.run_protocol(mp.wmt23(), *wmt23_inputs)


@pytest.fixture(scope="module")
def wmt24_result(wmt23_inputs):
    return mp.run_protocol(mp.wmt24_on_wmt23(), *wmt23_inputs)


@pytest.fixture(scope="module")
def wmt23_da_sqm_result(wmt23_inputs):
    """The WMT23 protocol with DA+SQM as a metric (two tests read it: it is run once)."""
    return mp.run_protocol(mp.wmt23(), *wmt23_inputs, mp.RunOptions(human_metrics=("da-sqm",)))


def test_wmt23_averages_and_order_equal_mt_metrics_eval(wmt23_result):
    assert list(wmt23_result.metrics) == list(WMT23_AVERAGE)
    np.testing.assert_allclose(wmt23_result.average, list(WMT23_AVERAGE.values()), rtol=0, atol=1e-9)


def test_wmt23_task_values_equal_mt_metrics_eval(wmt23_result):
    labels = [t.task.label for t in wmt23_result.tasks]
    assert labels == ["accuracy"] + [
        f"{lp} {kind}"
        for lp in ("en-de", "he-en", "zh-en")
        for kind in ("sys pearson", "seg pearson", "seg acc-t (item)")
    ]
    for metric, expected in WMT23_TASKS.items():
        got = [t.values[t.metrics.index(metric)] for t in wmt23_result.tasks]
        np.testing.assert_allclose(got, expected, rtol=0, atol=1e-9, err_msg=metric)


def test_wmt24_on_wmt23_equals_mt_metrics_eval(wmt23_result, wmt24_result):
    assert list(wmt24_result.metrics) == list(WMT24_AVERAGE)
    np.testing.assert_allclose(wmt24_result.average, list(WMT24_AVERAGE.values()), rtol=0, atol=5e-4)
    for task in wmt24_result.tasks:
        if task.task.statistic == "tie_calibrated":  # the same task as WMT23's
            (same,) = [t for t in wmt23_result.tasks if t.task.label == task.task.label]
            np.testing.assert_array_equal(task.values, same.values)
        else:
            for metric, expected in WMT24_SPA[task.task.lps[0]].items():
                assert task.values[task.metrics.index(metric)] == pytest.approx(expected, abs=1e-3), metric


def test_systems_and_metrics_follow_mt_metrics_evals_selection(wmt23_result):
    """GetCorrelations with meta_info.WMT23: refA (he-en: refB) is the standard reference and never a system;
    synthetic_ref is an outlier; only he-en's other reference (refA) competes; every system has MQM scores. The
    32 metrics are the 18 primary submissions' and 14 baselines' that used the standard reference or none."""
    accuracy = wmt23_result.tasks[0]
    assert {lp: len(s) for lp, s in accuracy.systems.items()} == {"en-de": 12, "he-en": 13, "zh-en": 15}
    assert "refA" in accuracy.systems["he-en"] and "refB" not in accuracy.systems["he-en"]
    assert not {"refA", "synthetic_ref"} & (set(accuracy.systems["en-de"]) | set(accuracy.systems["zh-en"]))
    assert len(accuracy.metrics) == 32 and "MetricX-23-QE[noref]" in accuracy.metrics
    assert not [m for m in accuracy.metrics if m.startswith("*")]


def test_all_metrics_adds_the_contrastive_ones_marked(wmt23_inputs):
    test_sets, _ = wmt23_inputs
    names = mp.task_metrics(test_sets["he-en"], mp.WMT23_INFO, "seg", mp.MetricSelection(all_metrics=True))
    assert names["*XCOMET-XXL"] == "XCOMET-XXL-refB" and names["CometKiwi[noref]"] == "CometKiwi-src"
    assert "*XCOMET-XXL" not in mp.task_metrics(test_sets["he-en"], mp.WMT23_INFO, "seg")
    assert not [m for m in names.values() if test_sets["he-en"].metric_references(m) == {"refA"}]


def test_pooled_accuracy_by_hand():
    """Language pair 1: humans 3 > 2 = 2, metric 1 > 0 = 0: all three pairs agree (the tie on both sides too).
    Language pair 2: humans 1 < 2, metric 5 = 5: sign -1 against 0, no agreement. Pooled: 3 of 4."""
    accuracy, pairs = pooled_pairwise_accuracy(
        [np.array([3.0, 2.0, 2.0]), np.array([1.0, 2.0])], [np.array([1.0, 0.0, 0.0]), np.array([5.0, 5.0])]
    )
    assert (float(accuracy), pairs) == (0.75, 4)


def test_resampled_protocol_is_deterministic_and_clusters_follow_the_rule(wmt23_inputs):
    test_sets, scores = wmt23_inputs
    protocol = mp.wmt23(["en-de"])
    first = mp.run_protocol(protocol, test_sets, scores, mp.RunOptions(n_resamples=200, seed=7))
    again = mp.run_protocol(protocol, test_sets, scores, mp.RunOptions(n_resamples=200, seed=7))
    for a, b in zip(first.tasks, again.tasks, strict=True):
        np.testing.assert_array_equal(a.significance, b.significance)
        np.testing.assert_array_equal(a.test.draws, b.test.draws)
    np.testing.assert_array_equal(first.significance, again.significance)
    sig = first.significance  # AssignRanks: a new cluster where a metric of the current one beats the next
    start, rank = 0, 1
    for i in range(1, sig.shape[0]):
        if (sig[start:i, i] <= 0.05).any():
            rank, start = rank + 1, i
        assert first.ranks[i] == rank
    assert first.ranks[0] == 1 and first.ranks[-1] > 1


def test_cli_table_with_a_developers_metric(data_root, tmp_path):
    """A metric developer's folder: BLEU's en-de files copied under the name MyBLEU. Its row must equal BLEU's in
    every task (the same scores), and it is shown although it is not a primary metric."""
    mine = tmp_path / "mine" / "en-de"
    mine.mkdir(parents=True)
    for level in ("sys", "seg"):
        source = data_root / "wmt23" / "metric-scores" / "en-de" / f"BLEU-refA.{level}.score"
        shutil.copy(source, mine / f"MyBLEU-refA.{level}.score")
    done = run_mtsig(
        "metrics", "--mtme", data_root / "wmt23", "--lps", "en-de", "--samples", "0", "--extra-scores",
        tmp_path / "mine", "--json",
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    for task in result["tasks"]:
        values = dict(zip(task["metrics"], task["values"], strict=True))
        assert values["MyBLEU"] == values["BLEU"]
    assert result["signature"].startswith("mtsig:") and "protocol:wmt23|lps:en-de" in result["signature"]
    text = run_mtsig("metrics", "--mtme", data_root / "wmt23", "--lps", "en-de", "--samples", "0")
    assert text.returncode == 0 and text.stdout.splitlines()[2].startswith("XCOMET-Ensemble")


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--lps", "fr-de"], "language pair(s) fr-de not in the protocol"),
        (["--extra-scores", "NOWHERE"], "NOWHERE: not a directory"),
        (["human.csv", "m.seg.score"], "--mtme replaces HUMAN_FILE METRIC_FILES"),
        (["--extra-task", "pdp:grp=item"], "expected OPTION=VALUE with an option among"),
        (["--protocol", "wmt25"], "no source file for 'cs-de_DE'; the test set has en-de, he-en, zh-en"),
    ],
)
def test_cli_errors_are_one_line(data_root, args, message):
    done = run_mtsig("metrics", "--mtme", data_root / "wmt23", "--samples", "0", *args)
    assert done.returncode == 2
    assert done.stderr.count("\n") == 1 and message in done.stderr, done.stderr


def test_cli_developer_metric_missing_a_level(data_root, tmp_path):
    mine = tmp_path / "mine" / "en-de"
    mine.mkdir(parents=True)
    shutil.copy(data_root / "wmt23/metric-scores/en-de/BLEU-refA.sys.score", mine / "MyBLEU-refA.sys.score")
    done = run_mtsig(
        "metrics", "--mtme", data_root / "wmt23", "--lps", "en-de", "--extra-scores", tmp_path / "mine"
    )
    assert done.returncode == 2 and "metric 'MyBLEU' has no seg-level en-de scores" in done.stderr
    assert done.stderr.count("\n") == 1 and f"{tmp_path / 'mine'}: " in done.stderr


def test_cli_developer_metric_without_system_scores_gets_their_means(data_root, tmp_path):
    """MyMean brings BLEU's en-de segment scores only; MyHand brings the same and a sys file of each system's mean
    segment score, computed here by hand from the file's lines. Every task must give both the same value, and one
    stderr line names MyMean and every system it averaged (none for MyHand)."""
    seg = data_root / "wmt23" / "metric-scores" / "en-de" / "BLEU-refA.seg.score"
    sums: dict[str, list[float]] = {}
    for line in seg.read_text(encoding="utf-8").splitlines():
        system, score = line.split()
        sums.setdefault(system, []).append(float(score))
    mine = tmp_path / "mine" / "en-de"
    mine.mkdir(parents=True)
    for name in ("MyMean", "MyHand"):
        shutil.copy(seg, mine / f"{name}-refA.seg.score")
    means = "".join(f"{system}\t{sum(v) / len(v)!r}\n" for system, v in sums.items())
    (mine / "MyHand-refA.sys.score").write_text(means, encoding="utf-8")
    done = run_mtsig(
        "metrics", "--mtme", data_root / "wmt23", "--lps", "en-de", "--samples", "0", "--extra-scores",
        tmp_path / "mine", "--json",
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    for task in json.loads(done.stdout)["tasks"]:
        values = dict(zip(task["metrics"], task["values"], strict=True))
        assert values["MyMean"] == pytest.approx(values["MyHand"], rel=1e-12, abs=1e-15)
    notes = [line for line in done.stderr.splitlines() if "segment scores" in line]
    assert notes == [
        f"mtsig metrics: MyMean-refA (en-de) has no system score for {', '.join(sums)}: each is the mean of its "
        "segment scores"
    ]


def test_tables_hold_the_results_numbers(wmt23_inputs):
    """protocol_tables, protocol_table_text and protocol_table_latex print the run's own numbers: every task's
    values and ranks, the average and its significance matrix, row for row."""
    from mtsig.report.metrics_protocol import protocol_table_latex, protocol_table_text, protocol_tables

    test_sets, scores = wmt23_inputs
    result = mp.run_protocol(mp.wmt23(["en-de"]), test_sets, scores, mp.RunOptions(n_resamples=100, seed=3))
    tables = protocol_tables(result)
    assert len(tables["tasks"]) == sum(len(t.metrics) for t in result.tasks + result.extras)
    for number, task in enumerate(result.tasks + result.extras, start=1):
        rows = tables["tasks"].loc[tables["tasks"]["task"] == number]
        assert rows["metric"].tolist() == [task.metrics[m] for m in task.order]
        np.testing.assert_array_equal(rows["value"], task.values[list(task.order)])
    np.testing.assert_array_equal(tables["average"]["average"], result.average)
    average_sig = tables["significance"].loc[tables["significance"]["task"] == 0]
    assert len(average_sig) == 32 * 31 // 2
    first = average_sig.iloc[0]
    assert (first["metric_a"], first["metric_b"]) == result.metrics[:2]
    assert first["p_value"] == result.significance[0, 1]
    text = protocol_table_text(result)
    assert text.splitlines()[2].split()[:3] == [result.metrics[0], f"{result.average[0]:.4f}", "1"]
    assert "\\toprule" in protocol_table_latex(result) and "task4: en-de seg acc-t (item)" in text
    # the extra column: PDP, not in the average (weight 0)
    assert "x1: en-de seg PDP (item), not in the average" in text
    pdp_rows = tables["tasks"].loc[tables["tasks"]["task"] == 5]
    assert set(pdp_rows["weight"]) == {0.0} and set(pdp_rows["statistic"]) == {"pdp"}


def test_pdp_column_equals_mt_metrics_eval(wmt23_result):
    """The WMT23 table's extra PDP column (DiIanni & Deutsch 2025, grouped by item) equals mt-metrics-eval's
    ``Pearson(average_by="item", pdp=True)`` to 1e-9, not in the average: the averages stay mt-metrics-eval's."""
    assert [t.task.label for t in wmt23_result.extras] == [f"{lp} seg PDP (item)" for lp in PDP_COLUMN]
    for task in wmt23_result.extras:
        expected = PDP_COLUMN[task.task.lps[0]]
        assert sorted(task.metrics) == sorted(expected)
        got = [float(task.values[task.metrics.index(m)]) for m in expected]
        np.testing.assert_allclose(got, list(expected.values()), rtol=0, atol=1e-9)
    np.testing.assert_allclose(wmt23_result.average, list(WMT23_AVERAGE.values()), rtol=0, atol=1e-9)


def test_wmt25_task_set_is_mt_metrics_evals():
    """mt-metrics-eval's tasks.WMT25() (commit 68a481a), read by hand: its 16 language pairs sorted, per pair a
    system-level 'pce' task and a segment-level KendallWithTiesOpt task (avg_by item, perm_test pairs, sample_rate
    1.0), human False everywhere (lps_with_multiple_refs = {}), gold None (each pair's standard gold), weights 1
    normalised; meta_info.DATA['wmt25']: refA, MQM for en-ko_KR and ja-zh_CN, esa-human1 for the others, no
    outliers, WMT25_PRIMARIES (12) and WMT25_BASELINES (8)."""
    protocol = mp.wmt25()
    lps = [
        "cs-de_DE", "cs-uk_UA", "en-ar_EG", "en-bho_IN", "en-cs_CZ", "en-et_EE", "en-is_IS", "en-it_IT", "en-ja_JP",
        "en-ko_KR", "en-mas_KE", "en-ru_RU", "en-sr_Cyrl_RS", "en-uk_UA", "en-zh_CN", "ja-zh_CN",
    ]  # fmt: skip
    assert list(protocol.lps) == lps and len(protocol.tasks) == 32 and not protocol.extras
    for n, lp in enumerate(lps):
        spa, acc = protocol.tasks[2 * n : 2 * n + 2]
        assert (spa.statistic, spa.lps, spa.level, spa.include_human, spa.gold) == (
            "spa",
            (lp,),
            "sys",
            False,
            None,
        )
        assert (acc.statistic, acc.lps, acc.level, acc.include_human, acc.gold) == (
            "tie_calibrated", (lp,), "seg", False, None,
        )  # fmt: skip
        assert (acc.grouping, acc.variant, acc.perm_test, acc.sample_rate) == ("item", "acc23", "pairs", 1.0)
        assert protocol.info.std_ref[lp] == "refA" and protocol.info.outliers[lp] == frozenset()
        assert protocol.info.std_gold[lp] == ("mqm" if lp in ("en-ko_KR", "ja-zh_CN") else "esa-human1")
    assert protocol.weights == (1 / 32,) * 32
    assert len(protocol.info.primary - protocol.info.baselines) == 12 and len(protocol.info.baselines) == 8
    assert {"MetricX-25", "GEMBA-v2", "COMET22", "sentinel-cand"} <= protocol.info.primary
    assert mp.PROTOCOLS["wmt25"] is mp.wmt25


def test_wmt25_on_wmt23_he_en_equals_mt_metrics_eval(wmt23_inputs):
    """WMT25's task set on WMT23's he-en: acc-t without the human translation (refA) as a system, to 1e-9."""
    test_sets, scores = wmt23_inputs
    protocol = mp.wmt25(["he-en"], info=mp.WMT23_INFO)
    result = mp.run_task(protocol.tasks[1], protocol, test_sets, scores)
    assert "refA" not in result.systems["he-en"] and len(result.systems["he-en"]) == 12
    got = [float(result.values[result.metrics.index(m)]) for m in WMT25_ON_WMT23_HE_EN_ACC_T]
    np.testing.assert_allclose(got, list(WMT25_ON_WMT23_HE_EN_ACC_T.values()), rtol=0, atol=1e-9)


@pytest.mark.slow
def test_wmt25_on_wmt23_average_equals_mt_metrics_eval(wmt23_inputs):
    """The whole WMT25 task set on WMT23: the average's order and values (SPA's float32 and system-order caveat:
    within 5e-4)."""
    result = mp.run_protocol(mp.wmt25(info=mp.WMT23_INFO), *wmt23_inputs)
    assert list(result.metrics) == list(WMT25_ON_WMT23_AVERAGE)
    np.testing.assert_allclose(result.average, list(WMT25_ON_WMT23_AVERAGE.values()), rtol=0, atol=5e-4)


def test_extra_task_specs():
    """``--extra-task`` specs: one task per language pair, the protocol's rule for human translations, typed
    options, one-line errors."""
    protocol = mp.wmt23()
    tasks = mp.tasks_from_spec("kendall:variant=b,grouping=item,epsilon=0.5,perm_test=pairs", protocol)
    assert [t.lps for t in tasks] == [("en-de",), ("he-en",), ("zh-en",)]
    assert [t.include_human for t in tasks] == [False, True, False]
    assert (tasks[0].variant, tasks[0].epsilon, tasks[0].level) == ("b", 0.5, "seg")
    assert tasks[0].label == "en-de seg kendall-b eps 0.5 (item, pairs)"
    (spa,) = mp.tasks_from_spec("spa", mp.wmt25(["ja-zh_CN"]))
    assert (spa.level, spa.include_human) == ("sys", False)
    sampled = mp.tasks_from_spec(
        "pearson:grouping=item,sample_size=200,sample_method=stratify,sample_seed=3", protocol
    )
    assert sampled[0].label == "en-de seg pearson (item, stratify sample of 200, seed 3)"
    for spec, message in (
        ("pooled_accuracy", "unknown statistic"),
        ("pdp:grp=item", "expected OPTION=VALUE"),
        ("kendall:epsilon=big", "epsilon must be a float"),
        ("kendall:variant=c,perm_test=pairs", "swapping pairs tests"),
        ("pearson:average=median", "bad average"),
    ):
        with pytest.raises(InputError, match=message):
            mp.tasks_from_spec(spec, protocol)


def test_tasks_whose_test_or_sample_would_not_be_the_labelled_one_are_rejected():
    """Swapping pairs tests the plain mean of the groups (a micro average would test another number than the
    table's), and a task that reads system scores draws no item sample: both are errors; SPA, system-level but on
    segment scores, takes a sample."""
    protocol = mp.wmt23()
    with pytest.raises(InputError, match="micro average is tested with perm_test=scores"):
        mp.tasks_from_spec("kendall:variant=b,grouping=item,perm_test=pairs,average=micro", protocol)
    with pytest.raises(InputError, match="micro average"):
        mp.Task(
            "tie_calibrated", ("en-de",), "seg", False, "item", "acc23", perm_test="pairs", average="micro"
        )
    (micro,) = mp.tasks_from_spec("kendall:variant=b,grouping=item,average=micro", mp.wmt23(["en-de"]))
    assert micro.label == "en-de seg kendall-b (item, micro)"
    with pytest.raises(InputError, match="no sample would be drawn"):
        mp.tasks_from_spec("pearson:level=sys,sample_size=100", protocol)
    (spa,) = mp.tasks_from_spec("spa:sample_size=100", mp.wmt24_on_wmt23(["en-de"]))
    assert spa.sample_size == 100 and mp.file_level(spa) == "seg"


def test_labels_name_every_option_that_differs_from_its_default():
    """Two tasks that differ only in their test, NaN rule or sample rate get different labels (the labels key the
    random draws and the per-task results), and the protocols' own labels are as before."""
    protocol = mp.wmt23(["en-de"])
    (own,) = [t for t in protocol.tasks if t.statistic == "tie_calibrated"]
    (scores,) = mp.tasks_from_spec("tie_calibrated:perm_test=scores", protocol)
    (sampled,) = mp.tasks_from_spec("tie_calibrated:sample_rate=0.1", protocol)
    (zero,) = mp.tasks_from_spec("kendall:variant=b,grouping=item,nan_groups=zero", protocol)
    assert own.label == "en-de seg acc-t (item)"
    assert scores.label == "en-de seg acc-t (item, scores)"
    assert sampled.label == "en-de seg acc-t (item, sample rate 0.1)"
    assert zero.label == "en-de seg kendall-b (item, NaN groups as 0)"
    protocols = [mp.PROTOCOLS[name]() for name in ("wmt23", "wmt24")]
    labels = [task.label for p in protocols for task in p.tasks + p.extras]
    assert labels == [
        "accuracy",
        *[f"{lp} {kind}" for lp in ("en-de", "he-en", "zh-en") for kind in
          ("sys pearson", "seg pearson", "seg acc-t (item)")],
        *[f"{lp} seg PDP (item)" for lp in ("en-de", "he-en", "zh-en")],
        *[f"{lp} {kind}" for lp in ("en-de", "he-en", "zh-en") for kind in ("sys SPA", "seg acc-t (item)")],
    ]  # fmt: skip


# ------------------------------------------------------------------------------------------------ human scores as metrics


def test_da_sqm_as_a_metric_joins_the_tasks_it_covers_and_changes_no_row(
    wmt23_inputs, wmt23_result, wmt23_da_sqm_result
):
    """DA+SQM rates every MQM cell in en-de and every system in zh-en, but a quarter of zh-en's segments are not
    rated: it joins the four tasks it covers, with its value equal to scipy's Pearson of the two human files (the
    system-level task), and every metric's value and cluster, the average and its clusters stay mt-metrics-eval's."""
    test_sets, _ = wmt23_inputs
    result = wmt23_da_sqm_result
    assert result.metrics == wmt23_result.metrics
    np.testing.assert_array_equal(result.average, wmt23_result.average)
    shown = mp.human_display("da-sqm")
    joined = [task.task.label for task in result.tasks if shown in task.metrics]
    assert joined == ["en-de sys pearson", "en-de seg pearson", "en-de seg acc-t (item)", "zh-en sys pearson"]
    for task, before in zip(result.tasks, wmt23_result.tasks, strict=True):
        assert task.human == (frozenset({shown}) if task.task.label in joined else frozenset())
        main = [task.metrics.index(m) for m in before.metrics]
        np.testing.assert_array_equal(task.values[main], before.values)
        np.testing.assert_array_equal(task.ranks[main], before.ranks)
    en_de = result.tasks[1]
    systems = en_de.systems["en-de"]
    mqm = read_human_scores(test_sets["en-de"], "mqm", "sys").rows(systems)[:, 0]
    da = read_human_scores(test_sets["en-de"], "da-sqm", "sys").rows(systems)[:, 0]
    assert en_de.values[en_de.metrics.index(shown)] == pytest.approx(stats.pearsonr(mqm, da)[0], abs=1e-12)


def test_da_sqm_on_the_cells_it_rates_and_as_the_gold(wmt23_inputs):
    """zh-en's segment-level Pearson on the cells both MQM and DA+SQM rate equals scipy's over those cells, 75% of
    MQM's; and with DA+SQM as the gold, en-de's system-level Pearson of a metric is scipy's against the DA+SQM
    system scores."""
    from mtsig.studies.metrics_protocol.human import partial_human_rows

    test_sets, scores = wmt23_inputs
    protocol = mp.wmt23(["zh-en"])
    result = mp.run_protocol(protocol, test_sets, scores, mp.RunOptions(human_metrics=("da-sqm",)))
    rows = {
        row.task: row
        for row in partial_human_rows(
            mp.ProtocolData(result, test_sets, scores), mp.RunOptions(human_metrics=("da-sqm",))
        )
    }
    assert set(rows) == {"zh-en seg pearson", "zh-en seg acc-t (item)"}
    systems = result.tasks[2].systems["zh-en"]
    mqm = read_human_scores(test_sets["zh-en"], "mqm", "seg").rows(systems)
    da = read_human_scores(test_sets["zh-en"], "da-sqm", "seg").rows(systems)
    both = np.isfinite(mqm) & np.isfinite(da)
    assert rows["zh-en seg pearson"].value == pytest.approx(stats.pearsonr(mqm[both], da[both])[0], abs=1e-12)
    assert rows["zh-en seg pearson"].share == pytest.approx(both.sum() / np.isfinite(mqm).sum())
    gold = mp.with_gold(mp.wmt23(["en-de"]), "da-sqm")
    assert set(mp.required_scores(gold, test_sets)) <= set(scores)  # DA+SQM's files, read as a metric's
    again = mp.run_protocol(gold, test_sets, scores)
    task = again.tasks[1]
    assert task.task.label == "en-de sys pearson" and task.task.gold == "da-sqm"
    systems = task.systems["en-de"]
    bleu = scores_of(test_sets["en-de"], "BLEU-refA", systems)
    da_sys = read_human_scores(test_sets["en-de"], "da-sqm", "sys").rows(systems)[:, 0]
    assert task.values[task.metrics.index("BLEU")] == pytest.approx(
        stats.pearsonr(da_sys, bleu)[0], abs=1e-12
    )


def scores_of(test_set, name, systems):
    from mtsig.io.mtme import read_level_scores

    return read_level_scores(test_set, test_set.metric_files[(name, "sys")], "sys", human=False).rows(
        systems
    )[:, 0]


def test_human_ranks_insert_a_human_score_without_moving_the_others():
    """Ranking a, H, b, c (H a human score): the metrics' clusters are AssignRanks' on a, b, c alone (a beats c:
    {a, b}, {c}); H joins a's cluster unless a beats it."""
    sig = np.zeros((4, 4))
    sig[0, 1], sig[0, 2], sig[0, 3], sig[1, 2], sig[1, 3], sig[2, 3] = 0.3, 0.2, 0.01, 0.5, 0.5, 0.4
    ranks = mp.human_ranks([False, True, False, False], sig, 0.05)
    assert ranks.tolist() == [1, 1, 1, 2]
    sig[0, 1] = 0.01
    assert mp.human_ranks([False, True, False, False], sig, 0.05).tolist() == [1, 2, 1, 2]


def test_results_answer_the_xcomet_metricx_question_with_the_runs_numbers(wmt23_inputs, repo_root):
    """docs/results.md's answer to "Is XCOMET-Ensemble's lead over MetricX-23 real?" prints the default run's numbers, recomputed
    here as the run computes them: the WMT23 protocol's tests seeded by derive_seed(resampling.seed, "wmt23",
    "wmt23"), the average's p-value between the two and the stability of the table's winner and cluster 1 with
    rng_for(seed, "wmt23", "wmt23", "stability", "average"); en-de acc-t's test and the power of the pair with
    rng_for(seed, "wmt23", "wmt23", "power", <label>) (config/wmt23.yaml's power block)."""
    import re

    import yaml

    from mtsig.stats.seeding import derive_seed, rng_for
    from mtsig.studies.metrics_protocol.beyond import task_resampler
    from mtsig.studies.metrics_protocol.power import AVERAGE, DEFAULT_SCALES, average_stability, task_power

    seed = yaml.safe_load((repo_root / "config" / "config.yaml").read_text())["resampling"]["seed"]
    spec = yaml.safe_load((repo_root / "config" / "wmt23.yaml").read_text())["metrics_protocol"]["wmt23"]
    test_sets, scores = wmt23_inputs
    result = mp.run_protocol(
        mp.wmt23(),
        test_sets,
        scores,
        mp.RunOptions(
            n_resamples=spec["protocols"]["wmt23"]["samples"], seed=derive_seed(seed, "wmt23", "wmt23")
        ),
    )
    names = list(result.metrics)
    x, m = names.index("XCOMET-Ensemble"), names.index("MetricX-23")
    task = next(t for t in result.tasks if t.task.label == "en-de seg acc-t (item)")
    power = spec["power"]
    (pair,) = [
        p
        for p in task_power(
            task, task_resampler(task, mp.ProtocolInputs(result.protocol, test_sets, scores)), power["pairs"],
            scales=DEFAULT_SCALES, n_sets=power["samples"], target=power["target"], alpha=0.05,
            rng=rng_for(seed, "wmt23", "wmt23", "power", task.task.label),
        )
        if (p.higher, p.lower) == ("XCOMET-Ensemble", "MetricX-23")
    ]  # fmt: skip
    results = (repo_root / "docs" / "results.md").read_text(encoding="utf-8")
    (row,) = [
        " ".join(paragraph.split())
        for paragraph in results.split("\n\n")
        if paragraph.startswith("Is XCOMET-Ensemble's lead over MetricX-23 real?")
    ]
    numbers = re.search(
        r"averages (\d\.\d{3}) and (\d\.\d{3}), p = (\d\.\d{3}).*?wins the table (\d+)% of the time, alone in "
        r"cluster 1 (\d+)% of the time.*?\((\d\.\d{3}) against (\d\.\d{3}), p = (\d\.\d{2})\)"
        r".*?about ([\d,]+) segments, (\d+) times the (\d+) rated",
        row,
    )
    assert numbers, row
    assert numbers.group(1, 2) == (f"{result.average[x]:.3f}", f"{result.average[m]:.3f}")
    assert numbers.group(3) == f"{result.significance[x, m]:.3f}" and result.ranks[x] == 1 < result.ranks[m]
    resamplers = [
        task_resampler(t, mp.ProtocolInputs(result.protocol, test_sets, scores)) for t in result.tasks
    ]
    table = average_stability(
        result, resamplers, n_sets=power["stability_samples"], alpha=0.05,
        rng=rng_for(seed, "wmt23", "wmt23", "stability", AVERAGE),
    )  # fmt: skip
    assert table.winner == "XCOMET-Ensemble" and table.cluster == ("XCOMET-Ensemble",)
    assert numbers.group(4, 5) == (f"{table.p_winner:.0%}"[:-1], f"{table.p_cluster:.0%}"[:-1])
    values = dict(zip(task.metrics, task.values, strict=True))
    assert numbers.group(6, 7) == (f"{values['XCOMET-Ensemble']:.3f}", f"{values['MetricX-23']:.3f}")
    assert numbers.group(8) == f"{pair.p_value:.2f}"
    assert int(numbers.group(9).replace(",", "")) == round(pair.n_target, -3)
    assert (int(numbers.group(10)), int(numbers.group(11))) == (round(pair.scale_target), pair.n_units)


def test_table_fills_the_extra_columns_of_the_human_and_chance_rows(wmt23_da_sqm_result):
    """The WMT23 table's PDP columns (†) in the rows of DA+SQM and of chance: DA+SQM's PDP and cluster where it
    scores every cell (en-de), `–` where it does not (he-en has no DA+SQM, zh-en only part of it); the chance row
    `–` in a column without a chance level, its level in a column whose task has one (a PDP column's among the
    extra tasks' levels), and `°` on a metric's PDP not above chance, as in the other columns."""
    from mtsig.report.metrics_protocol.page import _chance_row, protocol_table_markdown
    from mtsig.studies.metrics_protocol.chance import ChanceLevel, ProtocolChance

    result = wmt23_da_sqm_result
    shown = mp.human_display("da-sqm")
    assert [shown in task.human for task in result.extras] == [True, False, False]

    def level(label, metrics, weak=()):
        pvalues = {name: 0.5 if name in weak else 0.001 for name in metrics}
        return ChanceLevel(label, np.zeros(1), ("x",), 0.25, 0.5, pvalues)

    tasks = tuple(level(task.task.label, task.metrics) for task in result.tasks)
    en_de, he_en = result.extras[0], result.extras[1]
    extras = (level(en_de.task.label, en_de.metrics, weak={"BLEU"}), level(he_en.task.label, he_en.metrics))
    table = protocol_table_markdown(
        result, heading="WMT23", chance=ProtocolChance(tasks, level("average", result.metrics), 1, extras)
    )
    rows = {}
    for line in table.splitlines():
        cells = [cell.strip() for cell in line.strip("|").split("|")]
        if cells[0] == "rank":
            header = cells
        elif len(cells) > 1 and cells[1] in (shown, "chance", "BLEU", "COMET"):
            rows[cells[1]] = dict(zip(header, cells, strict=True))
    m = en_de.metrics.index(shown)
    assert rows[shown]["en-de seg PDP (item) †"] == f"{en_de.values[m]:.3f} ({en_de.ranks[m]})"
    assert rows[shown]["he-en seg PDP (item) †"] == rows[shown]["zh-en seg PDP (item) †"] == "–"
    assert rows[shown]["en-de sys pearson"] != "–" and rows[shown]["he-en sys pearson"] == "–"
    pdp_columns = [f"{lp} seg PDP (item) †" for lp in ("en-de", "he-en", "zh-en")]
    assert [rows["chance"][column] for column in pdp_columns] == ["0.250 [0.500]", "0.250 [0.500]", "–"]
    assert rows["chance"]["en-de sys pearson"] == "0.250 [0.500]"
    b = en_de.metrics.index("BLEU")
    assert rows["BLEU"]["en-de seg PDP (item) †"] == f"{en_de.values[b]:.3f} ({en_de.ranks[b]})°"
    assert not rows["BLEU"]["he-en seg PDP (item) †"].endswith("°")
    assert not any(rows["COMET"][column].endswith("°") for column in pdp_columns)
    assert "en-de seg PDP (item): BLEU (p 0.500)" in table  # the list of values not above chance
    # an extra task with a main task's label (``--extra-task pearson``) has that task's chance level
    labels = [task.task.label for task in result.tasks]
    chance = ProtocolChance(tasks, level("average", result.metrics), 1)
    row = _chance_row(chance, labels, [("en-de seg pearson †", "en-de seg pearson"), ("x †", "en-de seg x")])
    assert (row["en-de seg pearson †"], row["x †"]) == ("0.250 [0.500]", "–")


def test_protocol_chance_gives_the_extra_pdp_task_a_level(wmt23_inputs):
    """protocol_chance draws the chance level of an extra PDP task (task_chance's, over the average's metrics)
    with each metric's p-value, and of an extra Kendall-like task; none for an extra task whose statistic has none
    (tie calibration on a sample of pairs) or that shares a task's label (its column shows the task's level); the
    averaged tasks' levels are unchanged."""
    from mtsig.studies.metrics_protocol.chance import protocol_chance, task_chance

    extras = (
        *mp.pdp_extras(["en-de"]),
        mp.Task("kendall_like", ("en-de",), "seg", False, grouping="item"),
        mp.Task(
            "tie_calibrated", ("en-de",), "seg", False, grouping="item", variant="acc23", sample_rate=0.1
        ),
        mp.Task("pearson", ("en-de",), "seg", False),
    )
    protocol = mp.wmt23(["en-de"], extras=extras)
    result = mp.run_protocol(protocol, *wmt23_inputs)
    chance = protocol_chance(mp.ProtocolData(result, *wmt23_inputs), n_draws=40, seed=3, key=("test",))
    pdp, kendall_like = chance.extras
    assert kendall_like.label == result.extras[1].task.label == "en-de seg kendall-like 25 (item)"
    assert set(kendall_like.pvalues) == set(result.extras[1].metrics)
    task = result.extras[0]
    assert pdp.label == task.task.label == "en-de seg PDP (item)"
    assert set(pdp.pvalues) == set(task.metrics) and set(pdp.draw_metrics) <= set(result.metrics)
    direct = task_chance(
        task,
        mp.ProtocolInputs(protocol, *wmt23_inputs),
        pooled=result.metrics,
        n_draws=40,
        seed=3,
        key=("test",),
    )
    np.testing.assert_array_equal(pdp.draws, direct.draws)
    # PDP of a metric that knows nothing: about 0, spread by the metrics' own system structure, which every draw keeps
    assert abs(pdp.mean) < 0.02 and 0.02 < pdp.upper < 0.2
    assert pdp.pvalues["XCOMET-Ensemble"] == 1 / 41  # far above every permuted draw
    without = protocol_chance(
        mp.ProtocolData(mp.run_protocol(mp.wmt23(["en-de"], extras=()), *wmt23_inputs), *wmt23_inputs),
        n_draws=40, seed=3, key=("test",),
    )  # fmt: skip
    assert without.extras == ()
    for a, b in zip(chance.tasks, without.tasks, strict=True):
        np.testing.assert_array_equal(a.draws, b.draws)


def test_protocol_chance_gives_a_kendall_like_main_task_a_level(wmt23_inputs):
    """A protocol whose averaged task is the WMT20 Kendall-like tau (Mathur et al. 2020; micro-averaged over items
    as mt-metrics-eval's ``KendallLike``, at 5 MQM points) runs with chance levels: the task has one, drawn as
    task_chance draws it (chance_grouped_correlation of the metrics relabelled by the null's group), about 0 for a
    metric that knows nothing (a metric tie is a discordant pair: below 0 for tied metrics), XCOMET-Ensemble far
    above it; the table's row `chance` shows it in the task's column."""
    from mtsig.report.metrics_protocol import protocol_table_markdown
    from mtsig.studies.metrics_protocol.chance import has_chance_level, protocol_chance, task_chance

    kendall_like = mp.Task(
        "kendall_like", ("en-de",), "seg", False, grouping="item", average="micro", threshold=5
    )
    assert has_chance_level(kendall_like)
    protocol = mp.Protocol(
        "kendall-like", mp.WMT23_INFO, (kendall_like, mp.Task("pearson", ("en-de",), "sys", False))
    )
    result = mp.run_protocol(protocol, *wmt23_inputs)
    chance = protocol_chance(mp.ProtocolData(result, *wmt23_inputs), n_draws=40, seed=3, key=("test",))
    level = chance.tasks[0]
    assert level.label == "en-de seg kendall-like 5 (item, micro)"
    assert level.draws.shape == (len(result.tasks[0].metrics), 40)  # each metric's own draws
    direct = task_chance(
        result.tasks[0],
        mp.ProtocolInputs(protocol, *wmt23_inputs),
        pooled=result.metrics,
        n_draws=40,
        seed=3,
        key=("test",),
    )
    np.testing.assert_array_equal(level.draws, direct.draws)
    assert -0.2 < level.mean < 0.02 and level.upper < 0.2 and np.unique(level.draws).size > 10
    assert level.pvalues["XCOMET-Ensemble"] == 1 / 41  # far above every permuted draw
    table = protocol_table_markdown(result, heading="Kendall-like", chance=chance)
    rows = [
        [cell.strip() for cell in line.strip("|").split("|")] for line in table.splitlines() if "|" in line
    ]
    header = next(row for row in rows if row[0] == "rank")
    (chance_row,) = [row for row in rows if len(row) > 1 and row[1] == "chance"]
    column = next(k for k, name in enumerate(header) if name.startswith(level.label))
    assert chance_row[column] == f"{level.mean:.3f} [{level.upper:.3f}]"


def test_a_task_refuses_a_kendall_like_threshold_that_is_not_a_number_at_least_0():
    for threshold in (-1.0, float("nan")):
        with pytest.raises(InputError, match="threshold must be a number >= 0"):
            mp.Task("kendall_like", ("en-de",), "seg", False, grouping="item", threshold=threshold)


def test_the_average_redraws_each_language_pairs_items_and_systems_once(wmt23_result, wmt23_inputs):
    """The average's re-drawn test sets (mtsig.studies.metrics_protocol.power.average_stability): every task names
    its units, so that a language pair's items (segment indices) and systems are drawn once for all its tasks. The
    segment-level tasks of a pair draw its rated items (acc-t: those with a pair of rated translations, all of them
    here), the system-level ones and the pooled accuracy its systems; the real test set, every unit drawn once,
    gives every task's value and the table's average."""
    from mtsig.stats.meta_evaluation.metric_ranking import weighted_average
    from mtsig.studies.metrics_protocol.beyond import task_resampler, task_scheme

    test_sets, scores = wmt23_inputs
    result = wmt23_result
    resamplers = [
        task_resampler(task, mp.ProtocolInputs(result.protocol, test_sets, scores)) for task in result.tasks
    ]
    for task, resampler in zip(result.tasks, resamplers, strict=True):
        assert len(resampler.units) == len(resampler.n_units), task.task.label
        for units, n in zip(resampler.units, resampler.n_units, strict=True):
            assert units.labels.size == n and units.kind == task_scheme(task.task)
            human = mp.task_inputs_per_lp(
                task.task, mp.ProtocolInputs(result.protocol, test_sets, scores), mp.MetricSelection()
            )
            systems, matrix, _ = human[units.lp]
            if units.kind == "items":
                assert units.labels.tolist() == np.flatnonzero(np.isfinite(matrix).any(axis=0)).tolist()
            else:
                assert units.labels.tolist() == list(systems)
    ones = [[np.ones((1, n), dtype=np.int64) for n in r.n_units] for r in resamplers]
    index = [np.array([task.metrics.index(name) for name in result.metrics]) for task in result.tasks]
    values = [r.statistic(c)[0] for r, c in zip(resamplers, ones, strict=True)]
    for task, value in zip(result.tasks, values, strict=True):
        np.testing.assert_allclose(value, task.values, rtol=0, atol=1e-12, err_msg=task.task.label)
    average = weighted_average(
        [v[i] for v, i in zip(values, index, strict=True)],
        [t.task.value_range for t in result.tasks],
        result.protocol.weights,
    )
    np.testing.assert_allclose(average, result.average, rtol=0, atol=1e-12)
