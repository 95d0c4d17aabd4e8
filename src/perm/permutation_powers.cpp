#include "perm/permutation_powers.hpp"

#include <limits>
#include <stdexcept>
#include <string>

namespace favorlab {

PermutationPowers::PermutationPowers(const Permutation& pi, std::int64_t length) : length_(length), m_(pi.size()) {
  if (length <= 0)
    throw std::invalid_argument("PermutationPowers: length must be >= 1, got " + std::to_string(length));
  if (length > std::numeric_limits<std::int32_t>::max() / m_)
    throw std::invalid_argument("PermutationPowers: length * size exceeds the int32 range of one table");
  table_.resize(static_cast<std::size_t>(length * m_));
  for (int a = 0; a < m_; ++a) table_[static_cast<std::size_t>(a)] = a;
  const std::vector<int>& image = pi.image();
  for (std::int64_t i = 1; i < length; ++i) {
    const std::int32_t* prev = row(i - 1);
    std::int32_t* cur = table_.data() + i * m_;
    // π^i(a) = π(π^{i−1}(a)): one composition per row, O(m).
    for (int a = 0; a < m_; ++a) cur[a] = image[static_cast<std::size_t>(prev[a])];
  }
}

}  // namespace favorlab
