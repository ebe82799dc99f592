"""Tests of METEOR: oracle is the Meteor 1.5 jar's own "Final score" in its normal (non-statistics) mode.

The oracle runs use the jar's *default* parameters and weights (no -p/-w), so they also check the settings
table that mtsig passes to the jar explicitly. mtsig's side goes through the pipeline's own steps (statistics
saved by ``metric_stats``, scored by ``corpus_scores_table``), as ``results/*/scores.tsv`` is made.
"""

from __future__ import annotations

import csv
import json
import re
import subprocess
from pathlib import Path

import numpy as np
import pytest
from sacrebleu.tokenizers.tokenizer_13a import Tokenizer13a

from mtsig import cli
from mtsig.errors import InputError
from mtsig.io.text import load_texts
from mtsig.metrics import METEOR, JavaNotFoundError
from mtsig.metrics import meteor as meteor_module
from mtsig.metrics.meteor import meteor_jar, meteor_score, meteor_settings, parse_meteor_statistics
from mtsig.steps.common import load_scored_stats
from mtsig.steps.data import write_prepared_texts
from mtsig.steps.files import load_arrays, save_arrays, save_stats
from mtsig.steps.metrics import corpus_scores_table, write_metric_stats

N_SEGMENTS = 150  # WMT12 subsets: a few hundred lines keep the JVM runs short

# A small German and a small French test written for these tests (no WMT12 output is in German or French):
# a reference and three "systems" of different quality, with inflected forms for the stemmer, function words,
# reorderings and one perfectly matched segment (whose chunk the jar does not count).
GERMAN_REFERENCE = [
    "Die Regierung hat am Montag neue Maßnahmen gegen die Inflation angekündigt.",
    "Der Präsident sagte, dass die Gespräche mit den Nachbarländern fortgesetzt werden.",
    "In den Städten steigen die Mieten schneller als die Löhne.",
    "Die Polizei nahm zwei Verdächtige fest, die das Haus in der Nacht betreten hatten.",
    "Viele Studenten können sich die hohen Preise für Bücher nicht mehr leisten.",
    "Das Spiel endete nach neunzig Minuten ohne Tore.",
    "Experten warnen vor den Folgen des Klimawandels für die Landwirtschaft.",
    "Die Bank erwartet für das nächste Jahr ein geringeres Wachstum.",
]
GERMAN_SYSTEMS = {
    "close": [
        "Die Regierung kündigte am Montag neue Maßnahme gegen die Inflation an.",
        "Der Präsident sagte, die Gespräche mit den Nachbarländern werden fortgesetzt.",
        "In den Städten steigen die Mieten schneller als die Löhne.",
        "Die Polizei verhaftete zwei Verdächtigen, die in der Nacht das Haus betraten.",
        "Viele Studenten können die hohen Buchpreise nicht mehr bezahlen.",
        "Das Spiel endete ohne Tor nach neunzig Minuten.",
        "Experten warnen vor Folgen des Klimawandel für Landwirtschaft.",
        "Die Bank erwartet im nächsten Jahr geringeres Wachstum.",
    ],
    "literal": [
        "Die Regierung hat am Montag angekündigt neue Maßnahmen gegen Inflation.",
        "Der Präsident hat gesagt, dass die Verhandlungen mit den benachbarten Ländern weitergehen.",
        "In Städten die Mieten steigen schneller als Gehälter.",
        "Polizei hat zwei Verdächtige festgenommen, welche das Haus in Nacht betreten haben.",
        "Viele Studenten können nicht mehr die hohen Preise der Bücher leisten.",
        "Das Spiel ist nach neunzig Minuten ohne Tore geendet.",
        "Die Experten warnen über die Folgen von dem Klimawandel für die Landwirtschaft.",
        "Die Bank erwartet für nächstes Jahr ein niedrigeres Wachstum.",
    ],
    "poor": [
        "Regierung Montag neue Maßnahmen Inflation.",
        "Präsident sprach über Gespräche.",
        "Die Mieten in den Städten sind hoch.",
        "Zwei Männer wurden von der Polizei gefunden.",
        "Bücher sind teuer für Studenten.",
        "Spiel endete null zu null.",
        "Klima ist schlecht für Bauern.",
        "Bank sagt Wachstum wird kleiner.",
    ],
}
FRENCH_REFERENCE = [
    "Le gouvernement a annoncé lundi de nouvelles mesures contre l'inflation.",
    "Le président a déclaré que les négociations avec les pays voisins continueraient.",
    "Dans les grandes villes, les loyers augmentent plus vite que les salaires.",
    "La police a arrêté deux suspects qui étaient entrés dans la maison pendant la nuit.",
    "Beaucoup d'étudiants ne peuvent plus payer le prix élevé des livres.",
    "Le match s'est terminé sans but après quatre-vingt-dix minutes.",
    "Les experts mettent en garde contre les conséquences du changement climatique pour l'agriculture.",
    "La banque prévoit une croissance plus faible pour l'année prochaine.",
]
FRENCH_SYSTEMS = {
    "close": [
        "Le gouvernement a annoncé lundi des nouvelles mesures contre l'inflation.",
        "Le président a dit que les négociations avec les pays voisins vont continuer.",
        "Dans les grandes villes, les loyers augmentent plus vite que les salaires.",
        "La police a arrêté deux suspects entrés dans la maison la nuit.",
        "Beaucoup d'étudiants ne peuvent plus payer les prix élevés des livres.",
        "Le match a terminé sans buts après quatre-vingt-dix minutes.",
        "Les experts avertissent des conséquences du changement climatique sur l'agriculture.",
        "La banque prévoit pour l'année prochaine une croissance plus faible.",
    ],
    "literal": [
        "Le gouvernement lundi a annoncé nouvelles mesures contre inflation.",
        "Le président a déclaré que les discussions avec les pays voisins continueront.",
        "Dans les villes grandes, les loyers montent plus rapidement que les salaires.",
        "La police a arrêté deux suspects lesquels ont entré dans la maison pendant la nuit.",
        "Beaucoup des étudiants ne peuvent pas plus payer le prix haut des livres.",
        "Le match s'est fini sans but après 90 minutes.",
        "Les experts avertissent contre les conséquences de changement du climat pour agriculture.",
        "La banque attend une croissance plus faible pour l'an prochain.",
    ],
    "poor": [
        "Gouvernement nouvelles mesures.",
        "Le président parle des pays.",
        "Les loyers sont chers.",
        "Deux hommes arrêtés.",
        "Les livres coûtent cher.",
        "Match nul.",
        "Le climat change.",
        "La banque est prudente.",
    ],
}


