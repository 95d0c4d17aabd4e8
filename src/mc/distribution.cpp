#include "mc/distribution.hpp"

#include <cstdlib>
#include <limits>
#include <stdexcept>

#ifdef FAVORLAB_HAVE_MPI
#include <mpi.h>
#endif

namespace favorlab {

namespace {

int g_scopes = 0;  // live TrialDistributionScopes (the experiment driver's thread only)

#ifdef FAVORLAB_HAVE_MPI
bool g_started = false;  // MPI_Init was called by this process

bool launched_by_mpi() {
  for (const char* name : {"OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_SIZE", "PMI_RANK", "MPI_LOCALNRANKS"})
    if (std::getenv(name) != nullptr) return true;
  return false;
}

void check(int code, const char* what) {
  if (code != MPI_SUCCESS) throw std::runtime_error(std::string("MPI: ") + what + " failed");
}
#endif

}  // namespace

bool mpi_built() {
#ifdef FAVORLAB_HAVE_MPI
  return true;
#else
  return false;
#endif
}

RankInfo process_ranks() {
  RankInfo r;
#ifdef FAVORLAB_HAVE_MPI
  if (g_started) {
    MPI_Comm_rank(MPI_COMM_WORLD, &r.rank);
    MPI_Comm_size(MPI_COMM_WORLD, &r.size);
  }
#endif
  return r;
}

DistributedSession::DistributedSession([[maybe_unused]] int& argc, [[maybe_unused]] char**& argv) {
#ifdef FAVORLAB_HAVE_MPI
  if (!launched_by_mpi()) return;
  // OpenMP threads compute inside a rank; only the main thread calls MPI.
  int provided = 0;
  check(MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided), "MPI_Init_thread");
  g_started = true;
#endif
}

DistributedSession::~DistributedSession() {
#ifdef FAVORLAB_HAVE_MPI
  if (g_started) MPI_Finalize();
  g_started = false;
#endif
}

void end_job(int status) {
#ifdef FAVORLAB_HAVE_MPI
  if (process_ranks().size > 1) MPI_Abort(MPI_COMM_WORLD, status);
#endif
  std::exit(status);
}

TrialDistributionScope::TrialDistributionScope() { ++g_scopes; }
TrialDistributionScope::~TrialDistributionScope() { --g_scopes; }

RankInfo active_trial_distribution() { return g_scopes > 0 ? process_ranks() : RankInfo{}; }

std::vector<std::string> all_gather_bytes(const std::string& mine) {
  const RankInfo r = process_ranks();
  if (r.size == 1) return {mine};
#ifdef FAVORLAB_HAVE_MPI
  if (mine.size() > static_cast<std::size_t>(std::numeric_limits<int>::max()))
    throw std::runtime_error("MPI: a block exchange of more than 2 GiB from one rank");
  const int length = static_cast<int>(mine.size());
  std::vector<int> lengths(static_cast<std::size_t>(r.size)), offsets(static_cast<std::size_t>(r.size));
  check(MPI_Allgather(&length, 1, MPI_INT, lengths.data(), 1, MPI_INT, MPI_COMM_WORLD), "MPI_Allgather");
  long long total = 0;
  for (int i = 0; i < r.size; ++i) {
    offsets[static_cast<std::size_t>(i)] = static_cast<int>(total);
    total += lengths[static_cast<std::size_t>(i)];
    if (total > std::numeric_limits<int>::max()) throw std::runtime_error("MPI: a block exchange of more than 2 GiB");
  }
  std::string all(static_cast<std::size_t>(total), '\0');
  check(MPI_Allgatherv(mine.data(), length, MPI_BYTE, all.data(), lengths.data(), offsets.data(), MPI_BYTE,
                       MPI_COMM_WORLD),
        "MPI_Allgatherv");
  std::vector<std::string> out;
  for (int i = 0; i < r.size; ++i)
    out.push_back(all.substr(static_cast<std::size_t>(offsets[static_cast<std::size_t>(i)]),
                             static_cast<std::size_t>(lengths[static_cast<std::size_t>(i)])));
  return out;
#else
  return {mine};
#endif
}

bool any_rank_failed(bool failed) {
  // Outside a TrialDistributionScope the other ranks are not in this computation (a rank-0 experiment): a
  // collective here would wait for them for ever.
  if (active_trial_distribution().size == 1) return failed;
#ifdef FAVORLAB_HAVE_MPI
  int mine = failed ? 1 : 0, any = 0;
  check(MPI_Allreduce(&mine, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD), "MPI_Allreduce");
  return any != 0;
#else
  return failed;
#endif
}

}  // namespace favorlab
