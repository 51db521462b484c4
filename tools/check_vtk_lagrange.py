#!/usr/bin/env python3
"""Checks flowdg's VTK Lagrange node order against VTK itself (needs `pip install vtk`; not run by CI).

    check_vtk_lagrange.py FILE.vtu          every Lagrange cell of FILE, read by VTK's own reader,
                                            must have its nodes where VTK puts them
    check_vtk_lagrange.py --print SHAPE N   VTK's node order of one cell as lattice indices
                                            (how the tables in tests/unit/vtu_test.cpp were made)

A cell passes when node q of it is the image of VTK's parametric point q (vtkLagrange*Cell's
GetParametricCoords) under the map fixed by the cell's vertices: affine for triangles and
tetrahedra, multilinear for quadrilaterals and hexahedra. That holds for flowdg's reference
nodes of any affinely mapped cell, so a file of such cells checks the order for every shape and
order it holds. Reading through VTK's XML reader checks what ParaView sees, including the
renumbering of Lagrange hexahedra that VTK >= 9.1 applies to files of version < 2.1. The unit test Vtu.VtkPlacesEveryLagrangeNodeWhereFlowdgDoes writes one (orders
1 to 10 of all four shapes) and runs this script with $FLOWDG_VTK_PYTHON (or /usr/bin/python3)
when that Python has vtk:

    FLOWDG_VTK_PYTHON=/path/to/venv/bin/python build/bin/flowdg_unit_tests --gtest_filter='Vtu.Vtk*'

Exit status: 0 all cells agree, 1 some do not (each listed), 2 unusable input.
"""
import itertools
import sys

try:
    import vtk
except ImportError:
    print("check_vtk_lagrange.py: this Python has no vtk module (pip install vtk)", file=sys.stderr)
    sys.exit(2)

# VTK cell type -> (class, dimension, simplex?)
CELLS = {
    69: (vtk.vtkLagrangeTriangle, 2, True),
    70: (vtk.vtkLagrangeQuadrilateral, 2, False),
    71: (vtk.vtkLagrangeTetra, 3, True),
    72: (vtk.vtkLagrangeHexahedron, 3, False),
}
SHAPES = {"triangle": 69, "quadrilateral": 70, "tetrahedron": 71, "hexahedron": 72}
# Parametric coordinates of the vertices of VTK's (and flowdg's, mapped to [0, 1]) multilinear cells.
MULTILINEAR_VERTICES = {
    2: [(0, 0), (1, 0), (1, 1), (0, 1)],
    3: [(0, 0, 0), (1, 0, 0), (1, 1, 0), (0, 1, 0), (0, 0, 1), (1, 0, 1), (1, 1, 1), (0, 1, 1)],
}


def parametric_coordinates(cell_type, n_points):
    """VTK's parametric coordinates of the nodes of a Lagrange cell with n_points nodes."""
    cls, dimension, simplex = CELLS[cell_type]
    cell = cls()
    cell.GetPointIds().SetNumberOfIds(n_points)
    cell.GetPoints().SetNumberOfPoints(n_points)
    for q in range(n_points):
        cell.GetPointIds().SetId(q, q)
        cell.GetPoints().SetPoint(q, 0.0, 0.0, 0.0)
    if simplex:
        cell.Initialize()  # computes the order from the point count
    else:
        cell.SetUniformOrderFromNumPoints(n_points)
    flat = cell.GetParametricCoords()
    return [tuple(flat[3 * q + d] for d in range(dimension)) for q in range(n_points)]


def vertex_weights(cell_type, parametric):
    _, dimension, simplex = CELLS[cell_type]
    if simplex:
        return [1.0 - sum(parametric)] + list(parametric)
    weights = []
    for corner in MULTILINEAR_VERTICES[dimension]:
        w = 1.0
        for x, c in zip(parametric, corner):
            w *= x if c else 1.0 - x
        weights.append(w)
    return weights


def check_file(path):
    reader = vtk.vtkXMLUnstructuredGridReader()
    reader.SetFileName(path)
    reader.Update()
    grid = reader.GetOutput()
    if grid is None or grid.GetNumberOfCells() == 0:
        print(f"{path}: VTK read no cells", file=sys.stderr)
        return 2
    failures, checked, orders = 0, 0, set()
    points = grid.GetPoints()
    for c in range(grid.GetNumberOfCells()):
        cell_type = grid.GetCellType(c)
        if cell_type not in CELLS:
            continue
        ids = grid.GetCell(c).GetPointIds()
        n_points = ids.GetNumberOfIds()
        coordinates = [points.GetPoint(ids.GetId(q)) for q in range(n_points)]
        n_vertices = len(vertex_weights(cell_type, (0.0,) * CELLS[cell_type][1]))
        vertices = coordinates[:n_vertices]
        size = max(max(abs(a - b) for a, b in zip(x, vertices[0])) for x in vertices)
        for q, parametric in enumerate(parametric_coordinates(cell_type, n_points)):
            weights = vertex_weights(cell_type, parametric)
            expected = [sum(w * v[d] for w, v in zip(weights, vertices)) for d in range(3)]
            error = max(abs(a - b) for a, b in zip(coordinates[q], expected))
            if error > 1e-12 * max(1.0, size):
                failures += 1
                print(f"cell {c} (type {cell_type}, {n_points} nodes): node {q} at {coordinates[q]}, "
                      f"VTK expects {tuple(expected)}")
        checked += 1
        orders.add((cell_type, n_points))
    print(f"{path}: {checked} Lagrange cells of {len(orders)} kinds (type, nodes) checked, "
          f"{failures} misplaced nodes")
    return 1 if failures or checked == 0 else 0


def print_order(shape, order):
    cell_type = SHAPES[shape]
    _, dimension, simplex = CELLS[cell_type]
    lattice = list(itertools.product(range(order + 1), repeat=dimension))
    n_points = sum(1 for p in lattice if sum(p) <= order) if simplex else len(lattice)
    nodes = [tuple(round(x * order) for x in p) for p in parametric_coordinates(cell_type, n_points)]
    print(", ".join("{" + ", ".join(map(str, node)) + "}" for node in nodes))


def main(argv):
    if len(argv) == 2 and not argv[1].startswith("-"):
        return check_file(argv[1])
    if len(argv) == 4 and argv[1] == "--print" and argv[2] in SHAPES and argv[3].isdigit():
        print_order(argv[2], int(argv[3]))
        return 0
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
