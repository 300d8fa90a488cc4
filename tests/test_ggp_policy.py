"""The softmax playout policy over (move, pair of true propositions) features of GDL games, and
Apprenticeship Learning / policy-gradient Simulation Balancing on it (SPEC §6)."""

from __future__ import annotations

import json

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


def _enumerate(policy, state, role=0, use_phi=False):
    """Exact E[z] and E[z sum_t x] under pi, and every playout as (probability, z, choices,
    steps, sum_t x) (dense), x = psi or, with ``use_phi``, phi, summed over the choices."""
    size = policy.size
    if state.is_terminal():
        z = state.returns()[role] / 50.0 - 1.0
        return z, np.zeros(size), [(1.0, z, 0, 0, np.zeros(size))]
    moves, probs = policy.probabilities(state)
    paths = []
    for a, p in zip(moves, probs):
        child = state.clone()
        child.apply_action(int(a))
        x = np.zeros(size)
        if len(moves) > 1 and use_phi:
            x[policy.features(state, int(a))] = 1.0
        elif len(moves) > 1:
            idx, vals = policy.log_gradient(state, int(a))
            x[idx] = vals
        for q, z, t, n, s in _enumerate(policy, child, role, use_phi)[2]:
            paths.append((p * q, z, t + (len(moves) > 1), n + 1, s + x))
    ez = sum(q * z for q, z, _, _, _ in paths)
    ezs = sum(q * z * s for q, z, _, _, s in paths)
    return ez, ezs, paths


def _kernel_mean(policy, state, seed, **variant):
    seed_numba(seed)
    idx, g, z = policy.outcome_gradient(state, 40_000, **variant)
    got = np.zeros(policy.size)
    got[idx] = g
    return got, z


def test_sb_gradient_is_the_gradient_of_the_mean_outcome():
    game = ttt()
    policy = random_policy(game, 7)
    # four empty cells, o to move: o, x, o choose; the game may end early
    state = sb.replay(game, [0, 4, 8, 2, 6])
    assert len(state.legal_actions()) == 4
    ez, ezs, paths = _enumerate(policy, state)
    ts = {n for _, _, _, n, _ in paths}
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
    # The kernel's estimate converges to E[z / T sum psi], T the steps (its expectation,
    # exactly computed).
    expect = sum(q * z / n * s for q, z, _, n, s in paths if n > 0)
    got, z = _kernel_mean(policy, state, 11)
    assert z.mean() == pytest.approx(ez, abs=0.02)
    assert np.abs(got - expect).max() < 0.01 and np.abs(expect).max() > 0.03


def test_sb_length_choices_divides_by_the_choices_and_changes_nothing_else():
    """Two empty cells, o to move and unable to win: o's choice, then x's forced last mark, so
    T is 1 choice but 2 steps; with ``per_step=False`` E[g] = grad E[z] / 1, else / 2."""
    game = ttt()
    policy = random_policy(game, 8)
    state = sb.replay(game, [0, 1, 2, 3, 4, 6, 5])
    ez, ezs, paths = _enumerate(policy, state)
    assert {t for _, _, t, _, _ in paths} == {1} and {n for _, _, _, n, _ in paths} == {2}
    by_steps = sum(q * z / n * s for q, z, _, n, s in paths)
    assert np.abs(by_steps - ezs).max() > 0.01  # the two readings differ here
    choices, z1 = _kernel_mean(policy, state, 12, per_step=False)
    steps, z2 = _kernel_mean(policy, state, 12)
    assert np.abs(choices - ezs).max() < 0.02 and np.abs(steps - by_steps).max() < 0.02
    assert np.array_equal(z1, z2)  # the same playouts: only the weighting differs


def test_sb_gradient_phi_sums_the_features_as_printed():
    """``use_phi`` makes g the mean of z / T sum_t phi(s_t, a_t) over the choices; the playouts
    are the same."""
    game = ttt()
    policy = random_policy(game, 9)
    state = sb.replay(game, [0, 4, 8, 2, 6])
    _, _, paths = _enumerate(policy, state, use_phi=True)
    expect = sum(q * z / n * s for q, z, _, n, s in paths if n > 0)
    phi, z1 = _kernel_mean(policy, state, 13, use_phi=True)
    psi, z2 = _kernel_mean(policy, state, 13)
    assert np.array_equal(z1, z2)
    assert np.abs(phi - expect).max() < 0.01 and np.abs(phi - psi).max() > 0.05


@pytest.mark.parametrize("field,value", [("method", "td"), ("gradient", "grad"),
                                         ("length", "moves")])
def test_unknown_variants_are_refused_in_one_line(field, value):
    with pytest.raises(ValueError, match=f"^unknown {field} '{value}'; known: [^\\n]*$"):
        sb.TrainSettings(**{"method": "sb", field: value})


@pytest.mark.parametrize("flag", ["--sb-gradient", "--sb-length", "--test-draw", "--methods",
                                  "--stages"])
def test_the_script_refuses_an_unknown_variant_in_one_line(flag, tmp_path):
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    run = subprocess.run([sys.executable, str(root / "scripts" / "ggp_policy_learning.py"),
                          flag, "bogus", "--out", str(tmp_path)], capture_output=True, text=True)
    assert run.returncode != 0 and "unknown" in run.stderr and "'bogus'" in run.stderr
    assert len(run.stderr.strip().splitlines()) == 1, run.stderr


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


