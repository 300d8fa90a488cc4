"""The SGF core shared by the Blokus and Go records: writing and reading the main line."""

from __future__ import annotations

import pytest

from blokuszero.games.sgf import escape, format_node, read_main_line, write_game


def test_written_game_reads_back_with_escapes_and_several_values():
    root = {"FF": "4", "C": "a ] and a \\ inside", "AB": ["aa", "bb"]}
    text = write_game(root, [{"B": "cc"}, {"W": ""}, {"1": "a20,b20"}])
    assert text == "(;FF[4]C[a \\] and a \\\\ inside]AB[aa][bb]\n;B[cc]\n;W[]\n;1[a20,b20]\n)\n"
    assert read_main_line(text) == [{"FF": ["4"], "C": ["a ] and a \\ inside"], "AB": ["aa", "bb"]},
                                    {"B": ["cc"]}, {"W": [""]}, {"1": ["a20,b20"]}]
    assert escape("x]") == "x\\]" and format_node({}) == ";"


def test_main_line_takes_the_first_variation_and_skips_text_before_the_tree():
    nodes = read_main_line("header text (;A[1](;B[2](;C[3])(;D[4]))(;E[5])) (;F[6])")
    assert nodes == [{"A": ["1"]}, {"B": ["2"]}, {"C": ["3"]}]


@pytest.mark.parametrize("text, reason", [
    ("", "no game tree"),
    ("()", "has no nodes"),
    ("(;A[1]", r"expected '\)' at offset 6, found the end of the text \(the game tree is not closed\)"),
    ("(;A[1", r"value of property A is not closed with '\]'"),
    ("(;A)", r"property A at offset 2 has no \[value\]"),
    ("(;A[1]!)", r"expected '\)' at offset 6, found '!'"),
])
def test_malformed_text_is_named(text, reason):
    with pytest.raises(ValueError, match=reason):
        read_main_line(text)
