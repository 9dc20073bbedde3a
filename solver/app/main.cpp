// The dgmax command line: subcommands are added by the cmd_*.cpp files.
#include <CLI/CLI.hpp>

#include <omp.h>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <thread>
#include <exception>
#include <iostream>
#include <string>
#include <vector>

#include "dgmax/config.hpp"
#include "solver/app/cmd_bench.hpp"
#include "solver/app/cmd_doc.hpp"
#include "solver/app/cmd_info.hpp"
#include "solver/app/cmd_run.hpp"
#include "solver/app/cmd_tune.hpp"
#if DGMAX_HAS_VTK
#include "solver/io/vtk_writer.hpp"
#endif
#include "codegen/dsl/expr_source.hpp"
#include "solver/parallel/agree.hpp"
#include "solver/parallel/comm.hpp"
#include "solver/io/hdf5_util.hpp"
#include "solver/util/error.hpp"
#include "solver/util/stop_request.hpp"
#include "solver/util/strings.hpp"

namespace {

std::string build_features() {
  std::string s = "dgmax " DGMAX_VERSION " (";
  s += DGMAX_HAS_CUDA ? "cuda" : "no cuda";
  s += DGMAX_HAS_VTK ? ", vtk" : ", no vtk";
  s += DGMAX_HAS_GMSH ? ", gmsh" : ", no gmsh";
  s += DGMAX_HAS_MPI ? ", mpi" : ", no mpi";
  return s + ")";
}

// CLI11 reads an unknown first word as a stray argument ("A subcommand is required"): name it
// and suggest the closest subcommand instead.
void check_subcommand_name(CLI::App& app, int argc, char** argv) {
  if (argc < 2 || argv[1][0] == '-') return;
  const std::string word = argv[1];
  std::vector<std::string> names;
  for (const CLI::App* sub : app.get_subcommands({})) names.push_back(sub->get_name());
  if (std::find(names.begin(), names.end(), word) != names.end()) return;
  const std::string close = dgmax::closest_match(word, names);
  throw dgmax::UserError("unknown command '" + dgmax::dsl::quote_for_message(word, 40) + "'", {},
                         (close.empty() ? "" : "did you mean '" + close + "'? ") +
                             "commands: " + dgmax::join_names(names) + " (dgmax --help lists them)");
}

// An error message, once per job: with several ranks, rank 0 says it at once; another rank waits
// a moment first, so that an error every rank meets (a config error) is said by rank 0 alone
// before its abort ends the job, while an error only that rank meets is still said, with its rank.
void report(const std::string& text) {
  const dgmax::Comm& w = dgmax::world();
  if (w.parallel() && !w.root()) {
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
    std::cerr << "[rank " << w.rank() << "] ";
  }
  std::cerr << text << std::flush;
}

int run_cli(int argc, char** argv);

// run_cli's answer on a rank that stays silent: a lower rank met the same error (agree.hpp), says
// it and ends the job. Ending it from here could cut that message short.
constexpr int kPeerReports = -1;

[[noreturn]] void wait_for_the_reporting_rank() {
  std::this_thread::sleep_for(std::chrono::seconds(60));  // its abort ends this process long before
  report("error: another rank met an error and did not end the job within 60 s\n");
  dgmax::world().abort(1);
  std::exit(1);
}

// Several ranks on one node share its cores: without OMP_NUM_THREADS each rank would start one
// OpenMP thread per core and the ranks would fight over them (5x slower measured with 3 ranks on
// 2 cores). Each rank gets its share instead.
void share_cores_between_ranks() {
  if (!dgmax::world().parallel() || std::getenv("OMP_NUM_THREADS")) return;
  int local = 1;
  for (const char* var : {"OMPI_COMM_WORLD_LOCAL_SIZE", "MPI_LOCALNRANKS", "SLURM_NTASKS_PER_NODE"})
    if (const char* v = std::getenv(var)) {
      local = std::max(1, std::atoi(v));
      break;
    }
  omp_set_num_threads(std::max(1, omp_get_num_procs() / local));
}

}  // namespace

int main(int argc, char** argv) {
  dgmax::skip_hdf5_shutdown_at_exit();  // first: before any HDF5 call (hdf5_util.hpp says why)
  // a file-size limit (`ulimit -f`) makes write() fail with EFBIG, reported like a full disk,
  // instead of killing dgmax with no summary
  std::signal(SIGXFSZ, SIG_IGN);
#if DGMAX_HAS_VTK
  dgmax::keep_vtk_loops_sequential();  // first: before any thread starts (vtk_writer.hpp says why)
#endif
  try {
    dgmax::init_world(&argc, &argv);
    share_cores_between_ranks();
  } catch (const dgmax::UserError& e) {
    std::cerr << e.render();
    return 1;
  }
  const int code = run_cli(argc, argv);
  if (code == kPeerReports) wait_for_the_reporting_rank();
  // the other ranks may wait in a collective for this one: end them all
  if (code != 0) dgmax::world().abort(code);
  dgmax::finalize_world();
  return code;
}

namespace {

int run_cli(int argc, char** argv) {
  CLI::App app{"dgmax: high-order discontinuous Galerkin Maxwell solver for tetrahedral meshes"};
  app.set_version_flag("--version", build_features());
  app.require_subcommand(1);
  dgmax::add_run_command(app);
  dgmax::add_info_command(app);
  dgmax::add_bench_command(app);
  dgmax::add_tune_command(app);
  dgmax::add_doc_command(app);
  try {
    check_subcommand_name(app, argc, argv);
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // --help / --version exit 0; a usage error is a user error: exit 1 like every other
    return app.exit(e) == 0 ? 0 : 1;
  } catch (const dgmax::PeerReportsError&) {  // a lower rank says it
    return kPeerReports;
  } catch (const dgmax::Interrupted& e) {  // Ctrl-C, SIGTERM or SIGHUP before the run began
    report(std::string("dgmax: ") + e.what() + "; nothing was run\n");
    return 128 + e.signal();
  } catch (const dgmax::UserError& e) {
    report(e.render());
    return 1;
  } catch (const dgmax::InternalError& e) {
    report(std::string(e.what()) + "\n");
    return 2;
  } catch (const std::bad_alloc&) {
    report("error: out of memory; try a smaller mesh or a lower order\n");
    return 1;
  } catch (const std::exception& e) {
    report(std::string("internal error (please report at the dgmax issue tracker): ") + e.what() + "\n");
    return 2;
  }
  return 0;
}

}  // namespace
