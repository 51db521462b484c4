#pragma once
#include "flowdg/core/hd.hpp"

namespace flowdg {

/// A point or vector in up to three dimensions (unused coordinates are zero).
struct Point3 {
  double x = 0, y = 0, z = 0;
};

FLOWDG_HD inline Point3 operator+(Point3 a, Point3 b) { return {a.x + b.x, a.y + b.y, a.z + b.z}; }
FLOWDG_HD inline Point3 operator-(Point3 a, Point3 b) { return {a.x - b.x, a.y - b.y, a.z - b.z}; }
FLOWDG_HD inline Point3 operator*(double s, Point3 a) { return {s * a.x, s * a.y, s * a.z}; }
FLOWDG_HD inline double dot(Point3 a, Point3 b) { return a.x * b.x + a.y * b.y + a.z * b.z; }
FLOWDG_HD inline Point3 cross(Point3 a, Point3 b) {
  return {a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x};
}

}  // namespace flowdg
