// The host-compiler JIT: compiling and calling, the memory and disk caches (same process, new
// processes, concurrent threads and processes), corrupt cache entries, and every error a user or
// a bug can cause. Each test uses its own cache directory.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/file.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <optional>
#include <thread>

#include "codegen/jit/host_jit.hpp"
#include "codegen/jit/jit_cache.hpp"
#include "jit_test_util.hpp"
#include "solver/util/error.hpp"

namespace dgmax::codegen {
namespace {

namespace fs = std::filesystem;
using test::kTwiceSource;
using test::options_for;
using test::read_text;
using test::TempDir;
using test::TwiceFn;
using test::write_text;

double call_twice(const LoadedLibrary& lib, double x) {
  return reinterpret_cast<TwiceFn>(lib.symbol("f"))(x);
}

// Counter changes between two snapshots.
struct Delta {
  int compiled, hits, rebuilt;
};
Delta since(const JitStats& before) {
  const JitStats now = jit_stats();
  return {now.compiled - before.compiled, now.cache_hits - before.cache_hits, now.rebuilt - before.rebuilt};
}

TEST(HostJit, CompilesLoadsAndKeepsTheSource) {
  TempDir cache;
  const HostJitOptions opt = options_for(cache);
  const JitStats before = jit_stats();
  auto lib = jit_compile(kTwiceSource, "twice", opt);
  EXPECT_EQ(call_twice(*lib, 21.0), 42.0);
  EXPECT_EQ(call_twice(*lib, -1.5), -3.0);
  EXPECT_EQ(since(before).compiled, 1);
  EXPECT_EQ(since(before).hits, 0);
  EXPECT_GT(jit_stats().compile_seconds, before.compile_seconds);

  const std::string key = host_jit_key(kTwiceSource, opt);
  ASSERT_EQ(key.size(), 32u);
  EXPECT_EQ(key.find_first_not_of("0123456789abcdef"), std::string::npos);
  const std::string dir = cache / "cpu";
  const std::string kept = read_text(dir + "/" + key + ".cpp");
  EXPECT_EQ(kept.rfind(kTwiceSource, 0), 0u) << kept;  // then the key symbol
  EXPECT_NE(kept.find("dgmax_cache_key[] = \"" + key + "\""), std::string::npos) << kept;
  EXPECT_EQ(lib->path(), dir + "/" + key + ".so");
  EXPECT_TRUE(artifact_is_valid(lib->path()));
  EXPECT_TRUE(fs::exists(dir + "/" + key + ".so.sum"));
  EXPECT_FALSE(fs::exists(dir + "/" + key + ".log"));
  EXPECT_EQ(lib->name_hint(), "twice");
  // Only the entry's own files are left: no temporaries.
  for (const auto& e : fs::directory_iterator(dir))
    EXPECT_EQ(e.path().filename().string().find(".tmp."), std::string::npos) << e.path();
}

TEST(HostJit, SecondCallInTheSameProcessIsACacheHit) {
  TempDir cache;
  const HostJitOptions opt = options_for(cache);
  const JitStats before = jit_stats();
  auto a = jit_compile(kTwiceSource, "twice", opt);
  auto b = jit_compile(kTwiceSource, "twice", opt);
  EXPECT_EQ(a.get(), b.get());  // the loaded library is shared
  EXPECT_EQ(since(before).compiled, 1);
  EXPECT_EQ(since(before).hits, 1);

  // Once every owner has let go, the next call loads the entry from disk: still no compile.
  a.reset();
  b.reset();
  auto c = jit_compile(kTwiceSource, "twice", opt);
  EXPECT_EQ(call_twice(*c, 4.0), 8.0);
  EXPECT_EQ(since(before).compiled, 1);
  EXPECT_EQ(since(before).hits, 2);
}

TEST(HostJit, SameSourceInAnotherCacheDirectoryIsCompiledThere) {
  TempDir cache1, cache2;
  const JitStats before = jit_stats();
  auto a = jit_compile(kTwiceSource, "twice", options_for(cache1));
  auto b = jit_compile(kTwiceSource, "twice", options_for(cache2));
  EXPECT_NE(a->path(), b->path());
  EXPECT_EQ(since(before).compiled, 2);
  EXPECT_EQ(call_twice(*b, 1.0), 2.0);
}

// ---- other processes ----------------------------------------------------------------------------

// Not a test on its own: the child process of the tests below (DISABLED_, so ctest does not count
// it as a pass; spawn_self runs disabled tests).
TEST(HostJitChildProcess, DISABLED_CompileTwice) {
  const char* cache = std::getenv("DGMAX_JIT_TEST_CHILD_CACHE");
  const char* out = std::getenv("DGMAX_JIT_TEST_CHILD_OUT");
  if (!cache || !out) GTEST_SKIP() << "run by the multi-process tests only";
  HostJitOptions opt;
  opt.compiler = "g++";
  opt.cache_dir = cache;
  auto lib = jit_compile(kTwiceSource, "twice", opt);
  const double y = call_twice(*lib, 21.0);
  const JitStats s = jit_stats();
  std::ofstream(out) << s.compiled << " " << s.cache_hits << " " << y << "\n";
}

struct ChildResult {
  int exit_code = -1, compiled = -1, hits = -1;
  double y = 0;
};

// Starts `n` child processes at once, all compiling kTwiceSource into `cache`.
std::vector<ChildResult> run_children(const TempDir& cache, const TempDir& scratch, int n) {
  std::vector<pid_t> pids;
  for (int i = 0; i < n; ++i) {
    const std::string out = scratch / ("child" + std::to_string(i) + ".out");
    pids.push_back(test::spawn_self("HostJitChildProcess.DISABLED_CompileTwice",
                                    {"DGMAX_JIT_TEST_CHILD_CACHE=" + cache.path(), "DGMAX_JIT_TEST_CHILD_OUT=" + out},
                                    scratch / ("child" + std::to_string(i) + ".log")));
  }
  std::vector<ChildResult> results(n);
  for (int i = 0; i < n; ++i) {
    if (pids[i] <= 0) continue;
    results[i].exit_code = test::wait_exit_code(pids[i]);
    std::istringstream in(read_text(scratch / ("child" + std::to_string(i) + ".out")));
    in >> results[i].compiled >> results[i].hits >> results[i].y;
    if (results[i].exit_code != 0) ADD_FAILURE() << read_text(scratch / ("child" + std::to_string(i) + ".log"));
  }
  return results;
}

TEST(HostJit, ANewProcessCompilesNothing) {
  TempDir cache, scratch;
  jit_compile(kTwiceSource, "twice", options_for(cache));
  const auto r = run_children(cache, scratch, 1);
  EXPECT_EQ(r[0].exit_code, 0);
  EXPECT_EQ(r[0].compiled, 0);
  EXPECT_EQ(r[0].hits, 1);
  EXPECT_EQ(r[0].y, 42.0);
}

TEST(HostJit, TwoProcessesAtOnceBuildTheEntryOnce) {
  TempDir cache, scratch;
  const auto r = run_children(cache, scratch, 2);
  for (const auto& c : r) {
    EXPECT_EQ(c.exit_code, 0);
    EXPECT_EQ(c.y, 42.0);
  }
  // The build lock makes the second process wait and then load the first one's build.
  EXPECT_EQ(r[0].compiled + r[1].compiled, 1);
  EXPECT_EQ(r[0].hits + r[1].hits, 1);
}

TEST(HostJit, FourThreadsAtOnceShareOneBuild) {
  TempDir cache;
  const HostJitOptions opt = options_for(cache);
  const JitStats before = jit_stats();
  std::vector<std::shared_ptr<LoadedLibrary>> libs(4);
  std::vector<double> y(4, 0.0);
  std::vector<std::string> errors(4);
  std::vector<std::thread> threads;
  for (int i = 0; i < 4; ++i)
    threads.emplace_back([&, i] {
      try {
        libs[i] = jit_compile(kTwiceSource, "twice", opt);
        y[i] = call_twice(*libs[i], i);
      } catch (const std::exception& e) {
        errors[i] = e.what();
      }
    });
  for (auto& t : threads) t.join();
  for (int i = 0; i < 4; ++i) {
    EXPECT_EQ(errors[i], "");
    EXPECT_EQ(y[i], 2.0 * i);
    EXPECT_EQ(libs[i].get(), libs[0].get());
  }
  EXPECT_EQ(since(before).compiled, 1);
  EXPECT_EQ(since(before).hits, 3);
}

TEST(HostJit, DifferentSourcesFromFourThreadsCompileInParallel) {
  TempDir cache;
  const HostJitOptions opt = options_for(cache);
  const JitStats before = jit_stats();
  std::vector<double> y(4, 0.0);
  std::vector<std::thread> threads;
  for (int i = 0; i < 4; ++i)
    threads.emplace_back([&, i] {
      const std::string src = "extern \"C\" double f(double x) { return x + " + std::to_string(i) + "; }\n";
      y[i] = call_twice(*jit_compile(src, "plus" + std::to_string(i), opt), 10.0);
    });
  for (auto& t : threads) t.join();
  for (int i = 0; i < 4; ++i) EXPECT_EQ(y[i], 10.0 + i);
  EXPECT_EQ(since(before).compiled, 4);
}

// ---- corrupt entries --------------------------------------------------------------------------

struct Corruption {
  const char* name;
  void (*apply)(const std::string& so);
};

void replace_file(const std::string& path, const std::string& bytes) {  // new inode, like a copy
  write_text(path + ".new", bytes);
  fs::rename(path + ".new", path);
}

// Builds "f(x) = 3 x" in the cache that holds `so`; returns its library's path.
std::string compile_other_entry(const std::string& so) {
  HostJitOptions opt;
  opt.compiler = "g++";
  opt.cache_dir = fs::path(so).parent_path().parent_path().string();
  return jit_compile("extern \"C\" double f(double x) { return 3 * x; }\n", "thrice", opt)->path();
}

const Corruption kCorruptions[] = {
    {"truncated to half", [](const std::string& so) {
       const std::string b = read_text(so);
       replace_file(so, b.substr(0, b.size() / 2));
     }},
    {"zero length", [](const std::string& so) { replace_file(so, ""); }},
    {"garbage of the same size", [](const std::string& so) {
       std::string b = read_text(so);
       for (size_t i = 0; i < b.size(); ++i) b[i] = static_cast<char>(i * 7919 % 251);
       replace_file(so, b);
     }},
    {"one flipped byte", [](const std::string& so) {
       std::string b = read_text(so);
       b[b.size() / 2] ^= 0x40;
       replace_file(so, b);
     }},
    {"checksum sidecar missing", [](const std::string& so) { fs::remove(so + ".sum"); }},
    {"garbage with a matching checksum", [](const std::string& so) {
       // the sidecar agrees, but dlopen refuses the file: rebuilt too
       const std::string garbage = "\x7f" "ELF this is not a shared object";
       replace_file(so, garbage);
       JitCacheDir dir(fs::path(so).parent_path().parent_path().string(), "cpu");
       publish_artifact_bytes(dir, so, garbage);
     }},
    {"shared object deleted", [](const std::string& so) { fs::remove(so); }},
    // A valid library of another entry copied over this one, with its sidecar: loading it would
    // call f with the other entry's meaning (or signature).
    {"another entry's library and sidecar", [](const std::string& so) {
       const std::string other = compile_other_entry(so);
       replace_file(so, read_text(other));
       replace_file(so + ".sum", read_text(other + ".sum"));
     }},
    // The same with a sidecar made for this entry: the library's own key symbol gives it away.
    {"another entry's library, sidecar remade", [](const std::string& so) {
       const std::string other = compile_other_entry(so);
       JitCacheDir dir(fs::path(so).parent_path().parent_path().string(), "cpu");
       publish_artifact_bytes(dir, so, read_text(other));
     }},
};

TEST(HostJit, CorruptCacheEntriesAreRebuilt) {
  for (const Corruption& c : kCorruptions) {
    SCOPED_TRACE(c.name);
    TempDir cache;
    const HostJitOptions opt = options_for(cache);
    std::string so = jit_compile(kTwiceSource, "twice", opt)->path();  // and let go of it
    c.apply(so);
    const std::string stale = so + ".tmp.99999.1.2";  // left by a killed build
    write_text(stale, "half");
    const JitStats before = jit_stats();
    auto lib = jit_compile(kTwiceSource, "twice", opt);
    EXPECT_EQ(call_twice(*lib, 5.0), 10.0);
    EXPECT_EQ(since(before).compiled, 1);
    EXPECT_EQ(since(before).rebuilt, std::string(c.name) == "shared object deleted" ? 0 : 1);
    EXPECT_TRUE(artifact_is_valid(so));
    EXPECT_FALSE(fs::exists(stale));
  }
}

TEST(HostJit, AnotherEntrysLibraryIsRebuiltWithANote) {
  TempDir cache;
  const HostJitOptions opt = options_for(cache);
  const std::string so = jit_compile(kTwiceSource, "twice", opt)->path();
  const std::string other = compile_other_entry(so);
  replace_file(so, read_text(other));
  replace_file(so + ".sum", read_text(other + ".sum"));
  ::testing::internal::CaptureStderr();
  auto lib = jit_compile(kTwiceSource, "twice", opt);
  const std::string err = ::testing::internal::GetCapturedStderr();
  EXPECT_EQ(call_twice(*lib, 5.0), 10.0);
  EXPECT_NE(err.find("rebuilding the kernel cache entry '" + so + "'"), std::string::npos) << err;
  EXPECT_NE(err.find("belongs to the cache key " + fs::path(other).stem().string()), std::string::npos) << err;
}

// A lock held by a process that never lets go (e.g. a stopped run) delays a build by
// DGMAX_CACHE_LOCK_TIMEOUT, then it goes on without the lock.
TEST(HostJit, AHeldLockDoesNotBlockForever) {
  TempDir cache;
  const HostJitOptions opt = options_for(cache);
  const JitCacheDir dir(cache.path(), "cpu");
  dir.create();
  const std::string lock_path = dir.file(host_jit_key(kTwiceSource, opt), ".lock");
  const int fd = ::open(lock_path.c_str(), O_RDWR | O_CREAT, 0666);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(::flock(fd, LOCK_EX), 0);  // another open file description: KeyLock must wait
  ::setenv("DGMAX_CACHE_LOCK_TIMEOUT", "0.3", 1);
  ::testing::internal::CaptureStderr();
  auto lib = jit_compile(kTwiceSource, "twice", opt);
  const std::string err = ::testing::internal::GetCapturedStderr();
  ::unsetenv("DGMAX_CACHE_LOCK_TIMEOUT");
  ::close(fd);
  EXPECT_EQ(call_twice(*lib, 4.0), 8.0);
  EXPECT_NE(err.find("gave up waiting for the kernel cache lock '" + lock_path + "'"), std::string::npos) << err;
  EXPECT_TRUE(artifact_is_valid(lib->path()));
}

// ---- errors -----------------------------------------------------------------------------------

TEST(HostJit, CompileErrorShowsTheLogAndNumberedLinesAroundIt) {
  TempDir cache;
  const HostJitOptions opt = options_for(cache);
  std::string src;
  for (int i = 1; i <= 40; ++i)
    src += i == 25 ? "  double y = undefined_thing * x;\n" : "// filler line " + std::to_string(i) + "\n";
  src = "extern \"C\" double f(double x) {\n" + src + "  return y;\n}\n";  // the error is on line 26
  std::string what;
  try {
    jit_compile(src, "broken_kernel", opt);
    ADD_FAILURE() << "compiled";
  } catch (const InternalError& e) {
    what = e.what();
  }
  if (std::getenv("DGMAX_JIT_TEST_SHOW")) std::printf("%s\n", what.c_str());
  const std::string key = host_jit_key(src, opt);
  const std::string cpp = cache / ("cpu/" + key + ".cpp");
  EXPECT_NE(what.find("please report"), std::string::npos) << what;
  EXPECT_NE(what.find("generated C++ source 'broken_kernel' does not compile (exit status 1)"), std::string::npos);
  EXPECT_NE(what.find("undefined_thing"), std::string::npos) << what;  // the log
  EXPECT_NE(what.find("was not declared"), std::string::npos) << what;
  EXPECT_NE(what.find(key + ".cpp:26:"), std::string::npos) << what;
  EXPECT_NE(what.find("  source:  " + cpp), std::string::npos) << what;
  EXPECT_NE(what.find(">   26 |   double y = undefined_thing * x;\n"), std::string::npos) << what;
  EXPECT_NE(what.find("    21 | // filler line 20\n"), std::string::npos) << what;
  EXPECT_NE(what.find("    31 | // filler line 30\n"), std::string::npos) << what;
  EXPECT_EQ(what.find("| // filler line 19\n"), std::string::npos) << what;  // only ±5 lines
  EXPECT_EQ(what.find("| // filler line 31\n"), std::string::npos) << what;
  // Left in the cache for reading: the source and the log; no library.
  EXPECT_EQ(read_text(cpp).rfind(src, 0), 0u);  // then the key symbol
  EXPECT_NE(read_text(cache / ("cpu/" + key + ".log")).find("undefined_thing"), std::string::npos);
  EXPECT_FALSE(fs::exists(cache / ("cpu/" + key + ".so")));
  for (const auto& e : fs::directory_iterator(cache / "cpu"))
    EXPECT_EQ(e.path().filename().string().find(".tmp."), std::string::npos) << e.path();
}

TEST(HostJit, LibraryThatDoesNotLoadIsAnInternalError) {
  TempDir cache;
  const std::string src =
      "extern \"C\" double dgmax_missing_helper(double);\n"
      "extern \"C\" double f(double x) { return dgmax_missing_helper(x); }\n";
  try {
    jit_compile(src, "unresolved", options_for(cache));
    ADD_FAILURE() << "loaded";
  } catch (const InternalError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("'unresolved' compiled but does not load"), std::string::npos) << what;
    EXPECT_NE(what.find("dgmax_missing_helper"), std::string::npos) << what;
  }
}

TEST(HostJit, MissingSymbolListsTheExportedNames) {
  TempDir cache;
  const std::string src =
      "extern \"C\" double f(double x) { return 2 * x; }\n"
      "extern \"C\" int g_table[3] = {1, 2, 3};\n"
      "static double hidden(double x) { return x; }\n"
      "extern \"C\" double g(double x) { return hidden(x); }\n";
  auto lib = jit_compile(src, "two_functions", options_for(cache));
  const std::vector<std::string> names = lib->exported_names();
  EXPECT_EQ(names, (std::vector<std::string>{"f", "g", "g_table"}));
  try {
    lib->symbol("dgmax_volume");
    ADD_FAILURE() << "found";
  } catch (const InternalError& e) {
    EXPECT_NE(std::string(e.what()).find("the generated library 'two_functions' (" + lib->path() +
                                         ") has no symbol 'dgmax_volume'; it exports f, g, g_table"),
              std::string::npos)
        << e.what();
  }
}

TEST(HostJit, MissingCompilerIsAUserError) {
  TempDir cache;
  HostJitOptions opt = options_for(cache);
  for (const std::string compiler : {"dgmax-no-such-compiler", "/nonexistent dir/g++"}) {
    opt.compiler = compiler;
    try {
      jit_compile(kTwiceSource, "twice", opt);
      ADD_FAILURE() << "compiled";
    } catch (const UserError& e) {
      EXPECT_EQ(e.message(), "C++ compiler '" + compiler +
                                 "' not found; the cpu backend needs one (install g++ or set DGMAX_CXX)");
    }
  }
  EXPECT_FALSE(fs::exists(cache / "cpu"));  // nothing written
}

TEST(HostJit, BrokenToolchainIsAUserError) {
  TempDir cache, bin;
  const std::string fake = bin / "fake c++";
  test::write_script(fake,
                     "if [ \"$1\" = --version ]; then echo 'fake c++ 1.0'; exit 0; fi\n"
                     "echo 'fake-ld: cannot find -lgomp' >&2; exit 1\n");
  HostJitOptions opt = options_for(cache);
  opt.compiler = fake;
  try {
    jit_compile(kTwiceSource, "twice", opt);
    ADD_FAILURE() << "compiled";
  } catch (const UserError& e) {
    EXPECT_NE(e.message().find("the C++ compiler '" + fake + "' cannot build a shared library with the flags '-O3 "),
              std::string::npos)
        << e.message();
    EXPECT_NE(e.message().find("even a one-line test source fails"), std::string::npos);
    EXPECT_NE(e.message().find("fake-ld: cannot find -lgomp"), std::string::npos);
    EXPECT_NE(e.hint().find("DGMAX_CXX"), std::string::npos);
  }
}

// A DGMAX_CXX that says it worked but wrote something else than a shared library of the source
// (text, or a library of another source): the compiler's fault, a user error naming the compiler
// and the file it wrote, exit 1; it was "internal error (please report)", exit 2.
TEST(HostJit, CompilerThatWritesNoLoadableLibraryIsAUserError) {
  TempDir cache, bin;
  const std::string text = bin / "text writer", other = bin / "other library";
  const std::string version = "if [ \"$1\" = --version ]; then echo 'fake c++ 1.0'; exit 0; fi\n";
  const std::string out_path = "while [ $# -gt 0 ]; do [ \"$1\" = -o ] && out=$2; shift; done\n";
  test::write_script(text, version + out_path + "echo 'not a library' > \"$out\"\n");
  test::write_script(other, version + out_path + "exec g++ -shared -fPIC -x c++ /dev/null -o \"$out\"\n");
  for (const std::string& compiler : {text, other}) {
    SCOPED_TRACE(compiler);
    HostJitOptions opt = options_for(cache);
    opt.compiler = compiler;
    const std::string so = cache / ("cpu/" + host_jit_key(kTwiceSource, opt) + ".so");
    try {
      jit_compile(kTwiceSource, "twice", opt);
      ADD_FAILURE() << "loaded";
    } catch (const UserError& e) {
      EXPECT_NE(e.message().find("the C++ compiler '" + compiler + "' wrote '" + so +
                                 "', which is not a loadable shared library"),
                std::string::npos)
          << e.message();
      EXPECT_NE(e.message().find("one-line source"), std::string::npos) << e.message();
      EXPECT_NE(e.hint().find("DGMAX_CXX"), std::string::npos);
    } catch (const std::exception& e) {
      ADD_FAILURE() << "not a UserError: " << e.what();
    }
  }
}

TEST(HostJit, CompilerAtAPathWithSpaces) {
  TempDir cache, bin;
  const std::string wrapper = bin / "my g++";
  test::write_script(wrapper,
                     "if [ \"$1\" = --version ]; then echo; echo 'wrapped g++ 1.0'; exit 0; fi\n"
                     "exec g++ \"$@\"\n");
  HostJitOptions opt = options_for(cache);
  opt.compiler = wrapper;
  auto lib = jit_compile(kTwiceSource, "twice", opt);
  EXPECT_EQ(call_twice(*lib, 3.0), 6.0);
  EXPECT_NE(host_jit_key(kTwiceSource, opt), host_jit_key(kTwiceSource, options_for(cache)));
}

TEST(HostJit, CompilerThatCannotSayItsVersionIsAUserError) {
  TempDir cache, bin;
  const std::string mute = bin / "mute", failing = bin / "failing", not_executable = bin / "plain file";
  test::write_script(mute, "exit 0\n");
  test::write_script(failing, "echo 'license expired' >&2; exit 3\n");
  write_text(not_executable, "");
  HostJitOptions opt = options_for(cache);
  const std::pair<std::string, std::string> cases[] = {
      {mute, "C++ compiler '" + mute + "' does not work: '" + mute + " --version' gave exit status 0"},
      {failing, "C++ compiler '" + failing + "' does not work: '" + failing +
                    " --version' gave exit status 3: license expired"},
      {not_executable, "C++ compiler '" + not_executable + "' cannot be run: Permission denied"},
  };
  for (const auto& [compiler, message] : cases) {
    opt.compiler = compiler;
    try {
      jit_compile(kTwiceSource, "twice", opt);
      ADD_FAILURE() << "compiled";
    } catch (const UserError& e) {
      EXPECT_EQ(e.message(), message);
      EXPECT_NE(e.hint().find("DGMAX_CXX"), std::string::npos);
    }
  }
}

TEST(HostJit, UncreatableCacheDirectoryIsAUserError) {
  TempDir scratch;
  write_text(scratch / "a file", "not a directory");
  HostJitOptions opt;
  opt.compiler = "g++";
  opt.cache_dir = scratch / "a file/cache";
  try {
    jit_compile(kTwiceSource, "twice", opt);
    ADD_FAILURE() << "compiled";
  } catch (const UserError& e) {
    EXPECT_EQ(e.message().rfind("cannot create the kernel cache directory '" + scratch.path() + "/a file/cache/cpu': ",
                                0),
              0u)
        << e.message();
    EXPECT_NE(e.hint().find("DGMAX_CACHE_DIR"), std::string::npos);
  }
}

TEST(HostJit, ReadOnlyCacheDirectory) {
  if (geteuid() == 0) GTEST_SKIP() << "running as root, which writes anywhere: no read-only cache directory can be made (run as a user to check)";
  TempDir cache;
  const HostJitOptions opt = options_for(cache);
  jit_compile(kTwiceSource, "twice", opt);
  fs::permissions(cache / "cpu", fs::perms::owner_read | fs::perms::owner_exec);
  // A valid entry still loads from a read-only cache (e.g. one shipped with an installation)...
  EXPECT_EQ(call_twice(*jit_compile(kTwiceSource, "twice", opt), 1.0), 2.0);
  // ...but a new source cannot be compiled there.
  try {
    jit_compile("extern \"C\" int h() { return 1; }\n", "h", opt);
    ADD_FAILURE() << "compiled";
  } catch (const UserError& e) {
    EXPECT_NE(e.message().find("cannot write to the kernel cache directory '" + cache.path() + "/cpu'"),
              std::string::npos)
        << e.message();
    EXPECT_NE(e.hint().find("DGMAX_CACHE_DIR"), std::string::npos);
  }
  fs::permissions(cache / "cpu", fs::perms::owner_all);
}

// ---- keys and options ---------------------------------------------------------------------------

TEST(HostJit, KeyDependsOnSourceFlagsCompilerAndExtraKey) {
  TempDir cache;
  const HostJitOptions base = options_for(cache);
  const std::string k = host_jit_key(kTwiceSource, base);
  EXPECT_EQ(host_jit_key(kTwiceSource, base), k);
  EXPECT_NE(host_jit_key(kTwiceSource + " ", base), k);

  HostJitOptions o = base;
  o.flags.push_back("-ffp-contract=fast");
  EXPECT_NE(host_jit_key(kTwiceSource, o), k);
  o = base;
  std::swap(o.flags[0], o.flags[1]);
  EXPECT_NE(host_jit_key(kTwiceSource, o), k);
  o = base;  // field boundaries count: {"-O3", "-g"} differs from {"-O3 -g"}
  o.flags = {"-O3", "-g"};
  HostJitOptions o2 = base;
  o2.flags = {"-O3 -g"};
  EXPECT_NE(host_jit_key(kTwiceSource, o), host_jit_key(kTwiceSource, o2));
  o = base;
  o.compiler = "c++";  // same gcc, but its --version line says "c++ (...)"
  EXPECT_NE(host_jit_key(kTwiceSource, o), k);
  o = base;
  o.extra_key = "kernel_templates.hpp v2";
  EXPECT_NE(host_jit_key(kTwiceSource, o), k);
  o = base;  // where the cache is does not change what is in it
  o.cache_dir = "/somewhere/else";
  EXPECT_EQ(host_jit_key(kTwiceSource, o), k);
}

TEST(HostJit, DefaultsComeFromTheEnvironment) {
  struct SavedEnv {
    std::string name;
    std::optional<std::string> value;
    explicit SavedEnv(std::string n) : name(std::move(n)) {
      if (const char* v = std::getenv(name.c_str())) value = v;
    }
    ~SavedEnv() { value ? setenv(name.c_str(), value->c_str(), 1) : unsetenv(name.c_str()); }
  };
  SavedEnv s1("DGMAX_CXX"), s2("CXX"), s3("DGMAX_CACHE_DIR"), s4("XDG_CACHE_HOME"), s5("HOME");

  unsetenv("DGMAX_CXX");
  unsetenv("CXX");
  unsetenv("DGMAX_CACHE_DIR");
  unsetenv("XDG_CACHE_HOME");
  setenv("HOME", "/home/someone", 1);
  HostJitOptions d;
  EXPECT_EQ(d.compiler, "c++");
  EXPECT_EQ(d.cache_dir, "/home/someone/.cache/dgmax");
  EXPECT_EQ(d.flags, (std::vector<std::string>{"-O3", "-march=native", "-fopenmp", "-fPIC", "-shared", "-std=c++17",
                                               "-ffp-contract=off", "-g0", "-pipe"}));

  setenv("CXX", "clang++", 1);
  setenv("XDG_CACHE_HOME", "/xdg cache", 1);
  EXPECT_EQ(HostJitOptions{}.compiler, "clang++");
  EXPECT_EQ(HostJitOptions{}.cache_dir, "/xdg cache/dgmax");
  setenv("XDG_CACHE_HOME", "relative", 1);  // not absolute: ignored, as the XDG spec says
  EXPECT_EQ(HostJitOptions{}.cache_dir, "/home/someone/.cache/dgmax");

  setenv("DGMAX_CXX", "/opt/gcc 13/bin/g++", 1);
  setenv("DGMAX_CACHE_DIR", "/scratch/me/kernels", 1);
  EXPECT_EQ(HostJitOptions{}.compiler, "/opt/gcc 13/bin/g++");
  EXPECT_EQ(HostJitOptions{}.cache_dir, "/scratch/me/kernels");
}

// Not an assertion about speed (machines differ): prints what a compile and the two kinds of cache
// hit cost, for the record.
TEST(HostJit, CompileAndCacheHitTimes) {
  TempDir cache;
  const HostJitOptions opt = options_for(cache);
  using clock = std::chrono::steady_clock;
  auto ms = [](clock::time_point t0) { return std::chrono::duration<double, std::milli>(clock::now() - t0).count(); };
  auto t0 = clock::now();
  auto lib = jit_compile(kTwiceSource, "twice", opt);
  const double compile_ms = ms(t0);
  t0 = clock::now();
  auto again = jit_compile(kTwiceSource, "twice", opt);
  const double memory_ms = ms(t0);
  lib.reset();
  again.reset();
  const JitStats before_disk = jit_stats();
  t0 = clock::now();
  lib = jit_compile(kTwiceSource, "twice", opt);
  const double disk_ms = ms(t0);
  const JitStats after_disk = jit_stats();
  std::printf("[   info   ] tiny source: compile %.1f ms, cache hit from disk %.3f ms, from memory %.4f ms\n",
              compile_ms, disk_ms, memory_ms);
  RecordProperty("compile_ms", std::to_string(compile_ms));
  RecordProperty("disk_hit_ms", std::to_string(disk_ms));
  // the disk hit ran no compiler (counted, not timed: timings on a busy machine prove nothing)
  EXPECT_EQ(after_disk.compiled, before_disk.compiled);
  EXPECT_EQ(after_disk.cache_hits, before_disk.cache_hits + 1);
  ASSERT_NE(lib, nullptr);
}

}  // namespace
}  // namespace dgmax::codegen
