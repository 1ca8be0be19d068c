"""Normalising fetched bodies: HTML to text, control and escape sequences removed, excerpts of
substance, stable hashes."""

from __future__ import annotations

import re

from hypothesis import given
from hypothesis import strategies as st

from tutor.scout.normalise import (
    body_to_text,
    content_hash,
    excerpt,
    html_to_text,
    normalise_text,
    strip_controls,
    substantive_paragraphs,
)

CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")
PROSE = (
    "Gradient descent moves every weight against its gradient, scaled by the learning "
    "rate, and repeats until the loss stops falling in any useful way."
)


def test_terminal_sequences_are_removed_whole():
    text = (
        "red \x1b[31mALERT\x1b[0m, link \x1b]8;;http://evil.example\x07click\x1b]8;;\x07, "
        "title \x1b]0;owned\x1b\\, csi \x9b2J, bell \x07, nul \x00, bidi \u202eevil"
    )
    out = strip_controls(text)
    assert not CONTROL.search(out) and "\x1b" not in out
    assert "[31m" not in out and "8;;" not in out and "owned" not in out and "2J" not in out
    assert "ALERT" in out and "click" in out and "evil" in out


def test_entity_encoded_escapes_in_html_are_removed_whole():
    html = (
        f"<html><body><article><p>{PROSE} &#x1b;[31mred&#27;[0m "
        "&#x1b;]8;;http://evil.example&#7;click here&#x1b;]8;;&#7;</p></article></body></html>"
    )
    out = html_to_text(html)
    assert "Gradient descent" in out and "red" in out and "click here" in out
    assert "[31m" not in out and "8;;" not in out and not CONTROL.search(out)


def test_markup_looking_text_stays_literal_and_inert():
    out = normalise_text("[bold red]not bold[/bold red] and <b>not html</b>")
    assert out == "[bold red]not bold[/bold red] and <b>not html</b>"


def test_html_keeps_the_article_and_drops_navigation():
    html = (
        "<html><head><title>T</title><script>var x = 1;</script></head><body>"
        "<nav><ul><li><a href='/'>Home</a></li><li><a href='/b'>Blog</a></li></ul></nav>"
        f"<article><h1>Momentum</h1><p>{PROSE}</p><p>{PROSE.upper()}</p></article>"
        "<footer>Copyright 2020</footer></body></html>"
    )
    out = body_to_text(html, "text/html")
    assert PROSE in out and "var x" not in out and "Blog" not in out


def test_whitespace_and_unicode_are_normalised():
    assert (
        normalise_text("Cafe\u0301  \t au\u00a0lait\r\n\r\n\r\n\r\nnext  ")
        == "Caf\u00e9 au lait\n\nnext"
    )
    assert content_hash("abc") == content_hash(normalise_text("abc  ")) != content_hash("abd")
    assert content_hash("x").startswith("sha256:") and len(content_hash("x")) == 71


def test_excerpt_is_about_500_characters_of_prose_not_headings_or_link_lists():
    text = "\n\n".join(
        [
            "# Title",
            "Home | Blog | About",
            "- [Link one](http://a)\n- [Link two](http://b)",
            "```python\nprint('code is not substance for an excerpt, however long the line is')"
            "\n```",
            PROSE,
            PROSE.replace("Gradient", "Stochastic gradient"),
            PROSE.replace("loss", "error"),
            PROSE.replace("weight", "parameter"),
            PROSE,
        ]
    )
    out = excerpt(text)
    assert out.startswith("Gradient descent moves")
    assert 350 <= len(out) <= 620
    assert "Link one" not in out and "print(" not in out and "Home" not in out
    assert substantive_paragraphs(text)[0] == PROSE


def test_excerpt_of_text_without_prose_falls_back_to_its_start():
    assert excerpt("short line") == "short line"
    assert excerpt("") == ""


@given(st.text(alphabet=st.characters(codec="utf-8"), max_size=300))
def test_normalised_text_has_no_controls_and_is_stable(text):
    once = normalise_text(text)
    assert not CONTROL.search(once) and "\t" not in once and "\r" not in once
    assert normalise_text(once) == once
