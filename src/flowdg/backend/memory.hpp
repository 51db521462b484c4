#pragma once
// Memory spaces, non-owning views (what kernels capture) and owning arrays.
#include <cstddef>
#include <type_traits>
#include <utility>
#include <vector>

#include "flowdg/backend/backend.hpp"
#include "flowdg/core/error.hpp"
#include "flowdg/core/hd.hpp"

namespace flowdg {

enum class Space { host, device };

constexpr Space space_of(Backend backend) noexcept {
  return backend == Backend::cuda ? Space::device : Space::host;
}

/// Raw allocation in a space. Device out-of-memory throws Error naming the bytes asked for and
/// the bytes free. Zero bytes returns nullptr.
void* allocate_bytes(Space space, std::size_t bytes);
void free_bytes(Space space, void* pointer) noexcept;
void copy_bytes(void* destination, Space destination_space, const void* source, Space source_space,
                std::size_t bytes);
/// Page-locked host memory (cudaMallocHost with CUDA, else ordinary): staging buffers whose copies
/// to and from the device run at the bus's speed. Zero bytes returns nullptr.
void* allocate_pinned(std::size_t bytes);
void free_pinned(void* pointer) noexcept;
/// Bytes currently allocated through allocate_bytes in a space, and the peak.
std::size_t bytes_in_use(Space space) noexcept;
std::size_t peak_bytes(Space space) noexcept;
/// Blocks until all device work is done (no-op on the host).
void synchronize(Backend backend);

/// A pointer plus a length, copied by value into kernels. No ownership.
template <class T>
struct View {
  T* data = nullptr;
  index_t n = 0;
  FLOWDG_HD T& operator[](index_t i) const { return data[i]; }
  FLOWDG_HD index_t size() const { return n; }
  /// A mutable view converts to a read-only one.
  template <class U = T>
    requires(!std::is_const_v<U>)
  FLOWDG_HD operator View<const U>() const { return {data, n}; }
};

/// Owning, move-only array in one memory space.
template <class T>
class Array {
 public:
  Array() = default;
  Array(Space space, index_t n) : space_(space), n_(n) {
    data_ = static_cast<T*>(allocate_bytes(space, sizeof(T) * static_cast<std::size_t>(n)));
  }
  Array(Space space, const std::vector<T>& values) : Array(space, static_cast<index_t>(values.size())) {
    copy_bytes(data_, space_, values.data(), Space::host, sizeof(T) * values.size());
  }
  ~Array() { free_bytes(space_, data_); }
  Array(const Array&) = delete;
  Array& operator=(const Array&) = delete;
  Array(Array&& other) noexcept { swap(other); }
  Array& operator=(Array&& other) noexcept {
    Array moved(std::move(other));
    swap(moved);
    return *this;
  }

  View<T> view() { return {data_, n_}; }
  View<const T> view() const { return {data_, n_}; }
  T* data() { return data_; }
  const T* data() const { return data_; }
  index_t size() const { return n_; }
  Space space() const { return space_; }
  std::size_t bytes() const { return sizeof(T) * static_cast<std::size_t>(n_); }

  std::vector<T> to_host() const {
    std::vector<T> out(static_cast<std::size_t>(n_));
    copy_bytes(out.data(), Space::host, data_, space_, bytes());
    return out;
  }
  void assign(const std::vector<T>& values) {
    FLOWDG_ASSERT(static_cast<index_t>(values.size()) == n_, "size ", values.size(), " != ", n_);
    copy_bytes(data_, space_, values.data(), Space::host, bytes());
  }
  void copy_from(const Array& other) {
    FLOWDG_ASSERT(other.n_ == n_, "size ", other.n_, " != ", n_);
    copy_bytes(data_, space_, other.data_, other.space_, bytes());
  }

 private:
  void swap(Array& other) noexcept {
    std::swap(space_, other.space_);
    std::swap(data_, other.data_);
    std::swap(n_, other.n_);
  }
  Space space_ = Space::host;
  T* data_ = nullptr;
  index_t n_ = 0;
};

/// An owning host buffer in page-locked memory (allocate_pinned), move-only.
template <class T>
class PinnedBuffer {
 public:
  PinnedBuffer() = default;
  explicit PinnedBuffer(std::size_t n) : data_(static_cast<T*>(allocate_pinned(sizeof(T) * n))), n_(n) {
    for (std::size_t i = 0; i < n; ++i) data_[i] = T{};
  }
  ~PinnedBuffer() { free_pinned(data_); }
  PinnedBuffer(const PinnedBuffer&) = delete;
  PinnedBuffer& operator=(const PinnedBuffer&) = delete;
  PinnedBuffer(PinnedBuffer&& other) noexcept { swap(other); }
  PinnedBuffer& operator=(PinnedBuffer&& other) noexcept {
    PinnedBuffer moved(std::move(other));
    swap(moved);
    return *this;
  }
  T* data() { return data_; }
  const T* data() const { return data_; }
  std::size_t size() const { return n_; }
  std::size_t bytes() const { return sizeof(T) * n_; }

 private:
  void swap(PinnedBuffer& other) noexcept {
    std::swap(data_, other.data_);
    std::swap(n_, other.n_);
  }
  T* data_ = nullptr;
  std::size_t n_ = 0;
};

}  // namespace flowdg
