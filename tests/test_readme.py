"""Every command in README and the docs pages runs here, with a small budget, so that they cannot
drift from the code.

The pages are README.md, then ``docs/*.md`` by name. ``COMMANDS`` says how each command of their
``bash`` blocks is run: the arguments appended to shrink its budget (later options and Hydra
overrides win), what it reads on standard input, and what to prepare (a checkpoint it names). A
command missing from the table, or an entry no page has, fails
``test_every_readme_command_has_a_way_to_run``. The commands run in the pages' order in one scratch
directory, as a user's clone would see them (the ladder reads the evaluations before it). A server
command (the GGP player) is started, must answer a request, and is stopped; a command that needs
servers (a GGP match) gets them started first, on free ports written in place of the page's. The
pages' Python blocks run too, and every ``blokuszero.`` name they give must resolve.

The commands marked slow run in CI after the default suite (``.ci/run``: ``-m slow
tests/test_readme.py``); README's two set-up commands are run by ``.ci/run`` itself, in a fresh
virtual environment.
"""

from __future__ import annotations

import dataclasses
import os
import re
import shlex
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from dataclasses import dataclass
from pathlib import Path

import pytest

from blokuszero.processes import stop_process

ROOT = Path(__file__).resolve().parents[1]
PAGES = {path.relative_to(ROOT).as_posix(): path.read_text()
         for path in [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]}
# A few steps of self-play and learning: every training command keeps its own settings otherwise.
TINY_TRAIN = ["train.schedule=paper", "train.total_steps=4", "train.initial_games=2", "train.buffer_games=20",
              "train.steps_per_iteration=4", "train.checkpoint_every=4", "train.games_per_task=2",
              "search.simulations=2", "selfplay.games_in_parallel=2", "optimizer.batch_size=4", "progress=false",
              "hardware.num_cpus=1"]
MATCH = ["workers=1", "progress=false"]
BOARD_PORT = ("--port", "8040")  # README's board listens on its default port: a free one is written in its place
EVALUATE = ["games=1", "network.simulations=2", "players.mcts_maxn.simulations=2", *MATCH]


@dataclass(frozen=True)
class Run:
    extra: tuple[str, ...] = ()  # appended to the command: a small budget
    stdin: str = ""
    checkpoints: tuple[str, ...] = ()  # network checkpoints to make first (paths the command names)
    skip: str | None = None  # why it cannot run here, if it cannot
    needs: str | None = None  # a program that must be installed (else skipped)
    slow: bool = True
    serves: str | None = None  # a server until stopped: started, asked ("ggp": GGP's (info); "page": its page), stopped
    servers: tuple[str, ...] = ()  # GGP players to start before it
    ports: tuple[int, ...] = ()  # the page's port numbers, replaced by free ones in it and its servers


HOW_TO_GET = {"pentobi-gtp": "build it from Pentobi's public source (docs/evaluation.md, 'Pentobi as an opponent')",
              "gnugo": "apt-get install gnugo (.ci/run installs it)"}
FUJIGOKORO = ("FujiGokoro: cloned from GitHub and built outside the checkout (docs/daihinmin.md, "
              "'FujiGokoro at a seat'); CI reaches only the package registries")
GGP_BASE = ("ggp-base: cloned from GitHub and built outside the checkout (docs/ggp.md, 'Matches refereed "
            "by ggp-base'); CI reaches only the package registries. tests/test_ggp_base.py runs the same matches "
            "where GGP_BASE names a build")