def write_lines(path: Path, lines: list[str]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    return path


def jar_final_scores(hyp_files: dict[str, Path], ref_file: Path, options: list[str]) -> dict[str, float]:
    """The jar's corpus score of each hypothesis file in its normal plain-text mode ("Final score:" line),
    run as a user runs it; the JVMs of one language start together to share their start-up time."""
    processes = {
        name: subprocess.Popen(
            ["java", "-Xmx2G", "-jar", str(meteor_jar()), str(hyp_file), str(ref_file), *options],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            cwd=ref_file.parent,
        )
        for name, hyp_file in hyp_files.items()
    }
    scores = {}
    for name, process in processes.items():
        stdout, stderr = process.communicate()
        assert process.returncode == 0, stderr
        (line,) = [line for line in stdout.splitlines() if line.startswith("Final score:")]
        scores[name] = float(line.split()[-1])
    return scores


def wmt12_subset(data_root: Path, pair: str, systems: list[str]) -> tuple[list[str], dict[str, list[str]]]:
    folder = data_root / "wmt12"
    outputs = {name: folder / "system-outputs" / pair / f"newstest2012.{pair}.{name}" for name in systems}
    refs, texts = load_texts(folder / "plain" / f"newstest2012-ref.{pair[-2:]}", outputs, unescape=True)
    return refs[:N_SEGMENTS], {name: lines[:N_SEGMENTS] for name, lines in texts.items()}


def livonian(data_root: Path, systems: list[str]) -> tuple[list[str], dict[str, list[str]]]:
    folder = data_root / "wmt22-en-liv" / "text"
    outputs = {name: folder / "system-outputs" / f"generaltest2022.en-liv.hyp.{name}.liv" for name in systems}
    return load_texts(folder / "generaltest2022.en-liv.ref.A.liv", outputs, unescape=True)


def wmt24_en_cs(data_root: Path, systems: list[str]) -> tuple[list[str], dict[str, list[str]]]:
    """WMT24 en-cs (the ESA release): 50 segments after the canary line (paragraphs: 50 are as long as WMT12's
    N_SEGMENTS sentences)."""
    folder = data_root / "wmt24-esa"
    outputs = {name: folder / "system-outputs" / "en-cs" / f"{name}.txt" for name in systems}
    refs, texts = load_texts(folder / "references" / "en-cs.refA.txt", outputs, unescape=False)
    return refs[1:51], {name: lines[1:51] for name, lines in texts.items()}


# language option -> (test data, the jar's options for its own defaults, what details() must say)
SETTINGS_CASES = {
    "en": (
        lambda root: wmt12_subset(root, "es-en", ["onlineB", "UPC", "QCRI--primary"]),
        ["-l", "en", "-norm"],
        "lang:en|modules:exact+stem+synonym+paraphrase|",
    ),
    "es": (
        lambda root: wmt12_subset(root, "en-es", ["PROMT_DeepHybrid", "UPC", "onlineB"]),
        ["-l", "es", "-m", "exact stem", "-norm"],  # no Spanish paraphrase table ships with pycocoevalcap
        "lang:es|modules:exact+stem|",
    ),
    "de": (
        lambda root: (GERMAN_REFERENCE, GERMAN_SYSTEMS),
        ["-l", "de", "-m", "exact stem", "-norm"],
        "lang:de|modules:exact+stem|",
    ),  # fmt: skip
    "fr": (
        lambda root: (FRENCH_REFERENCE, FRENCH_SYSTEMS),
        ["-l", "fr", "-m", "exact stem", "-norm"],
        "lang:fr|modules:exact+stem|",
    ),  # fmt: skip
    "cs": (
        lambda root: wmt24_en_cs(root, ["CUNI-MH", "GPT-4", "Aya23"]),
        ["-l", "cz", "-m", "exact", "-norm"],  # the jar's Czech; no Czech paraphrase table ships either
        "lang:cz|modules:exact|",
    ),
    # Livonian is unknown to Meteor: the jar's -norm fails for "other", so it is given sacrebleu's 13a tokens.
    "liv": (
        lambda root: livonian(root, ["TartuNLP", "NiuTrans", "HuaweiTSC"]),
        ["-l", "other", "-lower"],
        "lang:other|modules:exact|",
    ),
}


@pytest.mark.parametrize(
    "language", [pytest.param("en", marks=pytest.mark.slow), "es", "de", "fr", "cs", "liv"]
)
def test_pipeline_meteor_equals_jar_final_score(
    language: str, data_root: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """scores.tsv's METEOR (statistics saved by the metric_stats step, scored by the corpus_scores step) is the
    jar's own Final score for every language setting; and the step runs the jar once for all systems."""
    load, jar_options, details = SETTINGS_CASES[language]
    refs, outputs = load(data_root)
    texts = tmp_path / "texts"
    write_prepared_texts(refs, outputs, texts)

    jar_runs = []
    run = subprocess.run

    def counting_run(command, *args, **kwargs):  # type: ignore[no-untyped-def]
        if "-jar" in command:  # not the normaliser's JVM
            jar_runs.append(command)
        return run(command, *args, **kwargs)

    monkeypatch.setattr(meteor_module.subprocess, "run", counting_run)
    stats_path = tmp_path / "stats" / "meteor.npz"
    write_metric_stats("meteor", texts, stats_path, options={"language": language})
    monkeypatch.undo()
    assert len(jar_runs) == 1  # one JVM per experiment, all systems in it
    table = corpus_scores_table([stats_path])
    assert table["details"].str.contains(details, regex=False).all()
    assert load_scored_stats(stats_path)[3].options == {"language": language}

    oracle_dir = tmp_path / "oracle"
    tokenize = Tokenizer13a() if language == "liv" else (lambda line: line)
    ref_file = write_lines(oracle_dir / "reference.txt", [tokenize(ref) for ref in refs])
    hyp_files = {
        name: write_lines(oracle_dir / f"{name}.txt", [tokenize(hyp) for hyp in hyps])
        for name, hyps in outputs.items()
    }
    expected = jar_final_scores(hyp_files, ref_file, jar_options)
    assert len(expected) >= 3
    assert dict(zip(table["system"], table["score"], strict=True)) == pytest.approx(expected, abs=1e-9, rel=0)


def test_statistics_are_scored_with_their_recorded_options(tmp_path: Path) -> None:
    """Statistics remember the options that made them: Spanish METEOR statistics are scored with the Spanish
    parameters, and a file whose recorded options were altered after it was written is refused, naming the file."""
    path = tmp_path / "meteor.npz"
    save_stats(path, np.zeros((1, 2, 23)), ["S"], "METEOR|lang:es", {"language": "es"})
    assert load_scored_stats(path)[3].settings == meteor_settings("es")
    arrays = load_arrays(path)
    save_arrays(
        path, **{**arrays, "options": np.asarray(json.dumps({"language": "en"}))}
    )  # manifest not updated
    with pytest.raises(InputError, match=r"meteor\.npz: intermediate file is corrupted.*rule metric_stats"):
        load_scored_stats(path)


def test_meteor_score_hand_calculation() -> None:
    """English parameters alpha .85, beta .2, gamma .6, delta .75; 4 test and 5 reference words, no function
    words, 3 exact content matches in 2 chunks."""
    stats = np.zeros(23)
    stats[[0, 1]] = [4, 5]
    stats[[4, 5]] = [3, 3]  # exact module: test / reference content matches
    stats[[20, 21, 22]] = [2, 3, 3]  # chunks, test / reference word matches
    precision = (3 * 1.0 * 0.75) / (0.75 * 4)  # 0.75
    recall = (3 * 1.0 * 0.75) / (0.75 * 5)  # 0.6
    f_mean = 1 / (0.15 / precision + 0.85 / recall)
    expected = f_mean * (1 - 0.6 * (2 / 3) ** 0.2)
    assert meteor_score(stats, meteor_settings("en")) == pytest.approx(expected, rel=1e-15)
    assert meteor_score(np.zeros(23), meteor_settings("en")) == 0.0  # empty input: the jar's NaN -> 0


def test_parse_zeroes_chunks_of_perfect_segments_only() -> None:
    perfect = "3.0 3.0 1.0 1.0 2.0 2.0 1.0 1.0 " + "0.0 " * 12 + "1.0 3.0 3.0"
    reordered = "2.0 2.0 0.0 0.0 2.0 2.0 0.0 0.0 " + "0.0 " * 12 + "2.0 2.0 2.0"
    stats = parse_meteor_statistics([perfect, reordered])
    assert stats[:, 20].tolist() == [0.0, 2.0]
    # Segment-level scores stay right: a perfect segment scores Fmean = 1 with no fragmentation penalty.
    assert meteor_score(stats[0], meteor_settings("en")) == 1.0
    assert meteor_score(stats, meteor_settings("en")).shape == (2,)
    assert meteor_score(stats[None, None], meteor_settings("en")).shape == (1, 1, 2)


def test_missing_java_is_reported_before_anything_runs(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))  # a PATH with no java on it
    with pytest.raises(JavaNotFoundError, match="METEOR needs Java: no `java` executable was found on PATH"):
        METEOR().stats_many({"S": ["a b"]}, ["a b"])
    # `mtsig compare` says so in one line, with exit status 2 and nothing on stdout
    for name in ("ref.txt", "A.txt", "B.txt"):
        (tmp_path / name).write_text("a b\n", encoding="utf-8")
    files = [str(tmp_path / name) for name in ("ref.txt", "A.txt", "B.txt")]
    status = cli.main(["compare", "--metrics", "meteor", "--ref", *files])
    captured = capsys.readouterr()
    assert status == 2 and captured.out == ""
    assert captured.err.startswith("mtsig: error: METEOR needs Java: no `java` executable was found on PATH")
    assert len(captured.err.splitlines()) == 1


def test_meteor_settings_fall_back_to_other() -> None:
    assert meteor_settings("EN").jar_language == "en"
    assert meteor_settings("liv") == meteor_settings("xx")
    assert meteor_settings("liv").modules == ("exact",)
    assert meteor_settings("de").modules == ("exact", "stem")
    # Czech: Meteor 1.5's Constants.PARAM_RANK[LANG_CZ] = {0.95, 0.2, 0.6, 0.8} (read from the jar's class file)
    czech = meteor_settings("cs")
    assert (czech.jar_language, czech.modules, czech.weights) == ("cz", ("exact",), (1.0,))
    assert (czech.alpha, czech.beta, czech.gamma, czech.delta) == (0.95, 0.2, 0.6, 0.8)


def mqm_ted_zh_en(data_root: Path, systems: list[str]) -> tuple[list[tuple[str, str]], dict[str, list[str]]]:
    """WMT21 TED zh-en (Freitag et al. 2021): two human references ("ref", "refB") and system outputs, each
    segment's text read from its MQM rows with the error-span tags removed."""
    path = data_root / "mqm-ted" / "zh-en" / "mqm_ted_zhen.tsv"
    with path.open(encoding="utf-8", newline="") as handle:
        rows = list(csv.DictReader(handle, delimiter="\t", quoting=csv.QUOTE_NONE))
    texts = {(row["system"], int(row["seg_id"])): re.sub(r"</?v>", "", row["target"]) for row in rows}
    segments = sorted({seg for system, seg in texts if system == "ref"})[:N_SEGMENTS]
    refs = [(texts["ref", seg], texts["refB", seg]) for seg in segments]
    return refs, {name: [texts[name, seg] for seg in segments] for name in systems}


@pytest.mark.slow
def test_meteor_two_references_equal_jar_final_score(data_root: Path, tmp_path: Path) -> None:
    """Two reference streams are the jar's ``-r 2`` (reference file: two lines per segment)."""
    refs, outputs = mqm_ted_zh_en(data_root, ["Facebook-AI", "NiuTrans", "Online-W"])
    assert sum(a != b for a, b in refs) > len(refs) / 2  # two genuinely different human translations
    meteor = METEOR(language="en")
    streams = [[first for first, _ in refs], [second for _, second in refs]]
    scores = meteor.score(meteor.stats_many(outputs, streams).sum(axis=1))
    assert "|nrefs:2" in meteor.details()
    ref_file = write_lines(tmp_path / "references.txt", [line for pair in refs for line in pair])
    hyp_files = {name: write_lines(tmp_path / f"{name}.txt", hyps) for name, hyps in outputs.items()}
    expected = jar_final_scores(hyp_files, ref_file, ["-l", "en", "-norm", "-r", "2"])
    assert dict(zip(outputs, scores, strict=True)) == pytest.approx(expected, abs=1e-9, rel=0)


def test_meteor_segments_may_have_different_numbers_of_references(data_root: Path) -> None:
    """A segment with one reference in a run with two reference streams (an empty string in the second stream,
    sacrebleu's rule) keeps exactly its single-reference statistics (the padding repeats its reference, which a tie
    never selects); a segment given its own reference and another system's output as a second reference keeps the
    better of the two."""
    refs, outputs = wmt12_subset(data_root, "en-es", ["UPC", "onlineB"])
    refs, hyps, second = refs[:60], outputs["UPC"][:60], outputs["onlineB"][:60]
    meteor = METEOR(language="es")
    single = meteor.stats(hyps, refs)
    with_second = meteor.stats(hyps, [refs, second])
    mixed = meteor.stats(hyps, [refs, [ref if i % 2 else "" for i, ref in enumerate(second)]])
    np.testing.assert_array_equal(mixed[::2], single[::2])
    np.testing.assert_array_equal(mixed[1::2], with_second[1::2])
    settings = meteor_settings("es")
    assert (meteor_score(with_second, settings) >= meteor_score(single, settings)).all()
    assert (with_second != single).any()
    with pytest.raises(InputError, match="segment 2 has no reference"):
        meteor.stats(["a", "b"], [["a", ""], ["", ""]])


@pytest.mark.parametrize("language", ["es", "liv"])
def test_shared_outputs_are_scored_once_with_each_systems_own_statistics(
    language: str, data_root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The jar scores each distinct (segment, hypothesis) pair once, also across several JVMs (``processes``):
    systems that share outputs (a copy of a system, one that repeats another's first line) get exactly the
    statistics of the jar run on each system alone, and the jar sees only the distinct pairs."""
    load = SETTINGS_CASES[language][0]
    refs, outputs = load(data_root)
    first, second = (hyps[:40] for hyps in list(outputs.values())[:2])
    refs = refs[:40]
    systems = {"a": first, "copy_of_a": list(first), "b": [first[0], *second[1:]], "c": second}
    meteor = METEOR(language=language)
    expected = np.stack([meteor.stats(hyps, refs) for hyps in systems.values()])  # one JVM per system

    scored_lines = []
    run = subprocess.run

    def counting_run(command, *args, **kwargs):  # type: ignore[no-untyped-def]
        if "-jar" in command:  # not the normaliser's JVM
            scored_lines.append(len(Path(command[command.index("-jar") + 2]).read_text("utf-8").splitlines()))
        return run(command, *args, **kwargs)

    monkeypatch.setattr(meteor_module.subprocess, "run", counting_run)
    for processes in (1, 2):
        np.testing.assert_array_equal(meteor.stats_many(systems, refs, processes=processes), expected)
    distinct = len({(i, hyp) for hyps in systems.values() for i, hyp in enumerate(hyps)})
    assert distinct < 3 * 40
    assert scored_lines[0] == distinct and len(scored_lines) == 3 and sum(scored_lines[1:]) == distinct
