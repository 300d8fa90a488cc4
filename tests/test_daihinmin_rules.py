"""Daihinmin rules: the action space, the interface, hidden information and single rules."""

from __future__ import annotations

import numpy as np
import pytest

from blokuszero.games.base import CHANCE
from blokuszero.games.daihinmin import DaihinminGame, DaihinminState, Rules
from blokuszero.games.daihinmin import actions as A
from blokuszero.games.daihinmin import rules as K
from blokuszero.games.daihinmin.cards import JOKER, card_index, hand_of, parse_cells
from blokuszero.games.daihinmin.game import submission
from blokuszero.games.daihinmin.tables import action_to_table, analyze, table_to_action
from blokuszero.games.numba_random import seed_numba


def test_action_space_is_pinned():
    # pass, 52 singles, lone joker, 13 x (11 + 28 + 1) groups, 4 x (66 + 442) sequences,
    # C(53, 2) + 53 gifts, 5! chance outcomes.
    assert (A.GIVE2_BASE, A.GIVE1_BASE, A.CHANCE_BASE, A.NUM_ACTIONS) == (2606, 3984, 4037, 4157)
    assert A.LONE_JOKER == 53
    assert DaihinminGame().num_actions == 4157
    s = DaihinminGame().new_initial_state(0)
    assert s.action_to_string(1) == "S3" and s.action_to_string(52) == "C2"
    assert s.action_to_string(A.LONE_JOKER) == "Kx"
    assert s.action_to_string(int(A.GROUP_ID[6, 0b0101])) == "S8D8"
    assert s.action_to_string(int(A.FIVE_ID[1])) == "S3H3D3C3J3"
    assert s.action_to_string(int(A.JSEQ_ID[0, 7, 5, 10])) == "S9STSJKQSK"
    assert s.action_to_string(int(A.JSEQ_ID[1, 0, 3, 0])) == "LxH3H4"


def test_every_play_table_reads_back():
    for a in range(A.NUM_PLAY_ACTIONS):
        table = action_to_table(a)
        info = analyze(table)
        assert not info.error
        assert table_to_action(table) == a
        assert (info.kind, info.count) == (A.A_TYPE[a], A.A_COUNT[a])


def _state(hands: dict[int, str], *, revolution=0) -> DaihinminState:
    """Player 0 to move with the given hands; the other cards to player 4."""
    cards = [hand_of(_cards(hands.get(p, ""))) for p in range(5)]
    rest = ((1 << 53) - 1) & ~np.bitwise_or.reduce(cards)
    cards[4] |= int(rest)
    state = DaihinminState.from_deal(DaihinminGame(), cards, [0, 1, 2, 3, 4], None)
    state.s[K.S_PLAYER] = 0
    state.s[K.S_REVOLUTION] = revolution
    return state


def _cards(text: str) -> list[int]:
    table = parse_cells(text)
    out = [card_index(r, c) for r, c in zip(*np.nonzero(table[:4] == 1))]
    return out + ([JOKER] if (table == 2).any() else [])


def _play(state: DaihinminState, text: str) -> None:
    state.apply_action(state.string_to_action(text))


def test_eight_cut_keeps_the_lead_and_revolution_toggles():
    state = _state({0: "S8H8D8C8S5", 1: "S9", 2: "S6", 3: "S7"})
    _play(state, "S8H8D8C8")
    assert state.s[K.S_REVOLUTION] == 1 and state.s[K.S_FIELD] == -1
    assert state.current_player() == 0


def test_suit_lock_after_two_plays_of_the_same_suits():
    state = _state({0: "S4S9", 1: "S5H6S6", 2: "S7H8", 3: "DA"})
    _play(state, "S4")
    _play(state, "S5")
    assert state.s[K.S_LOCK] == 1
    legal = {state.action_to_string(a) for a in state.legal_actions()}
    assert legal == {"PASS", "S7"}  # H8 is higher but locked out
    with pytest.raises(ValueError, match="locked"):
        _play(state, "H8")


