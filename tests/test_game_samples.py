"""A training run's sample of self-play games (rl/game_samples.py), kept in its game's record
format and opened by the web board; and TensorBoard's picture of a final board (rl/metrics.py)."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest

from blokuszero.engines.blokus.board.records import RecordShelf
from blokuszero.games.blokus.game import BlokusState
from blokuszero.games.go.sgf import read_sgf as read_go_sgf
from blokuszero.games.numba_random import seed_numba
from blokuszero.games.registry import make_encoder
from blokuszero.rl.game_samples import GameSampler
from blokuszero.rl.metrics import PICTURE_PIXELS, board_image


def _blokus_games(count: int) -> list[tuple[np.ndarray, np.ndarray, BlokusState]]:
    seed_numba(5)
    games = []
    for _ in range(count):
        state = BlokusState()
        players, actions = state.playout()
        games.append((players, actions, state))
    return games


def test_every_nth_blokus_game_is_kept_and_the_board_opens_it(tmp_path):
    games = _blokus_games(7)
    sampler = GameSampler(tmp_path / "games", make_encoder("blokus"), every=3, played=1)
    written = sampler.add([(p, a) for p, a, _ in games[:4]], "step 10")
    written += sampler.add([(p, a) for p, a, _ in games[4:]], "step 20")
    assert [w.name for w in written] == ["selfplay_0000003.blksgf", "selfplay_0000006.blksgf"]
    assert sampler.played == 8
    shelf = RecordShelf([tmp_path])
    ids = ["0/games/selfplay_0000003.blksgf", "0/games/selfplay_0000006.blksgf"]
    assert [f["id"] for f in shelf.listing()] == ids
    for file_id, (players, actions, final) in zip(ids, [games[1], games[4]]):
        line = shelf.game(file_id, 0)
        assert line.moves == list(zip(players.tolist(), actions.tolist()))
        assert np.array_equal(line.position(len(line.moves)).board(), final.board())
        assert "self-play game" in line.title


def test_go_games_are_kept_as_go_sgf(tmp_path):
    encoder = make_encoder("go9")
    rng = np.random.default_rng(0)
    state = encoder.game.new_initial_state()
    players, actions = [], []
    while not state.is_terminal() and len(actions) < 60:
        players.append(state.current_player())
        actions.append(int(rng.choice(state.legal_actions())))
        state.apply_action(actions[-1])
    [path] = GameSampler(tmp_path, encoder, every=1).add([(np.array(players), np.array(actions))], "step 1")
    assert path.suffix == ".sgf" and len(read_go_sgf(path.read_text()).moves) == len(actions)


def test_no_games_are_kept_when_switched_off(tmp_path):
    sampler = GameSampler(tmp_path, make_encoder("blokus"), every=0)
    assert sampler.add([(p, a) for p, a, _ in _blokus_games(2)], "step 1") == []
    assert sampler.played == 2 and not any(tmp_path.iterdir())


@pytest.mark.parametrize("game", ["blokus", "go9"])
def test_the_final_board_picture_is_large_with_each_players_colour_and_score_strip(game):
    encoder = make_encoder(game)
    if game == "blokus":
        players, actions, state = _blokus_games(1)[0]
        scores = state.scores()
    else:
        players, actions = np.array([0, 1]), np.array([0, 80])
        scores = np.array([0.0, 6.5])
    picture = board_image(encoder, SimpleNamespace(players=players, actions=actions, scores=scores))
    assert picture.dtype == np.uint8 and picture.shape[0] == 3 and min(picture.shape[1:]) >= PICTURE_PIXELS
    board = encoder.board(encoder.replay(players, actions))
    rows, cols = board.shape
    cell = (picture.shape[2] - 24) // cols  # 12-pixel margins
    pixels = picture.transpose(1, 2, 0)
    colours = [np.array(c) for _, c in encoder.players()]
    # Each square's centre has its player's colour; the strip below the board has every colour.
    for (r, c), owner in np.ndenumerate(board):
        if owner >= 0:
            centre = pixels[12 + r * cell + cell // 2, 12 + c * cell + cell // 2].astype(int)
            assert np.abs(centre - colours[owner]).max() <= 8, (r, c, centre, colours[owner])
    strip = pixels[12 + rows * cell + 12:].reshape(-1, 3).astype(int)
    for colour in colours:
        assert (np.abs(strip - colour).max(axis=1) <= 8).sum() > 100
    # The grid: the line between two squares differs from the squares' centres.
    line = pixels[12 + cell, 12 + cell // 2].astype(int)
    assert np.abs(line - pixels[12 + cell // 2, 12 + cell // 2].astype(int)).max() > 20
