#include "solver/app/cmd_run.hpp"

#include <yaml-cpp/yaml.h>

#include <cstdlib>
#include <memory>

#include "codegen/jit/content_hash.hpp"
#include "solver/app/interrupt.hpp"
#include "solver/app/simulation.hpp"
#include "solver/parallel/agree.hpp"
#include "solver/parallel/comm.hpp"
#include "solver/util/error.hpp"

namespace dgmax {
namespace {

struct RunCliOptions {
  std::string config;
  std::vector<std::string> sets;
  RunOptions run;
};

}  // namespace

void add_run_command(CLI::App& app) {
  auto opt = std::make_shared<RunCliOptions>();
  CLI::App* cmd = app.add_subcommand("run", "Run a simulation (no CONFIG: the built-in PEC cavity mode)");
  cmd->add_option("config", opt->config, "YAML config file");
  cmd->add_option("--backend,-b", opt->run.backend_override, "override the config's backend")
      ->check(CLI::IsMember({"auto", "ref", "cpu", "cuda"}));
  // one key=value per --set (repeat the option): a greedy list would swallow the CONFIG after it
  cmd->add_option("--set,-s", opt->sets, "override a config value: key.path=value (repeatable)")
      ->expected(1)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll)
      ->allow_extra_args(false);
  cmd->add_option("--output,-o", opt->run.output_override, "output directory (overrides output.dir)");
  cmd->add_flag("--overwrite", opt->run.overwrite,
                "delete an earlier run's files in the output directory (default: move them to previous/)");
  CLI::Option* restart =
      cmd->add_option("--restart", opt->run.restart_dir,
                      "continue the run in DIR from its newest checkpoint (output.checkpoint_every), bit for bit");
  cmd->add_flag("--quiet,-q", opt->run.quiet, "no progress line and no report");
  cmd->callback([opt, restart]() {
    // an empty DIR (--restart '' or a variable that was not set) would be no restart at all: a fresh
    // run that moves the earlier one and its checkpoints aside
    if (restart->count() > 0 && opt->run.restart_dir.empty())
      throw UserError("--restart needs the directory of the run to continue, but its value is empty", {},
                      "give the run's output directory, e.g. --restart out/cavity; leave --restart out for a new run");
    InterruptGuard interrupts;  // from the start: a Ctrl-C during set-up is a clean stop too
    // every rank reads the same config: its errors are said once (agree.hpp)
    const RunConfig cfg = agree_on_errors([&] {
      YamlDoc doc = opt->config.empty() ? YamlDoc::load_string(default_config_text(), "(built-in default)")
                                        : YamlDoc::load_file(opt->config);
      for (const auto& s : opt->sets) doc.apply_override(s);
      opt->run.config_hash = codegen::sha256_hex(YAML::Dump(doc.root()));
      return parse_run_config(doc);
    });
    const int code = run_simulation(cfg, opt->run);
    // interrupted: everything is written and closed; exit with the signal's conventional status
    if (code != 0) {
      world().abort(code);  // several ranks: end them all
      std::exit(code);
    }
  });
}

}  // namespace dgmax