def test_lone_joker_and_the_spade_three():
    state = _state({0: "S4S9", 1: "J3H9", 2: "S3H5", 3: "DA"})
    _play(state, "S4")
    _play(state, "Kx")
    assert [state.action_to_string(a) for a in state.legal_actions()] == ["PASS", "S3"]
    before = state.s.copy()
    with pytest.raises(ValueError, match="spade 3"):
        _play(state, "H5")
    assert np.array_equal(before, state.s)
    _play(state, "S3")
    assert state.s[K.S_FIELD] == -1 and state.current_player() == 2


def test_rejected_submission_is_a_pass():
    state = _state({0: "S4S9", 1: "S5H6", 2: "S7H8", 3: "DA"})
    _play(state, "S9")
    table = parse_cells("S5")  # lower than the field
    assert submission(state, table) == (A.PASS, False)
    assert submission(state, np.zeros((8, 15), np.int64)) == (A.PASS, False)


def test_field_clears_when_the_others_pass_and_the_last_player_leads():
    state = _state({0: "S4S9", 1: "S5H6", 2: "S7H8", 3: "DA"})
    _play(state, "S4")
    for _ in range(4):
        _play(state, "PASS")
    assert state.s[K.S_FIELD] == -1 and state.current_player() == 0


def test_determinization_keeps_counts_and_own_cards():
    game = DaihinminGame()
    rng = np.random.default_rng(3)
    state = game.new_initial_state(7)
    while state.current_player() in (int(K.player_of_rank(state.s, 0)),
                                     int(K.player_of_rank(state.s, 1))) and \
            state.s[K.S_PHASE] != K.P_PLAY:
        state.apply_action(int(state.legal_actions()[0]))
    for _ in range(20):
        state.apply_action(int(rng.choice(state.legal_actions())))
    player = state.current_player()
    counts = [bin(state.hand(p)).count("1") for p in range(5)]
    known = state.known_cards(player)
    a = state.sample_determinization(player, np.random.default_rng(11))
    b = state.sample_determinization(player, np.random.default_rng(11))
    assert np.array_equal(a.s, b.s)  # seeded
    assert a.hand(player) == state.hand(player)
    assert [bin(a.hand(p)).count("1") for p in range(5)] == counts
    assert all(a.hand(p) & int(known[p]) == int(known[p]) for p in range(5))
    assert np.bitwise_or.reduce([a.hand(p) for p in range(5)]) | int(a.s[K.S_PLAYED]) == (
        1 << 53) - 1
    assert a.information_state_key(player) == state.information_state_key(player)
    keys = {state.sample_determinization(player, np.random.default_rng(k)).key()
            for k in range(5)}
    assert len(keys) > 1


def test_daifugo_knows_what_it_gave():
    state = DaihinminGame().new_initial_state(5)
    daifugo = int(K.player_of_rank(state.s, 0))
    daihinmin = int(K.player_of_rank(state.s, 4))
    gift = int(state.legal_actions()[0])
    state.apply_action(gift)
    det = state.sample_determinization(daifugo, np.random.default_rng(0))
    given = int(A.A_CARDS[gift])
    assert det.hand(daihinmin) & given == given


def test_stall_goes_to_a_chance_node():
    state = _state({0: "S4", 1: "S5", 2: "S7", 3: "DA"})
    while state.current_player() != CHANCE:
        _play(state, "PASS")
    outcomes, probs = state.chance_outcomes()
    assert len(outcomes) == 120 and np.isclose(probs.sum(), 1)
    state.apply_action(int(outcomes[0]))
    assert state.is_terminal()


def test_rule_switches():
    state = DaihinminState.from_deal(DaihinminGame(Rules(sequences=False)),
                                     _state({0: "S3S4S5"}).dealt, [0, 1, 2, 3, 4], None)
    state.s[K.S_PLAYER] = 0
    assert "S3S4S5" not in {state.action_to_string(a) for a in state.legal_actions()}


def test_determinizations_over_random_games():
    from blokuszero.games.testing import random_positions

    game = DaihinminGame()
    for seed in range(3):
        for state in random_positions(game, seed)[::7]:
            if state.is_terminal():
                continue
            for player in range(5):
                det = state.sample_determinization(player, np.random.default_rng(seed))
                counts = [bin(state.hand(p)).count("1") for p in range(5)]
                assert [bin(det.hand(p)).count("1") for p in range(5)] == counts
                assert det.hand(player) == state.hand(player)
                known = state.known_cards(player)
                assert all(det.hand(p) & int(known[p]) == int(known[p]) for p in range(5))
                forbidden = state.forbidden_cards(player)
                assert all(det.hand(p) & int(forbidden[p]) == 0 for p in range(5))
                assert det.information_state_key(player) == state.information_state_key(player)
                if player == state.current_player():  # own moves do not depend on hidden cards
                    assert np.array_equal(det.legal_actions(), state.legal_actions())


