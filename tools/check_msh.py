#!/usr/bin/env python3
"""Check a Gmsh .msh file (2D): element counts by type, Jacobian sign, optional
geometric checks on physical curves.

Uses the gmsh Python API if importable (e.g. Debian's python3-gmsh, run with
/usr/bin/python3): Jacobian determinants are evaluated at the element's own
Lagrange nodes plus a Gauss rule of order 2*order+2 (a sampled check, not a
certified bound).  Falls back to meshio: then only the straight-sided
(corner-node) area sign is checked.

  check_msh.py mesh.msh
  check_msh.py cyl.msh --circle 0 0 0.5 wall
  check_msh.py couette.msh --periodic left right 4 0
  check_msh.py naca.msh --naca wall
Exit status 1 if a check fails.
"""
import argparse
import math
import sys

import numpy as np


def naca_dist(pts):
    """Distance of points to the closed-TE NACA0012 (chord 1, a4 = -0.1036)."""
    def yt(x):
        return 0.6 * (0.2969 * np.sqrt(x) - 0.1260 * x - 0.3516 * x**2
                      + 0.2843 * x**3 - 0.1036 * x**4)
    # parametrise x = (1 - cos t)/2, dense sampling then local refinement
    t = np.linspace(0.0, math.pi, 200001)
    xs = 0.5 * (1 - np.cos(t))
    ys = yt(xs)
    out = []
    for (px, py) in pts:
        s = 1.0 if py >= 0 else -1.0
        d2 = (xs - px) ** 2 + (s * ys - py) ** 2
        i = int(np.argmin(d2))
        lo, hi = t[max(i - 1, 0)], t[min(i + 1, len(t) - 1)]
        tt = np.linspace(lo, hi, 2001)
        xx = 0.5 * (1 - np.cos(tt))
        out.append(math.sqrt(np.min((xx - px) ** 2 + (s * yt(xx) - py) ** 2)))
    return np.array(out)


class GmshMesh:
    def __init__(self, fn):
        import gmsh
        self.g = gmsh
        gmsh.initialize()
        gmsh.option.setNumber("General.Terminal", 0)
        gmsh.open(fn)
        tags, xyz, _ = gmsh.model.mesh.getNodes()
        self.xyz = dict(zip(tags.tolist(), xyz.reshape(-1, 3)))

    def counts(self):
        res = []
        for dim in (1, 2):
            for et in self.g.model.mesh.getElementTypes(dim):
                name, _, order, nn, _, _ = self.g.model.mesh.getElementProperties(et)
                tags, _ = self.g.model.mesh.getElementsByType(et)
                res.append((dim, et, name, nn, len(tags)))
        return res

    def min_jacobian(self):
        res = []
        m = self.g.model.mesh
        for et in m.getElementTypes(2):
            name, _, order, nn, loc, _ = m.getElementProperties(et)
            gp, _ = m.getIntegrationPoints(et, "Gauss%d" % (2 * order + 2))
            pts = np.concatenate([np.asarray(loc).reshape(-1, 2),
                                  np.asarray(gp).reshape(-1, 3)[:, :2]])
            lc = np.hstack([pts, np.zeros((len(pts), 1))]).ravel()
            dets = np.asarray(m.getJacobians(et, lc)[1]).reshape(-1, len(pts))
            ratio = dets.min(axis=1) / dets.max(axis=1)
            res.append((name, dets.min(), int((dets.min(axis=1) <= 0).sum()),
                        ratio.min(), len(dets)))
        return res

    def group_nodes(self, name):
        m = self.g.model
        for dim, tag in m.getPhysicalGroups(1):
            if m.getPhysicalName(dim, tag) == name or str(tag) == name:
                nodes = set()
                for ent in m.getEntitiesForPhysicalGroup(dim, tag):
                    _, _, ntags = m.mesh.getElements(dim, ent)
                    for nt in ntags:
                        nodes.update(np.asarray(nt).tolist())
                return np.array([self.xyz[t][:2] for t in sorted(nodes)])
        sys.exit("no physical curve %r" % name)


