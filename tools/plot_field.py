#!/usr/bin/python3
"""Draws one point field of a flowdg .vtu as filled contours with contour lines.

    /usr/bin/python3 tools/plot_field.py FILE.vtu --field density --output out.png
        [--contours 30] [--title T] [--xlim a b --ylim c d] [--streamlines DENSITY]

Lagrange triangles (VTK type 69) of order n are drawn as their n^2 linear sub-triangles, found
through VTK's node order; linear triangles are drawn as they are, linear quadrilaterals (a mesh
with quadrilaterals written with [output] vtu_cells = "subdivided") as two triangles each. A vector
field is drawn as its magnitude. --streamlines draws the velocity's streamlines over the plot
(interpolated linearly onto a 400 x 400 grid of the window; DENSITY as matplotlib's streamplot,
about 1-3). Bad input (missing file, unknown field) is one line on stderr and exit code 2.
"""
import argparse
import os
import sys

import matplotlib

matplotlib.use("Agg")  # files only: no display is needed or wanted
import matplotlib.pyplot as plt
import matplotlib.tri as mtri
import meshio
import numpy as np
from mpl_toolkits.axes_grid1 import make_axes_locatable


def fail(message):
    print(f"plot_field: {message}", file=sys.stderr)
    sys.exit(2)


def vtk_lagrange_lattice(n):
    """(i, j) of each node of an order-n VTK Lagrange triangle at parametric point (i/n, j/n),
    in VTK's order: vertices, edges 0-1, 1-2, 2-0, then the interior as an order n-3 triangle."""
    nodes, m, k = [], 0, n
    while k > 0:
        nodes += [(m, m), (m + k, m), (m, m + k)]
        nodes += [(m + t, m) for t in range(1, k)]
        nodes += [(m + k - t, m + t) for t in range(1, k)]
        nodes += [(m, m + k - t) for t in range(1, k)]
        m, k = m + 1, k - 3
    return nodes + [(m, m)] if k == 0 else nodes


def sub_triangles(n):
    """Local node indices of the n^2 counter-clockwise linear triangles of an order-n cell."""
    local = {node: q for q, node in enumerate(vtk_lagrange_lattice(n))}
    triangles = []
    for j in range(n):
        for i in range(n - j):
            triangles.append([local[i, j], local[i + 1, j], local[i, j + 1]])
            if i + j + 1 < n:
                triangles.append([local[i + 1, j], local[i + 1, j + 1], local[i, j + 1]])
    return np.array(triangles)


def linear_triangles(mesh):
    blocks = []
    for block in mesh.cells:
        if block.type == "triangle":
            blocks.append(block.data)
        elif block.type == "quad":
            blocks.append(block.data[:, [0, 1, 2]])
            blocks.append(block.data[:, [0, 2, 3]])
        elif block.type == "VTK_LAGRANGE_TRIANGLE":
            # (n + 1)(n + 2) / 2 nodes per cell.
            n = round((np.sqrt(8 * block.data.shape[1] + 1) - 3) / 2)
            blocks.append(block.data[:, sub_triangles(n)].reshape(-1, 3))
    if not blocks:
        fail("the file has no triangles to draw")
    return np.concatenate(blocks)


