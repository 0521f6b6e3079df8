"""Fixtures shared by every test package."""

from __future__ import annotations

import dataclasses

import pytest

import calibration.spec


@pytest.fixture
def flat_plates(monkeypatch: pytest.MonkeyPatch) -> None:
    """The shipped board, drawn and read as if its plates did not bend light: scenes of the
    vision bench pinned by a test before refraction was modelled, as the bench drew them
    then (the mechanism such a test guards does not depend on refraction; refraction moved
    the points it needs)."""
    load = calibration.spec.load_spec

    def flat(*args: object, **kwargs: object) -> calibration.spec.TimeVectorsSpec:
        return dataclasses.replace(load(*args, **kwargs), refractive_index=1.0)

    monkeypatch.setattr(calibration.spec, "load_spec", flat)
