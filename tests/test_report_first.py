"""The report's first screen on the hand-worked scenario (tests/scenario.py), report week
2026-W46 (the scenario's data start in W45, so the trend window is W45–W46: 2 weeks).

Worked out by hand from the scenario's docstring, with the thresholds of ``T``:

- hits in the window: L-0001 S1 recalled, S2 index_only, S3 unknown, one without a
  session (unknown), S4 not_recalled; L-0002 S5 recalled. 6 hits; 6 sessions in scope
  (S1, S2, S4, S5, S6, S7): 1.0 hit per exposed session. One hit = 1 h (hours_per_hit,
  pinned in ``T``).
- fix the triggers of L-0001: 2 of its 3 known hits not recalled (S2 index_only, S4)
  -> 2 hits / 2 weeks = 1.0 h/week.
- restructure the index: of the 4 sessions reading it (S1, S2, S4, S7) only S4 saw no
  Active row (S2's grep saw L-0001's row) -> 0.5 sessions/week x 1.0 x 1 h = 0.5.
- build structure for L-0001 and L-0002 (recalled_but_failed_hits lowered to 1): one
  recalled hit each -> 0.5 h/week each; ties rank index first, then by lesson id.
- drop the ritual `^make test`: S5 120 s + S7 300 s (S5's second call has no result) =
  420 s over 2 weeks = 0.0583 h/week (threshold lowered to 0.05).
- slim the body of L-0002 (a body over 20 KB): one read of 5,701 tokens -> 2,850.5
  tokens/week x 1 h / 100,000 tokens = 0.0285 h/week.
- decide the candidates: L-0003, past the (lowered) threshold of 0 hits, no hit -> 0.
"""

from __future__ import annotations

import json
import re
from datetime import date, datetime
from pathlib import Path

import orjson
import pytest

from lessons_analytics import warehouse
from lessons_analytics.ingestion import ingest
from lessons_analytics.report import build_report_data, write_report
from lessons_analytics.report.blocks import SMALL_NOTE
from lessons_analytics.report.data import HEADLINES
from lessons_analytics.report.numbers import GOOD_DIRECTION, fmt_delta, tone
from lessons_analytics.settings import Thresholds
from tests.support import scenario

WEEK = "2026-W46"
# the prices are pinned so the payoffs below do not follow a change of their defaults
T = {"costly_ritual_hours_per_week": 0.05, "recalled_but_failed_hits": 1,
     "candidate_independent_hits": 0, "hours_per_hit": 1.0, "tokens_per_hit": 100_000}  # fmt: skip


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> tuple[scenario.Scenario, Path]:
    root = tmp_path_factory.mktemp("first")
    built = scenario.build(root)
    db = root / "w.duckdb"
    ingest(db, [built.projects, built.codex], [built.base])
    return built, db


@pytest.fixture(scope="module")
def written(world: tuple[scenario.Scenario, Path], tmp_path_factory: pytest.TempPathFactory):  # type: ignore[no-untyped-def]
    _, db = world
    con = warehouse.connect(db, read_only=True)
    try:
        return write_report(
            con,
            tmp_path_factory.mktemp("out"),
            WEEK,
            as_of=date(2026, 11, 16),
            thresholds=Thresholds(**T),
        )
    finally:
        con.close()


def _md(written) -> str:  # type: ignore[no-untyped-def]
    """report.md with Markdown's backslash escapes undone (data may come escaped), to
    compare the text a reader sees."""
    return re.sub(r"\\([\\`*_\[\]<>&|!~#])", r"\1", written.markdown.read_text())


def _section(written) -> dict:  # type: ignore[no-untyped-def]
    return orjson.loads(written.data.read_bytes())["bases"][0]


