"""Replay official UECda server records through our rules and the default client.

    python scripts/daihinmin_replay.py LOG [LOG ...] [--no-client]

Per record: games agreed / total (deal, exchange, every submission and whether it was
accepted, field clears, finishing order, points) and default-client decisions agreed / total
(each of the five players' decisions, exchanges included), naming the first disagreement.
Exits 0 only when everything agrees.
"""

from __future__ import annotations

import argparse
import sys

from blokuszero.games.daihinmin.log import read_log
from blokuszero.match.daihinmin.uecda_replay import replay_record
from blokuszero.players.daihinmin.default_client import DefaultClient


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("logs", nargs="+", help="server game records (.log)")
    parser.add_argument("--no-client", action="store_true",
                        help="check the rules only, not the default client's decisions")
    args = parser.parse_args(argv)
    ok = True
    for path in args.logs:
        try:
            record = read_log(path)
            report = replay_record(record, None if args.no_client else DefaultClient)
        except ValueError as err:
            print(f"{path}: cannot replay: {err}")
            ok = False
            continue
        line = f"{path}: games {report.games_agreed}/{report.games}"
        if not args.no_client:
            line += f", default-client decisions {report.decisions_agreed}/{report.decisions}"
        print(line)
        if report.first_disagreement:
            print(f"  first disagreement: {report.first_disagreement}")
        if report.first_decision_miss:
            print(f"  first decision missed: {report.first_decision_miss}")
        ok = ok and report.ok
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