def test_label_cache_serves_a_prefix_and_grows(tmp_path, monkeypatch):
    """States are drawn in sequence and labelled by number: the first n of a bigger cache are
    the cache of n, and a smaller cache is extended, not remade."""
    game = ttt()
    base = sb.LabelSettings(game="tictactoe", digest="x", states=5, seed=3, simulations=30)
    five = sb.load_or_label(game, tmp_path / "a.npz", base)
    three = sb.load_or_label(game, tmp_path / "b.npz", sb.LabelSettings(**{**base.__dict__,
                                                                           "states": 3}))
    labelled = []
    real = sb.label_states
    monkeypatch.setattr(sb, "label_states",
                        lambda g, p, s, first=0: labelled.append(first) or real(g, p, s, first))
    grown = sb.load_or_label(game, tmp_path / "b.npz", base)  # 3 of 5 cached: 2 more
    assert labelled == [3]
    prefix = sb.load_or_label(game, tmp_path / "a.npz", sb.LabelSettings(**{**base.__dict__,
                                                                            "states": 2}))
    assert labelled == [3] and len(prefix.paths) == 2
    for a, b in [(grown, five), (prefix, three)]:
        n = len(a.paths)
        assert all(np.array_equal(x, y) for x, y in zip(a.paths, b.paths[:n]))
        np.testing.assert_array_equal(a.value, b.value[:n])
    other = sb.load_or_label(game, tmp_path / "c.npz", sb.LabelSettings(**{**base.__dict__,
                                                                           "draw": 1}))
    assert any(not np.array_equal(x, y) for x, y in zip(other.paths, five.paths))


def test_the_sb_variants_leave_al_alone_and_change_sb():
    game = ttt()
    train, test = _data(game, 8, 3), _data(game, 3, 4)

    def run(method, **variant):
        policy = TrainableSoftmaxPolicy(game)
        settings = sb.TrainSettings(method, epochs=1, M=10, N=10, test_sims=10, seed=5,
                                    alpha=0.1, **variant)
        return sb.train(policy, settings, train, test, game), policy.theta.copy()

    al = run("al")
    assert all(np.array_equal(al[1], run("al", **v)[1])
               for v in ({"gradient": "phi"}, {"length": "choices"}))
    psi = run("sb")[1]
    for v in ({"gradient": "phi"}, {"length": "choices"}):
        assert not np.allclose(psi, run("sb", **v)[1])


def test_every_match_game_replays_from_its_recorded_seeds():
    from blokuszero.experiments.ggp_policy_learning import play_game, play_match

    game = ttt()
    specs = {"ur": {"preset": "ggp_uct", "simulations": 20}}
    (w, d, lo), games = play_match(game, specs, "ur", "ur", 2, seed=3)
    assert w + d + lo == 2 and len(games) == 2
    for g in games:
        assert play_game(game, specs, g["seats"], g["seeds"]) == g
    assert games[0]["seeds"] != games[1]["seeds"]


@pytest.mark.parametrize("draw", ["independent", "disjoint"])
def test_the_test_draw_names_where_the_test_states_come_from(draw, tmp_path):
    import json

    from blokuszero.experiments.ggp_policy_learning import main

    main(["--train", "30", "--test", "20", "--simulations", "10", "--epochs", "1", "--M", "2",
          "--N", "2", "--test-sims", "2", "--methods", "sb", "--stages", "labels",
          "--test-draw", draw, "--out", str(tmp_path)])
    results = json.loads((tmp_path / "results.json").read_text())
    assert results["test_draw"] == draw
    assert (tmp_path / "labels_test.npz").exists() == (draw == "independent")
    if draw == "disjoint":
        assert results["test_in_training"] == 0
    else:  # a second draw by the same method meets the commonest states again
        assert results["test_in_training"] > 0


def test_labels_with_no_simulations_are_the_exact_minimax_values():
    game = ttt()
    settings = sb.LabelSettings(game="tictactoe", digest="x", states=2, seed=0, simulations=0)
    paths = [np.array(O_WINS_NEXT), np.array([4, 0]), np.array([4, 1])]
    value, best = sb.label_states(game, paths, sb.LabelSettings(**{**settings.__dict__,
                                                                   "states": 3}))
    assert value[0] == -1.0 and best[0] == 5  # o wins at once: -1 for x
    assert value[1] == 0.0 and value[2] == 1.0  # x centre: o's corner draws, o's edge loses


def test_the_report_lists_each_compared_run_with_its_command(tmp_path):
    from blokuszero.experiments.ggp_policy_learning import compare_rows

    history = [{"mse_mean": m, "train_mse_mean": t} for m, t in [(0.4, 0.38), (0.3, 0.2), (0.25, 0.1)]]
    run = tmp_path / "exact1000"
    run.mkdir()
    (run / "results.json").write_text(json.dumps({
        "history": {"sb": history}, "label_simulations": 0, "train_states": 1000, "test_states": 100,
        "test_draw": "disjoint", "sb_gradient": "psi", "sb_length": "steps", "test_in_training": 0,
        "train_cpu": {"sb": 36.0}, "commands": {"train": "python x --train 1000"}}))
    lines = compare_rows([str(run)])
    row = next(line for line in lines if line.startswith(f"| `{run}`"))
    assert "1000 (V* exact minimax)" in row and "0.4000 | 0.2500 (2) / 0.2500 | 0.3800 / 0.1000 | 0.0100" in row
    assert f"- `{run}`: `python x --train 1000`" in lines
