#pragma once
// Bytes of a trial-block accumulator, for sending it to the other ranks of an MPI job (distribution.hpp) and
// rebuilding it there bit for bit. An accumulator is encoded when it is
//   trivially copyable (its bytes as they are), or
//   a class with `auto fields()` returning std::tie(...) of its members, each trivially copyable, a std::vector of
//   trivially copyable elements, or a std::map of trivially copyable keys and values.
// Vectors and maps carry their sizes; decode throws std::runtime_error on bytes that run out or are left over.
#include <cstdint>
#include <cstring>
#include <map>
#include <stdexcept>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <vector>

namespace favorlab {

namespace codec_detail {

template <class T>
void put(std::string& out, const T& v) requires std::is_trivially_copyable_v<T> {
  out.append(reinterpret_cast<const char*>(&v), sizeof(T));
}

template <class T>
void get(std::string_view& in, T& v) requires std::is_trivially_copyable_v<T> {
  if (in.size() < sizeof(T)) throw std::runtime_error("block codec: the bytes ran out");
  std::memcpy(&v, in.data(), sizeof(T));
  in.remove_prefix(sizeof(T));
}

template <class T>
void put(std::string& out, const std::vector<T>& v) requires std::is_trivially_copyable_v<T> {
  put(out, static_cast<std::uint64_t>(v.size()));
  out.append(reinterpret_cast<const char*>(v.data()), v.size() * sizeof(T));
}

template <class T>
void get(std::string_view& in, std::vector<T>& v) requires std::is_trivially_copyable_v<T> {
  std::uint64_t n = 0;
  get(in, n);
  if (n > in.size() / (sizeof(T) > 0 ? sizeof(T) : 1)) throw std::runtime_error("block codec: the bytes ran out");
  v.resize(static_cast<std::size_t>(n));
  if (n > 0) std::memcpy(v.data(), in.data(), v.size() * sizeof(T));  // an empty vector's data() may be null
  in.remove_prefix(v.size() * sizeof(T));
}

template <class K, class V>
void put(std::string& out, const std::map<K, V>& m)
  requires(std::is_trivially_copyable_v<K> && std::is_trivially_copyable_v<V>) {
  put(out, static_cast<std::uint64_t>(m.size()));
  for (const auto& [k, v] : m) {
    put(out, k);
    put(out, v);
  }
}

template <class K, class V>
void get(std::string_view& in, std::map<K, V>& m)
  requires(std::is_trivially_copyable_v<K> && std::is_trivially_copyable_v<V>) {
  std::uint64_t n = 0;
  get(in, n);
  if (n > in.size() / (sizeof(K) + sizeof(V))) throw std::runtime_error("block codec: the bytes ran out");
  m.clear();
  for (std::uint64_t i = 0; i < n; ++i) {
    K k{};
    V v{};
    get(in, k);
    get(in, v);
    m.emplace_hint(m.end(), k, v);
  }
}

}  // namespace codec_detail

// Accumulators this header can encode (others are not exchanged: run_parallel_trials computes them whole on every rank).
template <class Acc>
concept BlockEncodable = std::is_trivially_copyable_v<Acc> || requires(Acc& a) { a.fields(); };

template <class Acc>
void encode_block(const Acc& acc, std::string& out) {
  if constexpr (std::is_trivially_copyable_v<Acc>) {
    codec_detail::put(out, acc);
  } else {
    std::apply([&](const auto&... f) { (codec_detail::put(out, f), ...); }, const_cast<Acc&>(acc).fields());
  }
}

template <class Acc>
void decode_block(std::string_view& in, Acc& acc) {
  if constexpr (std::is_trivially_copyable_v<Acc>) {
    codec_detail::get(in, acc);
  } else {
    std::apply([&](auto&... f) { (codec_detail::get(in, f), ...); }, acc.fields());
  }
}

}  // namespace favorlab
