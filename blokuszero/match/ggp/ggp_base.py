"""Matches refereed by ggp-base (the field's reference Java game server): our GGP player against
ggp-base's SampleMonteCarloGamer, with the Java drivers of ``scripts/ggp_base`` compiled and run
against a user's ggp-base build, ggp-base's match records read back, and the results tallied.

ggp-base's server replaces a move its prover calls illegal ("IL") or a reply later than the play
clock plus one second ("TO") or a failed connection ("CE") by a random legal move and writes the
code into the match record's ``errors`` (one row per step, the start first; one entry per role).
Each player is reached through a :class:`TimingRelay`, which times every reply as the referee
sees it (plus the relay's own milliseconds), so a reply past the play clock itself is counted too.
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator, Sequence
from contextlib import ExitStack, contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

from ...files import write_atomic
from ...games.ggp.kif import parse_kif
from ...processes import stop_process
from ..stats import score_rate
from .game_manager import post

OURS, THEIRS = "blokuszero", "SampleMonteCarloGamer"
ERROR_CODES = {"IL": "illegal", "TO": "timeout", "CE": "connection"}


def ggp_base_classpath(root: str | Path) -> str:
    """The classpath of a ggp-base build: its classes (``build/classes``, README's build) and
    the jars of its ``lib``; FileNotFoundError naming what is missing."""
    root = Path(root)
    classes = root / "build" / "classes"
    if not (classes / "org/ggp/base/server/GameServer.class").is_file():
        raise FileNotFoundError(f"no compiled ggp-base in {classes} (org/ggp/base/server/GameServer.class "
                                "is missing): build it as README says ('Matches refereed by ggp-base')")
    jars = sorted(str(p) for p in (root / "lib").rglob("*.jar") if not p.name.endswith("-sources.jar"))
    return os.pathsep.join([str(classes), *jars])


def compile_drivers(sources: Path, classpath: str, into: Path) -> str:
    """Compiles the Java drivers in ``sources`` into ``into``; the classpath that runs them."""
    javac = shutil.which("javac")
    if javac is None:
        raise FileNotFoundError("javac is not on PATH: install a JDK (Debian: openjdk-17-jdk-headless)")
    into.mkdir(parents=True, exist_ok=True)
    subprocess.run([javac, "-nowarn", "-d", str(into), "-cp", classpath, *sorted(map(str, sources.glob("*.java")))],
                   check=True)
    return os.pathsep.join([str(into), classpath])


def sheet_roles(rules: str) -> list[str]:
    """The roles of a GDL description, in order (from its ``role`` facts; nothing is grounded)."""
    roles = [r.head[1] for r in parse_kif(rules) if not r.body and r.head[0] == "role"]
    if not roles:
        raise ValueError("the description has no (role ...) facts")
    return roles


def command_of(request: str) -> str:
    """The command of a GGP request's text (``( PLAY id ... )`` -> ``play``)."""
    words = request.strip().lstrip("(").split()
    return words[0].lower() if words else ""


class TimingRelay:
    """An HTTP relay on 127.0.0.1 in front of a GGP player: each request is forwarded as it is and
    ``log`` keeps (command, seconds until the player's reply, reply or None)."""

    def __init__(self, target: str, timeout: float) -> None:
        self.target, self.timeout = target, timeout
        self.log: list[tuple[str, float, str | None]] = []
        relay = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 (http.server's name)
                text = self.rfile.read(int(self.headers.get("Content-Length") or 0)).decode("utf-8", "replace")
                reply, took = post(relay.target, text, relay.timeout)
                relay.log.append((command_of(text), took, reply))
                body = (reply or "").encode()
                try:
                    self.send_response(200 if reply is not None else 502)
                    self.send_header("Content-Type", "text/acl")
                    self.send_header("Content-Length", str(len(body)))
                    self.end_headers()
                    self.wfile.write(body)
                except OSError:  # the referee stopped waiting (a late reply): already logged
                    pass

            def log_message(self, fmt: str, *args) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.port = self.server.server_address[1]
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def seconds(self, command: str) -> list[float]:
        """The reply times of every ``command`` request, in order."""
        return [took for c, took, _ in self.log if c == command]

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()

    def __enter__(self) -> TimingRelay:
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def _wait_until_serving(port: int, process: subprocess.Popen, what: str, seconds: float = 60.0) -> None:
    deadline = time.monotonic() + seconds
    while post(f"http://127.0.0.1:{port}/", "(info)", 2.0)[0] is None:
        if process.poll() is not None or time.monotonic() > deadline:
            raise RuntimeError(f"{what} did not answer (info) on port {port} (exit code {process.poll()})")
        time.sleep(0.2)


@contextmanager
def serving(argv: Sequence[str], port: int, what: str, log: Path, cwd: Path | None = None) -> Iterator[None]:
    """A player process, its output to ``log``, answering on ``port`` while the block runs."""
    with open(log, "w") as out:
        process = subprocess.Popen(list(argv), stdout=out, stderr=subprocess.STDOUT, cwd=cwd)
        try:
            _wait_until_serving(port, process, what)
            yield
        finally:
            stop_process(process)


def free_port() -> int:
    """A TCP port free on 127.0.0.1 now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def read_record(path: str | Path) -> dict:
    """The referee driver's JSON (what ggp-base's Match holds) as a summary: roles,
    completed, goals, the joint moves and, per role, ggp-base's error codes by step
    (step 0 is the start, step k the k-th joint move: IL = illegal move, TO = later than the
    play clock plus one second, CE = no connection)."""
    raw = json.loads(Path(path).read_text())
    roles = raw["roles"]
    errors: dict[str, list[dict]] = {role: [] for role in roles}
    for step, row in enumerate(raw.get("errors", [])):
        for role, code in zip(roles, row):
            if code:
                kind = ERROR_CODES.get(code.split()[0], code)
                errors[role].append({"step": step, "kind": kind, "code": code})
    return {"match_id": raw["matchId"], "roles": roles, "completed": raw["isCompleted"],
            "goals": raw.get("goalValues", []), "moves": raw["moves"], "errors": errors,
            "start_clock": raw["startClock"], "play_clock": raw["playClock"]}


def run_refereed_match(rules_path: Path, match_id: str, our_role: int, *, classpath: str, out: Path,
                       start_clock: int, play_clock: int, seed: int,
                       player_options: Sequence[str] = ()) -> dict:
    """One match refereed by ggp-base's GameServer: our player (a fresh process seeded ``seed``)
    in role ``our_role``, a SampleMonteCarloGamer (a JVM each) in every other role. Its record,
    also written to ``out/<match id>.json`` (the referee driver's record beside it, ``.ggp-base.json``)."""
    roles = sheet_roles(rules_path.read_text())
    logs = out / "logs"
    logs.mkdir(parents=True, exist_ok=True)
    names = [OURS if r == our_role else THEIRS for r in range(len(roles))]
    raw_path = out / f"{match_id}.ggp-base.json"
    raw_path.unlink(missing_ok=True)  # a record of an earlier run must not stand for this one
    with ExitStack() as stack:
        relays = []
        for role, name in zip(roles, names):
            port = free_port()
            if name == OURS:
                argv = [sys.executable, "-m", "blokuszero.engines.ggp", "--port", str(port),
                        "--seed", str(seed), *player_options]
            else:
                argv = ["java", "-cp", classpath, "GgpBasePlayer", str(port)]
            # cwd: ggp-base's players may write log folders where they run.
            stack.enter_context(serving(argv, port, f"{name} ({role})", logs / f"{match_id}.{role}.log", cwd=logs))
            relay = TimingRelay(f"http://127.0.0.1:{port}/", start_clock + play_clock + 30.0)
            relays.append(stack.enter_context(relay))
        referee_log = logs / f"{match_id}.referee.log"
        with open(referee_log, "w") as log:
            referee = subprocess.run(
                ["java", "-cp", classpath, "GgpBaseReferee", str(rules_path.resolve()), match_id, str(start_clock),
                 str(play_clock), str(raw_path.resolve()), *[f"127.0.0.1:{r.port}" for r in relays]],
                cwd=logs, stdout=log, stderr=subprocess.STDOUT)
    if not raw_path.is_file():  # an unfinished match has a record (exit code 1); a failed referee has none
        raise RuntimeError(f"ggp-base's referee failed on {match_id} (exit code {referee.returncode}); its output, "
                           f"{referee_log}:\n{referee_log.read_text()[-3000:]}")
    record = read_record(raw_path)
    record.update(game=rules_path.stem, players=names, seed=seed, referee_exit=referee.returncode,
                  start_seconds={role: r.seconds("start") for role, r in zip(roles, relays)},
                  answer_seconds={role: r.seconds("play") for role, r in zip(roles, relays)})
    write_atomic(out / f"{match_id}.json", json.dumps(record, indent=1))
    return record


def tally(records: Sequence[dict]) -> list[dict]:
    """Per game, from our player's side: games, wins / draws / losses (our goal above, equal to
    or below the best other goal), ggp-base's error codes (illegal moves, timeouts, connection
    errors) for each side, replies past the play clock itself and our latest reply."""
    rows: dict[str, dict] = {}
    for rec in records:
        row = rows.setdefault(rec["game"], {"game": rec["game"], "games": 0, "wins": 0, "draws": 0, "losses": 0,
                                            "incomplete": 0, "ours": _faults(), "theirs": _faults(),
                                            "latest_ours": 0.0, "latest_theirs": 0.0,
                                            "play_clock": rec["play_clock"]})
        row["games"] += 1
        ours = rec["players"].index(OURS)
        if not rec["completed"] or len(rec["goals"]) != len(rec["roles"]):
            row["incomplete"] += 1
        else:
            mine = rec["goals"][ours]
            best_other = max(g for r, g in enumerate(rec["goals"]) if r != ours)
            row["wins" if mine > best_other else "draws" if mine == best_other else "losses"] += 1
        for r, role in enumerate(rec["roles"]):
            side = "ours" if r == ours else "theirs"
            for error in rec["errors"][role]:
                row[side][error["kind"]] += 1
            answers = rec["answer_seconds"][role]
            row[side]["late"] += sum(took > rec["play_clock"] for took in answers)
            row[f"latest_{side}"] = max([row[f"latest_{side}"], *answers])
    return list(rows.values())


def _faults() -> dict[str, int]:
    return {"illegal": 0, "timeout": 0, "connection": 0, "late": 0}


def format_tally(rows: Sequence[dict]) -> str:
    """The tally as a Markdown table (win rate with its 95% Wilson interval, draws as half)."""
    lines = ["| game | games | W-D-L (ours) | score, 95% CI | illegal ours/theirs | TO ours/theirs | "
             "CE ours/theirs | past the play clock ours/theirs | our latest reply (play clock) |",
             "|---|---|---|---|---|---|---|---|---|"]
    for row in rows:
        r = score_rate(row["wins"], row["draws"], row["losses"])
        rate = f"{r['win_rate']:.2f} [{r['ci_low']:.2f}, {r['ci_high']:.2f}]" if r["games"] else "-"
        o, t = row["ours"], row["theirs"]
        lines.append(f"| {row['game']} | {row['games']}" + (f" ({row['incomplete']} unfinished)" if row["incomplete"]
                                                           else "")
                     + f" | {row['wins']}-{row['draws']}-{row['losses']} | {rate} | {o['illegal']}/{t['illegal']} | "
                     f"{o['timeout']}/{t['timeout']} | {o['connection']}/{t['connection']} | {o['late']}/{t['late']} | "
                     f"{row['latest_ours']:.2f} s ({row['play_clock']} s) |")
    return "\n".join(lines)


def run_series(rules_paths: Sequence[str | Path], classpath: str, out: str | Path, *, matches: int = 2,
               start_clock: int = 60, play_clock: int = 10, seed: int = 0,
               player_options: Sequence[str] = ()) -> list[dict]:
    """``matches`` matches per sheet, our player's role rotating (match m: role m mod roles),
    seeds ``seed``, ``seed + 1``, ... across the series; a line printed per match."""
    out = Path(out)
    records = []
    for rules_path in map(Path, rules_paths):
        roles = sheet_roles(rules_path.read_text())
        for m in range(matches):
            match_seed = seed + len(records)
            match_id = f"{rules_path.stem}.{match_seed}"
            rec = run_refereed_match(rules_path, match_id, m % len(roles), classpath=classpath, out=out,
                                     start_clock=start_clock, play_clock=play_clock, seed=match_seed,
                                     player_options=player_options)
            records.append(rec)
            faults = "; ".join(f"{role}: " + " ".join(e["code"] + f"@{e['step']}" for e in errs)
                               for role, errs in rec["errors"].items() if errs) or "no errors"
            print(f"{match_id}: " + ", ".join(f"{role}={goal} ({name})" for role, goal, name in
                                              zip(rec["roles"], rec["goals"], rec["players"]))
                  + f"; {len(rec['moves'])} moves; {faults}", flush=True)
    return records
