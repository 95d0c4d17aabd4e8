// libFuzzer target for the capture manifest attention-report reads (evaluation/capture_manifest.hpp): scripts/fuzz.sh
// builds and runs it. An input is the bytes of DIR/manifest.json.
//
// Expected outcomes, as `attention-report --input-dir DIR` handles them: a manifest whose scale factors are finite and
// positive and whose summary renders as JSON, or std::invalid_argument with one line naming --input-dir. Everything
// else is a finding: another exception, a crash (deep nesting), a sanitizer report, an allocation beyond
// -malloc_limit_mb, or a failed check (abort with a message).
#include <unistd.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>

#include "evaluation/capture_manifest.hpp"
#include "io/json_file.hpp"

namespace fl = favorlab;

namespace {

[[noreturn]] void bug(const std::string& what) {
  std::fprintf(stderr, "manifest_fuzz: BUG: %s\n", what.c_str());
  std::fflush(stderr);
  std::abort();
}

// The directory the input is written into, removed when the fuzzer exits (libFuzzer ends with exit()).
struct ScratchDir {
  std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("manifest_fuzz-" + std::to_string(::getpid()));
  ScratchDir() { std::filesystem::create_directories(dir); }
  ~ScratchDir() {
    std::error_code ec;
    std::filesystem::remove_all(dir, ec);
  }
};

const std::filesystem::path& scratch() {
  static const ScratchDir scratch_dir;
  return scratch_dir.dir;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto file = scratch() / "manifest.json";
  std::ofstream(file, std::ios::binary | std::ios::trunc)
      .write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
  try {
    const auto manifest = fl::read_capture_manifest(scratch());
    if (!manifest) bug("a manifest.json that exists was read as absent");
    for (int d : {1, 16, 128}) {
      const double factor = fl::q_scale_factor(*manifest, "layer0", d);
      if (!(std::isfinite(factor) && factor > 0)) bug("a scale factor that is not finite and positive");
    }
    if (fl::dump_json(manifest->summary, 1).empty()) bug("an empty summary");
  } catch (const std::invalid_argument& e) {
    const std::string what = e.what();
    if (what.rfind("--input-dir", 0) != 0 || what.find('\n') != std::string::npos)
      bug("a refusal that is not one line naming --input-dir: " + what);
  }
  return 0;
}