SETUP = "README's set-up commands: .ci/run runs both, as written, in a fresh virtual environment"
COMMANDS: dict[str, Run] = {
    "python3 -m venv .venv": Run(skip=SETUP),
    ". .venv/bin/activate": Run(skip=SETUP),
    "pip install torch==2.13.0 -e .": Run(skip=SETUP),
    "python train.py": Run(tuple(TINY_TRAIN)),
    "pip install torch==2.13.0 -e '.[test]'": Run(skip=SETUP),
    "python -m pytest -q": Run(skip=SETUP),
    "blokuszero-gtp": Run(stdin="name\nquit\n", needs="blokuszero-gtp"),
    "blokuszero-gtp --checkpoint runs/paper/checkpoints/ckpt_000070000.pt --simulations 800":
        Run(("--simulations", "4"), stdin="genmove 1\nquit\n", needs="blokuszero-gtp",
            checkpoints=("runs/paper/checkpoints/ckpt_000070000.pt",)),
    "blokuszero-gtp --preset mcts_brs --set time_limit=2 --set simulations=1000000 --seed 7":
        Run(("--set", "time_limit=0.2"), stdin="genmove 1\nquit\n", needs="blokuszero-gtp"),
    # The web board: started on a free port, its page fetched, stopped (tests/test_board*.py play it).
    "blokuszero-board": Run(BOARD_PORT, serves="page", ports=(8040,), needs="blokuszero-board"),
    "blokuszero-board --player maxn=mcts_maxn --player rnd=random --seats you,maxn,rnd,maxn":
        Run(BOARD_PORT, serves="page", ports=(8040,), needs="blokuszero-board"),
    "blokuszero-board --player 'net={preset: network, checkpoint: checkpoints/blokus_b2c32conv_gumbel.pt, "
    "time_limit: 0.2}'": Run(BOARD_PORT, serves="page", ports=(8040,), needs="blokuszero-board"),
    "blokuszero-board --player 'pentobi={kind: gtp, command: \"pentobi-gtp --quiet --noresign --level 3\"}'":
        Run(BOARD_PORT, serves="page", ports=(8040,), needs="pentobi-gtp"),
    "blokuszero-board --records runs/cpu-default":
        Run(BOARD_PORT, serves="page", ports=(8040,), needs="blokuszero-board"),
    "python scripts/daihinmin_match.py --games 100 --log match.log": Run(("--games", "3", "--seed", "1")),
    "python scripts/daihinmin_match.py --games 100 --log match2.log --players 'default,tcp:default,default,default,"
    "cmd:python -m blokuszero.engines.daihinmin -h {host} -p {port}'": Run(("--games", "2", "--seed", "2")),
    "python scripts/daihinmin_replay.py match.log match2.log": Run(),
    "blokuszero-uecda -h server.example -p 42485 -n mybot --player default":
        Run(skip="joins a UECda server elsewhere, which no test can reach; the match above runs this "
                 "client against our server over TCP (and tests/test_daihinmin_tcp.py)"),
    "python -m blokuszero.bench daihinmin": Run(("--seconds", "0.2", "--repeats", "1", "--games", "2")),
    "python scripts/daihinmin_match.py --games 1000 --players mc:random:100,default,default,default,default":
        Run(("--games", "2", "--seed", "3", "--players", "mc:random:5,default,default,default,default")),
    "python scripts/daihinmin_match.py --games 1000 --players mc:random:100,mc:default:100,mc:model:100,default,"
    "default": Run(("--games", "2", "--seed", "4", "--players",
                    "mc:random:5,mc:default:5,mc:model:5,default,default")),
    "python scripts/daihinmin_opponent_models.py --json --curve curve.png match.log": Run(),
    "python scripts/daihinmin_opponent_models.py --ties split --ablation match.log": Run(),
    "python scripts/daihinmin_opponent_models.py --prior earlier match.log match2.log": Run(),
    # FujiGokoro is a foreign program built from its public source outside the checkout; CI reaches
    # only the package registries. tests/test_daihinmin_tcp.py seats a stand-in foreign client by
    # cmd: in its place, with --self-follow.
    "git clone https://github.com/YuriCat/FujiGokoroUECda ../ext/fujigokoro": Run(skip=FUJIGOKORO),
    "make -C ../ext/fujigokoro out/client": Run(skip=FUJIGOKORO),
    "mkdir -p ../ext/fuji-noparams": Run(skip=FUJIGOKORO),
    "python scripts/daihinmin_match.py --self-follow --games 500 --seed 3000 --log fuji.log --players "
    "'cmd:../ext/fujigokoro/out/client -h {host} -p {port} -n fuji0 -i ../ext/fuji-noparams/ -th 1,default,"
    "default,default,default'": Run(skip=FUJIGOKORO),
    "python scripts/daihinmin_match.py --self-follow --games 500 --seed 3100 --log table.log --players "
    "'mc:model/default:3000,cmd:../ext/fujigokoro/out/client -h {host} -p {port} -n fuji1 -i ../ext/fuji-noparams/ "
    "-th 1,default,default,default'": Run(skip=FUJIGOKORO),
    "python -m blokuszero.bench --help": Run(slow=False),
    "python -m blokuszero.bench blokus": Run(("--seconds", "0.2", "--games", "5")),
    "python -m blokuszero.bench search": Run(("--simulations", "20", "--positions", "1")),
    "python -m blokuszero.bench search --spec '{\"preset\": \"alphazero\", \"checkpoint\": "
    "\"checkpoints/blokus_b2c32conv_gumbel.pt\", \"leaves_per_batch\": 8, \"virtual_loss\": true}'":
        Run(("--simulations", "20", "--positions", "1")),
    "python -m blokuszero.bench core --scale 0.1": Run(("--scale", "0.01")),
    "python -m blokuszero.bench ggp": Run(("--games", "tictactoe", "--seconds", "0.2")),
    "python -m blokuszero.bench ggp_experience": Run(
        ("--sizes", "100", "1000", "--probes", "20", "--games", "tictactoe", "--simulations", "10", "--repeats", "1")),
    "python -m blokuszero.bench ggp_prepare": Run(("--games", "tictactoe")),
    "python scripts/arena.py games=100 seed=27 workers=1 'seats=[net,pentobi,pentobi,pentobi]' '+players.net={preset: "
    "alphazero, checkpoint: checkpoints/blokus_b2c32conv_gumbel.pt, simulations: 200}' '+players.pentobi={kind: gtp, "
    "command: \"pentobi-gtp --quiet --noresign --level 3\"}' out_dir=evaluations/pentobi/L3":
        Run(("games=1", "players.net.simulations=2", "progress=false"), needs="pentobi-gtp"),
    "python scripts/arena.py games=200 seed=27 workers=1 'seats=[net,pentobi,pentobi,pentobi]' '+players.net={preset: "
    "alphazero, checkpoint: checkpoints/blokus_b2c32conv_gumbel.pt, simulations: 800, leaves_per_batch: 8, "
    "virtual_loss: true, mix_lambda: 0.5, time_limit: 1.0}' '+players.pentobi={kind: gtp, command: "
    "\"pentobi-gtp --quiet --noresign --level 3\"}' out_dir=evaluations/pentobi/L3_mix05_b8_800":
        Run(("games=1", "players.net.simulations=2", "progress=false"), needs="pentobi-gtp"),
    "python scripts/arena.py games=200 seed=27 workers=1 'seats=[net,pentobi,pentobi,pentobi]' '+players.net={kind: "
    "alphazero, checkpoint: checkpoints/blokus_b2c32conv_gumbel.pt, gumbel: false, leaf_playouts: true, "
    "expand_threshold: 16, simulations: 0, time_limit: 1.0}' '+players.pentobi={kind: gtp, command: "
    "\"pentobi-gtp --quiet --noresign --level 3\"}' out_dir=evaluations/pentobi/L3_priors16":
        Run(("games=1", "players.net.time_limit=0.05", "progress=false"), needs="pentobi-gtp"),
    # It draws the matches above (no other matches are stored yet at this point of the pages).
    "python scripts/arena.py games=100 seed=39 workers=1 'seats=[net,pentobi,pentobi,pentobi]' '+players.net={preset: "
    "network, checkpoint: checkpoints/blokus_b2c32conv_gumbel.pt}' '+players.pentobi={kind: gtp, command: "
    "\"pentobi-gtp --quiet --noresign --level 5\"}' out_dir=evaluations/pentobi/L5_network":
        Run(("games=1", "+players.net.time_limit=0.05", "progress=false"), needs="pentobi-gtp"),
    "python scripts/ladder.py evaluations/pentobi --figure evaluations/pentobi/ladder.png":
        Run(("--anchor", "gtp: pentobi-gtp --quiet --noresign --level 3"), needs="pentobi-gtp"),
    "python scripts/arena.py games=10 seed=390 workers=1 'seats=[p,p,p,p]' '+players.p={kind: gtp, command: "
    "\"pentobi-gtp --quiet --noresign --level 5\"}' out_dir=equal_time/pentobi_L5":
        Run(("games=1", "progress=false"), needs="pentobi-gtp"),
    "python scripts/arena.py games=100 seed=391 workers=1 'seats=[net,pentobi,pentobi,pentobi]' '+players.net={preset: "
    "network, checkpoint: checkpoints/blokus_b2c32conv_gumbel.pt, time_limit: 0.0253}' '+players.pentobi={kind: gtp, "
    "command: \"pentobi-gtp --quiet --noresign --level 5\"}' out_dir=equal_time/L5":
        Run(("games=1", "progress=false"), needs="pentobi-gtp"),
    "python scripts/ladder.py docs/blokus_matches --anchor 'gtp: pentobi-gtp --quiet --noresign --level 5' "
    "--figure docs/blokus_pentobi_ladder.png": Run(),
    "python scripts/arena.py games=100 players.mcts_maxn.simulations=200":
        Run(("games=1", "players.mcts_maxn.simulations=4", "out_dir=arena2", *MATCH)),
    "python scripts/arena.py games=100 'seats=[brs,random,random,random]' "
    "'+players.brs={preset: brs, node_limit: 1000}'":
        Run(("games=1", "players.brs.node_limit=50", "out_dir=arena3", *MATCH)),
    "python scripts/arena.py game=tictactoe 'seats=[uct,random]' '+players.uct={preset: uct}' games=50":
        Run(("games=4", "+players.uct.simulations=50", "out_dir=arena4", *MATCH), slow=False),
    "python scripts/evaluate.py checkpoint=runs/cpu-default/checkpoints/ckpt_000001500.pt games=20 "
    "network.simulations=64 players.mcts_maxn.simulations=64": Run(
        tuple(EVALUATE), checkpoints=("runs/cpu-default/checkpoints/ckpt_000001500.pt",)),
    "python scripts/evaluate.py checkpoint=runs/paper/checkpoints/ckpt_000070000.pt": Run(
        tuple(EVALUATE), checkpoints=("runs/paper/checkpoints/ckpt_000020000.pt",
                                      "runs/paper/checkpoints/ckpt_000070000.pt")),
    "python scripts/evaluate.py checkpoint=runs/paper players.mcts_maxn.simulations=1600": Run(tuple(EVALUATE)),
    "python scripts/evaluate.py 'checkpoint='\"'\"'runs/paper/checkpoints/ckpt_0000[2-7]0000.pt'\"'\"'' games=100 "
    "workers=16": Run(tuple(EVALUATE)),
    "python scripts/evaluate.py checkpoint=runs/paper opponent=pentobi": Run(tuple(EVALUATE), needs="pentobi-gtp"),
    "python scripts/ladder.py evaluations/": Run(),
    "python -m blokuszero.games.ggp.perft tests/data/ggp/connectfour.kif --depth 4": Run(("--depth", "2")),
    "blokuszero-ggp-player --port 9147": Run(serves="ggp", ports=(9147,), needs="blokuszero-ggp-player"),
    "python scripts/ggp_match.py tests/data/ggp/connectfour.kif http://127.0.0.1:9147/ http://127.0.0.1:9148/ "
    "--start-clock 10 --play-clock 5 --matches 4 --rotate --out runs/ggp": Run(
        ("--matches", "1", "--play-clock", "2"), ports=(9147, 9148), needs="blokuszero-ggp-player",
        servers=("blokuszero-ggp-player --port 9147 --simulations 20",
                 "blokuszero-ggp-player --port 9148 --simulations 20")),
    "python -m blokuszero.bench ggp --games connectfour chinesecheckers4":
        Run(("--games", "tictactoe", "--seconds", "0.2")),
    "python scripts/ggp_policy_learning.py --game tictactoe": Run((
        "--train", "6", "--test", "2", "--simulations", "30", "--epochs", "1", "--M", "5", "--N", "5",
        "--test-sims", "5", "--match-games", "1", "--match-sims", "5", "--out", "runs/ggp_policy_readme",
        "--docs", "runs/ggp_policy_readme")),
    "python scripts/ggp_experience_experiment.py play --reading lifetime=move --seed 1 --pairs 50 --playouts 500 "
    "--out docs/ggp_experience_table_lifetime_move.jsonl": Run(
        ("--pairs", "1", "--playouts", "5", "--games", "pawnwhopping", "--configs", "huffman2",
         "--out", "report/ggp_experience_table.jsonl")),
    "python scripts/ggp_experience_experiment.py switch --out docs/ggp_experience_switch.json": Run(
        ("--games", "pawnwhopping", "--selfplay-games", "2", "--moves", "2", "--playouts", "10",
         "--out", "report/ggp_experience_switch.json")),
    "python scripts/ggp_experience_experiment.py report --games-file docs/ggp_experience_table_lifetime_move.jsonl "
    "--switch docs/ggp_experience_switch.json --doc docs/ggp_experience.md --png docs/ggp_experience.png":
        Run(("--games-file", "report/ggp_experience_table.jsonl", "--switch", "report/ggp_experience_switch.json",
             "--doc", "report/ggp_experience.md", "--png", "report/ggp_experience.png")),  # what the two above made
    "git clone https://github.com/ggp-org/ggp-base ../ext/ggp-base": Run(skip=GGP_BASE),
    "sed -i 's/java.util.Vector<?> rowData, java.util.Vector<?> columnNames/java.util.Vector rowData, "
    "java.util.Vector columnNames/' ../ext/ggp-base/src/main/java/org/ggp/base/util/ui/table/JZebraTable.java":
        Run(skip=GGP_BASE),
    "find ../ext/ggp-base/src/main/java -name '*.java' '!' -path '*/python/*' '!' -name PythonConsole.java "
    "'>' ../ext/ggp-base/sources.txt": Run(skip=GGP_BASE),
    "find ../ext/ggp-base/lib -name '*.jar' '!' -name '*-sources.jar' '|' paste -sd: '|' sed 's/^/-cp /' '>' "
    "../ext/ggp-base/classpath.txt": Run(skip=GGP_BASE),
    "javac -nowarn -encoding UTF-8 -d ../ext/ggp-base/build/classes @../ext/ggp-base/classpath.txt "
    "@../ext/ggp-base/sources.txt": Run(skip=GGP_BASE),
    "python scripts/ggp_base_match.py referee tests/data/ggp/tictactoe.kif tests/data/ggp/connectfour.kif "
    "--ggp-base ../ext/ggp-base --matches 2 --start-clock 60 --play-clock 10 --out runs/ggp_base": Run(skip=GGP_BASE),
    "python scripts/ggp_base_match.py player --ggp-base ../ext/ggp-base --port 9148": Run(skip=GGP_BASE),
    "GGP_BASE=../ext/ggp-base python -m pytest -q -rs tests/test_ggp_base.py": Run(skip=GGP_BASE),
    "python -m blokuszero.engines.go --playouts 10000": Run(("--playouts", "20"), stdin="genmove b\nquit\n"),
    "blokuszero-go-gtp --time 2 --playouts 0 --k 1 --l 1":
        Run(("--time", "0.2"), stdin="genmove b\nquit\n", needs="blokuszero-go-gtp"),
    "python scripts/go_match.py --games 10 --engine1 'blokuszero-go-gtp --playouts 5000' --name1 ours --engine2 "
    "'gnugo --mode gtp --level 1' --name2 gnugo-1 --out runs/go_match":
        Run(("--games", "1", "--engine1", "blokuszero-go-gtp --playouts 20"), needs="gnugo"),
    "python scripts/go_rave_experiment.py --games 200 --playouts 1000 --workers 2":
        Run(("--games", "2", "--playouts", "20", "--workers", "1")),
    "python -m blokuszero.bench go":
        Run(("--sizes", "9", "--seconds", "0.2", "--simulations", "100", "--repeats", "1")),
    # The paper's configuration on the CPU: the GPU settings swapped, every other setting its own.
    "python train.py hardware=gpu8 experiment=paper": Run((
        *TINY_TRAIN, "search.simulations=4", "name=paper-on-cpu", "hardware.actor_device=cpu",
        "hardware.learner_device=cpu",
        "hardware.half=false", "hardware.gpus_per_actor=0", "hardware.learner_gpus=0", "hardware.actors=1",
        "hardware.threads_per_actor=1", "eval.enabled=false")),
    "python train.py name=long train.total_steps=5000 search.simulations=64": Run(tuple(TINY_TRAIN)),
    "python train.py experiment=cpu_strong": Run(tuple(TINY_TRAIN)),  # keeps its curve's last network
    "python scripts/evaluate.py checkpoint=runs/cpu_strong/curve untrained=true games=100 network.simulations=200 "
    "players.mcts_maxn.simulations=200 workers=2 figure=docs/blokus_cpu_strong_curve.png": Run(tuple(EVALUATE)),
    "tensorboard --logdir runs": Run(("--version_tb",), needs="tensorboard"),
    "python scripts/arena.py games=100 'seats=[trained,untrained,untrained,untrained]' '+players.trained={preset: "
    "alphazero, checkpoint: runs/cpu-default/checkpoints/ckpt_000001500.pt, simulations: 64}' "
    "'+players.untrained={preset: alphazero, model: b2c32conv, init_seed: 0, simulations: 64, q_init: parent, "
    "gumbel: true}'":
        Run(("games=1", "players.trained.simulations=2", "players.untrained.simulations=2", "out_dir=arena1", *MATCH),
            checkpoints=("runs/cpu-default/checkpoints/ckpt_000001500.pt",)),
    "python train.py experiment=cpu_strong name=next train.init_from=checkpoints/blokus_b2c32conv_gumbel.pt": Run((
        *TINY_TRAIN, "train.init_from=runs/shipped/checkpoints/ckpt_000000001.pt"),  # the clone has no checkpoints/
        checkpoints=("runs/shipped/checkpoints/ckpt_000000001.pt",)),
    # Against the run's own last curve network (same weights, same search): one game never ships.
    "python scripts/gate.py candidate=runs/next shipped=checkpoints/blokus_b2c32conv_gumbel.pt ship=true": Run((
        "games=1", "network.simulations=2", "shipped=runs/next/curve/checkpoints/ckpt_000000004.pt", *MATCH)),
    "python train.py experiment=expert_iteration": Run((
        *TINY_TRAIN, "train.init_from=runs/shipped/checkpoints/ckpt_000000001.pt"),  # the clone has no checkpoints/
        checkpoints=("runs/shipped/checkpoints/ckpt_000000001.pt",)),
    # The run's own last curve network against its newest checkpoint (the same weights): one game never ships.
    "python scripts/gate.py candidate=runs/expert_iteration shipped=checkpoints/blokus_b2c32conv_gumbel.pt "
    "network.preset=network network.simulations=0 +network.time_limit=0.1 +network.gumbel=false": Run((
        "games=1", "network.time_limit=0.01", "shipped=runs/expert_iteration/curve/checkpoints/ckpt_000000004.pt",
        *MATCH)),
    "python train.py experiment=expert_iteration model=b4c64conv train.init_grow=true name=grown": Run((
        *TINY_TRAIN, "train.init_from=runs/shipped/checkpoints/ckpt_000000001.pt"),  # the clone has no checkpoints/
        checkpoints=("runs/shipped/checkpoints/ckpt_000000001.pt",)),
    # The tiny expert-iteration run's few games: one held out.
    "python scripts/fit_buffer.py runs/expert_iteration/buffer --start checkpoints/blokus_b2c32conv_gumbel.pt "
    "--models b2c32conv b4c64conv": Run((
        "--start", "runs/shipped/checkpoints/ckpt_000000001.pt", "--steps", "2", "--measure-every", "1",
        "--positions", "16")),
}