def test_actions_in_order_with_their_payoff(written) -> None:  # type: ignore[no-untyped-def]
    first = _section(written)["first"]
    assert first["unit"] == "session hours per week"
    assert first["rates"]["weeks"] == 2
    assert first["rates"]["hits_per_exposed_session"] == 1.0
    got = [(a["kind"], a["subject"], a["payoff_hours_per_week"]) for a in first["actions"]]
    assert got == [
        ("fix-triggers", "L-0001", 1.0),
        ("restructure-index", "INDEX.md", 0.5),
        ("build-structure", "L-0001", 0.5),
        ("build-structure", "L-0002", 0.5),
        ("drop-ritual", "L-0001", pytest.approx(420 / 3600 / 2)),
        ("slim-body", "L-0002", pytest.approx(5701 / 2 / 100_000)),
        ("decide-candidates", "L-0003", 0.0),
    ]
    assert [a["rank"] for a in first["actions"]] == list(range(1, 8))
    fix = first["actions"][0]
    assert fix["sentence"].startswith("Fix the triggers or the addressee of L-0001: 2 of its 3")


def test_at_most_five_actions_shown_the_rest_in_data_json(written) -> None:  # type: ignore[no-untyped-def]
    md = _md(written)
    first = md.split("### Do this first")[1].split("###")[0]
    numbered = [line for line in first.splitlines() if line[:3] in {f"{i}. " for i in range(10)}]
    assert len(numbered) == 5
    assert numbered[0].startswith("1. Fix the triggers") and "≈ 1.00 h/week" in numbered[0]
    assert numbered[4].startswith("5. Drop or automate the ritual")
    assert "2 more action(s) in data.json" in first
    # the page opens with every base's first three actions
    top = md.split("## Do this first")[1].split("## Portfolio")[0]
    assert top.count("1. Fix the triggers") == 1 and "4. " not in top


def test_action_evidence_names_sessions_and_lines(written, world) -> None:  # type: ignore[no-untyped-def]
    built, _ = world
    actions = {(a["kind"], a["subject"]): a for a in _section(written)["first"]["actions"]}
    blind = actions[("restructure-index", "INDEX.md")]["evidence"]
    assert blind["count"] == 1 and blind["items"][0]["session"] == scenario.S4
    s4 = built.sessions["S4"].path()
    assert blind["items"][0]["ref"] == f"{s4}:{_line_of(s4, 'INDEX.md')}"
    fix = actions[("fix-triggers", "L-0001")]["evidence"]
    assert [i["session"] for i in fix["items"]] == [scenario.S2, scenario.S4]
    ritual = actions[("drop-ritual", "L-0001")]["evidence"]
    assert ritual["count"] == 3 and ritual["unit"] == "calls"
    html = written.html.read_text()
    for rank in range(1, 6):
        assert f'href="#ev-proj-do-{rank}"' in html and f'<details id="ev-proj-do-{rank}"' in html


def _line_of(path: Path, needle: str) -> int:
    """The first line (1-based) of a transcript whose tool call names ``needle``."""
    for n, line in enumerate(path.read_text().splitlines(), 1):
        if needle in line and '"tool_use"' in line:
            return n
    raise AssertionError(needle)


def _last_line_before(path: Path, when: str) -> int:
    """The last line of a transcript stamped at or before ``when`` (independent of SQL)."""
    last = 0
    for n, line in enumerate(path.read_text().splitlines(), 1):
        stamp = json.loads(line).get("timestamp")
        if stamp and datetime.fromisoformat(stamp) <= datetime.fromisoformat(when):
            last = n
    return last


def test_headline_evidence_in_data_json(written, world) -> None:  # type: ignore[no-untyped-def]
    built, _ = world
    s = _section(written)
    ev = s["evidence"]
    head = {h["key"]: h for h in s["headline"]}
    # every headline number has an evidence list whose count is the number's numerator
    assert set(ev) == {key for key, *_ in HEADLINES} | {"ritual_hours"}
    for key, _, _, _, den in HEADLINES:
        number = head[key]["count"] if den else None
        if key in ("body_tokens",):
            continue  # a token sum: its evidence are the reads
        assert ev[key]["count"] == (number if den else head[key]["value"]), key
    # coverage this week: S4 (read L-0001's body) and S5 (its subagent read L-0002) of
    # S2, S4, S5, S6, S7; S6 only replays S1's first lines
    assert (head["coverage"]["count"], head["coverage"]["total"]) == (2, 5)
    assert {i["session"] for i in ev["coverage"]["items"]} == {scenario.S4, scenario.S5}
    # the recalled hit of the week: S5's miss at 10:40, its transcript line found by hand
    (hit,) = ev["hits_recalled"]["items"]
    s5 = built.sessions["S5"].path()
    assert hit["session"] == scenario.S5
    assert hit["ref"] == f"{s5}:{_last_line_before(s5, '2026-11-12T10:40:00+00:00')}"
    assert "L-0002.md:" in hit["note"] and "recalled at agent-" in hit["note"]
    assert ev["ritual_hours"]["count"] == 3  # W46 holds all three make test calls


