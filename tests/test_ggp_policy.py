"""The softmax playout policy over (move, pair of true propositions) features of GDL games, and
Apprenticeship Learning / policy-gradient Simulation Balancing on it (SPEC §6)."""

from __future__ import annotations

import numpy as np
import pytest
from ggp_sheets import sheet_game

from blokuszero.games.ggp.softmax_policy import SoftmaxPolicy
from blokuszero.games.numba_random import seed_numba
from blokuszero.knowledge.ggp.softmax_gradients import TrainableSoftmaxPolicy
from blokuszero.rl import simulation_balancing as sb
from blokuszero.search.rollout_evaluators import PolicyRolloutEvaluator

# tic-tac-toe actions: (mark x y) = 3 (x - 1) + (y - 1), noop = 9
# x: (1 1) (1 2) (3 1); o: (2 1) (2 2); o to move wins with (mark 2 3) = 5
O_WINS_NEXT = [0, 3, 1, 4, 6]


def ttt():
    return sheet_game("tictactoe")


def random_states(game, count, seed):
    rng = np.random.default_rng(seed)
    return [sb.replay(game, p) for p in sb.sample_states(game, count, rng)]


def random_policy(game, seed, scale=0.7, **options):
    policy = TrainableSoftmaxPolicy(game, **options)
    policy.theta[:] = np.random.default_rng(seed).normal(0, scale, policy.size)
    return policy


@pytest.mark.parametrize("name", ["tictactoe", "connectfour"])
def test_probabilities_are_the_softmax_of_active_weights_and_sum_to_one(name):
    game = sheet_game(name)
    policy = random_policy(game, 1)
    for state in random_states(game, 20, 2):
        moves, probs = policy.probabilities(state)
        assert np.array_equal(moves, state.legal_actions())
        assert probs.sum() == pytest.approx(1.0, abs=1e-12) and (probs > 0).all()
        true = len(state.facts())
        scores = []
        for a in moves:
            idx = policy.features(state, a)
            assert len(idx) == true * (true - 1) // 2 and len(np.unique(idx)) == len(idx)
            scores.append(policy.theta[idx].sum())
        ref = np.exp(np.array(scores) - max(scores))
        np.testing.assert_allclose(probs, ref / ref.sum(), rtol=1e-10)


def test_zero_weights_are_uniform_and_feature_counts_are_bounded():
    game = ttt()
    policy = TrainableSoftmaxPolicy(game)
    assert policy.size == 10 * 29 * 28 // 2 and not policy.hashed  # moves x pairs
    _, probs = policy.probabilities(game.new_initial_state())
    np.testing.assert_allclose(probs, 1 / 9)
    small = random_policy(game, 3, max_features=256)
    assert small.hashed and small.size == 256
    for state in random_states(game, 10, 4):
        moves, probs = small.probabilities(state)
        assert probs.sum() == pytest.approx(1.0) and all(
            (0 <= small.features(state, a)).all() and (small.features(state, a) < 256).all()
            for a in moves)
    with pytest.raises(ValueError, match="power of two"):
        TrainableSoftmaxPolicy(game, max_features=1000)


