"""The engines' common command line (blokuszero/engines/options.py): the player spec from --preset,
an engine's alias flags and --set, checked before anything runs, every refusal one line naming the
flag; and the four engines' parsers built from it (servers and clients on 127.0.0.1 by default)."""

from __future__ import annotations

import argparse

import pytest

from blokuszero.engines import options
from blokuszero.engines.blokus import cli as blokus_cli
from blokuszero.engines.daihinmin import uecda_client
from blokuszero.engines.ggp import cli as ggp_cli
from blokuszero.engines.go import cli as go_cli


def parser() -> options.EngineParser:
    p = options.engine_parser("engine", "a test engine")
    options.add_player_flags(p, "a preset")
    p.add_argument("--simulations", type=int)
    p.add_argument("--pair", type=float, nargs=2)
    return p


def refusal(argv: list[str], aliases=lambda args: {}) -> str:
    p = parser()
    with pytest.raises(SystemExit) as refused:
        args = p.parse_args(argv)
        options.player_spec(p, args, "mcts_maxn", aliases(args))
    return str(refused.value)


def simulations(args: argparse.Namespace) -> dict:
    return {"simulations": ("--simulations", args.simulations)}


def test_the_spec_is_the_preset_then_the_aliases_then_set():
    p = parser()
    args = p.parse_args(["--simulations", "50", "--set", "c=0.5", "--set", "tree=paranoid"])
    assert options.player_spec(p, args, "mcts_maxn", simulations(args)).given == {
        "preset": "mcts_maxn", "simulations": 50, "c": 0.5, "tree": "paranoid"}
    args = p.parse_args(["--preset", "uct", "--simulations", "50", "--set", "simulations=7"])
    assert options.player_spec(p, args, "mcts_maxn", simulations(args)).given == {"preset": "uct", "simulations": 7}
    args = p.parse_args([])  # an alias not given is left out
    assert options.player_spec(p, args, None, {"kind": ("--kind", "random"), "c": ("--c", None)}).given == {
        "kind": "random"}


def test_each_refusal_is_one_line_naming_its_flag():
    assert refusal(["--simulations", "-5"], simulations) == "engine: error: --simulations must be >= 0, not -5"
    assert refusal(["--set", "simulations=abc"]) == "engine: error: --set simulations must be int, not 'abc'"
    assert refusal(["--set", "c"]) == "engine: error: --set takes KEY=VALUE, not 'c'"
    assert refusal(["--set", "c=[1"]).startswith("engine: error: --set c: '[1' is no YAML value")
    assert refusal(["--set", "tree=square"]).startswith("engine: error: --set tree must be one of")
    assert refusal(["--set", "cc=1"]).startswith("engine: error: --set unknown option(s) ['cc'] for a mcts player")
    assert refusal(["--preset", "alphago"]).startswith("engine: error: argument --preset: invalid choice: 'alphago'")
    assert refusal(["--simulations", "x"]) == "engine: error: argument --simulations: invalid int value: 'x'"
    pair = refusal(["--pair", "1", "-1"], lambda args: {"c": ("--pair", args.pair[0]), "w": ("--pair", args.pair[1])})
    assert pair == "engine: error: --pair: w must be >= 0, not -1.0"  # one flag of two options names the option
    for text in (pair, refusal(["--set", "c=[1"])):
        assert "\n" not in text


def test_the_helpers_check_threads_ports_and_margins():
    p = options.engine_parser("engine", "a test engine")
    options.add_threads_flag(p)
    options.add_address_flags(p, 9000, "host")
    options.add_margin_flag(p, 0.5)
    args = p.parse_args([])
    assert (args.threads, args.host, args.port, args.margin) == (1, "127.0.0.1", 9000, 0.5)
    assert options.margins(p, args).reply == 0.5
    for argv, check, message in ((["--threads", "0"], options.use_threads, "--threads must be >= 1, not 0"),
                                 (["--port", "70000"], options.check_port, "--port must be <= 65535, not 70000"),
                                 (["--port", "0"], options.check_port, "--port must be >= 1, not 0"),
                                 (["--margin", "-1"], options.margins, "--margin must be >= 0, not -1.0")):
        with pytest.raises(SystemExit, match=f"^engine: error: {message}$"):
            check(p, p.parse_args(argv))
    options.check_port(p, p.parse_args(["--port", "0"]), allow_any=True)


def test_servers_and_clients_default_to_this_machine():
    assert ggp_cli.build_parser().parse_args([]).host == "127.0.0.1"
    assert uecda_client.build_parser().parse_args([]).host == "127.0.0.1"
    assert uecda_client.build_parser().parse_args(["-h", "example.org", "-p", "1"]).host == "example.org"


def test_each_engine_keeps_its_flags_as_aliases_of_the_common_form():
    args = blokus_cli.parse_args(["--simulations", "9", "--time", "0.5", "--set", "c=0.3"])
    assert blokus_cli.player_spec(args).given == {"preset": "mcts_maxn", "simulations": 9, "time_limit": 0.5, "c": 0.3}
    p = ggp_cli.build_parser()
    args = p.parse_args(["--simulations", "20", "--experience", "huffman2", "--set", "c=0.4"])
    assert ggp_cli.player_spec(p, args) == {
        "preset": "ggp_uct", "simulations": 20, "playout": "uniform",
        "experience": {"encoding": "huffman", "distance": 2}, "c": 0.4}
    p = uecda_client.build_parser()
    client = uecda_client.client_from_args(p, p.parse_args(["--player", "mc:random:30", "--set", "c=0.5"]))
    assert (client.player.mcts.config.simulations, client.player.mcts.rule.c) == (30, 0.5)
    timed = uecda_client.client_from_args(p, p.parse_args(["--player", "mc", "--time", "0.5"]))
    assert (timed.player.mcts.config.simulations, timed.player.mcts.config.time_limit) == (1000, 0.5)
    with pytest.raises(SystemExit, match=r"^blokuszero-uecda: error: --time must be > 0, not -1.0$"):
        uecda_client.client_from_args(p, p.parse_args(["--player", "mc", "--time", "-1"]))
    with pytest.raises(SystemExit, match=r"^blokuszero-uecda: error: --player: playout must be one of"):
        uecda_client.client_from_args(p, p.parse_args(["--player", "mc:bogus"]))
    with pytest.raises(SystemExit, match=r"^blokuszero-uecda: error: --preset a mcts player is no UECda"):
        uecda_client.client_from_args(p, p.parse_args(["--preset", "uct"]))
    with pytest.raises(SystemExit, match=r"^blokuszero-ggp-player: error: --playout softmax needs --policy-file"):
        ggp_cli.player_spec(ggp_cli.build_parser(), ggp_cli.build_parser().parse_args(["--playout", "softmax"]))
    with pytest.raises(SystemExit, match=r"^blokuszero-ggp-player: error: --simulations must be >= 0, not -5$"):
        ggp_cli.player_spec(ggp_cli.build_parser(), ggp_cli.build_parser().parse_args(["--simulations", "-5"]))
    go = go_cli.build_parser()
    assert go.parse_args([]).seed is None and go.parse_args([]).margin == 0.0