def readme_commands() -> list[str]:
    """The pages' shell commands in order, once each: lines of ``bash`` blocks, continuations
    joined, ``&&`` chains split, comments dropped, written back with shell quoting."""
    found: list[str] = []
    for block in re.findall(r"```bash\n(.*?)```", "\n".join(PAGES.values()), re.S):
        for line in block.replace("\\\n", " ").splitlines():
            for part in line.split("&&"):
                argv = shlex.split(part, comments=True)
                if argv and shlex.join(argv) not in found:
                    found.append(shlex.join(argv))
    return found


def test_every_readme_command_has_a_way_to_run():
    assert readme_commands() == list(COMMANDS)


@pytest.fixture(scope="module")
def clone(tmp_path_factory) -> Path:
    """A scratch directory standing for a user's clone (the scripts run from the real one)."""
    where = tmp_path_factory.mktemp("clone")
    for name in ("train.py", "scripts", "conf", "tests", "checkpoints"):
        (where / name).symlink_to(ROOT / name)
    # The stored matches the pages' ladder reads; the figures it draws stay in the scratch copy.
    (where / "docs").mkdir()
    (where / "docs" / "blokus_matches").symlink_to(ROOT / "docs" / "blokus_matches")
    return where


def _make_checkpoint(path: Path) -> None:
    import torch

    from blokuszero.nn.checkpoint import save_network
    from blokuszero.nn.model import build_model

    torch.manual_seed(0)
    config = '{"model": {"name": "b2c32conv"}, "seed": 0}'
    net = build_model("b2c32conv", "blokus")
    save_network(path.parent, int(path.stem[5:]), "b2c32conv", net.state_dict(), config,
                 model_config=dataclasses.asdict(net.config))  # as trained networks store their shape


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _argv(command: str, extra: tuple[str, ...], ports: dict[int, int]) -> list[str]:
    argv = shlex.split(command) + list(extra)
    for old, new in ports.items():
        argv = [word.replace(str(old), str(new)) for word in argv]
    if argv[0] == "python":
        argv[0] = sys.executable
    return argv


