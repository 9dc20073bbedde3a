// Runs `f`, which must throw a dgmax::UserError, and returns it (a test failure is recorded otherwise).
#pragma once

#include <gtest/gtest.h>

#include <functional>

#include "solver/util/error.hpp"

namespace dgmax::test {

inline UserError expect_user_error(const std::function<void()>& f) {
  try {
    f();
  } catch (const UserError& e) {
    return e;
  } catch (const std::exception& e) {
    ADD_FAILURE() << "expected a UserError, got: " << e.what();
    return UserError("<wrong exception>");
  }
  ADD_FAILURE() << "expected a UserError, nothing was thrown";
  return UserError("<nothing thrown>");
}

}  // namespace dgmax::test
