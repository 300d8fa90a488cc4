"""The conformance check every game passes (OpenSpiel's ``random_sim_test`` in spirit)."""

from __future__ import annotations

import numpy as np

from .base import CHANCE, SIMULTANEOUS, TERMINAL, Game, State


def _fail(msg: str) -> None:
    raise AssertionError(msg)


def _snapshot(state: State) -> tuple:
    return (state.key(), state.current_player(), state.legal_actions().tobytes(),
            state.returns().tobytes())


def _check_actions(game: Game, state: State, legal: np.ndarray, rng: np.random.Generator,
                   max_strings: int) -> None:
    if len(legal) == 0:
        _fail(f"{game.name}: no legal action before the end of the game")
    if np.any(np.diff(legal) <= 0):
        _fail(f"{game.name}: legal_actions() is not sorted and unique")
    if legal[0] < 0 or legal[-1] >= game.num_actions:
        _fail(f"{game.name}: legal action out of [0, {game.num_actions})")
    for a in rng.choice(legal, size=min(max_strings, len(legal)), replace=False):
        text = state.action_to_string(int(a))
        if state.string_to_action(text) != a:
            _fail(f"{game.name}: action {a} -> {text!r} does not read back")


def _joint_legal(state: State, num_players: int) -> list[np.ndarray]:
    return [state.legal_actions(p) for p in range(num_players)]


def _check_information(game: Game, state: State, rng: np.random.Generator) -> None:
    """Each player's determinizations: consistent with what the player knows (equal
    information-state key, own private information included), the same player to move,
    reproducible from a seed, and the original untouched."""
    before = (state.key(), state.current_player(), state.returns().tobytes())
    for p in range(game.num_players):
        seed = int(rng.integers(2**31))
        sample = state.sample_determinization(p, np.random.default_rng(seed))
        again = state.sample_determinization(p, np.random.default_rng(seed))
        if sample.key() != again.key():
            _fail(f"{game.name}: player {p}'s determinization is not reproducible from a seed")
        if sample.information_state_key(p) != state.information_state_key(p):
            _fail(f"{game.name}: a determinization for player {p} contradicts what {p} knows")
        if sample.current_player() != state.current_player():
            _fail(f"{game.name}: a determinization for player {p} changed the player to move")
        if state.current_player() == p and not np.array_equal(sample.legal_actions(),
                                                             state.legal_actions()):
            _fail(f"{game.name}: a determinization changed player {p}'s own legal actions")
        if (state.key(), state.current_player(), state.returns().tobytes()) != before:
            _fail(f"{game.name}: sampling a determinization changed the state")


def _check_state(game: Game, state: State, rng: np.random.Generator, max_strings: int) -> None:
    _check_information(game, state, rng)
    player = state.current_player()
    if player == SIMULTANEOUS:
        for legal in _joint_legal(state, game.num_players):
            _check_actions(game, state, legal, rng, max_strings)
        return
    if player == CHANCE:
        outcomes, probs = state.chance_outcomes()
        _check_actions(game, state, np.asarray(outcomes), rng, max_strings)
        if len(probs) != len(outcomes) or np.any(np.asarray(probs) < 0) or not np.isclose(
                np.sum(probs), 1.0):
            _fail(f"{game.name}: chance_outcomes() probabilities do not form a distribution")
        return
    if not 0 <= player < game.num_players:
        _fail(f"current_player() = {player} is not a player of {game.name}")
    legal = state.legal_actions()
    _check_actions(game, state, legal, rng, max_strings)
    # An illegal action raises ValueError and leaves the state as it was.
    illegal = np.setdiff1d(np.arange(game.num_actions), legal)
    if len(illegal):
        before = _snapshot(state)
        try:
            state.apply_action(int(rng.choice(illegal)))
        except ValueError:
            pass
        else:
            _fail(f"{game.name}: an illegal action was accepted")
        if _snapshot(state) != before:
            _fail(f"{game.name}: a rejected action changed the state")
    # A clone is independent of its original.
    before = _snapshot(state)
    copy = state.clone()
    if _snapshot(copy) != before:
        _fail(f"{game.name}: clone() differs from the original")
    copy.apply_action(int(legal[0]))
    if _snapshot(state) != before:
        _fail(f"{game.name}: playing on a clone changed the original")


def random_step(state: State, num_players: int, rng: np.random.Generator) -> int | tuple[int, ...]:
    """Play one random step: a uniform action, a uniform joint action at a SIMULTANEOUS node,
    or an outcome drawn by its probability at a CHANCE node. Returns what was played."""
    player = state.current_player()
    if player == SIMULTANEOUS:
        joint = tuple(int(rng.choice(legal)) for legal in _joint_legal(state, num_players))
        state.apply_joint_action(joint)
        return joint
    if player == CHANCE:
        outcomes, probs = state.chance_outcomes()
        a = int(rng.choice(outcomes, p=probs))
    else:
        a = int(rng.choice(state.legal_actions()))
    state.apply_action(a)
    return a


def random_game(game: Game, seed: int, *, checks: bool = True,
                max_strings: int = 20) -> list[int | tuple[int, ...]]:
    """Play one random game, checking every position; return its actions (joint ones as tuples)."""
    rng = np.random.default_rng(seed)
    check_rng = np.random.default_rng([seed, 1])  # checks must not change the game played
    state = game.new_initial_state(rng)
    actions: list[int | tuple[int, ...]] = []
    while not state.is_terminal():
        if checks:
            _check_state(game, state, check_rng, max_strings)
        actions.append(random_step(state, game.num_players, rng))
        if len(actions) > game.max_game_length:
            _fail(f"{game.name}: longer than max_game_length = {game.max_game_length}")
    if state.current_player() != TERMINAL or len(state.legal_actions()) != 0:
        _fail(f"{game.name}: a terminal state still has a player to move or legal actions")
    returns = state.returns()
    if len(returns) != game.num_players or not np.all(np.isfinite(returns)):
        _fail(f"{game.name}: returns() = {returns} is not one finite value per player")
    if np.any(returns < game.min_utility) or np.any(returns > game.max_utility):
        _fail(f"{game.name}: returns() = {returns} outside [{game.min_utility}, "
              f"{game.max_utility}]")
    return actions


def random_positions(game: Game, seed: int) -> list[State]:
    """Every position of one uniformly random game, the final one included."""
    rng = np.random.default_rng(seed)
    state = game.new_initial_state(rng)
    positions = [state.clone()]
    while not state.is_terminal():
        random_step(state, game.num_players, rng)
        positions.append(state.clone())
    return positions


def check_game(game: Game, num_games: int = 10, seed: int = 0, *, max_strings: int = 20) -> None:
    """Random playouts through ``game`` asserting the interface's promises.

    Checks at every position: a valid player to move, sorted unique in-range legal actions
    (non-empty until the end), action strings that read back, illegal actions rejected with
    ValueError and no change, clones independent of their original, and each player's
    determinizations (consistent with what the player knows, seeded, the original
    untouched); at the end: returns with one finite value per player within the utility
    range, length within ``max_game_length``; and that the same seed plays the same game.
    Raises AssertionError saying what failed.
    """
    for g in range(num_games):
        first = random_game(game, seed + g, max_strings=max_strings)
        if random_game(game, seed + g, checks=False) != first:
            _fail(f"{game.name}: seed {seed + g} did not replay the same game")