def _ggp_info(port: int, process: subprocess.Popen, seconds: float = 60, page: bool = False) -> str:
    """The answer of the GGP player on ``port`` to ``(info)`` (``page``: of a web server to GET /), once it listens."""
    request = urllib.request.Request(f"http://127.0.0.1:{port}/") if page else urllib.request.Request(
        f"http://127.0.0.1:{port}/", data=b"(info)", headers={"Content-Type": "text/acl"})
    deadline = time.monotonic() + seconds
    while True:
        try:
            with urllib.request.urlopen(request, timeout=10) as answer:
                return answer.read().decode()
        except OSError:
            if process.poll() is not None or time.monotonic() > deadline:
                raise AssertionError(f"nothing answered on port {port} (exit code {process.poll()})")
            time.sleep(0.2)


@pytest.mark.parametrize("command", [pytest.param(c, marks=[pytest.mark.slow] if r.slow else [])
                                     for c, r in COMMANDS.items()])
def test_readme_command_runs(command, clone):
    run = COMMANDS[command]
    if run.skip:
        pytest.skip(run.skip)
    # Debian puts GNU Go in /usr/games, often not on PATH; the engine starter looks there too.
    if run.needs and shutil.which(run.needs) is None and shutil.which(f"/usr/games/{run.needs}") is None:
        pytest.skip(f"{run.needs} is not on PATH: {HOW_TO_GET.get(run.needs, 'pip install -e . installs it')}")
    for path in run.checkpoints:
        _make_checkpoint(clone / path)
    ports = {port: _free_port() for port in run.ports}
    argv = _argv(command, run.extra, ports)
    env = {**os.environ, "PYTHONPATH": str(ROOT), "PYTHONIOENCODING": "utf-8"}
    servers = [subprocess.Popen(_argv(server, (), ports), cwd=clone, env=env, stdout=subprocess.DEVNULL,
                                stderr=subprocess.DEVNULL) for server in run.servers]
    try:
        for server, port in zip(servers, ports.values()):
            _ggp_info(port, server)
        if run.serves:
            process = subprocess.Popen(argv, cwd=clone, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                       text=True)
            try:
                answer = _ggp_info(next(iter(ports.values())), process, page=run.serves == "page")
                assert ("<title>BlokusZero" if run.serves == "page" else "status available") in answer, answer[:300]
            finally:
                stop_process(process)
            assert "Traceback" not in process.stderr.read()
            return
        done = subprocess.run(argv, cwd=clone, input=run.stdin, capture_output=True, text=True, env=env,
                              timeout=600)
    finally:
        for server in servers:
            stop_process(server)
    assert done.returncode == 0, f"{command}\n{done.stdout[-2000:]}\n{done.stderr[-3000:]}"
    assert "Traceback" not in done.stderr, done.stderr[-3000:]
    if run.stdin:  # a GTP session: every command answered with success
        answers = [a for a in done.stdout.split("\n\n") if a]
        assert len(answers) == run.stdin.count("\n") and all(a.startswith("=") for a in answers), done.stdout


