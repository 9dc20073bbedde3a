"""matplotlib (Agg) engine of render.py: draws a Scene into a PNG of exactly W x H pixels."""

import os

import numpy as np

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib import cm, colors  # noqa: E402

DPI = 100


def _flat(fig, scene, norm):
    ax = fig.add_axes([0.1, 0.12, 0.68, 0.76])
    p = scene.points
    art = ax.tripcolor(p[:, 0], p[:, 1], scene.triangles, scene.values, shading="gouraud",
                       cmap=scene.cmap, norm=norm)
    for u, v, text in scene.labels:
        ax.text(u, v, text, ha="center", va="center", color="white", fontsize=9,
                bbox=dict(facecolor="black", alpha=0.3, lw=0))
    ax.set_aspect("equal")
    ax.set_xlabel(scene.axis_labels[0])
    ax.set_ylabel(scene.axis_labels[1])
    return ax, art


def _shaded(rgb, normals, light=(0.3, -0.5, 0.8)):
    l = np.asarray(light) / np.linalg.norm(light)
    k = 0.55 + 0.45 * np.abs(normals @ l)
    return np.clip(rgb * k[:, None], 0, 1)


def _three_d(fig, scene, norm):
    from mpl_toolkits.mplot3d.art3d import Poly3DCollection
    ax = fig.add_axes([0.02, 0.05, 0.76, 0.85], projection="3d")
    tri = scene.points[scene.triangles]  # [T][3 corners][3]
    face_rgba = plt.get_cmap(scene.cmap)(norm(scene.values[scene.triangles].mean(axis=1)))
    # no antialiasing: it leaves hairline gaps between the triangles
    ax.add_collection3d(Poly3DCollection(tri, facecolors=face_rgba, edgecolors="none", linewidths=0, antialiased=False))
    every = [scene.points]
    if scene.iso_triangles is not None and len(scene.iso_triangles):
        iso = scene.iso_points[scene.iso_triangles]
        n = np.cross(iso[:, 1] - iso[:, 0], iso[:, 2] - iso[:, 0])
        n /= np.maximum(np.linalg.norm(n, axis=1, keepdims=True), 1e-300)
        rgb = _shaded(np.tile([0.85, 0.85, 0.85], (len(iso), 1)), n)
        ax.add_collection3d(Poly3DCollection(iso, facecolors=np.c_[rgb, np.full(len(iso), 0.45)], edgecolors="none"))
        every.append(scene.iso_points)
    allp = np.vstack(every)
    lo, hi = allp.min(axis=0), allp.max(axis=0)
    ax.set_xlim(lo[0], hi[0]); ax.set_ylim(lo[1], hi[1]); ax.set_zlim(lo[2], hi[2])
    ax.set_box_aspect(np.maximum(hi - lo, 1e-3 * np.max(hi - lo)))
    ax.set_xlabel(scene.axis_labels[0]); ax.set_ylabel(scene.axis_labels[1]); ax.set_zlabel(scene.axis_labels[2])
    ax.view_init(elev=25, azim=-60)
    return ax, cm.ScalarMappable(norm=norm, cmap=scene.cmap)


def draw(scene, path, size, metadata):
    """Writes the PNG to path (the caller renames it); size = (W, H) in pixels."""
    w, h = size
    fig = plt.figure(figsize=(w / DPI, h / DPI), dpi=DPI)
    norm = colors.Normalize(vmin=scene.color_range[0], vmax=scene.color_range[1])
    ax, mappable = (_flat if scene.flat else _three_d)(fig, scene, norm)
    cax = fig.add_axes([0.84, 0.12, 0.03, 0.76])
    fig.colorbar(mappable, cax=cax).set_label(scene.colorbar_label)
    fig.suptitle(scene.title, fontsize=10)
    fig.savefig(path, dpi=DPI, format="png", metadata=metadata)
    plt.close(fig)
    if not os.path.exists(path):
        raise OSError("matplotlib wrote no file")
