"""Personalisation end to end: `[learner]` in settings.toml changes how a built-in step is shown
in a real `tutor continue --plain` process, a shown step keeps its plan across a restart while the
next follows the settings then in effect, `tutor plan` prints the plans, and with a model the
drafter is sent the plan and none of the learner's profile."""

from __future__ import annotations

import json
import re
import subprocess
import sys

from plain_driver import Learner, reply
from test_engine_model import request_payload, run_lesson, skill_of, valid_reply
from test_plain import drive_until

from learning_system.store import Store
from tutor.testing.model_server import ModelServer

PROFILE_FIELDS = {"declared", "inferred", "band", "capabilities", "error_signal", "calibrating"}


def declare(home, *presentations: str) -> None:
    home.mkdir(parents=True, exist_ok=True)
    listed = ", ".join(f'"{p}"' for p in presentations)
    (home / "settings.toml").write_text(f"[learner]\npresentations = [{listed}]\n")


def flat(screen: str) -> str:
    return " ".join(screen.split())


def step_screen(transcript: str, n: int) -> str:
    start = transcript.rindex(f"Step {n}/")
    return flat(transcript[start : transcript.find("> ", start)])


def test_declared_code_and_worked_example_reshape_a_step_and_survive_a_restart(tmp_path):
    declare(tmp_path, "code", "worked_example")
    first = Learner(tmp_path, "continue", "--plain", "--offline")
    drive_until(first, r"Step 2/\d+", wrong=False)
    one, two = step_screen(first.transcript, 1), step_screen(first.transcript, 2)
    # the first step has neither: shown as its prose, with the reason
    assert "[not as asked: §The Problem has no code; §The Problem has no worked example" in one
    assert "[shown:" not in one
    # the second step has code: the lesson's code comes before its prose, within each part,
    # each block just after the sentence that introduces it
    assert "[shown: code, prose — as you asked]" in two
    assert "§The Concept has no worked example" in two
    adding = two[two.index("### Adding and scaling") :]
    intro = adding.index("Two vectors of the same")
    assert intro < adding.index("(1, 2, 3) + (10, 20, 30)") < adding.index("Scaling by a positive")
    first.kill()

    declare(tmp_path, "table")  # a change after step 2 was shown
    again = Learner(tmp_path, "continue", "--plain", "--offline")
    screen = again.read_prompt()
    assert flat(screen[screen.index("Step 2/") :]).startswith(two[: len(two) - 1][:400])
    again.send(reply(screen, wrong=False))  # past step 2
    drive_until(again, r"Step 3/\d+", wrong=False)
    three = step_screen(again.transcript, 3)
    shown = three.split("[source:")[1].split("]")[1]
    # the old declaration is gone; a record with an unknown strand (the probe's items, and so
    # the verdicts, follow the session's seed) may still ask for the example, and says so
    assert "worked_example" not in shown or "from your record" in shown, shown
    assert "table" in three.split("]")[1] or "has no table" in three
    again.finish()
    with Store(tmp_path / "tutor.db") as store:
        plans = [
            e["payload"]["value"]
            for row in store.rows("SELECT id FROM sessions")
            for e in store.sessions.events(row["id"])
            if e["kind"] == "memo" and e["payload"]["key"].startswith("plan:")
        ]
    assert [p["representations"][0] for p in plans[:2]] == ["prose", "code"]
    assert all("declared" not in p and "band" not in p for p in plans)


def tutor(home, *args: str) -> subprocess.CompletedProcess[str]:
    env = {"TUTOR_HOME": str(home), "PATH": "/usr/bin:/bin"}
    return subprocess.run(
        [sys.executable, "-m", "tutor.cli", *args], capture_output=True, text=True, env=env
    )


