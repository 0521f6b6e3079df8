"""Helpers shared by the GRYB game tests: seeded random playouts."""

from __future__ import annotations

import random

from rules.gryb.games import GrybGame


def play_random(game: GrybGame, moves: int, seed: int) -> None:
    """Play up to ``moves`` moves (rolls from the game's seed, choices from ``seed``)."""
    rng = random.Random(seed)
    for _ in range(moves):
        if game.is_over():
            return
        if game.die():
            game.roll()
        else:
            game.push(rng.choice(game.legal_moves()))
