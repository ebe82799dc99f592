"""METEOR (Denkowski & Lavie 2014) via the Meteor 1.5 jar shipped in pycocoevalcap, aggregated in Python.

The jar aligns every (hypothesis, reference) pair and prints its sufficient statistics (``-ssOut``); the
corpus score is then Meteor's own ``MeteorScorer.computeMetrics`` applied to the summed statistics, transcribed
in :func:`meteor_score`, so ``score(stats.sum(0))`` equals the jar's own "Final score" for the same input.
Meteor's ``MeteorStats.addStats`` does not add the chunk count of a segment that is matched perfectly
(all words matched in one chunk); :func:`parse_meteor_statistics` zeroes those chunk counts so that plain
summation reproduces the jar's aggregation.

Languages (``language`` option, the jar's codes):

- ``en``: the jar's defaults, modules exact, stem, synonym (WordNet) and paraphrase (pycocoevalcap ships
  ``paraphrase-en.gz``), input normalised and lowercased by the jar (``-norm``);
- ``es``, ``de``, ``fr``: modules exact and stem only, since pycocoevalcap ships no paraphrase table for
  them (the jar's default for these languages includes paraphrase) and WordNet synonyms are English-only;
  ``-norm``;
- ``cs`` (the jar's ``cz``): module exact only (the jar's Czech default is exact and paraphrase, and
  pycocoevalcap ships no Czech paraphrase table), Czech parameters, ``-norm``;
- any other code (e.g. Livonian ``liv``): ``-l other`` with exact matching only. The jar's ``-norm`` fails
  for ``other``, so segments are tokenised with sacrebleu's 13a tokenizer here and only lowercased by the
  jar (``-lower``).

Parameters (alpha, beta, gamma, delta) and module weights are the jar's defaults for the language and the
ranking task (read from Meteor 1.5 and checked against the jar by the tests); they are passed to the jar
explicitly with ``-p``/``-w`` so that the numbers used in Python are the numbers the jar used.

The statistics do not say which language they were computed for, so :meth:`METEOR.score` must be called on
a ``METEOR`` built with the same ``language`` as the one that computed them. The pipeline once broke this:
its later steps rebuilt the metric from its name alone, i.e. with English parameters and weights, and scored
the WMT12 en-es statistics with them (PROMT_DeepHybrid 0.2995 instead of the jar's 0.5067; es-en, being
English, was right). A statistics file now records the metric's options and every step rebuilds the metric
from them (:func:`mtsig.steps.common.load_scored_stats`).
"""

from __future__ import annotations

import gzip
import shutil
import subprocess
import tempfile
from collections.abc import Iterable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

import numpy as np
from sacrebleu.tokenizers.tokenizer_13a import Tokenizer13a

from mtsig.metrics.base import (
    Metric,
    References,
    check_parallel,
    check_stats_width,
    chunk_bounds,
    distinct_segment_hypotheses,
    reference_sets,
)
from mtsig.runtime import portable
from mtsig.settings import MeteorOptions

METEOR_VERSION = "1.5"
METEOR_MAX_MODULES = 4  # Meteor's Constants.MAX_MODULES: exact, stem, synonym, paraphrase
METEOR_STATS_WIDTH = 4 + 4 * METEOR_MAX_MODULES + 3  # 23, Meteor's MeteorStats.STATS_LENGTH
METEOR_JVM_MEMORY = "-Xmx2G"
# The serial collector: the jar is single-threaded, and the JVM's default (G1) holds more than twice the memory for
# the same CPU time and the same statistics (benchmarks/README.md, METEOR).
METEOR_JVM_GC = "-XX:+UseSerialGC"
# Only the optimising (C2) JIT compiler: a jar run as short as a pipeline job's spends less CPU this way than
# compiling hot methods twice (C1, then C2), with byte-identical statistics (benchmarks/README.md, METEOR).
METEOR_JVM_JIT = "-XX:-TieredCompilation"
# The jar's own normaliser class: its main() prints Normalizer.normalizeLine(line, language, keepPunctuation) of
# every line of standard input, the function that -norm applies to each line before lowercasing it.
METEOR_NORMALIZER_CLASS = "edu.cmu.meteor.util.Normalizer"
# Standard input and output in UTF-8 whatever the locale (Java 17 reads file.encoding, Java 18+ stdout.encoding).
METEOR_JVM_UTF8 = ("-Dfile.encoding=UTF-8", "-Dsun.stdout.encoding=UTF-8", "-Dstdout.encoding=UTF-8")