PYTHON_BLOCKS = [(page, code) for page, text in PAGES.items()
                 for code in re.findall(r"```python\n(.*?)```", text, re.S)]


@pytest.mark.parametrize("page,code", PYTHON_BLOCKS, ids=[f"{page}-{i}" for i, (page, _) in enumerate(PYTHON_BLOCKS)])
def test_readme_python_blocks_run(page, code, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # the tour writes game.blksgf
    exec(compile(code, f"{page} python block", "exec"), {})


def _dotted_names(text: str) -> list[str]:
    """Every ``blokuszero.`` name in ``text``, ``{a,b}`` alternatives expanded, call parentheses cut."""
    names = []
    for name in re.findall(r"blokuszero(?:\.(?:\w+|\{[\w,]+\}))+", text):
        expanded = [""]
        for part in name.split("."):
            options = part.strip("{}").split(",")
            expanded = [f"{e}.{o}" if e else o for e in expanded for o in options]
        names += expanded
    return names


def _resolves(name: str) -> bool:
    import importlib

    parts = name.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:cut]))
        except ImportError:
            continue
        for attr in parts[cut:]:
            if not hasattr(obj, attr):
                return False
            obj = getattr(obj, attr)
        return True
    return False


def test_every_module_the_pages_name_exists():
    named = {name for text in PAGES.values() for name in _dotted_names(text)}
    assert named
    assert [name for name in sorted(named) if not _resolves(name)] == []
