#pragma once
// Items (half-faces, elements) grouped by one node id each, for the mesh set-up passes that look
// for items with equal vertex sets: grouping by the smallest vertex is a counting sort, O(N) and
// parallel, and leaves buckets of a few items that the caller sorts itself. Much faster and leaner
// than sorting all items by their whole vertex list once meshes have tens of millions of elements.
#include <algorithm>
#include <memory>

#ifdef _OPENMP
#include <omp.h>
#endif

#include "flowdg/core/hd.hpp"

namespace flowdg::detail {

struct NodeBuckets {
  /// Bucket v is items[begin(v), end(v)); the order inside a bucket is unspecified (threads race to
  /// fill it), so callers sort each bucket by a total order before using it. Plain arrays, not
  /// vectors: a vector would zero its gigabytes on one thread before the parallel passes fill them.
  std::unique_ptr<index_t[]> ends;
  std::unique_ptr<index_t[]> items;
  index_t begin(index_t v) const { return v == 0 ? 0 : ends[v - 1]; }
  index_t end(index_t v) const { return ends[v]; }
};

/// Groups items 0..n_items-1 by node_of(item), which must lie in [0, n_nodes) or be negative
/// (the item is left out). node_of is called twice per item, from several threads.
template <class NodeOf>
NodeBuckets bucket_by_node(index_t n_items, index_t n_nodes, NodeOf node_of) {
  NodeBuckets buckets;
  buckets.ends.reset(new index_t[n_nodes + 1]);
  index_t* ends = buckets.ends.get();
#pragma omp parallel for schedule(static)
  for (index_t v = 0; v <= n_nodes; ++v) ends[v] = 0;
#pragma omp parallel for schedule(static)
  for (index_t i = 0; i < n_items; ++i) {
    const index_t v = node_of(i);
    if (v < 0) continue;
#pragma omp atomic update
    ++ends[v];
  }
  // Exclusive prefix sum: ends[v] = start of bucket v; ends[n_nodes] = the number of items.
  index_t total = 0;
  for (index_t v = 0; v <= n_nodes; ++v) {
    const index_t count = ends[v];
    ends[v] = total;
    total += count;
  }
  // Each placement advances its bucket's start, which leaves ends[v] at the end of bucket v.
  buckets.items.reset(new index_t[total]);
#pragma omp parallel for schedule(static)
  for (index_t i = 0; i < n_items; ++i) {
    const index_t v = node_of(i);
    if (v < 0) continue;
    index_t position;
#pragma omp atomic capture
    position = ends[v]++;
    buckets.items[position] = i;
  }
  return buckets;
}

/// Sorts one bucket: insertion sort for the usual handful of items, where it beats std::sort;
/// std::sort for the rare large bucket (a node shared by very many elements). Where the order is
/// used, `less` must be a total order on the bucket's items, so that both give the same result.
template <class T, class Less>
void sort_bucket(T* first, T* last, Less less) {
  if (last - first > 32) {
    std::sort(first, last, less);
    return;
  }
  for (T* i = first + 1; i < last; ++i) {
    T value = *i;
    T* j = i;
    for (; j > first && less(value, *(j - 1)); --j) *j = *(j - 1);
    *j = value;
  }
}

}  // namespace flowdg::detail
