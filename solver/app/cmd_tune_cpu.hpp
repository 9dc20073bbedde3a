// `dgmax tune --backend cpu`: one (problem, precision) searched over the cpu plans on this host
// (solver/backends/cpu/cpu_tuner.hpp), the table printed, the winner kept in the tuning database.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "solver/app/host_ceilings.hpp"
#include "solver/physics/problem.hpp"

namespace dgmax {

// Searches, prints every plan tried (stage time, GDOF/s, % of the floor of `ceil`, or why it was
// refused) and the final, stores the winner dated `date` unless `dry_run`; returns the json record.
nlohmann::json tune_cpu_one(const Problem& p, bool single, const Ceilings& ceil, bool dry_run, const std::string& date);

}  // namespace dgmax
