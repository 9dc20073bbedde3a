#include "solver/app/cmd_run.hpp"

#include <memory>

#include "solver/app/simulation.hpp"

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
  cmd->add_option("--set,-s", opt->sets, "override a config value: key.path=value (repeatable)")
      ->take_all();
  cmd->add_option("--output,-o", opt->run.output_override, "output directory (overrides output.dir)");
  cmd->add_flag("--quiet,-q", opt->run.quiet, "no progress line and no report");
  cmd->callback([opt]() {
    YamlDoc doc = opt->config.empty() ? YamlDoc::load_string(default_config_text(), "(built-in default)")
                                      : YamlDoc::load_file(opt->config);
    for (const auto& s : opt->sets) doc.apply_override(s);
    run_simulation(parse_run_config(doc), opt->run);
  });
}

}  // namespace dgmax