def main():
    parser = argparse.ArgumentParser(description="Contour plot of a field of a flowdg .vtu file.")
    parser.add_argument("file")
    parser.add_argument("--field", default="density")
    parser.add_argument("--output", required=True, help="PNG file to write")
    parser.add_argument("--contours", type=int, default=30, help="number of contour levels")
    parser.add_argument("--title")
    parser.add_argument("--xlim", type=float, nargs=2, metavar=("MIN", "MAX"))
    parser.add_argument("--ylim", type=float, nargs=2, metavar=("MIN", "MAX"))
    parser.add_argument("--streamlines", type=float, metavar="DENSITY", help="draw the velocity's streamlines too")
    args = parser.parse_args()

    if not os.path.isfile(args.file):
        fail(f"no such file: {args.file}")
    try:
        mesh = meshio.read(args.file)
    except Exception as error:  # meshio raises many kinds; any of them means an unreadable file
        fail(f"cannot read {args.file}: {error}")
    if args.field not in mesh.point_data:
        fail(f"no field '{args.field}' in {args.file}; fields: {', '.join(sorted(mesh.point_data))}")
    values = np.asarray(mesh.point_data[args.field], dtype=float)
    if values.ndim > 1:
        values = np.linalg.norm(values, axis=1)

    triangles = linear_triangles(mesh)
    triangulation = mtri.Triangulation(mesh.points[:, 0], mesh.points[:, 1], triangles)
    # Non-physical states (NaN Mach number where the pressure is negative) are left blank.
    broken = ~np.isfinite(values)[triangles].all(axis=1)
    if broken.any():
        print(f"plot_field: {broken.sum()} triangles with non-finite {args.field} left blank", file=sys.stderr)
        triangulation.set_mask(broken)
    low, high = np.nanmin(values), np.nanmax(values)
    constant = not low < high
    if constant:  # filled contours still need increasing levels; there are no lines to draw
        low, high = low - 0.5, high + 0.5
    levels = np.linspace(low, high, max(args.contours, 2))

    figure, axes = plt.subplots(figsize=(10, 6))
    filled = axes.tricontourf(triangulation, values, levels=levels, cmap="viridis")
    if not constant:
        axes.tricontour(triangulation, values, levels=levels, colors="black", linewidths=0.4)
    if args.streamlines:
        if "velocity" not in mesh.point_data:
            fail(f"--streamlines needs a 'velocity' field in {args.file}")
        velocity = np.asarray(mesh.point_data["velocity"], dtype=float)
        x0, x1 = args.xlim if args.xlim else (mesh.points[:, 0].min(), mesh.points[:, 0].max())
        y0, y1 = args.ylim if args.ylim else (mesh.points[:, 1].min(), mesh.points[:, 1].max())
        gx, gy = np.meshgrid(np.linspace(x0, x1, 400), np.linspace(y0, y1, 400))
        # DG output repeats a point in every element that has it: merged (the velocity averaged) into
        # one conforming triangulation, which the interpolator needs. Points outside the mesh (inside
        # a body) come back masked: no streamline crosses them.
        scale = np.abs(mesh.points[:, :2]).max()
        _, first, merged = np.unique(np.round(mesh.points[:, :2] / scale, 10), axis=0, return_index=True, return_inverse=True)
        merged = merged.ravel()
        counts = np.bincount(merged)
        mean = [np.bincount(merged, weights=velocity[:, c]) / counts for c in (0, 1)]
        grid = mtri.Triangulation(mesh.points[first, 0], mesh.points[first, 1], merged[triangles])
        u = mtri.LinearTriInterpolator(grid, mean[0])(gx, gy)
        v = mtri.LinearTriInterpolator(grid, mean[1])(gx, gy)
        axes.streamplot(gx, gy, u, v, density=args.streamlines, color="white", linewidth=0.6, arrowsize=0.6)
    axes.set_aspect("equal")
    if args.xlim:
        axes.set_xlim(*args.xlim)
    if args.ylim:
        axes.set_ylim(*args.ylim)
    # A colorbar axis cut from the plot's own, so it is as tall as the (equal-aspect) plot.
    colorbar_axes = make_axes_locatable(axes).append_axes("right", size="3%", pad=0.1)
    figure.colorbar(filled, cax=colorbar_axes, label=args.field)
    time = mesh.field_data.get("TimeValue")
    default_title = args.field if time is None else f"{args.field}, t = {float(np.ravel(time)[0]):g}"
    axes.set_title(args.title if args.title is not None else default_title)
    figure.savefig(args.output, dpi=150, bbox_inches="tight")


if __name__ == "__main__":
    main()
