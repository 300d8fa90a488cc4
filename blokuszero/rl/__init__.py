"""Training: lockstep self-play, replay buffer, learner, Ray actors and orchestration.

Only entry points (train.py, scripts) import from here.
"""
