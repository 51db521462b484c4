#include "flowdg/parallel/communicator_mpi.hpp"

#include <mpi.h>

#include <dlfcn.h>

#include <cstdlib>
#include <cstring>
#include <string>

#include "flowdg/core/error.hpp"

namespace flowdg {

namespace {

void check(int code, const char* what) {
  if (code != MPI_SUCCESS) throw Error(cat("MPI: ", what, " failed (error ", code, ")"));
}

struct Requests final : Communicator::Pending {
  std::vector<MPI_Request> requests;
  void wait() override {
    if (requests.empty()) return;
    check(MPI_Waitall(static_cast<int>(requests.size()), requests.data(), MPI_STATUSES_IGNORE), "MPI_Waitall");
    requests.clear();
  }
  ~Requests() override {
    if (!requests.empty()) MPI_Waitall(static_cast<int>(requests.size()), requests.data(), MPI_STATUSES_IGNORE);
  }
};

/// Whether the MPI library loaded at run time takes device pointers (detect_cuda_aware()'s answer and
/// how it was found).
struct CudaAwareness {
  bool aware = false;
  const char* how = "";
};

/// At run time, not from the headers built against (the bundle runs on the GPU machine's own Open
/// MPI): Open MPI's MPIX_Query_cuda_support() or MPICH's MPIX_GPU_query_support(CUDA), looked up
/// with dlsym so that a library without them still loads; FLOWDG_CUDA_AWARE_MPI=0/1 overrides.
CudaAwareness detect_cuda_aware() {
  if (const char* forced = std::getenv("FLOWDG_CUDA_AWARE_MPI"); forced != nullptr && *forced != '\0')
    return {std::strcmp(forced, "0") != 0, "FLOWDG_CUDA_AWARE_MPI"};
  using OpenMpiQuery = int (*)();
  if (void* symbol = dlsym(RTLD_DEFAULT, "MPIX_Query_cuda_support"); symbol != nullptr) {
    OpenMpiQuery query = nullptr;
    std::memcpy(&query, &symbol, sizeof query);
    return {query() == 1, "MPIX_Query_cuda_support"};
  }
  using MpichQuery = int (*)(int, int*);
  if (void* symbol = dlsym(RTLD_DEFAULT, "MPIX_GPU_query_support"); symbol != nullptr) {
    MpichQuery query = nullptr;
    std::memcpy(&query, &symbol, sizeof query);
    int supported = 0;
    constexpr int mpix_gpu_support_cuda = 0;  // MPICH's MPIX_GPU_SUPPORT_CUDA
    return {query(mpix_gpu_support_cuda, &supported) == MPI_SUCCESS && supported != 0, "MPIX_GPU_query_support"};
  }
  return {false, "no query in this MPI library"};
}

class Mpi final : public Communicator {
 public:
  Mpi() : cuda_(detect_cuda_aware()) {
    check(MPI_Comm_rank(MPI_COMM_WORLD, &rank_), "MPI_Comm_rank");
    check(MPI_Comm_size(MPI_COMM_WORLD, &size_), "MPI_Comm_size");
  }
  bool cuda_aware() const override { return cuda_.aware; }
  int rank() const override { return rank_; }
  int size() const override { return size_; }
  double min(double value) const override {
    double out = 0;
    check(MPI_Allreduce(&value, &out, 1, MPI_DOUBLE, MPI_MIN, MPI_COMM_WORLD), "MPI_Allreduce");
    return out;
  }
  double sum(double value) const override {
    double out = 0;
    check(MPI_Allreduce(&value, &out, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD), "MPI_Allreduce");
    return out;
  }
  void sum(std::vector<double>& values) const override {
    check(MPI_Allreduce(MPI_IN_PLACE, values.data(), static_cast<int>(values.size()), MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD),
          "MPI_Allreduce");
  }
  void broadcast(std::vector<int>& values, int root) const override {
    long long n = static_cast<long long>(values.size());
    check(MPI_Bcast(&n, 1, MPI_LONG_LONG, root, MPI_COMM_WORLD), "MPI_Bcast");
    values.resize(static_cast<std::size_t>(n));
    check(MPI_Bcast(values.data(), static_cast<int>(n), MPI_INT, root, MPI_COMM_WORLD), "MPI_Bcast");
  }
  std::vector<double> gather(const std::vector<double>& values, int root) const override {
    const int n = static_cast<int>(values.size());
    std::vector<int> counts(static_cast<std::size_t>(size_)), offsets(static_cast<std::size_t>(size_), 0);
    check(MPI_Gather(&n, 1, MPI_INT, counts.data(), 1, MPI_INT, root, MPI_COMM_WORLD), "MPI_Gather");
    std::vector<double> out;
    if (rank_ == root) {
      long long total = 0;
      for (int r = 0; r < size_; ++r) {
        offsets[static_cast<std::size_t>(r)] = static_cast<int>(total);
        total += counts[static_cast<std::size_t>(r)];
      }
      if (total > 2147483647LL) throw Error(cat("MPI: a gather of ", total, " values exceeds MPI's int counts"));
      out.resize(static_cast<std::size_t>(total));
    }
    check(MPI_Gatherv(values.data(), n, MPI_DOUBLE, out.data(), counts.data(), offsets.data(), MPI_DOUBLE, root, MPI_COMM_WORLD),
          "MPI_Gatherv");
    return out;
  }
  std::vector<long long> all_gather(const std::vector<long long>& values) const override {
    const int n = static_cast<int>(values.size());
    std::vector<int> counts(static_cast<std::size_t>(size_)), offsets(static_cast<std::size_t>(size_), 0);
    check(MPI_Allgather(&n, 1, MPI_INT, counts.data(), 1, MPI_INT, MPI_COMM_WORLD), "MPI_Allgather");
    long long total = 0;
    for (int r = 0; r < size_; ++r) {
      offsets[static_cast<std::size_t>(r)] = static_cast<int>(total);
      total += counts[static_cast<std::size_t>(r)];
    }
    std::vector<long long> out(static_cast<std::size_t>(total));
    check(MPI_Allgatherv(values.data(), n, MPI_LONG_LONG, out.data(), counts.data(), offsets.data(), MPI_LONG_LONG, MPI_COMM_WORLD),
          "MPI_Allgatherv");
    return out;
  }
  void barrier() const override { check(MPI_Barrier(MPI_COMM_WORLD), "MPI_Barrier"); }
  [[noreturn]] void abort(int code) const override {
    MPI_Abort(MPI_COMM_WORLD, code);
    std::exit(code);
  }
  std::unique_ptr<Pending> start(const std::vector<Message>& sends, const std::vector<Message>& receives) const override {
    auto pending = std::make_unique<Requests>();
    pending->requests.resize(sends.size() + receives.size());
    std::size_t i = 0;
    for (const Message& m : receives) {
      if (m.bytes > 2147483647ULL) throw Error(cat("MPI: a halo message of ", m.bytes, " bytes exceeds MPI's int counts"));
      check(MPI_Irecv(m.data, static_cast<int>(m.bytes), MPI_BYTE, m.rank, 1, MPI_COMM_WORLD, &pending->requests[i++]), "MPI_Irecv");
    }
    for (const Message& m : sends) {
      if (m.bytes > 2147483647ULL) throw Error(cat("MPI: a halo message of ", m.bytes, " bytes exceeds MPI's int counts"));
      check(MPI_Isend(m.data, static_cast<int>(m.bytes), MPI_BYTE, m.rank, 1, MPI_COMM_WORLD, &pending->requests[i++]), "MPI_Isend");
    }
    return pending;
  }
  std::string describe() const override {
    char version[MPI_MAX_LIBRARY_VERSION_STRING] = {};
    int length = 0;
    MPI_Get_library_version(version, &length);
    std::string name(version, static_cast<std::size_t>(length));
    if (const auto cut = name.find_first_of(",\n"); cut != std::string::npos) name.resize(cut);
    return cat("MPI, ", size_, " ranks (", name, "; CUDA-aware: ", cuda_.aware ? "yes" : "no", ", by ", cuda_.how, ")");
  }
  void exchange(const HaloPlan& plan, std::vector<double>& data, int width) const override {
    const std::size_t n = plan.neighbours.size(), w = static_cast<std::size_t>(width);
    std::vector<std::vector<double>> outgoing(n), incoming(n);
    std::vector<MPI_Request> requests(2 * n);
    for (std::size_t i = 0; i < n; ++i) {
      const HaloPlan::Neighbour& neighbour = plan.neighbours[i];
      incoming[i].resize(neighbour.receive.size() * w);
      check(MPI_Irecv(incoming[i].data(), static_cast<int>(incoming[i].size()), MPI_DOUBLE, neighbour.part, 0, MPI_COMM_WORLD,
                      &requests[i]),
            "MPI_Irecv");
    }
    for (std::size_t i = 0; i < n; ++i) {
      const HaloPlan::Neighbour& neighbour = plan.neighbours[i];
      outgoing[i].reserve(neighbour.send.size() * w);
      for (const index_t e : neighbour.send)
        for (std::size_t c = 0; c < w; ++c) outgoing[i].push_back(data[static_cast<std::size_t>(e) * w + c]);
      check(MPI_Isend(outgoing[i].data(), static_cast<int>(outgoing[i].size()), MPI_DOUBLE, neighbour.part, 0, MPI_COMM_WORLD,
                      &requests[n + i]),
            "MPI_Isend");
    }
    check(MPI_Waitall(static_cast<int>(requests.size()), requests.data(), MPI_STATUSES_IGNORE), "MPI_Waitall");
    for (std::size_t i = 0; i < n; ++i) {
      const HaloPlan::Neighbour& neighbour = plan.neighbours[i];
      for (std::size_t k = 0; k < neighbour.receive.size(); ++k)
        for (std::size_t c = 0; c < w; ++c) data[static_cast<std::size_t>(neighbour.receive[k]) * w + c] = incoming[i][k * w + c];
    }
  }

 private:
  CudaAwareness cuda_;
  int rank_ = 0, size_ = 1;
};

}  // namespace

std::unique_ptr<Communicator> mpi_communicator() { return std::make_unique<Mpi>(); }

bool launched_by_mpi() {
  for (const char* name : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK"})
    if (std::getenv(name) != nullptr) return true;
  return false;
}

int node_local_rank() {
  for (const char* name : {"OMPI_COMM_WORLD_LOCAL_RANK", "MPI_LOCALRANKID", "SLURM_LOCALID"})
    if (const char* value = std::getenv(name); value != nullptr) return std::atoi(value);
  return 0;
}

MpiSession::MpiSession(int& argc, char**& argv) {
  int provided = 0;
  check(MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided), "MPI_Init_thread");
}

MpiSession::~MpiSession() {
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (finalized == 0) MPI_Finalize();
}

}  // namespace flowdg