class MeshioMesh:
    def __init__(self, fn):
        import meshio
        self.m = meshio.read(fn)

    def counts(self):
        return [(None, None, c.type, c.data.shape[1], len(c.data)) for c in self.m.cells]

    def min_jacobian(self):
        res = []
        p = self.m.points[:, :2]
        for c in self.m.cells:
            if not (c.type.startswith("triangle") or c.type.startswith("quad")):
                continue
            k = 3 if c.type.startswith("triangle") else 4
            v = p[c.data[:, :k]]
            a = sum(v[:, i, 0] * v[:, (i + 1) % k, 1] - v[:, (i + 1) % k, 0] * v[:, i, 1]
                    for i in range(k)) / 2
            res.append((c.type + " (corner area)", a.min(), int((a <= 0).sum()), float("nan"), len(a)))
        return res

    def group_nodes(self, name):
        fd = self.m.field_data
        tag = fd[name][0] if name in fd else int(name)
        nodes = set()
        for c, phys in zip(self.m.cells, self.m.cell_data["gmsh:physical"]):
            if c.type.startswith("line"):
                nodes.update(c.data[phys == tag].ravel().tolist())
        return self.m.points[sorted(nodes), :2]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("msh")
    ap.add_argument("--circle", nargs=4, metavar=("X", "Y", "R", "TAG"), action="append", default=[],
                    help="nodes of physical curve TAG (name or number) must lie on the circle")
    ap.add_argument("--periodic", nargs=4, metavar=("A", "B", "DX", "DY"), action="append", default=[],
                    help="nodes of curve B must be those of curve A translated by (DX, DY)")
    ap.add_argument("--naca", metavar="TAG", help="report distance of TAG nodes to NACA0012 (closed TE)")
    ap.add_argument("--tol", type=float, default=1e-8)
    ap.add_argument("--meshio", action="store_true", help="force the meshio backend")
    a = ap.parse_args()
    mesh = None
    if not a.meshio:
        try:
            mesh = GmshMesh(a.msh)
            print("backend: gmsh API")
        except ImportError:
            pass
    if mesh is None:
        mesh = MeshioMesh(a.msh)
        print("backend: meshio (corner-node area sign only)")
    ok = True
    for dim, et, name, nn, n in mesh.counts():
        print("elements: %-28s type %-4s nodes/elem %-3d count %d" % (name, et, nn, n))
    for name, jmin, nbad, rmin, n in mesh.min_jacobian():
        print("jacobian: %-28s min det %.6e  non-positive elems %d/%d  min(detmin/detmax) %.4f"
              % (name, jmin, nbad, n, rmin))
        ok &= nbad == 0
    for x, y, r, tag in a.circle:
        p = mesh.group_nodes(tag)
        err = np.abs(np.hypot(p[:, 0] - float(x), p[:, 1] - float(y)) - float(r))
        print("circle %s: %d nodes, max |r - %s| = %.3e" % (tag, len(p), r, err.max()))
        ok &= err.max() <= a.tol
    for ta, tb, dx, dy in a.periodic:
        pa, pb = mesh.group_nodes(ta), mesh.group_nodes(tb)
        sh = pa + np.array([float(dx), float(dy)])
        d = np.array([np.min(np.hypot(*(pb - q).T)) for q in sh]) if len(pb) else np.array([np.inf])
        print("periodic %s->%s: %d / %d nodes, max pairing distance %.3e" % (ta, tb, len(pa), len(pb), d.max()))
        ok &= len(pa) == len(pb) and d.max() <= a.tol
    if a.naca:
        p = mesh.group_nodes(a.naca)
        d = naca_dist(p)
        i = int(np.argmax(d))
        print("naca %s: %d nodes, max distance to analytic surface %.3e at (%.5f, %.5f), mean %.3e"
              % (a.naca, len(p), d.max(), p[i, 0], p[i, 1], d.mean()))
    print("RESULT:", "OK" if ok else "FAILED")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
