"""The one game loop (blokuszero/referee/game_loop.py): each hook on small real games."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from blokuszero.games.base import CHANCE, SIMULTANEOUS
from blokuszero.games.registry import make_game
from blokuszero.players.base import PlayerFailure, RandomPlayer, Resign
from blokuszero.referee.game_loop import RefereeRefusal, play
from blokuszero.search import time_manager

GGP_RULES = Path(__file__).parent / "data" / "ggp"


class Listener(RandomPlayer):
    """A random player that keeps every move it is told."""

    def __init__(self, seed: int) -> None:
        super().__init__(seed)
        self.told: list[tuple[int, int]] = []
        self.joints: list[list[int]] = []

    def inform(self, action: int, player: int) -> None:
        self.told.append((player, action))

    def inform_joint(self, joint) -> None:
        self.joints.append(list(joint))


class FakeClock:
    """A CPU clock that stands still until a player spends time on it."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


class Spender(Listener):
    """A listener whose every move costs ``cost`` seconds of the fake clock and every move it is
    told costs ``told_cost`` (spent between its moves, so charged to no seat)."""

    def __init__(self, seed: int, clock: FakeClock, cost: float, told_cost: float = 0.0) -> None:
        super().__init__(seed)
        self.clock, self.cost, self.told_cost = clock, cost, told_cost

    def choose_action(self, state, player=None) -> int:
        self.clock.now += self.cost
        return super().choose_action(state, player)

    def inform(self, action: int, player: int) -> None:
        self.clock.now += self.told_cost
        super().inform(action, player)


class Scripted(RandomPlayer):
    """Plays ``moves`` in order, then raises ``then`` (an exception instance) if given, else
    plays at random."""

    def __init__(self, moves: list[int], then: Exception | None = None) -> None:
        super().__init__(0)
        self.moves, self.then = list(moves), then

    def choose_action(self, state, player=None) -> int:
        if self.moves:
            return self.moves.pop(0)
        if self.then is not None:
            raise self.then
        return super().choose_action(state, player)


def test_each_distinct_player_is_told_every_move_once_and_seats_are_clocked():
    game = make_game("tictactoe")
    a, b = Listener(1), Listener(2)
    played = play(game, game.new_initial_state(), [a, b], np.random.default_rng(0))
    assert played.state.is_terminal() and list(played.returns) == list(played.state.returns())
    assert a.told == b.told == played.actions and len(played.actions) == len(played.moves)
    assert sum(played.chosen_by_seat) == len(played.actions) and min(played.chosen_by_seat) >= 2
    self_play = Listener(3)  # one player in both seats is told each move once, not twice
    again = play(game, game.new_initial_state(), [self_play, self_play])
    assert self_play.told == again.actions


def test_each_seat_is_charged_the_cpu_clock_it_spent_choosing_its_moves(monkeypatch):
    clock = FakeClock()
    monkeypatch.setattr(time_manager, "CPU_CLOCK", clock)
    game = make_game("tictactoe")
    a, b = Spender(1, clock, 0.25, told_cost=8.0), Spender(2, clock, 0.5, told_cost=8.0)
    played = play(game, game.new_initial_state(), [a, b], np.random.default_rng(0), random_opening_moves=1)
    moves = played.chosen_by_seat
    assert sum(moves) == len(played.actions) - 1 and min(moves) >= 2  # the random opening move is no seat's
    # Exactly each seat's own moves: not the random opening, not the time spent being told moves.
    assert played.cpu_by_seat == [0.25 * moves[0], 0.5 * moves[1]]
    one = Spender(3, clock, 0.25)  # one player in both seats: each seat its own moves' time
    again = play(game, game.new_initial_state(), [one, one])
    assert again.cpu_by_seat == [0.25 * n for n in again.chosen_by_seat]


def test_random_opening_moves_are_not_asked_of_the_players_and_follow_the_rng():
    game = make_game("tictactoe")
    runs = [play(game, game.new_initial_state(), [Listener(1), Listener(2)], np.random.default_rng(5),
                 random_opening_moves=3) for _ in range(2)]
    assert runs[0].moves[:3] == runs[1].moves[:3]
    assert sum(runs[0].chosen_by_seat) == len(runs[0].actions) - 3


def test_chance_outcomes_come_from_the_rng_or_from_the_chance_hook():
    game = make_game("kuhn_poker")
    players = [RandomPlayer(p) for p in range(game.num_players)]
    drawn = [play(game, game.new_initial_state(), players, np.random.default_rng(seed))
             for seed in (7, 7)]
    chance = [[a for p, a in run.actions if p == CHANCE] for run in drawn]
    assert chance[0] == chance[1] and len(chance[0]) == game.num_players

    asked = []

    def lowest(state) -> int:
        asked.append(state.current_player())
        return int(state.chance_outcomes()[0][0])

    hooked = play(game, game.new_initial_state(), players, np.random.default_rng(7), chance=lowest)
    dealt = [a for p, a in hooked.actions if p == CHANCE]
    assert asked == [CHANCE] * len(dealt) and dealt == sorted(dealt) and len(set(dealt)) == len(dealt)


