#include "solver/app/cmd_doc.hpp"

#include <iostream>
#include <memory>
#include <string>

#include "solver/io/config_reference.hpp"

namespace dgmax {

void add_doc_command(CLI::App& app) {
  CLI::App* doc = app.add_subcommand("doc", "Print reference documentation");
  doc->require_subcommand(1);
  auto key = std::make_shared<std::string>();
  CLI::App* config = doc->add_subcommand(
      "config", "Every config key as Markdown (docs/config-reference.md), or one key or section: doc config KEY");
  config->add_option("key", *key, "a key path, e.g. materials.slab.eps, monitors[].frequencies or pml");
  config->callback([key]() { std::cout << (key->empty() ? config_reference_markdown() : config_key_text(*key)); });
}

}  // namespace dgmax
