"""Every code the gates can report, with its rule in words. `contracts/learning-core.json` and
CONTRACT.md list the same codes; a test keeps the three in step.

Block codes (G structure, F fact_check, Q quiz_audit, R grade_audit, V review) name why a turn was
replaced by a block notice. MCQ codes (M) name one mechanical multiple-choice flaw; an item with a
high or medium M issue is never shown as it is."""

from __future__ import annotations

from typing import Literal

Severity = Literal["high", "medium", "low"]

BLOCK_CODES: dict[str, str] = {
    "G01": "The turn or a receipt is not a valid model of its kind.",
    "G02": "A gate the turn's kind requires has no receipt.",
    "G03": "A receipt is for a gate the turn's kind does not take (wrong gate), even if valid.",
    "G04": "A receipt is bound to another message id than the turn's.",
    "G05": "More than one receipt for the same gate on one turn.",
    "G06": "A receipt's id is not the hash of its content (altered after it was made).",
    "G07": "A receipt's gate, envelope and verdict disagree with each other.",
    "G08": "A verifier that did not run ('none') returned something other than UNVERIFIED.",
    "G09": "A receipt records more than 2 correction cycles.",
    "G10": "A notice carries claims or questions: teaching and asking always need a gate.",
    "G99": "Unexpected error while checking: the checker fails closed.",
    "F01": "A claim does not appear in the rendered content.",
    "F02": "The rendered content after the verdict's corrections differs from what is emitted.",
    "F03": "A cited source URL or file is not a source of the digest.",
    "F04": "The reference excerpt is not found in the digest text of the cited sources.",
    "F05": "The envelope cites no source or has an empty reference excerpt.",
    "F06": "The verdict does not give exactly one verdict per claim of the envelope.",
    "F07": "A claim the turn teaches is not among the checked claims.",
    "F08": "A claim has ISSUES without a correction and cycles remain: fix and re-check.",
    "F09": "A claim still has ISSUES after 2 correction cycles: the turn is withheld.",
    "F10": "A sentence the turn shows asserts something that is not among the checked claims.",
    "Q01": "A question fails a high or medium mechanical multiple-choice check (M codes).",
    "Q02": "The questions the turn asks are not exactly the audited questions.",
    "Q03": "An audited question's stem or option is not shown in the emitted content.",
    "Q04": "The audit found high or medium issues and correction cycles remain: fix and re-audit.",
    "Q05": "High or medium issues remain after 2 correction cycles: the turn is withheld.",
    "Q06": "A turn that asks has no questions.",
    "R01": "The grade audit disputes the proposed grade and correction cycles remain: regrade.",
    "R02": "The grade audit still disputes the grade after 2 correction cycles: withheld.",
    "R03": "The item the turn grades is not the audited item.",
    "R04": "A multiple-choice grade disagrees with the answer key.",
    "V01": "The review rejected writes and correction cycles remain: fix and re-review.",
    "V02": "The review still rejects writes after 2 correction cycles: withheld.",
}

MCQ_CODES: dict[str, tuple[Severity, Literal["item", "batch"], str]] = {
    "M00": ("high", "item", "The item is malformed (missing or wrongly typed fields)."),
    "M01": ("high", "item", "A multiple-choice item does not have exactly 4 options."),
    "M02": ("high", "item", "The key (correct_index) is missing or out of range."),
    "M03": ("medium", "batch", "In a batch of 3 or more, every key is in the same position."),
    "M04": ("high", "item", "The key is the single longest option, notably longer than the rest."),
    "M05": ("medium", "item", "The key is the single shortest option, notably shorter."),
    "M06": ("high", "item", "An option is 'all of the above' or 'none of the above'."),
    "M07": ("medium", "item", "The options are true/false or yes/no."),
    "M08": ("low", "item", "The stem has a blank to fill in."),
    "M09": ("low", "item", "The stem is negative (not, except, never, least, false, incorrect)."),
    "M10": ("high", "item", "Two options are the same."),
    "M11": ("low", "item", "Numeric options are not in ascending or descending order."),
    "M12": ("medium", "item", "An option combines others ('A and B', 'both', 'neither')."),
    "M13": ("medium", "item", "A stem word is repeated in the key and in no distractor."),
    "M14": ("high", "item", "The instructions or stem give an example answer that encodes keys."),
    "M15": ("medium", "item", "Only the key carries a hedge (usually, primarily, typically …)."),
    "M16": ("medium", "item", "The key is contained verbatim in the stem."),
    "M17": ("high", "item", "The stem or an option is empty."),
    "M18": ("high", "batch", "Two questions in a batch share an id."),
    "M19": ("high", "item", "A numeric question has no answer value."),
    "M20": ("high", "item", "A free-recall stem points at options it does not show."),
}


# what a model quiz auditor judges and the mechanical rules cannot; such a finding always
# blocks (its severity is raised to high whatever the model filed it as)
MODEL_QUIZ_FINDINGS: dict[str, str] = {
    "off_topic": "An option is off-topic or not the kind of answer the stem asks for, so a "
    "learner who knows nothing can strike it.",
    "second_answer": "A second option is defensible as the answer.",
}


def mcq_severity(code: str) -> Severity:
    return MCQ_CODES[code][0]