def test_a_resignation_ends_a_two_player_game_only():
    game = make_game("tictactoe")
    played = play(game, game.new_initial_state(), [Scripted([0], Resign()), RandomPlayer(0)])
    assert list(played.returns) == [-1.0, 1.0] and played.result == "W+R" and len(played.moves) == 2
    kuhn = make_game("kuhn_poker")
    with pytest.raises(ValueError, match="seat 0 resigned, but only two-player games"):
        play(kuhn, kuhn.new_initial_state(), [Scripted([], Resign())] + [RandomPlayer(p) for p in (1, 2)])


@pytest.mark.parametrize("fault", ["illegal", "failure"])
def test_a_failing_or_illegal_answer_forfeits_is_replaced_or_raises(fault):
    game = make_game("tictactoe")

    def faulty() -> Scripted:  # plays the centre, then the centre again or fails
        return Scripted([4, 4]) if fault == "illegal" else Scripted([4], PlayerFailure("engine crashed"))

    why = "chose an illegal move" if fault == "illegal" else "engine crashed"
    forfeited = play(game, game.new_initial_state(), [faulty(), Scripted([0, 1, 2])], names=["x", "o"])
    assert list(forfeited.returns) == [-1.0, 1.0] and forfeited.result == "W+F"
    assert forfeited.forfeit.startswith("x in seat 0 forfeits") and why in forfeited.forfeit
    replaced = play(game, game.new_initial_state(), [faulty(), RandomPlayer(1)], on_failure="random")
    assert replaced.state.is_terminal() and len(replaced.replaced) >= 1
    first = replaced.replaced[0]
    assert first["seat"] == 0 and first["move"] == 2 and why in first["why"]
    with pytest.raises(ValueError, match=why):
        play(game, game.new_initial_state(), [faulty(), RandomPlayer(1)], on_failure="raise")
    with pytest.raises(ValueError, match="on_failure must be one of"):
        play(game, game.new_initial_state(), [RandomPlayer(0), RandomPlayer(1)], on_failure="ignore")


class Judge:
    """A referee that refuses one move text and scores the end as a draw."""

    def __init__(self, refuse: str | None) -> None:
        self.refuse, self.seen = refuse, []

    def play(self, player: int, move: str) -> None:
        self.seen.append((player, move))
        if move == self.refuse:
            raise RefereeRefusal("not in my rules")

    def result(self):
        return np.zeros(2), "0"


def test_the_referee_sees_every_move_scores_the_end_and_its_refusal_forfeits():
    game = make_game("tictactoe")
    judge = Judge(refuse=None)
    played = play(game, game.new_initial_state(), [RandomPlayer(0), RandomPlayer(1)], referee=judge)
    assert [m for _, m in judge.seen] == [m for _, m in played.moves]
    assert played.result == "0" and list(played.returns) == [0.0, 0.0]
    centre = game.new_initial_state().action_to_string(4)
    refused = play(game, game.new_initial_state(), [Scripted([0]), Scripted([4])], referee=Judge(centre))
    assert refused.result == "B+F" and "refused" in refused.forfeit and len(refused.moves) == 2


def test_max_moves_stops_early_and_a_wrong_seat_count_is_refused():
    game = make_game("tictactoe")
    played = play(game, game.new_initial_state(), [RandomPlayer(0), RandomPlayer(1)], max_moves=4)
    assert len(played.moves) == 4 and not played.state.is_terminal()
    with pytest.raises(ValueError, match="tictactoe has 2 seats, but 3 players"):
        play(game, game.new_initial_state(), [RandomPlayer(p) for p in range(3)])


@pytest.mark.parametrize("rules, every_seat_moves", [("connectfoursimultaneous", False), ("tictactoe", True)])
def test_joint_moves_simultaneous_and_every_seat(rules, every_seat_moves):
    from blokuszero.games.ggp import GgpGame

    game = GgpGame.from_file(GGP_RULES / f"{rules}.kif")
    a, b = Listener(1), Listener(2)
    played = play(game, game.new_initial_state(), [a, b], every_seat_moves=every_seat_moves)
    assert played.state.is_terminal() and played.moves and not played.actions
    assert all(mover == SIMULTANEOUS and len(texts) == 2 for mover, texts in played.moves)
    assert a.joints == b.joints and len(a.joints) == len(played.moves) and not a.told
    assert played.chosen_by_seat == [len(played.moves)] * 2  # every seat is asked at every state
