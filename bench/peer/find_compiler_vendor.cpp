// Stand-in for the compiler probe that the libParanumal harness's copy of OCCA (occa/ in the
// checkout that bench/side_by_side.sh uses) lacks: OCCA compiles
// include/occa/scripts/findCompilerVendor.cpp with the host compiler, runs it and reads the
// compiler family from its exit status (a bit index: 0 GNU, 1 LLVM/clang, 10 none found).
// bench/side_by_side.sh installs this file there when it is missing. Only the families the GPU
// machine can have are told apart.
int main() {
#if defined(__clang__)
  return 1;
#elif defined(__GNUC__)
  return 0;
#else
  return 10;
#endif
}
