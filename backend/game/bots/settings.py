"""The expert bot's search budget and the value of a hand."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class ExpertSettings:
    """The search budget and the value of a hand. Fixed numbers, so play is deterministic."""

    step_budget: int = 15000
    """Simulated moves per decision, shared by all candidates and worlds."""
    min_worlds: int = 6
    max_worlds: int = 400
    win_bonus: float = 10.0
    """Value of winning the hand, on top of the points (points per hand alone ignore who won)."""
    explore: float = 0.25
    """Chance that a playout move is a random legal play instead of the policy's choice."""
    playout: str = "model"
    """The playout policy of every seat: ``"model"``, the player model's favourite play
    (``_model_choice``), or ``"heavy"``, the heaviest tile (doubles first)."""
    pool_factor: int = 4
    """Worlds sampled per world played out: the pool is resampled by how well each world
    explains the other seats' past choices."""
    temperature: float = 0.5
    """Softness of the model of other players: they prefer heavy tiles and doubles."""
    model_noise: float = 0.05
    """Share of the player model that is uniform over the legal plays (nobody is predictable)."""
    solve_below: int = 18
    """Solve each sampled deal exactly (``EndgameSolver``) once at most this many tiles are left
    in all hands together and nobody can draw; 0 never solves."""
    node_cost: int = 3
    """Budget (simulated moves) charged per position the exact search visits."""
    min_share: float = 0.25
    """Share of ``step_budget`` spent before one candidate may be declared the clear winner."""
    max_share: float = 2.0
    """Share of ``step_budget`` a close decision may spend."""
    clear_z: float = 3.0
    """The leader wins early if its paired lead over every other candidate is this many
    standard errors."""
    close_z: float = 1.0
    """Past ``step_budget``, search on (up to ``max_share``) while the leader's lead over some
    candidate is below this many standard errors."""
    reuse: bool = True
    """Keep the previous decision's deals that the moves since then allow (``DealMemory``)."""
