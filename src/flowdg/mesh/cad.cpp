#include "flowdg/mesh/cad.hpp"

#include <dlfcn.h>

#include <cmath>
#include <cstddef>
#include <limits>
#include <mutex>

#include "flowdg/core/error.hpp"

namespace flowdg {

namespace {

// The few functions of Gmsh's C API (gmshc.h) this module calls.
struct GmshApi {
  void (*initialize)(int, char**, const int, int*) = nullptr;
  void (*option_set_number)(const char*, const double, int*) = nullptr;
  void (*open)(const char*, int*) = nullptr;
  void (*get_entities)(int**, std::size_t*, const int, int*) = nullptr;
  void (*closest_point)(const int, const int, double*, std::size_t, double**, std::size_t*, double**, std::size_t*, int*) = nullptr;
  void (*free)(void*) = nullptr;
  bool loaded = false;
  std::string error;
};

GmshApi& api() {
  static GmshApi gmsh;
  static std::once_flag once;
  std::call_once(once, [] {
    void* library = nullptr;
    for (const char* name : {"libgmsh.so", "libgmsh.so.4.12", "libgmsh.so.4.11", "libgmsh.so.4.8"})
      if ((library = dlopen(name, RTLD_NOW | RTLD_LOCAL)) != nullptr) break;
    if (library == nullptr) {
      gmsh.error = "Gmsh's API (libgmsh.so) is not installed: CAD walls need it (Debian: apt-get install libgmsh-dev)";
      return;
    }
    const auto symbol = [&](const char* name) {
      void* address = dlsym(library, name);
      if (address == nullptr && gmsh.error.empty()) gmsh.error = cat("libgmsh.so lacks ", name);
      return address;
    };
    gmsh.initialize = reinterpret_cast<decltype(gmsh.initialize)>(symbol("gmshInitialize"));
    gmsh.option_set_number = reinterpret_cast<decltype(gmsh.option_set_number)>(symbol("gmshOptionSetNumber"));
    gmsh.open = reinterpret_cast<decltype(gmsh.open)>(symbol("gmshOpen"));
    gmsh.get_entities = reinterpret_cast<decltype(gmsh.get_entities)>(symbol("gmshModelGetEntities"));
    gmsh.closest_point = reinterpret_cast<decltype(gmsh.closest_point)>(symbol("gmshModelGetClosestPoint"));
    gmsh.free = reinterpret_cast<decltype(gmsh.free)>(symbol("gmshFree"));
    if (!gmsh.error.empty()) return;
    int error = 0;
    gmsh.initialize(0, nullptr, 0, &error);
    if (error == 0) gmsh.option_set_number("General.Terminal", 0, &error);
    if (error != 0) {
      gmsh.error = "Gmsh's API did not initialise";
      return;
    }
    gmsh.loaded = true;
  });
  return gmsh;
}

/// The model in Gmsh's memory and its surfaces.
struct LoadedModel {
  std::string file;
  std::vector<int> surfaces;
};

const LoadedModel& load(const std::string& file) {
  static LoadedModel model;
  GmshApi& gmsh = api();
  if (!gmsh.loaded) throw InputError(gmsh.error);
  if (model.file == file) return model;
  int error = 0;
  gmsh.open(file.c_str(), &error);
  if (error != 0) throw InputError(cat("cannot read the CAD model ", file, " (through Gmsh's API)"));
  int* tags = nullptr;
  std::size_t n = 0;
  gmsh.get_entities(&tags, &n, 2, &error);
  model.surfaces.clear();
  for (std::size_t i = 1; i < n; i += 2) model.surfaces.push_back(tags[i]);
  gmsh.free(tags);
  if (model.surfaces.empty()) throw InputError(cat("the CAD model ", file, " has no surfaces"));
  model.file = file;
  return model;
}

}  // namespace

bool cad_available() { return api().loaded; }

Point3 cad_closest_point(const std::string& file, const std::vector<int>& surfaces, Point3 x) {
  const LoadedModel& model = load(file);
  GmshApi& gmsh = api();
  const std::vector<int>& tags = surfaces.empty() ? model.surfaces : surfaces;
  Point3 best = x;
  double best_distance = std::numeric_limits<double>::infinity();
  for (const int tag : tags) {
    double coordinates[3] = {x.x, x.y, x.z};
    double* closest = nullptr;
    double* parametric = nullptr;
    std::size_t n_closest = 0, n_parametric = 0;
    int error = 0;
    gmsh.closest_point(2, tag, coordinates, 3, &closest, &n_closest, &parametric, &n_parametric, &error);
    if (error != 0 || n_closest != 3) {
      if (closest != nullptr) gmsh.free(closest);
      if (parametric != nullptr) gmsh.free(parametric);
      throw InputError(cat("the CAD model ", file, " has no surface ", tag, " to project onto"));
    }
    const Point3 p{closest[0], closest[1], closest[2]};
    gmsh.free(closest);
    gmsh.free(parametric);
    const Point3 d = p - x;
    const double distance = std::sqrt(dot(d, d));
    if (distance < best_distance) {
      best_distance = distance;
      best = p;
    }
  }
  return best;
}

}  // namespace flowdg