def test_colours_follow_the_meaning() -> None:
    for key, *_ in HEADLINES:
        assert key in GOOD_DIRECTION, key  # every compared number says which way is good
    assert tone("blind_sessions", 5.0) == "bad" and tone("blind_sessions", -5.0) == "good"
    assert tone("coverage", 5.0) == "good" and tone("coverage", -5.0) == "bad"
    assert tone("ritual_hours", 0.0) == "" and tone("unknown-number", 3.0) == ""
    rise = {"delta": 12.5, "arrow": "▲"}
    assert fmt_delta(rise, is_share=True, key="blind_sessions") == "▲ +12.5 pp, worse"
    assert fmt_delta(rise, is_share=True, key="coverage") == "▲ +12.5 pp, better"
    assert fmt_delta(rise, is_share=True) == "▲ +12.5 pp"


def test_headline_deltas_coloured_in_html_and_said_in_markdown(written) -> None:  # type: ignore[no-untyped-def]
    md = _md(written)
    html = written.html.read_text()
    rows = {line.split(" | ")[0].split("¹")[0].split("²")[0].strip("| ⁴"): line
            for line in md.splitlines()}  # fmt: skip
    # W45 -> W46: blind sessions 0/1 -> 1/3 (a rise: bad); coverage 1/1 -> 2/5 (a fall: bad);
    # hits 1 -> 5 (bad); hits not recalled 0/1 -> 1/5 (bad)
    assert rows["blind sessions (saw no Active row)"].endswith(
        "| ▲ +33.3 pp, worse | 0/1 = 0.0 % |"
    )
    assert rows["recall coverage (sessions)"].endswith("| ▼ -60.0 pp, worse | 1/1 = 100.0 % |")
    assert rows["hits"].endswith("| ▲ +4, worse | 1 |")
    head = html.split("Headline numbers")[1].split("</table>")[0]
    assert '<td class="bad">▲ +33.3 pp, worse</td>' in head
    # index reads by head -20…60: W45 1/1 (S1's head -40), W46 1/5 (S2's head -40 of S2's
    # three reads, S4's Read and S7's sed): a fall, good
    assert '<td class="good">▼ -80.0 pp, better</td>' in head
    assert '<a href="#ev-proj-blind_sessions">1/3 = 33.3 %†</a>' in head
    assert '<details id="ev-proj-blind_sessions"' in html


def test_footnotes_explain_different_denominators(written) -> None:  # type: ignore[no-untyped-def]
    md = _md(written)
    section = md.split("### Headline numbers")[1].split("###")[0]
    assert "| recall coverage (sessions)¹ of 5 sessions in scope |" in section
    # another denominator, another footnote
    assert "| blind sessions (saw no Active row)² of 3 sessions reading the index |" in section
    assert "¹ of the sessions in scope" in section
    assert "² of the sessions that read INDEX.md" in section
    assert "⁴ of all hits this week" in section
    assert "Different denominators:" in md.split("## Portfolio")[1].split("## Base")[0]
    html = written.html.read_text()
    assert 'recall coverage (sessions)¹<br><span class="sub">of 5 sessions in scope</span>' in html


def test_small_sample_mark_once_per_section(written) -> None:  # type: ignore[no-untyped-def]
    md = _md(written)
    assert md.count("(direction only)") == 1  # the how-to-read says it once; no cell does
    section = md.split("### Headline numbers")[1].split("###")[0]
    assert section.count(SMALL_NOTE) == 1 and section.count("†") >= 5
    # the interval is on a second line in HTML, on the same line in Markdown
    html = written.html.read_text()
    assert '<br><span class="sub">[' in html
    assert "= 33.3 %† [" in md


