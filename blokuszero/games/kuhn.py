"""Kuhn poker for N players (3 by default): the smallest card game with hidden cards.

The deck has N + 1 cards (ranks J < Q < K < A for 3 players); chance deals one card to each
player in turn. Everyone antes 1. Players act in turn from player 0: while nobody has bet,
``pass`` (check) or ``bet`` 1; once someone has bet, every other player in turn after the
bettor ``bet`` (call) or ``pass`` (fold). The highest card among the players who did not fold
wins the pot. Returns are chips won: from -2 (bet and lost) to 2N - 2 (won every call).

Actions: at chance nodes the card dealt (0..N), at a player's turn 0 = pass, 1 = bet.
A player knows its own card and every bet; :meth:`KuhnState.sample_determinization` deals the
cards it cannot see again from those it has not seen.
"""

from __future__ import annotations

import numpy as np

from .base import CHANCE, TERMINAL, Game, Seed, State

PASS, BET = 0, 1
_MOVES = ("pass", "bet")
_RANKS = "23456789TJQKA"


def _mix(*values: int) -> int:
    k = 0
    for v in values:
        k = (k * 1_000_003 + v + 2) % (1 << 62)
    return k


class KuhnState(State):
    """Cards dealt so far (player i holds ``cards[i]``) and the bets (0 pass, 1 bet)."""

    __slots__ = ("_game", "cards", "bets")

    def __init__(self, game: KuhnGame) -> None:
        self._game = game
        self.cards: list[int] = []
        self.bets: list[int] = []

    # --------------------------------------------------------------- the rules
    def _first_bet(self) -> int:
        return self.bets.index(BET) if BET in self.bets else -1

    def current_player(self) -> int:
        n = self._game.num_players
        if len(self.cards) < n:
            return CHANCE
        first = self._first_bet()
        if (first < 0 and len(self.bets) == n) or (first >= 0 and len(self.bets) == first + n):
            return TERMINAL
        return len(self.bets) % n

    def legal_actions(self, player: int | None = None) -> np.ndarray:
        to_move = self.current_player()
        if to_move == CHANCE and player is None:
            return np.setdiff1d(np.arange(self._game.num_actions), self.cards)
        if to_move < 0 or player not in (None, to_move):
            return np.empty(0, dtype=np.int64)
        return np.array([PASS, BET], dtype=np.int64)

    def chance_outcomes(self) -> tuple[np.ndarray, np.ndarray]:
        if self.current_player() != CHANCE:
            raise ValueError("not a chance node: every card is dealt")
        outcomes = self.legal_actions()
        return outcomes, np.full(len(outcomes), 1.0 / len(outcomes))

    def apply_action(self, action: int) -> None:
        to_move = self.current_player()
        if to_move == TERMINAL:
            raise ValueError(f"action {action} cannot be played: the hand is over")
        if action not in self.legal_actions():
            what = "card dealt" if to_move == CHANCE else "move (0 pass, 1 bet)"
            raise ValueError(f"action {action} is not a legal {what} here")
        (self.cards if to_move == CHANCE else self.bets).append(int(action))

    def clone(self) -> KuhnState:
        other = KuhnState(self._game)
        other.cards = list(self.cards)
        other.bets = list(self.bets)
        return other

    def returns(self) -> np.ndarray:
        n = self._game.num_players
        if self.current_player() != TERMINAL:
            return np.zeros(n)
        first = self._first_bet()
        paid = np.ones(n)
        staying = np.ones(n, dtype=bool)
        if first >= 0:  # the bettor, then everyone after it: bet = call, pass = fold
            for i in range(first, first + n):
                p = i % n
                paid[p] += self.bets[i]
                staying[p] = self.bets[i] == BET
        winner = max(np.flatnonzero(staying), key=lambda p: self.cards[p])
        out = -paid
        out[winner] += paid.sum()
        return out

    # ----------------------------------------------------------- notation, keys
    def _card_name(self, card: int) -> str:
        return _RANKS[len(_RANKS) - self._game.num_actions + card]

    def action_to_string(self, action: int) -> str:
        if self.current_player() == CHANCE:
            if not 0 <= action < self._game.num_actions:
                raise ValueError(f"card {action} is not in [0, {self._game.num_actions})")
            return self._card_name(action)
        if action not in (PASS, BET):
            raise ValueError(f"move {action} is not 0 (pass) or 1 (bet)")
        return _MOVES[action]

    def string_to_action(self, text: str) -> int:
        t = text.strip()
        if self.current_player() == CHANCE:
            names = [self._card_name(c) for c in range(self._game.num_actions)]
            if t.upper() not in names:
                raise ValueError(f"{text!r} is not a card of this deck: {names}")
            return names.index(t.upper())
        if t.lower() not in _MOVES:
            raise ValueError(f"{text!r} is not a move: pass or bet")
        return _MOVES.index(t.lower())

    def key(self) -> int:
        return _mix(len(self.cards), *self.cards, -1, *self.bets)

    def information_state_key(self, player: int) -> int:
        """Own card (if dealt), how many cards are dealt, and the bets."""
        own = self.cards[player] if player < len(self.cards) else -1
        return _mix(player, own, len(self.cards), -1, *self.bets)

    def sample_determinization(self, player: int, rng: np.random.Generator) -> KuhnState:
        """The cards ``player`` cannot see dealt again from those it has not seen."""
        other = self.clone()
        hidden = [p for p in range(len(self.cards)) if p != player]
        unseen = [c for c in range(self._game.num_actions)
                  if player >= len(self.cards) or c != self.cards[player]]
        for p, card in zip(hidden, rng.permutation(unseen)):
            other.cards[p] = int(card)
        return other

    def __str__(self) -> str:
        cards = " ".join(self._card_name(c) for c in self.cards)
        return f"cards {cards or '-'}; bets {' '.join(_MOVES[b] for b in self.bets) or '-'}"


class KuhnGame(Game):
    """N-player Kuhn poker (see the module docstring)."""

    def __init__(self, num_players: int = 3) -> None:
        if not 2 <= num_players <= 12:
            raise ValueError(f"Kuhn poker is played by 2 to 12 players, not {num_players}")
        self.name = f"kuhn_poker_{num_players}p"
        self.num_players = num_players
        self.num_actions = num_players + 1  # cards; pass and bet are 0 and 1
        self.max_game_length = num_players + 2 * num_players - 1
        self.min_utility = -2.0
        self.max_utility = 2.0 * num_players - 2.0

    def new_initial_state(self, seed: Seed = None) -> KuhnState:
        """The hand before the deal (chance deals the cards)."""
        return KuhnState(self)

    def deal(self, cards: list[int]) -> KuhnState:
        """A hand with ``cards`` dealt (player i holds ``cards[i]``)."""
        state = self.new_initial_state()
        for card in cards:
            state.apply_action(card)
        return state
