#include "runtime/thread_start.hpp"

#include <pthread.h>

#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <stdexcept>
#include <vector>

#include "io/format_number.hpp"
#include "io/input_file.hpp"

namespace favorlab {

std::optional<std::size_t> parse_openmp_stack_size(const std::string& text) {
  std::size_t i = 0;
  auto blanks = [&] {
    while (i < text.size() && std::isspace(static_cast<unsigned char>(text[i]))) ++i;
  };
  blanks();
  const std::size_t digits_from = i;
  unsigned long long value = 0;
  for (; i < text.size() && std::isdigit(static_cast<unsigned char>(text[i])); ++i) {
    const unsigned digit = static_cast<unsigned>(text[i] - '0');
    if (value > (std::numeric_limits<unsigned long long>::max() - digit) / 10) return std::nullopt;
    value = value * 10 + digit;
  }
  if (i == digits_from || value == 0) return std::nullopt;
  blanks();
  unsigned shift = 10;  // KiB unless a unit says otherwise
  if (i < text.size()) {
    switch (std::tolower(static_cast<unsigned char>(text[i]))) {
      case 'b': shift = 0; break;
      case 'k': shift = 10; break;
      case 'm': shift = 20; break;
      case 'g': shift = 30; break;
      default: return std::nullopt;
    }
    ++i;
    blanks();
  }
  if (i != text.size()) return std::nullopt;
  if (value > (std::numeric_limits<std::size_t>::max() >> shift)) return std::nullopt;
  return static_cast<std::size_t>(value) << shift;
}

namespace {

pthread_mutex_t gate = PTHREAD_MUTEX_INITIALIZER;

void* wait_at_gate(void*) {
  pthread_mutex_lock(&gate);  // held by the prober until every thread exists: all are alive at once
  pthread_mutex_unlock(&gate);
  return nullptr;
}

std::string stack_setting(std::optional<std::size_t>& size) {
  for (const char* name : {"OMP_STACKSIZE", "GOMP_STACKSIZE"}) {
    const char* value = std::getenv(name);
    if (value == nullptr) continue;
    // GOMP_STACKSIZE is a plain number of KiB; the OMP_ form's default unit is KiB too.
    size = parse_openmp_stack_size(value);
    if (size) return std::string(name) + "=" + printable(value);
  }
  return "";
}

}  // namespace

void check_threads_can_start(int threads) {
  if (threads <= 1) return;
  std::optional<std::size_t> stack;
  const std::string setting = stack_setting(stack);
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  if (stack && *stack >= static_cast<std::size_t>(PTHREAD_STACK_MIN)) pthread_attr_setstacksize(&attr, *stack);
  std::vector<pthread_t> started;
  int error = 0;
  pthread_mutex_lock(&gate);
  for (int t = 1; t < threads && error == 0; ++t) {
    pthread_t id;
    error = pthread_create(&id, &attr, wait_at_gate, nullptr);
    if (error == 0) started.push_back(id);
  }
  pthread_mutex_unlock(&gate);
  for (pthread_t id : started) pthread_join(id, nullptr);
  pthread_attr_destroy(&attr);
  if (error != 0)
    throw std::invalid_argument(
        "cannot start " + std::to_string(threads) + " threads: " + std::strerror(error) +
        (setting.empty() ? std::string(" (a process or thread limit); lower --threads")
                         : " (stack size " + format_number(static_cast<double>(*stack), 3) + " bytes per thread from " +
                               setting + "); lower --threads or the stack size"));
}

}  // namespace favorlab