class JavaNotFoundError(RuntimeError):
    """METEOR needs a Java runtime (``java`` on PATH) to run the Meteor jar."""


@dataclass(frozen=True)
class MeteorSettings:
    """What the jar runs with for one language: its language code, modules, weights and parameters."""

    jar_language: str
    modules: tuple[str, ...]
    weights: tuple[float, ...]  # one per module, in module order
    alpha: float
    beta: float
    gamma: float
    delta: float
    jar_normalises: bool  # True: jar's -norm; False: 13a tokens from sacrebleu and the jar's -lower


# Meteor 1.5 Constants.PARAM_RANK / WEIGHT_RANK (the default "rank" task) for the languages it supports,
# restricted to the modules whose resources pycocoevalcap ships; "other" is Constants.PARAM_I / WEIGHT_I.
_SETTINGS: dict[str, MeteorSettings] = {
    "en": MeteorSettings(
        "en", ("exact", "stem", "synonym", "paraphrase"), (1.0, 0.6, 0.8, 0.6), 0.85, 0.2, 0.6, 0.75, True
    ),
    "es": MeteorSettings("es", ("exact", "stem"), (1.0, 0.8), 0.65, 1.3, 0.5, 0.8, True),
    "de": MeteorSettings("de", ("exact", "stem"), (1.0, 0.8), 0.95, 1.0, 0.55, 0.55, True),
    "fr": MeteorSettings("fr", ("exact", "stem"), (1.0, 0.2), 0.9, 1.4, 0.6, 0.65, True),
    # Czech (the jar's "cz"): its default modules are exact and paraphrase; pycocoevalcap ships no Czech table.
    "cs": MeteorSettings("cz", ("exact",), (1.0,), 0.95, 0.2, 0.6, 0.8, True),
}
_OTHER = MeteorSettings("other", ("exact",), (1.0,), 0.75, 1.4, 0.7, 0.5, False)


def meteor_settings(language: str) -> MeteorSettings:
    """The jar settings for a target-language code; unknown codes get the language-independent ``other``."""
    return _SETTINGS.get(language.lower(), _OTHER)


def meteor_jar() -> Path:
    """Path of ``meteor-1.5.jar`` inside the installed pycocoevalcap package."""
    jar = Path(str(resources.files("pycocoevalcap") / "meteor" / "meteor-1.5.jar"))
    if not jar.is_file():
        raise FileNotFoundError(f"the Meteor 1.5 jar is missing from pycocoevalcap (expected {jar})")
    return jar


def java_executable() -> str:
    """The ``java`` executable on PATH, or :class:`JavaNotFoundError` saying what is missing."""
    java = shutil.which("java")
    if java is None:
        raise JavaNotFoundError(
            "METEOR needs Java: no `java` executable was found on PATH (install a Java runtime, 8 or newer, "
            "to run the Meteor 1.5 jar)"
        )
    return java


def meteor_command(
    java: str,
    jar: Path,
    hyp_file: Path,
    ref_file: Path,
    settings: MeteorSettings,
    n_references: int = 1,
    normalised: bool = False,
    paraphrase_file: Path | None = None,
) -> list[str]:
    """The jar's command line for sufficient-statistics output of plain-text files (``n_references`` lines
    per segment in ``ref_file``: the jar's ``-r``). ``normalised``: the files hold lines already normalised by
    the jar's normaliser (:func:`normalise_lines`), so the jar only lowercases them (``-lower``) where it would
    otherwise normalise and lowercase them (``-norm``). ``paraphrase_file``: the jar's ``-a``, a paraphrase table
    in place of the language's own (:mod:`mtsig.metrics.meteor_paraphrases`)."""
    command = [
        java,
        METEOR_JVM_MEMORY,
        METEOR_JVM_GC,
        METEOR_JVM_JIT,
        "-Duser.language=en",  # Java's toLowerCase is locale-dependent (e.g. Turkish dotless i)
        "-Duser.country=US",
        "-jar",
        str(jar),
        str(hyp_file),
        str(ref_file),
        "-l",
        settings.jar_language,
        "-m",
        " ".join(settings.modules),
        "-w",
        " ".join(str(w) for w in settings.weights),
        "-p",
        f"{settings.alpha} {settings.beta} {settings.gamma} {settings.delta}",
        "-ssOut",
    ]
    if n_references > 1:
        command += ["-r", str(n_references)]
    if paraphrase_file is not None:
        command += ["-a", str(paraphrase_file)]
    command.append("-norm" if settings.jar_normalises and not normalised else "-lower")
    return command


