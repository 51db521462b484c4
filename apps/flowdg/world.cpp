// The process's communicator (commands.hpp: world): set once by main() when MPI launched it.
#include "commands.hpp"

namespace flowdg::cli {

namespace {
std::shared_ptr<const Communicator>& slot() {
  static std::shared_ptr<const Communicator> communicator = serial_communicator();
  return communicator;
}
}  // namespace

const std::shared_ptr<const Communicator>& world() { return slot(); }
void set_world(std::shared_ptr<const Communicator> communicator) { slot() = std::move(communicator); }

}  // namespace flowdg::cli
