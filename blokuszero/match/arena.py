"""One game of a match: the match's definition (`Match`), the seating and seeds of each game, and
the game played through the game loop with its record (SGF for Blokus and Go)."""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..games.abilities import HasScores, implements
from ..games.base import Game, State
from ..games.registry import make_game, record_format
from ..players.base import Player
from ..players.factory import make_player, resolve_spec
from ..referee.game_loop import play
from ..settings import check_value
from .go.gtp_referee import GtpReferee


@dataclass(frozen=True)
class Match:
    """What is played: the game, one player name per seat, and the players' specs."""

    game: str
    seats: Sequence[str]  # player names, one per seat; shuffled for every game
    players: Mapping[str, Mapping[str, Any]]  # name -> player spec (see players.factory)
    random_opening_moves: int = 0  # first moves of every game played uniformly at random
    game_options: Mapping[str, Any] = field(default_factory=dict)  # make_game options (Go: size, komi)
    seating: str = "shuffle"  # one of SEATINGS: "shuffle" (random per game) or "rotate" (game i: seats turned by i)
    referee: str | None = None  # Go: a GTP engine that sees every move and scores the end (see referee.py)

    def make_game(self) -> Game:
        """The game of this match, with its options."""
        return make_game(self.game, **self.game_options)

    def check(self) -> None:
        """ValueError naming what is wrong, before any game starts."""
        check_value("random_opening_moves", self.random_opening_moves, int, low=0)
        check_value("seating", self.seating, str, choices=SEATINGS)
        game = self.make_game()
        if self.referee is not None:
            GtpReferee.check_game(game)
        if len(self.seats) != game.num_players:
            raise ValueError(f"{self.game} has {game.num_players} seats, but {len(self.seats)} "
                             f"were given: {list(self.seats)}")
        for name in self.seats:
            if name not in self.players:
                raise ValueError(f"seat player {name!r} has no entry in players "
                                 f"(have: {sorted(self.players)})")
        for name, spec in self.players.items():
            try:
                resolve_spec(spec)
            except ValueError as err:
                raise ValueError(f"player {name!r}: {err}") from None


SEATINGS = ("shuffle", "rotate")


def _sgf(game: Game, state: State, actions: list[tuple[int, int]], seating: list[str], comment: str,
         result: str | None) -> str | None:
    """The game's record, for games with a record format (Blokus, Go: SGF); ``result``: how a
    referee or a resignation decided the game, if one did."""
    form = record_format(game)
    return None if form is None else form.write(game, state, actions, seating, comment, result)


def game_seed(seed: int, index: int) -> int:
    """The seed of game ``index`` of a match seeded with ``seed`` (stored with the game)."""
    return int(np.random.SeedSequence([seed, index]).generate_state(1)[0])


def play_game(match: Match, index: int, seed: int, moves: Any = None) -> dict[str, Any]:
    """Play one game; return its record (seating, moves, returns, scores, seed, SGF for Blokus and
    Go, and the result when a resignation, a refused move or the referee decided it). In a
    two-player game a player that fails (a GTP engine that crashes, refuses a move or answers
    an illegal one) forfeits it, ``forfeit`` saying why, and the match goes on. ``moves``: a
    queue (``put``) that is sent ``(index, moves played so far)`` before each move, for a
    progress bar in another process."""
    game = match.make_game()
    rng = np.random.default_rng(seed)
    if match.seating == "rotate":  # two players: colours alternate game by game
        turn = index % len(match.seats)
        seating = [str(name) for name in [*match.seats[turn:], *match.seats[:turn]]]
    else:
        seating = [str(name) for name in rng.permutation(list(match.seats))]
    player_seeds = np.random.SeedSequence(seed).generate_state(len(seating))
    players: list[Player] = []
    state = game.new_initial_state(rng)
    start, cpu_start = time.perf_counter(), time.process_time()
    referee = GtpReferee(match.referee, game) if match.referee else None
    try:
        for name, s in zip(seating, player_seeds):
            players.append(make_player(game, match.players[name], int(s)))
            players[-1].reset()
        try:
            played = play(game, state, players, rng, names=[f"player {name!r}" for name in seating],
                          random_opening_moves=match.random_opening_moves, referee=referee,
                          on_move=None if moves is None else lambda n: moves.put((index, n)))
        except ValueError as err:
            raise ValueError(f"game {index}: {err}") from None
    finally:
        for player in players:
            player.close()
        if referee is not None:
            referee.close()
    returns = played.returns
    scores = state.scores() if implements(state, HasScores) else returns
    record = {"index": index, "seed": seed, "seating": seating, "moves": played.moves,
              "returns": returns.tolist(), "scores": np.asarray(scores).tolist(),
              "seconds": time.perf_counter() - start,
              # CPU time of this process (one thread per worker): what a game costs on a free
              # core, however busy the machine; an external GTP engine's own time is not in it,
              # but is in its seat's (as the engine reports it)
              "cpu_seconds": time.process_time() - cpu_start,
              "cpu_seconds_by_seat": played.cpu_by_seat, "moves_chosen_by_seat": played.chosen_by_seat}
    if played.result is not None:
        record["result"] = played.result
    if played.forfeit is not None:
        record["forfeit"] = played.forfeit
    sgf = _sgf(game, state, played.actions, seating, f"arena game {index}, seed {seed}", played.result)
    if sgf is not None:
        record["sgf"] = sgf
    return record
