// libFuzzer target for the Gmsh reader: any input must give a mesh or an InputError; any other
// exception escapes and is reported as a crash, as are memory errors under the sanitizers.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "flowdg/core/error.hpp"
#include "flowdg/mesh/gmsh_reader.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  try {
    flowdg::read_gmsh_from_memory(std::string_view(reinterpret_cast<const char*>(data), size), "fuzz.msh");
  } catch (const flowdg::InputError&) {
  }
  return 0;
}
