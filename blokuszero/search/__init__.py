"""The one search core: an MCTS loop with interchangeable tree shapes, selection rules,
evaluators and enhancements, root policies around it, and depth-first multi-player searches."""

from .enhancements import Enhancement, HistoryTable, Simulation
from .evaluators import Evaluation, Evaluator, PlayoutMixing, PlayoutPriors, RolloutEvaluator, UniformEvaluator
from .gumbel import GumbelInterior
from .mcts import MCTS, MCTSConfig, SearchResult
from .rave import RAVE, AmafStatistics
from .root_policies import GumbelRoot, RootNoise, choose_action, move_temperature, policy_target
from .selection import PUCT, UCB1, ProgressiveHistory, SelectionRule, UCB1Tuned
from .shapes import BRS, TREE_SHAPES, MaxN, Paranoid, TreeShape
from .tree import Tree

__all__ = ["MCTS", "MCTSConfig", "SearchResult", "choose_action", "move_temperature", "Tree",
           "TreeShape", "MaxN", "Paranoid", "BRS", "TREE_SHAPES",
           "SelectionRule", "UCB1", "UCB1Tuned", "ProgressiveHistory", "PUCT", "RAVE",
           "Enhancement", "Simulation", "HistoryTable", "AmafStatistics", "RootNoise",
           "GumbelRoot", "GumbelInterior", "policy_target",
           "Evaluator", "Evaluation", "RolloutEvaluator", "UniformEvaluator", "PlayoutMixing", "PlayoutPriors"]
