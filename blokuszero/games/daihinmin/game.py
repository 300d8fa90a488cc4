"""Daihinmin (UECda rules) behind the common game interface.

One game of a match: the deal, the card exchange by rank (the strongest cards go up by
themselves; the daifugo then chooses two cards to give, the fugo one), play until four players
are out. Returns are ``(3 - rank) / 2`` (daifugo +1 .. daihinmin -1); :meth:`DaihinminState.points`
gives the match points 5..1. Actions: see :mod:`.actions`; strings in the server's log
notation (``S3D3``, ``S9STSJKQSK``; ``PASS``; a gift ``H2DK``; a chance outcome ``order 13402``).
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

import numpy as np

from ..base import CHANCE, TERMINAL, Game, Seed, State, as_rng
from . import rules as K
from .actions import (
    A_CARDS,
    A_COUNT,
    A_SUIT,
    A_TYPE,
    CHANCE_BASE,
    GIVE1_BASE,
    NUM_ACTIONS,
    NUM_PLAY_ACTIONS,
    PASS,
    PERMUTATIONS,
    T_CHANCE,
    T_GIVE,
    T_LONE_JOKER,
    T_PASS,
    T_SEQUENCE,
    T_SINGLE,
    chance_action,
    give_action,
)
from .cards import (
    FULL_DECK,
    NUM_CARDS,
    card_name,
    cards_of,
    hand_of,
    parse_cells,
    strongest_cards,
    table_cells_to_string,
    table_to_hand,
)
from .determinization import determinize, known_and_forbidden
from .tables import action_to_table, analyze, table_to_action

NUM_PLAYERS = 5
RANK_NAMES = ("daifugo", "fugo", "heimin", "hinmin", "daihinmin")


@dataclass(frozen=True)
class Rules:
    """The official server's rule switches that change one game (UECDA.md §3), all on by
    default as the server ships; the others it has (5-skip, 6-reverse, 11-back) are off there."""

    revolution: bool = True  # RULE_KAKUMEI
    lock: bool = True  # RULE_SHIBARI
    sequences: bool = True  # RULE_KAIDAN
    eight_cut: bool = True  # RULE_8GIRI
    exchange: bool = True  # RULE_CHANGE
    # Not official (off there): the last player to play answers its own play before the field
    # clears, as FujiGokoro's server plays; records written with it say RULE_SELF_FOLLOW YES.
    self_follow: bool = False

    def bits(self) -> int:
        return ((K.R_REVOLUTION if self.revolution else 0) | (K.R_LOCK if self.lock else 0)
                | (K.R_SEQUENCE if self.sequences else 0)
                | (K.R_EIGHT_CUT if self.eight_cut else 0)
                | (K.R_SELF_FOLLOW if self.self_follow else 0))


def deal_order(seats, first_player: int) -> list[int]:
    """Players in dealing order: seat by seat from ``first_player``'s seat (the daifugo, or a
    random player after a rank reset); card ``i`` of the shuffled deck goes to entry ``i % 5``."""
    seats = list(seats)
    start = seats.index(first_player)
    return [seats[(start + i) % 5] for i in range(5)]


class DaihinminGame(Game):
    """One game of Daihinmin for 5 players under the UECda server's rules.

    ``first_game``: the first game after a rank reset (no ranks, no exchange, a random player
    deals first); otherwise random ranks from a previous game and the exchange.
    """

    name = "daihinmin"
    num_players = NUM_PLAYERS
    num_actions = NUM_ACTIONS
    max_game_length = K.MAX_MOVES

    def __init__(self, rules: Rules = Rules(), first_game: bool = False) -> None:
        self.rules = rules
        self.first_game = first_game

    def new_initial_state(self, seed: Seed = None) -> DaihinminState:
        """Random seats, ranks (unless ``first_game``) and a shuffled deal, all from ``seed``."""
        rng = as_rng(seed)
        seats = [int(p) for p in rng.permutation(NUM_PLAYERS)]
        ranks = None if self.first_game else [int(r) for r in rng.permutation(NUM_PLAYERS)]
        first = int(rng.integers(NUM_PLAYERS)) if ranks is None else ranks.index(0)
        deck = rng.permutation(NUM_CARDS)
        order = deal_order(seats, first)
        hands = [hand_of(deck[i::5]) for i in range(5)]
        dealt = [0] * 5
        for i, p in enumerate(order):
            dealt[p] = hands[i]
        return DaihinminState.from_deal(self, dealt, seats, ranks)


class DaihinminState(State):
    """A position: the kernels' state vector (see :mod:`.rules`)."""

    __slots__ = ("game", "s", "_buf", "dealt")

    def __init__(self, game: DaihinminGame, s: np.ndarray, dealt: tuple[int, ...]) -> None:
        self.game = game
        self.s = s
        self._buf = np.empty(K.MAX_LEGAL, np.int64)
        self.dealt = dealt  # hands as dealt, before the exchange

    @classmethod
    def from_deal(cls, game: DaihinminGame, hands, seats, ranks=None) -> DaihinminState:
        """The state after dealing ``hands`` (53-bit sets by player) to players sitting in
        ``seats`` (player per seat); ``ranks`` (rank per player) from the previous game, or
        None after a rank reset. With ranks and the exchange rule, the daihinmin's two and
        the hinmin's one strongest cards move up at once and the daifugo chooses next."""
        hands = [int(h) for h in hands]
        if sum(bin(h).count("1") for h in hands) != NUM_CARDS or np.bitwise_or.reduce(
                hands) != FULL_DECK:
            raise ValueError("a deal gives each of the 53 cards to exactly one player")
        if sorted(seats) != list(range(NUM_PLAYERS)):
            raise ValueError(f"seats {seats} are not an order of the 5 players")
        s = np.zeros(K.S_SIZE, np.int64)
        s[K.S_HAND:K.S_HAND + 5] = hands
        s[K.S_SEAT:K.S_SEAT + 5] = seats
        s[K.S_RANK:K.S_RANK + 5] = -1 if ranks is None else ranks
        s[K.S_ORDER:K.S_ORDER + 5] = -1
        s[K.S_FIELD] = -1
        s[K.S_RULES] = game.rules.bits()
        state = cls(game, s, tuple(hands))
        if ranks is not None and sorted(ranks) != list(range(NUM_PLAYERS)):
            raise ValueError(f"ranks {ranks} are not the ranks 0..4 once each")
        if ranks is not None and game.rules.exchange:
            by_rank = [list(ranks).index(r) for r in range(NUM_PLAYERS)]
            for low, high, n, field in ((4, 0, 2, K.S_TOOK_DAIFUGO), (3, 1, 1, K.S_TOOK_FUGO)):
                cards = strongest_cards(int(s[K.S_HAND + by_rank[low]]), n)
                s[K.S_HAND + by_rank[low]] &= ~cards
                s[K.S_HAND + by_rank[high]] |= cards
                s[field] = cards
            s[K.S_PHASE] = K.P_GIVE_DAIFUGO
        else:
            K.begin_play(s)
        return state

    # --- the common interface ---

    def current_player(self) -> int:
        return int(K.current_player(self.s))

    def legal_actions(self, player: int | None = None) -> np.ndarray:
        if player is not None and player != self.current_player():
            return np.empty(0, np.int64)
        n = K.legal_plays(self.s, self._buf)
        return self._buf[:n].copy()

    def apply_action(self, action: int) -> None:
        action = int(action)
        if not (0 <= action < NUM_ACTIONS and K.is_legal(self.s, action, self._buf)):
            raise ValueError(self.why_illegal(action))
        K.apply(self.s, action)

    def chance_outcomes(self) -> tuple[np.ndarray, np.ndarray]:
        if self.current_player() != CHANCE:
            raise ValueError("not a chance node: the random ranks come after 20 stalled turns")
        outcomes = self.legal_actions()
        return outcomes, np.full(len(outcomes), 1.0 / len(outcomes))

    def clone(self) -> DaihinminState:
        return DaihinminState(self.game, self.s.copy(), self.dealt)

    def returns(self) -> np.ndarray:
        if self.current_player() != TERMINAL:
            return np.zeros(NUM_PLAYERS)
        out = np.zeros(NUM_PLAYERS)
        for rank, p in enumerate(self.s[K.S_ORDER:K.S_ORDER + 5]):
            out[p] = (2 - rank) / 2
        return out

    def points(self) -> np.ndarray:
        """Match points of this game per player (daifugo 5 .. daihinmin 1; zeros before the end)."""
        if self.current_player() != TERMINAL:
            return np.zeros(NUM_PLAYERS, np.int64)
        out = np.zeros(NUM_PLAYERS, np.int64)
        for rank, p in enumerate(self.s[K.S_ORDER:K.S_ORDER + 5]):
            out[p] = 5 - rank
        return out

    def action_to_string(self, action: int) -> str:
        action = int(action)
        if not 0 <= action < NUM_ACTIONS:
            raise ValueError(f"action {action} is not in [0, {NUM_ACTIONS})")
        kind = A_TYPE[action]
        if kind == T_PASS:
            return "PASS"
        if kind == T_CHANCE:
            return "order " + "".join(map(str, PERMUTATIONS[action - CHANCE_BASE]))
        if kind == T_GIVE:
            return "".join(card_name(c) for c in cards_of(int(A_CARDS[action])))
        return "".join(table_cells_to_string(action_to_table(action)))

    def string_to_action(self, text: str) -> int:
        """A play in log notation (``PASS`` or empty for a pass); in the exchange phases a
        gift (``H2DK``); at a chance node ``order 13402``."""
        text = text.strip()
        phase = int(self.s[K.S_PHASE])
        if text.startswith("order"):
            return chance_action([int(ch) for ch in text[5:].strip()])
        if text.upper() in ("PASS", ""):
            return PASS
        table = parse_cells(text)
        if phase in (K.P_GIVE_DAIFUGO, K.P_GIVE_FUGO):
            return give_action(table_to_hand(_as_hand_cells(table)))
        return table_to_action(table)

    def key(self) -> int:
        return _hash(self.s.tobytes())

    def is_terminal(self) -> bool:
        return self.s[K.S_PHASE] == K.P_OVER

    # --- hidden information ---

    def known_cards(self, player: int) -> np.ndarray:
        """[5] cards ``player`` knows to be in each player's hand: its own hand, and from the
        exchange the cards it gave (as daifugo or fugo) or had taken (as daihinmin or hinmin)
        that their receiver has not played yet."""
        return known_and_forbidden(self.s, player)[0]

    def forbidden_cards(self, player: int) -> np.ndarray:
        """[5] cards ``player`` knows each player cannot hold: after it received an opponent's
        strongest cards in the exchange, that opponent holds none stronger than the weakest
        of them (but for cards ``player`` gave it back)."""
        return known_and_forbidden(self.s, player)[1]

    def information_state(self, player: int) -> dict:
        """What ``player`` knows: own hand, every player's card count, the field, the cards
        played, who has passed, ranks, seats, lock, revolution, and the cards known by the
        exchange to sit in another hand."""
        s = self.s
        known = self.known_cards(player)
        return {
            "player": player,
            "hand": int(s[K.S_HAND + player]),
            "counts": [bin(int(h)).count("1") for h in s[K.S_HAND:K.S_HAND + 5]],
            "field": int(s[K.S_FIELD]),
            "played": int(s[K.S_PLAYED]),
            "passed": int(s[K.S_PASSED]),
            "ranks": [int(r) for r in s[K.S_RANK:K.S_RANK + 5]],
            "seats": [int(p) for p in s[K.S_SEAT:K.S_SEAT + 5]],
            "order": [int(p) for p in s[K.S_ORDER:K.S_ORDER + 5]],
            "to_move": self.current_player(),
            "lock": int(s[K.S_LOCK]),
            "revolution": int(s[K.S_REVOLUTION]),
            "joker_alone": int(s[K.S_JOKER_ALONE]),
            "stalled_turns": int(s[K.S_STALL]),
            "phase": int(s[K.S_PHASE]),
            "known": [int(k) for k in known],
            "gave": int(s[K.S_GAVE_DAIFUGO] if s[K.S_RANK + player] == 0 else
                        s[K.S_GAVE_FUGO] if s[K.S_RANK + player] == 1 else 0),
        }

    def information_state_key(self, player: int) -> int:
        info = self.information_state(player)
        return _hash(repr(sorted(info.items())).encode())

    def sample_determinization(self, player: int, rng: np.random.Generator) -> DaihinminState:
        """The opponents' hands re-dealt from the cards ``player`` has not seen, each keeping
        its card count and :meth:`known_cards`, none holding a :meth:`forbidden_cards` card
        (:func:`.determinization.determinize`, in numba, drawn from ``rng``)."""
        out = self.s.copy()
        determinize(self.s, player, out, rng.bit_generator.random_raw() >> 1)
        return DaihinminState(self.game, out, self.dealt)

    # --- fast paths and helpers ---

    def playout(self, policy: str = "uniform", epsilon: float = 0.0) -> tuple[np.ndarray,
                                                                            np.ndarray]:
        """Play to the end in place with uniformly random legal actions (numba); (players,
        actions). Policies with knowledge (the Monte Carlo client's) belong to their players."""
        if policy != "uniform":
            raise ValueError(f"unknown Daihinmin playout policy {policy!r}; the game plays "
                             f"'uniform'")
        players = np.empty(K.MAX_MOVES, np.int64)
        actions = np.empty(K.MAX_MOVES, np.int64)
        t = K.playout(self.s, players, actions, self._buf)
        return players[:t], actions[:t]

    def hand(self, player: int) -> int:
        """The 53-bit hand of ``player``."""
        return int(self.s[K.S_HAND + player])

    def table_to_action(self, table: np.ndarray) -> int:
        """The action of a submitted table as the server judges it: the play if the server
        accepts it, PASS if it rejects it (a rejected submission counts as a pass)."""
        return submission(self, table)[0]

    def why_illegal(self, action: int) -> str:
        """Which rule ``action`` breaks here (for ValueError messages)."""
        s = self.s
        if not 0 <= action < NUM_ACTIONS:
            return f"action {action} is not in [0, {NUM_ACTIONS})"
        phase = int(s[K.S_PHASE])
        kind = A_TYPE[action]
        name = f"{self.action_to_string(action)!r} (action {action})"
        if phase == K.P_OVER:
            return f"{name}: the game is over"
        if phase == K.P_CHANCE:
            return f"{name}: after 20 stalled turns only a finishing order may follow"
        if phase in (K.P_GIVE_DAIFUGO, K.P_GIVE_FUGO):
            n = 2 if phase == K.P_GIVE_DAIFUGO else 1
            if kind != T_GIVE or (action >= GIVE1_BASE) != (n == 1):
                return f"{name}: in the exchange the {RANK_NAMES[2 - n]} gives {n} card(s)"
            return f"{name}: the exchange gives cards not in the giver's hand"
        if action >= NUM_PLAY_ACTIONS:
            return f"{name}: not a play (gifts and chance outcomes are not moves of the play)"
        p = int(s[K.S_PLAYER])
        if A_CARDS[action] & ~s[K.S_HAND + p]:
            return f"{name}: player {p} does not hold these cards"
        field = int(s[K.S_FIELD])
        if s[K.S_JOKER_ALONE]:
            return f"{name}: only the spade 3 may answer a lone joker"
        if kind == T_SEQUENCE and not self.game.rules.sequences:
            return f"{name}: sequences are off in these rules"
        if A_COUNT[action] != A_COUNT[field]:
            return f"{name}: {A_COUNT[field]} cards are on the field"
        if not (kind == T_LONE_JOKER and A_TYPE[field] == T_SINGLE) and kind != A_TYPE[field]:
            return f"{name}: not the same kind of combination as the field"
        if s[K.S_LOCK] and kind != T_LONE_JOKER and A_SUIT[action] != A_SUIT[field]:
            return f"{name}: the suits are locked (shibari)"
        return f"{name}: not stronger than the field" + (" (revolution)" if s[K.S_REVOLUTION]
                                                        else "")

    def __str__(self) -> str:
        s = self.s
        lines = [f"phase {int(s[K.S_PHASE])}, to move {self.current_player()}, field "
                 f"{self.action_to_string(int(s[K.S_FIELD])) if s[K.S_FIELD] >= 0 else '-'}"
                 f"{', revolution' if s[K.S_REVOLUTION] else ''}{', lock' if s[K.S_LOCK] else ''}"]
        for p in range(NUM_PLAYERS):
            lines.append(f"  player {p}: {''.join(card_name(c) for c in cards_of(self.hand(p)))}")
        return "\n".join(lines)