def normaliser_command(java: str, jar: Path, settings: MeteorSettings) -> list[str]:
    """The jar's normaliser (:data:`METEOR_NORMALIZER_CLASS`) for ``settings``' language, punctuation kept (what
    ``-norm`` does: Meteor's ``-noPunct`` is never used here)."""
    return [
        java,
        METEOR_JVM_GC,
        *METEOR_JVM_UTF8,
        "-Duser.language=en",
        "-Duser.country=US",
        "-cp",
        str(jar),
        METEOR_NORMALIZER_CLASS,
        settings.jar_language,
        "true",
    ]


def run_with_files(command: list[str], workdir: str, stdin: bytes = b"") -> tuple[int, bytes, bytes]:
    """``(exit status, standard output, standard error)`` of ``command`` run in ``workdir``, its standard streams
    in files there rather than pipes: reading a pipe while the JVM writes it line by line woke this process tens of
    thousands of times, each wake-up costing CPU."""
    with tempfile.TemporaryDirectory(prefix="streams-", dir=workdir) as folder:
        paths = [Path(folder) / name for name in ("stdin", "stdout", "stderr")]
        paths[0].write_bytes(stdin)
        with paths[0].open("rb") as inp, paths[1].open("wb") as out, paths[2].open("wb") as err:
            returncode = subprocess.run(command, stdin=inp, stdout=out, stderr=err, cwd=workdir).returncode
        return returncode, paths[1].read_bytes(), paths[2].read_bytes()


def normalise_lines(lines: Sequence[str], command: list[str], workdir: str) -> list[str]:
    """Each line (no line breaks in it) as the jar's ``-norm`` normalises it before lowercasing, computed by the
    jar's own ``Normalizer`` class in one JVM (:func:`normaliser_command`).

    The jar normalises both lines of every pair it aligns (``MeteorScorer.getMeteorStats``: ``normalizeLine``,
    then ``toLowerCase``, then the alignment), and ``normalizeLine`` is a function of the line alone, so
    normalising each distinct line once here and running the jar with ``-lower`` gives the jar exactly the
    lowercased lines it aligns with ``-norm``. The jar's regular expressions are costly per line, and the jar would
    normalise each reference once per system.

    Raises:
        RuntimeError: the JVM failed or printed another number of lines.
    """
    returncode, stdout, stderr = run_with_files(
        command, workdir, "".join(line + "\n" for line in lines).encode("utf-8")
    )
    if returncode != 0:
        raise RuntimeError(
            f"Meteor's normaliser failed (exit {returncode}): {' '.join(command)}\n"
            f"{stderr.decode('utf-8', 'replace')[-2000:]}"
        )
    normalised = stdout.decode("utf-8").split("\n")  # Java's println ends lines with "\n" only
    if normalised.pop() != "" or len(normalised) != len(lines):
        raise RuntimeError(f"Meteor's normaliser printed {len(normalised)} lines for {len(lines)}")
    return normalised


def parse_meteor_statistics(lines: Sequence[str]) -> np.ndarray:
    """Parse the jar's ``-ssOut`` lines into ``[N, 23]`` and zero the chunks of perfectly matched segments.

    Columns (Meteor's ``MeteorStats.toString``): test length, reference length, test function words,
    reference function words, then per module (exact, stem, synonym, paraphrase) test content matches,
    reference content matches, test function matches, reference function matches, then chunks, test word
    matches, reference word matches. ``MeteorStats.addStats`` skips the chunks of a segment whose every test
    and reference word is matched in exactly one chunk; zeroing them here makes plain sums equal the jar's.
    """
    stats = np.array([[float(field) for field in line.split()] for line in lines], dtype=np.float64)
    stats = stats.reshape(len(lines), -1) if len(lines) else np.zeros((0, METEOR_STATS_WIDTH))
    if stats.shape[1] != METEOR_STATS_WIDTH:
        raise RuntimeError(
            f"Meteor printed {stats.shape[1]} statistics per segment, expected {METEOR_STATS_WIDTH}"
        )
    test_matches, ref_matches = _total_matches(stats)
    perfect = (test_matches == stats[:, 0]) & (ref_matches == stats[:, 1]) & (stats[:, 20] == 1)
    stats[perfect, 20] = 0.0
    return stats


