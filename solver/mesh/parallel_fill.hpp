// Sizing the large set-up arrays so that their memory is first touched by all threads.
//
// A fresh large allocation is mapped lazily: its pages are faulted in by whoever touches them
// first, which for std::vector::resize is one thread zeroing the whole array. For the set-up of a
// mesh with millions of elements those page faults cost more than the computation (measured on a
// 2-core VM: 0.75 s per GB faulted, against 0.15 s per GB written), so the arrays are faulted in
// here by all threads before resize() zeroes them (then without faults), and the callers fill them
// in parallel loops. Only for trivially copyable element types.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <type_traits>
#include <vector>

namespace dgmax {

// v.resize(n) (value-initialized, as resize does) for an empty v, with the pages touched in parallel.
template <class T>
void resize_parallel(std::vector<T>& v, size_t n) {
  static_assert(std::is_trivially_copyable_v<T>, "resize_parallel is for plain data");
  v.clear();
  v.shrink_to_fit();
  v.reserve(n);
  const size_t bytes = n * sizeof(T);
  constexpr size_t kChunk = size_t(1) << 20;
  if (bytes >= 4 * kChunk) {
    // raw storage obtained by reserve(); resize() below constructs the elements over it
    char* raw = reinterpret_cast<char*>(v.data());
    const long long chunks = static_cast<long long>((bytes + kChunk - 1) / kChunk);
#pragma omp parallel for schedule(static)
    for (long long c = 0; c < chunks; ++c) {
      const size_t begin = static_cast<size_t>(c) * kChunk;
      std::memset(raw + begin, 0, std::min(kChunk, bytes - begin));
    }
  }
  v.resize(n);
}

// v.resize(n) (value-initialized) for an empty v, its pages first touched slice by slice by the
// threads of an OpenMP schedule(static) loop over the ceil(n / slice) slices of `slice` elements:
// a loop over the same slices with the same schedule and thread count then streams memory that
// lies on its own threads' NUMA node (one thread's zeroing would put all of it on one node).
template <class T>
void resize_first_touch(std::vector<T>& v, size_t n, size_t slice) {
  static_assert(std::is_trivially_copyable_v<T>, "resize_first_touch is for plain data");
  v.clear();
  v.shrink_to_fit();
  v.reserve(n);
  char* raw = reinterpret_cast<char*>(v.data());
  const long long parts = static_cast<long long>((n + slice - 1) / std::max<size_t>(slice, 1));
#pragma omp parallel for schedule(static)
  for (long long i = 0; i < parts; ++i) {
    const size_t begin = static_cast<size_t>(i) * slice;
    std::memset(raw + begin * sizeof(T), 0, std::min(slice, n - begin) * sizeof(T));
  }
  v.resize(n);
}

// Every entry of v set to `value` on all threads (in place: the pages stay where they are).
template <class T>
void fill_parallel(std::vector<T>& v, const T& value) {
  T* p = v.data();
  const long long count = static_cast<long long>(v.size());
#pragma omp parallel for schedule(static)
  for (long long i = 0; i < count; ++i) p[i] = value;
}

// resize_parallel, then every element set to `value` in parallel.
template <class T>
void assign_parallel(std::vector<T>& v, size_t n, const T& value) {
  resize_parallel(v, n);
  fill_parallel(v, value);
}

// dst[i] = To(src[i]) for i < n on all threads: a backend's state and its host copies in the
// other precision (gigabytes at K = 384,000, N = 6: one thread's loop took seconds of a plan search).
template <class To, class From>
void convert_parallel(To* dst, const From* src, size_t n) {
#pragma omp parallel for schedule(static)
  for (long long i = 0; i < static_cast<long long>(n); ++i) dst[i] = static_cast<To>(src[i]);
}

}  // namespace dgmax