def _hash(data: bytes) -> int:
    # Signed, so that search trees store it in their int64 key column.
    return int.from_bytes(hashlib.blake2b(data, digest_size=8).digest(), "little", signed=True)


def _as_hand_cells(table: np.ndarray) -> np.ndarray:
    """A gift written in log notation: the joker (any cell) as the hand's [4][1]."""
    out = np.where(table == 2, 0, table)
    if (table == 2).any():
        out[4, 1] = 2
    return out


def submission(state: DaihinminState, table: np.ndarray) -> tuple[int, bool]:
    """How the server takes ``table`` from the player to move: (action played, accepted).
    A malformed or illegal table is rejected and played as a pass; a pass is "accepted" (the
    server answers 9) only on an empty field. The lone-joker answer is judged as the server
    does: a spade 3 single by its holder is accepted whatever else the table holds."""
    s = state.s
    info = analyze(table)
    p = int(s[K.S_PLAYER])
    if s[K.S_JOKER_ALONE]:
        if (info.value, info.count, info.suit) == (1, 1, 1) and s[K.S_HAND + p] & 1:
            return 1, True
        return PASS, False
    if info.count == 0:
        return PASS, bool(s[K.S_FIELD] < 0 and not info.error)
    if info.error:
        return PASS, False
    action = table_to_action(table)
    if K.is_legal(s, action, state._buf):
        return action, True
    return PASS, False