def test_tutor_plan_prints_each_steps_plan_rationale_and_fallback_reason(tmp_path):
    declare(tmp_path, "code", "diagram")
    done = tutor(tmp_path, "plan", "P1 L01", "--json")
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["projection"]["declared"] == ["code", "diagram"]
    assert report["projection"]["calibrating"] is True
    by_step = {s["step"]: s for s in report["steps"]}
    concept = by_step["The Concept"]
    assert concept["representations"][0] == "code"
    assert "declined:diagram" in concept["rationale"]
    assert "§The Concept has no diagram" in concept["fallback_reason"]
    for s in report["steps"]:
        assert s["objective"] and s["required_facts"]
        assert all(set(f) == {"source", "section", "sentence", "sha"} for f in s["required_facts"])
    text = tutor(tmp_path, "plan", "P1 L01")
    assert text.returncode == 0
    assert "rationale: " in text.stdout
    assert "not as asked: §The Concept has no diagram" in text.stdout


def test_an_invalid_learner_section_is_a_clear_message_not_a_traceback(tmp_path):
    (tmp_path / "settings.toml").write_text('[learner]\npresentations = ["video"]\nmood = 1\n')
    done = tutor(tmp_path, "plan", "P1 L01")
    assert done.returncode != 0
    assert "Traceback" not in done.stderr
    assert "learner settings are invalid" in done.stderr and "mood" in done.stderr


def test_the_drafter_is_sent_the_plan_and_no_profile_fields(tmp_path, monkeypatch):
    home = tmp_path / "home"
    monkeypatch.setenv("TUTOR_HOME", str(home))
    declare(home, "code", "worked_example")
    with Store(tmp_path / "tutor.db") as store, ModelServer(default=valid_reply) as srv:
        session, _ = run_lesson(store, srv.base_url)
        requests = srv.chat_requests
    assert session.done
    drafts = [request_payload(r.body)["data"] for r in requests if skill_of(r.body) == "tutor"]
    drafts = [d for d in drafts if d.get("task") == "teach_step"]
    assert drafts
    for d in drafts:
        plan = d["plan"]
        assert plan["objective"] and plan["required_facts"]
        assert not PROFILE_FIELDS & set(plan) and "rationale" not in plan
        sent = json.dumps(d)
        assert not re.search(r'"(band|calibrating|error_signal|capabilities)"', sent)
    assert any(d["plan"]["representations"][0] == "code" for d in drafts)


def test_density_one_shows_the_essentials_and_a_change_reaches_only_steps_not_yet_shown(tmp_path):
    tmp_path.mkdir(exist_ok=True)
    (tmp_path / "settings.toml").write_text("[learner]\ndensity = 1\n")
    first = Learner(tmp_path, "continue", "--plain", "--offline")
    drive_until(first, r"Step 2/\d+", wrong=False)
    two = step_screen(first.transcript, 2)
    assert "[density 1: the essentials — " in two
    # every required fact is there; a paragraph past each subsection's first is not
    assert "Order matters:" in two and "are different vectors." in two
    assert "cannot be normalised" not in two
    first.kill()

    (tmp_path / "settings.toml").write_text("[learner]\ndensity = 3\n")  # after step 2 was shown
    again = Learner(tmp_path, "continue", "--plain", "--offline")
    screen = again.read_prompt()
    assert flat(screen[screen.index("Step 2/") :]).startswith(two[: len(two) - 1][:400])
    assert "[density 1: the essentials" in flat(screen)  # the step shown keeps its plan
    again.send(reply(screen, wrong=False))  # past step 2
    drive_until(again, r"Step 3/\d+", wrong=False)
    three = step_screen(again.transcript, 3)
    assert "[density 1" not in three  # the next step follows the new density: all of it
    again.finish()
    with Store(tmp_path / "tutor.db") as store:
        plans = [
            e["payload"]["value"]
            for row in store.rows("SELECT id FROM sessions")
            for e in store.sessions.events(row["id"])
            if e["kind"] == "memo" and e["payload"]["key"].startswith("plan:")
        ]
    assert [p["support"]["density"] for p in plans[:3]] == [1, 1, 3]
