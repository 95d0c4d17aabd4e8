#pragma once
// Monte Carlo trials spread over the ranks of an MPI job (`mpirun -np N favorlab <experiment>`, Slurm `srun`).
// favorlab is built with MPI when CMake finds it (FAVORLAB_MPI); without it, or when the process was not started by
// an MPI launcher, every function here describes a single process of rank 0 and never communicates.
//
// The contract with run_parallel_trials (parallel_trials.hpp): while a TrialDistributionScope is alive and the job has
// N > 1 ranks, trial block b of every wave is computed by rank b mod N only (with OpenMP threads inside the rank), the
// blocks' accumulators are exchanged (all_gather_bytes) and every rank merges all of them in block order. The blocks,
// their contents and the merge order are those of a single process, so the totals — and the rows — are bit-identical
// to a single-process run with the same seed, for any N and any thread count. Every rank runs the experiment's code,
// so every rank reaches the same sequence of collective calls.
#include <cstdint>
#include <string>
#include <vector>

namespace favorlab {

struct RankInfo {
  int rank = 0;
  int size = 1;
};

// Whether this binary was built with MPI.
bool mpi_built();

// This process's place in the job: {0, 1} without MPI or outside an MPI launcher.
RankInfo process_ranks();

// Starts MPI for the lifetime of the object when the process was started by an MPI launcher (Open MPI's mpirun,
// Slurm's srun, MPICH's hydra: recognised by their environment variables); does nothing otherwise, so a plain
// `favorlab` never pays for MPI. One per process (main).
class DistributedSession {
 public:
  DistributedSession(int& argc, char**& argv);
  ~DistributedSession();
  DistributedSession(const DistributedSession&) = delete;
  DistributedSession& operator=(const DistributedSession&) = delete;
};

// While alive, run_parallel_trials splits its blocks over the ranks (when there are several). Experiments whose trials
// are independent Monte Carlo blocks run inside one (cli/run_experiment.cpp); nothing else does.
class TrialDistributionScope {
 public:
  TrialDistributionScope();
  ~TrialDistributionScope();
  TrialDistributionScope(const TrialDistributionScope&) = delete;
  TrialDistributionScope& operator=(const TrialDistributionScope&) = delete;
};

// The ranks run_parallel_trials splits blocks over now: process_ranks() inside a TrialDistributionScope, else {0, 1}.
RankInfo active_trial_distribution();

// Ends every rank of the job with `status` (MPI_Abort) when there are several: after a failure that one rank may meet
// alone, the others could be waiting in a collective, and MPI_Finalize on this rank would wait for them for ever.
// Single process: std::exit(status).
[[noreturn]] void end_job(int status);

// Collective over all ranks: every rank's bytes, in rank order. Single process: {mine}.
std::vector<std::string> all_gather_bytes(const std::string& mine);

// Collective over the ranks sharing trial blocks (active_trial_distribution()): whether any of them passed true.
// Single process, or outside a TrialDistributionScope (an experiment rank 0 runs alone): failed.
bool any_rank_failed(bool failed);

}  // namespace favorlab
