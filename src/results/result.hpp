#pragma once
// The result document of one experiment run (docs/results-format.md#result-json), schema favorlab.result/1:
// { schema, experiment, params, provenance, rows, checks }.
#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "stats/claim_check.hpp"

namespace favorlab {

using Json = nlohmann::ordered_json;

// A verdict in JSON is its name ("holds", ...), also where a row records a point's verdict.
NLOHMANN_JSON_SERIALIZE_ENUM(Verdict, {{Verdict::holds, "holds"},
                                       {Verdict::violated, "violated"},
                                       {Verdict::inconclusive, "inconclusive"},
                                       {Verdict::measured, "measured"}})

struct Result {
  std::string experiment;
  Json params = Json::object();
  Json rows = Json::array();
  std::vector<Check> checks;
  Json measurements = Json::object();  // run-level figures that go into provenance (e.g. throughput)
  std::string text;                    // a report for the terminal, printed on stdout after the file is written
};

struct RunInfo {
  int threads = 1;
  double wall_seconds = 0;
  int mpi_ranks = 1;              // ranks of the MPI job (1: a single process)
  std::string distribution;       // under MPI: how the work was split ("trial blocks over ranks", "rank 0 alone")
  double memory_estimate_bytes = -1;  // the peak predicted before the run (runtime/memory_budget.hpp); < 0: none
  double peak_memory_bytes = -1;      // the process's resident high-water mark after the run; < 0: unavailable
};

// A number for a result file: NaN (not defined) and ±∞ become null, JSON having no such numbers.
Json number_or_null(double v);
// A trial count for a row or check: null where it stands for "out of reach" (kOutOfReach, stats/check.hpp).
Json trials_json(std::int64_t trials);

const char* git_commit();  // generated at build time

Json check_json(const Check& c);
// The instruction sets this build was compiled for (the compiler's target macros: "SSE2, AVX, AVX2, FMA" on an
// AVX2 machine with FAVORLAB_ARCH=native, "SSE2" for a portable x86-64 build).
std::string compiled_instruction_sets();

Json provenance_json(const RunInfo& info);
Json result_json(const Result& r, const RunInfo& info);

}  // namespace favorlab