def test_effect_table_one_row_per_lesson(written) -> None:  # type: ignore[no-untyped-def]
    s = _section(written)
    effects = {r["lesson_id"]: r for r in s["effects"]}
    # every session came after the lessons' activation (2026-11-02); with T's
    # recalled_but_failed_hits of 1, S1's recalled hit makes L-0001 "not holding" (the
    # default-threshold test below sees it "not surfaced")
    assert effects["L-0001"]["verdict"] == "not holding"
    assert (effects["L-0001"]["exposed_after"], effects["L-0001"]["hits_after"]) == (6, 5)
    md = _md(written)
    table = md.split("### Does each lesson help?")[1].split("###")[0]
    row = next(line for line in table.splitlines() if line.startswith("| L-0001 |"))
    assert "| not holding |" in row and "| 83.3† (5/6) [" in row  # hits per 100 exposed
    # the exposed sessions with a hit: S1, S2, S4 (S3's transcript is missing and one hit
    # names no session: they count in the rate by their time but have no session to list)
    assert [i["session"] for i in effects["L-0001"]["evidence"]["items"]] == [
        scenario.S1, scenario.S2, scenario.S4]  # fmt: skip
    assert 'id="ev-proj-effect-l-0001"' in written.html.read_text()


def test_effect_and_actions_agree_on_verdicts(world) -> None:  # type: ignore[no-untyped-def]
    _, db = world
    con = warehouse.connect(db, read_only=True)
    try:
        data = build_report_data(con, WEEK, as_of=date(2026, 11, 16), thresholds=Thresholds())
    finally:
        con.close()
    s = data["bases"][0]
    assert {r["lesson_id"]: r["verdict"] for r in s["effects"]}["L-0001"] == "not surfaced"
    kinds = [(a["kind"], a["subject"]) for a in s["first"]["actions"]]
    # defaults: no build-structure (one recalled hit each), no ritual (0.06 h/week < 1),
    # no candidate (L-0003 has no hit): the not-surfaced L-0001 comes first
    assert kinds == [("fix-triggers", "L-0001"), ("restructure-index", "INDEX.md"),
                     ("slim-body", "L-0002")]  # fmt: skip


def test_actions_agree_with_the_commands(written, world) -> None:  # type: ignore[no-untyped-def]
    """The numbers in the sentences are those `hits`, `heads`, `cost` and `bodies` print
    for the trend window (2026-11-02 to 2026-11-15)."""
    from click.testing import CliRunner

    from lessons_analytics.cli import cli

    _, db = world
    window = ["--since", "2026-11-02", "--until", "2026-11-15"]

    def run(*args: str) -> dict:
        result = CliRunner().invoke(cli, ["--db", str(db), *args, "--json", *window])
        assert result.exit_code == 0, result.output
        return orjson.loads(result.output)

    actions = {(a["kind"], a["subject"]): a for a in _section(written)["first"]["actions"]}
    lessons = {r["id"]: r for r in run("hits")["bases"][0]["lessons"]}
    fix = actions[("fix-triggers", "L-0001")]["measure"]
    assert (
        fix["hits_not_recalled"]
        == lessons["L-0001"]["not_recalled"] + lessons["L-0001"]["index_only"]
    )
    assert (
        actions[("build-structure", "L-0002")]["measure"]["hits_recalled"]
        == lessons["L-0002"]["recalled"]
    )
    heads = run("heads")["bases"][0]
    index = actions[("restructure-index", "INDEX.md")]["measure"]
    assert (index["blind_sessions"], index["sessions_reading_index"]) == (
        heads["blind_sessions"],
        heads["sessions_reading_index"],
    )
    (ritual,) = run("cost", "--rituals")["rituals"]
    drop = actions[("drop-ritual", "L-0001")]["measure"]
    assert (drop["calls"], drop["total_hours"]) == (ritual["calls"], ritual["total_hours"])
    bodies = {r["id"]: r for r in run("bodies")["bases"][0]["lessons"]}
    assert actions[("slim-body", "L-0002")]["measure"]["tokens"] == bodies["L-0002"]["tokens"]


