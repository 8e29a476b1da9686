/*
  libFuzzer harness of the scenario readers: every input is written to a YAML options file, checked as mbsid checks
  it before PETSc starts (MbsYAMLCheckOptionsFiles), and when it passes, loaded by PETSc into its own options
  database, from which a model and the spectrum/order analysis read their options. An error is a correct answer;
  a crash, a sanitizer report or a hang is a finding. Built by CMake with -DMBSID_FUZZ=ON and clang; run by
  benchmarks/fuzz/run.
*/
#include "models/modelimpl.h"
#include "core/coreimpl.h"

static char MbsFuzzPath[PETSC_MAX_PATH_LEN];

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
  /* a crash must reach libFuzzer, which records the input, not PETSc's signal handler, which aborts */
  if (PetscOptionsSetValue(NULL, "-no_signal_handler", NULL)) return 1;
  if (PetscInitializeNoArguments()) return 1;
  if (PetscPushErrorHandler(PetscReturnErrorHandler, NULL)) return 1;
  snprintf(MbsFuzzPath, sizeof(MbsFuzzPath), "%s/mbsid-fuzz-options-%d.yaml", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp", (int)getpid());
  return 0;
}

/* What a command reads first from a scenario: the model with its parameters, time span and initial state, and the analysis */
static PetscErrorCode MbsFuzzReadScenario(PetscOptions options)
{
  MbsModel          model = NULL;
  MbsFourierOptions analysis;
  PetscErrorCode    ierr;

  PetscFunctionBeginUser;
  PetscCall(PetscOptionsPush(options));
  ierr = MbsModelCreate(PETSC_COMM_SELF, &model);
  if (!ierr) ierr = MbsModelSetFromOptions(model);
  if (!ierr) ierr = MbsFourierOptionsRead(model->t0, model->tf, &analysis);
  PetscCall(MbsModelDestroy(&model));
  PetscCall(PetscOptionsPop());
  PetscFunctionReturn(0);
}

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
  FILE        *file = fopen(MbsFuzzPath, "wb");
  char         fault[PETSC_MAX_PATH_LEN + 512], *argv[] = {"mbsid", "-options_file", MbsFuzzPath, NULL};
  PetscOptions options;

  if (!file) return 0;
  fwrite(data, 1, size, file);
  fclose(file);
  if (MbsYAMLCheckOptionsFiles(3, argv, fault, sizeof(fault))) return 0;
  if (PetscOptionsCreate(&options)) return 0;
  if (!PetscOptionsInsertFileYAML(PETSC_COMM_SELF, options, MbsFuzzPath, PETSC_TRUE)) (void)MbsFuzzReadScenario(options);
  (void)PetscOptionsDestroy(&options);
  return 0;
}
