// Runs `f`, which must throw a dgmax::UserError, and returns it (a test failure is recorded otherwise).
#pragma once

#include <gtest/gtest.h>

#include <functional>
#include <initializer_list>
#include <string>

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

// The same, and the message must contain every one of `words`.
inline UserError expect_user_error(const std::function<void()>& f, std::initializer_list<std::string> words) {
  const UserError e = expect_user_error(f);
  for (const std::string& w : words)
    EXPECT_NE(e.message().find(w), std::string::npos) << "message lacks \"" << w << "\":\n" << e.render();
  return e;
}

// The same, and the error must carry a hint: the user guide promises "a message ... and a hint" for
// every error a user can cause, so a check of the exception's type alone is not enough.
inline UserError expect_hinted_user_error(const std::function<void()>& f, std::initializer_list<std::string> words) {
  const UserError e = expect_user_error(f, words);
  EXPECT_FALSE(e.hint().empty()) << "no hint:\n" << e.render();
  return e;
}

}  // namespace dgmax::test
