static const char help[] = "mbsid: identification of multibody-system parameters from vibration spectra.\n"
                           "Usage: mbsid <command> [options]   (options also from -options_file FILE.yaml)\n\n";

#include "commands/commandimpl.h"
#include <slepcsys.h>

/* An option that nothing read is most likely misspelt: with -unused_options_error it fails the run. */
static PetscErrorCode CheckUnusedOptions(void)
{
  PetscBool error = PETSC_FALSE;
  PetscInt  n, unused;
  char    **names, **values;

  PetscFunctionBeginUser;
  PetscOptionsBegin(PETSC_COMM_WORLD, NULL, "Option checking", "mbsid");
  PetscCall(PetscOptionsBool("-unused_options_error", "Fail when an option was given but never used (misspelt)", "", error, &error, NULL));
  PetscOptionsEnd();
  if (!error) PetscFunctionReturn(0);
  PetscCall(PetscOptionsLeftGet(NULL, &n, &names, &values));
  for (PetscInt i = 0; i < n; i++) PetscCall(PetscPrintf(PETSC_COMM_WORLD, "Unused option -%s %s\n", names[i], values[i] ? values[i] : ""));
  unused = n; /* the restore zeroes n */
  PetscCall(PetscOptionsLeftRestore(NULL, &n, &names, &values));
  PetscCheck(unused == 0, PETSC_COMM_WORLD, PETSC_ERR_ARG_WRONG, "%" PetscInt_FMT " option(s) were given but not used; check their spelling", unused);
  PetscFunctionReturn(0);
}

int main(int argc, char **argv)
{
  PetscBool has_help;

  PetscCall(SlepcInitialize(&argc, &argv, NULL, help));
  PetscCall(PetscOptionsHasHelp(NULL, &has_help));
  if (argc > 1 && argv[1][0] != '-') PetscCall(MbsCommandRun(PETSC_COMM_WORLD, argv[1]));
  else {
    PetscCall(MbsCommandView(PETSC_COMM_WORLD));
    PetscCheck(has_help, PETSC_COMM_WORLD, PETSC_ERR_ARG_WRONG, "No command given");
    PetscCall(MbsCommandRun(PETSC_COMM_WORLD, "simulate"));
  }
  PetscCall(CheckUnusedOptions());
  PetscCall(SlepcFinalize());
  return 0;
}