def test_changes_to_the_base_reported_together(written) -> None:  # type: ignore[no-untyped-def]
    """The scenario's two commits (2026-11-02: L-0001 and L-0002 active; 2026-11-09: the
    Active heading moves from line 4 to 44) have no session between them: one group,
    confounded. After it (sessions from 2026-11-09: S2, S4, S5, S6, S7): recalled S4, S5;
    reading the index S2, S4, S7, blind S4; a hit in S2, S4, S5. Nothing before."""
    (group,) = _section(written)["interventions"]
    assert (group["group_commits"], group["confounded"]) == (2, True)
    assert "layout: line 4 -> 44" in group["details"]
    keys = ("sessions_before", "sessions_after", "recalled_after", "reading_index_after",
            "blind_after", "hit_sessions_after")  # fmt: skip
    got = [group[k] for k in keys]
    assert got == [0, 5, 2, 3, 1, 3]
    md = _md(written)
    table = md.split("### Changes to the base")[1].split("###")[0]
    assert "| 2 commit(s), confounded |" in table
    assert "| – → 40 % (2/5)† | – → 33 % (1/3)† | – → 60 % (3/5)† |" in table
    assert "² of the window's sessions that read the index" in table
    # The evidence is the five window sessions, each saying what it counts for: the
    # counts of the cells are the items carrying each word.
    proof = group["evidence"]
    assert (proof["count"], proof["unit"]) == (5, "sessions")
    notes = [i["note"] for i in proof["items"]]
    assert all(n.startswith("after: ") for n in notes)
    words = [set(n.removeprefix("after: ").split(", ")) for n in notes]
    assert [sum(w in ws for ws in words) for w in ("recalled", "read the index", "blind",
            "hit")] == [2, 3, 1, 3]  # fmt: skip
    assert all(i["ref"] and ".jsonl:" in i["ref"] for i in proof["items"])
    anchor = f"ev-proj-change-{group['group_id']}"
    html = written.html.read_text()
    assert f'href="#{anchor}"' in html and f'<details id="{anchor}"' in html
    assert "window sessions: 5 sessions" in md


@pytest.mark.skipif(not Path("/usr/bin/chromium").exists(), reason="no headless Chromium")
@pytest.mark.parametrize("width", [1280, 390])
def test_page_renders_in_chromium(written, tmp_path: Path, width: int) -> None:  # type: ignore[no-untyped-def]
    """A smoke check only: the page loads and paints at a desktop and a phone width (the
    screenshots themselves are looked at by hand)."""
    import subprocess

    from PIL import Image

    shot = tmp_path / f"r{width}.png"
    subprocess.run(
        ["/usr/bin/chromium", "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
         "--no-first-run", "--disable-background-networking", "--disable-component-update",
         "--disable-sync", f"--user-data-dir={tmp_path / 'profile'}",
         f"--window-size={width},1600", f"--screenshot={shot}", written.html.as_uri()],
        check=True, capture_output=True, timeout=120,
    )  # fmt: skip
    with Image.open(shot) as image:
        assert image.size == (width, 1600)
        colours = image.convert("RGB").getcolors(maxcolors=1 << 20)
    assert colours is not None and len(colours) > 50  # text and tables, not a blank page


def test_lessons_sharing_a_ritual_share_one_action(tmp_path: Path) -> None:
    """L-0002 declares L-0001's ritual too: one action for `^make test`, its 420 s once."""
    from tests.support.basebuilder import commit

    built = scenario.build(tmp_path)
    lesson2 = (built.base / "L-0002.md").read_text()
    shared = lesson2.replace("created: 2026-11-01\n", 'created: 2026-11-01\nritual: "^make test"\n')
    assert shared != lesson2
    commit(built.project, "2026-11-02T10:00:00Z", {"LESSONS/L-0002.md": shared})
    db = tmp_path / "w.duckdb"
    ingest(db, [built.projects, built.codex], [built.base])
    con = warehouse.connect(db, read_only=True)
    try:
        data = build_report_data(con, WEEK, as_of=date(2026, 11, 16), thresholds=Thresholds(**T))
    finally:
        con.close()
    rituals = [a for a in data["bases"][0]["first"]["actions"] if a["kind"] == "drop-ritual"]
    assert [(a["subject"], a["measure"]["calls"]) for a in rituals] == [("L-0001, L-0002", 3)]
    assert rituals[0]["payoff_hours_per_week"] == pytest.approx(420 / 3600 / 2)
