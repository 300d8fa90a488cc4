"""Starting or joining Ray the one way every program of the project does (training, arena).

A Ray instance started here keeps Ray's default token authentication (a token in
``~/.ray/auth_token``, made on first use); only Ray's warning that it chose that default is
silenced (a user's ``RAY_AUTH_MODE`` still decides). Joining a cluster leaves its settings alone.
"""

from __future__ import annotations

import logging

# The logger of Ray's "Token authentication is enabled for this Ray cluster" warning.
_AUTH_LOGGER = "ray._private.authentication.authentication_token_setup"


def start_ray(address: str | None, num_cpus: int | None) -> bool:
    """Start a local Ray instance (``address`` None, ``num_cpus`` CPUs; None: all) or join the
    cluster at ``address``, unless Ray is running in this process already. Returns whether this
    call started it (and so should shut it down)."""
    import ray

    if ray.is_initialized():
        return False
    if address is None:
        logging.getLogger(_AUTH_LOGGER).setLevel(logging.ERROR)
    # "local" starts a new instance even if another one runs on this machine.
    ray.init(address=address or "local", num_cpus=num_cpus if address is None else None,
             include_dashboard=False, log_to_driver=False, logging_level=logging.WARNING)
    return True