def test_al_gradient_matches_finite_differences_of_log_pi():
    game = ttt()
    policy = random_policy(game, 5)
    eps = 1e-6
    for state in random_states(game, 5, 6):
        moves, _ = policy.probabilities(state)
        a = int(moves[len(moves) // 2])
        idx, psi = policy.log_gradient(state, a)

        def log_pi():
            m, p = policy.probabilities(state)
            return np.log(p[list(m).index(a)])

        # every active feature of every legal move, and one feature nobody uses here
        other = np.setdiff1d(np.arange(policy.size), idx)[:1]
        for i, expect in list(zip(idx, psi)) + [(int(other[0]), 0.0)]:
            keep = policy.theta[i]
            policy.theta[i] = keep + eps
            up = log_pi()
            policy.theta[i] = keep - eps
            down = log_pi()
            policy.theta[i] = keep
            assert (up - down) / (2 * eps) == pytest.approx(expect, abs=1e-6)


def _enumerate(policy, state, role=0):
    """Exact E[z], E[z sum_t psi] and E[z / T sum_t psi] (dense) under pi, and the set of T."""
    size = policy.size
    if state.is_terminal():
        z = state.returns()[role] / 50.0 - 1.0
        return z, np.zeros(size), [(1.0, z, 0, np.zeros(size))]
    moves, probs = policy.probabilities(state)
    paths = []
    for a, p in zip(moves, probs):
        child = state.clone()
        child.apply_action(int(a))
        psi = np.zeros(size)
        if len(moves) > 1:
            idx, vals = policy.log_gradient(state, int(a))
            psi[idx] = vals
        for q, z, t, s in _enumerate(policy, child, role)[2]:
            paths.append((p * q, z, t + (len(moves) > 1), s + psi))
    ez = sum(q * z for q, z, _, _ in paths)
    ezs = sum(q * z * s for q, z, _, s in paths)
    return ez, ezs, paths


def test_sb_gradient_is_the_gradient_of_the_mean_outcome():
    game = ttt()
    policy = random_policy(game, 7)
    # four empty cells, o to move: o, x, o choose; the game may end early
    state = sb.replay(game, [0, 4, 8, 2, 6])
    assert len(state.legal_actions()) == 4
    ez, ezs, paths = _enumerate(policy, state)
    ts = {t for _, _, t, _ in paths}
    assert len(ts) > 1  # T varies here: g's 1/T is Algorithm 1's weighting, not a gradient
    eps = 1e-6
    used = np.flatnonzero(ezs)
    assert len(used) > 50
    for i in used[:: max(1, len(used) // 20)]:
        keep = policy.theta[i]
        policy.theta[i] = keep + eps
        up = _enumerate(policy, state)[0]
        policy.theta[i] = keep - eps
        down = _enumerate(policy, state)[0]
        policy.theta[i] = keep
        assert (up - down) / (2 * eps) == pytest.approx(ezs[i], abs=1e-6)
    # The kernel's estimate converges to E[z / T sum psi] (its expectation, exactly computed).
    expect = sum(q * z / t * s for q, z, t, s in paths if t > 0)
    seed_numba(11)
    idx, g, z = policy.outcome_gradient(state, 40_000)
    got = np.zeros(policy.size)
    got[idx] = g
    assert z.mean() == pytest.approx(ez, abs=0.02)
    assert np.abs(got - expect).max() < 0.01 and np.abs(expect).max() > 0.03


def test_sb_gradient_over_constant_length_equals_the_gradient_over_t():
    """Where every playout makes the same number T of choices, E[g] = grad E[z] / T."""
    game = ttt()
    policy = random_policy(game, 8)
    state = sb.replay(game, [0, 1, 2, 3, 4, 6, 5])  # two empty cells, o to move: T = 1
    ez, ezs, paths = _enumerate(policy, state)
    assert {t for _, _, t, _ in paths} == {1} and np.abs(ezs).max() > 0.02
    seed_numba(12)
    idx, g, _ = policy.outcome_gradient(state, 40_000)
    got = np.zeros(policy.size)
    got[idx] = g
    assert np.abs(got - ezs).max() < 0.02


def test_outcomes_are_the_reference_roles_goal_on_minus_one_to_one():
    game = ttt()
    policy = TrainableSoftmaxPolicy(game)
    state = sb.replay(game, O_WINS_NEXT)
    z = policy.outcomes(state, 200)
    assert set(np.unique(z)) <= {-1.0, 0.0, 1.0} and (z == -1).any()
    z1 = policy.outcomes(state, 200, role=1)
    assert (z1 == 1).any()


def test_labels_put_v_star_on_the_reference_role_and_a_star_on_the_winning_move(tmp_path):
    game = ttt()
    settings = sb.LabelSettings(game="tictactoe", digest="x", states=3, seed=0, simulations=2000)
    value, best = sb.label_states(game, [np.array(O_WINS_NEXT)], settings)
    assert best[0] == 5 and value[0] < -0.8


def test_label_cache_is_reused_and_remade_for_other_settings(tmp_path, monkeypatch):
    game = ttt()
    settings = sb.LabelSettings(game="tictactoe", digest="x", states=4, seed=1, simulations=50)
    path = tmp_path / "labels.npz"
    made = sb.load_or_label(game, path, settings, chunk=3)
    assert len(made.paths) == 4 and len({sb.replay(game, p).key() for p in made.paths}) == 4
    assert (np.abs(made.value) <= 1).all()
    for p, a in zip(made.paths, made.best):
        assert a in sb.replay(game, p).legal_actions()

    def fail(*args, **kwargs):
        raise AssertionError("labelled again")

    monkeypatch.setattr(sb, "label_states", fail)
    again = sb.load_or_label(game, path, settings)
    assert all(np.array_equal(a, b) for a, b in zip(again.paths, made.paths))
    np.testing.assert_array_equal(again.value, made.value)
    with pytest.raises(AssertionError, match="labelled again"):
        sb.load_or_label(game, path, sb.LabelSettings(**{**settings.__dict__, "simulations": 60}))


def test_labels_do_not_depend_on_the_number_of_workers(tmp_path):
    game = ttt()
    settings = sb.LabelSettings(game="tictactoe", digest="x", states=5, seed=2, simulations=40)
    one = sb.load_or_label(game, tmp_path / "one.npz", settings, chunk=2)
    two = sb.load_or_label(game, tmp_path / "two.npz", settings, chunk=2, workers=2)
    np.testing.assert_array_equal(one.value, two.value)
    np.testing.assert_array_equal(one.best, two.best)


def _data(game, count, seed):
    settings = sb.LabelSettings(game="tictactoe", digest="x", states=count, seed=seed,
                                simulations=1)
    paths = sb.sample_states(game, count, np.random.default_rng(seed))
    rng = np.random.default_rng(seed + 1)
    best = np.array([rng.choice(sb.replay(game, p).legal_actions()) for p in paths])
    return sb.LabelledStates(paths, rng.uniform(-1, 1, count), best, settings)


@pytest.mark.parametrize("method", ["al", "sb"])
def test_seeded_runs_repeat_exactly_and_resume_where_they_stopped(method, tmp_path):
    game = ttt()
    train, test = _data(game, 12, 3), _data(game, 4, 4)
    settings = sb.TrainSettings(method, epochs=2, M=10, N=10, test_sims=10, seed=5, alpha=0.1)
    runs = []
    for _ in range(2):
        policy = TrainableSoftmaxPolicy(game)
        runs.append((sb.train(policy, settings, train, test, game), policy.theta.copy()))
    assert runs[0][0] == runs[1][0] and np.array_equal(runs[0][1], runs[1][1])
    assert np.abs(runs[0][1]).max() > 0 and [r["epoch"] for r in runs[0][0]] == [0, 1, 2]
    # One epoch, stop, resume from the checkpoint for the second: the same run.
    ckpt = tmp_path / "run.npz"
    sb.train(TrainableSoftmaxPolicy(game), sb.TrainSettings(**{**settings.__dict__, "epochs": 1}),
             train, test, game, ckpt)
    policy = TrainableSoftmaxPolicy(game)
    history = sb.train(policy, settings, train, test, game, ckpt)
    assert history == runs[0][0] and np.array_equal(policy.theta, runs[0][1])
    other = sb.TrainSettings(**{**settings.__dict__, "seed": 6})
    assert sb.train(TrainableSoftmaxPolicy(game), other, train, test, game, ckpt) != history


def test_sb_moves_the_mean_outcome_towards_v_star():
    game = ttt()
    policy = TrainableSoftmaxPolicy(game)
    state = sb.replay(game, [4, 0])  # x to move, x is ahead: V under uniform play > 0
    seed_numba(2)
    before = policy.outcomes(state, 4000).mean()
    for _ in range(30):
        sb.sb_update(policy, state, -1.0, 0.5, 100, 100)  # pretend V* = -1
    after = policy.outcomes(state, 4000).mean()
    assert after < before - 0.2


def test_learned_policy_plugs_into_uct_and_round_trips_through_a_file(tmp_path):
    from blokuszero.players.factory import make_player

    game = ttt()
    policy = random_policy(game, 9, scale=0.3)
    path = policy.save(tmp_path / "theta.npz")
    loaded = SoftmaxPolicy.load(game, path)
    np.testing.assert_array_equal(loaded.theta, policy.theta)
    with pytest.raises(ValueError, match="do not fit"):
        SoftmaxPolicy.load(sheet_game("connectfour"), path)
    ev = PolicyRolloutEvaluator(game, "softmax", learned=loaded)
    (out,) = ev.evaluate([game.new_initial_state()])
    assert out.value.sum() == pytest.approx(1.0) and len(out.actions) >= 5
    with pytest.raises(ValueError, match="learned"):
        PolicyRolloutEvaluator(game, "softmax")
    player = make_player(game, {"preset": "ggp_uct", "simulations": 50, "playout": "softmax",
                                "policy_file": str(path)}, seed=0)
    state = game.new_initial_state()
    assert player.choose_action(state) in state.legal_actions()