def test_exchange_gifts_are_checked():
    state = DaihinminGame().new_initial_state(2)
    fugo_gift = int(A.GIVE1_BASE)
    with pytest.raises(ValueError, match="gives 2 card"):
        state.apply_action(fugo_gift)
    daifugo = int(K.player_of_rank(state.s, 0))
    missing = next(c for c in range(53) if not state.hand(daifugo) >> c & 1)
    held = next(c for c in range(53) if state.hand(daifugo) >> c & 1)
    with pytest.raises(ValueError, match="not in the giver's hand"):
        state.apply_action(A.give_action(1 << missing | 1 << held))
    assert state.current_player() == daifugo


def test_fast_playout_ends_the_game_with_legal_moves():
    state = DaihinminGame().new_initial_state(9)
    replay = state.clone()
    seed_numba(4)
    players, actions = state.playout()
    assert state.is_terminal() and sorted(state.returns()) == [-1, -0.5, 0, 0.5, 1]
    for p, a in zip(players, actions):
        assert replay.current_player() == p
        replay.apply_action(int(a))
    assert np.array_equal(replay.s, state.s)


def _server_accepts(state: DaihinminState, table: np.ndarray) -> bool:
    """The official server's checks written out literally on the table analyses (inclusion,
    analysis, comparison, suit lock, lone joker): an oracle independent of move generation."""
    s = state.s
    hand = state.hand(int(s[K.S_PLAYER]))
    sub = analyze(table)
    cells = table[:5]
    held = all(hand >> card_index(int(r), int(c)) & 1 for r, c in np.argwhere(cells == 1))
    error = sub.error or not held or ((cells == 2).any() and not hand >> JOKER & 1)
    if s[K.S_FIELD] >= 0:
        stage = analyze(action_to_table(int(s[K.S_FIELD])))
        rev = int(s[K.S_REVOLUTION])
        if stage.count != sub.count:
            error = True
        elif not (sub.kind == A.T_LONE_JOKER and stage.kind == A.T_SINGLE):
            if stage.kind != sub.kind:
                error = True
            elif stage.kind == A.T_GROUP:
                error |= (sub.value - stage.value >= 0) if rev else (sub.value - stage.value <= 0)
            else:
                error |= (sub.value - stage.value + stage.count - 1 >= 0) if rev else (
                    sub.value - stage.value - stage.count + 1 <= 0)
        if not error and sub.kind != A.T_LONE_JOKER and s[K.S_LOCK] and sub.suit != stage.suit:
            error = True
    if s[K.S_JOKER_ALONE]:
        return (sub.value, sub.count, sub.suit) == (1, 1, 1) and bool(hand & 1)
    return not error


def test_move_generation_matches_the_servers_checks():
    from blokuszero.games.testing import random_positions

    checked = 0
    seen = set()  # which special situations the random games reached
    for seed in range(12):
        for position in random_positions(DaihinminGame(), seed):
            if position.s[K.S_PHASE] != K.P_PLAY:
                continue
            for revolution in (0, 1):  # random games seldom revolt: check both directions
                state = position.clone()
                state.s[K.S_REVOLUTION] = revolution
                seen |= {k for k in (K.S_REVOLUTION, K.S_LOCK, K.S_JOKER_ALONE) if state.s[k]}
                hand = state.hand(state.current_player())
                legal = set(state.legal_actions().tolist())
                held = np.flatnonzero((A.A_CARDS[1:A.NUM_PLAY_ACTIONS] & ~hand) == 0) + 1
                for a in held:
                    assert _server_accepts(state, action_to_table(int(a))) == (a in legal), (
                        state.action_to_string(int(a)), str(state))
                    checked += 1
                assert legal - set(held.tolist()) == {A.PASS}
    assert checked > 10_000
    assert seen == {K.S_REVOLUTION, K.S_LOCK, K.S_JOKER_ALONE}
