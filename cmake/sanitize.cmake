# Sanitizer and fuzzing switches, included before any target is defined so that dgmax_core, the
# dgmax binary and the tests are all built the same way.
#
#   -DDGMAX_SANITIZE=address,undefined   AddressSanitizer (+ LeakSanitizer) and UBSan for every
#                                        target; UB aborts (-fno-sanitize-recover=undefined) so a
#                                        report fails the test. GCC or clang. .ci/sanitize.sh.
#   -DDGMAX_FUZZ=ON                      libFuzzer targets in tests/fuzz (clang only); also adds
#                                        coverage instrumentation (-fsanitize=fuzzer-no-link) to
#                                        every target. Use it together with DGMAX_SANITIZE.
#                                        .ci/fuzz.sh, tests/fuzz/README.md.
set(DGMAX_SANITIZE "" CACHE STRING
    "Sanitizers for every target, e.g. address,undefined (empty: none)")
option(DGMAX_FUZZ "Build the libFuzzer targets in tests/fuzz (needs clang)" OFF)

if(DGMAX_SANITIZE)
  string(REPLACE ";" "," _dgmax_san "${DGMAX_SANITIZE}")
  add_compile_options(-fsanitize=${_dgmax_san} -fno-omit-frame-pointer)
  if(NOT CMAKE_BUILD_TYPE MATCHES "^(Debug|RelWithDebInfo)$")
    add_compile_options(-g1)  # line tables: reports name functions and lines
  endif()
  add_link_options(-fsanitize=${_dgmax_san})
  if(_dgmax_san MATCHES "undefined")
    add_compile_options(-fno-sanitize-recover=undefined)
    add_link_options(-fno-sanitize-recover=undefined)
  endif()
  if(_dgmax_san MATCHES "address")
    # Eigen 3.4 switches to its own over-allocating aligned malloc when GCC defines
    # __SANITIZE_ADDRESS__. libgmsh (uninstrumented) also instantiates Eigen templates, and the
    # executable's copies (e.g. PartialPivLU<MatrixXd>) interpose its copies at run time, so a
    # block allocated one way was freed the other ("attempting free on address which was not
    # malloc()-ed" in compute_inverse, reading a .msh with hexahedra). glibc's and ASan's malloc
    # both return 16-byte aligned blocks on x86-64, which is all Eigen needs without AVX.
    add_compile_definitions(EIGEN_MALLOC_ALREADY_ALIGNED=1)
  endif()
  message(STATUS "dgmax: sanitizers ${_dgmax_san}")
endif()

if(DGMAX_FUZZ)
  if(NOT CMAKE_CXX_COMPILER_ID MATCHES "Clang")
    message(FATAL_ERROR "DGMAX_FUZZ=ON needs clang (libFuzzer), e.g. "
                        "-DCMAKE_CXX_COMPILER=clang++ -DCMAKE_C_COMPILER=clang")
  endif()
  add_compile_options(-fsanitize=fuzzer-no-link)
endif()
