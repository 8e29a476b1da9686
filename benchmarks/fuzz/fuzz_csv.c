/*
  libFuzzer harness of the CSV table reader (MbsCsvRead) and its column look-up: every input is written to a file and
  read as a table, with a decimal point and with a decimal comma. An error is a correct answer to a bad table; a
  crash, a sanitizer report or a hang is a finding (tests/test_csv checks that a refusal leaves no byte allocated).
  Built by CMake with -DMBSID_FUZZ=ON and clang; run by benchmarks/fuzz/run.
*/
#include "mbsidimpl.h"

static char MbsFuzzPath[PETSC_MAX_PATH_LEN];

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
  /* a crash must reach libFuzzer, which records the input, not PETSc's signal handler, which aborts */
  if (PetscOptionsSetValue(NULL, "-no_signal_handler", NULL)) return 1;
  if (PetscInitializeNoArguments()) return 1;
  if (PetscPushErrorHandler(PetscReturnErrorHandler, NULL)) return 1; /* a refused table is no finding: no tracebacks */
  snprintf(MbsFuzzPath, sizeof(MbsFuzzPath), "%s/mbsid-fuzz-csv-%d.csv", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp", (int)getpid());
  return 0;
}

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
  FILE *file = fopen(MbsFuzzPath, "wb");

  if (!file) return 0;
  fwrite(data, 1, size, file);
  fclose(file);
  for (int decimal_comma = 0; decimal_comma < 2; decimal_comma++) {
    MbsCsv   csv;
    PetscInt column;

    if (MbsCsvRead(MbsFuzzPath, (PetscBool)decimal_comma, &csv)) continue;
    (void)MbsCsvFindColumn(&csv, "1", &column);
    (void)MbsCsvFindColumn(&csv, "time", &column);
    (void)MbsCsvReset(&csv);
  }
  return 0;
}
