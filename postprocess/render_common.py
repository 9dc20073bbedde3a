"""What render.py's data side hands its drawing engines: one Scene, engine-independent."""

from dataclasses import dataclass, field

import numpy as np


class UserError(Exception):
    def __init__(self, msg, hint=None):
        super().__init__(msg)
        self.hint = hint


@dataclass
class Scene:
    # The coloured surface: a slice, or a monitor's points triangulated (flat, z = 0 when `flat`).
    points: np.ndarray            # [P][3]
    triangles: np.ndarray         # [T][3] indices into points
    values: np.ndarray            # [P] the quantity at the points
    color_range: tuple            # (lo, hi) of the colour map
    field_range: tuple            # (min, max) of `values` (see the producer for which points)
    colorbar_label: str
    title: str
    axis_labels: tuple            # (horizontal, vertical[, depth]) with units
    flat: bool = True             # drawn face-on in the (x, y) of `points`; else a 3D view
    cmap: str = "viridis"
    iso_points: np.ndarray = None      # [Q][3] isosurface triangles (3D view only)
    iso_triangles: np.ndarray = None   # [S][3]
    labels: list = field(default_factory=list)  # (x, y, text): face names of an unfolded box
    metadata: dict = field(default_factory=dict)


def value_range(values):
    finite = np.isfinite(values)
    if not finite.any():
        raise UserError("the quantity has no finite value on the slice", "the run may have blown up (see its summary.json)")
    if not finite.all():
        raise UserError("the quantity is not finite at %d of %d points" % ((~finite).sum(), values.size),
                        "the run may have blown up (see its summary.json)")
    return float(values.min()), float(values.max())


def color_range(field_range, user_range):
    """The colour map's range: --range LO HI, else the field's."""
    if user_range is not None:
        lo, hi = user_range
        if not (np.isfinite(lo) and np.isfinite(hi) and lo < hi):
            raise UserError("--range %r %r: LO must be below HI (both finite)" % (lo, hi), "e.g. --range -1 1")
        return float(lo), float(hi)
    return field_range


def png_metadata(scene, engine):
    """tEXt chunks of the PNG: the colour range and the field's range at full precision."""
    md = {"dgmax:color_range": "%r %r" % scene.color_range,
          "dgmax:field_range": "%r %r" % scene.field_range,
          "dgmax:engine": engine}
    md.update(scene.metadata)
    return md