def _total_matches(stats: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Unweighted test and reference matches over all modules (Meteor's testTotalMatches, ...)."""
    modules = stats[..., 4 : 4 + 4 * METEOR_MAX_MODULES].reshape(*stats.shape[:-1], METEOR_MAX_MODULES, 4)
    test = modules[..., 0] + modules[..., 2]
    ref = modules[..., 1] + modules[..., 3]
    return test.sum(axis=-1), ref.sum(axis=-1)


def meteor_score(stats: np.ndarray, settings: MeteorSettings) -> np.ndarray:
    """Meteor's ``MeteorScorer.computeMetrics`` on summed statistics ``[..., 23]``, vectorised (0-1 scale).

    ``P`` and ``R`` are module-weighted matches over lengths, content words weighted by delta and function
    words by 1 - delta; ``Fmean = 1 / ((1 - alpha)/P + alpha/R)``; fragmentation ``chunks / mean matched
    words`` (0 if everything is matched in one chunk); score ``Fmean * (1 - gamma * frag^beta)``, clipped
    at 0, and 0 where it is undefined (empty input), as in the jar. Operations follow the jar's order.
    """
    stats = check_stats_width(stats, METEOR_STATS_WIDTH, "METEOR")
    alpha, beta, gamma, delta = settings.alpha, settings.beta, settings.gamma, settings.delta
    test_len, ref_len, test_function, ref_function = (stats[..., i] for i in range(4))
    test_weighted_len = (delta * (test_len - test_function)) + ((1.0 - delta) * test_function)
    ref_weighted_len = (delta * (ref_len - ref_function)) + ((1.0 - delta) * ref_function)
    test_weighted = np.zeros(stats.shape[:-1])
    ref_weighted = np.zeros(stats.shape[:-1])
    for i, weight in enumerate(settings.weights):
        test_weighted = test_weighted + stats[..., 4 + 4 * i] * weight * delta
    for i, weight in enumerate(settings.weights):
        ref_weighted = ref_weighted + stats[..., 5 + 4 * i] * weight * delta
    for i, weight in enumerate(settings.weights):
        test_weighted = test_weighted + stats[..., 6 + 4 * i] * weight * (1.0 - delta)
    for i, weight in enumerate(settings.weights):
        ref_weighted = ref_weighted + stats[..., 7 + 4 * i] * weight * (1.0 - delta)
    chunks, test_words, ref_words = stats[..., 20], stats[..., 21], stats[..., 22]
    test_matches, ref_matches = _total_matches(stats)
    with np.errstate(divide="ignore", invalid="ignore"):
        precision = test_weighted / test_weighted_len
        recall = ref_weighted / ref_weighted_len
        f_mean = 1.0 / (((1.0 - alpha) / precision) + (alpha / recall))
        perfect = (test_matches == test_len) & (ref_matches == ref_len) & (chunks == 1)
        frag = np.where(perfect, 0.0, chunks / ((test_words + ref_words) / 2))
        score = f_mean * (1.0 - gamma * portable.power(frag, beta))
    return np.where(np.isnan(score), 0.0, np.maximum(score, 0.0))


def _jar_line(segment: str) -> str:
    """A segment as one line for the jar: Java's readLine would also split at a carriage return."""
    return segment.replace("\r", " ").replace("\n", " ")


def _run_jar(command: list[str], n_lines: int, workdir: str) -> np.ndarray:
    """Run the jar (:func:`meteor_command`) and parse its ``n_lines`` statistics lines.

    Raises:
        RuntimeError: the jar failed or printed another number of lines.
    """
    returncode, stdout, stderr_bytes = run_with_files(command, workdir)
    stderr = stderr_bytes.decode("utf-8", "replace")
    if returncode != 0:
        raise RuntimeError(f"Meteor failed (exit {returncode}): {' '.join(command)}\n{stderr[-2000:]}")
    lines = [line for line in stdout.decode("utf-8").splitlines() if line.strip()]
    if len(lines) != n_lines:
        raise RuntimeError(
            f"Meteor printed {len(lines)} statistics lines for {n_lines} segments\n{stderr[-2000:]}"
        )
    return parse_meteor_statistics(lines)


def _normalised_lines(
    hyp_lines: list[str], ref_lines: list[list[str]], command: list[str], workdir: str
) -> tuple[list[str], list[list[str]]]:
    """The hypothesis and reference lines as the jar's own normaliser writes them, each distinct line normalised
    once (:func:`normalise_lines`)."""
    distinct = list(dict.fromkeys([*hyp_lines, *(line for lines in ref_lines for line in lines)]))
    as_normalised = dict(zip(distinct, normalise_lines(distinct, command, workdir), strict=True))
    return [as_normalised[line] for line in hyp_lines], [
        [as_normalised[line] for line in lines] for lines in ref_lines
    ]


def _paraphrase_file(
    paraphrases: Mapping[str, np.ndarray], hyp_lines: list[str], ref_lines: list[list[str]], workdir: Path
) -> Path:
    """The paraphrase table's entries that can match in these lines
    (:func:`mtsig.metrics.meteor_paraphrases.filter_paraphrases`), written gzipped for the jar."""
    from mtsig.metrics.meteor_paraphrases import filter_paraphrases

    table, _ = filter_paraphrases(paraphrases, hyp_lines, [line for lines in ref_lines for line in lines])
    path = workdir / "paraphrase.gz"
    path.write_bytes(gzip.compress(table, compresslevel=1, mtime=0))
    return path


def _write_lines(path: Path, lines: Iterable[str]) -> None:
    """``lines`` (each ending in a newline) to ``path`` in UTF-8, as the jar reads them."""
    with path.open("w", encoding="utf-8", newline="\n") as out:
        out.writelines(lines)


def _run_jars(commands: list[list[str]], bounds: np.ndarray, workdir: str) -> list[np.ndarray]:
    """Each part's statistics (:func:`_run_jar`; part i has ``bounds[i+1] - bounds[i]`` lines), the JVMs run at
    once where there are several (threads only wait for them)."""
    if len(commands) == 1:
        return [_run_jar(commands[0], bounds[1], workdir)]
    with ThreadPoolExecutor(max_workers=len(commands)) as pool:
        return list(pool.map(_run_jar, commands, np.diff(bounds), [workdir] * len(commands)))


class METEOR(Metric):
    """METEOR 1.5 through the jar (module docstring); 0-1 scale, higher is better.

    Statistics per segment (``k = 23``): Meteor's own sufficient statistics, chunk counts of perfectly
    matched segments zeroed. Options: ``language="en"`` (target language, jar code; unknown codes use the
    language-independent mode). :meth:`stats_many` runs one JVM over all systems (or ``processes`` JVMs).

    Several references (reference streams, sacrebleu's layout: :mod:`mtsig.metrics.base`) are the jar's ``-r N``,
    N the largest number of references of a segment: the jar scores
    the hypothesis against each reference and keeps the statistics of the best-scoring one (the first on a
    tie; ``MeteorScorer.getMeteorStats`` with a list of references), so statistics stay additive. Segments
    with fewer than N references are padded by repeating their first reference, which a tie never selects
    over the original. :meth:`details` reports the N of the last statistics computed, as sacrebleu's
    signature does.
    """

    name = "meteor"
    higher_is_better = True
    multi_reference = True

    def __init__(self, language: str = MeteorOptions.language) -> None:
        super().__init__(language=language)
        self.settings = meteor_settings(language)
        self._tokenizer = Tokenizer13a()
        self.n_references = 1  # of the last statistics computed, for details()

    @property
    def stat_names(self) -> tuple[str, ...]:
        per_module = [
            f"{module}_{kind}"
            for module in ("exact", "stem", "synonym", "paraphrase")
            for kind in ("test_content", "ref_content", "test_function", "ref_function")
        ]
        return ("test_len", "ref_len", "test_function_words", "ref_function_words", *per_module, "chunks",
                "test_word_matches", "ref_word_matches")  # fmt: skip

    def _prepare(self, segment: str) -> str:
        """Tokenise with 13a where the jar cannot normalise (language ``other``); always one line."""
        if not self.settings.jar_normalises:
            segment = self._tokenizer(segment.rstrip())
        return _jar_line(segment)

    def stats(self, hyps: Sequence[str], refs: References) -> np.ndarray:
        """Per-segment Meteor statistics ``[N, 23]`` (one JVM); one reference per segment or reference streams."""
        return self.stats_many({"system": hyps}, refs)[0]

    def stats_many(
        self,
        systems: Mapping[str, Sequence[str]],
        refs: References,
        processes: int = 1,
        paraphrases: Mapping[str, np.ndarray] | None = None,
    ) -> np.ndarray:
        """Statistics ``[S, N, 23]`` for all systems from one JVM (the jar's start-up, loading the paraphrase
        table, costs seconds). The jar scores each distinct (segment, hypothesis) pair once
        (:func:`mtsig.metrics.base.distinct_segment_hypotheses`: a pair's statistics depend on nothing else, as
        ``MeteorScorer.getMeteorStats`` aligns each line on its own), one line per pair against that segment's
        references, and the rows are scattered back to every system that produced the pair.

        ``processes > 1`` splits the pairs into that many contiguous parts scored by as many JVMs at once: the
        same statistics sooner, at the CPU cost of one more start-up (and paraphrase table) per extra JVM.

        Where the jar normalises (every language but ``other``), each distinct line is normalised once by the jar's
        own normaliser and the jar only lowercases (:func:`normalise_lines`). ``paraphrases``: the index of the
        English paraphrase table (:func:`mtsig.metrics.meteor_paraphrases.build_paraphrase_index`); the jar is
        then given only the entries that can match in these lines (the same statistics, in less time and memory:
        :mod:`mtsig.metrics.meteor_paraphrases`).

        Raises:
            JavaNotFoundError: ``java`` is not on PATH (checked before anything runs).
            InputError: a system's length differs from the references', or a segment has no reference.
            RuntimeError: the jar failed or printed an unexpected number of lines.
        """
        java = java_executable()
        jar = meteor_jar()
        ref_sets = reference_sets(refs)
        check_parallel(systems, refs, multi_reference=True)
        names = list(systems)
        n_segments = len(ref_sets)
        n_references = max((len(references) for references in ref_sets), default=1)
        self.n_references = n_references
        if not names or n_segments == 0:
            return np.zeros((len(names), n_segments, METEOR_STATS_WIDTH))
        index, pairs = distinct_segment_hypotheses(systems, n_segments)
        hyp_lines = [self._prepare(hyp) for _, hyp in pairs]
        # The jar reads exactly n_references lines per segment (-r).
        ref_lines = [
            [self._prepare(ref) for ref in references + (references[0],) * (n_references - len(references))]
            for references in ref_sets
        ]
        bounds = chunk_bounds(len(pairs), processes)
        with tempfile.TemporaryDirectory(prefix="mtsig-meteor-") as workdir:
            normalised = self.settings.jar_normalises
            if normalised:  # each distinct line once, by the jar's own normaliser (normalise_lines)
                command = normaliser_command(java, jar, self.settings)
                hyp_lines, ref_lines = _normalised_lines(hyp_lines, ref_lines, command, workdir)
            paraphrase_file = None
            if paraphrases is not None and "paraphrase" in self.settings.modules:
                paraphrase_file = _paraphrase_file(paraphrases, hyp_lines, ref_lines, Path(workdir))
            ref_blocks = ["".join(line + "\n" for line in lines) for lines in ref_lines]
            commands = []
            for part, (first, last) in enumerate(zip(bounds[:-1], bounds[1:], strict=True)):
                hyp_file, ref_file = Path(workdir) / f"hyp{part}.txt", Path(workdir) / f"ref{part}.txt"
                _write_lines(hyp_file, (line + "\n" for line in hyp_lines[first:last]))
                _write_lines(ref_file, (ref_blocks[i] for i, _ in pairs[first:last]))
                commands.append(
                    meteor_command(
                        java,
                        jar,
                        hyp_file,
                        ref_file,
                        self.settings,
                        n_references,
                        normalised,
                        paraphrase_file,
                    )
                )
            parts = _run_jars(commands, bounds, workdir)
        return np.concatenate(parts)[index]

    def score(self, stats: np.ndarray) -> np.ndarray:
        """Corpus METEOR (0-1) of summed statistics: :func:`meteor_score` with this language's settings."""
        return meteor_score(stats, self.settings)

    def details(self) -> str:
        s = self.settings
        norm = "jar-norm" if s.jar_normalises else "13a+lower"
        return (
            f"METEOR|version:{METEOR_VERSION}|lang:{s.jar_language}|modules:{'+'.join(s.modules)}|"
            f"weights:{' '.join(str(w) for w in s.weights)}|params:{s.alpha} {s.beta} {s.gamma} {s.delta}|"
            f"task:rank|norm:{norm}|nrefs:{self.n_references}"
        )
