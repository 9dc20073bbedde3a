"""VTK engine of render.py: draws a Scene off screen (vtkRenderWindow.SetOffScreenRendering(1)).

Whether VTK can render off screen depends on how it was built: Debian's python3-vtk9 renders
through X (vtkXOpenGLRenderWindow) and aborts the process when there is no display, so the check
runs in a child process (offscreen_works) before anything is drawn here.
"""

import re
import subprocess
import sys

import numpy as np
import vtk
from vtk.util import numpy_support

_PROBE = """
import vtk
w = vtk.vtkRenderWindow()
w.SetOffScreenRendering(1)
w.SetSize(8, 8)
w.AddRenderer(vtk.vtkRenderer())
w.Render()
g = vtk.vtkWindowToImageFilter()
g.SetInput(w)
g.Update()
raise SystemExit(0 if g.GetOutput().GetNumberOfPoints() == 64 else 3)
"""


def offscreen_works():
    """(True, "") when VTK renders off screen here, else (False, why)."""
    try:
        r = subprocess.run([sys.executable, "-c", _PROBE], capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired) as e:
        return False, str(e)
    if r.returncode == 0:
        return True, ""
    lines = [l for l in r.stderr.splitlines() if "ERR|" in l or "Error" in l] or r.stderr.splitlines()[-1:]
    why = lines[0].split("ERR|")[-1] if lines else "exit code %d" % r.returncode
    why = re.sub(r"\x1b\[[0-9;]*m", "", why).strip()  # VTK's log colours
    return False, why


def _lookup_table(name, lo, hi):
    lut = vtk.vtkLookupTable()
    lut.SetNumberOfTableValues(256)
    try:  # the same colours as the matplotlib engine
        import matplotlib
        rgba = matplotlib.colormaps[name](np.linspace(0, 1, 256))
        for i, c in enumerate(rgba):
            lut.SetTableValue(i, *c)
    except ImportError:
        lut.SetHueRange(0.667, 0.0)
        lut.Build()
    lut.SetTableRange(lo, hi)
    return lut


def _poly(points, triangles, values=None):
    poly = vtk.vtkPolyData()
    pts = vtk.vtkPoints()
    pts.SetData(numpy_support.numpy_to_vtk(np.ascontiguousarray(points, dtype=np.float64), deep=1))
    poly.SetPoints(pts)
    cells = vtk.vtkCellArray()
    conn = np.ascontiguousarray(np.asarray(triangles).reshape(-1), dtype=numpy_support.ID_TYPE_CODE)
    offsets = np.arange(0, conn.size + 1, 3, dtype=numpy_support.ID_TYPE_CODE)
    cells.SetData(numpy_support.numpy_to_vtkIdTypeArray(offsets, deep=1),
                  numpy_support.numpy_to_vtkIdTypeArray(conn, deep=1))
    poly.SetPolys(cells)
    if values is not None:
        arr = numpy_support.numpy_to_vtk(np.ascontiguousarray(values, dtype=np.float64), deep=1)
        arr.SetName("value")
        poly.GetPointData().SetScalars(arr)
    return poly


def _text(renderer, text, x, y, size, world=None, justify_center=False):
    t = vtk.vtkTextActor() if world is None else vtk.vtkBillboardTextActor3D()
    t.SetInput(text)
    p = t.GetTextProperty()
    p.SetFontSize(size)
    p.SetColor(0, 0, 0)
    if justify_center:
        p.SetJustificationToCentered()
        p.SetVerticalJustificationToCentered()
    if world is None:
        t.GetPositionCoordinate().SetCoordinateSystemToNormalizedViewport()
        t.GetPositionCoordinate().SetValue(x, y)
    else:
        t.SetPosition(*world)
    renderer.AddActor(t)


def _axes(renderer, bounds, labels, flat):
    axes = vtk.vtkCubeAxesActor()
    axes.SetBounds(bounds)
    axes.SetCamera(renderer.GetActiveCamera())
    axes.SetXTitle(labels[0])
    axes.SetYTitle(labels[1])
    axes.SetZTitle(labels[2] if len(labels) > 2 else "")
    if flat:
        axes.ZAxisVisibilityOff()
        axes.SetFlyModeToStaticEdges()
    else:
        axes.SetFlyModeToOuterEdges()
    axes.DrawXGridlinesOff()
    axes.DrawYGridlinesOff()
    for i in range(3):
        for prop in (axes.GetTitleTextProperty(i), axes.GetLabelTextProperty(i)):
            prop.SetColor(0, 0, 0)
    axes.GetXAxesLinesProperty().SetColor(0, 0, 0)
    axes.GetYAxesLinesProperty().SetColor(0, 0, 0)
    axes.GetZAxesLinesProperty().SetColor(0, 0, 0)
    renderer.AddActor(axes)


