"""The one search core: an MCTS loop with interchangeable selection rules, tree shapes and
evaluators, and depth-first multi-player searches."""

from .evaluators import Evaluation, Evaluator, RolloutEvaluator, UniformEvaluator
from .mcts import MCTS, TREE_SHAPES, MCTSConfig, SearchResult, choose_action
from .rave import RAVE
from .selection import PUCT, UCB1, ProgressiveHistory, SelectionRule
from .tree import Tree

__all__ = ["MCTS", "MCTSConfig", "SearchResult", "choose_action", "TREE_SHAPES", "Tree",
           "SelectionRule", "UCB1", "ProgressiveHistory", "PUCT", "RAVE",
           "Evaluator", "Evaluation", "RolloutEvaluator", "UniformEvaluator"]
