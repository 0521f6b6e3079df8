"""Which light throws the tokens' shadows in a frame, and which light a camera stream keeps.

Under a hard lamp each token above the bottom tier throws a token-sized dark disc
on the base, which reads as a token unless it is taken out of the change first
(:mod:`vision.shadows` models where the shadows of given tokens fall under a
light and searches the light). The tokens a quick first reading finds cast
them; that reading's phantoms on the shadows hide nothing the search needs. In a
stream the light stays, so a light found deep enough to matter is looked for
first, and searched for anew where the tokens refute it. The hard cases are
those of a hand visit: a new token's shadow read as a second new token, and the
first token above the bottom tier, whose shadow is the only one (too few to
search a light by in general). Each rule below names the bench game that taught
it.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

import numpy as np

from vision.change import (
    FOREGROUND_DISTANCE,
    SHADOW_WEIGHT,
    change_evidence,
    feature_distance,
)
from vision.explain import EVIDENCE_THRESHOLD
from vision.footprint import N_POINTS
from vision.gathered import GatheredPixels
from vision.shadows import MIN_CASTERS, MIN_DEPTH, MIN_DISC_PIXELS, ShadowModel, Shadows
from vision.token_shade import TokenShade, witnesses

logger = logging.getLogger(__name__)

SHADOW_TINT = 3.0  # a lone token's shadow changes colour at most this many times its darkening
SHADOW_COVERS = 0.5  # a token this much on another's shadow may be that shadow

Delta = tuple[np.ndarray, np.ndarray, np.ndarray]  # chroma a, chroma b, brightness differences
Slope = tuple[float, float]


def could_pass_for_tokens(shadows: Shadows | None) -> bool:
    """Are the ``shadows`` (None: none found) deep enough for their pixels to argue for
    tokens, weighed as every change is (darkening at ``SHADOW_WEIGHT``)? Fainter ones argue
    against a token by themselves, and taking them out would only cost the near-black
    tokens in them."""
    if shadows is None:
        return False
    look = feature_distance(shadows.shift[None, :], shadow_weight=SHADOW_WEIGHT)
    return bool(change_evidence(look)[0] >= EVIDENCE_THRESHOLD)


def new_in_visit(first: np.ndarray, before_accepted: np.ndarray | None) -> np.ndarray:
    """The points the ``first`` reading holds that the calm board before the hand came
    (``before_accepted``) did not (none outside a visit's aftermath)."""
    if before_accepted is None:
        return np.zeros(0, np.int64)
    return np.flatnonzero(first & ~before_accepted)


def _darker_than_tinted(found: Shadows | None) -> bool:
    """Do the shadows one caster's search ``found`` darken more than they tint? That
    search takes the darkest disc in its reach: a shadow there changes colour only through
    the plates' veil (up to 1.8 times its darkening on a wooden base under cyan plates as
    measured), a coloured token by far more (a blue one 5.8 times)."""
    return found is not None and bool(
        np.hypot(found.shift[0], found.shift[1]) <= SHADOW_TINT * -found.shift[2]
    )


@dataclass(frozen=True)
class _Frame:
    """What one search knows: the frame's colour features and difference from the empty
    board, the quick reading's tokens, and the calm board before the hand came (its
    features and tokens; None outside a visit's aftermath)."""

    feats: np.ndarray
    delta: Delta
    first: np.ndarray
    before: tuple[np.ndarray, np.ndarray] | None

    @property
    def before_accepted(self) -> np.ndarray | None:
        return None if self.before is None else self.before[1]


class ShadowSearch:
    """The tokens' shadows of one camera's frames (``shadow_model``, over the gathered
    ``pixels``), judged by the tokens' tops (``shade``, which also learns each frame's
    shadows), and the light a stream keeps."""

    def __init__(self, shadow_model: ShadowModel, pixels: GatheredPixels, shade: TokenShade):
        self._model, self._pixels, self._shade = shadow_model, pixels, shade
        #: The light's slope the shadows were last found at in a stream (None: not known).
        self.light_slope: Slope | None = None
        #: The light last found from one new token's shadow alone (see :meth:`_lone_instead`).
        self.lone_slope: Slope | None = None
        #: The tokens' shadows the last full read found and took out (None: none).
        self.last: Shadows | None = None
        # The last tokens that cast shadows, and what they cast (found again when they change):
        # (the first reading's tokens and the casters, the shadows found for them, whether one
        # new token's shadow alone showed that light)
        self._memo: tuple[bytes, Shadows | None, bool] | None = None

    def stream_state(self) -> tuple[Slope | None, Slope | None]:
        """The lights the stream keeps, to :meth:`restore` after a frame that may not teach
        them."""
        return self.light_slope, self.lone_slope

    def restore(self, state: tuple[Slope | None, Slope | None]) -> None:
        """Keep the lights of ``state`` (see :meth:`stream_state`) and forget the last
        search: what it made of a frame with a hand over the board serves that frame only."""
        self.light_slope, self.lone_slope = state
        self._memo = None

    def forget(self) -> None:
        """Forget the last search (the next frame searches again)."""
        self._memo = None

    def find(
        self,
        feats: np.ndarray,
        delta: Delta,
        first: np.ndarray,
        held: np.ndarray,
        casters: np.ndarray,
        before: tuple[np.ndarray, np.ndarray] | None,
        *,
        stream: bool,
    ) -> tuple[Shadows | None, bool]:
        """The shadows of a frame (colour features ``feats``, difference ``delta`` from the
        empty board), cast by the ``held`` tokens (the ``first`` reading's and the game's), or
        under a kept light by the ``casters`` (those and the last calm board's: a faint token
        the quick reading misses still casts its shadow, and that shadow, read as a token,
        was announced as an illegal move, bench game 2908 under a bare lamp); and whether
        their light serves this frame only (found from one new token's shadow alone, see
        :meth:`_of_a_new_token`). ``before``: the calm board before the hand came (features
        and tokens; None: no visit). In a ``stream`` the kept light is looked for first, and
        where the tokens refute it there, it is searched for anew (a light kept from two
        tokens' shadows, 0.02 off, was searched near there with the third token's, and ended
        where the tokens refuted it: bench game 2902). The search for one new token's shadow
        is asked, too, when the search over every caster found a light the tokens refute: the
        new token's shadow, read as a token, had misled it (bench game 3302 under a bare
        lamp). The same tokens in a stream cast the same shadows as last time."""
        key = first.tobytes() + casters.tobytes()
        if stream and self._memo is not None and self._memo[0] == key:
            _, found, lone = self._memo
            return found, lone
        frame = _Frame(feats, delta, first, before)
        found, lone = None, False
        if stream and self.light_slope is not None:
            # (a kept light the tokens refute here is searched for anew)
            found = self._shown(frame, self._at(delta, casters, self.light_slope), first)
        if not could_pass_for_tokens(found):
            found = self._model.find(delta, ~self._pixels.covered(first), held)
            if stream and not self._old_shadows_stayed(frame, found):
                found = None
            found = self._shown(frame, found, first)
            if stream:
                found, lone = self._lone_instead(frame, casters, found)
            if stream and could_pass_for_tokens(found):
                found = self._better_with_a_shadow_taken_for_a_token(frame, found)
        if stream and not could_pass_for_tokens(found):
            # (a wrong light the tokens refuted may have hidden a new token's shadow)
            new, lone = self._of_a_new_token(frame, first)
            if new is not None:
                found = self._shown(frame, new, first)
                if lone and found is not None:
                    self.lone_slope = found.slope
        self._memo = (key, found, lone)
        return found, lone

    def take(self, found: Shadows | None, *, keep: bool) -> bool:
        """Make the shadows ``found`` (None: none) this frame's, and their light the stream's
        to look for first when ``keep``; True when they are deep enough to take out of the
        change (see :func:`could_pass_for_tokens`)."""
        self._shade.take(found)
        if not could_pass_for_tokens(found):
            self.last = None
            return False
        if keep:
            self.light_slope = found.slope
        self.last = found
        return True

    def take_added_tokens_light(
        self,
        feats: np.ndarray,
        delta: Delta,
        accepted: np.ndarray,
        before: tuple[np.ndarray, np.ndarray],
    ) -> None:
        """Take the light the tokens new since the hand came (``accepted`` less ``before``'s)
        show when no light was found: a token found only by the change since the hand came
        cast no shadow in the first search, and its shadow may have been read as a second new
        token (bench game 1505 under a bare lamp: a pale token laid on F6R, its shadow read on
        D7P). The two new tokens are searched as caster and shadow (see
        :meth:`_of_a_new_token`)."""
        frame = _Frame(feats, delta, accepted, before)
        found, lone = self._of_a_new_token(frame, accepted)
        found = self._shown(frame, found, accepted)
        if could_pass_for_tokens(found):
            self.take(found, keep=not lone)

    def _shown(self, frame: _Frame, found: Shadows | None, accepted: np.ndarray) -> Shadows | None:
        """The shadows ``found``, or None when the ``accepted`` tokens refute their light
        (see :meth:`vision.token_shade.TokenShade.verdict`)."""
        if found is None:
            return None
        told = witnesses(accepted, frame.before_accepted)
        if self._shade.verdict(frame.feats, found, accepted, told) is False:
            logger.debug("the tokens do not show the light found at %s", found.slope)
            return None
        return found

    def _lone_instead(
        self, frame: _Frame, casters: np.ndarray, found: Shadows | None
    ) -> tuple[Shadows | None, bool]:
        """The shadows ``found`` by the search over every caster, or, while the stream keeps
        no light, those at the light an earlier new token's shadow showed alone (see
        :meth:`_of_a_new_token`) where the tokens do not refute it, its shadows could pass
        for tokens, and it bears out as many of the first reading's shadows; and whether
        that light serves this frame only. That shadow appeared with its token, which no
        stain does; the search by every caster takes the darkest discs together, and with
        three tokens a stain under the newest one's disc outweighed the shadow the lamp threw
        (bench game 6404 under a bare lamp: a light three times as long was kept, and the
        shadows it left unexplained read as tokens played out of turn). Where that search
        found no light at all, the earlier light serves the frame only (nothing weighs it
        against another): a shadow read as a token hides from the search, and the second
        token's shadow, read on F6R after the third move, was announced as a second token of
        the third move's colour (bench game 6601 under a bare lamp)."""
        if self.lone_slope is None or self.light_slope is not None:
            return found, False
        if found is not None and not could_pass_for_tokens(found):
            return found, False  # (no light to keep: none is questioned)
        first = frame.first
        earlier = self._shown(frame, self._at(frame.delta, casters, self.lone_slope), first)
        if earlier is None or not could_pass_for_tokens(earlier):
            return found, False
        if found is None:
            return earlier, True
        if self._borne_out(frame.delta, first, earlier) < self._borne_out(
            frame.delta, first, found
        ):
            return found, False
        return earlier, False

    def _old_shadows_stayed(self, frame: _Frame, found: Shadows | None) -> bool:
        """Were the shadows ``found`` of the first reading's tokens that stood before the hand
        came there before it came too? Neither the light nor those tokens moved: a disc of
        theirs the base shows darker since (by a shadow's ``MIN_DEPTH``) holds something new,
        and the light that put their shadow there is wrong (a brown token laid on the wooden
        base passed for an old token's shadow, and the light, kept for the stream, hid it to
        the end of bench game 1803)."""
        if found is None or frame.before is None:
            return True
        before_feats, before_accepted = frame.before
        old = self._model.casters(frame.first & before_accepted)
        if not len(old):
            return True
        darker = before_feats[:, 2] - frame.feats[:, 2]
        usable = ~self._pixels.covered(frame.first | before_accepted)
        mean, seen = self._model.disc_means(darker, usable, old, found.slope)
        return not np.any((seen >= MIN_DISC_PIXELS) & (mean >= MIN_DEPTH))

    def _at(self, delta: Delta, first: np.ndarray, slope: Slope) -> Shadows | None:
        """The shadows of the ``first`` reading's tokens under a light of known ``slope``.
        A token read mostly on another's predicted shadow may be that shadow: it casts
        none, and its pixels show what the shadow looks like. Where the others then show
        no shadow, it casts after all: a second token, B4Q, half on the first's predicted
        shadow (0.51 of its silhouette), was taken for it, the first's shadow fell out of
        view, and B4Q's own shadow read as a token (bench game 10707 under a bare lamp)."""
        upper = self._pixels.footprints.tier > 0  # (a bottom tier token's shadow lies under it)
        on_shadows = self._pixels.share_on(self._model.mask_at(slope, first & upper))
        casting = first & (on_shadows < SHADOW_COVERS)
        found = self._model.find(
            delta, ~self._pixels.covered(casting), casting, min_casters=1, slope=slope
        )
        if found is None and np.any(casting != first):
            found = self._model.find(
                delta, ~self._pixels.covered(first), first, min_casters=1, slope=slope
            )
        return found

    def _better_with_a_shadow_taken_for_a_token(self, frame: _Frame, found: Shadows) -> Shadows:
        """The shadows ``found`` by every caster of the first reading, or, where one of two
        tokens new since the hand came may be the other's shadow (see
        :meth:`_on_the_others_shadow`), that light unless fewer shadows bear it out. A new
        token's shadow read as a token hides from the search where it truly lies, and the
        token read on it is taken for a caster: in bench game 4801 (a bare lamp) the search
        then lined that phantom's shadow up with an older token's real one, one shadow
        bearing its light out where the true light had two; in game 3702 each light had one,
        and the pair's, which explains the phantom too, was the true one."""
        first = frame.first
        paired, casting = self._on_the_others_shadow(frame, first)
        if paired is None:
            return found
        if self._borne_out(frame.delta, casting, paired) < self._borne_out(
            frame.delta, first, found
        ):
            return found
        return self._shown(frame, paired, first) or found

    def _borne_out(self, delta: Delta, casters: np.ndarray, found: Shadows) -> int:
        """How many of the ``casters``' shadows the picture bears out under the light of the
        shadows ``found`` (see :meth:`vision.shadows.ShadowModel.confirmed`): two lights
        found for one frame are weighed by it."""
        return self._model.confirmed(delta, ~self._pixels.covered(casters), casters, found.slope)

    def _of_a_new_token(self, frame: _Frame, first: np.ndarray) -> tuple[Shadows | None, bool]:
        """The shadow of the one token a hand visit placed (new in ``first``), and whether it
        was found with that token alone in view of the search. Under a hard light the first
        token placed above the bottom tier casts the only shadow on the base: one caster is
        too few to search the light by in general (a dark token within its reach would pass
        for its shadow).

        The ``first`` reading may have taken the shadow for a second new token (see
        :meth:`_on_the_others_shadow`). Or the reading found the one new token and left its
        shadow unexplained, where it looked like a hand still over the board and the move
        waited for a calm board that never came (a game of the bench under a bare lamp lost
        its first move so). Then the search with that token as the caster finds its shadow if
        one as dark as a shadow lies in its reach; since that cannot tell a shadow from a dark
        stain, the light it shows serves the frame only (the flag)."""
        new = new_in_visit(first, frame.before_accepted)
        if len(new) == 1:
            if len(self._model.casters(first)) >= MIN_CASTERS:
                return None, False  # (the search by every caster has looked already)
            found = self._model.find(
                frame.delta, ~self._pixels.covered(first), first, min_casters=1
            )
            return (found, True) if _darker_than_tinted(found) else (None, False)
        found, _ = self._on_the_others_shadow(frame, first)
        return found, False

    def _on_the_others_shadow(
        self, frame: _Frame, first: np.ndarray
    ) -> tuple[Shadows | None, np.ndarray]:
        """With exactly two tokens new in the ``first`` reading since the hand came, one may
        be the other's shadow (it then hides under the token read on it). Each is taken in
        turn as the caster and the other's pixels as open to the search: shadows found
        where the caster's own covers most of the other's silhouette, or most of the core
        pixels that changed (the change that made it a token; see :meth:`_shadow_share`),
        darker more than they are tinted (see :func:`_darker_than_tinted`), are the pair's.
        They are searched with every caster, and if that light throws the caster's shadow
        elsewhere, with the caster alone: the search by every caster had an old token's
        shadow cover the other, under a light twice as long as the lamp's, and kept for the
        stream, that light left the new token's true shadow to read as a token after a hand
        hovered (bench game 6206 under a bare lamp). Returns those shadows (None: neither)
        and the tokens that cast them (``first`` without the shadow)."""
        new = new_in_visit(first, frame.before_accepted)
        if len(new) != 2:
            return None, first
        delta = frame.delta
        changed = feature_distance(np.stack(delta, axis=1), SHADOW_WEIGHT) > FOREGROUND_DISTANCE
        for caster, other in (new, new[::-1]):
            kept = first.copy()
            kept[other] = False
            alone = np.zeros_like(first)
            alone[caster] = True
            for casters in (kept, alone):
                found = self._model.find(delta, ~self._pixels.covered(kept), casters, min_casters=1)
                if found is None:
                    continue
                onto = self._shadow_share(self._model.mask_at(found.slope, alone), changed)
                if onto[other] >= SHADOW_COVERS and _darker_than_tinted(found):
                    if casters is alone:  # (the pair's light, with every caster's shadows)
                        found = self._at(delta, kept, found.slope) or found
                    logger.debug("new token %d read on the shadow of new token %d", other, caster)
                    return found, kept
        return None, first

    def _shadow_share(self, shadow: np.ndarray, changed: np.ndarray) -> np.ndarray:
        """Per point: how much of it a ``shadow`` (mask per gathered pixel) covers, the more of
        two shares: of its silhouette, and of its core pixels that ``changed`` from the empty
        board (darkening counted at ``SHADOW_WEIGHT``), where a token read on the shadow
        drew its evidence from. A shadow lying off the points' grid covers a point read on it
        by half or less, while the change that made that point a token lies mostly in the
        shadow: game 7404 under a bare lamp read a new token's shadow on B4P, covering 0.496
        of its silhouette and 0.77 of its changed core, as a second token of that colour."""
        core = self._pixels.core
        in_shadow = np.bincount(
            core.point, weights=shadow[core.index] & changed[core.index], minlength=N_POINTS
        )
        of_changed = in_shadow / np.maximum(
            np.bincount(core.point, weights=changed[core.index], minlength=N_POINTS), 1
        )
        return np.maximum(self._pixels.share_on(shadow), of_changed)