def draw(scene, path, size, metadata):
    """Writes the PNG to path (the caller renames it); size = (W, H) in pixels."""
    lo, hi = scene.color_range
    lut = _lookup_table(scene.cmap, lo, hi)
    renderer = vtk.vtkRenderer()
    renderer.SetBackground(1, 1, 1)
    renderer.SetViewport(0.0, 0.0, 0.72, 0.92)

    mapper = vtk.vtkPolyDataMapper()
    mapper.SetInputData(_poly(scene.points, scene.triangles, scene.values))
    mapper.SetLookupTable(lut)
    mapper.SetScalarRange(lo, hi)
    mapper.InterpolateScalarsBeforeMappingOn()
    actor = vtk.vtkActor()
    actor.SetMapper(mapper)
    if scene.flat:
        actor.GetProperty().LightingOff()
    renderer.AddActor(actor)
    all_points = [scene.points]
    if scene.iso_triangles is not None and len(scene.iso_triangles):
        iso = vtk.vtkPolyDataMapper()
        iso.SetInputData(_poly(scene.iso_points, scene.iso_triangles))
        iso.ScalarVisibilityOff()
        iso_actor = vtk.vtkActor()
        iso_actor.SetMapper(iso)
        iso_actor.GetProperty().SetColor(0.85, 0.85, 0.85)
        iso_actor.GetProperty().SetOpacity(0.45)
        renderer.AddActor(iso_actor)
        all_points.append(scene.iso_points)
    allp = np.vstack(all_points)
    bounds = [v for pair in zip(allp.min(axis=0), allp.max(axis=0)) for v in pair]
    for u, v, text in scene.labels:
        _text(renderer, text, 0, 0, 14, world=(u, v, 0.0), justify_center=True)

    camera = renderer.GetActiveCamera()
    if scene.flat:
        camera.ParallelProjectionOn()
    renderer.ResetCamera(bounds)
    if not scene.flat:  # z up, seen from -y and above, as the matplotlib engine's 3D view
        centre = 0.5 * (allp.min(axis=0) + allp.max(axis=0))
        camera.SetFocalPoint(*centre)
        camera.SetPosition(*(centre + np.array([-0.8, -1.4, 0.9])))
        camera.SetViewUp(0, 0, 1)
        renderer.ResetCamera(bounds)
    camera.Zoom(0.8)
    _axes(renderer, bounds, scene.axis_labels, scene.flat)

    overlay = vtk.vtkRenderer()  # colour bar and title, over the whole window
    overlay.SetBackground(1, 1, 1)
    bar = vtk.vtkScalarBarActor()
    bar.SetLookupTable(lut)
    bar.SetTitle(scene.colorbar_label.replace("  [", "\n["))  # two lines: the bar is narrow
    bar.SetNumberOfLabels(5)
    bar.UnconstrainedFontSizeOn()
    bar.GetTitleTextProperty().SetColor(0, 0, 0)
    bar.GetTitleTextProperty().SetFontSize(12)
    bar.GetLabelTextProperty().SetColor(0, 0, 0)
    bar.GetLabelTextProperty().SetFontSize(11)
    bar.GetPositionCoordinate().SetCoordinateSystemToNormalizedViewport()
    bar.GetPositionCoordinate().SetValue(0.25, 0.08)
    bar.SetWidth(0.4)
    bar.SetHeight(0.82)
    overlay.SetViewport(0.72, 0.0, 1.0, 0.92)
    overlay.AddActor2D(bar)
    title = vtk.vtkRenderer()
    title.SetBackground(1, 1, 1)
    title.SetViewport(0.0, 0.92, 1.0, 1.0)
    _text(title, scene.title, 0.5, 0.5, 14, justify_center=True)

    window = vtk.vtkRenderWindow()
    window.SetOffScreenRendering(1)
    window.SetSize(*size)
    for r in (renderer, overlay, title):
        window.AddRenderer(r)
    window.Render()
    grab = vtk.vtkWindowToImageFilter()
    grab.SetInput(window)
    grab.ReadFrontBufferOff()
    grab.Update()
    writer = vtk.vtkPNGWriter()
    writer.SetFileName(path)
    writer.SetInputConnection(grab.GetOutputPort())
    for key, value in metadata.items():
        writer.AddText(key, value)
    writer.Write()
    window.Finalize()
